"""What hovering over a name shows: its declaration and inferred type, a rule's text, a builtin's signature.

The text is Markdown, as editors show a hover: a first line saying what the
name is (with its type when the checker knows it), then the declaration as
written in the ruleset (clipped), or the spec rule's own lines.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.validators.inferred import InferredTypes
from ruleplay.validators.spec import SpecRule
from ruleplay.validators.typelattice import Type, value_type
from ruleplay.validators.types import FLOW_TYPES

from .analysis import Analysis
from .index import Index, Span, Symbol

WORDS = {"state": "state variable", "constant": "constant", "derived": "derived constant", "function": "function",
         "procedure": "procedure", "action": "action", "param": "parameter", "phase": "phase", "stage": "stage",
         "board": "board", "graph": "graph", "kind": "component kind", "variant": "variant", "local": "local name",
         "heuristic": "heuristic", "given": "name given by this field", "flow": "flow value", "rule": "rule",
         "file": "file"}
FLOW = {"current": "the seat whose turn it is (0-based)", "players": "the number of players in this game",
        "round": "the round number, from 1", "phase": "the name of the current phase",
        "stage": "the name of the current stage, or `null`",
        "start_player": "the seat that starts the round's phases", "turn": "the number of turns completed so far"}
MAX_LINES = 12  # of a declaration shown
_LIST_ITEM = re.compile(r"^[-*]\s+")


def rule_text(rule: SpecRule) -> str:
    """A spec rule's line without its list marker and id: what the rule says."""
    return _LIST_ITEM.sub("", rule.text).replace(f"**{rule.id}**", "", 1).strip()


def signature(name: str) -> str:
    """A builtin's call as written in code, with its parameters' names: `step(board, c, d, n=1)`."""
    spec = BUILTINS[name]
    params = list(inspect.signature(spec.fn).parameters.values())[1 if spec.needs_ctx else 0:]
    shown = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}" for p in params]
    return f"{name}({', '.join(shown)}) -> {spec.returns}"


def hover(analysis: Analysis, span: Span, symbol: Symbol, earlier: InferredTypes | None = None) -> str:
    """The Markdown shown over `symbol` at `span`; `earlier` holds the types of the last version that loaded,
    used for declared names while the ruleset does not load."""
    ix = analysis.index()
    assert ix is not None
    if symbol.kind == "builtin":
        spec = BUILTINS[symbol.name]
        return f"```\n{signature(symbol.name)}\n```\n{spec.doc.splitlines()[0] if spec.doc else ''}"
    if symbol.kind in ("flow", "given"):
        what = FLOW.get(symbol.name, "") if symbol.kind == "flow" else symbol.owner[0]
        return f"**{WORDS[symbol.kind]}** `{symbol.name}`" + _type(analysis, span, symbol, earlier) + f" — {what}"
    if symbol.kind == "local":
        return f"**local name** `{symbol.name}`" + _type(analysis, span, symbol, earlier) + \
            f" — bound at line {symbol.owner[1]}"
    if symbol.kind == "rule":
        return _rule(ix, symbol.name)
    if symbol.kind == "file":
        return f"**file** `{symbol.name}`"
    head = f"**{WORDS[symbol.kind]}** `{symbol.name}`" + _owner(symbol) + _type(analysis, span, symbol, earlier)
    declared = ix.declarations.get(symbol)
    block = _block(analysis, declared) if declared is not None else ""
    return head + (f"\n```yaml\n{block}\n```" if block else "")


def _owner(symbol: Symbol) -> str:
    if symbol.kind == "param":
        return f" of {symbol.owner[0][:-1]} `{symbol.owner[1]}`"  # "of action `place`", "of function `f`"
    return ""


def _type(analysis: Analysis, span: Span, symbol: Symbol, earlier: InferredTypes | None) -> str:
    found = _type_of(analysis, span, symbol, earlier)
    return f": `{found}`" if found is not None else ""


def _type_of(analysis: Analysis, span: Span, symbol: Symbol, earlier: InferredTypes | None) -> Type | None:
    now = analysis.types()
    if now is not None:
        at = now.names.get(A.Pos(span.file, span.line, span.col))
        if at is not None:
            return at
    if symbol.kind == "flow":
        return FLOW_TYPES.get(symbol.name)
    types = now or earlier
    if types is None:
        return None
    name = symbol.name
    if symbol.kind == "state":
        return types.variables.get(name)
    if symbol.kind == "function":
        return types.functions.get(name)
    if symbol.kind == "param" and symbol.owner[0] == "actions":
        return types.params.get((symbol.owner[1], name))
    if symbol.kind in ("constant", "derived") and analysis.model is not None and name in analysis.model.constants:
        return value_type(analysis.model.constants[name], analysis.model.component_props)
    if symbol.kind == "local" and now is not None:
        return now.bound.get((A.Pos(*symbol.owner), name))
    return None


def _lines(analysis: Analysis, file: str) -> list[str]:
    text = analysis.texts.get(file)
    return text.splitlines() if text is not None else []


def _block(analysis: Analysis, span: Span) -> str:
    """The declaration's lines: its own and those indented under it (at most MAX_LINES)."""
    lines = _lines(analysis, span.file)
    if not 0 < span.line <= len(lines):
        return ""
    first = lines[span.line - 1]
    indent = len(first) - len(first.lstrip())
    block = [first]
    for line in lines[span.line:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    while block and not block[-1].strip():
        block.pop()
    shown = [line[indent:] for line in block[:MAX_LINES]]
    return "\n".join(shown + (["…"] if len(block) > MAX_LINES else []))


def _rule(ix: Index, rule: str) -> str:
    """A spec rule's text: its list item, with the lines that continue it."""
    found = ix.rules.get(rule)
    if found is None:
        declared = ix.declarations.get(Symbol("rule", rule))
        return f"**rule** `{rule}`" + (" (an assumption of the ruleset)" if declared is not None else
                                        ": not in the spec")
    lines = ix.spec_lines
    text = [_LIST_ITEM.sub("", (lines[found.line - 1] if found.line <= len(lines) else found.text).strip())]
    for line in lines[found.line:found.line + MAX_LINES]:
        if not line.strip() or line.lstrip().startswith(("- ", "* ", "#")):
            break
        text.append(line.strip())
    return " ".join(text) + f"\n\n({Path(ix.spec_file or '').name}, line {found.line})"
