"""Determinizations dealt in the native module are the Python engine's, draw for draw.

`NativeSampler` hands `Determinizer.deal_plans` to the module's dealer
(csrc/rp_determinize.c).  For every built-in game that keeps secrets and for
test rulesets that stretch the plan (a component recorded in two hidden
places, face-down cards showing their colour, hidden numbers, a public view
that gives a deal away), each seat's samples along random games must be the
`Determinizer`'s exactly: the same position, the same generator, the agent's
generator left in the same state, the same fallbacks.  Where a draw plays the
game again (a hidden die), the Python engine draws and the module only holds
the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.agents.native_positions import NativeBail, NativePositions, NativeSampler
from ruleplay.agents.search import CutOff
from ruleplay.cli import main
from ruleplay.engine.determinize import Determinizer
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.rng import Rng

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "native"))
from native_support import native_of  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from test_determinize import HIDDEN_DICE, PEEK_AND_RETURN  # noqa: E402

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
SAMPLES = 12

TELL_TALE = """\
ruleplay: 1
game: tell-tale
players: 2
components:
  card:
    properties: {colour: string}
    items:
      - {id: r1, colour: red}
      - {id: r2, colour: red}
      - {id: b1, colour: blue}
      - {id: b2, colour: blue}
      - {id: b3, colour: blue}
      - {id: b4, colour: blue}
state:
  deck: {init: components("card"), visibility: hidden}
  hand: {per_player: true, init: "[]", visibility: owner}
  dice: {init: "[1, 2, 2, 3.5]", visibility: hidden}
  signal:
    init: "[0, 1]"
    visible_if: deck[0].colour == "red" or index == 1
    back: '"?"'
  turns: {init: "0"}
setup: |
  shuffle deck
  for p in seats() { draw 2 from deck to hand[p] }
flow:
  phases:
    - {name: play, order: alternate, actions: [give, pass]}
actions:
  give:
    params: {card: {of: components("card"), from: "hand[current]", seen_by: current}}
    effects: |
      move card from hand[current] to deck
      turns += 1
  pass:
    effects: turns += 1
end:
  - when: turns >= 4
"""

def _positions(game, seed: int, every: int):
    """States along one random playout, `every` moves apart, chance nodes left to the game's own draws."""
    state, agent, n = game.new_state(seed), make_agent("random", seed), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance_in_place()
            continue
        if n % every == 0:
            yield state.copy()
        state.apply_in_place(agent.choose(state))
        n += 1


def _agree(game, seed: int, every: int) -> tuple[int, int]:
    """Every seat's native samples against the `Determinizer`'s along one game: (positions dealt natively, fallbacks)."""
    ng = native_of(game)
    dealt = fallbacks = 0
    for state in _positions(game, seed, every):
        for viewer in range(game.info.players):
            at = NativePositions(ng, CutOff(None, None), None)
            native, python = NativeSampler(state, viewer, at), Determinizer(state, viewer)
            ours, theirs = Rng(seed * 31 + viewer), Rng(seed * 31 + viewer)
            for _ in range(SAMPLES):
                reference = python.sample(theirs)
                drawn = native.sample(ours)
                assert at.key(drawn) == at.key(at.root(reference))
                assert at.generator(drawn) == reference.data["rng"]
                assert ours.state == theirs.state
            assert native.determinizer.fallbacks == python.fallbacks
            dealt += native.dealer is not None
            fallbacks += python.fallbacks
    return dealt, fallbacks


@pytest.mark.parametrize("name", sorted(n for n in builtin_games() if load_game(n).model.keeps_secrets))
def test_every_built_in_game_with_secrets_is_dealt_natively_as_python_deals_it(name):
    dealt, _ = _agree(load_game(name), 4, 7 if name.startswith(("nautilus", "lovci")) else 1)
    assert dealt > 0


@pytest.mark.parametrize("ruleset", ["face-down-deal.yaml", "sealed-bids.yaml"])
def test_test_rulesets_with_backs_and_bids_are_dealt_natively_as_python_deals_them(ruleset):
    for seed in range(3):
        assert _agree(load_game(RULESETS / ruleset), seed, 1)[0] > 0


def test_a_deal_the_public_view_gives_away_is_drawn_again_natively_as_in_python(make_game):
    """`signal[0]` shows only while a red card tops the hidden deck: deals that change that are refused, some
    positions run out of draws and keep the real arrangement, and the hidden numbers are dealt among themselves."""
    game = make_game(TELL_TALE)
    found = [_agree(game, seed, 1) for seed in range(6)]
    assert all(dealt > 0 for dealt, _ in found)
    assert sum(fallbacks for _, fallbacks in found) > 0


def test_a_component_recorded_in_two_hidden_places_moves_with_its_record_natively(make_game):
    game = make_game(PEEK_AND_RETURN)
    start = game.new_state(0)
    ng = native_of(game)
    for card in start.data["vars"]["peek"][0]:
        kept = start.apply(f"keep({card})")
        at = NativePositions(ng, CutOff(None, None), None)
        native = NativeSampler(kept, 1, at)
        assert native.dealer is not None
        for seed in range(10):
            assert at.key(native.sample(Rng(seed))) == at.key(at.root(Determinizer(kept, 1).sample(Rng(seed))))


def test_a_draw_that_plays_the_game_again_is_made_by_the_python_engine(make_game):
    game = make_game(HIDDEN_DICE)
    state = game.new_state(3)
    while state.is_chance_node():
        state.apply_chance_in_place()
    at = NativePositions(native_of(game), CutOff(None, None), None)
    native, python = NativeSampler(state, 1, at), Determinizer(state, 1)
    assert native.dealer is None and python.deal_plans() is None
    ours, theirs = Rng(3), Rng(3)
    for _ in range(20):
        assert at.key(native.sample(ours)) == at.key(at.root(python.sample(theirs)))
    assert ours.state == theirs.state


def test_a_view_the_module_gives_up_on_hands_the_decision_to_the_python_engine(make_game):
    """A `visible_if` that fails on some dealt positions (a division by zero, reached once seat 1's first card is
    not red) stops the native draw; the agent searches that decision on the Python engine, which counts such a
    deal as one the seat could tell, and decides as the Python engine does."""
    text = TELL_TALE.replace('visible_if: deck[0].colour == "red" or index == 1',
                             'visible_if: index == 1 or hand[1][0].colour == "red" or 1 // turns == 1')
    game = make_game(text)
    state = next(s for s in map(game.new_state, range(50)) if s.data["vars"]["hand"][1][0] in ("r1", "r2"))
    at = NativePositions(native_of(game), CutOff(None, None), None)
    with pytest.raises(NativeBail):
        sampler = NativeSampler(state, 0, at)
        for seed in range(20):
            sampler.sample(Rng(seed))
    python, native = make_agent("ismcts:iterations=30", 5, "python"), make_agent("ismcts:iterations=30", 5, "native")
    assert str(native.choose(state)) == str(python.choose(state))
    assert native.bails == 1 and native.natively == 0


@pytest.mark.parametrize("text, construct", [
    (HIDDEN_DICE, "chance action `roll0` draws `a`, which some seats may not see, among values that are not "
                  "components: a determinization plays the game again to draw it anew"),
    (TELL_TALE.replace('index == 1\n', 'index == 99999999999999999999999\n'),
     "the native backend does not lower the `visible_if` or `back` of state variable `signal`"),
    (TELL_TALE, None),
])
def test_validate_native_names_what_keeps_determinization_on_python(tmp_path, text, construct):
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    game = load_game(path)
    native_of(game)
    if "visible_if" in (construct or ""):  # then the Python engine draws, and the search holds its draws natively
        assert _agree(game, 1, 1)[0] == 0
    entry = json.loads(CliRunner().invoke(main, ["validate", str(path), "--native", "--json"]).stdout)[0]
    assert entry["native"]["builds"] and entry["native"]["determinization_on_python"] == construct
    shown = CliRunner().invoke(main, ["validate", str(path), "--native"]).output
    said = "native: ismcts draws its determinizations on the Python engine"
    assert (f"{said}: {construct}" in shown) if construct else (said not in shown)
