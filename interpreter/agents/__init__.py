"""Agents: what picks the moves in headless play, registered by the names the command line uses.

`simple` holds random, first-legal-move and one-ply greedy agents; search
agents (MCTS, ISMCTS) will sit beside it.  Every agent draws from its own
seeded generator, so a game is a function of its seeds.  `human` asks a
person for each move (`human`): it is `interactive`, played only at a table
(`runs.table`), never in headless runs.  Agents import `engine` only: the console a person
types at is given to the human agent (the command line's escapes its output).
"""

from __future__ import annotations

from typing import Callable

from .base import Agent
from .human import HumanAgent
from .simple import FirstAgent, GreedyAgent, RandomAgent

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "first": FirstAgent,
    "greedy": GreedyAgent,
    "human": HumanAgent,
}


def is_interactive(agent: object) -> bool:
    """Whether `agent` (a registered name or an agent) needs a person to answer it."""
    return bool(getattr(AGENTS.get(agent) if isinstance(agent, str) else agent, "interactive", False))


def make_agent(name: str, seed: int = 0) -> Agent:
    """Build a registered agent; raises ValueError naming the known agents."""
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})")
    return factory(seed)


__all__ = ["AGENTS", "Agent", "FirstAgent", "GreedyAgent", "HumanAgent", "RandomAgent", "is_interactive",
           "make_agent"]
