"""`ruleplay serve`: a game table in the browser, one page per person's seat, served by Starlette.

Each person's seat has a secret token, and its address (`/seat/TOKEN`) is
the only way to its page and to its view of the game: every request names
its token, gets that seat's view and nothing else, and a request that asks
for another seat (`?seat=N`) is refused (403), as is a token no seat has
(404).  A seat's view is what `observe` gives that seat: the picture is
drawn from its observation, the move list shows each move as that seat was
shown it and the events it was told; the rules a move fired are left out
(which rules fire can tell a hidden card), as on a seat's replay page.

The page itself is one self-contained document (inline style and script;
nothing fetched but this seat's own data, a content security policy that
allows nothing else), which puts every text from the ruleset in with
`textContent`; pictures are the SVG `view.picture` writes, escaped there.
The page asks for the view after the version it shows and the server
answers when the game changes (a long poll), so an agent's move appears as
it is made; a move is sent with the version it was chosen on.
"""

from __future__ import annotations

import asyncio
import html
import json
import secrets
from importlib import resources
from typing import Any

from ..engine.people import for_people
from ..engine.ruletext import rule_texts
from ..engine.views import rounds_shown, told
from ..agents.human import HumanAgent
from ..runs.shared_table import SharedTable, Snapshot, TableRefusal, told_error
from .html import PLACEHOLDER, _script_json
from .picture import scene_svg, state_scene
from .svg import seat_colour

POLL_SECONDS = 20.0  # how long a page's request waits for a change before it is answered as it is
POLL_STEP = 0.05  # how often a waiting request looks at the table's version
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                               "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",  # the address holds the seat's token
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


def seat_tokens(people: set[int]) -> dict[str, int]:
    """A fresh secret token for each person's seat."""
    return {secrets.token_urlsafe(18): seat for seat in sorted(people)}


def seat_view(shared: SharedTable, seat: int, snap: Snapshot, texts: dict[str, str]) -> dict:
    """Everything seat `seat`'s page shows at one version, from that seat's view alone."""
    state, model = snap.state, snap.state.game.model
    table = shared.table
    log: list[dict] = []
    for record, round_ in zip(snap.records, snap.rounds):
        events = [{"text": for_people(model, e["text"]), "rule": e["rule"]} for e in told(list(record.events), seat)]
        log.append({"n": record.n, "player": record.player, "round": round_, "forced": record.n in snap.forced,
                    "move": for_people(model, record.views[seat] if record.views else record.move), "events": events})
    offered = shared.choices(state, seat)
    over = state.is_terminal()
    cited = {e["rule"] for m in log for e in m["events"] if e["rule"]}
    return {
        "title": model.title, "seat": seat, "version": snap.version,
        "seats": [{"name": f"player {p}", "colour": seat_colour(p),
                   "who": "you" if p == seat else "a person" if p in shared.people else table.seats[p]}
                  for p in range(state.game.info.players)],
        "picture": scene_svg(state_scene(state, seat)),
        "private": HumanAgent.private(state, seat),
        "to_move": None if over else state.current_player, "thinking": snap.thinking,
        "moves": [{"text": text, "args": [_arg(v) for v in move.args],  # type: ignore[attr-defined]
                   "rules": [f"{r}: {texts[r]}" if r in texts else r
                             for r in model.actions[move.action].rules]}  # type: ignore[attr-defined]
                  for text, move in offered],
        "log": log, "rounds": rounds_shown(model), "over": over,
        "error": None if snap.error is None else told_error(snap.error, model.keeps_secrets, seat),
        "result": _result(state) if over else None,
        "can_undo": any(r.player == seat and r.n not in snap.forced for r in snap.records) and not over,
        "rules": {r: texts[r] for r in sorted(cited) if r in texts},
    }


def _arg(value: Any) -> Any:
    """A move's argument as the page compares it with what a click picks (a tuple as a list)."""
    return [_arg(v) for v in value] if isinstance(value, (tuple, list)) else value


def _result(state: Any) -> dict:
    scores = state.scores()
    returns = state.returns()
    best = max(returns)
    return {"scores": [json.dumps(s) for s in scores],
            "winners": [p for p, r in enumerate(returns) if r == best and len(set(returns)) > 1]}


def page_html(title: str) -> str:
    """The seat's page: the template with its style and script put in (the data comes from the API)."""
    folder = resources.files(__package__)
    fill = {"STYLE": (folder / "viewer.css").read_text(encoding="utf-8") + (folder / "table.css").read_text(
                encoding="utf-8"),
            "SCRIPT": (folder / "table.js").read_text(encoding="utf-8"),
            "TITLE": html.escape(f"{title} — ruleplay table"),
            "DATA": _script_json({"title": title})}
    return PLACEHOLDER.sub(lambda m: fill[m.group(1)], (folder / "table.html").read_text(encoding="utf-8"))


def make_app(shared: SharedTable, tokens: dict[str, int]) -> Any:
    """The Starlette application of a table: a page and an API per person's seat."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    model = shared.table.game.model
    texts = rule_texts(model)
    page = page_html(model.title)

    def seat_of(request: Request) -> int | Response:
        token = request.path_params["token"]
        found = next((s for t, s in tokens.items() if secrets.compare_digest(t, token)), None)
        if found is None:
            return JSONResponse({"error": "no seat has this address: ask the host for yours"}, 404, HEADERS)
        asked = request.query_params.get("seat")
        if asked is not None and asked != str(found):
            return JSONResponse({"error": f"this address is player {found}'s: another seat's view is not "
                                          f"shown here"}, 403, HEADERS)
        return found

    async def home(request: Request) -> Response:
        return HTMLResponse("<!DOCTYPE html><title>ruleplay</title><p>Each player has an address of their own: "
                            "ask the host for yours.</p>", headers=HEADERS)

    async def seat_page(request: Request) -> Response:
        seat = seat_of(request)
        if isinstance(seat, Response):
            return HTMLResponse("<!DOCTYPE html><title>ruleplay</title><p>No seat has this address.</p>", 404,
                                HEADERS)
        return HTMLResponse(page, headers=HEADERS)

    async def view(request: Request) -> Response:
        seat = seat_of(request)
        if isinstance(seat, Response):
            return seat
        after = request.query_params.get("after", "")
        if after.isdigit() and len(after) < 19:  # wait here, not in a thread: a stopping server cancels it
            for _ in range(int(POLL_SECONDS / POLL_STEP)):
                if shared.version > int(after) or shared.stopped:
                    break
                await asyncio.sleep(POLL_STEP)
        snap = shared.snapshot()
        return JSONResponse(await asyncio.to_thread(seat_view, shared, seat, snap, texts), headers=HEADERS)

    async def change(request: Request) -> Response:
        seat = seat_of(request)
        if isinstance(seat, Response):
            return seat
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return JSONResponse({"error": "send a JSON object"}, 400, HEADERS)
        if request.path_params["what"] not in ("move", "undo"):
            return JSONResponse({"error": "POST to /move or /undo"}, 404, HEADERS)
        try:
            if request.path_params["what"] == "move":
                text, version = body.get("move"), body.get("version")
                if not isinstance(text, str) or type(version) is not int:
                    return JSONResponse({"error": "send {\"move\": TEXT, \"version\": N}"}, 400, HEADERS)
                await asyncio.to_thread(shared.play, seat, text, version)
            else:
                await asyncio.to_thread(shared.undo, seat)
        except TableRefusal as err:
            return JSONResponse({"error": err.message}, 409, HEADERS)
        return JSONResponse(await asyncio.to_thread(seat_view, shared, seat, shared.snapshot(), texts),
                            headers=HEADERS)

    return Starlette(routes=[
        Route("/", home), Route("/seat/{token}", seat_page), Route("/api/{token}/view", view),
        Route("/api/{token}/{what:str}", change, methods=["POST"]),
    ])
