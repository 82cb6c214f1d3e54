"""The states a picture or the viewer draws: a saved state, or every state along a checked game log.

A log is replayed in full (`runs.gamelog.read_log`) before anything is
drawn, so a picture of move K of a log is the state that log really reached,
with every rule and result checked on the way.  A game saved before its end
(a person left the table with `q`) has no end line: it is read up to its
last move, and its last state is then not terminal, which is how the
viewer and `render` tell an unfinished game (`finished`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import files
from ..engine.errors import RulesetError, StateFormatError
from ..engine.game import Game, load_game
from ..engine.loader import builtin_games
from ..engine.state import State
from ..runs.gamelog import FORMAT, read_log

MAX_STATE_BYTES = 64 << 20  # a saved state is JSON of the game's variables: megabytes at the very most


@dataclass(frozen=True)
class Step:
    """One state of a replayed log, with the move that led to it (None for the first state)."""

    state: State
    n: int
    player: int | None
    move: str | None
    rules: tuple[str, ...]


def is_log(path: str | os.PathLike) -> bool:
    """Whether `path` is meant as a game log, not a saved state: its first line is a ruleplay-log header,
    or a JSON object with more lines after it (a log with a damaged header, which the log reader then
    names, where the saved-state reader could only say the file is not one JSON document)."""
    lines = files.lines(path)
    try:
        header = files.json_value(next(lines, b""))
        more = next(lines, None) is not None
    except (ValueError, files.UserFileError):  # not JSON, or a first line too long for a log: a saved state
        return False
    finally:
        lines.close()
    return isinstance(header, dict) and (header.get("format") == FORMAT or more)


def log_steps(path: str | os.PathLike, ruleset: str | os.PathLike | None = None) -> list[Step]:
    """Every state of the log at `path`, the first one included, up to its end line or, in a game saved
    unfinished, its last move; raises ReplayError where the log is wrong."""
    states: list[State] = []
    read_log(path, ruleset, on_state=states.append)
    steps = [Step(states[0], 0, None, None, ())]
    for n, (before, after) in enumerate(zip(states, states[1:]), start=1):
        steps.append(Step(after, n, before.current_player, str(after.last_move), tuple(after.last_fired)))
    return steps


def finished(steps: list[Step]) -> bool:
    """Whether the game the steps show is over: a log's end line is checked to come exactly when its
    game ends, so a log that stops at a state that is not over is a game saved unfinished."""
    return steps[-1].state.is_terminal()


def saved_state(path: str | os.PathLike, ruleset: str | os.PathLike | None = None) -> State:
    """A state saved with `State.to_json()`, loaded against `ruleset` or the built-in game it names."""
    try:
        text = files.read_bytes(path, MAX_STATE_BYTES)
    except OSError as err:
        raise StateFormatError(f"{path}: cannot read the saved state: {err.strerror or err}") from None
    if not text.strip():
        raise StateFormatError(f"{path}: the file is empty: neither a saved state nor a game log")
    try:
        data = files.json_value(text)
    except ValueError as err:
        raise StateFormatError(f"{path}: not a saved state (not JSON: {err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise StateFormatError(f"{path}: not a saved state or game log (no `game` name in it)")
    if ruleset is None and data["game"] not in builtin_games():
        # The field is the game's name (`State.to_json` writes no path), and a file's field is never opened
        # as a path: `"game": "/etc/passwd"` would have the YAML error show that file's first line.
        raise StateFormatError(f"{path}: the state is of the game {data['game'][:80]!r}, which is not a "
                               "built-in game: give its ruleset with --ruleset PATH")
    game = _state_game(path, data, ruleset)
    try:
        return game.state_from_json(data)
    except StateFormatError as err:
        raise StateFormatError(f"{Path(path)}: {err.message}") from None


# The faults of a load that are the saved state's field, not the ruleset's: the state names a player count or
# variant the game lacks (the command line has no --players or --variant for a state file to change)
STATE_FIELDS = {"RP302": "players", "RP405": "variant"}


def _state_game(path: str | os.PathLike, data: dict, ruleset: str | os.PathLike | None) -> Game:
    """The game of the saved state `data`, at its player count and variant; a player count or variant the
    game does not have is StateFormatError naming the state's field, since no option of the command sets it."""
    players, variant = data.get("players"), data.get("variant")
    given = {"players": players if type(players) is int else None,
             "variant": variant if isinstance(variant, str) else None}
    try:
        return load_game(ruleset if ruleset is not None else data["game"], given["players"], given["variant"])
    except RulesetError as err:
        errors = [d for d in err.diagnostics if d.severity == "error"]
        field = STATE_FIELDS.get(errors[0].code) if len(errors) == 1 else None
        if field is None or given[field] is None:
            raise
        raise StateFormatError(f"{path}: the state says \"{field}\": {json.dumps(given[field])}, but "
                               f"{errors[0].message} ({errors[0].code}): fix the state's \"{field}\", or give "
                               f"the ruleset it was saved from with --ruleset") from None
