"""A person at the table: the agent that asks a human for each move, showing only what that seat may see.

At each decision it shows the board drawn from the seat's own observation
(`engine.render.render_seat_text`, never the all-seeing state) and the legal
moves numbered, then reads an answer: a number, a move's text (Tab completes
both where the terminal allows), `? MOVE` for why a move is refused, `u` to
undo back to the previous decision, `q` to save and leave.  Undo and quit
cannot be answered with a move, so they are raised as `TableRequest`s; the
table driver (`runs.table`) catches them, rewinds or stops, and keeps the log.

Input and output go through a `Console`, so the command line can give one
that escapes what a terminal would obey (`cli.table`) and tests can give one
that reads a script.  `StdioConsole` is the plain one: `input()` with
readline's Tab completion when stdin is a terminal.
"""

from __future__ import annotations

import re
import sys
from typing import Callable, Protocol, Sequence

from ..engine.errors import MoveParseError
from ..engine.model import GameModel
from ..engine.moves import Move
from ..engine.people import distinct_moves
from ..engine.render import plain_text, render_seat_text
from ..engine.ruletext import rule_texts
from ..engine.state import State
from .base import no_moves_error

COMMANDS = ("?", "u", "q")
_NUMBER = re.compile(r"[0-9]{1,18}")  # longer is no move's number, and int() refuses 4300 digits
HELP = ("Type a move's number or its text (Tab completes).  `? MOVE` (or `? N`): why a move is refused;\n"
        "`help ACTION`: the rules of an action; `u`: undo back to your previous decision;\n"
        "`q`: save the game (to --log FILE) and quit; an empty line: the board again.")


class TableRequest(Exception):
    """An answer that is not a move: the table driver acts on it."""


class UndoRequest(TableRequest):
    """Take back the moves since this seat's previous decision."""


class QuitRequest(TableRequest):
    """Stop here and keep the game (the end of input is one too)."""


class Console(Protocol):
    """Where a person reads and types."""

    def show(self, text: str) -> None: ...

    def ask(self, prompt: str, choices: Sequence[str]) -> str:
        """One line typed by the person (EOFError at the end of input); `choices` complete on Tab."""
        ...


class StdioConsole:
    """Standard input and output; Tab completes the `choices` (via stdlib readline) when stdin is a terminal.

    `write` prints one text (default `print`): the command line passes one
    that escapes control characters coming from a ruleset.
    """

    def __init__(self, write: Callable[[str], None] = print):
        self.write = write
        self.choices: Sequence[str] = ()
        if sys.stdin.isatty():
            _tab_completion(self._complete)

    def show(self, text: str) -> None:
        self.write(text)

    def ask(self, prompt: str, choices: Sequence[str]) -> str:
        self.choices = choices
        return input(prompt)

    def _complete(self, text: str, index: int) -> str | None:
        """The `index`th way to finish the line `text`: a choice, or `? ` and a move to ask about."""
        lines = [*self.choices, *(f"? {c}" for c in self.choices if c not in COMMANDS)]
        matches = [line for line in lines if line.startswith(text)]
        return matches[index] if index < len(matches) else None


def _tab_completion(complete: Callable[[str, int], str | None]) -> None:
    """Complete the whole line, not a word: a move's text holds `(`, `,`, `-` and spaces (`take(a, 2)`)."""
    try:
        import readline
    except ImportError:  # a Python built without it: typing still works, without Tab
        return
    readline.set_completer(complete)
    readline.set_completer_delims("")
    readline.parse_and_bind("bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete")


class HumanAgent:
    """Asks the person at `console` for every move of the seat it plays."""

    interactive = True  # needs a person: `runs.play.seat_agents` keeps it out of headless play

    def __init__(self, seed: int = 0, console: Console | None = None):
        del seed  # a person needs no seed; accepted so every agent is built the same way
        self.console: Console = console if console is not None else StdioConsole()

    def tell(self, text: str) -> None:
        self.console.show(text)

    def choose(self, state: State) -> Move:
        """The move the person picks; raises UndoRequest or QuitRequest for `u` and `q` (and end of input).

        Moves a person reads alike (copies of alike cards) are offered once;
        a seat with one move only is told it and the move is played for it.
        """
        if not state.legal_moves():
            raise no_moves_error(state)
        offered = distinct_moves(state.game.model, state.legal_moves())
        seat = state.current_player
        texts, moves = [t for t, _ in offered], [m for _, m in offered]
        if len(moves) == 1:
            self.console.show(f"your only move, played for you: {texts[0]}")
            return moves[0]
        self.console.show(self.picture(state, seat, texts))
        while True:
            try:
                line = self.console.ask(f"player {seat}> ", [*texts, *COMMANDS])
            except EOFError:
                raise QuitRequest() from None
            answer = line.strip()
            if not answer:
                self.console.show(self.picture(state, seat, texts))
            elif answer in ("q", "quit"):
                raise QuitRequest()
            elif answer in ("u", "undo"):
                raise UndoRequest()
            elif answer in ("?", "help", "h"):
                self.console.show(HELP)
            elif answer.startswith("help "):
                self.console.show(action_help(state.game.model, answer[5:].strip()))
            elif answer.startswith("?"):
                self.console.show(self.explain(state, answer[1:].strip(), moves, texts))
            else:
                move = self.read_move(state, answer, moves, texts)
                if move is not None:
                    return move

    @staticmethod
    def picture(state: State, seat: int, texts: Sequence[str]) -> str:
        """The board as `seat` sees it, and its legal moves numbered from 1 in the ruleset's order."""
        listed = [f"{k:>3}. {t}" for k, t in enumerate(texts, start=1)]
        width = max(len(entry) for entry in listed) + 2
        per_line = max(1, 78 // width)
        rows = ["".join(e.ljust(width) for e in listed[i:i + per_line]).rstrip()
                for i in range(0, len(listed), per_line)]
        return "\n".join(["", render_seat_text(state.game.model, state.data, seat), *HumanAgent.private(state, seat),
                          f"your moves ({len(texts)}):", *rows])

    @staticmethod
    def private(state: State, seat: int) -> list[str]:
        """What only `seat` sees (its entry of each owner-only variable, a hand say), from its observation:
        a ruleset's picture need not show it, and a person must know their own cards.  An empty one
        (nothing held, nothing seen) is left out."""
        model = state.game.model
        seen = state.observe(seat)["state"]
        return [f"your {name.replace('_', ' ')}: {plain_text(model, seen[name][seat])}"
                for name, decl in model.vars.items()
                if decl.per_player and decl.visibility == "owner" and seen[name][seat] not in ([], None, {})]

    def read_move(self, state: State, answer: str, moves: list[Move], texts: Sequence[str]) -> Move | None:
        """The move `answer` names (a number, a move's text as shown or as written), or None after saying why
        it is not one."""
        k = _number(answer)
        if k is not None:
            if 1 <= k <= len(moves):
                return moves[k - 1]
            self.console.show(f"no move {_typed(answer)}: type a number from 1 to {len(moves)}, or a move's text")
            return None
        if answer in texts:
            return moves[list(texts).index(answer)]
        try:
            move = state.game.parse_move(answer)  # type: ignore[attr-defined]
        except MoveParseError as err:
            self.console.show(f"{err.message}; type a number from 1 to {len(moves)}, or ? for help")
            return None
        if move in state.legal_moves():
            return move
        self.console.show(f"refused: {state.explain(move, state.current_player) or 'not a legal move now'}")
        return None

    @staticmethod
    def explain(state: State, asked: str, moves: list[Move], texts: Sequence[str]) -> str:
        """Why the move `asked` for (its text or number) is refused now, or that it is legal."""
        if not asked:
            return HELP
        k = _number(asked)
        if k is not None:
            return (f"{k}. {texts[k - 1]} is legal" if 1 <= k <= len(moves)
                    else f"there is no move {_typed(asked)}: the moves are numbered 1 to {len(moves)}")
        if asked in texts:
            return f"{asked} is legal (move {list(texts).index(asked) + 1})"
        try:
            move = state.game.parse_move(asked)  # type: ignore[attr-defined]
        except MoveParseError as err:
            return err.message
        if move in state.legal_moves():
            return f"{move} is legal"
        return state.explain(move, state.current_player) or f"illegal move {move}: not a legal move now"


def action_help(model: GameModel, name: str) -> str:
    """`help ACTION`: the action's description and the text of each rule it cites, from the spec."""
    action = model.actions.get(name)
    if action is None:
        return f"there is no action {_typed(name)!r}; the actions are: {', '.join(model.actions)}"
    texts = rule_texts(model)
    spec = model.data.get("actions", {}).get(name) or {}
    lines = [f"{name}: {spec['description']}" if isinstance(spec.get("description"), str) else f"{name}:"]
    lines += [f"  {rule}: {texts.get(rule, '(no text in the spec)')}" for rule in action.rules]
    lines += [f"  refused when: {r.message}" + (f" ({r.rule})" if r.rule else "") for r in action.requires if r.message]
    return "\n".join(lines)


def _number(answer: str) -> int | None:
    """The move number an answer names, or None for one that is no number.

    Only the digits 0-9 make a number: `str.isdigit` also takes `²`, which
    `int` refuses, and a person's typo stopped the game unsaved.  Digits too
    many for any move's number are the number 0, which no move has.
    """
    if _NUMBER.fullmatch(answer):
        return int(answer)
    return 0 if answer.isascii() and answer.isdigit() else None


def _typed(answer: str) -> str:
    """An answer shown back to the person, cut short: a key held down must not fill the screen."""
    return answer if len(answer) <= 20 else answer[:20] + "…"
