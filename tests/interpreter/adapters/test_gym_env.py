"""The Gymnasium environments: one game passes Gymnasium's checker, a batch answers as SyncVectorEnv over them."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium", reason="the Gymnasium environments need the `rl` extra")

import gymnasium
import numpy as np
from gymnasium.utils import env_checker, passive_env_checker
from ruleplay import IllegalMoveError, load_game
from ruleplay.engine.errors import RuleplayError
from ruleplay.pettingzoo import TurnEnv, raw_env, turn_env, vector_env

STEPS = 300
LONGEST = 20_000  # batch steps: longer than any built-in game's step limit


def test_one_game_passes_gymnasiums_checks(config):
    """Gymnasium's checker, but for its random actions: an illegal move raises the rules' reason (as in the
    PettingZoo environment) rather than being played, so the steps are checked along games of legal ones."""
    env = turn_env(*config)
    for check in (env_checker.check_reset_return_type, env_checker.check_reset_seed_determinism,
                  env_checker.check_reset_options, env_checker.check_reset_return_info_deprecation):
        check(env)
    rnd = random.Random(0)
    for seed in (1, 2):
        observation, _ = passive_env_checker.env_reset_passive_checker(env, seed=seed)
        for _ in range(STEPS):
            action = rnd.choice(np.flatnonzero(observation["action_mask"]).tolist())
            observation, _, over, _, _ = passive_env_checker.env_step_passive_checker(env, action)
            if over:
                break


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_batch_answers_as_sync_vector_env_over_single_games(config, backend):
    """Seeds, observations, masks, rewards, autoreset and infos: equal, step for step, over several games."""
    ours = vector_env(*config[:1], num_envs=4, players=config[1], variant=config[2], backend=backend)
    _play_alike(ours, lambda: TurnEnv(*config, backend="python"))


def _play_alike(ours, single, steps: int = STEPS, seed: int = 11):
    """`ours` and `SyncVectorEnv` over its number of `single()` games, stepped with the same random legal actions
    until `steps` steps are made and a game has ended and its slot started again: equal answers at every step, and
    `ours.legal_actions()` lists what each single game's handle does."""
    theirs = gymnasium.vector.SyncVectorEnv([single] * ours.num_envs, copy=ours.copy)
    rnd = random.Random(5)
    seen = [ours.reset(seed=seed), theirs.reset(seed=seed)]
    made = ended = 0
    while made < steps or not ended:
        _assert_same(*seen)
        _assert_legal_alike(ours, theirs)
        masks = seen[1][0]["action_mask"]
        actions = np.array([rnd.choice(np.flatnonzero(m).tolist() or [0]) for m in masks])
        seen = [ours.step(actions), theirs.step(actions)]
        ended += seen[1][2].sum()
        made += 1
        assert made < LONGEST, "no game ended within the engine's step limit"
    _assert_same(*seen)


def _assert_legal_alike(ours, theirs) -> None:
    """Each row of `ours.legal_actions()`: the legal actions of that game of `theirs` in its handle's order, then
    -1s, the rows as wide as the longest list."""
    counts, legal = ours.legal_actions()
    assert counts.dtype == np.int64 and legal.dtype == np.int32 and legal.shape == (ours.num_envs, counts.max())
    for i, env in enumerate(theirs.envs):
        held = env.unwrapped.games.held[0]
        expected = [] if held.is_terminal() else held.legal_actions()
        assert counts[i] == len(expected) and legal[i].tolist() == expected + [-1] * (legal.shape[1] - len(expected))


def _assert_same(a, b):
    assert len(a) == len(b)
    for ours, theirs in zip(a, b):
        if isinstance(ours, dict):
            assert sorted(ours) == sorted(theirs)
            for key in ours:
                assert np.array_equal(ours[key], theirs[key]), key
                assert ours[key].dtype == theirs[key].dtype, key
        else:
            assert np.array_equal(ours, theirs) and ours.dtype == theirs.dtype


@pytest.mark.parametrize("game", ["nautilus-cards", "tic-tac-toe"])
def test_without_copies_a_batch_hands_out_its_own_arrays_read_only_and_answers_alike(game):
    """`copy=False`, as SyncVectorEnv's: the same answers, in read-only views of the batch's arrays, which the
    next step rewrites (a write into them would show in later observations: the native batch clears only what a
    row's last observation wrote)."""
    ours = vector_env(game, num_envs=5, backend="native", copy=False)
    _play_alike(ours, lambda: TurnEnv(game, backend="python"), steps=60)
    observations, _ = ours.reset(seed=3)
    assert observations["observation"].base is ours._arrays.observations
    assert observations["action_mask"].base is ours._arrays.masks
    counts, legal = ours.legal_actions()
    assert counts.base is ours._arrays.nlegal and legal.base is ours._arrays.legal
    for array in (*observations.values(), legal):
        with pytest.raises(ValueError, match="read-only"):
            array[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        counts[0] = 1
    before = observations["observation"].copy()
    again, *_ = ours.step(observations["action_mask"].argmax(axis=1))  # each game's first legal move
    assert again["observation"].base is ours._arrays.observations
    assert not np.array_equal(observations["observation"], before)  # the same buffer, rewritten
    with pytest.raises(ValueError, match="copy must be True or False"):
        vector_env(game, num_envs=2, copy="no")


def test_the_seat_to_move_is_in_the_info_and_rewards_go_to_the_mover():
    env = turn_env("tic-tac-toe")
    observation, info = env.reset(seed=0)
    assert info == {"player": 0} and observation["action_mask"].tolist() == [1] * 9
    for cell in (0, 3, 1, 4):
        _, reward, over, _, info = env.step(cell)
        assert (reward, over) == (0.0, False)
    observation, reward, over, truncated, info = env.step(2)  # X completes the top row
    assert (reward, over, truncated, info["player"]) == (1.0, True, False, -4)
    assert info["returns"].tolist() == [1.0, -1.0] and observation["action_mask"].tolist() == [0] * 9
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step(5)


def test_the_games_of_the_batch_follow_their_seeds():
    batch = vector_env("kuhn-poker", num_envs=3)
    observations, _ = batch.reset(seed=7)
    single = raw_env("kuhn-poker")
    for slot in range(3):
        one = turn_env("kuhn-poker")
        alone, _ = one.reset(seed=7 + slot)
        assert np.array_equal(alone["observation"], observations["observation"][slot])
    assert single.stepper.backend == batch.games.stepper.backend == "native"


HANDED_BACK = """\
ruleplay: 1
game: handed-back
players: 2
state:
  x: {init: "1"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params:
      v: {of: "[1, 2, 3]"}
    effects: |
      n += 1
      EFFECTS
end:
  - when: n >= 12
scoring:
  score: "if x > 10 then 1 else 0"
"""


def _handed_back_game(tmp_path, effects: str):
    return _native_game(tmp_path, HANDED_BACK.replace("EFFECTS", effects))


def test_a_game_the_module_hands_back_goes_on_in_python_and_its_slot_comes_back(tmp_path):
    """Where a move of one game makes an int past 64 bits (at a random move, in some games only), the native
    batch hands that game back; it is made again on the engine's handle and played on in Python, its next game
    native again: every step answers as single games on the Python engine do."""
    game = _handed_back_game(tmp_path, "if v == 3 { x = x * 1000000000 }")
    ours = vector_env(game, num_envs=6, backend="native")
    _play_alike_handing_back(ours, game, steps=60)


def _play_alike_handing_back(ours, game, steps: int) -> None:
    """`_play_alike` against single games on the Python engine, counting at every step the batch's slots held in
    Python: some game must be handed back, and some slot must come back to the module."""
    handed = []
    step = ours._step

    def counting(actions=None):
        answer = step(actions)
        handed.append(int((ours._arrays.mine == 0).sum()))
        return answer

    ours._step = counting
    _play_alike(ours, lambda: TurnEnv(game, backend="python"), steps=steps)
    assert max(handed) > 0 and min(handed[1:]) < max(handed), "no game was handed back, or none came back"


def test_a_layout_that_does_not_fit_the_game_hands_every_game_back_and_answers_alike():
    """rp_batch_step asks once a call whether its layout fits the game (rp_layout_unfit: the size a layout of
    these cells makes): where it does, every game stays native; where it does not (one variable's kept items
    miscounted), no row is written natively and every game is handed back to Python, answering as single games."""
    fitting = vector_env("tic-tac-toe", num_envs=3, backend="native")
    _play_alike(fitting, lambda: TurnEnv("tic-tac-toe", backend="python"), steps=12)
    assert fitting._arrays.mine.all()
    ours = vector_env("tic-tac-toe", num_envs=3, backend="native")
    ours._native._args[1].cells[0] += 1
    handed = []
    step = ours._step

    def counting(actions=None):
        answer = step(actions)
        handed.append(int(ours._arrays.mine.sum()))
        return answer

    ours._step = counting
    _play_alike(ours, lambda: TurnEnv("tic-tac-toe", backend="python"), steps=12)
    assert handed and max(handed) == 0


# Rows past rp_batch.c's CLEAR_WHOLE (4,096 bytes of vector, of mask), cleared only where their last write wrote: a
# list of 300 items kept by position that shrinks and grows, 4,200 actions of which 84 are legal, different ones
# every step, and a game handed back now and then (an int past 64 bits), whose slot's rows Python writes meanwhile.
BIG_ROWS = """\
ruleplay: 1
game: big-rows
players: 2
state:
  pile: {init: "range(300)"}
  x: {init: "1"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params:
      k: {of: "range(4200)"}
    require: ["k % 50 == n % 50"]
    effects: |
      n += 1
      pile = if k % 2 == 0 then pile[k % 7 * 45:] else pile + range(k % 97)
      if k % 13 == 0 { x = x * 1000000000 }
end:
  - when: n >= 16
scoring:
  score: "if x > 10 then 1 else 0"
"""


def test_large_rows_cleared_where_they_were_written_answer_as_single_games(tmp_path):
    game = _native_game(tmp_path, BIG_ROWS)
    ours = vector_env(game, num_envs=4, backend="native")
    assert ours.games.encoding.size * 4 > 4096 and ours.games.actions > 4096
    _play_alike_handing_back(ours, game, steps=40)


def _native_game(tmp_path, text: str):
    """The game of ruleset `text`, skipping the test where no native module can be built."""
    from native_support import native_of

    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    game = load_game(path)
    native_of(game)
    return game


def test_a_rule_error_in_one_game_of_the_batch_raises_as_that_game_does_alone(tmp_path):
    game = _handed_back_game(tmp_path, 'if n == 5 { fail "stopped at five" }')
    batch, alone = vector_env(game, num_envs=3, backend="native"), turn_env(game, backend="python")
    batch.reset(seed=0)
    alone.reset(seed=0)
    for _ in range(4):
        batch.step(np.zeros(3, np.int64))
        alone.step(0)
    with pytest.raises(RuleplayError) as single:
        alone.step(0)
    with pytest.raises(RuleplayError) as batched:
        batch.step(np.zeros(3, np.int64))
    assert (type(batched.value), str(batched.value)) == (type(single.value), str(single.value))


def test_an_illegal_action_raises_the_rules_reason_before_any_game_moves():
    batch, same = vector_env("tic-tac-toe", num_envs=2), vector_env("tic-tac-toe", num_envs=2)
    batch.reset(seed=0)
    same.reset(seed=0)
    batch.step(np.array([4, 4]))
    same.step(np.array([4, 4]))
    alone = turn_env("tic-tac-toe")
    alone.reset(seed=1)
    alone.step(4)
    with pytest.raises(IllegalMoveError) as single:
        alone.step(4)
    with pytest.raises(IllegalMoveError) as batched:
        batch.step(np.array([0, 4]))  # cell 4 is taken in game 1
    assert str(batched.value) == str(single.value)
    _assert_same(batch.step(np.array([0, 0])), same.step(np.array([0, 0])))  # game 0 did not move either


def test_bad_calls_say_what_is_wrong():
    batch = vector_env("tic-tac-toe", num_envs=2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        batch.step(np.array([0, 0]))
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"one action per game, shape \(2,\)"):
        batch.step(np.array([0]))
    with pytest.raises(ValueError, match="one seed per game: 1 for 2 games"):
        batch.reset(seed=[1])
    with pytest.raises(IllegalMoveError, match=r"an int 0\.\.8"):
        batch.step(np.array([0, 9]))
    with pytest.raises(ValueError, match="num_envs must be a whole number"):
        vector_env("tic-tac-toe", num_envs=0)


def test_the_native_batch_step_leaves_the_native_packages_batch_function_in_place():
    """The batched environment's native module is no submodule named `batch`, which would shadow the package's
    `batch` (a batch of whole games) once imported."""
    from ruleplay.engine import native

    assert callable(native.batch) and native.batch.__module__.endswith("playout")


@pytest.mark.parametrize("name, steps", [("nautilus-cards", 300), ("lovci-pokladu", 450)])
def test_a_long_batched_run_keeps_no_texts_of_its_announcements(name, steps):
    """Texts made in play are interned for the process's life (up to a limit, past which games go on in Python):
    an announcement, a new text each hand a card game shows, is measured natively, never made, so a long run
    makes its few texts (the set-up's) in its first games and none after."""
    env = vector_env(name, num_envs=64, backend="native")
    lib, ffi = env.games.stepper._native.lib, env.games.stepper._native.ffi
    made, texts, draws = ffi.new("int64_t *"), [], np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    ended = 0
    for step in range(1, steps + 1):
        legal = [np.flatnonzero(row) for row in observations["action_mask"]]  # none in a game that just ended
        observations, _, over, _, _ = env.step(np.array([draws.choice(ok) if len(ok) else 0 for ok in legal]))
        ended += int(over.sum())
        if step in (steps // 3, steps):
            texts.append((lib.rp_texts_made(made), made[0]))
    assert ended > 64 and texts[0] == texts[1] and texts[1][0] < 20, (ended, texts)


# A row past CLEAR_WHOLE keeps the entries nothing changed since its last write (rp_observe.c's `kept`): here `cards`
# never changes, but what each seat sees of it does, through a `visible_if` that reads `shown` (changed by some
# moves only) and `viewer` (another seat each move); `hand`'s `visible_if` calls a function, so it is walked every
# row; `pad` only makes the row large.
KEPT_ENTRIES = """\
ruleplay: 1
game: kept-entries
players: 2
functions:
  mine:
    params: [k, seat]
    value: k % 2 == seat
state:
  cards: {init: "range(8)", visible_if: "shown[index] or index % 2 == viewer", back: '"?"'}
  hand: {init: "range(8)", visible_if: "mine(index, viewer) and shown[index]"}
  shown: {init: "repeat(false, 8)"}
  pad: {init: "range(300)"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [look]}
actions:
  look:
    params:
      k: {of: "range(8)"}
    effects: |
      n += 1
      if k % 3 == 0 { shown[k] = not shown[k] }
end:
  - when: n >= 30
scoring:
  score: "n"
"""


def test_a_row_kept_where_nothing_it_shows_changed_answers_as_single_games(tmp_path):
    game = _native_game(tmp_path, KEPT_ENTRIES)
    ours = vector_env(game, num_envs=3, backend="native")
    assert ours.games.encoding.size * 4 > 4096
    _play_alike(ours, lambda: TurnEnv(game, backend="python"), steps=70)


# Entries whose `visible_if` reads `viewer` are kept per seat in a batch's slot (rp_observe.c's rp_seat_views): a seat's
# own last numbers come back where nothing they read changed since that seat's last row.  Three seats take turns; some
# moves change what `marks` (one entry per seat, read with `owner`) and `pile` (which grows) show.
SEAT_VIEWS = """\
ruleplay: 1
game: seat-views
players: 3
state:
  marks: {per_player: true, init: "range(6)", visible_if: "shown[index] or (index + owner) % 3 == viewer", back: '"?"'}
  pile: {init: "range(10)", visible_if: "lit or index % 3 == viewer", back: "item * 10"}
  shown: {init: "repeat(false, 6)"}
  lit: {init: "false"}
  pad: {init: "range(300)"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [look]}
actions:
  look:
    params:
      k: {of: "range(6)"}
    effects: |
      n += 1
      if k % 3 == 0 { shown[k] = not shown[k] }
      if k == 5 { lit = not lit }
      if k == 4 { pile = pile + [n] }
end:
  - when: n >= 40
scoring:
  score: "n"
"""


def test_entries_kept_per_seat_answer_as_single_games(tmp_path):
    game = _native_game(tmp_path, SEAT_VIEWS)
    ours = vector_env(game, num_envs=3, backend="native")
    assert ours.games.encoding.size * 4 > 4096
    _play_alike(ours, lambda: TurnEnv(game, backend="python"), steps=90)


# Entries without component counts (adapters/encoding.py: variables whose values hold no text) sit between entries with
# them, in rows written over and over, kept where unchanged and kept per seat: `flags`, `lit` and `pad` hold no text;
# `marks` is given a card on some moves, `hands` holds cards, and `pile`'s hidden items show a card as their `back`.
COUNTED_ENTRIES = """\
ruleplay: 1
game: counted-entries
players: 3
components:
  card:
    items: [{id: a}, {id: b}, {id: c}]
state:
  flags: {init: "repeat(false, 6)"}
  marks: {init: "range(6)"}
  lit: {per_player: true, init: "repeat(false, 4)", visible_if: "index % 3 == viewer or item"}
  hands: {per_player: true, init: "[]", visibility: owner}
  pile: {init: "range(6)", visible_if: "index % 3 == viewer", back: '"a"'}
  pad: {init: "range(300)"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params:
      k: {of: "range(6)"}
    effects: |
      n += 1
      flags[k] = not flags[k]
      if k == 0 { marks[n % 6] = "b" }
      if k == 1 { marks[n % 6] = n }
      if k == 2 { append "c" to hands[current] }
      if k == 3 { lit[current][n % 4] = not lit[current][n % 4] }
      if k == 4 { hands[current] = [] }
end:
  - when: n >= 40
scoring:
  score: "n"
"""


def test_entries_without_component_counts_answer_as_single_games(tmp_path):
    from ruleplay.engine.textless import textless_vars

    game = _native_game(tmp_path, COUNTED_ENTRIES)
    assert textless_vars(game.model) == {"flags", "lit", "pad", "n"}
    ours = vector_env(game, num_envs=3, backend="native")
    assert ours.games.encoding.size * 4 > 4096
    _play_alike(ours, lambda: TurnEnv(game, backend="python"), steps=90)
