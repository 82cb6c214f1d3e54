"""Importing ruleplay loads none of the heavy libraries; each is loaded by the first work that needs it.

Facts about `sys.modules` in a fresh interpreter, not timings: Lark comes
with the first text parsed, jsonschema with the first schema check,
networkx with the first ruleset that declares a static graph (or an export):
a graph made from the state (`state:`) is built only when exported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("lark", "networkx", "jsonschema")


def _loaded_after(code: str) -> set[str]:
    """The heavy libraries a fresh interpreter holds after running `code`."""
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1])) & set(HEAVY)


def test_import_ruleplay_loads_no_heavy_library():
    assert _loaded_after("import ruleplay") == set()


def test_the_public_api_and_the_engine_import_without_them():
    assert _loaded_after("from ruleplay import load_game, Game, State, Move\nimport ruleplay.engine.loader") == set()


@pytest.mark.parametrize(("game", "loaded"), [("tic-tac-toe", {"lark", "jsonschema"}),
                                              ("lovci-pokladu", {"lark", "jsonschema", "networkx"}),
                                              ("nautilus", {"lark", "jsonschema"})])
def test_loading_a_game_loads_what_it_needs(game, loaded):
    assert _loaded_after(f"import ruleplay\nruleplay.load_game({game!r})") == loaded

