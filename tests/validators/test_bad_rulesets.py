"""Every broken ruleset in tests/bad_rulesets fails with the diagnostic its first line announces.

A case file starts with `# expect: CODE LINE:COL` (or `CODE FILE:LINE:COL` when
the error sits in another file of a multi-file case folder) and may add
`# load: variant=NAME players=N`.  Loading must raise `RulesetError` whose first
error has that code and position, formats as `file:line:col: error CODE: …`
with a caret line and a hint, takes under two seconds, and shows no traceback.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ruleplay import RulesetError, StepLimitError, load_game
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.runs.play import play_game

CORPUS = Path(__file__).resolve().parent.parent / "bad_rulesets"
EXPECT = re.compile(rb"^# expect: (RP\d{3}) (?:(\S+):)?(\d+):(\d+)\s*$", re.M)
LOAD = re.compile(rb"^# load: (.+)$", re.M)
PLAYED = re.compile(rb"^# expect-when-played: (RP\d{3}) (\S+)\s*$", re.M)
WARNS = re.compile(rb"^# expect-warning: (RP\d{3}) (\d+):(\d+)\s*$", re.M)
SECONDS = 2.0


@dataclass(frozen=True)
class Case:
    path: Path
    code: str
    file: Path
    line: int
    col: int
    options: dict

    @property
    def name(self) -> str:
        return str(self.path.relative_to(CORPUS))


def read_case(path: Path) -> Case:
    head = path.read_bytes()[:500]  # the header is ASCII even when the rest of the file is not
    found = EXPECT.search(head)
    assert found, f"{path.name}: no `# expect: CODE LINE:COL` line"
    code, other, line, col = (g.decode() if g else None for g in found.groups())
    options: dict = {}
    load = LOAD.search(head)
    for part in (load.group(1).decode().split() if load else []):
        key, value = part.split("=")
        options[key] = int(value) if key == "players" else value
    return Case(path, code, path.parent / (other or path.name), int(line), int(col), options)


def corpus() -> list[Case]:
    files = sorted(CORPUS.glob("*.yaml")) + sorted(CORPUS.glob("*/main.yaml"))
    return [read_case(p) for p in files if not PLAYED.search(p.read_bytes()[:500])
            and not WARNS.search(p.read_bytes()[:500])]


CASES = corpus()
WARNING_CASES = sorted(p for p in CORPUS.glob("*.yaml") if WARNS.search(p.read_bytes()[:500]))


def first_error(err: RulesetError) -> Diagnostic:
    errors = [d for d in err.diagnostics if d.severity == "error"]
    assert errors, "RulesetError without an error diagnostic"
    return errors[0]


def assert_well_formatted(d: Diagnostic, err: RulesetError, caret: bool = True) -> None:
    text = d.format()
    lines = text.splitlines()
    assert lines[0].startswith(f"{d.file}:{d.line}:{d.col}: error {d.code}: "), text
    assert len(lines[0]) > len(f"{d.file}:{d.line}:{d.col}: error {d.code}: "), "empty message"
    if caret:
        carets = [ln for ln in lines if re.fullmatch(r" *\^", ln)]
        assert carets, f"no caret line:\n{text}"
        if len(d.source_line) <= 120:  # longer lines are clipped around the caret
            assert lines[lines.index(carets[0]) - 1] == "    " + d.source_line
            assert len(carets[0]) - len("    ") == d.col, f"caret not under column {d.col}:\n{text}"
    assert any(ln.startswith("  hint: ") and ln.strip() != "hint:" for ln in lines), f"no hint:\n{text}"
    assert text in err.format()
    for shown in (text, err.format(), str(err)):
        assert "Traceback" not in shown and 'File "' not in shown


def load_and_fail(path: Path, **options) -> tuple[RulesetError, float]:
    """The error, and the CPU seconds loading took (CPU time, so a busy machine does not fail the test)."""
    start = time.process_time()
    with pytest.raises(RulesetError) as info:
        load_game(path, **options)
    return info.value, time.process_time() - start


def test_the_corpus_is_big_and_every_case_announces_its_error():
    assert len(CASES) >= 60
    codes = {c.code for c in CASES}
    for code in ("RP001", "RP002", "RP003", "RP004", "RP005", "RP006", "RP007", "RP101", "RP102", "RP103",
                 "RP104", "RP105", "RP106", "RP107", "RP108", "RP200", "RP203", "RP210", "RP211", "RP212",
                 "RP213", "RP219", "RP222", "RP223", "RP224", "RP225", "RP226", "RP227", "RP303", "RP306",
                 "RP311", "RP312", "RP320", "RP321", "RP322", "RP401", "RP402", "RP403", "RP405"):
        assert code in codes, f"no broken ruleset exercises {code}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_broken_ruleset_reports_its_first_error_at_the_right_place(case: Case):
    err, seconds = load_and_fail(case.path, **case.options)
    d = first_error(err)
    assert (d.code, d.line, d.col) == (case.code, case.line, case.col), d.format()
    assert Path(d.file).resolve() == case.file.resolve(), d.format()
    assert_well_formatted(d, err)
    assert seconds < SECONDS, f"took {seconds:.2f}s of CPU time"


@pytest.mark.parametrize("path", WARNING_CASES, ids=lambda p: p.name)
def test_ruleset_with_a_warning_loads_and_reports_it_first_at_the_right_place(path: Path):
    code, line, col = (g.decode() for g in WARNS.search(path.read_bytes()[:500]).groups())
    warnings = [d for d in load_game(path).model.diagnostics if d.severity == "warning"]
    assert warnings, "no warning"
    d = warnings[0]
    assert (d.code, d.line, d.col) == (code, int(line), int(col)), d.format()
    text = d.format()
    assert text.startswith(f"{d.file}:{d.line}:{d.col}: warning {d.code}: ") and "  hint: " in text, text


# --------------------------------------------------- cases made at test time

def test_empty_file(tmp_path: Path):
    path = tmp_path / "empty.yaml"
    path.write_bytes(b"")
    err, _ = load_and_fail(path)
    d = first_error(err)
    assert (d.code, d.line, d.col) == ("RP006", 1, 1)
    assert_well_formatted(d, err, caret=False)  # there is no line to point at


def test_blank_file(tmp_path: Path):
    path = tmp_path / "blank.yaml"
    path.write_text("\n   \n\n", encoding="utf-8")
    d = first_error(load_and_fail(path)[0])
    assert (d.code, d.line, d.col) == ("RP006", 1, 1)


def test_file_over_the_size_limit_is_refused_before_it_is_parsed(tmp_path: Path):
    path = tmp_path / "big.yaml"
    path.write_text((CORPUS / "never_ends.yaml").read_text(encoding="utf-8") + "# " + "x" * 5000 + "\n",
                    encoding="utf-8")
    from ruleplay.engine.loader import load_model

    with pytest.raises(RulesetError) as info:
        load_model(path, max_bytes=4096)
    d = first_error(info.value)
    assert (d.code, d.line, d.col) == ("RP001", 1, 1)
    assert "over the limit of 4096" in d.message and d.hint


@pytest.mark.parametrize("key, code", [("effects", "n += " + " + ".join(["1"] * 7000)),
                                       ("end", "n >= " + " + ".join(["1"] * 7000))])
def test_code_over_the_length_limit_names_the_limit_and_shows_only_an_excerpt(tmp_path: Path, key: str,
                                                                            code: str):
    """The schema's cap on code is the parser's (docs/dsl.md: RP203), so it reports as the parser would."""
    path = tmp_path / "long.yaml"
    effects, end = (code, "n >= 2") if key == "effects" else ("n += 1", code)
    path.write_text(f"""ruleplay: 1
game: long
players: 2
state:
  n: {{init: "0"}}
flow:
  phases:
    - name: play
      actions: [tick]
actions:
  tick:
    effects: "{effects}"
end:
  - when: "{end}"
""", encoding="utf-8")
    err, _ = load_and_fail(path)
    d = first_error(err)
    assert (d.code, d.line) == ("RP203", 12 if key == "effects" else 14), d.format()
    assert f"{len(code)} characters" in d.message and "20000" in d.message, d.message
    assert len(d.message) < 200 and code[:20] in d.message, d.message
    assert "function" in d.hint and "procedure" in d.hint, d.hint
    assert_well_formatted(d, err)


def test_a_game_that_never_ends_stops_at_the_step_limit_naming_its_phase():
    path = CORPUS / "never_ends.yaml"
    code, phase = (g.decode() for g in PLAYED.search(path.read_bytes()).groups())
    game = load_game(path)  # a valid ruleset: only playing it shows the problem
    with pytest.raises(StepLimitError) as info:
        play_game(game, ["random"], seed=3)
    assert info.value.code == code
    assert f"phase {phase!r}" in str(info.value)


# --------------------------------------- near misses that must still load

TRIGGERED = """\
    ruleplay: 1
    game: mini
    players: 2
    state:
      count:
        init: "0"
    flow:
      phases:
        - name: play
          actions: [tick]
          next: play
          stages:
            bonus:
              actions: [tick]
        - name: finale
          actions: [tick]
    actions:
      tick:
        effects: count += 1
    triggers:
      - when: count == 2 and stage == null
        effects: stage bonus
      - when: count == 4
        effects: goto finale
    end:
      - when: count >= 6
    """


def test_stages_and_phases_entered_only_by_triggers_are_reachable(make_game):
    game = make_game(TRIGGERED)
    assert [d.code for d in game.model.diagnostics if d.code.startswith("RP32")] == []


# ------------------------------------------------------------ the real CLI

def executable() -> str:
    beside = Path(sys.executable).parent / "ruleplay"
    found = str(beside) if beside.exists() else shutil.which("ruleplay")
    assert found, "the ruleplay command is not installed (pip install -e .)"
    return found


CLI_CASES = ["yaml_unclosed_flow_sequence.yaml", "alias_bomb.yaml", "python_tag_apply.yaml",
             "expr_nesting_operators.yaml", "schema_oneOf_none.yaml", "include_outside.yaml",
             "non_utf8.yaml", "extends_circular/main.yaml"]


def test_cli_validate_reports_broken_rulesets_without_a_traceback():
    cases = [read_case(CORPUS / name) for name in CLI_CASES]
    proc = subprocess.run([executable(), "validate", *[str(c.path) for c in cases]],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    for case in cases:
        assert re.search(rf"{re.escape(case.file.name)}:{case.line}:{case.col}: error {case.code}: ", out), \
            f"{case.name} not reported:\n{out}"


_STAGED = """\
ruleplay: 1
game: mini
players: 2
state:
  count: {init: "0"}
flow:
  phases:
    - name: play
      actions: [roll]
      stages:
        rolling: {actions: [tick]}
actions:
  roll:
    effects: stage roling
  tick:
    effects: |
      count += 1
      stage none
end:
  - when: count >= 3
"""


def test_a_stage_statement_naming_no_stage_is_reported_where_it_stands(tmp_path: Path):
    """Not only as the stage it missed, which can never run, far from the typo; `stage none` names none."""
    path = tmp_path / "staged.yaml"
    path.write_text(_STAGED, encoding="utf-8")
    err, _ = load_and_fail(path)
    [d] = [d for d in err.diagnostics if d.code == "RP210"]
    assert (d.line, d.col) == (14, 14) and "`stage roling` names no stage" in d.message
    assert d.hint == "did you mean 'rolling'?"
    assert_well_formatted(d, err)


def test_an_unknown_name_updated_in_place_is_one_error(tmp_path: Path):
    """`x += 1` reads `x` and writes it: a misspelt `x` is one mistake, reported once."""
    path = tmp_path / "update.yaml"
    path.write_text(_STAGED.replace("stage roling", "stage rolling").replace("count += 1", "cuont += 1"),
                    encoding="utf-8")
    err, _ = load_and_fail(path)
    errors = [d for d in err.diagnostics if d.severity == "error"]
    assert [(d.code, d.line, d.col) for d in errors] == [("RP210", 17, 7)], err.format()


def test_writing_a_name_never_declared_says_how_to_declare_it(tmp_path: Path):
    path = tmp_path / "undeclared.yaml"
    path.write_text(_STAGED.replace("stage roling", "stage rolling").replace("count += 1", "bonus_points = 1"),
                    encoding="utf-8")
    err, _ = load_and_fail(path)
    d = first_error(err)
    assert d.code == "RP210" and "declare `bonus_points` under `state:`" in d.hint, err.format()


def test_a_value_cut_by_a_comma_in_a_flow_mapping_gets_the_quoting_hint(tmp_path: Path):
    """`{of: range(1, 6)}`: YAML ends the value at the comma and reads `6)` as a key."""
    path = tmp_path / "comma.yaml"
    path.write_text(_STAGED.replace("stage roling", "stage rolling").replace(
        "  tick:\n", "  tick:\n    params:\n      n: {of: range(1, 6), from: \"[1, 2]\"}\n"), encoding="utf-8")
    err, _ = load_and_fail(path)
    d = first_error(err)
    assert d.code == "RP103" and "'6)'" in d.message and 'quote a text with commas' in d.hint, err.format()
    assert_well_formatted(d, err)


@pytest.mark.parametrize("value, kind", [("2001-12-14", "timestamp"), ("2001-12-14 21:59:43", "timestamp")])
def test_a_plain_value_yaml_reads_as_another_type_says_to_quote_it(tmp_path: Path, value: str, kind: str):
    """No tag was written, so "tag not allowed" would puzzle: say what YAML made of the text, and the fix."""
    path = tmp_path / "dated.yaml"
    path.write_text(f"ruleplay: 1\ngame: mini\ntitle: {value}\nplayers: 2\n", encoding="utf-8")
    d = first_error(load_and_fail(path)[0])
    assert (d.code, d.line, d.col) == ("RP007", 3, 8)
    assert d.message == f"YAML reads {value!r} as a {kind} (!!{kind}), which rulesets do not hold"
    assert d.hint == f'quote it to keep it as text: "{value}"'
    path.write_text(f"ruleplay: 1\ngame: mini\ntitle: !!{kind} {value}\nplayers: 2\n", encoding="utf-8")
    assert first_error(load_and_fail(path)[0]).message == f"YAML tag '!!{kind}' is not allowed"
