"""Typed errors of the public API.

Each carries a stable `code` (also used by scenario files to assert why a
move was refused) and a message that names the move or position at fault.
"""

from __future__ import annotations

import copy
import os

from ruleplay.dsl.diagnostics import Diagnostic, RulesetError
from ruleplay.dsl.errors import RuleplayError
from ruleplay.dsl.runtime import LimitError, RuleFailure, RuleRuntimeError

from .. import files

__all__ = [
    "RuleplayError", "IllegalMoveError", "MoveParseError", "GameOverError", "SeatError", "StateFormatError",
    "ReplayError", "ResultsFileError", "WorkerLostError", "OutputError", "FileInUseError", "output_error",
    "SchedulerError", "StepLimitError", "DeadlockError",
    "RulesetError", "RuleRuntimeError", "LimitError", "RuleFailure", "Diagnostic", "withheld",
]


class MoveParseError(RuleplayError, ValueError):
    """Text that is not a move of this game."""

    code = "RP610"


class IllegalMoveError(RuleplayError, ValueError):
    """A well-formed move that the rules refuse now; `rule` is the rule id that refused it."""

    code = "RP601"

    def __init__(self, move: object, reason: str, code: str | None = None, rule: str | None = None):
        self.move = move
        self.reason = reason
        self.rule = rule
        cite = f" [{rule}]" if rule else ""
        super().__init__(f"illegal move {move}: {reason}{cite}", code)

    def __reduce__(self) -> tuple:
        """Made again from what it was made of, so it crosses to another process whole."""
        return type(self), (self.move, self.reason, self.code, self.rule)


class GameOverError(IllegalMoveError):
    code = "RP606"


class SeatError(RuleplayError, ValueError):
    """A seat number that is not one of this game's players (asking for a player's view, say)."""

    code = "RP608"


class StateFormatError(RuleplayError, ValueError):
    """A saved state that is truncated, tampered with, or from another ruleset."""

    code = "RP620"


class ReplayError(RuleplayError):
    """A game log that does not replay (changed ruleset, bad move, different result)."""

    code = "RP630"


class StepLimitError(LimitError):
    """A game ran past `limits.max_steps` moves: the rules can loop."""

    code = "RP504"


class DeadlockError(RuleRuntimeError):
    """The player to move has no legal move and the phase says `when_stuck: error`."""

    code = "RP505"


class ResultsFileError(RuleplayError):
    """A simulation results file that cannot be resumed (another run's, or damaged)."""

    code = "RP650"


class SchedulerError(RuleplayError):
    """The Dask scheduler of `--executor dask://HOST:PORT` did not answer: no game was played on it.
    `hint` says what to check, as a rule error's does."""

    code = "RP652"

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


class WorkerLostError(RuleplayError):
    """A worker process of a simulation died; the games it had not finished are lost (resume replays them)."""

    code = "RP651"


class OutputError(RuleplayError):
    """A file ruleplay writes that cannot be written (no space left, no permission, an I/O error), or that
    appeared while the command ran and is kept.  What was written before stays whole."""

    code = "RP680"


class FileInUseError(OutputError):
    """A results file or game log that another ruleplay run is writing: two writers would mix their lines."""

    code = "RP681"


def output_error(err: OSError, path: str | os.PathLike, what: str, kept: str = "") -> OutputError:
    """The RP error for `err`, met writing the `what` at `path` (a results file, the game log, the report);
    `kept` says what of it is still whole and how to go on, when something was written before."""
    if isinstance(err, files.FileInUseError):
        return FileInUseError(f"{path}: another ruleplay run is writing this {what}; wait for it to end, or "
                              f"choose another file")
    if isinstance(err, FileExistsError):
        return OutputError(f"{path}: a file appeared there while the command ran, and was kept: add "
                           f"--overwrite to replace it, or choose another file")
    return OutputError(f"cannot write the {what} {path}: {err.strerror or err}" + (f"; {kept}" if kept else ""))


def withheld(err: RuleRuntimeError, seat: int) -> RuleRuntimeError:
    """`err` as seat `seat` may be shown it: the same class, code, place in the ruleset and hint, without its text.

    A rule error's text quotes the values it failed on (`no key 'queen' in
    map`), and the failing code may be reading what the seat cannot see: a
    card in another hand, the masked items of its own view.  The copy keeps
    no link to `err` (no cause, context or attribute holding it), so it can
    be shown, logged or sent to the seat whole.
    """
    shown = copy.copy(err)  # the class and its attributes; an exception's cause, context and traceback stay behind
    shown.message = (f"a rule error; its text is withheld from player {seat}, as it may quote what that seat "
                     f"cannot see")
    shown.args = (f"{err.pos}: {shown.message}" if err.pos and err.pos.line else shown.message,)
    return shown
