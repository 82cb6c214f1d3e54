"""A resumed results file is checked against the games themselves, and workers are bounded by the machine.

A line with the right index and seed but a made-up result passes every
check of shape; playing the game again (a pure function of seed and index)
shows it.  A sample of the lines is played again by default, every line
with `verify_all`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay.cli import main
from ruleplay.engine.errors import ResultsFileError
from ruleplay.runs import results_file, workers
from ruleplay.runs.simulate import GameSpec, simulate

TTT = GameSpec("tic-tac-toe")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    simulate(TTT, 8, seed=3, out=path)
    return path


def edit_line(path: Path, number: int, **change: object) -> str:
    lines = path.read_text().splitlines(keepends=True)
    line = json.loads(lines[number - 1])
    lines[number - 1] = json.dumps({**line, **change}, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    return path.read_text()


@pytest.mark.parametrize("change,field", [
    ({"digest": "0123456789abcdef"}, "digest"),
    ({"returns": [0.0, 0.0], "scores": [0, 0]}, "returns"),
    ({"length": 4}, "length"),
    ({"ended_by": "TT-3.2"}, "ended_by"),
    ({"error": {"code": "RP504", "message": "made up", "hint": ""}}, "error"),
])
def test_a_changed_line_is_refused_with_its_line_and_field(out: Path, change: dict, field: str) -> None:
    text = edit_line(out, 4, **change)
    with pytest.raises(ResultsFileError) as caught:
        simulate(TTT, 8, seed=3, out=out, resume=True)
    message = str(caught.value)
    index = json.loads(text.splitlines()[3])["index"]
    assert message.startswith(f"{out}:4: game {index} is not what its seed plays (")
    assert f"{field} " in message
    assert "delete the line to have the game played again" in message
    assert out.read_text() == text  # refused before anything is written


def test_a_made_up_line_for_a_missing_game_is_refused(out: Path) -> None:
    lines = out.read_text().splitlines(keepends=True)
    real = json.loads(lines.pop(5))
    forged = {**real, "returns": list(reversed(real["returns"])), "scores": list(reversed(real["scores"])),
              "digest": "ffffffffffffffff"}
    out.write_text("".join(lines) + json.dumps(forged) + "\n")
    with pytest.raises(ResultsFileError, match=rf"{out}:9: game {real['index']} is not what its seed plays"):
        simulate(TTT, 8, seed=3, out=out, resume=True, workers=2)


def test_a_sample_is_replayed_by_default_and_every_line_on_request(out: Path, monkeypatch) -> None:
    replayed: list[int] = []
    check = results_file.check_replayed

    def counting(path, number, recorded, again):
        replayed.append(number)
        check(path, number, recorded, again)

    monkeypatch.setattr(results_file, "check_replayed", counting)
    monkeypatch.setattr(results_file, "VERIFY_SAMPLE", 3)
    edit_line(out, 2, digest="0123456789abcdef")
    try:
        simulate(TTT, 8, seed=3, out=out, resume=True)
        assert len(replayed) == 3  # the forged line was not among the 3 drawn
    except ResultsFileError:
        assert 2 in replayed
    replayed.clear()
    with pytest.raises(ResultsFileError, match=f"{out}:2: "):
        simulate(TTT, 8, seed=3, out=out, resume=True, verify_all=True)
    assert replayed == [2]
    edit_line(out, 2, digest=simulate(TTT, 8, seed=3).outcomes[json.loads(
        out.read_text().splitlines()[1])["index"]].digest)
    replayed.clear()
    report = simulate(TTT, 8, seed=3, out=out, resume=True, verify_all=True)
    assert (report.resumed, sorted(replayed)) == (8, list(range(2, 10)))


def test_the_sample_is_uniform_over_the_lines() -> None:
    seen = set()
    for _ in range(200):
        sample = results_file.Sample(2)
        for number in range(10):
            sample.offer(number, None)  # type: ignore[arg-type]
        seen |= {n for n, _ in sample.items}
    assert seen == set(range(10))


def test_the_command_line_refuses_a_forged_line_and_checks_all_on_request(out: Path) -> None:
    edit_line(out, 3, digest="0123456789abcdef")
    runner = CliRunner()
    result = runner.invoke(main, ["simulate", "tic-tac-toe", "-n", "8", "--seed", "3", "--out", str(out),
                                  "--resume", "--verify-all"])
    assert result.exit_code == 1 and f"error RP650: {out}:3: game " in result.output
    result = runner.invoke(main, ["simulate", "tic-tac-toe", "--verify-all"])
    assert result.exit_code == 2 and "--verify-all checks the games --resume reads back" in result.output


def test_workers_are_bounded_by_cores_and_memory(monkeypatch) -> None:
    monkeypatch.setattr(workers, "_cores", lambda: 2)
    monkeypatch.setattr(workers, "_available_memory", lambda: 1 << 40)
    assert workers.max_workers() == (8, "4 per core for 2 cores")
    monkeypatch.setattr(workers, "_available_memory", lambda: 3 * workers.WORKER_MEMORY + 1)
    assert workers.max_workers() == (3, "64 MB each of the 192 MB of memory available")
    with pytest.raises(ValueError, match="4 worker processes is more than this machine takes: at most 3 "
                                         r"\(64 MB each"):
        simulate(TTT, 2, workers=4)
    result = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "--workers", "4"])
    assert result.exit_code == 2 and "at most 3 (64 MB each of the 192 MB of memory available)" in result.output
    monkeypatch.setattr(workers, "_available_memory", lambda: None)
    assert workers.max_workers() == (8, "4 per core for 2 cores")
    monkeypatch.setattr(workers, "_available_memory", lambda: 0)
    assert workers.max_workers()[0] == 1


def test_a_rule_error_line_replays_even_if_the_ruleset_is_named_another_way(tmp_path: Path, monkeypatch) -> None:
    from ruleplay.engine.loader import builtin_games

    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n"
    (tmp_path / "boom.yaml").write_text(text.replace("board[cell] = current\n",
                                                     "board[cell] = current\n      board[cell + 20] = 1\n"))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "runs.jsonl"
    report = simulate(GameSpec("boom.yaml"), 3, seed=1, out=out)
    assert report.failed == 3 and report.errors[0].message.startswith("boom.yaml:")
    resumed = simulate(GameSpec(str(tmp_path / "boom.yaml")), 3, seed=1, out=out, resume=True, verify_all=True)
    assert resumed.resumed == 3
    edit_line(out, 2, error={**json.loads(out.read_text().splitlines()[1])["error"], "code": "RP502"})
    with pytest.raises(ResultsFileError, match=f"{out}:2: game .* is not what its seed plays"):
        simulate(GameSpec("boom.yaml"), 3, seed=1, out=out, resume=True)
