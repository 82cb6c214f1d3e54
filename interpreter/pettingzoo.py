"""`ruleplay.pettingzoo`: any ruleset as a PettingZoo AEC environment (needs the `rl` extra).

    from ruleplay.pettingzoo import env
    e = env("my-game.yaml")          # a built-in name or a path; env(game, players=3, render_mode="ansi")
    e.reset(seed=7)

The environment itself lives in `ruleplay.adapters.pettingzoo_env`; docs/adapters.md
describes its spaces, its observation vector and how chance is played.
"""

from .adapters.pettingzoo_env import env, raw_env

__all__ = ["env", "raw_env"]
