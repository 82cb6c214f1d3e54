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

`backend="auto"` steps the game on its native module where it has one, and
writes the observation vectors and masks there too (`adapters.held`);
"python" keeps the Python engine, the reference the native path equals.
"""

from __future__ import annotations

import os

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.game import Game
from ..engine.state import State
from .encoding import Encoding
from .games import action_number, game_seeds, resolve
from .held import Handle, Stepper
from .pettingzoo_wrappers import checked

RENDER_MODES = ("ansi", "human")


class raw_env(AECEnv):
    """The unwrapped environment; `env()` adds PettingZoo's order and bounds checks."""

    def __init__(self, game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
                 render_mode: str | None = None, backend: str = "auto"):
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
        self.stepper = Stepper(self.game, self.encoding, backend)
        self.possible_agents = [f"player_{p}" for p in range(info.players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        actions = self._actions = info.num_distinct_actions
        self._action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }) for a in self.possible_agents}
        self._seeds = game_seeds(None)  # reset(seed=…) replaces it; unseeded resets start from the OS's randomness
        self._held: Handle | None = None

    @property
    def game_state(self) -> State | None:
        """The whole state of the game in play (hidden parts included), or None before the first reset.

        On the native backend this is a `State` made from the native one: a
        copy, which the environment does not change as play goes on."""
        return None if self._held is None else self._held.to_state()

    @game_state.setter
    def game_state(self, state: State) -> None:
        """Play on from `state` (a position set up by hand or saved), as the game's own state."""
        self._held = self.stepper.of(state)

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
        too, as `step` takes its actions); anything else is refused rather
        than silently taken for some game (`games.game_seeds`).
        """
        if seed is not None:
            self._seeds = game_seeds(seed)
        self._held = self.stepper.settle(self.stepper.new(self._seeds.next64()))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._to_move(0)]
        self._finish_if_over(self.possible_agents[0])
        self._accumulate_rewards()  # a game over from the start pays out at once

    def step(self, action: int | None) -> None:
        held = self._held
        if held is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self._actions:
            action = action_number(self.game, action, agent)  # an int of the numbering, or refused
        held.apply_action(action)  # an illegal one raises the rules' reason, changing nothing
        if held.is_chance_node():
            self.stepper.settle(held)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if held.is_terminal():
            self._finish_if_over(agent)
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[held.current_player()]
        if self.render_mode == "human":
            self.render()

    def _finish_if_over(self, last: str) -> None:
        """At the end every agent is terminated with its return as reward; the next turn goes round from `last`."""
        if not self._held.is_terminal():
            return
        returns = self._held.returns()
        self.rewards = {a: float(returns[self._seat[a]]) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[(self._seat[last] + 1) % len(self.possible_agents)]

    def _to_move(self, default: int) -> int:
        held = self._held
        return default if held.is_terminal() else held.current_player()

    # -------------------------------------------------------- observations
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        held = self._held
        if held is None:
            raise RuntimeError("call reset() before observe()")
        seat = self._seat_of(agent)
        vector = np.empty(self.encoding.size, dtype=np.float32)
        mask = np.empty(self._actions, dtype=np.int8)
        # a mask only for the seat to move, and never at the end (TERMINAL is no seat)
        self.stepper.observe_masked(held, seat, held.current_player() == seat, vector, mask)
        return {"observation": vector, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._held.to_state().render() if self._held is not None else f"{self.game.info.title}: call reset() first"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no window, file or process."""


def env(game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
        render_mode: str | None = None, backend: str = "auto") -> AECEnv:
    """The environment wrapped in PettingZoo's checks: actions in bounds, reset before step (`pettingzoo_wrappers`:
    PettingZoo's own wrappers, answering its loop directly)."""
    return checked(raw_env(game, players, variant, render_mode, backend))
