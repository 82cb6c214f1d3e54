"""Simple agents for headless play: random, first legal move, one-ply greedy.

Agents draw from their own `engine.rng.Rng`, never from Python's `random`,
so a game played with the same seeds picks the same moves in any process and
on any Python version — simulations and logs replay exactly.
"""

from __future__ import annotations

from ..engine.errors import LimitError, StepLimitError
from ..engine.moves import Move
from ..engine.outcome import is_draw, winning_seats
from ..engine.rng import Rng, seed_state
from ..engine.scoring import heuristic_values
from ..engine.state import State
from .base import no_moves_error
from .search import resolve_heuristic
from .spec import Option

GREEDY_OPTIONS = (Option("heuristic", str, None, "the ruleset's heuristic to maximise (default: its first)"),)


class RandomAgent:
    """Uniform over the legal moves."""

    def __init__(self, seed: int = 0):
        self.rng = Rng(seed_state(seed))

    def choose(self, state: State) -> Move:
        moves = state.legal_moves()
        if not moves:
            raise no_moves_error(state)
        return moves[self.rng.below(len(moves))]


class FirstAgent:
    """The first legal move in the ruleset's order: fully predictable, handy in tests."""

    def __init__(self, seed: int = 0):
        del seed  # deterministic; accepts a seed so every agent is built the same way

    def choose(self, state: State) -> Move:
        moves = state.legal_moves()
        if not moves:
            raise no_moves_error(state)
        return moves[0]


class GreedyAgent:
    """One-ply lookahead: take a winning move if there is one, else avoid losing at once.

    Each legal move is tried.  A move that ends the game as a win (this
    player's return is the best and beats someone's, as `simulate` counts
    wins) is preferred, the highest own return first.  Otherwise the agent
    picks at random among the moves that do not end the game as a loss: moves
    that keep the game going or end it in a draw.  If every move loses, any move.
    When the ruleset declares `heuristics:`, the safe moves that keep the game
    going are narrowed to those after which the heuristic rates this seat
    highest (a draw counts as no better than them).
    """

    def __init__(self, seed: int = 0, heuristic: str | None = None):
        self.rng = Rng(seed_state(seed))
        self.heuristic = heuristic

    def choose(self, state: State) -> Move:
        moves = state.legal_moves()
        if not moves:
            raise no_moves_error(state)
        me = state.current_player
        wins: list[tuple[float, Move]] = []
        safe: list[Move] = []
        rated: list[tuple[float, Move]] = []  # safe moves that keep the game going, with the heuristic after them
        heuristic = resolve_heuristic(state, self.heuristic)
        lookahead = state.game.model.decision_budget()  # one bound for the whole decision
        for move in moves:
            try:
                after = state.apply(move, budget=lookahead)
            except StepLimitError:
                raise  # the game passes max_steps with any move: the game's limit, not the look-ahead's budget
            except LimitError as err:
                raise LimitError(f"the greedy agent's look-ahead over {len(moves)} moves passed "
                                 f"limits.iterations_per_decision: {err.message}", err.pos,
                                 hint="raise limits.iterations_per_decision, or use the random agent") from None
            if not after.is_terminal():
                safe.append(move)
                if heuristic is not None:
                    rated.append((heuristic_values(state.game.model, after.data, heuristic)[me], move))
                continue
            returns = after.returns()
            if is_draw(returns):
                safe.append(move)
            elif me in winning_seats(returns):
                wins.append((returns[me], move))
        if wins:
            best = max(value for value, _ in wins)
            top = [move for value, move in wins if value == best]
            return top[self.rng.below(len(top))]
        if rated:
            best = max(value for value, _ in rated)
            safe = [move for value, move in rated if value == best]
        pool = safe or moves
        return pool[self.rng.below(len(pool))]
