"""A game at the table: a person at one seat, agents at the others; undo, leave, and come back later.

The moves played so far (`records`) are the game: they are what a log
saves, and any earlier state is those moves replayed (`gamelog.replay_moves`:
chance is drawn again by the state's own seeded generator, so the replay is
the game that was played).  Undo is therefore cutting `records` back to the
person's previous decision.  The log (`gamelog.LogWriter`) follows `records`
as they change: each move is written as it is made and a move taken back is
cut off, so leaving (or a kill) leaves the game saved without an end line,
and resuming is reading it back (`gamelog.read_log`).

An agent here is built afresh for each of its decisions, seeded from the
game's seed, its seat and the move number (`decision_seed`), so its reply
depends only on the position it answers: after an undo the same move gets
the same reply, and a game left and resumed goes on exactly as it would have
without the break.  (`play_game` seeds each agent once instead; a game
with a person is not a function of its seed anyway.)  It also makes a log's
agent moves checkable: a resume asks each agent again for every move the
log says it made (`Table.resumed`), and a log edited to give an agent
another move, legal or not, is refused at that move's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..agents import is_interactive, is_reproducible, make_agent
from ..agents.human import HumanAgent, QuitRequest, UndoRequest
from ..engine.errors import ReplayError
from ..engine.game import Game
from ..engine.moves import Move
from ..engine.legal import CHANCE
from ..engine.people import distinct_moves
from ..engine.rng import Rng, seed_state
from ..engine.state import State
from .gamelog import LogWriter, LoggedGame, advance, replay_moves
from .play import MoveRecord, PlayResult, SeatingError, Watcher, agent_seed, seat_agents


def table_seats(agents: Sequence[str], players: int, human: int | None = None) -> tuple[list[str], int]:
    """The agent of every seat and the person's seat.

    With `human`, the person sits there and `agents` names the other seats'
    agents (one for all of them, or one each, in seat order); without it,
    `agents` seats everyone and exactly one of them is `human`.  Raises
    SeatingError with what to give instead.
    """
    if human is None:
        seats = [str(a) for a in seat_agents(agents, players, people=True)]
        people = [k for k, a in enumerate(seats) if is_interactive(a)]
        if len(people) != 1:
            raise SeatingError(f"{len(people)} human seats: a table has one person; name `human` once in "
                               f"--agents, or give --human SEAT")
        return seats, people[0]
    if not 0 <= human < players:
        raise SeatingError(f"seat {human} is not a seat of this game (0..{players - 1})")
    if any(is_interactive(a) for a in agents):
        raise SeatingError("--human SEAT seats the person; --agents then names only the other seats' agents")
    others = list(agents) * (players - 1) if len(agents) == 1 else list(agents)
    if len(others) != players - 1:
        raise SeatingError(f"{len(agents)} agents for the {players - 1} other seats: give one agent for all of "
                           f"them, or one per seat other than --human {human}")
    return others[:human] + ["human"] + others[human:], human


def unchecked_seats(seats: Sequence[str]) -> list[int]:
    """The agents' seats whose logged moves a resume cannot check: searches with a time budget."""
    return [k for k, spec in enumerate(seats) if not is_interactive(spec) and not is_reproducible(spec)]


def decision_seed(seed: int, seat: int, n: int) -> int:
    """The seed of seat `seat`'s agent deciding move `n` (1-based) of the game of seed `seed`."""
    return Rng(seed_state(agent_seed(seed, seat))).derive(n)


@dataclass
class Table:
    """A game in progress with a person at seat `human`; `records` are its moves, `state` where they lead."""

    game: Game
    seats: list[str]
    human: int
    seed: int
    records: list[MoveRecord]
    state: State
    log: LogWriter | None = None  # the game's log, kept in step with `records` as they change

    @classmethod
    def new(cls, game: Game, seats: list[str], human: int, seed: int) -> "Table":
        return cls(game, seats, human, seed, [], game.new_state(seed))

    @classmethod
    def resumed(cls, logged: LoggedGame, seats: list[str], human: int) -> "Table":
        """The table of a game read back from its log, once every agent move in it is checked.

        Each agent (every seat no person plays: `ruleplay serve` seats
        several people) is asked again for each move the log gives it, as it was
        asked in play (seeded per decision), and must choose that move: a
        log edited to show an agent playing anything else is a ReplayError
        naming the line.  Costs one more decision per agent move.  A search
        with a time budget (`seconds`) cannot be asked again, as it does not
        decide the same way twice: its moves are taken as the log gives them
        (`unchecked_seats`).
        """
        seed = logged.header["seed"]
        state = logged.game.new_state(seed)
        unchecked = unchecked_seats(seats)
        for record in logged.records:
            who = record.player
            if who != CHANCE and who not in unchecked and not is_interactive(seats[who]):
                chosen = str(make_agent(seats[who], decision_seed(seed, who, record.n)).choose(state))
                if chosen != record.move:
                    raise ReplayError(f"{logged.path}:{record.n + 1}: the log has {seats[who]} at seat {who} play "
                                      f"{record.move}, where it plays {chosen}: the line was changed; continue "
                                      f"from an unchanged log")
            state = advance(f"move {record.n}", logged.game, state, record.move)
        return cls(logged.game, seats, human, seed, list(logged.records), logged.state)

    def agent_move(self, state: State, seat: int) -> Move:
        """The move seat `seat`'s agent makes at `state`, the position after the game's moves so far."""
        return make_agent(self.seats[seat], decision_seed(self.seed, seat, len(self.records) + 1)).choose(state)

    def result(self) -> PlayResult:
        """The game so far as a `PlayResult` (what a log is written from); scores only once it is over."""
        info, state = self.game.info, self.state
        over = state.is_terminal()
        return PlayResult(info.name, info.variant, info.players, self.seed, list(self.seats), list(self.records),
                          state.scores() if over else [], state.returns() if over else [],
                          state.data["flow"]["ended_by"] if over else None)

    def undo(self, seat: int | None = None) -> int | None:
        """Back to the previous decision of the person at `seat` (default: `human`): the move number it was
        made after, or None if there is none.

        A move that was the person's only one (played for them, `HumanAgent`)
        was no decision: undo goes back past it, or it would be played again.
        """
        seat = self.human if seat is None else seat
        states: list[State] = []
        replay_moves(self.game, self.seed, [r.move for r in self.records], states.append)
        mine = [k for k, r in enumerate(self.records)
                if r.player == seat and len(distinct_moves(self.game.model, states[k].legal_moves())) > 1]
        if not mine:
            return None
        kept = mine[-1]
        self.state = states[kept]
        del self.records[kept:]
        self._logged()
        return kept

    def _logged(self) -> None:
        if self.log is not None:
            self.log.keep(self.records)

    def play(self, person: HumanAgent, watch: Watcher | None = None,
             thinking: Callable[[int], None] | None = None) -> str:
        """Play on until the game ends ("end"), the person leaves ("quit") or Ctrl-C ("interrupt").

        `watch(state, record)` sees every move as it is applied, and
        `thinking(seat)` is told when an agent starts to choose.  Whatever
        stops the game, `records` holds only applied moves, and `log` (if
        any) holds them as well.
        """
        try:
            while not self.state.is_terminal():
                state, who = self.state, self.state.current_player
                if who == CHANCE:
                    after = state.apply_chance()
                elif who == self.human:
                    try:
                        after = state.apply(person.choose(state))
                    except UndoRequest:
                        back = self.undo()
                        person.tell("nothing to undo: this is your first decision" if back is None else
                                    f"undone: back to your decision after move {back}" if back else
                                    "undone: back to your first decision")
                        continue
                else:
                    if thinking is not None:
                        thinking(who)
                    after = state.apply(self.agent_move(state, who))
                record = MoveRecord.of(len(self.records) + 1, who, after)
                self.records.append(record)
                self.state = after
                self._logged()
                if watch is not None:
                    watch(after, record)
        except QuitRequest:
            return "quit"
        except KeyboardInterrupt:
            return "interrupt"
        return "end"
