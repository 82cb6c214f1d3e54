"""Agent specs: `mcts:iterations=400:depth=20` names an agent and its options in one word.

The command line (`--agents mcts:iterations=400,random`), the API
(`make_agent("ismcts:seconds=0.5", seed)`) and worker processes all pass
agents as these strings, so one parser serves them all and a spec survives
pickling unchanged.  Each agent declares its options (name, type, range,
default); a spec naming an unknown agent or option, or giving a value of
the wrong kind, is refused with an `AgentSpecError` that names it and says
what would be accepted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable


class AgentSpecError(ValueError):
    """A spec that does not name an agent with valid options; the message says what is accepted."""


@dataclass(frozen=True)
class Option:
    """One option an agent accepts: `kind` is int, float or str; numbers have a lower bound."""

    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    above: bool = False  # the bound is exclusive: `seconds` must be > 0, `iterations` >= 1
    maximum: float | None = None  # so a slip of the keyboard is an error, not a decision that never ends

    def parse(self, agent: str, text: str) -> Any:
        wanted = {int: "a whole number", float: "a number", str: "a name"}[self.kind]
        try:
            if self.kind is int:
                if not re.fullmatch(r"[+-]?[0-9]+", text):
                    raise ValueError
                value: Any = int(text)
            elif self.kind is float:
                value = float(text)
                if not math.isfinite(value):
                    raise ValueError
            else:
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
                    raise ValueError
                value = text
        except ValueError:
            raise AgentSpecError(f"agent {agent!r}: option {self.name}={text!r} is not {wanted} "
                                 f"({self.help})") from None
        if self.minimum is not None and (value <= self.minimum if self.above else value < self.minimum):
            bound = f"above {self.minimum:g}" if self.above else f"at least {self.minimum:g}"
            raise AgentSpecError(f"agent {agent!r}: option {self.name}={text} must be {bound} ({self.help})")
        if self.maximum is not None and value > self.maximum:
            raise AgentSpecError(f"agent {agent!r}: option {self.name}={text} must be at most {self.maximum:g} "
                                 f"({self.help})")
        return value


@dataclass(frozen=True)
class AgentType:
    """A registered agent: how to build it from a seed and options, and the options it takes.

    `omniscient` marks an agent that reads the whole state, what other seats
    hide included, when it chooses: in a game that keeps secrets it plays
    on knowledge its seat does not have (`agents.omniscience_refusal`).
    `native` marks one that can search in the game's native module: its
    factory takes the run's `backend`.
    """

    factory: Callable[..., Any]
    options: tuple[Option, ...] = ()
    omniscient: bool = False
    native: bool = False

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)


def parse_spec(spec: str, registry: dict[str, AgentType]) -> tuple[str, dict[str, Any]]:
    """(agent name, {option: value}) from `name[:option=value...]`; raises AgentSpecError."""
    name, *parts = [part.strip() for part in spec.strip().split(":")]
    kind = registry.get(name)
    if kind is None:
        raise AgentSpecError(f"unknown agent {name!r} (agents: {', '.join(registry)})")
    options: dict[str, Any] = {}
    for part in parts:
        key, eq, text = part.partition("=")
        key, text = key.strip(), text.strip()
        option = kind.option(key)
        if option is None:
            known = ", ".join(o.name for o in kind.options) or "none"
            raise AgentSpecError(f"agent {name!r} has no option {key!r} (its options: {known})")
        if not eq or not text:
            raise AgentSpecError(f"agent {name!r}: option {key!r} needs a value, as in {key}=VALUE "
                                 f"({option.help})")
        if key in options:
            raise AgentSpecError(f"agent {name!r}: option {key!r} is given twice")
        options[key] = option.parse(name, text)
    return name, options


def describe(registry: dict[str, AgentType]) -> str:
    """One line per agent with its options, for `--help`."""
    lines = []
    for name, kind in registry.items():
        opts = ", ".join(f"{o.name}={o.default}" if o.default is not None else o.name for o in kind.options)
        lines.append(f"{name}" + (f" ({opts})" if opts else ""))
    return "; ".join(lines)
