"""Game logs as JSON Lines, and their exact replay.

A log is a header line, one line per applied move, and an end line:

    {"format": "ruleplay-log", "version": 1, "game": ..., "ruleset": ..., "variant": ...,
     "players": ..., "seed": ..., "ruleset_hash": ..., "engine": ..., "agents": [...]}
    {"n": 1, "player": 0, "move": "place(4)", "rules": ["TT-2.1"]}
    ...
    {"end": true, "scores": [...], "returns": [...], "moves": 9}

Move `n` sits on line n + 1.  A game a person left before its end (`ruleplay
play --human`, `q`) is saved without the end line; `read_log` reads it back
and `play --resume` continues it, while `replay` wants a whole game.  Chance outcomes (player -1) are drawn again by
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

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .. import files
from ..engine.errors import ReplayError, RuleplayError, RuleRuntimeError, RulesetError
from ..engine.game import ENGINE_VERSION, Game, load_game
from ..engine.legal import CHANCE
from ..engine.rng import check_seed
from ..engine.state import State
from ..engine.views import seen_to_json
from ..files import atomic_write_text
from .play import MoveRecord, PlayResult
from .ruleset_ref import UnsafeRulesetReference, recorded, resolve

FORMAT = "ruleplay-log"
VERSION = 1
HEADER_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,), "ruleset": (str,), "variant": (str, type(None)), "players": (int,), "seed": (int,),
    "ruleset_hash": (str,), "engine": (str,),
}


def log_lines(result: PlayResult, ruleset: str, ruleset_hash: str, finished: bool = True) -> list[dict]:
    header = {"format": FORMAT, "version": VERSION, "game": result.game, "ruleset": ruleset,
              "variant": result.variant, "players": result.players, "seed": result.seed,
              "ruleset_hash": ruleset_hash, "engine": ENGINE_VERSION, "agents": result.agents}
    moves = [{"n": r.n, "player": r.player, "move": r.move, "rules": list(r.rules)}
             | ({"seen_by": seen_to_json(r.seen_by)} if r.seen_by is not None else {}) for r in result.records]
    end = {"end": True, "scores": result.scores, "returns": result.returns, "moves": result.length}
    return [header, *moves, end] if finished else [header, *moves]


def write_log(path: str | os.PathLike, result: PlayResult, ruleset: str, ruleset_hash: str,
              finished: bool = True) -> Path:
    """Write the log of `result`; `ruleset` is the name or path given to `load_game`.  An unfinished
    game (`finished` False: a person left the table) is saved without the end line.

    The log records a path relative to its own folder (a built-in by name),
    the only kind of path `replay` follows without being told the ruleset.
    """
    ref = recorded(ruleset, path)
    lines = log_lines(result, ref, ruleset_hash, finished)
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    return atomic_write_text(path, text)


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
    moves, no end line), or None when `path` holds no such log (no file, another file, a finished game)."""
    moves = None
    try:
        for number, line in _lines(Path(path)):
            if number == 1:
                if line.get("format") != FORMAT:
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
        state = _advance(where, game, state, line["move"])
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
        raise ReplayError(f"{path}: truncated: no end line after {n} moves (a game saved before its end "
                          f"continues with `ruleplay play {game.name} --log {path} --resume`)")
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
        state = _advance(f"move {n}", game, state, text)
    return state


def _advance(where: str, game: Game, state: State, text: str) -> State:
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
