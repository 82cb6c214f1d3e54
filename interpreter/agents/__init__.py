"""Agents: what picks the moves in headless play, registered by the names the command line uses.

`simple` holds random, first-legal-move and one-ply greedy agents; search
agents (MCTS, ISMCTS) will sit beside it.  Every agent draws from its own
seeded generator, so a game is a function of its seeds.  Agents import
`engine` only: a human player's terminal input and output live in `cli`.
"""

from __future__ import annotations

from typing import Callable

from .base import Agent
from .simple import FirstAgent, GreedyAgent, RandomAgent

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "first": FirstAgent,
    "greedy": GreedyAgent,
}


def make_agent(name: str, seed: int = 0) -> Agent:
    """Build a registered agent; raises ValueError naming the known agents."""
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})")
    return factory(seed)


__all__ = ["AGENTS", "Agent", "FirstAgent", "GreedyAgent", "RandomAgent", "make_agent"]
