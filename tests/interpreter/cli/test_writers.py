"""Every file ruleplay writes, under a second writer, a full disk, a kill, and a file appearing meanwhile.

The concurrent writers are real processes (the `ruleplay` executable): a
results file or a game log is held by one run at a time, and a second run
naming it is refused at once with RP681 while the first goes on.  The full
disk is simulated by making the write calls fail with ENOSPC in-process
(fault injection: `os.write` of the appended lines, the temporary file's
write of a whole-file output), and also met for real on a small tmpfs when
this machine lets a test mount one (`unshare`).  Each case checks what is
left on disk: whole lines only, and every finished game or move kept.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay.cli import main
from ruleplay.runs.gamelog import read_log

DISK_FULL = OSError(errno.ENOSPC, "No space left on device")


def executable() -> str:
    beside = Path(sys.executable).parent / "ruleplay"
    found = str(beside) if beside.exists() else shutil.which("ruleplay")
    assert found, "the ruleplay command is not installed (pip install -e .)"
    return found


def run(*args: object, **kwargs):
    result = CliRunner().invoke(main, [str(a) for a in args], **kwargs)
    assert "Traceback" not in result.output, result.output
    return result


def start(*args: object, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen:
    # A test run started in the background inherits an ignored SIGINT: give the child the default handler.
    return subprocess.Popen([executable(), *map(str, args)], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(test, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 120
    while not test():
        assert proc.poll() is None, f"the first run ended before {what}: {proc.communicate()}"
        assert time.monotonic() < deadline, f"no {what} after 120 s"
        time.sleep(0.02)


def game_lines(path: Path) -> list[dict]:
    """Every line of a results file after its header, each checked to be whole JSON."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), "a torn last line"
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["format"] == "ruleplay-results"
    return lines[1:]


# ------------------------------------------------------------------ two writers, one file

LONG_RUN = ["tic-tac-toe", "-n", "20000", "--seed", "3"]


@pytest.mark.parametrize("command, file", [
    (["simulate", *LONG_RUN, "--out", "{dir}/r.jsonl"], "r.jsonl"),
    (["compare", "{base}", "--variant", "{variant}", "-n", "20000", "--out", "{dir}"], "A.jsonl"),
    (["tournament", *LONG_RUN[:1], "--agents", "random,first", "-n", "40000", "--out", "{dir}"], "0-1-0.jsonl"),
], ids=["simulate", "compare", "tournament"])
def test_a_results_file_in_use_is_refused_to_a_second_run(tmp_path: Path, command: list[str], file: str) -> None:
    """Two runs naming one results file wrote over each other's bytes (both exit 0, the file corrupt): the
    second, a resume or a new run, is refused at once while the first goes on, and the first loses nothing."""
    base = tmp_path / "tic-tac-toe.yaml"
    shutil.copy(Path(__file__).resolve().parents[3] / "rulesets" / "tic-tac-toe.yaml", base)
    text = base.read_text(encoding="utf-8")
    base.write_text("\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n")
    variant = tmp_path / "misere.yaml"
    variant.write_text("extends: tic-tac-toe.yaml\npatch:\n"
                       "  - {op: replace, path: scoring.score, value: 'if winner == p then 0 else 1'}\n")
    folder = tmp_path / "out"
    folder.mkdir()
    args = [part.format(dir=folder, base=base, variant=variant) for part in command]
    results = folder / file
    first = start(*args)
    wait_for(lambda: results.exists() and results.read_bytes().count(b"\n") > 50, first, "50 games")
    for second in ([*args, "--resume"], args):
        refused = subprocess.run([executable(), *second], capture_output=True, text=True, timeout=120)
        assert refused.returncode == 1, refused
        assert f"error RP681: {results}: another ruleplay run is writing this results file; wait for it to " \
               f"end, or choose another file" in refused.stderr, refused.stderr
    assert first.poll() is None, "the first run ended before the second was refused: make it longer"
    first.send_signal(signal.SIGINT)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 130 and "Traceback" not in stderr, stderr
    indices = [line["index"] for line in game_lines(results)]
    assert len(indices) == len(set(indices)) > 50


@pytest.fixture
def left_game(tmp_path: Path) -> Path:
    """A tic-tac-toe game a person left after their first move."""
    log = tmp_path / "game.jsonl"
    result = run("play", "tic-tac-toe", "--human", "0", "--seed", "4", "--log", log, input="1\nq\n")
    assert result.exit_code == 0, result.output
    return log


def test_a_game_log_in_play_is_refused_to_a_second_table(left_game: Path) -> None:
    """Two `play --resume` of one saved game both played on and saved over each other: the second is
    refused while the first sits at the table, as is a new game told to --overwrite the log."""
    before, moves = left_game.read_bytes(), len(read_log(left_game).records)
    first = start("play", "tic-tac-toe", "--log", left_game, "--resume", stdin=subprocess.PIPE)
    assert first.stdout is not None
    wait_for(lambda: "resumed from" in first.stdout.readline(), first, "the resumed game")
    for second in (["play", "tic-tac-toe", "--log", left_game, "--resume"],
                   ["play", "tic-tac-toe", "--log", left_game, "--overwrite"],
                   ["play", "tic-tac-toe", "--human", "0", "--log", left_game, "--overwrite"]):
        refused = subprocess.run([executable(), *map(str, second)], capture_output=True, text=True, timeout=120,
                                 stdin=subprocess.DEVNULL)
        assert refused.returncode == 1, refused
        assert f"error RP681: {left_game}: another ruleplay run is writing this game log" in refused.stderr
    assert left_game.read_bytes() == before
    first.communicate("1\nq\n", timeout=120)
    assert first.returncode == 0
    assert len(read_log(left_game).records) == moves + 2  # the person's move and the agent's answer
    assert left_game.read_bytes().startswith(before)


def test_a_served_table_holds_its_log(left_game: Path) -> None:
    """`serve --log` saved the whole game over the log after every move, held by nobody: a `play --resume`
    of the same log played on beside it.  The served table holds the log as `play` does, and the log it
    keeps is the one `play --resume` reads."""
    pytest.importorskip("uvicorn")
    before = left_game.read_bytes()
    first = start("serve", "tic-tac-toe", "--log", left_game, "--resume", "--port", "0")
    try:
        assert first.stdout is not None
        wait_for(lambda: "plays at http://" in first.stdout.readline(), first, "the served table")
        for second in (["play", "tic-tac-toe", "--log", left_game, "--resume"],
                       ["serve", "tic-tac-toe", "--log", left_game, "--resume", "--port", "0"],
                       ["serve", "tic-tac-toe", "--human", "0", "--log", left_game, "--overwrite", "--port", "0"]):
            refused = subprocess.run([executable(), *map(str, second)], capture_output=True, text=True, timeout=120,
                                     stdin=subprocess.DEVNULL)
            assert refused.returncode == 1, refused
            assert f"error RP681: {left_game}: another ruleplay run is writing this game log" in refused.stderr
        assert first.poll() is None
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=60)
        assert first.returncode == 0 and "Traceback" not in err, err
        assert left_game.read_bytes() == before  # nobody moved: the log is the game as it was left
    finally:  # a failed check leaves no server behind
        if first.poll() is None:
            first.kill()
            first.communicate()
    resumed = run("play", "tic-tac-toe", "--log", left_game, "--resume", input="q\n")
    assert resumed.exit_code == 0 and f"resumed from {left_game} after 2 moves" in resumed.output


def test_a_served_resume_checks_the_agents_moves(left_game: Path) -> None:
    """`serve --resume` took a log's agent moves as written; it asks each agent again, as `play` does."""
    pytest.importorskip("uvicorn")
    lines = left_game.read_text().splitlines()
    agent = json.loads(lines[2])
    assert agent["player"] == 1
    other = next(f"place({k})" for k in range(9) if f"place({k})" not in (agent["move"], json.loads(lines[1])["move"]))
    lines[2] = json.dumps({**agent, "move": other}, separators=(",", ":"))
    left_game.write_text("\n".join(lines) + "\n")
    result = run("serve", "tic-tac-toe", "--log", left_game, "--resume", "--port", "0")
    assert result.exit_code == 1
    assert f"error RP630: {left_game}:3: the log has random at seat 1 play {other}, where it plays " \
           f"{agent['move']}: the line was changed" in result.output, result.output


def test_a_served_table_on_a_full_disk_stops_with_the_log_whole(tmp_path: Path, disk_full) -> None:
    """The log of a served table that cannot be written stops the table (RP680), keeping the moves it took."""
    from ruleplay import load_game
    from ruleplay.runs.gamelog import LogWriter
    from ruleplay.runs.shared_table import SharedTable, log_keeper
    from ruleplay.runs.table import Table

    game, log = load_game("tic-tac-toe"), tmp_path / "game.jsonl"
    writer = LogWriter.start(log, game, 3, ["human", "human"], "tic-tac-toe")
    shared = SharedTable(Table.new(game, ["human", "human"], 0, 3), {0, 1}, log_keeper(writer))
    shared.play(0, "place(0)", shared.snapshot().version)
    disk_full(tmp_path, 10)
    shared.play(1, "place(1)", shared.snapshot().version)
    assert shared.stopped and shared.save_error is not None
    assert str(shared.save_error) == f"cannot write the game log {log}: No space left on device; it holds the " \
                                     f"first 1 move, each line whole: make room, then continue the game with --resume"
    assert shared.save_error.code == "RP680"
    shared.wait_stopped()  # returns at once: the server is taken down with it
    assert [r.move for r in read_log(log).records] == ["place(0)"]
    writer.close()


def test_a_served_game_to_its_end_writes_the_end_line_once(tmp_path: Path) -> None:
    from ruleplay import load_game
    from ruleplay.runs.gamelog import LogWriter
    from ruleplay.runs.shared_table import SharedTable, log_keeper
    from ruleplay.runs.table import Table

    game, log = load_game("tic-tac-toe"), tmp_path / "game.jsonl"
    with LogWriter.start(log, game, 3, ["human", "human"], "tic-tac-toe") as writer:
        shared = SharedTable(Table.new(game, ["human", "human"], 0, 3), {0, 1}, log_keeper(writer))
        for seat, cell in ((0, 0), (1, 3), (0, 1), (1, 4), (0, 2)):
            shared.play(seat, f"place({cell})", shared.snapshot().version)
        shared.save(shared.table)  # saved again with nothing changed: still one end line
        shared.undo(0)  # back before the winning move: the end line goes with it
        assert read_log(log).end is None and len(read_log(log).records) == 4
        shared.play(0, "place(2)", shared.snapshot().version)
    assert read_log(log).end is not None and log.read_text().count('"end"') == 1


def test_a_copy_of_a_builtin_on_a_full_disk_leaves_no_half_copy(tmp_path: Path, disk_full) -> None:
    """`new DIR --from GAME` wrote file after file; a full disk part way left a copy that looked whole."""
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / "mine.txt").write_text("the user's own file\n")
    disk_full(folder, 4000)
    result = run("new", folder, "--from", "tic-tac-toe")
    assert result.exit_code == 1
    assert "error RP680: cannot write the copy's file " in result.output and "No space left on device; the files " \
           "of the copy written before it were removed again" in result.output, result.output
    assert os.listdir(folder) == ["mine.txt"]


def test_a_copy_of_a_builtin_keeps_a_file_that_appears_meanwhile(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The files of the copy were checked first, then written over whatever appeared after the check."""
    from ruleplay.cli import new

    folder = tmp_path / "copy"
    folder.mkdir()
    checked = new._check_targets

    def then_the_file(*args):
        checked(*args)
        (folder / "tic-tac-toe.yaml").write_text("someone else's file\n")

    monkeypatch.setattr(new, "_check_targets", then_the_file)
    result = run("new", folder, "--from", "tic-tac-toe")
    assert result.exit_code == 1
    assert f"error RP680: {folder / 'tic-tac-toe.yaml'}: a file appeared there while the command ran, and was " \
           f"kept" in result.output, result.output
    assert os.listdir(folder) == ["tic-tac-toe.yaml"]
    assert (folder / "tic-tac-toe.yaml").read_text() == "someone else's file\n"


def test_a_killed_table_keeps_every_move_made_and_resumes(tmp_path: Path) -> None:
    """A person's game killed at the table (SIGKILL: no handler runs) lost every move: the log was written
    only when the game stopped.  Each move is in the log as it is made, so the game resumes where it was."""
    log = tmp_path / "game.jsonl"
    table = start("play", "tic-tac-toe", "--human", "0", "--seed", "5", "--log", log, stdin=subprocess.PIPE)
    assert table.stdin is not None
    table.stdin.write("1\n")
    table.stdin.flush()
    wait_for(lambda: log.exists() and log.read_bytes().count(b"\n") == 3, table, "two moves in the log")
    table.kill()
    table.communicate(timeout=120)
    assert [r.player for r in read_log(log).records] == [0, 1] and read_log(log).end is None
    resumed = run("play", "tic-tac-toe", "--log", log, "--resume", input="1\n" * 5)
    assert resumed.exit_code == 0 and f"resumed from {log} after 2 moves" in resumed.output, resumed.output
    assert read_log(log).end is not None


KILLED_AT_FSYNC = """
import os, signal, sys
from ruleplay.cli import main
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # killed once the new text is written, before it lands
main(sys.argv[1:])
"""


@pytest.mark.parametrize("command", [["perft", "tic-tac-toe", "--depth", "1", "--report"],
                                     ["render", "{log}", "-o"]], ids=["report", "picture"])
def test_a_whole_file_output_killed_mid_write_leaves_the_old_file(tmp_path: Path, command: list[str]) -> None:
    log = tmp_path / "game.jsonl"
    assert run("play", "tic-tac-toe", "--log", log).exit_code == 0
    out = tmp_path / "out.txt"
    out.write_text("the report before\n")
    killed = subprocess.run([sys.executable, "-c", KILLED_AT_FSYNC, *[c.format(log=log) for c in command], str(out),
                             "--overwrite"], capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert out.read_text() == "the report before\n"


# ------------------------------------------------------------------ a full disk (fault injection)

def test_a_results_file_on_a_full_disk_keeps_its_whole_games_and_resumes(tmp_path: Path, disk_full) -> None:
    """`simulate --out` on a full file system printed `error: [Errno 28] ...`, no code, no file name."""
    out = tmp_path / "r.jsonl"
    whole = tmp_path / "whole" / "r.jsonl"
    whole.parent.mkdir()
    assert run("simulate", "tic-tac-toe", "-n", "60", "--out", whole).exit_code == 0
    disk_full(tmp_path, 4000)  # the header and some games, then the disk is full part way through a line
    result = run("simulate", "tic-tac-toe", "-n", "60", "--out", out)
    kept = game_lines(out)
    assert result.exit_code == 1
    assert f"error RP680: cannot write the results file {out}: No space left on device; it holds the " \
           f"{len(kept)} games written before, each line whole: make room, then finish the run with --resume" \
           in result.output, result.output
    assert 0 < len(kept) < 60
    disk_full(tmp_path, 10**9)
    resumed = run("simulate", "tic-tac-toe", "-n", "60", "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert sorted(out.read_text().splitlines()) == sorted(whole.read_text().splitlines())


def test_a_results_file_whose_header_cannot_be_written_is_not_left(tmp_path: Path, disk_full) -> None:
    disk_full(tmp_path, 20)
    result = run("simulate", "tic-tac-toe", "-n", "5", "--out", tmp_path / "r.jsonl")
    assert result.exit_code == 1
    assert result.output == f"error RP680: cannot write the results file {tmp_path / 'r.jsonl'}: No space left " \
                            f"on device\n"
    assert os.listdir(tmp_path) == []


def test_a_game_log_on_a_full_disk_keeps_the_moves_made(tmp_path: Path, disk_full) -> None:
    """`play --log` on a full file system: RP680 naming the log, which holds every move it took, whole."""
    log = tmp_path / "game.jsonl"
    disk_full(tmp_path, 600)
    result = run("play", "tic-tac-toe", "--seed", "2", "--log", log)
    assert result.exit_code == 1
    moves = len(read_log(log).records)
    assert 0 < moves < 9 and read_log(log).end is None
    assert f"error RP680: cannot write the game log {log}: No space left on device; it holds the first " \
           f"{moves} moves, each line whole\n" in result.output, result.output


def test_a_table_on_a_full_disk_is_left_resumable(tmp_path: Path, disk_full) -> None:
    log = tmp_path / "game.jsonl"
    disk_full(tmp_path, 500)
    result = run("play", "tic-tac-toe", "--human", "0", "--seed", "2", "--log", log, input="1\n" * 5)
    assert result.exit_code == 1
    moves = len(read_log(log).records)
    assert f"error RP680: cannot write the game log {log}: No space left on device; it holds the first {moves} " \
           f"moves, each line whole: make room, then continue the game with --resume" in result.output
    disk_full(tmp_path, 10**9)
    resumed = run("play", "tic-tac-toe", "--log", log, "--resume", input="1\n" * 5)
    assert resumed.exit_code == 0 and f"resumed from {log} after {moves} moves" in resumed.output
    assert read_log(log).end is not None


@pytest.fixture
def finished_log(tmp_path: Path) -> Path:
    log = tmp_path / "logs" / "game.jsonl"
    log.parent.mkdir()
    assert run("play", "tic-tac-toe", "--seed", "1", "--log", log).exit_code == 0
    return log


WHOLE_FILE_OUTPUTS = {
    "report": (["perft", "tic-tac-toe", "--depth", "1", "--report", "{out}"], "report", "ruleplay.cli.output.json_text"),
    "view": (["view", "{log}", "-o", "{out}"], "replay page", "ruleplay.view.html.viewer_html"),
    "render": (["render", "{log}", "-o", "{out}"], "picture", "ruleplay.view.picture.state_svg"),
    "analyze": (["analyze", "tic-tac-toe", "-n", "4", "--depth-games", "0", "-o", "{out}"], "report",
                "ruleplay.view.report.report_html"),
}


@pytest.mark.parametrize("name", WHOLE_FILE_OUTPUTS)
def test_a_whole_file_output_on_a_full_disk_is_not_left_half_written(tmp_path: Path, finished_log: Path,
                                                                      disk_full, name: str) -> None:
    command, what, _ = WHOLE_FILE_OUTPUTS[name]
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "file"
    disk_full(folder, 100)
    result = run(*[part.format(out=out, log=finished_log) for part in command])
    assert result.exit_code == 1
    assert f"error RP680: cannot write the {what} {out}: No space left on device" in result.output, result.output
    assert os.listdir(folder) == []


def test_charts_on_a_full_disk_are_not_left_half_written(tmp_path: Path, disk_full) -> None:
    pytest.importorskip("matplotlib")
    folder = tmp_path / "charts"
    folder.mkdir()
    disk_full(folder, 30000)
    result = run("simulate", "tic-tac-toe", "-n", "10", "--plot", folder)
    assert result.exit_code == 1
    assert "error RP680: cannot write the chart " in result.output and "No space left on device" in result.output
    for path in folder.iterdir():  # the charts written before the disk filled, each whole
        assert path.name.endswith((".png", ".svg")) and not path.name.startswith(".")
        assert path.read_bytes().rstrip().endswith(b"</svg>" if path.suffix == ".svg" else b"IEND\xaeB`\x82")


# ------------------------------------------------------------------ a file that appears while the command runs

def appears(monkeypatch: pytest.MonkeyPatch, where: str, path: Path) -> None:
    """Someone else creates `path` when the command calls `where` (after its options were checked)."""
    module, name = where.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)

    def first_the_file(*args, **kwargs):
        path.write_text("someone else's file\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(where, first_the_file)


APPEARING = {**{name: (command, where) for name, (command, _, where) in WHOLE_FILE_OUTPUTS.items()},
             "play --log": (["play", "tic-tac-toe", "--log", "{out}"], "ruleplay.cli.play.load"),
             "table --log": (["play", "tic-tac-toe", "--human", "0", "--log", "{out}"], "ruleplay.cli.table.load")}


@pytest.mark.parametrize("name", APPEARING)
def test_a_file_that_appears_while_the_command_runs_is_kept(tmp_path: Path, finished_log: Path,
                                                            monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The existence check ran when the options were read; the file was then replaced at the end anyway."""
    command, where = APPEARING[name]
    out = tmp_path / "out.txt"
    appears(monkeypatch, where, out)
    result = run(*[part.format(out=out, log=finished_log) for part in command], input="q\n")
    assert result.exit_code == 1
    assert f"error RP680: {out}: a file appeared there while the command ran, and was kept: add --overwrite " \
           f"to replace it, or choose another file" in result.output, result.output
    assert out.read_text() == "someone else's file\n"
    assert sorted(os.listdir(tmp_path)) == ["logs", "out.txt"]


def test_charts_that_appear_while_the_command_runs_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    folder = tmp_path / "charts"
    folder.mkdir()
    appears(monkeypatch, "ruleplay.view.charts.pyplot", folder / "length.svg")
    result = run("simulate", "tic-tac-toe", "-n", "10", "--plot", folder)
    assert result.exit_code == 1
    assert f"error RP680: {folder / 'length.svg'}: a file appeared there" in result.output, result.output
    assert (folder / "length.svg").read_text() == "someone else's file\n"


# ------------------------------------------------------------------ a full disk for real: a small tmpfs

TMPFS_RUN = r"""
set -u
mnt=$1 keep=$2; shift 2
mount -t tmpfs -o size=64k tmpfs "$mnt" || exit 99
"$@" --out "$mnt/r.jsonl" > "$keep/full.txt" 2>&1; echo $? > "$keep/full.code"
cp "$mnt/r.jsonl" "$keep/kept.jsonl"
mount -o remount,size=8m "$mnt"
"$@" --out "$mnt/r.jsonl" --resume > "$keep/resumed.txt" 2>&1; echo $? > "$keep/resumed.code"
cp "$mnt/r.jsonl" "$keep/done.jsonl"
"""


def _private_tmpfs() -> bool:
    """Whether this machine lets a test mount a tmpfs of its own (a private mount namespace, `unshare`)."""
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt"],
                           capture_output=True, timeout=60)
    return probe.returncode == 0


@pytest.mark.skipif(not _private_tmpfs(), reason="cannot mount a tmpfs here (no unshare, or no user namespaces)")
def test_a_results_file_on_a_really_full_tmpfs_keeps_its_games_and_resumes(tmp_path: Path) -> None:
    """The same as the fault injection above, on a 64 KB tmpfs that fills up: the run stops with RP680,
    the file holds whole games only, and once the tmpfs grows the resume ends with every game."""
    mount, keep = tmp_path / "mnt", tmp_path / "keep"
    mount.mkdir()
    keep.mkdir()
    command = [executable(), "simulate", "tic-tac-toe", "-n", "1500", "--seed", "8"]
    subprocess.run(["unshare", "-Urm", "sh", "-c", TMPFS_RUN, "sh", str(mount), str(keep), *command],
                   check=True, timeout=600)
    out = mount / "r.jsonl"
    assert (keep / "full.code").read_text().strip() == "1"
    full = (keep / "full.txt").read_text()
    kept = game_lines(keep / "kept.jsonl")
    assert f"error RP680: cannot write the results file {out}: No space left on device; it holds the " \
           f"{len(kept)} games written before, each line whole" in full, full
    assert 100 < len(kept) < 1500
    assert (keep / "resumed.code").read_text().strip() == "0", (keep / "resumed.txt").read_text()
    assert f"{len(kept)} games read back" in (keep / "resumed.txt").read_text()
    done = game_lines(keep / "done.jsonl")
    assert sorted(line["index"] for line in done) == list(range(1500))
