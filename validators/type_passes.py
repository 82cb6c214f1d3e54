"""The type checker's passes over a ruleset: the state variables' types settled to a fixpoint, then the pass
that reports (`check_types`) or keeps what it inferred for an editor (`inferred_types`).

One pass (`types.Checker`) widens the variables' types as it meets values stored in them; a pass that widens
nothing proves the types hold every value ever stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.diagnostics import Diagnostic, SourceLines

from .inferred import InferredTypes
from .typelattice import ANY, DECLARED, NEVER, Type, list_of
from .types import Checker

MAX_PASSES = 30  # a ruleset whose types have not settled by then is taken to hold anything


def variable_types(model: Any, parsed: dict[tuple, A.Node | None],
                   at_run_time: bool = False) -> tuple[dict[str, Type], frozenset[str]]:
    """Each state variable's type: declared, or inferred to a fixpoint over all assignments.  Every pass widens
    the types in place as it meets `init`s and assignments; a pass that widens nothing proves the types hold
    every value ever stored.

    `at_run_time`: the values a variable can hold in play, for the engine rather than for reports: a `type:`
    is not trusted (nothing checks it while playing), and each parameter of a function or procedure holds
    what its calls pass, joined over every call to the same fixpoint, rather than anything."""
    state = model.data.get("state") or {}
    declared = frozenset(n for n, spec in state.items() if "type" in spec and not at_run_time)
    params: dict[tuple[str, str], dict[str, Type]] | None = {} if at_run_time else None
    types: dict[str, Type] = {}
    for name, spec in state.items():
        entry = DECLARED.get(spec.get("type"), NEVER) if name in declared else NEVER
        types[name] = list_of(entry) if name in declared and spec.get("per_player") else entry
    for _ in range(MAX_PASSES):
        checker = Checker(model, types, None, parsed, declared, params)
        checker.run()
        if not checker.grew:
            return types, declared
    return {n: types[n] if n in declared else ANY for n in types}, declared  # assume nothing


def inferred_types(model: Any) -> InferredTypes:
    """The types of a ruleset's variables, functions, parameters and names, as the checker settles them."""
    parsed: dict[tuple, A.Node | None] = {}
    types, declared = variable_types(model, parsed)
    checker = Checker(model, types, None, parsed, declared)
    checker.noted = InferredTypes(types)
    checker.run()
    checker.noted.functions = checker.function_types
    return checker.noted


def check_types(model: Any, ruleset_path: Path) -> Iterator[Diagnostic]:
    lines = SourceLines()
    for doc in model.source.documents():
        lines.add(doc.file, doc.text)
    parsed: dict[tuple, A.Node | None] = {}
    types, declared = variable_types(model, parsed)
    checker = Checker(model, types, lines, parsed, declared)
    checker.run()
    yield from checker.found.values()
