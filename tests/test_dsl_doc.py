"""docs/dsl.md is exact: every example runs, every builtin, code and top-level key is listed.

Each fenced block of the reference carries an HTML comment saying how it is
checked (see `docblocks`):

  check: base            the ruleset every `values` and `fragment` example extends
  check: values          lines `EXPRESSION => JSON`, evaluated against the base
  check: fragment        YAML merged into the base; it must load and play.  Options, checked
                         in this order after the moves:
                           players: N                   the player count
                           moves: a, b(1, 2), chance    moves to play (`chance`: sample one)
                           expect: EXPR                 must be true afterwards
                           refuses: MOVE => CODE RULE   the move is refused so
                           outcomes: JSON               the first state's chance outcomes [[move, p], ...]
                           observes: SEAT => JSON       these variables, as that seat observes them
                           returns: JSON                the game is over, with these returns
  check: error CODE      YAML merged into the base that must be refused with CODE
  check: file NAME       text written as NAME next to the other examples (specs, bases)
  check: ruleset NAME    a whole ruleset written as NAME; it must load and play
  check: sketch NAME     a section of the ruleset NAME; all sections, in order, make a
                         file that must load and play seeded random games
  check: none — REASON   shown, not run (program output, grammar excerpts)
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from collections import OrderedDict
from pathlib import Path

import pytest
import yaml

from docblocks import Block, parse_directive, play_random, read_blocks
from ruleplay import IllegalMoveError, RulesetError, load_game
from ruleplay.dsl import runtime as R
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.parser import parse_expr

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "dsl.md"
BLOCKS = read_blocks(DOC)
KINDS = {"base", "values", "fragment", "error", "file", "ruleset", "sketch", "none"}
MERGED = {"state", "constants", "boards", "graphs", "components", "functions", "procedures"}


def directive(block: Block):
    return parse_directive(block.directive)


def of_kind(kind: str) -> list[Block]:
    return [b for b in BLOCKS if directive(b) is not None and directive(b).kind == kind]


def ids(blocks: list[Block]) -> list[str]:
    return [f"line{b.line}" for b in blocks]


[BASE] = of_kind("base")
BASE_DATA = yaml.safe_load(BASE.text)


def merged(fragment_text: str, extra: dict | None = None) -> dict:
    """The base ruleset with a fragment's keys merged in (see the module docstring)."""
    data = copy.deepcopy(BASE_DATA)
    fragment = yaml.safe_load(fragment_text)
    for key, value in fragment.items():
        if key in MERGED and key in data:
            data[key].update(value)
        else:
            data[key] = value
    if "actions" in fragment and "flow" not in fragment:
        data["flow"]["phases"][0]["actions"] = list(fragment["actions"])
    data.update(extra or {})
    return data


def write(tmp_path: Path, data: dict | str, name: str = "example.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def split_moves(text: str) -> list[str]:
    """`a, b(1, 2), c` -> ["a", "b(1, 2)", "c"]: commas inside brackets belong to a move."""
    moves, depth, current = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            moves.append(current.strip())
            current = ""
        else:
            current += ch
    return [m for m in moves + [current.strip()] if m]


def evaluate(game, state, text: str):
    """The value of an expression in `state`, compiled with the game's own names."""
    model = game.model
    compiler = model.compiler()
    fn = compiler.expr(parse_expr(text), model.scope)
    assert compiler.problems == [], compiler.problems
    return fn(R.Ctx(state.data["vars"], state.data["flow"], model))


# ----------------------------------------------------------------- coverage
def test_every_block_says_how_it_is_checked():
    for block in BLOCKS:
        d = directive(block)
        assert d is not None, f"{block.where(DOC)}: add a <!-- check: … --> comment before the block"
        assert d.kind in KINDS, f"{block.where(DOC)}: unknown check kind {d.kind!r}"
        if d.kind == "none":
            assert block.lang != "yaml" and d.arg, f"{block.where(DOC)}: YAML is always checked; give a reason"


def test_the_builtin_table_is_generated_from_the_registry():
    spec = importlib.util.spec_from_file_location("build_reference", ROOT / "docs" / "build_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = DOC.read_text(encoding="utf-8")
    assert module.with_table(text) == text, "run: python docs/build_reference.py"


def test_the_doc_lists_every_builtin():
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- builtins:start -->")[1].split("<!-- builtins:end -->")[0]
    listed = set(re.findall(r"^\| `([a-z_]+)\(", table, re.M))
    assert listed == set(BUILTINS)


def test_the_doc_lists_every_diagnostic_code():
    used = set()
    for folder in ("dsl", "interpreter", "validators"):
        for path in (ROOT / folder).rglob("*.py"):
            used |= set(re.findall(r"RP\d{3}", path.read_text(encoding="utf-8")))
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- codes:start -->")[1].split("<!-- codes:end -->")[0]
    listed = set(re.findall(r"^\| (RP\d{3}) ", table, re.M))
    assert sorted(used - listed) == [], "codes used by the engine but missing from docs/dsl.md"
    assert sorted(listed - used) == [], "codes listed in docs/dsl.md that the engine no longer uses"


def test_the_doc_describes_every_top_level_key():
    schema = json.loads((ROOT / "dsl" / "schema.json").read_text(encoding="utf-8"))
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- keys:start -->")[1].split("<!-- keys:end -->")[0]
    listed = set(re.findall(r"^\| `([a-z_]+)`", table, re.M))
    assert listed == set(schema["properties"])


def test_each_test_ruleset_is_linked_next_to_its_primitive():
    text = DOC.read_text(encoding="utf-8")
    for path in sorted((ROOT / "tests" / "rulesets").glob("*.yaml")):
        assert f"../tests/rulesets/{path.name}" in text, f"link {path.name} from docs/dsl.md"


# ----------------------------------------------------------------- examples
def test_the_base_example_loads(tmp_path):
    game = load_game(write(tmp_path, BASE.text, "base.yaml"))
    assert play_random(game, 0).is_terminal()


@pytest.mark.parametrize("block", of_kind("values"), ids=ids(of_kind("values")))
def test_values(block, tmp_path):
    pairs = []
    for n, line in enumerate(block.text.splitlines()):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text, sep, want = line.partition("=>")
        assert sep, f"{DOC.name}:{block.line + n + 1}: write `EXPRESSION => VALUE`"
        pairs.append((text.strip(), want.strip(), block.line + n + 1))
    data = merged("{}")
    for i, (text, _, _) in enumerate(pairs):
        data["state"][f"example_{i}"] = {"init": text}
    game = load_game(write(tmp_path, data))
    state = game.new_state(seed=0)
    for i, (text, want, line) in enumerate(pairs):
        got = state.data["vars"][f"example_{i}"]
        assert json.dumps(got) == json.dumps(json.loads(want)), f"{DOC.name}:{line}: {text} gave {json.dumps(got)}"


@pytest.mark.parametrize("block", of_kind("fragment"), ids=ids(of_kind("fragment")))
def test_fragments(block, tmp_path):
    d = directive(block)
    path = write(tmp_path, merged(block.text))
    players = int(d.options["players"]) if "players" in d.options else None
    try:
        game = load_game(path, players=players, checking=True)
    except RulesetError as err:
        raise AssertionError(f"{block.where(DOC)}:\n{err.format()}") from None
    state = game.new_state(seed=0)
    if "outcomes" in d.options:
        got = [[str(m), p] for m, p in state.chance_outcomes()]
        assert got == json.loads(d.options["outcomes"]), f"{block.where(DOC)}: {got}"
    for move in split_moves(d.options.get("moves", "")):
        state = state.apply_chance() if move == "chance" else state.apply(move)
    where = block.where(DOC)
    if "expect" in d.options:
        assert evaluate(game, state, d.options["expect"]) is True, f"{where}: {d.options['expect']}"
    if "refuses" in d.options:
        move, _, why = d.options["refuses"].partition("=>")
        code, rule = why.split()
        with pytest.raises(IllegalMoveError) as err:
            state.apply(move.strip())
        assert (err.value.code, err.value.rule) == (code, rule), f"{where}: {err.value}"
    if "observes" in d.options:
        seat, _, want = d.options["observes"].partition("=>")
        seen = state.observe(int(seat))["state"]
        want = json.loads(want)
        assert {k: seen[k] for k in want} == want, f"{where}: {seen}"
    if "returns" in d.options:
        assert state.is_terminal() and state.returns() == json.loads(d.options["returns"]), \
            f"{where}: {state.returns()}"
    for seed in range(3):
        play_random(game, seed)


@pytest.mark.parametrize("block", of_kind("error"), ids=ids(of_kind("error")))
def test_refused_examples(block, tmp_path):
    code = directive(block).arg
    with pytest.raises(RulesetError) as err:
        load_game(write(tmp_path, merged(block.text)))
    codes = [x.code for x in err.value.diagnostics if x.severity == "error"]
    assert code in codes, f"{block.where(DOC)}: expected {code}, got {codes}"


def test_whole_files_in_document_order(tmp_path):
    for block in BLOCKS:
        d = directive(block)
        if d is None or d.kind not in ("file", "ruleset"):
            continue
        path = write(tmp_path, block.text, d.arg)
        if d.kind == "ruleset":
            try:
                game = load_game(path, variant=d.options.get("variant"), checking=True)
            except RulesetError as err:
                raise AssertionError(f"{block.where(DOC)}:\n{err.format()}") from None
            for seed in range(2):
                play_random(game, seed)


SKETCHES: dict[str, list[Block]] = OrderedDict()
for _block in of_kind("sketch"):
    SKETCHES.setdefault(directive(_block).arg, []).append(_block)


@pytest.mark.parametrize("name", list(SKETCHES))
def test_seed_game_sketches(name, tmp_path):
    parts = SKETCHES[name]
    path = write(tmp_path, "".join(b.text for b in parts), f"{name}.yaml")
    try:
        game = load_game(path, checking=True)
    except RulesetError as err:
        raise AssertionError(f"sketch {name} (first part at {parts[0].where(DOC)}):\n{err.format()}") from None
    assert [d.format() for d in game.model.diagnostics if d.severity == "error"] == []
    for seed in range(3):
        play_random(game, seed, max_moves=400)
