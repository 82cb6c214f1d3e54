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
makes a page of that seat's view alone, fit to hand to that player.  A game
saved before its end is shown up to its last move and marked unfinished.  All data sits in a
`<script type="application/json">` block with `<`, `>` and `&` written as
JSON escapes, so no text from a ruleset or log can close the block or
become markup; the page's script puts text in with `textContent` only.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

from ..engine.legal import CHANCE
from ..engine.people import for_people
from ..engine.ruletext import rule_texts
from ..engine.scene import scene
from ..engine.state import State
from ..engine.views import rounds_shown, told
from .picture import PaintCache, scene_parts, state_scene
from .sources import Step, finished
from .svg import seat_colour


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


@dataclass(frozen=True)
class Shown:
    """One step of the page: the start, a move, or what the flow did after a move (a round's end).

    A move whose flow ended a round, or told events of its own (a round's
    result), is two steps: the move with the position its own effects made
    (`vars` of `State.midway`: the last card on a full table) and the events
    those effects told, then the round's end with the position after it and
    the flow's events.
    """

    kind: str  # "start", "move" or "flow"
    step: Step  # the log's step this one shows (a move's step for both of its halves)
    before: State | None  # the state the move was made in (None at the start)
    events: tuple[dict, ...] = ()
    vars: dict | None = None  # the variables shown, where they are not the step's state's own

    @property
    def scored(self) -> State:
        """The state whose scores the step shows: a move shown before its flow (`vars`) has those of the
        position it was made in, until its round is scored."""
        return self.before if self.vars is not None and self.before is not None else self.step.state


def shown_steps(steps: Sequence[Step]) -> list[Shown]:
    """The steps of the page: each move of the log, split where its flow ended a round or told events."""
    out = [Shown("start", steps[0], None)]
    rounds = rounds_shown(steps[0].state.game.model)
    for before, step in zip(steps, steps[1:]):
        after, events = step.state, tuple(step.state.last_events)
        ended = rounds and (after.round != before.state.round or after.is_terminal())
        if not (ended or events):
            out.append(Shown("move", step, before.state))
            continue
        vars_, own = before.state.midway(after.last_move)  # type: ignore[arg-type]  # a step after a move
        if own == len(events) and not ended or vars_ == after.data["vars"]:
            out.append(Shown("move", step, before.state, events))
            continue
        out += [Shown("move", step, before.state, events[:own], vars_), Shown("flow", step, before.state, events[own:])]
    return out


def _frame(shown: Shown, seat: int | None, all_seeing: bool) -> dict:
    """The picture of one step from one view (`view.picture`'s scene)."""
    if shown.vars is None:
        return state_scene(shown.step.state, seat, all_seeing)
    before = shown.before
    assert before is not None
    flow = before.data["flow"]
    mover = "chance" if shown.step.player == CHANCE else f"player {shown.step.player}"
    picture = scene(before.game.model, {"vars": shown.vars, "flow": flow}, seat, all_seeing,
                    status=f"round {flow['round']}, phase {flow['phase']}, {mover} has moved")
    return picture | {"mover": None}  # nobody is to move in the middle of a move


def _entry(shown: Shown, seat: int | None) -> dict:
    """A step's line in the move list, as `seat` may read it (None: all-seeing)."""
    step, before, model = shown.step, shown.before, shown.step.state.game.model
    assert before is not None  # the start has no line
    told_ = [{"text": for_people(model, e["text"]) + _audience(e, seat), "rule": e["rule"]}
             for e in told(list(shown.events), seat)]
    if shown.kind == "flow":
        ended = step.state.round != before.round or step.state.is_terminal()
        return {"kind": "flow", "n": step.n, "player": None, "round": before.round,
                "move": f"end of round {before.round}" if ended else "then", "rules": [], "events": told_}
    return {"kind": "move", "n": step.n, "player": step.player, "round": before.round,
            "move": for_people(model, step.move if seat is None else step.state.last_move_view(seat)),
            "rules": list(step.rules) if seat is None else [], "events": told_}


def _audience(event: dict, seat: int | None) -> str:
    """Whom an event was told, for the all-seeing view of one told to some seats only."""
    if seat is not None or event["to"] is None:
        return ""
    return " (told " + (", ".join(f"player {p}" for p in event["to"]) or "nobody") + ")"


def viewer_data(steps: Sequence[Step], seats: Sequence[int | None] | None = None) -> dict:
    """Frames, move lists and scores of each view (`seats`: None is all-seeing; default every view)."""
    game = steps[0].state.game
    players = game.info.players
    views = list(seats) if seats is not None else [None, *range(players)]
    all_seeing = None in views  # such a page shows everything: a seat view's rule error keeps its text there
    shown = shown_steps(steps)
    pieces = _Pieces()
    cache = PaintCache()
    frames: dict[str, list[list[int]]] = {}
    moves: dict[str, list[dict]] = {}
    for seat in views:
        key = "all" if seat is None else str(seat)
        frames[key] = [pieces.frame(scene_parts(_frame(s, seat, all_seeing), cache)) for s in shown]
        moves[key] = [_entry(s, seat) for s in shown[1:]]
    # Scores come from the full state: a page of seats' views alone shows them at the end.
    scores = [{"scores": _exact(s.scored.scores()) if all_seeing or s.scored.is_terminal() else None,
               "over": s.scored.is_terminal()} for s in shown]
    cited = {r for entries in moves.values() for m in entries for r in [*m["rules"], *(e["rule"] for e in m["events"])]
             if r is not None}
    texts = rule_texts(game.model)
    return {"title": game.model.title, "game": game.name, "players": players,
            "seats": [{"name": f"player {p}", "colour": seat_colour(p)} for p in range(players)],
            "views": [{"key": "all" if v is None else str(v), "name": "all-seeing" if v is None else f"seat {v}"}
                      for v in views],
            "pieces": list(pieces.index), "frames": frames, "moves": moves, "scores": scores,
            "rules": {r: texts[r] for r in sorted(cited) if r in texts},
            "rounds": rounds_shown(game.model), "length": len(steps) - 1, "finished": finished(list(steps))}


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
