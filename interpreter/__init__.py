"""ruleplay: a rules-as-data game engine.

    from ruleplay import load_game, CHANCE
    game = load_game("my-game.yaml", players=2)   # a path, or a built-in name (`ruleplay list`)
    state = game.new_state(seed=7)
"""

from .errors import (
    DeadlockError, GameOverError, IllegalMoveError, MoveParseError, ReplayError, ResultsFileError, RuleplayError,
    RulesetError, StateFormatError, StepLimitError,
)
from .game import ENGINE_VERSION, Game, GameInfo, load_game
from .legal import CHANCE, TERMINAL
from .moves import Move, parse_move
from .state import State

__version__ = ENGINE_VERSION

__all__ = [
    "load_game", "Game", "GameInfo", "State", "Move", "parse_move", "CHANCE", "TERMINAL",
    "RuleplayError", "RulesetError", "IllegalMoveError", "MoveParseError", "GameOverError",
    "StateFormatError", "ReplayError", "ResultsFileError", "StepLimitError", "DeadlockError", "__version__",
]
