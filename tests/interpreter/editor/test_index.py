"""The editor's index, cursor and completions, without a server: exact places for exact names."""

from __future__ import annotations

import os
from pathlib import Path

from ruleplay.dsl import ast as A
from ruleplay.editor.analysis import analyze, token_span
from ruleplay.editor.completion import complete
from ruleplay.editor.cursor import cursor_at
from ruleplay.editor.index import Span, Symbol

ROOT = Path(__file__).resolve().parents[3]
GAME = """ruleplay: 1
game: walk
players: 2
state:
  pos:
    per_player: true
    init: "0"
procedures:
  hop:
    params: [n]
    effects: pos[current] += n
flow:
  phases:
    - name: play
      actions: [step]
      stages:
        extra: {actions: [step]}
    - name: rest
      actions: [step]
actions:
  step:
    params:
      by: range(1, 3)
    effects: |
      let far = by * 2
      for a, b in [[1, 2]] {
        call hop(a + far)
      }
      if far > 3 { stage extra } else { goto rest }
end:
  - when: any(pos[p] >= 9 for p in seats())
scoring:
  score: pos[p]
"""


def _analysis(tmp_path: Path):  # type: ignore[no-untyped-def]
    game = tmp_path / "walk.yaml"
    game.write_text(GAME, encoding="utf-8")
    return str(game), analyze(str(game), {})


def test_names_in_code_resolve_to_their_declarations_with_their_scopes(tmp_path: Path) -> None:
    file, analysis = _analysis(tmp_path)
    ix = analysis.index()
    far = Symbol("local", "far", (file, 25, 7))
    assert ix.declarations[far] == Span(file, 25, 11, 14)
    assert ix.uses[far] == [Span(file, 27, 22, 25), Span(file, 29, 10, 13)]
    a = Symbol("local", "a", (file, 26, 7))
    assert (ix.declarations[a], ix.uses[a]) == (Span(file, 26, 11, 12), [Span(file, 27, 18, 19)])
    assert ix.uses[Symbol("param", "by", ("actions", "step"))] == [Span(file, 25, 17, 19)]
    assert ix.declarations[Symbol("param", "n", ("procedures", "hop"))] == Span(file, 10, 14, 15)
    assert ix.uses[Symbol("procedure", "hop")] == [Span(file, 27, 14, 17)]
    assert ix.uses[Symbol("stage", "extra")] == [Span(file, 29, 26, 31)]
    assert ix.uses[Symbol("phase", "rest")] == [Span(file, 29, 46, 50)]
    assert ix.uses[Symbol("action", "step")] == [Span(file, 15, 17, 21), Span(file, 17, 27, 31),
                                                  Span(file, 19, 17, 21)]
    # `p` of the comprehension is a local; `p` of the score is the name the field gives
    (p_local,) = [s for s in ix.declarations if s.kind == "local" and s.name == "p"]
    assert ix.uses[p_local] == [Span(file, 31, 19, 20)]
    assert ix.declarations[p_local] == Span(file, 31, 31, 32)
    assert ix.uses[Symbol("given", "p", ("the seat this value is for",))] == [Span(file, 33, 14, 15)]
    assert ix.at(file, 27, 23) == (Span(file, 27, 22, 25), far)


def test_the_cursor_is_placed_by_indentation_in_text_that_does_not_parse() -> None:
    text = GAME.replace("      let far = by * 2\n", "      let far = (by *\n")
    assert cursor_at(text, 25, 21).path == ("actions", "step", "effects")
    assert cursor_at(text, 25, 21).kind == "code"
    where = cursor_at(text, 16, 7)
    assert (where.path, where.kind, where.siblings) == (("flow", "phases", 0), "key",
                                                       frozenset({"name", "actions"}))
    assert cursor_at(text, 19, 17).path == ("flow", "phases", 1, "actions", 0)


def test_completion_after_call_goto_stage_and_at(tmp_path: Path) -> None:
    _, analysis = _analysis(tmp_path)
    ix = analysis.index()
    for typed, labels in (("call ", ["hop"]), ("goto ", ["play", "rest"]), ("stage ", ["extra", "none"])):
        text = GAME.replace("      let far = by * 2\n", f"      let far = by * 2\n      {typed}\n")
        assert [c.label for c in complete(text, 26, 7 + len(typed), ix)] == labels
    text = GAME.replace("      let far = by * 2\n", "      let far = by * 2\n      f\n")
    labels = [c.label for c in complete(text, 26, 8, ix)]
    assert labels[:3] == ["far", "by", "pos"] and "hop" not in labels and "for" in labels


def test_a_diagnostic_covers_the_word_rule_id_or_citation_it_is_at() -> None:
    assert token_span("f", 1, 3, "  count += 1") == Span("f", 1, 3, 8)
    assert token_span("f", 1, 1, "@NA-4.2 x = 1") == Span("f", 1, 1, 8)
    assert token_span("f", 1, 7, "rule: NA-4.2") == Span("f", 1, 7, 13)
    assert token_span("f", 1, 7, "game: tic-tac-toe") == Span("f", 1, 7, 18)
    assert token_span("f", 1, 5, "x = n-1") == Span("f", 1, 5, 6)
    assert token_span("f", 1, 9, "x = [1, ") == Span("f", 1, 9, 9)


def test_an_included_file_is_analysed_and_indexed_through_its_ruleset() -> None:
    main = str(ROOT / "tests" / "bad_rulesets" / "include_key_twice" / "main.yaml")
    analysis = analyze(os.path.abspath(main), {})
    (placed,) = analysis.placed
    assert (Path(placed.span.file).name, placed.span.line) == ("other.yaml", 2)
    assert {Path(f).name for f in analysis.files} == {"main.yaml", "other.yaml"}  # the link failed: no part.yaml


def test_lsp_without_the_extra_says_what_to_install(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from click.testing import CliRunner

    from ruleplay.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)  # importing pygls now fails, as without the extra
    monkeypatch.delitem(sys.modules, "ruleplay.editor.server", raising=False)
    result = CliRunner().invoke(main, ["lsp"])
    assert result.exit_code == 1
    assert "error RP661: `ruleplay lsp` needs pygls" in result.output
    assert "pip install 'ruleplay[lsp]'" in result.output


def test_a_let_expression_and_every_clause_of_a_comprehension_declare_their_own_locals(tmp_path: Path) -> None:
    end = "  - when: let m = 9; any(pos[p] >= m for p in seats() for q in seats() if q != p)"
    game = tmp_path / "walk.yaml"
    game.write_text(GAME.replace("  - when: any(pos[p] >= 9 for p in seats())", end), encoding="utf-8")
    file, analysis = str(game), analyze(str(game), {})
    ix = analysis.index()
    column = {word: end.index(word) + 1 for word in ("let m", "m for", "for p", "for q", "q !=", "!= p")}
    m = Symbol("local", "m", (file, 31, column["let m"]))
    assert ix.declarations[m] == Span(file, 31, column["let m"] + 4, column["let m"] + 5)
    assert ix.uses[m] == [Span(file, 31, column["m for"], column["m for"] + 1)]
    (q,) = [s for s in ix.declarations if s.kind == "local" and s.name == "q"]
    assert ix.declarations[q] == Span(file, 31, column["for q"] + 4, column["for q"] + 5)
    assert ix.uses[q] == [Span(file, 31, column["q !="], column["q !="] + 1)]
    (p,) = [s for s in ix.declarations if s.kind == "local" and s.name == "p"]
    assert Span(file, 31, column["!= p"] + 3, column["!= p"] + 4) in ix.uses[p]  # the second clause sees the first's
    types = analysis.types()
    assert str(types.bound[A.Pos(*m.owner), "m"]) == "int"
    assert str(types.bound[A.Pos(*q.owner), "q"]) == "int"
