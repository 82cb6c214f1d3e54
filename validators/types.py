"""Static type checking of expressions (being written; yields nothing yet)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ruleplay.dsl.diagnostics import Diagnostic


def check_types(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    return iter(())
