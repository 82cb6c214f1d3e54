"""Semantic checks run on a compiled model.

Each check is a small generator of diagnostics registered in `CHECKS`, so
adding one never touches the others (the jsonschema way).  The schema check
(`validators.schema`) runs earlier, on the raw data, because the model
cannot be built from structurally broken input.  Imports only `ruleplay.dsl`:
the checks read the model they are given and never load or play a game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from ruleplay.dsl.diagnostics import Diagnostic

from .citations import check_citations
from .hook_statements import check_hook_statements
from .implied import check_implied
from .reachability import check_reachability
from .type_passes import check_types

Check = Callable[..., Iterator[Diagnostic]]

CHECKS: list[Check] = [check_citations, check_reachability, check_hook_statements, check_types, check_implied]


def semantic_checks(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    for check in CHECKS:
        yield from check(model, ruleset_path)
