"""The C++ OpenSpiel game's shim is built once into the per-user cache, checked before it is loaded, and rebuilt
when what lies there is not what was built."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys

import pytest

pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs the `rl` extra")

from ruleplay.adapters.openspiel_native import shim_key  # noqa: E402

LOAD = ("import pyspiel\nfrom ruleplay.adapters.openspiel_native import shim\nfrom ruleplay.openspiel import register\n"
        "shim()\nstate = pyspiel.load_game(register('tic-tac-toe', cxx=True)).new_initial_state()\n"
        "state.apply_action(4)\nprint(state.legal_actions())\n")


def _run(cache):
    return subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, timeout=600,
                          env=os.environ | {"XDG_CACHE_HOME": str(cache)})


@pytest.mark.slow  # two builds of the shim: about 20 CPU-seconds
def test_the_shim_is_cached_checked_and_rebuilt_when_broken(tmp_path):
    first = _run(tmp_path)
    if first.returncode and "C++ compiler" in first.stderr and not os.environ.get("CI"):
        pytest.skip(first.stderr.strip().splitlines()[-1])
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "[0, 1, 2, 3, 5, 6, 7, 8]"
    folder = tmp_path / "ruleplay"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    name = f"_ruleplay_spiel_{shim_key()[:24]}"
    library, record = folder / f"{name}.so", folder / f"{name}.json"
    assert json.loads(record.read_text())["key"] == shim_key()
    built = library.read_bytes()
    library.write_bytes(built[: len(built) // 2])  # truncated: its bytes no longer hash to the record's
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout and library.read_bytes() != built[: len(built) // 2]
    assert json.loads(record.read_text())["sha256"] == hashlib.sha256(library.read_bytes()).hexdigest()


def test_without_a_cxx_compiler_the_game_is_the_python_one_and_says_why(tmp_path):
    script = ("import pyspiel\nfrom ruleplay.openspiel import register\n"
              "print(type(pyspiel.load_game(register('tic-tac-toe')).new_initial_state()).__name__)\n"
              "register('connect-four')\n"
              "try:\n    register('kuhn-poker', cxx=True)\nexcept Exception as err:\n    print(type(err).__name__)\n"
              "print(type(pyspiel.load_game(register('kuhn-poker')).new_initial_state()).__name__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env=os.environ | {"CXX": "no-such-compiler"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["RuleplayState", "BuildError", "RuleplayState"]
    assert done.stderr.splitlines() == [  # said once, for the first game
        "note: ruleplay.openspiel: ruleplay_tic_tac_toe_2p is a Python pyspiel game: no C++ compiler: "
        "'no-such-compiler' is not on the PATH (install g++)"]
