"""A person plays tic-tac-toe in a real terminal: tmux runs `ruleplay play --human`, keys are sent, the pane is read.

This is the only test that goes through a real tty, so it is the one that
covers readline's Tab completion and what the person actually sees.  Under CI
(env CI set) a missing tmux fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

RULEPLAY = str(Path(sys.executable).with_name("ruleplay"))
TIMEOUT = 60.0  # seconds to wait for the terminal to show something, on a loaded machine


@pytest.fixture
def tmux():
    """A tmux server of this test's own (its own socket), killed at the end; `tmux(*args)` runs a command."""
    if shutil.which("tmux") is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is not installed: .ci/run installs it (apt-get install tmux)")
        pytest.skip("tmux is not installed")
    socket = f"ruleplay-test-{uuid.uuid4().hex[:8]}"

    def command(*args: str) -> str:
        return subprocess.run(["tmux", "-L", socket, *args], check=True, capture_output=True, text=True).stdout

    yield command
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


class Pane:
    def __init__(self, tmux, name: str, line: str, cwd: Path):
        self.tmux, self.name = tmux, name
        # the shell stays after ruleplay exits, so the pane can still be read; EXIT= shows the status
        tmux("new-session", "-d", "-s", name, "-x", "150", "-y", "50", "-c", str(cwd),
             f"{line}; echo EXIT=$?; sleep 600")

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.name)

    def wait_for(self, needle: str, count: int = 1) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            text = self.text()
            if text.count(needle) >= count:
                return text
            time.sleep(0.1)
        raise AssertionError(f"the terminal never showed {needle!r} ({count}x):\n{self.text()}")

    def type(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)


def test_a_person_plays_undoes_leaves_and_comes_back(tmux, tmp_path):
    log = tmp_path / "game.jsonl"
    pane = Pane(tmux, "play", f"{RULEPLAY} play tic-tac-toe --human 0 --agents random --seed 1 --log {log}", tmp_path)
    screen = pane.wait_for("player 0> ")
    assert "player 0 you (human), player 1 random" in screen
    assert "your moves (9):" in screen and "1. place(0)" in screen and "9. place(8)" in screen
    assert "  1    .   .   ." in screen  # the board, from the person's view

    pane.type("5", "Enter")
    screen = pane.wait_for("player 0> ", 2)
    assert "1. player 0: place(4)" in screen and "2. player 1: place(" in screen
    assert "  1    .   X   ." in screen and "your moves (7):" in screen
    reply = screen.split("2. player 1: ")[1].split("\n")[0]

    pane.type("? place(4)", "Enter")
    screen = pane.wait_for("that cell is already marked")
    assert "illegal move place(4): that cell is already marked [TT-2.2]" in screen

    pane.type("? pla", "Tab", "Enter")  # readline completes the common start of the moves' texts
    screen = pane.wait_for("cannot read move 'place('")
    assert "player 0> ? place(" in screen

    pane.type("u", "Enter")
    screen = pane.wait_for("undone: back to your first decision")
    pane.wait_for("your moves (9):", 2)
    pane.type("place(4)", "Enter")
    screen = pane.wait_for("2. player 1: ", 2)
    assert screen.count(f"2. player 1: {reply}") == 2  # after the undo the same move gets the same reply

    pane.wait_for("player 0> ", 6)
    pane.type("q", "Enter")
    screen = pane.wait_for("EXIT=")
    assert f"saved after 2 moves to {log}" in screen and "EXIT=0" in screen
    assert "Traceback" not in screen
    saved = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(saved) == 3 and saved[0]["agents"] == ["human", "random"] and saved[1]["move"] == "place(4)"

    again = Pane(tmux, "resume", f"{RULEPLAY} play tic-tac-toe --log {log} --resume", tmp_path)
    screen = again.wait_for("player 0> ")
    assert "resumed from" in screen and "1. player 0: place(4)" in screen
    for k in range(1, 5):  # the first legal move each time, until the game is over
        if "result: " in again.text():
            break
        again.type("1", "Enter")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            text = again.text()
            if text.count("player 0> ") > k or "result: " in text:
                break
            time.sleep(0.1)
    screen = again.wait_for("EXIT=")
    assert "result: " in screen and f"log written to {log}" in screen and "EXIT=0" in screen
    assert json.loads(log.read_text().splitlines()[-1])["end"] is True
    replay = subprocess.run([RULEPLAY, "replay", str(log)], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr


def test_closing_the_terminal_saves_the_game(tmux, tmp_path):
    log = tmp_path / "game.jsonl"
    pane = Pane(tmux, "closed", f"{RULEPLAY} play tic-tac-toe --human 0 --seed 1 --log {log}", tmp_path)
    pane.wait_for("player 0> ")
    pane.type("5", "Enter")
    pane.wait_for("player 0> ", 2)
    tmux("kill-session", "-t", "closed")  # what closing the window does: SIGHUP to the programs in it
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and not log.exists():
        time.sleep(0.1)
    saved = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line.get("move") for line in saved[1:]] == ["place(4)", saved[2]["move"]] and "end" not in saved[-1]
