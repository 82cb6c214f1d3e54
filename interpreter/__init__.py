"""ruleplay: a rules-as-data game engine.

    from ruleplay import load_game, CHANCE
    game = load_game("my-game.yaml", players=2)   # a path, or a built-in name (`ruleplay list`)
    state = game.new_state(seed=7)

The package is layered; each subpackage's docstring says what it may import
(`docs/architecture.md` has the map): `engine` (the game model and play),
`agents`, `runs` (playing many games and what they produce), `authoring`
(scenarios and mutation testing), `view`, `adapters` (PettingZoo and
OpenSpiel, entered as `ruleplay.pettingzoo` and `ruleplay.openspiel`, with
the `rl` extra), `cli`, beside the language
(`ruleplay.dsl`) and the checks (`ruleplay.validators`).
"""

from .engine.errors import (
    DeadlockError,
    FileInUseError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    OutputError,
    ReplayError,
    ResultsFileError,
    RuleplayError,
    RuleRuntimeError,
    RulesetError,
    SeatError,
    StateFormatError,
    StepLimitError,
)
from .engine.game import ENGINE_VERSION, Game, GameInfo, load_game
from .engine.legal import CHANCE, TERMINAL
from .engine.moves import Move, parse_move
from .engine.state import State

__version__ = ENGINE_VERSION

__all__ = [
    "load_game", "Game", "GameInfo", "State", "Move", "parse_move", "CHANCE", "TERMINAL",
    "RuleplayError", "RulesetError", "RuleRuntimeError", "IllegalMoveError", "MoveParseError", "GameOverError",
    "SeatError", "StateFormatError", "ReplayError", "ResultsFileError", "OutputError", "FileInUseError",
    "StepLimitError", "DeadlockError", "__version__",
]
