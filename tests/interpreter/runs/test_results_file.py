"""Results files: finished games survive a crash, a resume reads them back, damage is named."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ruleplay import ResultsFileError
from ruleplay.engine.outcome import GameFailure, GameOutcome
from ruleplay.runs.play import game_seed
from ruleplay import files
from ruleplay.runs import results_file

SEED = 7


def head(**changes) -> dict:
    fields = dict(game_name="g", ruleset="g.yaml", ruleset_hash="abc", engine="0.1.0", variant=None, players=2,
                  seed=SEED, games=5, agents=["random", "random"], checking=False)
    fields.update(changes)
    return results_file.header(**fields)


def played(index: int) -> GameOutcome:
    return GameOutcome(index, game_seed(SEED, index), 9, (1, 0), (1.0, -1.0), f"d{index}", "R-1")


def failed(index: int) -> GameOutcome:
    s = game_seed(SEED, index)
    return GameOutcome(index, s, failure=GameFailure(index, s, "RP504", "too long", "add an end"))


def resume(path: Path, expected: dict) -> tuple[results_file.ResultsWriter, list[GameOutcome]]:
    """The writer, and the outcomes the file held in the order they were read back."""
    done: list[GameOutcome] = []
    writer, games = results_file.resume(path, expected, done.append)
    assert games.count == len(done) and all(o.index in games for o in done)
    return writer, done


def write(path: Path, outcomes: list[GameOutcome]) -> None:
    with results_file.create(path, head()) as writer:
        for outcome in outcomes:
            writer.write(outcome)


def test_a_resume_reads_back_every_outcome_exactly(tmp_path):
    path = tmp_path / "r.jsonl"
    outcomes = [played(0), failed(3), played(4)]
    write(path, outcomes)
    writer, done = resume(path, head())
    writer.close()
    assert done == outcomes
    assert results_file.count_games(path) == 3


def test_a_new_run_never_overwrites_finished_games(tmp_path):
    path = tmp_path / "r.jsonl"
    write(path, [played(0)])
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match="exists: add --resume"):
        results_file.create(path, head())
    assert path.read_bytes() == before


def test_a_torn_last_line_is_cut_and_the_rest_kept(tmp_path):
    path = tmp_path / "r.jsonl"
    write(path, [played(0), played(1)])
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"index":2,"seed":12')  # killed in the middle of a write
    with resume(path, head())[0] as writer:
        writer.write(played(2))
    lines = path.read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines[1:]] == [0, 1, 2]


@pytest.mark.parametrize("content", [b"", b'{"format":"ruleplay-res'])
def test_a_file_killed_before_its_header_was_whole_starts_afresh(tmp_path, content):
    path = tmp_path / "r.jsonl"
    path.write_bytes(content)
    with resume(path, head())[0] as writer:
        writer.write(played(0))
    assert json.loads(path.read_text().splitlines()[0]) == head()


def test_a_missing_file_is_a_new_run(tmp_path):
    writer, done = resume(tmp_path / "new.jsonl", head())
    writer.close()
    assert done == [] and results_file.count_games(tmp_path / "new.jsonl") == 0


@pytest.mark.parametrize("change,named", [
    ({"seed": 8}, "seed 7 there, 8 now"),
    ({"games": 6}, "games 5 there, 6 now"),
    ({"ruleset_hash": "xyz"}, 'ruleset_hash "abc" there, "xyz" now'),
    ({"agents": ["greedy", "random"]}, "agents"),
    ({"checking": True}, "checking false there, true now"),
])
def test_another_runs_file_is_refused_and_left_alone(tmp_path, change, named):
    path = tmp_path / "r.jsonl"
    write(path, [played(0)])
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match=r":1: the file holds another run") as err:
        resume(path, head(**change))
    assert named in str(err.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("line,problem", [
    ("not json", ":3: not a JSON line (Expecting value at column 1): 'not json'"),
    ("", ":3: a blank line, where every line holds one JSON object"),
    ("[1, 2]", ":3: expected a JSON object"),
    ('{"index": 9, "seed": 1}', ":3: `index` must be a game number 0..4"),
    ('{"index": 0, "seed": 1, "error": {"code": "RP1", "message": "m", "hint": ""}}',
     ":3: game 0 again (first on line 2)"),
    ('{"index": 2, "seed": 1, "length": 3, "scores": [1, 0], "returns": [1, -1], "ended_by": null, "digest": "x", '
     '"decisions": 2, "branching": 5, "fired": {"R-1": 2}}',
     ":3: game 2 has seed 1, not the one run seed 7 gives it"),
    ('{"index": 2, "seed": 1, "length": 3, "scores": [1, 0], "returns": [1, -1], "ended_by": null, "digest": "x"}',
     ":3: `decisions` and `branching` must be counts"),
    ('{"index": 2, "seed": 1, "length": 3, "scores": [1, 0], "returns": [1, -1], "ended_by": null, "digest": "x", '
     '"decisions": 2, "branching": 5, "fired": {"R-1": 0}}',
     ":3: `fired` must map rule ids to how many moves fired them"),
    ('{"index": 2, "seed": 1, "length": -3}', ":3: `length` must be a count of moves"),
    ('{"index": 2, "seed": 1, "length": 3, "scores": [1], "returns": [1, -1]}', ":3: `scores` must be 2 numbers"),
    ('{"index": 2, "seed": 1, "error": {"code": "RP1"}}', ":3: `error` must hold the strings"),
    *((f'{{"index": 2, "seed": {game_seed(SEED, 2)}, "length": 3, "scores": [1, 0], "returns": [1, -1], '
       f'"ended_by": null, "digest": "x", "decisions": 2, "branching": 5, "fired": {{}}, "arc": {arc}}}', problem)
      for arc, problem in [
          ('{"first_mover": 0}', ":3: `arc` must hold first_mover, lead_changes, drama, settled_at"),
          ('{"first_mover": 5, "lead_changes": 0, "drama": null, "settled_at": null}', ":3: `arc` needs a seat"),
          ('{"first_mover": 0, "lead_changes": -1, "drama": null, "settled_at": null}', "a count as lead_changes"),
          ('{"first_mover": 0, "lead_changes": 1, "drama": 2, "settled_at": null}',
           ":3: `arc.drama` must be a number from 0 to 1, or null")]),
])
def test_a_damaged_line_is_named(tmp_path, line, problem):
    path = tmp_path / "r.jsonl"
    write(path, [played(0)])
    with path.open("a") as out:
        out.write(line + "\n")
    with pytest.raises(ResultsFileError) as err:
        resume(path, head())
    assert problem in str(err.value)


def test_a_file_of_another_kind_is_refused(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"format": "ruleplay-log", "version": 1}\n')
    with pytest.raises(ResultsFileError, match=":1: not a ruleplay results file"):
        resume(path, head())


@pytest.mark.timeout(30)  # reading a FIFO would wait for a writer for ever
def test_only_a_regular_file_is_resumed_or_created(tmp_path):
    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ResultsFileError) as err:
        resume(fifo, head())
    assert str(err.value) == f"{fifo}: cannot read: a FIFO (named pipe), not a regular file"
    with pytest.raises(ResultsFileError) as err:
        results_file.create(fifo, head())
    assert str(err.value) == f"{fifo}: cannot write: a FIFO (named pipe), not a regular file"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_symbolic_link_is_followed(tmp_path):
    target, link = tmp_path / "run.jsonl", tmp_path / "latest.jsonl"
    link.symlink_to(target.name)  # dangling: the first run creates the file it names
    with results_file.create(link, head()) as writer:
        writer.write(played(0))
    with resume(link, head())[0] as writer:
        writer.write(played(1))
    assert link.is_symlink() and results_file.count_games(target) == 2


def test_an_overlong_line_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    write(path, [played(0)])
    with path.open("a") as out:
        out.write("x" * (files.MAX_LINE_BYTES + 1) + "\n")
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match=r"cannot read: line 3 is longer than the limit"):
        resume(path, head())
    assert path.read_bytes() == before



def test_a_games_arc_is_written_and_read_back_and_a_file_without_arcs_is_another_run(tmp_path):
    from ruleplay.engine.outcome import GameArc

    path = tmp_path / "arcs.jsonl"
    measured = [GameOutcome(i, game_seed(SEED, i), 9, (1, 0), (1.0, -1.0), f"d{i}", "R-1",
                            arc=GameArc(i % 2, i, 0.25 if i else None, 0.5 if i else None)) for i in range(3)]
    with results_file.create(path, head(arcs="points")) as writer:
        for outcome in measured:
            writer.write(outcome)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["arcs"] == "points"
    assert json.loads(lines[2])["arc"] == {"first_mover": 1, "lead_changes": 1, "drama": 0.25, "settled_at": 0.5}
    writer, done = resume(path, head(arcs="points"))
    writer.close()
    assert done == measured
    with pytest.raises(ResultsFileError, match='arcs "points" there, null now'):
        resume(path, head())
    old = tmp_path / "old.jsonl"  # a file written before arcs existed: its header has no `arcs`
    header = head()
    del header["arcs"]
    old.write_text(json.dumps(header) + "\n")
    writer, done = resume(old, head())
    writer.close()
    assert done == []


def test_a_game_line_must_hold_an_arc_exactly_when_the_run_measured_them(tmp_path):
    from ruleplay.engine.outcome import GameArc

    with_arcs, without = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    with results_file.create(with_arcs, head(arcs="points")) as writer:
        writer.write(played(0))  # no arc in a run that measures them
    with pytest.raises(ResultsFileError, match=r"a.jsonl:2: game 0 has no `arc`, and the run measured arcs "
                                               r"\(judged by points\)"):
        resume(with_arcs, head(arcs="points"))
    with results_file.create(without, head()) as writer:
        writer.write(GameOutcome(0, game_seed(SEED, 0), 9, (1, 0), (1.0, -1.0), "d0", "R-1", arc=GameArc(0, 0, 0.0, 0.0)))
    with pytest.raises(ResultsFileError, match=r"b.jsonl:2: game 0 has an `arc`, and the run measured no arcs"):
        resume(without, head())
