"""How deep the user calls of a ruleset can nest, read from its text, so calls need not count their depth.

Every call of a user function or procedure counts its depth against
`limits.max_depth` (and the runtime's own RP_NATIVE_DEPTH): `rp_enter` and
`rp_leave` keep the room left.  Where no function or procedure calls itself,
directly or through others, the deepest nesting any code can make is the
longest chain of calls in the text; when that fits the room a fresh budget
has, no call can run out of it, and the lowering writes its calls without
the count (`Lowering.enter`), charging what Python charges for a call all the
same.  Code runs only at the top of a budget (a move's, a listing's, a probe's:
`rp_fresh_budget`), never inside a call it did not make.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import ast as A

RP_NATIVE_DEPTH = 100  # rp.h: calls nested deeper are left to the Python engine


def deepest_calls(functions: dict[str, Any], procedures: dict[str, Any]) -> int | None:
    """The most user calls that can be open at once (0 for none), given each function's and procedure's body;
    None where one calls itself, directly or through others (its depth is not bounded by the text)."""
    calls: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for kind, bodies in (("f", functions), ("p", procedures)):
        for name, body in bodies.items():
            calls[(kind, name)] = {("f", n.func) if isinstance(n, A.Call) else ("p", n.name) for n in A.walk(body)
                                   if (isinstance(n, A.Call) and n.func in functions)
                                   or (isinstance(n, A.CallProc) and n.name in procedures)}
    # Each body after the bodies it calls, without recursion (a ruleset may chain thousands): one in a cycle is
    # never ready.
    waiting = {key: set(callees) for key, callees in calls.items()}
    callers: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for key, callees in calls.items():
        for callee in callees:
            callers.setdefault(callee, set()).add(key)
    ready = [key for key, callees in waiting.items() if not callees]
    depth: dict[tuple[str, str], int] = {}
    while ready:
        key = ready.pop()
        depth[key] = 1 + max((depth[callee] for callee in calls[key]), default=0)
        for caller in callers.get(key, ()):
            waiting[caller].discard(key)
            if not waiting[caller]:
                ready.append(caller)
    if len(depth) < len(calls):
        return None
    return max(depth.values(), default=0)


def calls_fit(functions: dict[str, Any], procedures: dict[str, Any], max_depth: int) -> bool:
    """Whether no call can nest past the room a fresh budget has (`rp_fresh_budget`)."""
    deepest = deepest_calls(functions, procedures)
    return deepest is not None and deepest <= min(max_depth, RP_NATIVE_DEPTH)
