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
  nodes are played inside with the state's own seeded generator.  A batch
  also lists each game's legal actions (`VectorTurnEnv.legal_actions()`), so
  that drawing among them needs no pass over its masks.
- Reward: the return of the seat that moved when its move ends the game,
  else 0; `info["returns"]` holds every seat's return at that step (the
  other seats' rewards in self-play).  The engine's step limit ends a
  runaway game, so nothing is truncated.
- Seeds: `reset(seed=s)` fixes game i of a batch with seed s + i (as
  `SyncVectorEnv` seeds its environments) and the games after it;
  autoreset is Gymnasium's default, next-step: the step after a game ended
  starts the next game of that slot and ignores its action.
- Copies: the vector API asks for none; `SyncVectorEnv(copy=True)`, its
  default, hands out a copy of the batch's observations at each step and
  reset, and so does `VectorTurnEnv`.  With `copy=False` both hand out their
  own buffers, which the next step rewrites; `VectorTurnEnv`'s are read-only
  views (the native batch clears only what a row's last observation wrote, so
  a write into them would show in later observations).
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
from ..engine.native.batch_step import BatchArrays
from ..engine.rng import Rng
from .encoding import Encoding
from .games import game_seeds, resolve, whole_seed
from .held import Handle, Stepper


def _single_spaces(game: Game, encoding: Encoding) -> tuple[spaces.Dict, spaces.Discrete]:
    actions = game.info.num_distinct_actions
    observation = spaces.Dict({"observation": spaces.Box(-np.inf, np.inf, (encoding.size,), np.float32),
                               "action_mask": spaces.Box(0, 1, (actions,), np.int8)})
    return observation, spaces.Discrete(actions)


class _Games:
    """The games of one environment's slots, each with its own seed generator, stepped and observed in Python."""

    def __init__(self, game: Game | str | os.PathLike, players: int | None, variant: str | None, backend: str,
                 slots: int):
        self.game = resolve(game, players, variant)
        self.encoding = Encoding(self.game)
        self.stepper = Stepper(self.game, self.encoding, backend)
        self.actions = self.game.info.num_distinct_actions
        # each slot's seed generator state (SplitMix64, as `game_seeds`): reset(seed=…) replaces them
        self.rngs = np.array([game_seeds(None).state for _ in range(slots)], np.uint64)
        self.held: list[Handle | None] = [None] * slots
        self.last = [0] * slots  # the seat that made each game's last move

    def reseed(self, slot: int, seed: Any) -> None:
        if seed is not None:
            self.rngs[slot] = game_seeds(seed).state

    def start(self, slot: int, seed: int | None = None) -> int:
        """A new game in `slot` (of `seed`, else the next seed of the slot's generator); the seat to move (or
        TERMINAL)."""
        if seed is None:
            rng = Rng(int(self.rngs[slot]))
            seed = rng.next64()
            self.rngs[slot] = rng.state
        held = self.held[slot] = self.stepper.settle(self.stepper.new(seed))
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
    """`num_envs` games stepped per call, as `SyncVectorEnv` over as many `TurnEnv`s answers.

    Where the game has a native module that writes its views, one native call steps every game
    (`NativeBatch`): moves, chance, autoreset, rewards, observations and masks.  A game the module hands back
    (a rule error, a limit, a view it cannot write) is stepped in Python on the engine's own handle until it
    ends; its slot's next game is native again."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: Game | str | os.PathLike, num_envs: int, players: int | None = None,
                 variant: str | None = None, backend: str = "auto", copy: bool = True):
        """`copy`: as `SyncVectorEnv`'s, whether reset and step hand out copies of the observations (else
        read-only views of the batch's own arrays, rewritten by the next step)."""
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        if type(copy) is not bool:
            raise ValueError(f"copy must be True or False, not {copy!r}")
        self.num_envs = num_envs
        self.copy = copy
        self.games = _Games(game, players, variant, backend, num_envs)
        self.single_observation_space, self.single_action_space = _single_spaces(self.games.game,
                                                                                 self.games.encoding)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        players = self.games.game.model.players
        self._arrays = BatchArrays(
            actions=np.zeros(num_envs, np.int64), rngs=self.games.rngs, mine=np.zeros(num_envs, np.int8),
            over=np.zeros(num_envs, np.int8), rewards=np.zeros(num_envs, np.float64),
            returns=np.zeros((num_envs, players), np.float64), movers=np.zeros(num_envs, np.int64),
            observations=np.zeros((num_envs, self.games.encoding.size), np.float32),
            masks=np.zeros((num_envs, self.games.actions), np.int8), nlegal=np.zeros(num_envs, np.int64),
            legal=np.full((num_envs, self.games.actions), -1, np.int32))
        self._views = {"observation": _read_only(self._arrays.observations),
                       "action_mask": _read_only(self._arrays.masks)}
        self._native = self.games.stepper.batch(self._arrays)  # None where the games are stepped in Python
        self._in_python: set[int] = set()  # the slots whose games the native batch handed back, till they end
        self._arrays.mine[:] = self._native is not None
        self._started = False

    def reset(self, *, seed: int | list | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Every game anew; `seed` an int (game i gets seed + i), a list of one per game, or None."""
        seeds = seed if isinstance(seed, (list, tuple)) else [None if seed is None else seed + i
                                                            for i in range(self.num_envs)]
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset() takes one seed per game: {len(seeds)} for {self.num_envs} games")
        for slot, slot_seed in enumerate(seeds):
            self.games.reseed(slot, slot_seed)
        self._arrays.over[:] = 1  # every slot sets up its next game, from its generator
        self._step()
        self._started = True
        return self._batch(), self._infos()

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One move in every game (a game that ended at the last step starts anew instead)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step() takes one action per game, shape ({self.num_envs},), not {actions.shape}")
        arrays = self._arrays
        if actions.dtype.kind in "iu":  # one past int64 wraps, and is refused below by its own value
            np.copyto(arrays.actions, actions, casting="unsafe")
        else:  # each as int() takes it, as every game's own step would; one outside the numbering is refused below
            actions = np.array([int(a) for a in actions.tolist()], object)
            arrays.actions[:] = [a if 0 <= a < self.games.actions else -1 for a in actions.tolist()]
        self._step(actions)
        ended = arrays.over.astype(np.bool_)
        return (self._batch(), arrays.rewards.copy(), ended, np.zeros(self.num_envs, np.bool_),
                self._infos(ended))

    def _refuse(self, actions: np.ndarray, slot: int) -> None:
        """Raise for game `slot`'s action, outside the game's numbering or not legal there (the rules say why)."""
        action = int(actions[slot])
        if not 0 <= action < self.games.actions:
            raise IllegalMoveError(action, f"an action is an int 0..{self.games.actions - 1}", "RP604")
        handle = self._native.replay(slot) if self._arrays.mine[slot] else self.games.held[slot]
        handle.clone().apply_action(action)  # raises the rules' reason
        raise AssertionError(f"game {slot}'s mask refused its move {action}, which its rules take")

    def _step(self, actions: np.ndarray | None = None) -> None:
        """Every game's step (the set-up of its next game where `over` says it ended), each action checked
        against the game's mask before any game moves: natively where the batch holds the game, the rest in
        Python.  `actions` (as the caller gave them) None: no game goes on (a reset)."""
        games, arrays, native = self.games, self._arrays, self._native
        over, mine = arrays.over, arrays.mine
        arrays.returns.fill(0.0)
        if native is None:
            if actions is not None:
                chosen, live = arrays.actions, over == 0
                refused = live & ((chosen < 0) | (chosen >= games.actions))
                marked = arrays.masks[np.arange(self.num_envs), np.where(refused, 0, chosen)]
                refused |= live & (marked == 0)
                if refused.any():
                    self._refuse(actions, int(np.flatnonzero(refused)[0]))
        else:
            in_python = self._in_python
            for slot in [slot for slot in in_python if over[slot]]:  # ended: the slot's next game is native again
                games.held[slot] = None
                mine[slot] = 1
                in_python.remove(slot)
            handed = native.step()
            if handed < 0:
                self._refuse(actions, -1 - handed)
            if handed > 0:
                for slot in np.flatnonzero(mine == 0).tolist():
                    if slot not in in_python:  # handed back: made again on the engine's handle
                        games.held[slot] = None if over[slot] else native.replay(slot)
                        in_python.add(slot)
            if not in_python:
                return
        for slot in np.flatnonzero(mine == 0).tolist():
            self._step_in_python(slot, int(arrays.actions[slot]))

    def _step_in_python(self, slot: int, action: int) -> None:
        games, arrays = self.games, self._arrays
        if arrays.over[slot]:
            seed = None if self._native is None else self._native.seed(slot)
            arrays.movers[slot] = games.start(slot, seed)
            arrays.rewards[slot] = 0.0
            arrays.over[slot] = 0
        else:
            arrays.rewards[slot], ended, arrays.movers[slot] = games.step(slot, action)
            arrays.over[slot] = ended
            if ended:
                arrays.returns[slot] = games.held[slot].returns()
        games.observe_into(slot, arrays.observations[slot], arrays.masks[slot])
        held, row, was = games.held[slot], arrays.legal[slot], int(arrays.nlegal[slot])
        legal = [] if held.is_terminal() else held.legal_actions()
        row[:len(legal)] = legal
        row[len(legal):was] = -1
        arrays.nlegal[slot] = len(legal)

    def legal_actions(self) -> tuple[np.ndarray, np.ndarray]:
        """Each game's legal actions, as OpenSpiel's `legal_actions()` lists one game's, without a pass over the
        masks: `(counts, actions)`, where row i of `actions` holds game i's `counts[i]` legal actions in the order
        the rules list them, then -1s (none where the game is over), and is as wide as the largest count.  As the
        observations: copies, or read-only views that the next step rewrites."""
        counts = self._arrays.nlegal
        actions = self._arrays.legal[:, :int(counts.max())]
        if self.copy:
            return counts.copy(), actions.copy()
        return _read_only(counts), _read_only(actions)

    def _batch(self) -> dict:
        if not self.copy:
            return dict(self._views)
        return {"observation": self._arrays.observations.copy(), "action_mask": self._arrays.masks.copy()}

    def _infos(self, ended: np.ndarray | None = None) -> dict:
        """The infos as `SyncVectorEnv` gathers them: each key an array over the games, `_key` where it is set."""
        infos: dict[str, Any] = {"player": self._arrays.movers.copy(), "_player": np.ones(self.num_envs, np.bool_)}
        if ended is not None and ended.any():
            infos |= {"returns": self._arrays.returns.copy(), "_returns": ended.copy()}
        return infos


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def turn_env(game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None,
             backend: str = "auto", render_mode: str | None = None) -> TurnEnv:
    """One game as a Gymnasium environment played from the seat to move."""
    return TurnEnv(game, players, variant, backend, render_mode)


def vector_env(game: Game | str | os.PathLike, num_envs: int, players: int | None = None,
               variant: str | None = None, backend: str = "auto", copy: bool = True) -> VectorTurnEnv:
    """`num_envs` games of one ruleset as a Gymnasium vector environment (next-step autoreset); `copy` as
    `SyncVectorEnv`'s."""
    return VectorTurnEnv(game, num_envs, players, variant, backend, copy)
