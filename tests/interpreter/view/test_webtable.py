"""The web table's requests (`ruleplay serve`): each seat's address gives that seat's view and no other."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Iterator

import pytest

from ruleplay import load_game
from ruleplay.runs.shared_table import SharedTable
from ruleplay.runs.table import Table

uvicorn = pytest.importorskip("uvicorn")  # the `serve` extra (CI installs it with `dev`)
from ruleplay.view.webtable import make_app, seat_tokens  # noqa: E402


@pytest.fixture
def two_people() -> Iterator[tuple[str, dict[int, str], SharedTable]]:
    """Kuhn poker with a person at each seat, served on a free loopback port."""
    shared = SharedTable(Table.new(load_game("kuhn-poker"), ["human", "human"], 0, 7), {0, 1})
    tokens = seat_tokens({0, 1})
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    server = uvicorn.Server(uvicorn.Config(make_app(shared, tokens), log_level="warning", lifespan="off"))
    agents = threading.Thread(target=shared.run, daemon=True)
    serving = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    agents.start()
    serving.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", {s: t for t, s in tokens.items()}, shared
    finally:
        server.should_exit = True
        shared.stop()
        serving.join(timeout=10)
        agents.join(timeout=5)
        listener.close()


def _get(url: str) -> tuple[int, Any]:
    """The status and the answer: JSON read, a page as its text."""
    try:
        answer = urllib.request.urlopen(url, timeout=30)
    except urllib.error.HTTPError as err:
        answer = err
    with answer:
        body = answer.read().decode()
        json_type = answer.headers["content-type"].startswith("application/json")
        return answer.status, json.loads(body) if json_type else body


def _post(url: str, body: Any) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def _until_dealt(base: str, token: str) -> dict:
    for _ in range(200):
        status, view = _get(f"{base}/api/{token}/view")
        if view["private"]:
            return view
        time.sleep(0.02)
    raise AssertionError("the cards were never dealt")


def test_each_seat_sees_its_own_card_and_not_the_others(two_people):
    base, tokens, shared = two_people
    views = {seat: _until_dealt(base, tokens[seat]) for seat in (0, 1)}
    hands = shared.snapshot().state.data["vars"]["hand"]
    for seat in (0, 1):
        other = hands[1 - seat][0]
        assert views[seat]["private"] == [f"your hand: {hands[seat][0]}"]
        assert other not in json.dumps(views[seat]["private"]) + views[seat]["picture"].split("hand")[-1]
        assert f">{other}<" not in views[seat]["picture"]  # drawn as a card back, its name nowhere
    status, refused = _get(f"{base}/api/{tokens[0]}/view?seat=1")
    assert (status, refused) == (403, {"error": "this address is player 0's: another seat's view is not shown here"})
    assert _get(f"{base}/api/{tokens[0]}/view?seat=0")[0] == 200
    assert _get(f"{base}/api/nobody/view") == (404, {"error": "no seat has this address: ask the host for yours"})
    status, page = _get(f"{base}/seat/{tokens[1]}")
    assert status == 200 and "<script>" in page and tokens[1] not in page and tokens[0] not in page
    assert _get(f"{base}/seat/nobody")[0] == 404


def test_moves_are_checked_against_the_seat_and_the_version(two_people):
    base, tokens, shared = two_people
    view = _until_dealt(base, tokens[0])
    mover = view["to_move"]
    waiting = 1 - mover
    moves = _until_dealt(base, tokens[mover])["moves"]
    assert moves and _until_dealt(base, tokens[waiting])["moves"] == []
    assert all(m["rules"] and m["rules"][0].startswith("KP-") and ": " in m["rules"][0] for m in moves)
    status, answer = _post(f"{base}/api/{tokens[waiting]}/move", {"move": moves[0]["text"], "version": view["version"]})
    assert (status, answer) == (409, {"error": f"it is not player {waiting}'s turn"})
    status, answer = _post(f"{base}/api/{tokens[mover]}/move", {"move": moves[0]["text"], "version": -1})
    assert status == 409 and "moved on" in answer["error"]
    assert _post(f"{base}/api/{tokens[mover]}/move", {"move": 3})[0] == 400
    assert _post(f"{base}/api/{tokens[mover]}/shout", {})[0] == 404
    status, answer = _post(f"{base}/api/{tokens[mover]}/move", {"move": moves[0]["text"], "version": view["version"]})
    assert status == 200 and answer["log"][-1]["player"] == mover and answer["can_undo"]
    status, waited = _get(f"{base}/api/{tokens[waiting]}/view?after={view['version']}")
    assert status == 200 and waited["version"] > view["version"] and waited["moves"]
    status, answer = _post(f"{base}/api/{tokens[mover]}/undo", {})
    assert status == 200 and answer["log"][-1]["player"] == -1  # back to the deal
