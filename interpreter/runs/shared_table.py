"""A game several people play at once through a server (`ruleplay serve`): people's seats, agents' seats.

It holds a `Table` (the moves so far, the state they lead to, undo, agents
seeded per decision as at the terminal) behind one lock, so the requests of
several people and the agents' thread never see half a move.  Each change
bumps `version`: a person's page asks for the view after the version it has
(and waits for it), and a move is accepted only against the version it was
chosen on, so a move chosen on a stale board is refused, not played.

Agents and chance move in a thread of their own (`run`): an agent thinks on
a copy of the position outside the lock, and its move is applied only if
nothing changed meanwhile (a person's undo).  A person's seat with one move
only has it played for them, as the terminal table does.  After every change
the game is written to the log (`log_keeper`: a held `gamelog.LogWriter`,
without its end line until the game is over), so a server stopped at any
time leaves a game `--resume` continues.  A log that cannot be written (a
full disk) stops the table: `save_error` holds the error (RP680), the log
keeps every move it took, whole, and the game resumes from there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from ..engine.errors import OutputError, RuleplayError, RuleRuntimeError, withheld
from ..engine.legal import CHANCE
from ..engine.people import distinct_moves
from ..engine.state import State
from ..agents import is_interactive
from .gamelog import LogWriter, replay_moves
from .play import MoveRecord, SeatingError, seat_agents
from .table import Table


class TableRefusal(RuleplayError):
    """A request the table cannot grant: not this seat's turn, a stale move, nothing to undo."""

    code = "RP607"


@dataclass(frozen=True)
class Snapshot:
    """The table at one version: what a page is drawn from."""

    version: int
    state: State
    records: tuple[MoveRecord, ...]
    rounds: tuple[int, ...]  # the round each move was made in
    thinking: int | None
    forced: frozenset[int]
    error: RuleplayError | None


class SharedTable:
    """A `Table` with people at the seats in `people`, agents at the others, shared by threads."""

    def __init__(self, table: Table, people: set[int], save: Callable[[Table], None] | None = None):
        self.table = table
        self.people = frozenset(people)
        self.save = save
        self.version = 0
        self.thinking: int | None = None  # the seat whose agent is choosing now
        self.forced: set[int] = set()  # numbers of the moves played for a person who had no other
        self.error: RuleplayError | None = None  # a rule error that stopped the game (shown per seat: `told_error`)
        self.save_error: OutputError | None = None  # the log could not be written: the table stopped
        self.lock = threading.Condition()
        self.stopped = False
        # The round each move was made in, for the pages' move lists (a resumed game's, replayed once).
        self.rounds: list[int] = []
        replay_moves(table.game, table.seed, [r.move for r in table.records], lambda s: self.rounds.append(s.round))

    # ------------------------------------------------------------ reading
    def snapshot(self) -> "Snapshot":
        """Everything a page shows, read together."""
        with self.lock:
            return Snapshot(self.version, self.table.state, tuple(self.table.records), tuple(self.rounds),
                            self.thinking, frozenset(self.forced), self.error)

    def offered(self, state: State, seat: int) -> list[tuple[str, object]]:
        """The moves seat `seat` has at `state`: none unless it is that seat's turn."""
        if state.is_terminal() or state.current_player != seat or self.error is not None:
            return []
        return distinct_moves(state.game.model, state.legal_moves())

    def choices(self, state: State, seat: int) -> list[tuple[str, object]]:
        """The moves a person at `seat` chooses from: none when there is one only (played for them)."""
        offered = self.offered(state, seat)
        return offered if len(offered) > 1 else []

    # ------------------------------------------------------------ changing
    def play(self, seat: int, text: str, version: int) -> None:
        """Make the move a person at `seat` chose (its text as offered) on the board of `version`."""
        with self.lock:
            state = self.table.state
            if version != self.version:
                raise TableRefusal("the game has moved on since this board was shown: look again")
            if seat not in self.people or state.is_terminal() or state.current_player != seat:
                raise TableRefusal(f"it is not player {seat}'s turn")
            moves = dict(self.choices(state, seat))
            if text not in moves:
                raise TableRefusal(f"{text[:80]} is not one of your moves now")
            self._apply(seat, state.apply(moves[text]))  # type: ignore[arg-type]  # offered values are moves

    def undo(self, seat: int) -> int:
        """Take the game back to `seat`'s previous decision; the move number it was made after."""
        with self.lock:
            if seat not in self.people:
                raise TableRefusal(f"player {seat} is not a person's seat")
            back = self.table.undo(seat)
            if back is None:
                raise TableRefusal("nothing to undo: you have made no decision yet")
            self.forced = {n for n in self.forced if n <= back}
            del self.rounds[back:]
            self.error = None
            self._changed()
            return back

    def _apply(self, seat: int, after: State) -> None:
        self.rounds.append(self.table.state.round)
        self.table.records.append(MoveRecord.of(len(self.table.records) + 1, seat, after))
        self.table.state = after
        self._changed()

    def _changed(self) -> None:
        self.version += 1
        if self.save is not None and self.save_error is None:
            try:
                self.save(self.table)
            except OutputError as err:  # the game can no longer be kept: stop, as the terminal table does
                self.save_error, self.stopped = err, True
        self.lock.notify_all()

    # ------------------------------------------------------------ the agents' thread
    def run(self) -> None:
        """Move for chance, the agents and a person's only move until the game ends or `stop()`."""
        while True:
            with self.lock:
                self.lock.wait_for(lambda: self.stopped or self._to_play() is not None)
                if self.stopped:
                    return
                version, state, seat = self.version, self.table.state, self._to_play()
                forced = seat in self.people
                self.thinking = None if forced or seat == CHANCE else seat
                if self.thinking is not None:
                    self.version += 1  # the pages show who is thinking
                    self.lock.notify_all()
                    version = self.version
            try:
                after = self._choose(state, seat, forced)  # type: ignore[arg-type]  # _to_play gave a seat
            except RuleplayError as err:
                with self.lock:
                    self.thinking, self.error = None, err
                    self._changed()
                continue
            with self.lock:
                self.thinking = None
                if self.version == version:  # nobody undid meanwhile
                    if forced:
                        self.forced.add(len(self.table.records) + 1)
                    self._apply(state.current_player, after)
                else:
                    self.version += 1
                    self.lock.notify_all()

    def _to_play(self) -> int | None:
        """The seat the thread moves for now (CHANCE for chance), or None when a person must choose."""
        state = self.table.state
        if state.is_terminal() or self.error is not None:
            return None
        seat = state.current_player
        if seat == CHANCE or seat not in self.people:
            return seat
        return seat if len(self.offered(state, seat)) == 1 else None

    def _choose(self, state: State, seat: int, forced: bool) -> State:
        if seat == CHANCE:
            return state.apply_chance()
        if forced:
            return state.apply(self.offered(state, seat)[0][1])  # type: ignore[arg-type]
        return state.apply(self.table.agent_move(state, seat))

    def wait_stopped(self) -> None:
        """Return once the table is stopped (`stop`, or a log that could not be written)."""
        with self.lock:
            self.lock.wait_for(lambda: self.stopped)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            self.lock.notify_all()


def told_error(error: RuleplayError, game_keeps_secrets: bool, seat: int) -> str:
    """A rule error as seat `seat` may read it: without its text in a game that keeps secrets, since the
    text quotes the values the rule failed on, which may be what the seat cannot see."""
    if game_keeps_secrets and isinstance(error, RuleRuntimeError):
        return str(withheld(error, seat))
    return str(error)


def log_keeper(log: LogWriter) -> Callable[[Table], None]:
    """Keep the table's game in `log` after each change: its moves, and the end line once it is over."""
    def save(table: Table) -> None:
        if table.state.is_terminal():
            log.finish(table.result())
        else:
            log.keep(table.records)
    return save


def served_seats(agents: list[str], players: int, people: list[int] | None) -> tuple[list[str], set[int]]:
    """The agent of every seat and the people's seats of a served table.

    With `people` (`--human 0,2`) those seats are people's and `agents` names
    the other seats' agents (one for all, or one each in seat order); without
    it `agents` names every seat and `human` marks the people's.  Raises
    SeatingError with what to give instead.
    """
    if people is None:
        seats = [str(a) for a in seat_agents(agents, players, people=True)]
        found = {k for k, a in enumerate(seats) if is_interactive(a)}
        if not found:
            raise SeatingError("nobody plays at this table: give --human SEAT[,SEAT...], or name `human` in "
                               "--agents")
        return seats, found
    for seat in people:
        if not 0 <= seat < players:
            raise SeatingError(f"seat {seat} is not a seat of this game (0..{players - 1})")
    if len(set(people)) != len(people):
        raise SeatingError("--human names a seat twice")
    if any(is_interactive(a) for a in agents):
        raise SeatingError("--human seats the people; --agents then names only the other seats' agents")
    others = players - len(people)
    if others == 0:
        return ["human"] * players, set(people)
    given = list(agents) * others if len(agents) == 1 else list(agents)
    if len(given) != others:
        raise SeatingError(f"{len(agents)} agents for the {others} seats without a person: give one agent for "
                           f"all of them, or one per seat")
    queue = iter(given)
    return ["human" if k in people else next(queue) for k in range(players)], set(people)
