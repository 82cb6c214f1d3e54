"""Simulation results streamed to a JSON Lines file, one line per finished game.

    {"format": "ruleplay-results", "version": 2, "game": ..., "ruleset": ..., "ruleset_hash": ...,
     "engine": ..., "variant": ..., "players": ..., "seed": ..., "games": N, "agents": [...], "checking": ...,
     "rotate": ..., "arcs": null}
    {"index": 3, "seed": ..., "length": 9, "scores": [...], "returns": [...], "ended_by": "TT-3.1", "digest": ...,
     "decisions": 9, "branching": 45, "fired": {"TT-2.1": 9, "TT-3.1": 1}}
    {"index": 0, "seed": ..., "error": {"code": "RP504", "message": ..., "hint": ...}}

A run that measures each game's arc (`compare`, `analyze`: `runs.arc`) names
what judged the positions in `arcs` (a heuristic's name, or `scores`), and
each game line holds `"arc": {"first_mover": 0, "lead_changes": 2, "drama":
0.12, "settled_at": 0.8}`; a header without `arcs` is a run that did not.

Why this shape: a batch can run for hours, and a crash must cost only the
games in flight.  Each line is appended whole as its game finishes
(`files.HeldFile`), so a killed run leaves every finished game intact and at
most one torn line at the end, and a write the disk refuses part way is cut
back before the error (RP680) is raised.  The file is held by one run at a
time: a second run naming it (a resume started while the run still goes
on) is refused with RP681 instead of writing its lines between the first
one's.  A game line holds nothing that depends on time or on the
worker that played it (game i is a pure function of the seed and i), so
`resume` can drop a torn tail, play only the missing indices and end with
exactly the lines an uninterrupted run writes, in another order.  The header
pins everything a result depends on; resuming under different settings
would mix two experiments in one file, so it is refused.

A file read back is also checked against the games themselves: a line can
be damaged, edited or made up whole with the right index and seed, and its
shape alone cannot tell.  Since game i is a pure function of (seed, i),
`resume` hands read-back games to a `verify` callback, which plays them
again and compares every field (`check_replayed`).  Playing every game
again would cost as much as the run, so by default `resume` keeps a
uniform random sample of `VERIFY_SAMPLE` of them (every one in a file that
holds no more), drawn from the operating system's random source so that
whoever edits the file cannot know which lines will be checked; all of
them are checked on request (`verify_all`), streamed from the file a
second time rather than held in memory.  Verification happens before
anything is written, so a refused file is left as it was.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .. import files
from ..engine.errors import ResultsFileError, output_error
from ..engine.outcome import GameArc, GameFailure, GameOutcome
from .play import game_seed

FORMAT = "ruleplay-results"
VERSION = 2  # 2: game lines hold decisions, branching and the rules fired (what the statistics need)
SAME_RUN_ANY = {"ruleset"}  # how the ruleset was named (a path may be spelt two ways): its hash decides
FSYNC_EVERY_S = 1.0  # a flushed line survives a killed process; fsync also covers a crashed machine
VERIFY_SAMPLE = 100  # read-back games played again by default: a small share of any long run's cost

# (line number, game as read back) pairs to play again; raises ResultsFileError on the first that differs.
Verifier = Callable[[Iterable[tuple[int, GameOutcome]]], None]


def header(game_name: str, ruleset: str, ruleset_hash: str, engine: str, variant: str | None, players: int,
           seed: int, games: int, agents: list[str], checking: bool, rotate: bool = False,
           arcs: str | None = None) -> dict:
    return {"format": FORMAT, "version": VERSION, "game": game_name, "ruleset": ruleset,
            "ruleset_hash": ruleset_hash, "engine": engine, "variant": variant, "players": players,
            "seed": seed, "games": games, "agents": agents, "checking": checking, "rotate": rotate, "arcs": arcs}


def outcome_line(outcome: GameOutcome) -> dict:
    line: dict[str, Any] = {"index": outcome.index, "seed": outcome.seed}
    if outcome.failure is not None:
        f = outcome.failure
        line["error"] = {"code": f.code, "message": f.message, "hint": f.hint}
        return line
    line.update(length=outcome.length, scores=list(outcome.scores), returns=list(outcome.returns),
                ended_by=outcome.ended_by, digest=outcome.digest, decisions=outcome.decisions,
                branching=outcome.branching, fired=dict(outcome.fired))
    if outcome.arc is not None:
        line["arc"] = dataclasses.asdict(outcome.arc)
    return line


def _dumps(line: dict) -> str:
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"


class ResultsWriter:
    """Appends game lines to a results file it holds (`files.HeldFile`); use as a context manager.

    Each line is one whole append: a write the disk refuses part way is cut
    back, so the file ends at its last whole game, and the error (RP680)
    names the file and how many games it keeps.
    """

    def __init__(self, held: files.HeldFile, games: int = 0):
        self.path = held.path
        self._file = held
        self._games = games  # game lines in the file, for the message of a failed write
        self._synced = time.monotonic()

    def __enter__(self) -> "ResultsWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, outcome: GameOutcome) -> None:
        self._append(_dumps(outcome_line(outcome)))
        self._games += 1
        now = time.monotonic()
        if now - self._synced >= FSYNC_EVERY_S:
            self._guarded(self._file.sync)
            self._synced = now

    def _append(self, line: str) -> None:
        self._guarded(self._file.append, line.encode("utf-8"))

    def _guarded(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except OSError as err:  # what the file keeps is said once its header is in
            raise output_error(err, self.path, "results file", _kept(self._games) if self._file.size else "") \
                from None

    def close(self) -> None:
        self._guarded(self._file.close)


def _kept(games: int) -> str:
    return (f"it holds the {games} game{'' if games == 1 else 's'} written before, each line whole: make room, "
            f"then finish the run with --resume")


def _held(path: Path, new: bool) -> files.HeldFile:
    """The results file at `path`, held for this run (new: it must not exist yet)."""
    try:
        return files.HeldFile.create(path) if new else files.HeldFile.open(path)
    except FileExistsError:
        if files.held_elsewhere(path):
            raise output_error(files.FileInUseError(), path, "results file") from None
        raise ResultsFileError(f"{path} exists: add --resume to complete that run, or remove the file "
                               f"to start again") from None
    except files.FileInUseError as err:
        raise output_error(err, path, "results file") from None
    except OSError as err:  # a resume reads first: a path that is no regular file cannot be read
        verb = "read" if not new and isinstance(err, files.UserFileError) else "write"
        raise ResultsFileError(f"{path}: cannot {verb}: {err.strerror or err}") from None


def create(path: str | os.PathLike, head: dict) -> ResultsWriter:
    """Start a new results file; refuses to overwrite one (finished games are never thrown away).

    A symbolic link to a file that does not exist yet is written through;
    a FIFO, device or folder at `path` is refused (see `ruleplay.files`).
    """
    writer = ResultsWriter(_held(Path(path), new=True))
    _start(writer, head)
    return writer


def _start(writer: ResultsWriter, head: dict) -> None:
    """The header, first line of a file that holds nothing whole yet; a file it cannot be written to is
    removed (nothing of it was whole)."""
    try:
        writer._append(_dumps(head))
    except BaseException:
        writer._file.remove()
        raise


class GameSet:
    """A set of game numbers 0..games-1, one bit each: a resumed run may hold very many."""

    def __init__(self, games: int):
        self._bits = bytearray((games + 7) // 8)
        self.count = 0

    def add(self, index: int) -> None:
        self._bits[index >> 3] |= 1 << (index & 7)
        self.count += 1

    def __contains__(self, index: int) -> bool:
        return bool(self._bits[index >> 3] & (1 << (index & 7)))


class Sample:
    """A uniform random sample of at most `size` read-back games, kept as they stream by (reservoir sampling)."""

    def __init__(self, size: int):
        self.size = size
        self.items: list[tuple[int, GameOutcome]] = []
        self._seen = 0
        self._random = random.SystemRandom()  # unpredictable: the lines checked cannot be guessed in advance

    def offer(self, number: int, outcome: GameOutcome) -> None:
        self._seen += 1
        if len(self.items) < self.size:
            self.items.append((number, outcome))
            return
        slot = self._random.randrange(self._seen)
        if slot < self.size:
            self.items[slot] = (number, outcome)


def resume(path: str | os.PathLike, head: dict, finished: Callable[[GameOutcome], None],
           verify: Verifier | None = None, verify_all: bool = False) -> tuple[ResultsWriter, GameSet]:
    """Reopen a results file for the run `head` describes: a writer for the rest, and the games it holds.

    The file is held first (`files.HeldFile`: another run writing it is
    refused, RP681), then each game already in it is passed to `finished` as
    it is read: the file is read one line at a time, since a long run's file
    may be larger than memory.  A missing file, or one killed before its
    header was whole, starts afresh.  A torn last line is cut off.  Any
    other damage, a header of another run, or a path that is not a regular
    file, is a ResultsFileError naming the line; the file is then left as it
    was.  `verify` is given a sample of the games read back (all of them with
    `verify_all`) to play again, before anything is written.
    """
    path = Path(path)
    held = _held(path, new=False)
    try:
        writer, games = _resumed(held, head, finished, verify, verify_all)
    except BaseException:
        held.close()
        raise
    return writer, games


def _resumed(held: files.HeldFile, head: dict, finished: Callable[[GameOutcome], None],
             verify: Verifier | None, verify_all: bool) -> tuple[ResultsWriter, GameSet]:
    path = held.path
    sample = None if verify is None or verify_all else Sample(VERIFY_SAMPLE)
    try:
        complete, games = _read_back(path, head, finished, sample)
    except OSError as err:
        raise ResultsFileError(f"{path}: cannot read: {err.strerror or err}") from None
    if verify is not None:
        try:
            verify(sample.items if sample is not None else _recorded(path, head))
        except OSError as err:  # the file went away or changed kind between the two reads
            raise ResultsFileError(f"{path}: cannot read: {err.strerror or err}") from None
    writer = ResultsWriter(held, games.count)
    if complete < held.size:
        writer._guarded(held.cut, complete)  # the torn tail, if any (the whole file if not even the header is whole)
    if not complete:
        _start(writer, head)
    return writer, games


def _read_back(path: Path, head: dict, finished: Callable[[GameOutcome], None],
               sample: Sample | None) -> tuple[int, GameSet]:
    """Check the file line by line; the length of its complete lines, and the games they hold."""
    games = GameSet(head["games"])
    complete = 0
    for number, raw in enumerate(files.lines(path), start=1):
        if not raw.endswith(b"\n"):
            break  # a line torn by a kill: the game is played again
        text = raw.decode("utf-8", errors="replace")
        if number == 1:
            _check_header(path, _parse(path, 1, text), head)
        else:
            outcome = _checked_outcome(path, number, _parse(path, number, text), head, games)
            games.add(outcome.index)
            finished(outcome)
            if sample is not None:
                sample.offer(number, outcome)
        complete += len(raw)
    return complete, games


def _recorded(path: Path, head: dict) -> Iterator[tuple[int, GameOutcome]]:
    """The game lines of a file `_read_back` has accepted, read again one at a time (for `verify_all`)."""
    for number, raw in enumerate(files.lines(path), start=1):
        if number > 1 and raw.endswith(b"\n"):
            text = raw.decode("utf-8", errors="replace")
            yield number, _outcome(f"{path}:{number}", _parse(path, number, text), head["players"], head["games"])


_LOCATION = re.compile(r"^.*?:\d+:\d+: ")  # "file:line:col: " before a rule error's message


def _without_location(outcome: GameOutcome) -> GameOutcome:
    """A rule error's message starts with the ruleset's path as the run named it, which a resume may spell
    another way (the header's `ruleset` is not compared either): the rest of the message must agree."""
    if outcome.failure is None:
        return outcome
    message = _LOCATION.sub("", outcome.failure.message, count=1)
    return dataclasses.replace(outcome, failure=dataclasses.replace(outcome.failure, message=message))


def check_replayed(path: str | os.PathLike, number: int, recorded: GameOutcome, replayed: GameOutcome) -> None:
    """Refuse a read-back game that playing it again does not give, naming its line and the first fields."""
    if _without_location(recorded) == _without_location(replayed):
        return
    was, now = outcome_line(recorded), outcome_line(replayed)
    differ = [key for key in dict.fromkeys([*was, *now]) if was.get(key) != now.get(key)]  # line order
    detail = "; ".join(f"{key} {json.dumps(was.get(key))} there, {json.dumps(now.get(key))} when played "
                       f"again" for key in differ[:3])
    raise ResultsFileError(f"{path}:{number}: game {recorded.index} is not what its seed plays ({detail}): "
                           f"the line was changed or made up; delete the line to have the game played again "
                           f"(and check every other line with --verify-all), or start a new file")


def _parse(path: Path, number: int, text: str) -> Any:
    try:
        return files.json_line(text)
    except ValueError as err:
        raise ResultsFileError(f"{path}:{number}: {err}") from None


def _check_header(path: Path, found: Any, expected: dict) -> None:
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ResultsFileError(f"{path}:1: not a ruleplay results file (its first line is no "
                               f"{FORMAT!r} header)")
    if found.get("version") != VERSION:
        raise ResultsFileError(f"{path}:1: results format version {found.get('version')!r}, "
                               f"this ruleplay writes version {VERSION}")
    differ = [key for key in expected if key not in SAME_RUN_ANY and found.get(key) != expected[key]]
    if differ:
        detail = "; ".join(f"{key} {json.dumps(found.get(key))} there, {json.dumps(expected[key])} now"
                           for key in differ)
        raise ResultsFileError(f"{path}:1: the file holds another run ({detail}): resume with the same "
                               f"game, ruleset, players, variant, seed, -n, agents, --check and --rotate, or use "
                               f"another file")


def _checked_outcome(path: Path, number: int, line: Any, head: dict, seen: GameSet) -> GameOutcome:
    outcome = _outcome(f"{path}:{number}", line, head["players"], head["games"])
    if outcome.failure is None and (outcome.arc is not None) != (head.get("arcs") is not None):
        said = f"measured arcs (judged by {head['arcs']})" if head.get("arcs") is not None else "measured no arcs"
        raise ResultsFileError(f"{path}:{number}: game {outcome.index} "
                               f"{'has no' if outcome.arc is None else 'has an'} `arc`, and the run {said}")
    if outcome.index in seen:
        raise ResultsFileError(f"{path}:{number}: game {outcome.index} again (first on line "
                               f"{_first_line(path, outcome.index)})")
    if outcome.seed != game_seed(head["seed"], outcome.index):
        raise ResultsFileError(f"{path}:{number}: game {outcome.index} has seed {outcome.seed}, "
                               f"not the one run seed {head['seed']} gives it")
    return outcome


def _first_line(path: Path, index: int) -> int:
    """The line that holds game `index` first (looked up again only to name a duplicate)."""
    for number, raw in enumerate(files.lines(path), start=1):
        try:
            line = files.json_value(raw)
        except ValueError:
            continue
        if number > 1 and isinstance(line, dict) and line.get("index") == index:
            return number
    return 0


def _outcome(where: str, line: Any, players: int, games: int) -> GameOutcome:
    """One game line, checked field by field so damage is named, not met later as a crash."""
    if not isinstance(line, dict):
        raise ResultsFileError(f"{where}: expected a JSON object")
    index, seed = line.get("index"), line.get("seed")
    if type(index) is not int or not 0 <= index < games:
        raise ResultsFileError(f"{where}: `index` must be a game number 0..{games - 1}")
    if type(seed) is not int:
        raise ResultsFileError(f"{where}: `seed` must be an int")
    if "error" in line:
        error = line["error"]
        if not (isinstance(error, dict) and all(isinstance(error.get(k), str) for k in ("code", "message", "hint"))):
            raise ResultsFileError(f"{where}: `error` must hold the strings code, message and hint")
        return GameOutcome(index, seed, failure=GameFailure(index, seed, error["code"], error["message"],
                                                            error["hint"]))
    length, ended_by, digest = line.get("length"), line.get("ended_by"), line.get("digest")
    if type(length) is not int or length < 0:
        raise ResultsFileError(f"{where}: `length` must be a count of moves")
    values = {}
    for key in ("scores", "returns"):
        value = line.get(key)
        if not (isinstance(value, list) and len(value) == players
                and all(type(v) in (int, float) and math.isfinite(v) for v in value)):
            raise ResultsFileError(f"{where}: `{key}` must be {players} numbers")
        values[key] = tuple(value)
    if not (ended_by is None or isinstance(ended_by, str)) or not isinstance(digest, str):
        raise ResultsFileError(f"{where}: `ended_by` must be a string or null and `digest` a string")
    decisions, branching, fired = line.get("decisions"), line.get("branching"), line.get("fired")
    if not all(type(v) is int and v >= 0 for v in (decisions, branching)):
        raise ResultsFileError(f"{where}: `decisions` and `branching` must be counts")
    if not (isinstance(fired, dict) and all(type(v) is int and v > 0 for v in fired.values())):
        raise ResultsFileError(f"{where}: `fired` must map rule ids to how many moves fired them")
    return GameOutcome(index, seed, length, values["scores"], values["returns"], digest, ended_by,
                       decisions=decisions, branching=branching, fired=tuple(sorted(fired.items())),
                       arc=_arc(where, line["arc"], players) if "arc" in line else None)


def _arc(where: str, value: Any, players: int) -> GameArc:
    """A game line's `arc`, checked field by field."""
    fields = ("first_mover", "lead_changes", "drama", "settled_at")
    if not (isinstance(value, dict) and set(value) == set(fields)):
        raise ResultsFileError(f"{where}: `arc` must hold {', '.join(fields)}")
    first, changes = value["first_mover"], value["lead_changes"]
    if not (first is None or (type(first) is int and 0 <= first < players)) or not (type(changes) is int
                                                                                     and changes >= 0):
        raise ResultsFileError(f"{where}: `arc` needs a seat or null as first_mover and a count as lead_changes")
    for key in ("drama", "settled_at"):
        share = value[key]
        if not (share is None or (type(share) in (int, float) and 0 <= share <= 1)):
            raise ResultsFileError(f"{where}: `arc.{key}` must be a number from 0 to 1, or null")
    return GameArc(first, changes, value["drama"], value["settled_at"])


def count_games(path: str | os.PathLike) -> int:
    """Finished games in a results file (complete lines after the header), for progress messages."""
    try:
        with files.open_regular(path) as stream:
            ends = sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 20), b""))
    except OSError:
        return 0
    return max(0, ends - 1)
