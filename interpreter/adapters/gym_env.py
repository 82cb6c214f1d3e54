"""Any ruleset as Gymnasium environments played from the seat to move: one game, or a batch stepped per call.

Learning libraries batch their environments through Gymnasium's vector API
(`gymnasium.vector.VectorEnv`: CleanRL, Stable-Baselines3's wrappers,
RLlib, TorchRL, PufferLib all take one), which is single-agent.  A
turn-based game of N seats fits it as self-play: the observation is that
of the seat to move, the action is that seat's move, and `info["player"]`
says which seat it is.  `TurnEnv` is one game as a `gymnasium.Env`;
`VectorTurnEnv` is `num_envs` games stepped per call, natively where the
game has a native module, and answers exactly as
`gymnasium.vector.SyncVectorEnv` over `num_envs` `TurnEnv`s does (seeds,
autoreset and infos included), only without a Python environment per game.

- Observation: the PettingZoo environment's `{"observation", "action_mask"}`
  (`adapters.encoding`) of the seat to move; when the game is over, of the
  seat that made the last move, with an empty mask.
- Action: `Discrete(num_distinct_actions)`, the game's numbering.  Chance
  nodes are played inside with the state's own seeded generator.
- Reward: the return of the seat that moved when its move ends the game,
  else 0; `info["returns"]` holds every seat's return at that step (the
  other seats' rewards in self-play).  The engine's step limit ends a
  runaway game, so nothing is truncated.
- Seeds: `reset(seed=s)` fixes game i of a batch with seed s + i (as
  `SyncVectorEnv` seeds its environments) and the games after it;
  autoreset is Gymnasium's default, next-step: the step after a game ended
  starts the next game of that slot and ignores its action.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from ..engine.errors import IllegalMoveError
from ..engine.game import Game
from ..engine.legal import TERMINAL
from .encoding import Encoding
from .games import game_seeds, resolve, whole_seed
from .held import BatchView, Handle, Stepper


def _single_spaces(game: Game, encoding: Encoding) -> tuple[spaces.Dict, spaces.Discrete]:
    actions = game.info.num_distinct_actions
    observation = spaces.Dict({"observation": spaces.Box(-np.inf, np.inf, (encoding.size,), np.float32),
                               "action_mask": spaces.Box(0, 1, (actions,), np.int8)})
    return observation, spaces.Discrete(actions)


class _Games:
    """The games of one environment's slots, each with its own seed sequence, and their observations."""

    def __init__(self, game: Game | str | os.PathLike, players: int | None, variant: str | None, backend: str,
                 slots: int):
        self.game = resolve(game, players, variant)
        self.encoding = Encoding(self.game)
        self.stepper = Stepper(self.game, self.encoding, backend)
        self.actions = self.game.info.num_distinct_actions
        self.seeds = [game_seeds(None) for _ in range(slots)]  # reset(seed=…) replaces them
        self.held: list[Handle | None] = [None] * slots
        self.last = [0] * slots  # the seat that made each game's last move

    def reseed(self, slot: int, seed: Any) -> None:
        if seed is not None:
            self.seeds[slot] = game_seeds(seed)

    def start(self, slot: int) -> int:
        """A new game in `slot`, from that slot's seed sequence; the seat to move (or TERMINAL)."""
        held = self.held[slot] = self.stepper.settle(self.stepper.new(self.seeds[slot].next64()))
        self.last[slot] = 0
        return TERMINAL if held.is_terminal() else held.current_player()

    def step(self, slot: int, action: Any) -> tuple[float, bool, int]:
        """The move `action` of the seat to move in `slot`: its reward, whether the game ended, who moves now."""
        held = self.held[slot]
        if type(action) is not int and isinstance(action, np.integer):
            action = int(action)
        if type(action) is not int or not 0 <= action < self.actions:
            raise IllegalMoveError(action, f"an action is an int 0..{self.actions - 1}", "RP604")
        seat = held.current_player()
        held.apply_action(action)  # an illegal one raises the rules' reason, changing nothing
        if held.is_chance_node():
            self.stepper.settle(held)
        self.last[slot] = seat
        if not held.is_terminal():
            return 0.0, False, held.current_player()
        return float(held.returns()[seat]), True, TERMINAL

    def observe_into(self, slot: int, observation: np.ndarray, mask: np.ndarray) -> None:
        """Slot `slot`'s observation (of the seat to move, else of the last mover) and mask, into the rows."""
        held = self.held[slot]
        over = held.is_terminal()
        self.stepper.observe_masked(held, self.last[slot] if over else held.current_player(), not over, observation,
                                    mask)


class TurnEnv(gymnasium.Env):
    """One game as a Gymnasium environment, played by whichever seat is to move (self-play)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
                 backend: str = "auto", render_mode: str | None = None):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not ansi (or None)")
        self.render_mode = render_mode
        self.games = _Games(game, players, variant, backend, 1)
        self.observation_space, self.action_space = _single_spaces(self.games.game, self.games.encoding)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.games.reseed(0, seed)  # checks it first: gymnasium's generator would take -1 or True
        super().reset(seed=None if seed is None else whole_seed(seed))  # np_random, which play does not use
        player = self.games.start(0)
        return self._observation(), {"player": player}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        if self.games.held[0] is None:
            raise RuntimeError("call reset() before step()")
        if self.games.held[0].is_terminal():
            raise RuntimeError("the game is over: call reset() to start the next one")
        reward, over, player = self.games.step(0, action)
        info: dict[str, Any] = {"player": player}
        if over:
            info["returns"] = np.asarray(self.games.held[0].returns(), np.float64)
        return self._observation(), reward, over, False, info

    def _observation(self) -> dict:
        size, actions = self.games.encoding.size, self.games.actions
        observation, mask = np.empty(size, np.float32), np.empty(actions, np.int8)
        self.games.observe_into(0, observation, mask)
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        held = self.games.held[0]
        if self.render_mode is None:
            return None
        return held.to_state().render() if held is not None else f"{self.games.game.info.title}: call reset() first"


class VectorTurnEnv(VectorEnv):
    """`num_envs` games stepped per call, as `SyncVectorEnv` over as many `TurnEnv`s answers."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: Game | str | os.PathLike, num_envs: int, players: int | None = None,
                 variant: str | None = None, backend: str = "auto"):
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        self.num_envs = num_envs
        self.games = _Games(game, players, variant, backend, num_envs)
        self.single_observation_space, self.single_action_space = _single_spaces(self.games.game,
                                                                                 self.games.encoding)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._observations = np.zeros((num_envs, self.games.encoding.size), np.float32)
        self._masks = np.zeros((num_envs, self.games.actions), np.int8)
        self._players = np.zeros(num_envs, np.int64)
        self._over = np.zeros(num_envs, np.bool_)
        self._seats = np.zeros(num_envs, np.int32)  # the seat each game is observed from
        self._masked = np.zeros(num_envs, np.int8)  # which games have a mask (those not over)
        self._view = BatchView(self.games.stepper, num_envs)

    def reset(self, *, seed: int | list | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Every game anew; `seed` an int (game i gets seed + i), a list of one per game, or None."""
        seeds = seed if isinstance(seed, (list, tuple)) else [None if seed is None else seed + i
                                                            for i in range(self.num_envs)]
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset() takes one seed per game: {len(seeds)} for {self.num_envs} games")
        for slot, slot_seed in enumerate(seeds):
            self.games.reseed(slot, slot_seed)
            self._players[slot] = self.games.start(slot)
        self._over[:] = False
        self._observe()
        return self._batch(), self._infos(None)

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One move in every game (a game that ended at the last step starts anew instead)."""
        if self.games.held[0] is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step() takes one action per game, shape ({self.num_envs},), not {actions.shape}")
        # each as int() takes it, as every game's own step would
        chosen = actions.tolist() if actions.dtype.kind in "iu" else [int(a) for a in actions]
        rewards = np.zeros(self.num_envs, np.float64)
        ended = np.zeros(self.num_envs, np.bool_)
        games, players, over = self.games, self._players, self._over.tolist()
        for slot, action in enumerate(chosen):
            if over[slot]:
                players[slot] = games.start(slot)
            else:
                rewards[slot], ended[slot], players[slot] = games.step(slot, action)
        self._over = ended
        self._observe()
        return self._batch(), rewards, ended.copy(), np.zeros(self.num_envs, np.bool_), self._infos(ended)

    def _observe(self) -> None:
        """Every game's observation and mask into the batch's rows: of the seat to move, else of the last mover."""
        over = self._over
        np.copyto(self._seats, np.where(over, self.games.last, self._players))
        np.copyto(self._masked, ~over)
        self._view.write(self.games.held, self._seats, self._masked, self._observations, self._masks)

    def _batch(self) -> dict:
        return {"observation": self._observations.copy(), "action_mask": self._masks.copy()}

    def _infos(self, ended: np.ndarray | None) -> dict:
        """The infos as `SyncVectorEnv` gathers them: each key an array over the games, `_key` where it is set."""
        infos: dict[str, Any] = {"player": self._players.copy(), "_player": np.ones(self.num_envs, np.bool_)}
        if ended is not None and ended.any():
            returns = np.zeros((self.num_envs, self.games.game.model.players), np.float64)
            for slot in np.flatnonzero(ended):
                returns[slot] = self.games.held[slot].returns()
            infos |= {"returns": returns, "_returns": ended.copy()}
        return infos


def turn_env(game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
             backend: str = "auto", render_mode: str | None = None) -> TurnEnv:
    """One game as a Gymnasium environment played from the seat to move."""
    return TurnEnv(game, players, variant, backend, render_mode)


def vector_env(game: Game | str | os.PathLike, num_envs: int, players: int | None = None,
               variant: str | None = None, backend: str = "auto") -> VectorTurnEnv:
    """`num_envs` games of one ruleset as a Gymnasium vector environment (next-step autoreset)."""
    return VectorTurnEnv(game, num_envs, players, variant, backend)
