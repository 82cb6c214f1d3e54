"""Pictures of states: every built-in game draws, a seat's picture hides what it may not see, text is escaped."""

from __future__ import annotations

import json
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.dsl.diagnostics import RulesetError
from ruleplay.engine.errors import SeatError
from ruleplay.rulesets import __file__ as RULESETS_INIT
from ruleplay.view.html import _script_json
from ruleplay.view.picture import PictureError, render_png, state_svg

BUILT_IN = sorted(p.stem for p in Path(RULESETS_INIT).parent.glob("*.yaml"))
SVG = "{http://www.w3.org/2000/svg}"
HEX_RULESET = Path(__file__).resolve().parents[2] / "rulesets" / "hex.yaml"


def _played(name: str, moves: int, seed: int = 3):
    state, rng = load_game(name).new_state(seed), random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state = state.apply_chance() if state.is_chance_node() else state.apply(rng.choice(state.legal_moves()))
    return state


def _texts(svg: str, css_class: str) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text or "" for g in root.iter(f"{SVG}g") if g.get("class") == css_class for t in g.iter(f"{SVG}title")]


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_game_draws_from_every_view(name: str) -> None:
    state = _played(name, 25)
    for seat in [None, *range(state.game.info.players)]:
        svg = state_svg(state, seat)
        root = ET.fromstring(svg)  # parses: well-formed SVG
        assert root.tag == f"{SVG}svg"
        assert "could not be drawn" not in svg and "cannot show" not in svg
        assert ("all-seeing view" if seat is None else f"seat {seat}'s view") in svg


def test_a_seat_sees_its_own_card_and_a_back_for_the_other() -> None:
    state = _played("kuhn-poker", 1)  # the deal
    hands = [h[0] for h in state.data["vars"]["hand"]]
    assert sorted(_texts(state_svg(state), "card")) == sorted(hands)
    seen = state_svg(state, 0)
    assert _texts(seen, "card") == [hands[0]]
    assert seen.count('class="back"') == 1
    assert f">{hands[1]}<" not in seen


def test_a_seat_that_is_not_in_the_game_is_refused() -> None:
    with pytest.raises(SeatError):
        state_svg(_played("kuhn-poker", 1), 2)


def test_pieces_fills_and_exits_come_from_the_layout() -> None:
    nautilus = state_svg(_played("nautilus", 40))
    assert 'class="exit"' in nautilus and 'fill="#bfe6f2"' in nautilus  # the base's exits, shallow water
    board = ET.fromstring(state_svg(_played("tic-tac-toe", 3)))
    assert len([g for g in board.iter(f"{SVG}g") if g.get("class") == "piece"]) == 3


def test_hex_boards_are_drawn_as_hexagons() -> None:
    state = load_game(HEX_RULESET).new_state(1)
    root = ET.fromstring(state_svg(state.apply(state.legal_moves()[0])))
    assert len(list(root.iter(f"{SVG}polygon"))) == 121
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "piece"]) == 1


HOSTILE = '''
ruleplay: 1
game: hostile
players: 2
boards: {b: {width: 2, height: 1}}
state:
  cells: {init: '["</svg><script>alert(1)</script>", "a\\u0001b & c"]'}
flow:
  phases: [{name: play, actions: [pass]}]
actions:
  pass: {effects: ""}
end: [{when: "true"}]
render:
  - show: cells
    board: b
    label: "<b>bold</b> & \\u0007"
    picture: PICTURE
'''
HOSTILE_FILL = '''{fill: '"red\\" onload=\\"alert(1)"'}'''


def test_text_from_a_ruleset_is_escaped_and_colours_are_never_raw(make_game) -> None:  # type: ignore[no-untyped-def]
    svg = state_svg(make_game(HOSTILE.replace("PICTURE", HOSTILE_FILL)).new_state(0))
    root = ET.fromstring(svg)  # still one well-formed document
    assert [e.tag for e in root.iter() if e.tag.endswith("script")] == []
    assert "<script>" not in svg and "<b>" not in svg and "onload" not in svg
    assert "&lt;/svg&gt;&lt;script&gt;" in svg
    assert "a\ufffdb &amp; c" in svg  # a control character XML cannot hold becomes U+FFFD


@pytest.mark.parametrize(("picture", "message"), [
    ("{shape: hex}", "`picture.shape` is for grids"),
    ("{pieces: '[0]'}", "`picture.pieces` is for grid cells"),
    ("{fill: 'nonsense('}", ""),
])
def test_picture_facts_that_do_not_fit_the_item_are_errors(make_game, picture: str, message: str) -> None:  # type: ignore[no-untyped-def]
    text = HOSTILE.replace("    board: b\n", "    as: row\n").replace("PICTURE", picture)
    with pytest.raises(RulesetError) as err:
        make_game(text)
    codes = [d.code for d in err.value.diagnostics]
    assert codes == (["RP218"] if message else ["RP200"])
    assert message in str(err.value)


def test_a_ring_lays_a_track_round_a_square(make_game) -> None:  # type: ignore[no-untyped-def]
    text = HOSTILE.replace("    board: b\n", "    as: track\n").replace("PICTURE", "{style: ring, text: 'str(index)'}")
    text = text.replace('init: \'["</svg>', 'init: \'[1, 2, 3, 4, 5, 6, 7, 8] + ["</svg>')
    root = ET.fromstring(state_svg(make_game(text).new_state(0)))
    boxes = [g.find(f"{SVG}rect") for g in root.iter(f"{SVG}g") if g.get("class") == "box"]
    spots = {(float(r.get("x")), float(r.get("y"))) for r in boxes}
    assert len(boxes) == len(spots) == 10
    xs, ys = sorted({x for x, _ in spots}), sorted({y for _, y in spots})
    assert len(xs) == len(ys) == 4  # ten boxes round a square of four a side (a ring of twelve spots)
    assert all(x in (xs[0], xs[-1]) or y in (ys[0], ys[-1]) for x, y in spots)  # only on the edge


def test_a_style_on_a_grid_is_an_error(make_game) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RulesetError, match="RP218.*`picture.style` is for rows"):
        make_game(HOSTILE.replace("PICTURE", "{style: cards}"))


def test_png_without_cairosvg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    with pytest.raises(PictureError, match=r"ruleplay\[picture\]"):
        render_png(state_svg(_played("tic-tac-toe", 1)))


def test_png_with_cairosvg() -> None:
    pytest.importorskip("cairosvg")
    assert render_png(state_svg(_played("tic-tac-toe", 1))).startswith(b"\x89PNG")


def test_render_command_writes_a_move_of_a_log(tmp_path: Path) -> None:
    log, out = tmp_path / "g.jsonl", tmp_path / "g.svg"
    runner = CliRunner()
    assert runner.invoke(main, ["play", "tic-tac-toe", "--seed", "2", "--log", str(log)]).exit_code == 0
    result = runner.invoke(main, ["render", str(log), "--move", "2", "--as", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "piece"]) == 2
    assert "seat 1's view" in out.read_text(encoding="utf-8")
    result = runner.invoke(main, ["render", str(log), "--move", "99", "-o", str(out), "--overwrite"])
    assert result.exit_code == 2 and "the log has" in result.output
    result = runner.invoke(main, ["render", str(log), "-o", str(log), "--overwrite"])
    assert result.exit_code == 2 and "is the state or log that this command reads" in result.output


def _left_at_the_table(tmp_path: Path, name: str = "game.jsonl") -> Path:
    """A tic-tac-toe game a person left with `q` after three moves: a log without its end line."""
    log = tmp_path / name
    left = CliRunner().invoke(main, ["play", "tic-tac-toe", "--human", "1", "--agents", "first", "--seed", "2",
                                     "--log", str(log)], input="1\nq\n")
    assert left.exit_code == 0, left.output
    assert "end" not in json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    return log


def test_a_game_in_progress_is_drawn_up_to_its_last_move_and_said_to_be_unfinished(tmp_path: Path) -> None:
    log, out = _left_at_the_table(tmp_path), tmp_path / "g.svg"
    runner = CliRunner()
    result = runner.invoke(main, ["render", str(log), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"picture written to {out} (move 3 of an unfinished game: the log stops after move 3, "
                             f"before the game's end)\n")
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "piece"]) == 3
    result = runner.invoke(main, ["render", str(log), "--move", "1", "-o", str(out), "--overwrite"])
    assert result.exit_code == 0 and "move 1 of an unfinished game" in result.output
    result = runner.invoke(main, ["render", str(log), "--move", "4", "-o", str(out), "--overwrite"])
    assert result.exit_code == 2 and "the log has 3 moves (0..3)" in result.output


def test_a_game_in_progress_has_a_replay_page_marked_unfinished(tmp_path: Path) -> None:
    from ruleplay.view.html import viewer_data
    from ruleplay.view.sources import finished, log_steps

    log, page = _left_at_the_table(tmp_path), tmp_path / "g.html"
    steps = log_steps(log)
    assert len(steps) == 4 and not finished(steps) and not steps[-1].state.is_terminal()
    data = viewer_data(steps)
    assert data["finished"] is False and data["length"] == 3
    assert [s["over"] for s in data["scores"]] == [False] * 4
    result = CliRunner().invoke(main, ["view", str(log), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert result.output == f"replay page written to {page} (3 moves, unfinished: the log stops before the game's end)\n"
    whole = tmp_path / "whole.jsonl"
    assert CliRunner().invoke(main, ["play", "tic-tac-toe", "--seed", "2", "--log", str(whole)]).exit_code == 0
    assert finished(log_steps(whole)) and viewer_data(log_steps(whole))["finished"] is True


def test_render_names_what_is_wrong_with_a_damaged_log_or_an_empty_file(tmp_path: Path) -> None:
    log, bad, empty = tmp_path / "g.jsonl", tmp_path / "bad.jsonl", tmp_path / "empty.json"
    assert CliRunner().invoke(main, ["play", "kuhn-poker", "--seed", "2", "--log", str(log)]).exit_code == 0
    bad.write_text(log.read_text(encoding="utf-8").replace('"format":"ruleplay-log"', '"format":"x"', 1),
                   encoding="utf-8")
    empty.write_text("", encoding="utf-8")
    for source, message in ((bad, f"{bad}:1: unknown log format 'x'"),
                            (empty, f"{empty}: the file is empty: neither a saved state nor a game log")):
        result = CliRunner().invoke(main, ["render", str(source), "-o", str(tmp_path / "out.svg")])
        assert result.exit_code == 1 and message in result.output, result.output


def test_render_command_draws_a_saved_state(tmp_path: Path) -> None:
    saved, out = tmp_path / "s.json", tmp_path / "s.svg"
    saved.write_text(_played("kuhn-poker", 1).dumps(), encoding="utf-8")
    result = CliRunner().invoke(main, ["render", str(saved), "--as", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").count('class="back"') == 1
    result = CliRunner().invoke(main, ["render", str(saved), "--move", "1", "-o", str(out), "--overwrite"])
    assert result.exit_code == 2 and "--move is for game logs" in result.output


@pytest.mark.parametrize("field, value, message", [
    ("players", 3, 'the state says "players": 3, but kuhn-poker is for 2 players, not 3 (RP302): fix the '
                   'state\'s "players", or give the ruleset it was saved from with --ruleset'),
    ("variant", "nope", 'the state says "variant": "nope", but kuhn-poker has no variant \'nope\' (RP405)'),
])
def test_a_saved_state_at_a_player_count_or_variant_the_game_lacks_names_the_states_field(
        tmp_path: Path, field: str, value: object, message: str) -> None:
    """render has no --players or --variant: the fault is the state file's, and the message says so."""
    saved = tmp_path / "s.json"
    saved.write_text(json.dumps({**json.loads(_played("kuhn-poker", 1).dumps()), field: value}), encoding="utf-8")
    result = CliRunner().invoke(main, ["render", str(saved), "-o", str(tmp_path / "s.svg")])
    assert result.exit_code == 1 and f"error RP620: {saved}: {message}" in result.output, result.output
    assert "--players" not in result.output and "--variant" not in result.output


@pytest.mark.parametrize("game", ["/etc/passwd", "../../etc/passwd", "no-such-game"])
def test_a_saved_states_game_field_is_a_built_in_name_never_a_path_opened(tmp_path: Path, game: str) -> None:
    """The field comes from the file: opened as a path, its YAML error would show another file's first line."""
    saved = tmp_path / "s.json"
    saved.write_text(json.dumps({**json.loads(_played("kuhn-poker", 1).dumps()), "game": game}), encoding="utf-8")
    result = CliRunner().invoke(main, ["render", str(saved), "-o", str(tmp_path / "s.svg")])
    assert result.exit_code == 1
    assert "not a built-in game: give its ruleset with --ruleset PATH" in result.output
    assert "root:" not in result.output and not (tmp_path / "s.svg").exists()


def test_script_json_cannot_close_its_script_element() -> None:
    text = _script_json({"move": "</script><script>alert(1)</script>", "amp": "&lt;"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"move": "</script><script>alert(1)</script>", "amp": "&lt;"}


def test_the_replay_page_is_self_contained(tmp_path: Path) -> None:
    import re

    log, page = tmp_path / "g.jsonl", tmp_path / "g.html"
    runner = CliRunner()
    assert runner.invoke(main, ["play", "kuhn-poker", "--seed", "1", "--log", str(log)]).exit_code == 0
    result = runner.invoke(main, ["view", str(log), "-o", str(page), "--as", "1"])
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    urls = set(re.findall(r"https?://[\w./-]*", text))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, a name and not a fetch: nothing else
    assert " src=" not in text and " href=" not in text
    data = text.split('<script type="application/json" id="game-data">')[1].split("</script>")[0]
    assert [v["key"] for v in json.loads(data)["views"]] == ["1"]  # --as: that seat's view alone
    result = runner.invoke(main, ["view", str(log), "-o", str(page), "--as", "2", "--overwrite"])
    assert result.exit_code == 2 and "not a seat" in result.output


def test_a_seats_replay_page_holds_no_fired_rules(tmp_path: Path) -> None:
    """Which rules a move fired can tell a hidden card (a rule that fires only for the king): a page fit
    to hand to a seat lists its moves as the seat saw them, and no rules; the all-seeing page keeps them."""
    from ruleplay.view.html import viewer_data
    from ruleplay.view.sources import log_steps

    log = tmp_path / "g.jsonl"
    assert CliRunner().invoke(main, ["play", "kuhn-poker", "--seed", "1", "--log", str(log)]).exit_code == 0
    moves = viewer_data(log_steps(log))["moves"]
    assert any(m["rules"] for m in moves["all"])
    assert moves["0"] and moves["1"]
    assert all(m["rules"] == [] for seat in ("0", "1") for m in moves[seat])


def test_a_round_end_is_a_step_of_its_own_after_the_move_that_ended_it(tmp_path: Path) -> None:
    """The move that fills the last slot is shown on the full table with no award yet; the round's end
    follows as its own step with the five awards (NC-7.7) and the next round's table."""
    from ruleplay.view.html import shown_steps
    from ruleplay.view.sources import log_steps

    log = tmp_path / "g.jsonl"
    assert CliRunner().invoke(main, ["play", "nautilus-cards", "--seed", "3", "--log", str(log)]).exit_code == 0
    steps = log_steps(log)
    shown = shown_steps(steps)
    ends = [k for k, s in enumerate(shown) if s.kind == "flow"]
    assert len(ends) == 6  # six rounds, the last one ending the game
    move, end = shown[ends[0] - 1], shown[ends[0]]
    assert move.step is end.step and move.kind == "move"
    assert None not in move.vars["slots"] and move.events == ()  # type: ignore[index]
    assert [e["rule"] for e in end.events] == ["NC-7.7"] * 5 and end.vars is None
    assert end.step.state.data["vars"]["slots"] == [None] * 10
    assert len(shown) == len(steps) + 6


def test_places_are_labelled_and_picked_and_keys_are_drawn() -> None:
    """Nautilus (card game): each slot carries the number moves name (drawn under it, and what a click picks),
    a card in the hand picks its id, the domain colours have a key, and the seats' colours a key of their own."""
    state = _played("nautilus-cards", 12)
    root = ET.fromstring(state_svg(state, 0))
    picks = [g.get("data-pick") for g in root.iter(f"{SVG}g") if g.get("class") in ("slot", "card")]
    assert [json.loads(p) for p in picks if p is not None and p.isdigit()] == [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
    hand = state.data["vars"]["hand"][0]
    assert [json.loads(p) for p in picks if p is not None and p.startswith('"d')] == hand
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("font-size") == "10"]
    assert labels == [str(s) for s in (5, 6, 7, 8, 9, 0, 1, 2, 3, 4)]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for domain in ("science", "exploration", "navigation", "engineering", "war"):
        assert domain in texts  # the key of the domain colours
    assert "player 0" in texts and ("player 1 (to move)" in texts or "player 0 (to move)" in texts)
    assert len([c for c in root.iter(f"{SVG}circle") if c.get("class") == "seat-key"]) == 2


def test_no_built_in_picture_writes_raw_data() -> None:
    """Every item of every built-in game is drawn as things: no JSON brackets, braces or copy numbers."""
    for name in BUILT_IN:
        state = _played(name, 60)
        for seat in (None, 0):
            root = ET.fromstring(state_svg(state, seat))
            texts = [t.text or "" for t in root.iter(f"{SVG}text")]
            raw = [t for t in texts if t.startswith(("[", "{")) or '"' in t or "#" in t and "##" not in t]
            assert raw == [], (name, seat, raw)
