"""Flow statements written where the flow never reads them.

`end_turn`, `end_phase`, `goto` and `stage` ask the event loop to do
something after a move; a hook runs where the loop does not look for some
of them, and a statement the loop never reads is rule text that silently
does nothing (`setup: goto second` plays the whole game in the first
phase).  Which statement each hook honours was read from the loop
(`engine.flow`): the game-wide hooks only `end_game`; a phase's `on_begin`
also `end_phase` and `goto` (the phase is skipped); its `on_end` also
`goto` (where play goes next).  A statement inside a procedure counts where
the procedure is called from a hook, reported at the call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import DslSyntaxError, parse_effects
from ruleplay.dsl.yamlload import lookup

FLOW_OPS = ("end_turn", "end_phase", "goto", "stage")  # `end_game` and `pass` mean the same everywhere

# Hook -> the flow statements the event loop reads after it runs
GAME_HOOK = frozenset()
ON_BEGIN = frozenset({"end_phase", "goto"})
ON_END = frozenset({"goto"})


def _hooks(data: dict) -> Iterator[tuple[tuple, str, frozenset]]:
    """(path, how to name it, the flow statements honoured there) of every hook that holds effects."""
    flow = data.get("flow") or {}
    yield ("setup",), "`setup`", GAME_HOOK
    yield ("flow", "on_round_begin"), "`flow.on_round_begin`", GAME_HOOK
    yield ("flow", "on_round_end"), "`flow.on_round_end`", GAME_HOOK
    for i, phase in enumerate(flow.get("phases") or []):
        name = phase.get("name") if isinstance(phase, dict) else None
        yield ("flow", "phases", i, "on_begin"), f"the `on_begin` of phase {name!r}", ON_BEGIN
        yield ("flow", "phases", i, "on_end"), f"the `on_end` of phase {name!r}", ON_END


def _effects(model, path: tuple) -> A.Node | None:
    text = lookup(model.data, path)
    if not isinstance(text, str):
        return None
    try:
        return parse_effects(text, model.source.origin(path))
    except DslSyntaxError:
        return None  # reported where the effects are compiled


def _flow_statements(model, node: A.Node, seen: frozenset[str]) -> Iterator[A.Control]:
    """The flow statements `node` runs, those of the procedures it calls included (each procedure once)."""
    for item in A.walk(node):
        if isinstance(item, A.Control) and item.op in FLOW_OPS:
            yield item
        elif isinstance(item, A.CallProc) and item.name not in seen:
            body = _effects(model, ("procedures", item.name, "effects"))
            if body is not None:
                yield from _flow_statements(model, body, seen | {item.name})


def ignored_flow_statements(model, body: A.Node, honoured: frozenset) -> Iterator[tuple[A.Node, A.Control]]:
    """(where to report, the statement) for each flow statement of `body` the hook does not honour: a
    statement of the hook itself where it stands, one of a called procedure at the call (its first)."""
    for item in A.walk(body):
        if isinstance(item, A.Control) and item.op in FLOW_OPS and item.op not in honoured:
            yield item, item
        elif isinstance(item, A.CallProc):
            procedure = _effects(model, ("procedures", item.name, "effects"))
            inner = [] if procedure is None else [
                c for c in _flow_statements(model, procedure, frozenset({item.name})) if c.op not in honoured]
            if inner:
                yield item, inner[0]


def check_hook_statements(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    docs = {doc.file: doc for doc in model.source.documents()}
    for path, hook, honoured in _hooks(model.data):
        body = _effects(model, path)
        if body is None:
            continue
        for where, control in ignored_flow_statements(model, body, honoured):
            statement = f"{control.op} {control.arg}" if control.arg is not None else control.op
            through = f" (procedure {where.name!r} says it)" if isinstance(where, A.CallProc) else ""
            src = docs[where.pos.file].source_line(where.pos.line) if where.pos.file in docs else ""
            allowed = sorted(honoured | {"end_game"})
            takes = f"`{allowed[0]}` takes" if len(allowed) == 1 else ", ".join(f"`{op}`" for op in allowed) + " take"
            yield Diagnostic("RP324", f"`{statement}` in {hook} does nothing{through}: the flow does not read it "
                             f"there", where.pos.file, where.pos.line, where.pos.col,
                             hint=f"say it in an action's effects instead; in {hook} only {takes} effect",
                             source_line=src)
