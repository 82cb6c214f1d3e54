"""Each action's generated listing (`engine.listing`) lists exactly what the reference (`legal._level`) lists.

On the states of random playouts of every ruleset: the same moves in the
same order (the same interned objects, or new moves with the same texts and
numbers) and the same budget left; with budgets too small for the listing,
the same error at the same place and the same budget left.  Then the cases
playouts may not reach: `from:` values spelt otherwise than their `of:`
values, a `from:` that gives no list, a rule switched off by mutation
testing, a listing Python cannot compile.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ruleplay import load_game
from ruleplay.dsl import runtime as R
from ruleplay.engine.legal import generate

from test_random_playouts import rulesets

STEPS = 60

EDGES = """\
ruleplay: 1
game: listing-edges
players: 2
state:
  n: {init: "0"}
flow:
  phases:
    - name: play
      order: alternate
      actions: [pick, wait]
actions:
  pick:
    params:
      a: {of: "[0, 1, 2, 3]", from: "if n == 5 then 7 else [3, 1.0, 2, 1]", rule: E-1}
      b: {of: "[[0, 1], [1, 2], [2, 3]]", from: "[[1, 2], [0, 1.0], [2, 3]]", where: "b[0] != a"}
      c: {of: "[true, false]"}
    require:
      - check: n < 9
        message: too late
      - check: a != 2 or c
        message: two needs c
        rule: E-2
      - check: b[1] > a or not c
        message: b over a
    effects: n = n + 1
  wait:
    require:
      - check: n % 2 == 1
        message: odd only
    effects: n = n + 1
end:
  - when: n >= 7
"""


def _listed(model: Any, data: dict, reference: bool, iterations: int | None = None,
            copies: int | None = None) -> tuple[tuple, tuple[int, int, int]]:
    """What one listing gives (its moves, or its error) and the budget it leaves."""
    budget = model.budget()
    budget.iterations = budget.iterations if iterations is None else iterations
    budget.copies = budget.copies if copies is None else copies
    try:
        moves = generate(model, data["vars"], data["flow"], budget, reference=reference)
        result: tuple = ("moves", [(m.action, m.args, str(m), m.index, model.move_table.get(m.index) is m)
                                   for m in moves])
    except R.RuleRuntimeError as err:
        result = ("error", type(err).__name__, str(err), err.pos)
    return result, (budget.iterations, budget.copies, budget.depth)


def _agree(model: Any, data: dict, iterations: int | None = None, copies: int | None = None) -> tuple:
    generated = _listed(model, data, False, iterations, copies)
    assert generated == _listed(model, data, True, iterations, copies)
    return generated


def _cost(model: Any, data: dict) -> tuple[int, int]:
    """The iterations and copies the whole listing charges."""
    full = model.budget()
    _, (iterations, copies, _) = _agree(model, data)
    return full.iterations - iterations, full.copies - copies


def _check_state(model: Any, data: dict, tight: bool) -> None:
    _agree(model, data)
    if not tight:
        return
    iterations, copies = _cost(model, data)
    for left in sorted({0, iterations // 3, iterations // 2, iterations - 1} - {iterations} if iterations else ()):
        assert _agree(model, data, iterations=left)[0][0] == "error"
    for left in sorted({0, copies // 2, copies - 1} if copies else ()):
        assert _agree(model, data, copies=left)[0][0] == "error"


@pytest.mark.parametrize("label, ruleset", rulesets())
def test_generated_listing_agrees_with_the_reference_on_random_playouts(label: str, ruleset: str) -> None:
    game = load_game(ruleset)
    model = game.model
    assert model.listings is not None, "the default compiler generates the listings"
    rng = random.Random(7)
    for seed in range(2):
        state = game.new_state(seed)
        for step in range(STEPS):
            if state.data["flow"]["done"]:
                break
            _check_state(model, state.data, tight=step % 7 == 0)
            if state.is_chance_node():
                state = state.apply_chance()
            else:
                state = state.apply(rng.choice(state.legal_moves()))
    made = [name for name, fn in model.listings._made.items() if fn is not None]
    assert made, "no action was listed by generated code"


def test_values_spelt_otherwise_and_a_from_that_gives_no_list(make_game) -> None:
    game = make_game(EDGES)
    model = game.model
    state = game.new_state(0)
    listed = _agree(model, state.data)
    assert listed[0][0] == "moves"
    interned = [shared for *_, shared in listed[0][1]]
    assert True in interned and False in interned, "both interned moves and moves spelt otherwise are listed"
    assert "1.0" in listed[0][1][0][2]  # the `from:` value's own spelling is the move's
    for n in range(9):
        data = dict(state.data, vars=dict(state.data["vars"], n=n))
        outcome = _agree(model, data)
        _check_state(model, data, tight=True)
        if n == 5:
            assert outcome[0][0] == "error" and "not a list" in outcome[0][2]


def test_switched_off_rules_are_left_out_alike(tmp_path) -> None:
    path = tmp_path / "edges.yaml"
    path.write_text(EDGES, encoding="utf-8")
    whole = load_game(path)
    listed = {rule: [] for rule in ("E-1", "E-2")}
    for rule in listed:
        game = load_game(path, disabled_rules=frozenset({rule}))
        state = game.new_state(0)
        for n in range(9):
            data = dict(state.data, vars=dict(state.data["vars"], n=n))
            _check_state(game.model, data, tight=False)
            listed[rule].append(_listed(game.model, data, False)[0])
    plain = [_listed(whole.model, dict(whole.new_state(0).data, vars={"n": n}), False)[0] for n in range(9)]
    assert listed["E-1"] != plain and listed["E-2"] != plain, "switching a rule off changes what is listed"


def test_a_listing_python_cannot_compile_keeps_the_reference(make_game) -> None:
    # 24 nested parameter loops: past Python's 20 statically nested blocks.
    params = "\n".join(f"      p{i}: {{of: \"[0]\", where: \"p{i} == 0\"}}" for i in range(24))
    game = make_game(f"""\
ruleplay: 1
game: deep
players: 1
state:
  done: {{init: "false"}}
flow:
  phases:
    - name: play
      order: alternate
      actions: [deep]
actions:
  deep:
    params:
{params}
    effects: done = true
end:
  - when: done
""")
    model = game.model
    state = game.new_state(0)
    assert _agree(model, state.data)[0][0] == "moves"
    assert model.listings.of(model, model.actions["deep"]) is None
    assert [str(m) for m in state.legal_moves()] == ["deep(" + ", ".join(["0"] * 24) + ")"]


def test_the_closure_compiler_lists_by_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPLAY_COMPILER", "closures")
    assert load_game("tic-tac-toe").model.listings is None
