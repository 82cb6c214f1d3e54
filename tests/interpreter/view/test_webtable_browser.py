"""`ruleplay serve` in a real browser: a person plays a whole game of the card game against ismcts.

The server runs as the command a person starts (a subprocess on a free
loopback port, its game kept in a log); headless Chromium plays seat 0 by
clicking: a diver in its hand and then a slot on the picture, a button
otherwise.  The page is reloaded in the middle and must show the same game;
seat 1's hand must never reach seat 0's page or its data, and asking for
seat 1's view with seat 0's address is refused.  Under CI a missing browser,
driver or Selenium fails these tests (`test_viewer_browser`).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from ruleplay import load_game
from ruleplay.runs.gamelog import read_log

from test_viewer_browser import _all, _by_id

SEED = 11


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen]]:
    log = tmp_path / "game.jsonl"
    server = subprocess.Popen(
        [sys.executable, "-c", "from ruleplay.cli import main; main()", "serve", "nautilus-cards", "--human", "0",
         "--agents", "ismcts:iterations=8", "--seed", str(SEED), "--port", "0", "--log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        assert server.stdout is not None
        for line in server.stdout:
            found = re.search(r"player 0 plays at (http://127\.0\.0\.1:\d+/seat/\S+)", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, "the server printed no address"
        yield url, log, server
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def _api(url: str, query: str = "") -> tuple[int, dict]:
    base, token = url.split("/seat/")
    try:
        with urllib.request.urlopen(f"{base}/api/{token}/view{query}", timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def _wait_for_turn(driver, timeout: float = 60.0) -> str:  # type: ignore[no-untyped-def]
    """Wait until the page says it is the person's turn or the game is over; the status text."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = _by_id(driver, "status").text
        if status == "your turn" and _all(driver, "#choices li:not(.dim) button") or status.startswith("game over"):
            return status
        time.sleep(0.05)
    raise AssertionError(f"the page never came to the person's turn: {_by_id(driver, 'status').text!r}")


# The texts of the moves the picture's clicks left (null once one move was left and played), read at once.
NARROWED = """const left = [...document.querySelectorAll('#choices li:not(.dim) button')].map((b) => b.textContent);
return document.getElementById('picked').textContent.startsWith('picked: ') ? left : null;"""
PRESS = """[...document.querySelectorAll('#choices button')].find((b) => b.textContent === arguments[0]).click();"""


def _moves_shown(driver) -> int:  # type: ignore[no-untyped-def]
    return len(_all(driver, "#moves li.move"))


def _click_pick(driver, pick: str) -> None:  # type: ignore[no-untyped-def]
    element = driver.find_element("css selector", f"#picture [data-pick='{pick}']")
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)


@pytest.mark.slow  # a whole game of clicks in a browser against a searching agent: some 25 seconds
def test_a_person_plays_a_whole_game_against_ismcts(browser, served) -> None:  # type: ignore[no-untyped-def]
    url, log, server = served
    first = load_game("nautilus-cards").new_state(SEED)
    others = first.data["vars"]["hand"][1]
    browser.get(url)
    assert _wait_for_turn(browser) == "your turn"
    # Seat 1's hand is drawn as card backs, and its cards are nowhere in the page or in seat 0's data.
    hands = [g for g in _all(browser, "#picture g.item") if "hands" in g.text]
    assert len(hands[0].find_elements("css selector", ".back")) == len(others) == 5
    status, view = _api(url)
    assert status == 200 and view["seat"] == 0
    text = browser.page_source + json.dumps(view)
    assert [card for card in others if re.search(rf"\b{card}\b", text)] == []
    assert _api(url, "?seat=1") == (403, {"error": "this address is player 0's: another seat's view is not shown "
                                                   "here"})
    assert _api(url.rsplit("/", 1)[0] + "/not-a-seat")[0] == 404
    clicked_on_picture, reloaded = 0, False
    for _ in range(200):
        status = _wait_for_turn(browser)
        if status.startswith("game over"):
            break
        before = _moves_shown(browser)
        texts = [b.text for b in _all(browser, "#choices li:not(.dim) button")]
        place = next((t for t in texts if t.startswith("place(")), None)
        if place is not None:  # the diver in the hand, then the slot, on the picture
            card, slot = re.fullmatch(r"place\((d\d+), (\d+)\)", place).groups()  # type: ignore[union-attr]
            _click_pick(browser, f'"{card}"')  # the last free slot: the diver names one move, played at once
            if len([t for t in texts if re.match(rf"place\w*\({card}, ", t)]) > 1:
                assert [e.get_attribute("data-pick") for e in _all(browser, "#picture .picked")] == [f'"{card}"']
                _click_pick(browser, slot)
                # With the anchor held, place_anchored names the diver and the slot too: the list is narrowed
                # to those moves, and the person chooses there.
                left = browser.execute_script(NARROWED)
                if left is not None and _moves_shown(browser) == before:
                    assert place in left and all(t.startswith(f"place_anchored({card}, {slot}, ") for t in left
                                                 if t != place)
                    browser.execute_script(PRESS, place)
            clicked_on_picture += 1
        else:
            _all(browser, "#choices li:not(.dim) button")[0].click()
        deadline = time.monotonic() + 30
        while _moves_shown(browser) <= before and not _by_id(browser, "status").text.startswith("game over"):
            assert time.monotonic() < deadline, "the move was not played"
            time.sleep(0.05)
        if not reloaded and _moves_shown(browser) >= 30:  # a reload in the middle shows the same game
            shown = [e.text for e in _all(browser, "#moves li.move")]
            browser.refresh()
            _wait_for_turn(browser)
            assert [e.text for e in _all(browser, "#moves li.move")][:len(shown)] == shown
            reloaded = True
    assert _by_id(browser, "status").text.startswith("game over")
    assert reloaded and clicked_on_picture >= 20
    logged = read_log(log, "nautilus-cards")  # the game is in the log, whole, and replays
    assert logged.end is not None and logged.state.is_terminal()
    assert logged.header["agents"] == ["human", "ismcts:iterations=8"]
    rounds = [e.text for e in _all(browser, "#moves li.round-head")]
    assert rounds == [f"round {r}" for r in range(1, 7)]
    assert any(" wins " in e.text for e in _all(browser, "#moves .event"))
    server.send_signal(signal.SIGINT)  # Ctrl-C closes the table
    code = server.wait(timeout=10)
    assert server.stdout is not None
    said = server.stdout.read()
    assert code == 0 and f"stopped after {len(logged.records)} moves\n" in said, said
