"""Groups of user functions that call each other, every group after the groups it calls.

The type check types a function's callees before the function itself; this
order makes a long chain of calls a loop instead of one Python call per
link.  Tarjan's algorithm gives it directly: a strongly connected group is
complete only after every group reachable from it, so the groups come out
callees first.  It runs with a stack of its own (a ruleset may chain
thousands of functions), and in the standard library alone, so that loading
a ruleset does not import a graph library.
"""

from __future__ import annotations

from typing import Iterator


def callees_first(calls: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected groups of `calls` (name -> names it calls), each after every group it reaches."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def enter(name: str) -> tuple[str, Iterator[str]]:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        return name, iter(calls[name])

    for root in calls:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            name, callees = work[-1]
            for callee in callees:
                if callee not in index:
                    work.append(enter(callee))
                    break
                if callee in on_stack:
                    low[name] = min(low[name], index[callee])
            else:
                work.pop()
                if work:
                    caller = work[-1][0]
                    low[caller] = min(low[caller], low[name])
                if low[name] == index[name]:
                    group = []
                    while not group or group[-1] != name:
                        group.append(stack.pop())
                        on_stack.discard(group[-1])
                    groups.append(group)
    return groups
