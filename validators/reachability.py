"""Phases, stages and actions that can never run.

A phase is reachable from the first one through the default order, `next:`
links and any `goto` statement; a stage is reachable if some `stage NAME`
statement exists; an action must be listed by a phase or stage that is
reachable.  Anything else is dead rule text, reported as an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import DslSyntaxError, parse_effects
from ruleplay.dsl.yamlload import format_path


def _statements(model) -> list[A.Control]:
    out = []
    data = model.data

    def scan(text: object) -> None:
        if isinstance(text, str):
            try:
                out.extend(n for n in A.walk(parse_effects(text)) if isinstance(n, A.Control))
            except DslSyntaxError:
                pass

    scan(data.get("setup"))
    for a in (data.get("actions") or {}).values():
        scan(a.get("effects"))
    for p in (data.get("procedures") or {}).values():
        scan(p.get("effects"))
    flow = data.get("flow") or {}
    scan(flow.get("on_round_begin"))
    scan(flow.get("on_round_end"))
    for ph in flow.get("phases") or []:
        scan(ph.get("on_begin"))
        scan(ph.get("on_end"))
    return out


def check_reachability(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    where = model.source.where
    controls = _statements(model)
    gotos = {c.arg for c in controls if c.op == "goto"}
    stages_set = {c.arg for c in controls if c.op == "stage"}
    order = model.phase_order
    edges = {}
    for i, name in enumerate(order):
        phase = model.phases[name]
        targets = {phase.next} if phase.next else {order[(i + 1) % len(order)]}
        edges[name] = targets | gotos
    for g in sorted(gotos):
        if g not in model.phases:
            yield Diagnostic("RP210", f"`goto {g}` names no phase", model.source.base.file, 0, 0,
                             hint=f"phases: {', '.join(order)}")
    seen, todo = {order[0]}, [order[0]]
    while todo:
        for t in edges.get(todo.pop(), ()):
            if t in model.phases and t not in seen:
                seen.add(t)
                todo.append(t)
    used_actions: set[str] = set()
    for name in order:
        phase = model.phases[name]
        if name not in seen:
            file, line, col, src = where(phase.path)
            yield Diagnostic("RP320", f"phase {name!r} can never run: no phase leads to it", file, line, col,
                             hint="give an earlier phase `next:` or a `goto` to it, or remove it",
                             path=format_path(phase.path), source_line=src)
            continue
        used_actions.update(phase.actions)
        for sname, stage in phase.stages.items():
            if sname not in stages_set:
                file, line, col, src = where(phase.path + ("stages", sname))
                yield Diagnostic("RP322", f"stage {sname!r} of phase {name!r} can never run: "
                                 "no `stage` statement enters it", file, line, col,
                                 hint=f"an action's effects must say `stage {sname}`",
                                 path=format_path(phase.path + ("stages", sname)), source_line=src)
                continue
            used_actions.update(stage.actions)
        if not phase.actions and not phase.stages and phase.order != "chance":
            file, line, col, src = where(phase.path)
            yield Diagnostic("RP321", f"phase {name!r} offers no actions", file, line, col,
                             hint="list the actions players may take in it", path=format_path(phase.path),
                             source_line=src)
    for name, action in model.actions.items():
        if name not in used_actions:
            file, line, col, src = where(action.path, key=True)
            yield Diagnostic("RP321", f"action {name!r} can never run: no phase or stage offers it", file,
                             line, col, hint="list it under a phase's or stage's `actions:`",
                             path=format_path(action.path), source_line=src)
