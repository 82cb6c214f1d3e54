"""`ruleplay.pettingzoo`: any ruleset as a PettingZoo AEC environment, or as Gymnasium environments played from
the seat to move, one game or a batch per call (needs the `rl` extra).

    from ruleplay.pettingzoo import env, vector_env
    e = env("my-game.yaml")          # a built-in name or a path; env(game, players=3, render_mode="ansi")
    e.reset(seed=7)
    batch = vector_env("my-game.yaml", num_envs=64)   # a gymnasium.vector.VectorEnv

The environments live in `ruleplay.adapters.pettingzoo_env` and `ruleplay.adapters.gym_env`;
docs/adapters.md describes their spaces, the observation vector and how chance is played.
"""

from .adapters.gym_env import TurnEnv, VectorTurnEnv, turn_env, vector_env
from .adapters.pettingzoo_env import env, raw_env

__all__ = ["TurnEnv", "VectorTurnEnv", "env", "raw_env", "turn_env", "vector_env"]
