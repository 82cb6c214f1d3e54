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
from ruleplay.dsl.checks import Suggester, listing
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import DslSyntaxError, parse_effects
from ruleplay.dsl.yamlload import format_path, lookup


def _effect_paths(data: dict) -> list[tuple]:
    """Every place that holds effect statements (where `goto` and `stage` can be written)."""
    flow = data.get("flow") or {}
    paths: list[tuple] = [("setup",), ("flow", "on_round_begin"), ("flow", "on_round_end")]
    paths += [("actions", n, "effects") for n in data.get("actions") or {}]
    paths += [("procedures", n, "effects") for n in data.get("procedures") or {}]
    paths += [("triggers", i, "effects") for i in range(len(data.get("triggers") or []))]
    for i in range(len(flow.get("phases") or [])):
        paths += [("flow", "phases", i, "on_begin"), ("flow", "phases", i, "on_end")]
    return paths


def _statements(model) -> list[A.Control]:
    out = []
    for path in _effect_paths(model.data):
        text = lookup(model.data, path)
        if isinstance(text, str):
            try:
                node = parse_effects(text, model.source.origin(path))
            except DslSyntaxError:
                continue
            out.extend(n for n in A.walk(node) if isinstance(n, A.Control))
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
    suggest = Suggester()
    docs = {doc.file: doc for doc in model.source.documents()}
    stage_names = sorted({s for phase in model.phases.values() for s in phase.stages})
    # What a `goto` or `stage` statement may name; `stage none` leaves the stage and names none.
    named = {"goto": ("phase", set(model.phases), order, f"phases: {listing(order)}"),
               "stage": ("stage", set(stage_names) | {"none"}, stage_names,
                         f"stages: {listing(stage_names)}" if stage_names else "declare it under a phase's `stages:`")}
    reported: set[tuple[str, str]] = set()  # each (statement, name) once
    for c in controls:
        if c.op not in named or c.arg in named[c.op][1] or (c.op, c.arg) in reported:
            continue
        reported.add((c.op, c.arg))
        what, _, names, fallback = named[c.op]
        src = docs[c.pos.file].source_line(c.pos.line) if c.pos.file in docs else ""
        yield Diagnostic("RP210", f"`{c.op} {c.arg}` names no {what}", c.pos.file, c.pos.line, c.pos.col,
                         hint=suggest(c.arg, lambda names=names: names) or fallback, source_line=src)
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
                file, line, col, src = where(phase.path + ("stages", sname), key=True)
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
