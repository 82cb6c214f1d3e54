"""Reading a spec's rules: bold-id list items, not the ones shown in code blocks, each id defined once."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.dsl.diagnostics import Related
from ruleplay.validators.spec import read_spec

RULESET = """\
ruleplay: 1
spec: spec.md
game: mini
players: 2
state:
  count: {init: "0"}
flow:
  phases:
    - name: play
      actions: [tick]
actions:
  tick: {rule: AB-1, effects: count += 1}
end:
  - when: count >= 3
"""


def write_spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("fence", ["```", "~~~", "````", "  ```"])
def test_a_rule_line_in_a_fenced_code_block_is_no_rule(tmp_path: Path, fence: str):
    spec = write_spec(tmp_path, f"- **AB-1** A rule.\n\n{fence}markdown\n- **AB-5** an example\n{fence}\n"
                                "- **AB-2** Another.\n")
    assert [(r.id, r.line) for r in read_spec(spec)] == [("AB-1", 1), ("AB-2", 6)]


def test_a_byte_order_mark_and_odd_line_breaks_keep_rules_and_their_lines(tmp_path: Path):
    """A mark an editor put first hid the first rule (cited, it was RP311 'not in spec.md'); a \\u2028 or a
    form feed inside a rule's text, which `splitlines` ends a line at, put every later rule a line too low."""
    spec = write_spec(tmp_path, "\ufeff- **AB-1** A rule\u2028 with a line separator.\r\n"
                                "- **AB-2** Another,\x0c paged.\r- **AB-3** After an old Mac line end.\n")
    assert [(r.id, r.line) for r in read_spec(spec)] == [("AB-1", 1), ("AB-2", 2), ("AB-3", 3)]


def test_a_fence_closes_only_with_its_own_kind_and_length(tmp_path: Path):
    spec = write_spec(tmp_path, "````\n```\n- **AB-5** still code\n~~~~\n````\n- **AB-1** A rule.\n")
    assert [r.id for r in read_spec(spec)] == ["AB-1"]


def test_an_unclosed_fence_runs_to_the_end(tmp_path: Path):
    spec = write_spec(tmp_path, "- **AB-1** A rule.\n```\n- **AB-5** code to the end\n")
    assert [r.id for r in read_spec(spec)] == ["AB-1"]


def test_a_rule_shown_in_a_code_block_is_not_reported_uncited(tmp_path: Path):
    write_spec(tmp_path, "- **AB-1** A rule.\n\n```\n- **AB-5** an example of the format\n```\n")
    (tmp_path / "game.yaml").write_text(RULESET, encoding="utf-8")
    assert [d.code for d in load_game(tmp_path / "game.yaml").model.diagnostics] == []


def test_a_rule_id_defined_twice_is_an_error_at_the_second_definition(tmp_path: Path):
    write_spec(tmp_path, "# Spec\n\n- **AB-1** A rule.\n- **AB-2** Another.\n- **AB-1** The same id again.\n")
    (tmp_path / "game.yaml").write_text(RULESET, encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_game(tmp_path / "game.yaml")
    (d,) = [d for d in info.value.diagnostics if d.code == "RP312"]
    assert (Path(d.file).name, d.line, d.col, d.severity) == ("spec.md", 5, 1, "error")
    assert d.message == "spec rule AB-1 is defined twice (first at line 3)"
    assert d.related == (Related("AB-1 first defined here", d.file, 3, 1),)
    assert "own id" in d.hint
    assert [x.code for x in info.value.diagnostics if x.code == "RP310"] == ["RP310"]  # AB-2, once
