"""Name resolution shared by the compiler, the reference evaluator and the checker.

A name in ruleset code is, in this order: a local (action parameter, `let`,
loop variable, function parameter), a state variable, a flow value
(`current`, `round`, …) or a constant.  Deciding this once, at compile time,
is what lets the compiled code read a dict slot instead of searching scopes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

FLOW_NAMES: dict[str, str] = {
    "current": "seat",
    "players": "players",
    "round": "round",
    "phase": "phase",
    "stage": "stage",
    "start_player": "start",
    "turn": "turn",
}


@dataclass(frozen=True)
class Callable_:
    """A user function or procedure: its parameter names (the body lives in the model)."""

    name: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class Scope:
    state_vars: frozenset[str] = frozenset()
    constants: dict[str, Any] = field(default_factory=dict)
    locals: frozenset[str] = frozenset()
    functions: dict[str, Callable_] = field(default_factory=dict)
    procedures: dict[str, Callable_] = field(default_factory=dict)
    disabled_rules: frozenset[str] = frozenset()
    # Locals bound by `let` hold their own copy and may be changed; parameters and
    # loop variables may share data with the state or constants, so they are read-only.
    lets: frozenset[str] = frozenset()
    # Declared names with no value: derived constants that could not be computed.  Their failure is
    # reported where it happened; a read of one is no second mistake, so it is not reported again.
    unavailable: frozenset[str] = frozenset()
    # The rule that code cites around a statement (`@RULE { ... }`, or the `rule:` of the code's action,
    # procedure or phase): what an `announce` names as its source.
    rule: str | None = None

    def with_locals(self, *names: str) -> "Scope":
        return replace(self, locals=self.locals | frozenset(names), lets=self.lets - frozenset(names))

    def with_let(self, name: str) -> "Scope":
        return replace(self, locals=self.locals | {name}, lets=self.lets | {name})

    def with_rule(self, rule: str) -> "Scope":
        return replace(self, rule=rule)

    def only_locals(self, *names: str) -> "Scope":
        return replace(self, locals=frozenset(names), lets=frozenset())

    def resolve(self, name: str) -> tuple[str, Any] | None:
        """('local'|'var'|'flow'|'const', key) or None when the name is unknown."""
        if name in self.locals:
            return ("local", name)
        if name in self.state_vars:
            return ("var", name)
        if name in FLOW_NAMES:
            return ("flow", FLOW_NAMES[name])
        if name in self.constants:
            return ("const", self.constants[name])
        return None

    def known_names(self) -> list[str]:
        return sorted(set(self.locals) | set(self.state_vars) | set(FLOW_NAMES) | set(self.constants))
