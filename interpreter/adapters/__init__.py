"""Adapters: ruleplay games inside other frameworks' APIs, so their tools and test suites run on them.

`pettingzoo_env` is a PettingZoo AEC environment for any ruleset, `gym_env`
Gymnasium environments (one game, or a batch per call) played from the seat
to move, `held` the native or Python state they step,
`openspiel_game` registers a ruleset as an OpenSpiel (pyspiel) game, and
`encoding` is the fixed-length numeric observation both use.  Each adapter
imports its framework inside its own module only, so `import ruleplay`
never needs PettingZoo or OpenSpiel; they come with the `rl` extra.  The
thin modules `ruleplay.pettingzoo` and `ruleplay.openspiel` are the entry
points.  Imports `engine`, `agents`, `runs` and `view`.
"""
