"""`ruleplay view`: a logged game as one self-contained HTML page that steps through it.

Everything is inside the page (inline SVG, script and style; nothing is
fetched), so it opens from a file, offline, and shows the same in ten
years.  The pictures of every step, from every view (all-seeing and each
seat's), are drawn here in Python (`view.picture`) and stored as SVG
pieces: each distinct piece once, each frame a list of piece numbers, so a
long game on a big board stays a few megabytes.

What a seat's view shows is only what that seat may know: its pictures
come from its observation, its move list from `last_move_view` (a hidden
card drawn is "?") without the rules each move fired (which rules fire can
tell a hidden card: a rule that fires only for the queen), and scores only
once the game is over, since scores are computed from the full state.  A
page with the all-seeing view holds everything; `ruleplay view --as SEAT`
makes a page of that seat's view alone, fit to hand to that player.  All data sits in a
`<script type="application/json">` block with `<`, `>` and `&` written as
JSON escapes, so no text from a ruleset or log can close the block or
become markup; the page's script puts text in with `textContent` only.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any, Sequence

from .picture import PaintCache, scene_parts, state_scene
from .sources import Step


class _Pieces:
    """Distinct SVG pieces, numbered in order of first use."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def frame(self, parts: list[str]) -> list[int]:
        return [self.index.setdefault(p, len(self.index)) for p in parts]


def _script_json(data: Any) -> str:
    """JSON safe inside a script element: no `<`, `>` or `&` at all (each is a JSON escape)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def viewer_data(steps: Sequence[Step], seats: Sequence[int | None] | None = None) -> dict:
    """Frames, move lists and scores of each view (`seats`: None is all-seeing; default every view)."""
    game = steps[0].state.game
    players = game.info.players
    views = list(seats) if seats is not None else [None, *range(players)]
    all_seeing = None in views  # such a page shows everything: a seat view's rule error keeps its text there
    pieces = _Pieces()
    cache = PaintCache()
    frames: dict[str, list[list[int]]] = {}
    moves: dict[str, list[dict]] = {}
    for seat in views:
        key = "all" if seat is None else str(seat)
        frames[key] = [pieces.frame(scene_parts(state_scene(step.state, seat, all_seeing), cache)) for step in steps]
        moves[key] = [{"n": s.n, "player": s.player,
                       "move": s.move if seat is None else s.state.last_move_view(seat),
                       "rules": list(s.rules) if seat is None else []} for s in steps[1:]]
    # Scores come from the full state: a page of seats' views alone shows them at the end.
    scores = [{"scores": _exact(s.state.scores()) if all_seeing or s.state.is_terminal() else None,
               "over": s.state.is_terminal()} for s in steps]
    return {"title": game.model.title, "game": game.name, "players": players,
            "views": [{"key": "all" if v is None else str(v), "name": "all-seeing" if v is None else f"seat {v}"}
                      for v in views],
            "pieces": list(pieces.index), "frames": frames, "moves": moves, "scores": scores,
            "length": len(steps) - 1}


def _exact(scores: list) -> list[str]:
    """Scores as the JSON output writes them, as text: a page's script reads JSON numbers as doubles, so
    2**60 + 1 and 2**60 + 2 would be shown alike, a tie where one seat won."""
    return [json.dumps(score) for score in scores]


PLACEHOLDER = re.compile(r"\{\{(STYLE|SCRIPT|TITLE|DATA)\}\}")


def viewer_html(steps: Sequence[Step], seats: Sequence[int | None] | None = None) -> str:
    """The page for the steps of one replayed log (`view.sources.log_steps`).

    The placeholders of the page are filled in one pass, so nothing put in
    (a title, the data) is ever read again as a placeholder.
    """
    data = viewer_data(steps, seats)
    folder = resources.files(__package__)
    fill = {"STYLE": (folder / "viewer.css").read_text(encoding="utf-8"),
            "SCRIPT": (folder / "viewer.js").read_text(encoding="utf-8"),
            "TITLE": html.escape(f"{data['title']} — ruleplay replay"), "DATA": _script_json(data)}
    return PLACEHOLDER.sub(lambda m: fill[m.group(1)], (folder / "viewer.html").read_text(encoding="utf-8"))
