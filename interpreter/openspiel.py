"""`ruleplay.openspiel`: any ruleset as an OpenSpiel game (needs the `rl` extra).

    import pyspiel
    from ruleplay.openspiel import register
    game = pyspiel.load_game(register("my-game.yaml"))   # a built-in name or a path
    # a ruleset that declares its own returns says their range and sum:
    poker = pyspiel.load_game(register("my-poker.yaml", utility=(-2, 2, 0)))

The game itself lives in `ruleplay.adapters.openspiel_game` (a C++ game, where
the ruleset has a native module, in `ruleplay.adapters.openspiel_native`);
`engine_state(state)` is the engine's state of either kind's state; docs/adapters.md
describes its chance, observers and action strings.
"""

from .adapters.openspiel_game import RuleplayGame, RuleplayState, engine_state, register

__all__ = ["RuleplayGame", "RuleplayState", "engine_state", "register"]
