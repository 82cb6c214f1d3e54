"""Breadth-first search, and the neighbours of an edge list, for the graph builtins (`dsl.builtins`).

A node is looked up by `value_key`, as `==` compares: 1 and 1.0 are one
node, while 1 and "1", or true and 1, are two.
"""

from __future__ import annotations

from collections import deque
from itertools import chain
from typing import Any, Callable

from .runtime import RuleRuntimeError, clone, type_name, value_key


def bfs(adj: Callable[[Any], list], start, limit: int | None, spend: Callable[[int], None]) -> dict:
    """Distances from start, by node key; `spend` is told each node visited and each edge looked at
    before the search goes on, so a search too large for the budget stops there."""
    if limit is not None:
        if not (type(limit) is int):
            raise RuleRuntimeError(f"max_steps must be an int, not {type_name(limit)}")
    dist = {value_key(start): 0}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        spend(1)
        d = dist[value_key(node)]
        if limit is not None and d >= limit:
            continue
        edges = adj(node)
        spend(len(edges))
        for nxt in edges:
            k = value_key(nxt)
            if k not in dist:
                dist[k] = d + 1
                todo.append(nxt)
    return dist


_PLAIN_NODES = frozenset({int, str})  # nodes that are equal exactly when their keys are
_last_adjacency: tuple = ((), {}, {})  # (edges, neighbours, spellings) of the last plain edge list seen


def edge_adjacency(edges) -> tuple[dict, dict]:
    """Neighbours by node key, and one value of each node (the first spelling met).

    A state's edge list is searched again and again while it stays the same
    (from every node a move may start at), so the tables of the last list of
    pairs of whole numbers and texts are kept, and handed out again for an
    equal list of such pairs: for those, equal lists have the same nodes and
    spellings (1 and 1.0, or 1 and true, are equal but spelt otherwise, so
    lists holding other nodes are never matched).  Searches only read the
    tables.
    """
    global _last_adjacency
    last, adj, spelt = _last_adjacency
    if edges == last and _PLAIN_NODES.issuperset(map(type, chain.from_iterable(edges))):
        return adj, spelt
    adj, spelt = _build_adjacency(edges)  # checks that every edge is a pair
    if _PLAIN_NODES.issuperset(map(type, chain.from_iterable(edges))):
        _last_adjacency = (clone(edges), adj, spelt)
    return adj, spelt


def _build_adjacency(edges) -> tuple[dict, dict]:
    adj: dict[Any, list] = {}
    spelt: dict[Any, Any] = {}
    if type(edges) is not list:
        raise RuleRuntimeError(f"edges() needs a list, not {type_name(edges)}")
    for e in edges:
        if not (type(e) is list and len(e) == 2):
            raise RuleRuntimeError("an edge must be a pair [a, b]")
        ka, kb = value_key(e[0]), value_key(e[1])
        spelt.setdefault(ka, e[0])
        spelt.setdefault(kb, e[1])
        adj.setdefault(ka, []).append(e[1])
        adj.setdefault(kb, []).append(e[0])
    return adj, spelt
