"""Any ruleset as a PettingZoo AEC environment: agents take turns, chance is played by the environment.

The agents are "player_0" .. "player_{N-1}", one per seat.  Every agent has
the same fixed `Discrete` action space: the game's action numbering
(`Game.move_to_index`), in which every move of the ruleset has its own
number.  An observation is a dict with the `observation` vector
(`adapters.encoding`, built from `State.observe(seat)` only, so hidden
information stays hidden) and the `action_mask` of the moves legal now (all
zeros for an agent not to move), as PettingZoo's classic games do.

Chance nodes never reach an agent: after reset and after every move the
environment plays them with the state's own generator, which
`reset(seed=…)` seeds, so one seed gives one game for the same actions.
Rewards come once, at the end: each seat's `State.returns()`.  The game's
step limit (`limits.max_steps`) ends a runaway game inside the engine, so
there is no truncation.

`ansi` renders the text picture of `State.render()` (the all-seeing view of
a spectator, as a board game on a table); `human` prints it.
"""

from __future__ import annotations

import numbers
import os
import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine.game import Game
from ..engine.rng import check_seed
from ..engine.state import State
from .encoding import Encoding
from .games import numbered_move, resolve

RENDER_MODES = ("ansi", "human")


def _whole_seed(seed: object) -> int:
    """`seed` as the int the engine checks: a numpy integer (numbers.Integral) is a whole number like an
    int, and is taken as one; a bool is not a seed, and the engine refuses the rest."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        seed = int(seed)
    check_seed(seed)
    return seed  # type: ignore[return-value]  # check_seed let only an int through


class raw_env(AECEnv):
    """The unwrapped environment; `env()` adds PettingZoo's order and bounds checks."""

    def __init__(self, game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not one of {', '.join(RENDER_MODES)} (or None)")
        self.game = resolve(game, players, variant)
        self.render_mode = render_mode
        info = self.game.info
        suffix = "" if info.variant is None else f"-{info.variant}"
        self.metadata = {"render_modes": list(RENDER_MODES), "name": f"ruleplay-{info.name}{suffix}-{info.players}p",
                         "is_parallelizable": False}
        self.encoding = Encoding(self.game)
        self.possible_agents = [f"player_{p}" for p in range(info.players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        actions = info.num_distinct_actions
        self._action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }) for a in self.possible_agents}
        self._seeds = random.Random()  # reset(seed=…) replaces it; unseeded resets draw from the OS
        self.game_state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        self._seat_of(agent)  # any other name is a ValueError naming the agents
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        self._seat_of(agent)
        return self._action_spaces[agent]

    def _seat_of(self, agent: str) -> int:
        """The seat of `agent`; a name that is none of this game's agents is a ValueError naming them."""
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"{agent!r} is not an agent of this game: the agents are {', '.join(self.possible_agents)}")
        return seat

    # ----------------------------------------------------------------- play
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: `seed` fixes it (and the seeds of the resets after it); None draws a fresh one.

        A seed is a whole number 0..2^64-1, as the engine's (a numpy integer
        too, as `step` takes its actions): `random.Random` would also take -1
        for 1, True for 1 and any text, each silently a game.
        """
        if seed is not None:
            self._seeds = random.Random(_whole_seed(seed))
        self.game_state = self._settle(self.game.new_state(seed=self._seeds.getrandbits(63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._to_move(self.game_state, 0)]
        self._finish_if_over(self.possible_agents[0])
        self._accumulate_rewards()  # a game over from the start pays out at once

    def step(self, action: int | None) -> None:
        if self.game_state is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        move = numbered_move(self.game, action, agent)  # `apply` refuses it with the rules' reason if not legal now
        self._cumulative_rewards[agent] = 0.0
        self.game_state = self._settle(state.apply(move, self._seat[agent]))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.agent_selection = self.possible_agents[self._to_move(self.game_state, self._seat[agent])]
        self._finish_if_over(agent)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish_if_over(self, last: str) -> None:
        """At the end every agent is terminated with its return as reward; the next turn goes round from `last`."""
        if not self.game_state.is_terminal():
            return
        returns = self.game_state.returns()
        self.rewards = {a: float(returns[self._seat[a]]) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[(self._seat[last] + 1) % len(self.possible_agents)]

    @staticmethod
    def _settle(state: State) -> State:
        """Play every chance node from the state's own seeded generator, up to a seat's turn or the end."""
        while state.is_chance_node():
            state = state.apply_chance()
        return state

    @staticmethod
    def _to_move(state: State, default: int) -> int:
        return state.current_player if not state.is_terminal() else default

    # -------------------------------------------------------- observations
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise RuntimeError("call reset() before observe()")
        seat = self._seat_of(agent)
        vector = np.asarray(self.encoding.encode(self.game_state.observe(seat)), dtype=np.float32)
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if not self.game_state.is_terminal() and self.game_state.current_player == seat:
            mask[self.game_state.legal_actions()] = 1
        return {"observation": vector, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.game_state.render() if self.game_state is not None else f"{self.game.info.title}: call reset() first"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no window, file or process."""


def env(game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The environment wrapped in PettingZoo's checks: actions in bounds, reset before step."""
    wrapped: AECEnv = raw_env(game, players, variant, render_mode)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
