"""Long runs show their progress on stderr when it is a terminal, and nothing at all when it is not.

The terminal case runs the real command line in a subprocess whose stderr
is a pseudo-terminal (`pty`), with stdout a pipe: the bar must be on the
terminal and the JSON on stdout whole.  A run shows its bar only once it
has lasted `SHOWN_AFTER` seconds, so the subprocess sets it to 0 before
running the command: the small runs here then show it at once.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay.cli import main
from ruleplay.cli import progress as progress_module

REPO = Path(__file__).resolve().parents[3]
SCENARIOS = str(REPO / "scenarios" / "tic-tac-toe")
RUNS = {  # command -> what its bar says
    "simulate": (["simulate", "tic-tac-toe", "-n", "30"], "simulating tic-tac-toe", "/30 games"),
    "compare": (["compare", "nautilus-cards", "--variant", "seed-only", "-n", "3"], "comparing nautilus-cards",
                "/6 games"),
    "tournament": (["tournament", "tic-tac-toe", "--agents", "random,first", "-n", "4"], "tournament of tic-tac-toe",
                   "/4 games"),
    "perft": (["perft", "tic-tac-toe", "--depth", "5"], "perft 5 of tic-tac-toe", "states reached"),
    "analyze": (["analyze", "tic-tac-toe", "-n", "6", "--depth-games", "2", "--skill-chain", "random,first"],
                "analyzing tic-tac-toe", "/8 games"),  # 6 games, then 2 for the one step, a game a seating
    "mutate": (["scenario", "--mutate", "tic-tac-toe", SCENARIOS], "mutating tic-tac-toe", " rules"),
}
NO_DELAY = "import sys; from ruleplay.cli import main, progress; progress.SHOWN_AFTER = 0; sys.argv[0] = 'ruleplay'; main()"


def _on_a_terminal(args: list[str]) -> tuple[int, bytes, bytes]:
    """Run the command line with stderr on a pseudo-terminal and stdout on a pipe: (status, stdout, stderr)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", NO_DELAY, *args], stdout=subprocess.PIPE, stderr=follower,
                               stdin=subprocess.DEVNULL, cwd=REPO)
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
    out = process.stdout.read() if process.stdout is not None else b""
    os.close(leader)
    return process.wait(timeout=60), out, shown


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_long_run_shows_its_progress_on_a_terminal_and_never_in_its_json(run: str) -> None:
    args, label, counts = RUNS[run]
    status, out, shown = _on_a_terminal([*args, "--json"])
    assert status == 0, shown.decode(errors="replace")
    json.loads(out)  # stdout holds the JSON document alone
    text = shown.decode("utf-8", errors="replace")
    assert label in text and counts in text and "elapsed" in text
    assert "\x1b[" in text  # drawn for a terminal, and erased at the end (transient)


def test_a_run_shows_its_rate_and_the_time_left_once_known() -> None:
    status, out, shown = _on_a_terminal(["simulate", "tic-tac-toe", "-n", "60", "--agents", "mcts:iterations=25"])
    assert status == 0 and b"tic-tac-toe: 60 games" in out
    text = shown.decode("utf-8", errors="replace")
    assert " games/s" in text and " left" in text


@pytest.mark.parametrize("run", sorted(RUNS))
def test_nothing_is_shown_when_stderr_is_not_a_terminal(run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "SHOWN_AFTER", 0.0)
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(main, [*RUNS[run][0], "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    json.loads(result.stdout)


def test_nothing_is_shown_on_a_pipe_by_the_real_command() -> None:
    done = subprocess.run([sys.executable, "-c", NO_DELAY, "simulate", "tic-tac-toe", "-n", "30"],
                          capture_output=True, cwd=REPO, timeout=60)
    assert done.returncode == 0 and done.stderr == b"" and b"tic-tac-toe: 30 games" in done.stdout


def test_a_short_run_shows_nothing_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    progress = progress_module.Progress("quick", 10, "games")
    progress.active = True  # as on a terminal
    monkeypatch.setattr(progress_module.Progress, "_new_bar", lambda self: shown.append("bar"))
    with progress:
        progress.advance(10)
    assert shown == []  # under SHOWN_AFTER seconds: no bar flashes up
