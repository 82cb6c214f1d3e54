"""What the type checker inferred about a ruleset, kept for an editor to show (hover).

The checker (`validators.types`) fills this in on a pass of its own when
asked (`inferred_types`); a validation keeps none of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleplay.dsl import ast as A

from .typelattice import Type


@dataclass
class InferredTypes:
    """What the checker inferred, kept for an editor to show: the type of each name where it is read.

    `names` holds each name read, at its position; `bound` each name a `let`,
    loop or comprehension binds, by the statement's position and the name.
    """

    variables: dict[str, Type]
    functions: dict[str, Type] = field(default_factory=dict)
    params: dict[tuple[str, str], Type] = field(default_factory=dict)  # (action, parameter)
    names: dict[A.Pos, Type] = field(default_factory=dict)
    bound: dict[tuple[A.Pos, str], Type] = field(default_factory=dict)
