"""The functions' typing order: every group of mutually calling functions after the groups it calls."""

from __future__ import annotations

from ruleplay.validators.callgraph import callees_first


def _position(groups: list[list[str]]) -> dict[str, int]:
    return {name: k for k, group in enumerate(groups) for name in group}


def test_a_chain_comes_out_callee_first():
    assert callees_first({"a": ["b"], "b": ["c"], "c": []}) == [["c"], ["b"], ["a"]]


def test_functions_calling_each_other_form_one_group_after_what_they_call():
    calls = {"top": ["even"], "even": ["odd", "base"], "odd": ["even"], "base": [], "self": ["self", "base"]}
    groups = callees_first(calls)
    assert sorted(map(sorted, groups)) == [["base"], ["even", "odd"], ["self"], ["top"]]
    at = _position(groups)
    for caller, callees in calls.items():
        assert all(at[callee] <= at[caller] for callee in callees)


def test_a_long_chain_needs_no_recursion():
    n = 20_000
    calls = {f"f{k}": [f"f{k + 1}"] if k + 1 < n else [] for k in range(n)}
    groups = callees_first(calls)
    assert groups[0] == [f"f{n - 1}"] and groups[-1] == ["f0"] and len(groups) == n
