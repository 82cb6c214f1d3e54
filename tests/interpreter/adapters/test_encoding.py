"""The observation vector: one fixed length per game, built from the player's own view only."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from ruleplay import load_game
from ruleplay.adapters.encoding import ATOM, Encoding
from ruleplay.engine.textless import textless_vars


def _playout(game, seed):
    rnd = random.Random(seed)
    state = game.new_state(seed=seed)
    yield state
    while not state.is_terminal():
        state = state.apply_chance() if state.is_chance_node() else state.apply(rnd.choice(state.legal_moves()))
        yield state


@pytest.mark.parametrize("name", ["tic-tac-toe", "connect-four", "kuhn-poker", "nautilus-cards"])
def test_every_observation_of_a_game_has_the_layouts_length(name):
    game = load_game(name)
    encoding = Encoding(game)
    assert encoding.size == sum(b.width for b in encoding.blocks)
    for state in _playout(game, 3):
        for seat in range(game.model.players):
            assert len(encoding.encode(state.observe(seat))) == encoding.size


def test_the_tic_tac_toe_layout():
    encoding = Encoding(load_game("tic-tac-toe"))
    widths = {b.name: b.width for b in encoding.blocks}
    # viewer 2, to move 4, one phase, no stages (+ none), round; the board keeps its 9 cells by position
    assert widths == {"viewer": 2, "to move": 4, "phase": 1, "stage": 1, "round": 1,
                      "board": ATOM + 9 * ATOM, "winner": ATOM}


def test_a_board_cell_is_written_where_the_layout_says():
    game = load_game("tic-tac-toe")
    encoding = Encoding(game)
    board = next(b for b in encoding.blocks if b.name == "board")
    vector = encoding.encode(game.new_state().apply("place(4)").observe(1))
    cell = board.start + ATOM + 4 * ATOM
    assert vector[cell:cell + ATOM] == [1.0, 0.0, 0.0, 0.0]  # seat 0's mark: known, the number 0
    assert vector[cell + ATOM:cell + 2 * ATOM] == [0.0] * ATOM  # an empty cell: null
    assert vector[:2] == [0.0, 1.0] and vector[2:6] == [0.0, 1.0, 0.0, 0.0]  # seat 1 looks, seat 1 to move


def test_a_hidden_card_counts_only_for_its_owner():
    game = load_game("kuhn-poker")
    encoding = Encoding(game)
    hand0 = next(b for b in encoding.blocks if b.name == "hand[0]")
    state = game.new_state().apply("deal(K, J)")
    king = ATOM + game.model.component_ids.index("K")
    mine, theirs = encoding.encode(state.observe(0)), encoding.encode(state.observe(1))
    assert mine[hand0.start + king] == 1.0
    assert theirs[hand0.start:hand0.start + ATOM] == [0.0, 1.0, 1.0, 0.0]  # masked: a hidden list of one
    assert theirs[hand0.start + ATOM:hand0.start + hand0.width] == [0.0] * (hand0.width - ATOM)


def test_texts_are_numbered_by_the_games_symbols():
    game = load_game("tic-tac-toe")
    encoding = Encoding(game)
    assert encoding.symbols == {"X": 1, "O": 2}  # no components; the texts of `constants:` in order


def test_importing_ruleplay_imports_no_framework():
    code = ("import sys, ruleplay, ruleplay.adapters.encoding; "
            "print(sorted(m for m in ('pettingzoo', 'gymnasium', 'pyspiel', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


MAPS = """\
ruleplay: 1
game: maps
players: 2
constants:
  odd: {hidden: x}
  like: {hidden: 2}
state:
  a: {init: odd}
  b: {init: like}
  mine: {per_player: true, visibility: owner, init: "if p == 0 then odd else like"}
flow:
  phases:
    - {name: play, actions: [go]}
actions:
  go:
    effects: end_game
end:
  - when: "false"
"""


def test_a_map_of_the_rules_shaped_like_a_mask_is_encoded_as_the_map_it_is(make_game):
    """`{"hidden": "x"}` was read as a mask and stopped the encoding with a ValueError; a public
    `{"hidden": 2}` was written as a hidden list of two."""
    game = make_game(MAPS)
    encoding = Encoding(game)
    blocks = {b.name: b for b in encoding.blocks}
    state = game.new_state()
    mine, theirs = encoding.encode(state.observe(0)), encoding.encode(state.observe(1))
    for name in ("a", "b"):
        assert mine[blocks[name].start:blocks[name].start + ATOM] == [1.0, 0.0, 1.0, 0.0]  # a map of one key
    at = blocks["mine[0]"].start
    assert mine[at:at + ATOM] == [1.0, 0.0, 1.0, 0.0] and theirs[at:at + ATOM] == [0.0, 1.0, 1.0, 0.0]


COUNTED = """\
ruleplay: 1
game: counted
players: 2
components:
  card:
    items: [{id: a}, {id: b}]
state:
  score: {init: "0"}
  flags: {init: "[false, false]"}
  marks: {init: "[1, 2]"}
  claimed: {type: int, init: "0", description: the claim is wrong once `go` stores a card in it}
  faces: {init: "[0, 0]", visible_if: "index == viewer", back: '"a"'}
  hidden_flags: {init: "[true]", visible_if: "false"}
  hands: {per_player: true, init: "[p]"}
flow:
  phases:
    - {name: play, actions: [go]}
actions:
  go:
    effects: |
      marks[0] = "b"
      claimed = "a"
      end_game
end:
  - when: "false"
"""


def test_entries_that_can_hold_no_text_have_no_component_counts(make_game):
    """The counts are left out where the inferred types (init joined with every assignment) hold no text: a `type:`
    is not trusted (nothing checks it), nor a variable whose hidden items show a `back`."""
    game = make_game(COUNTED)
    encoding = Encoding(game)
    widths = {b.name: b.width for b in encoding.blocks}
    assert textless_vars(game.model) == {"score", "flags", "hidden_flags", "hands"}
    c = len(game.model.component_ids)
    assert widths == {"viewer": 2, "to move": 4, "phase": 1, "stage": 1, "round": 1, "score": ATOM,
                      "flags": ATOM + 2 * ATOM, "marks": ATOM + c + 2 * ATOM, "claimed": ATOM + c,
                      "faces": ATOM + c + 2 * ATOM, "hidden_flags": ATOM + ATOM, "hands[0]": ATOM + ATOM,
                      "hands[1]": ATOM + ATOM}
    state = game.new_state().apply("go")
    vector = encoding.encode(state.observe(1))
    at = {b.name: b.start for b in encoding.blocks}
    b = ATOM + game.model.component_ids.index("b")
    assert vector[at["marks"] + b] == 1.0 and vector[at["claimed"] + ATOM + 0] == 1.0
    assert vector[at["faces"] + ATOM + 0] == 1.0  # seat 1 sees face 0's back, "a"


def _texts(value):
    """Every text inside a value (items, map keys and values, nested): what the counts of an entry counted."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _texts(item)


def _masked(value) -> bool:
    return type(value) is dict and len(value) == 1 and "hidden" in value


def test_entries_without_counts_never_show_a_text(config):
    """In every state of random games, no entry left without component counts shows a seat a text: the counts the
    layout had for it (one a component, of every text in it) were always zeros."""
    game = load_game(*config)
    textless = textless_vars(game.model)
    for seed in (0, 1):
        for state in _playout(game, seed):
            for seat in range(game.model.players):
                seen = state.observe(seat)["state"]
                for name in textless:
                    entries = seen[name] if game.model.vars[name].per_player else [seen[name]]
                    for entry in entries:
                        if game.model.vars[name].visibility != "public" and _masked(entry):
                            continue  # a masked entry was never counted
                        assert list(_texts(entry)) == [], (name, seed, len(state.history), seat, entry)
