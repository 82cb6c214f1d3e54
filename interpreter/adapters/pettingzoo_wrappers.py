"""PettingZoo's two standard checks around the environment, answering its loop without their attribute relays.

`env()` wraps the environment as PettingZoo's classic games are wrapped:
`OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw_env))`.  Those
wrappers find every attribute the loop reads (`agents`,
`agent_selection`, the reward and termination dicts) by a failed lookup
and a `__getattr__` at each level, and check each action with the
action space's `contains`; in a quick game that is most of a step.  The
two classes here are those wrappers (subclasses, so everything that
checks for them finds them) with the calls of PettingZoo's loop
(`agent_iter`, `last`, `step`, `observe`) answered from the environment
itself, with the same checks, the same errors and warnings, and the same
results.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


class CheckedBounds(wrappers.AssertOutOfBoundsWrapper):
    """`AssertOutOfBoundsWrapper`: an int action in the game's range passes at once, anything else is asked of
    the action space, as the wrapper asks it."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped
        self._actions = env.unwrapped.game.info.num_distinct_actions

    def step(self, action: Any) -> None:
        raw = self._raw
        if type(action) is int and 0 <= action < self._actions:  # what Discrete(n).contains says of an int
            raw.step(action)
        elif action is None and raw._held is not None and (raw.terminations.get(raw.agent_selection)
                                                           or raw.truncations.get(raw.agent_selection)):
            raw.step(None)  # the step PettingZoo's loop makes for each agent whose game is over
        else:
            super().step(action)


class CheckedOrder(wrappers.OrderEnforcingWrapper):
    """`OrderEnforcingWrapper` whose loop (`agent_iter`, `last`, `step`, `observe`) reads the environment directly:
    `checked` puts it right around `CheckedBounds`, which changes none of them but `step` (an int action in range
    it passes at once, so this passes it at once too)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped
        self._actions = env.unwrapped.game.info.num_distinct_actions

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            super().agent_iter(max_iter)  # raises PettingZoo's error
        return _Agents(self, max_iter)

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            return super().observe(agent)  # raises PettingZoo's error
        return self._raw.observe(agent)

    def step(self, action: Any) -> None:
        raw = self._raw
        if self._has_reset and raw.agents:
            self._has_updated = True
            if type(action) is int and 0 <= action < self._actions:  # what the bounds check passes at once
                raw.step(action)
            else:
                self.env.step(action)
        else:
            super().step(action)  # PettingZoo's error or warning


class _Agents(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """`AECOrderEnforcingIterator`, reading the agents from the environment itself."""

    def __init__(self, env: CheckedOrder, max_iter: int):
        super().__init__(env, max_iter)
        self._raw = env._raw

    def __next__(self) -> Any:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        env = self.env
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


def checked(env: AECEnv) -> AECEnv:
    """`env` in PettingZoo's standard checks: actions in bounds, reset before anything else, step once per turn."""
    return CheckedOrder(CheckedBounds(env))
