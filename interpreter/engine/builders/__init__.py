"""The model builder: ruleset data (after schema checks and variants) compiled into a `GameModel`.

One builder per part of a ruleset, so each part has one obvious home:
`components` (components, boards, graphs), `flow` (state variables, phases,
stages, rounds, triggers), `actions` (parameters, requirements, effects),
`scoring` (end conditions, scores, returns, invariants) and `render` (the
`render:` list).  They share a `context.BuildContext` that holds the data,
the compiler and the diagnostics; `assemble.build_model` runs them in order.
Imports `ruleplay.dsl` and `engine.model` only.
"""

from .assemble import build_model

__all__ = ["build_model"]
