"""Game logs as JSON Lines, and their exact replay.

A log is a header line, one line per applied move, and an end line:

    {"format": "ruleplay-log", "version": 1, "game": ..., "ruleset": ..., "variant": ...,
     "players": ..., "seed": ..., "ruleset_hash": ..., "engine": ..., "agents": [...]}
    {"n": 1, "player": 0, "move": "place(4)", "rules": ["TT-2.1"]}
    ...
    {"end": true, "scores": [...], "returns": [...], "moves": 9}

Move `n` sits on line n + 1.  `ruleplay play --log` writes the log as the
game is played (`LogWriter`), so a game a person left before its end
(`ruleplay play --human`, `q`, or a kill) is saved without the end line;
`read_log` reads it back and `play --resume` continues it, while `replay`
wants a whole game.  Chance outcomes (player -1) are drawn again by
`apply_chance()` on replay, which must give the logged outcome: applying the
outcome directly would leave the state's generator in a different place and
every later random event would differ.  Replay checks the ruleset hash first
so that a changed ruleset is named as the cause, not its first symptom.
A log may come from anyone, so its `ruleset` field is followed only to a
built-in game or a file under the log's own folder (`runs.ruleset_ref`);
`replay(path, ruleset=...)` loads a ruleset the caller chose instead.
A log is read one line at a time and only from a regular file: a long line,
/dev/zero or a FIFO is refused, and memory grows only by one small record
per move.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .. import files
from ..agents import is_interactive
from ..engine.errors import ReplayError, RuleplayError, RuleRuntimeError, RulesetError, output_error
from ..engine.game import ENGINE_VERSION, Game, load_game
from ..engine.legal import CHANCE
from ..engine.rng import check_seed
from ..engine.state import State
from ..engine.views import seen_to_json
from ..files import atomic_write_bytes
from .play import MoveRecord, PlayResult
from .ruleset_ref import UnsafeRulesetReference, recorded, resolve

FORMAT = "ruleplay-log"
VERSION = 1
HEADER_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,), "ruleset": (str,), "variant": (str, type(None)), "players": (int,), "seed": (int,),
    "ruleset_hash": (str,), "engine": (str,),
}


def header_line(game: str, variant: str | None, players: int, seed: int, agents: Sequence[str], ruleset: str,
                ruleset_hash: str) -> dict:
    """A log's first line; `ruleset` as the log records it (`ruleset_ref.recorded`)."""
    return {"format": FORMAT, "version": VERSION, "game": game, "ruleset": ruleset, "variant": variant,
            "players": players, "seed": seed, "ruleset_hash": ruleset_hash, "engine": ENGINE_VERSION,
            "agents": list(agents)}


def move_line(record: MoveRecord) -> dict:
    return {"n": record.n, "player": record.player, "move": record.move, "rules": list(record.rules)} | (
        {"seen_by": seen_to_json(record.seen_by)} if record.seen_by is not None else {})


def end_line(result: PlayResult) -> dict:
    return {"end": True, "scores": result.scores, "returns": result.returns, "moves": result.length}


def log_lines(result: PlayResult, ruleset: str, ruleset_hash: str, finished: bool = True) -> list[dict]:
    header = header_line(result.game, result.variant, result.players, result.seed, result.agents, ruleset,
                         ruleset_hash)
    moves = [move_line(r) for r in result.records]
    return [header, *moves, end_line(result)] if finished else [header, *moves]


def _text(line: dict) -> bytes:
    return (json.dumps(line, separators=(",", ":")) + "\n").encode("utf-8")


def write_log(path: str | os.PathLike, result: PlayResult, ruleset: str, ruleset_hash: str,
              finished: bool = True) -> Path:
    """Write the log of `result` whole (replacing a file there); `ruleset` is the name or path given to
    `load_game`.  An unfinished game (`finished` False: a person left the table) is saved without the end
    line.  `LogWriter` writes a log as the game is played instead.

    The log records a path relative to its own folder (a built-in by name),
    the only kind of path `replay` follows without being told the ruleset.
    """
    lines = log_lines(result, recorded(ruleset, path), ruleset_hash, finished)
    return atomic_write_bytes(path, b"".join(_text(line) for line in lines))


class LogWriter:
    """A game log written as the game is played: the header first, each move as it is made, the end line last.

    The log is a `files.HeldFile`, held until the game is over or left, so
    a second `ruleplay play` naming the same log is refused (RP681) rather
    than writing over this game, and a killed game keeps every move made
    before the kill, resumable when a person sat at the table.  Moves taken
    back (`undo`) are cut off the file again (`keep`).  A write the disk
    refuses is cut back to the last whole line and raised as OutputError
    (RP680), which says what the log still holds.
    """

    def __init__(self, held: files.HeldFile, ends: list[int], records: Sequence[MoveRecord], resumable: bool):
        self.path = held.path
        self._file = held
        self._ends = ends  # the file's size after its header, and after each move line written
        self._records = list(records)  # the moves the file holds
        self._resumable = resumable
        self._ended = False  # the end line is written

    @classmethod
    def start(cls, path: str | os.PathLike, game: Game, seed: int, agents: Sequence[str], ruleset: str,
              replace: bool = False) -> "LogWriter":
        """A new log at `path` for the game `game` of seed `seed` between `agents`; `ruleset` is the name or
        path the game was loaded from.  A file there is replaced only with `replace` (OutputError if not)."""
        info = game.info
        head = header_line(info.name, info.variant, info.players, seed, agents, recorded(ruleset, path),
                           info.ruleset_hash)
        held = _hold(path, files.HeldFile.open if replace else files.HeldFile.create)
        writer = cls(held, [], [], any(is_interactive(a) for a in agents))
        try:
            writer._guarded(held.cut, 0)
            writer._guarded(held.append, _text(head))
        except BaseException:
            held.remove()  # nothing of it is whole
            raise
        writer._ends.append(held.size)
        return writer

    @classmethod
    def hold(cls, path: str | os.PathLike) -> files.HeldFile:
        """The log at `path` held for `resume` (before it is read): a game in play elsewhere is refused."""
        return _hold(path, functools.partial(files.HeldFile.open, create=False))

    @classmethod
    def resume(cls, held: files.HeldFile, records: Sequence[MoveRecord], agents: Sequence[str]) -> "LogWriter":
        """The writer of a held log that `read_log` read back as a game left unfinished after `records`, to
        continue it."""
        ends = list(itertools.accumulate(len(raw) for raw in files.lines(held.path)))
        if len(ends) != len(records) + 1 or ends[-1] != held.size:
            raise ReplayError(f"{held.path}: the log changed while it was read; resume it again")
        return cls(held, ends, records, any(is_interactive(a) for a in agents))

    def keep(self, records: Sequence[MoveRecord]) -> None:
        """Make the log hold exactly `records`: moves taken back are cut off, new ones appended."""
        same = min(len(self._records), len(records))  # records are only ever appended or cut back:
        while same and self._records[same - 1] is not records[same - 1]:  # the last one shared ends the prefix
            same -= 1
        if same < len(self._records):
            self._guarded(self._file.cut, self._ends[same])  # the end line, if any, goes with them
            del self._records[same:], self._ends[same + 1:]
            self._ended = False
        for record in records[same:]:
            self._guarded(self._file.append, _text(move_line(record)))
            self._records.append(record)
            self._ends.append(self._file.size)

    def finish(self, result: PlayResult) -> None:
        """The end line of the game `result` (its moves already kept), written once."""
        self.keep(result.records)
        if not self._ended:
            self._guarded(self._file.append, _text(end_line(result)))
            self._ended = True

    def close(self) -> None:
        self._guarded(self._file.close)

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _guarded(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except OSError as err:
            moves = len(self._records)
            kept = (f"it holds the first {moves} move{'' if moves == 1 else 's'}, each line whole"
                    + (": make room, then continue the game with --resume" if self._resumable else ""))
            raise output_error(err, self.path, "game log", kept if self._ends else "") from None


def _hold(path: str | os.PathLike, opener: Callable[[str | os.PathLike], files.HeldFile]) -> files.HeldFile:
    try:
        return opener(path)
    except OSError as err:
        raise output_error(err, path, "game log") from None


@dataclass(frozen=True)
class ReplayReport:
    path: str
    game: str
    ruleset: str
    variant: str | None
    players: int
    seed: int
    moves: int
    scores: list[float]
    returns: list[float]
    engine: str
    seat: int | None = None  # the seat whose view `views` is, when one was asked for
    views: list[str] | None = None

    def to_dict(self) -> dict:
        """The report; a seat's (`seat` set) without the seed, from which every hidden card and roll follows."""
        return {"path": self.path, "game": self.game, "ruleset": self.ruleset, "variant": self.variant,
                "players": self.players, "seed": self.seed if self.seat is None else None, "moves": self.moves,
                "scores": self.scores, "returns": self.returns, "engine": self.engine} | (
                    {"seat": self.seat, "views": self.views} if self.seat is not None else {})


def _lines(path: Path) -> Iterator[tuple[int, dict]]:
    """The log's lines as objects, read one at a time (a regular file only, each line of bounded length)."""
    raw_lines = files.lines(path)
    for number in itertools.count(1):
        try:
            raw = next(raw_lines, None)
        except OSError as err:
            raise ReplayError(f"{path}: cannot read the log: {err.strerror or err}") from None
        if raw is None:
            return
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ReplayError(f"{path}:{number}: the line is not UTF-8 text") from None
        try:
            value = files.json_line(line)
        except ValueError as err:
            raise ReplayError(f"{path}:{number}: {err}") from None
        if not isinstance(value, dict):
            raise ReplayError(f"{path}:{number}: expected a JSON object, got {line.rstrip()[:60]!r}")
        yield number, value


def unfinished_moves(path: str | os.PathLike) -> int | None:
    """The moves of the game left unfinished in the log at `path` (a person's saved game: a header and its
    moves, no end line), or None when `path` holds no such log (no file, another file, a finished game, a
    game of agents alone that a rule error stopped)."""
    moves = None
    try:
        for number, line in _lines(Path(path)):
            if number == 1:
                if line.get("format") != FORMAT or not _at_table(line):
                    return None
                moves = 0
            elif "end" in line:
                return None
            else:
                moves += 1
    except (ReplayError, OSError):
        return None
    return moves


def logged_ruleset(path: str | os.PathLike) -> str | None:
    """The ruleset `replay(path)` would load, or None if the log's header does not lead to one.

    For a caller that must know the files a replay reads before it runs
    (the command line, to keep an output from replacing one of them).
    """
    lines = _lines(Path(path))
    try:
        first = next(lines, None)
    except ReplayError:
        return None
    finally:
        lines.close()
    ref = first[1].get("ruleset") if first is not None else None
    if not isinstance(ref, str):
        return None
    try:
        return resolve(ref, path, "ruleset")
    except UnsafeRulesetReference:
        return None


def _at_table(header: dict) -> bool:
    """Whether the log's header seats a person (a game `play --resume` can continue)."""
    agents = header.get("agents")
    return isinstance(agents, list) and any(isinstance(a, str) and is_interactive(a) for a in agents)


def _check_header(path: Path, header: dict) -> None:
    if header.get("format") != FORMAT or not _same(header.get("version"), VERSION):
        raise ReplayError(f"{path}:1: unknown log format {header.get('format')!r} version "
                          f"{header.get('version')!r} (expected {FORMAT!r} version {VERSION})")
    for key, types in HEADER_TYPES.items():
        value = header.get(key)
        if type(value) not in types:
            raise ReplayError(f"{path}:1: header field {key!r} is {json.dumps(value)}, "
                              f"expected {' or '.join('null' if t is type(None) else t.__name__ for t in types)}")
    try:
        check_seed(header["seed"])
    except ValueError as err:
        raise ReplayError(f"{path}:1: header field 'seed': {err}") from None


def _check_move_line(path: Path, number: int, line: dict, n: int) -> None:
    where = f"{path}:{number}"
    if not _same(line.get("n"), n):
        raise ReplayError(f"{where}: expected move number {n}, found {json.dumps(line.get('n'))}")
    if type(line.get("player")) is not int:
        raise ReplayError(f"{where}: `player` must be an int")
    if not isinstance(line.get("move"), str):
        raise ReplayError(f"{where}: `move` must be a move text")
    rules = line.get("rules")
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ReplayError(f"{where}: `rules` must be a list of rule ids")


@dataclass
class LoggedGame:
    """A log read back and replayed: its game, header, every move's record, and the state they lead to.

    `end` is the end line, or None for a game saved before its end (by a
    person leaving the table): `ruleplay play --resume` continues those.
    """

    path: Path
    game: Game
    ruleset: str
    header: dict
    records: list[MoveRecord]
    state: State
    end: dict | None


def read_log(path: str | os.PathLike, ruleset: str | os.PathLike | None = None,
             on_state: Callable[[State], None] | None = None) -> LoggedGame:
    """Re-run a log move by move; raises ReplayError (with the line) on any difference.

    `ruleset` (a name or path the caller chose) replaces the log's own
    `ruleset` field, which is followed only inside the log's folder.  A log
    without its end line is read as a game saved unfinished.  `on_state` is
    called with the first state and the state after each checked move (the
    replay viewer draws them).
    """
    path = Path(path)
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{path}: the log is empty")
    header = first[1]
    _check_header(path, header)
    if ruleset is None:
        try:
            ruleset = resolve(header["ruleset"], path, "ruleset")
        except UnsafeRulesetReference as err:
            raise ReplayError(f"{path}:1: the log's {err}") from None
    try:
        game = load_game(ruleset, header["players"], header["variant"])
    except RulesetError as err:
        raise ReplayError(f"{path}:1: the ruleset {str(ruleset)!r} does not load:\n{err}") from None
    if game.name != header["game"]:
        raise ReplayError(f"{path}:1: the log is for game {header['game']!r}, the ruleset is {game.name!r}")
    if game.info.ruleset_hash != header["ruleset_hash"]:
        raise ReplayError(f"{path}:1: the ruleset changed since the log was written: log has ruleset_hash "
                          f"{header['ruleset_hash']}, {ruleset} now has {game.info.ruleset_hash}")
    try:
        state = game.new_state(header["seed"])
    except RuleRuntimeError as err:
        raise ReplayError(f"{path}:1: the game does not start: {err}") from None
    if on_state is not None:
        on_state(state)
    records: list[MoveRecord] = []
    for number, line in lines:
        where = f"{path}:{number}"
        if "end" in line:
            _check_end(where, line, state, len(records))
            extra = next(lines, None)
            if extra is not None:
                raise ReplayError(f"{path}:{extra[0]}: a line after the end line")
            return LoggedGame(path, game, str(ruleset), header, records, state, line)
        n = len(records) + 1
        _check_move_line(path, number, line, n)
        if state.is_terminal():
            raise ReplayError(f"{where}: move {line['move']} after the game ended")
        if line["player"] != state.current_player:
            raise ReplayError(f"{where}: the log has player {line['player']} to move, "
                              f"the game has player {state.current_player}")
        state = advance(where, game, state, line["move"])
        if state.last_fired != line["rules"]:
            raise ReplayError(f"{where}: move {line['move']} fired {_json(state.last_fired)}, the log says "
                              f"{_json(line['rules'])}")
        seen = seen_to_json(state.last_seen_by) if state.last_seen_by is not None else None
        if line.get("seen_by") != seen:
            raise ReplayError(f"{where}: move {line['move']} {_seen_text(seen)}, the log "
                              + (f"says {_json(line['seen_by'])}" if "seen_by" in line else "has no seen_by"))
        records.append(MoveRecord.of(n, line["player"], state))
        if on_state is not None:
            on_state(state)
    return LoggedGame(path, game, str(ruleset), header, records, state, None)


def _json(value: Any) -> str:
    """A value of a log line in the log's own words (JSON: null, ["KP-3.2"]), not Python's."""
    return json.dumps(value, ensure_ascii=False)


def _seen_text(seen: list | None) -> str:
    """Who the engine says saw a move's arguments, as a log line writes it (no seen_by: every seat)."""
    return "is seen by every seat (no seen_by)" if seen is None else f"is seen by {_json(seen)}"


def replay(path: str | os.PathLike, ruleset: str | os.PathLike | None = None,
           seat: int | None = None, on_state: Callable[[State], None] | None = None) -> ReplayReport:
    """Re-run a whole game's log (see `read_log`); with `seat`, the report lists every move as that seat
    was shown it; `on_state` sees every state (`read_log`).  A log without its end line is an error here:
    the game did not end."""
    logged = read_log(path, ruleset, on_state)
    game, header, path = logged.game, logged.header, logged.path
    if seat is not None and (type(seat) is not int or not 0 <= seat < game.info.players):
        raise ReplayError(f"{path}: seat {seat!r} is not a seat of this game (0..{game.info.players - 1})", "RP608")
    n = len(logged.records)
    if logged.end is None:
        resume = (f"a game saved before its end continues with `ruleplay play {game.name} --log {path} --resume`"
                  if _at_table(header) else "the game stopped before its end: a rule error, or a full disk")
        raise ReplayError(f"{path}: truncated: no end line after {n} moves ({resume})")
    views = [r.views[seat] if r.views else r.move for r in logged.records] if seat is not None else None
    return ReplayReport(str(path), game.name, logged.ruleset, header["variant"], header["players"], header["seed"],
                        n, logged.state.scores(), logged.state.returns(), header["engine"], seat, views)


def replay_moves(game: Game, seed: int, moves: Sequence[str],
                 on_state: Callable[[State], None] | None = None) -> State:
    """The state after `moves` from the start of game `seed`, chance outcomes drawn again as in play: how
    a table goes back to an earlier decision (states are values, so this is the state play reached).
    `on_state` sees every state before each move is made."""
    state = game.new_state(seed)
    for n, text in enumerate(moves, start=1):
        if on_state is not None:
            on_state(state)
        state = advance(f"move {n}", game, state, text)
    return state


def advance(where: str, game: Game, state: State, text: str) -> State:
    """`state` after the logged move `text`, which must be the very text ruleplay writes for that move.

    The parser also reads `place( 2 )` and `place(2.0)` as `place(2)`, as a
    person may type them; a log holds moves as ruleplay wrote them, so any
    other spelling is an edited line and is refused, and a log replays to
    exactly the text it was read from.
    """
    try:
        move = game.parse_move(text)
        if state.current_player == CHANCE:
            after = state.apply_chance()
            if after.last_move != move:
                raise ReplayError(f"{where}: chance gave {after.last_move}, the log says {text}")
        else:
            after = state.apply(move)
    except RuleplayError as err:
        if isinstance(err, ReplayError):
            raise
        raise ReplayError(f"{where}: move {text} does not replay: {err}") from None
    if str(after.last_move) != text:
        raise ReplayError(f"{where}: the log writes the move {text!r}, which ruleplay writes "
                          f"{str(after.last_move)!r}: a log holds each move as ruleplay wrote it")
    return after


def _check_end(where: str, line: dict, state: State, n: int) -> None:
    if line.get("end") is not True:
        raise ReplayError(f"{where}: malformed end line (`end` must be true)")
    if not state.is_terminal():
        raise ReplayError(f"{where}: the log ends after {n} moves but the game is not over")
    if not _same(line.get("moves"), n):
        raise ReplayError(f"{where}: the end line counts {json.dumps(line.get('moves'))} moves, the log has {n}")
    for key, actual in (("scores", state.scores()), ("returns", state.returns())):
        if not _same(line.get(key), actual):
            raise ReplayError(f"{where}: final {key} differ: log {json.dumps(line.get(key))}, replay {actual}")


def _same(logged: object, actual: object) -> bool:
    """Whether a logged value is the value ruleplay writes there, as JSON: Python's `==` took `true` and
    `1.0` for the move number 1, and a score of `1.0` or `true` for the score 1, which a game tells apart."""
    return json.dumps(logged) == json.dumps(actual)
