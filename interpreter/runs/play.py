"""Playing one whole game headlessly: agents at decision nodes, the seeded RNG at chance nodes.

Everything random in a game follows from its one `seed`: the state's own
generator draws chance outcomes, and seat k's agent is seeded with
`Rng(seed_state(seed)).derive(k)`.  So `play_game(game, agents, seed)` is a
pure function of its arguments — the property simulations and logs rely on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..agents import Agent, is_interactive, make_agent, searches_natively
from ..engine.game import Game
from ..engine.legal import CHANCE
from ..engine.native import Backend
from ..engine.native import plays_on as native_plays_on
from ..engine.outcome import winning_seats
from ..engine.rng import Rng, seed_state
from ..engine.state import State


@dataclass(frozen=True)
class MoveRecord:
    """One applied move: who made it (CHANCE = -1), its text, the rule ids it fired, and who saw what.

    `move` is the full text (the game's own record, which replays it);
    `views[p]` is what seat p was shown, `?` for each argument it may not see.
    """

    n: int  # 1-based move number
    player: int
    move: str
    rules: tuple[str, ...]
    seen_by: tuple | None = None  # per argument, the seats that saw it (None: every argument public)
    views: tuple[str, ...] = ()
    events: tuple[dict, ...] = ()  # what the move's `announce`s told, and to whom (`engine.views.told`)

    @classmethod
    def of(cls, n: int, player: int, state: State) -> "MoveRecord":
        """The record of move `n`, made by `player`, that led to `state`."""
        seen = state.last_seen_by
        views = tuple(state.last_move_view(p) for p in range(state.data["flow"]["players"])) if seen is not None else ()
        return cls(n, player, str(state.last_move), tuple(state.last_fired), seen, views, tuple(state.last_events))


@dataclass
class PlayResult:
    game: str
    variant: str | None
    players: int
    seed: int
    agents: list[str]
    records: list[MoveRecord] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    ended_by: str | None = None  # the end condition's rule id (or label) that ended the game

    @property
    def moves(self) -> list[str]:
        return [r.move for r in self.records]

    @property
    def length(self) -> int:
        """Every applied move, chance outcomes included."""
        return len(self.records)

    @property
    def winners(self) -> list[int]:
        return winning_seats(self.returns)

    def views(self, seat: int) -> list[str]:
        """Every move as `seat` was shown it."""
        return [r.views[seat] if r.views else r.move for r in self.records]

    def to_dict(self) -> dict:
        return {"game": self.game, "variant": self.variant, "players": self.players, "seed": self.seed,
                "agents": self.agents, "moves": self.moves, "scores": self.scores, "returns": self.returns}


def agent_seed(seed: int, seat: int) -> int:
    return Rng(seed_state(seed)).derive(seat)


def game_seed(batch_seed: int, index: int) -> int:
    """The seed of game `index` of a batch: a function of the two alone, so workers and resumes agree."""
    return Rng(seed_state(batch_seed)).derive(index)


class SeatingError(ValueError):
    """As many agents as fit no seating of the game's players."""


def seat_agents(agents: Sequence[str | Agent], players: int, people: bool = False) -> list[str | Agent]:
    """One agent per seat; a single agent is repeated. Raises SeatingError on a count mismatch, and on an
    interactive agent (a person) unless `people` says the game is played at a table (`runs.table`)."""
    if not people and any(is_interactive(a) for a in agents):
        raise SeatingError("the human agent needs a person at the table: play it with "
                           "`ruleplay play GAME --human SEAT` (simulations and headless play run without one)")
    if len(agents) == 1:
        return list(agents) * players
    if len(agents) != players:
        raise SeatingError(f"{len(agents)} agents for {players} players: give one agent, or one per seat")
    return list(agents)


def rotated(agents: Sequence[str], index: int) -> list[str]:
    """The seating of game `index` when seats rotate: seat j holds agent (j + index) mod seats."""
    shift = index % len(agents)
    return list(agents[shift:]) + list(agents[:shift])


def agent_name(agent: str | Agent) -> str:
    return agent if isinstance(agent, str) else type(agent).__name__


Watcher = Callable[[State, MoveRecord | None], None]


def plays_on(game: Game, choice: str, agents: list[str] | None = None, judged: bool = False,
             heuristic: str | None = None) -> Backend:
    """What games of `game` between `agents` play on (`engine.native.plays_on`), search agents counted in.

    A game with a search agent (`mcts`, `ismcts`) is played move by move
    on the Python engine, its search agents searching in the module
    (`agents.searcher`) and its positions judged on the Python engine:
    only the other agents and the module itself then decide where it plays.
    """
    if agents is not None and any(searches_natively(a) for a in agents):
        agents, judged = [a for a in agents if not searches_natively(a)], False
    return native_plays_on(game, choice, agents, judged, heuristic)


def play_game(game: Game, agents: Sequence[str | Agent], seed: int = 0, watch: Watcher | None = None, *,
              in_place: bool = False, backend: str = "python") -> PlayResult:
    """Play one game to its end.

    `agents` are registered names (built fresh, seeded per seat from `seed`) or
    ready agent objects, one per seat or one for all.  `watch(state, record)`
    sees the initial state (record None) and the state after every move.
    Rule errors (step limit, deadlock, a failing rule) propagate to the caller.
    A person (the `human` agent) plays at a table instead: `runs.table`.

    `in_place` plays the whole game on one state changed move by move
    (`State.apply_in_place` without undo): the same game, without a state
    made per move, for agents that keep no state they are shown (the
    registered random and first agents) and no watcher.  `backend` is what
    search agents built from names search on (`agents.make_agent`).
    """
    if in_place and watch is not None:
        raise ValueError("a watcher keeps the states it is shown: play it with in_place=False")
    seats = seat_agents(agents, game.info.players)
    players = [make_agent(a, agent_seed(seed, k), backend) if isinstance(a, str) else a for k, a in enumerate(seats)]
    info = game.info
    result = PlayResult(info.name, info.variant, info.players, seed, [agent_name(a) for a in seats])
    state = game.new_state(seed)
    if watch:
        watch(state, None)
    while not state.is_terminal():
        who = state.current_player
        if who == CHANCE:
            if in_place:
                state.apply_chance_in_place(undo=False)
            else:
                state = state.apply_chance()
        else:
            move = players[who].choose(state)
            if in_place:
                state.apply_in_place(move, undo=False)
            else:
                state = state.apply(move)
        record = MoveRecord.of(len(result.records) + 1, who, state)
        result.records.append(record)
        if watch:
            watch(state, record)
    result.scores = state.scores()
    result.returns = state.returns()
    result.ended_by = state.data["flow"]["ended_by"]
    return result
