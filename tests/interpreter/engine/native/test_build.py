"""Modules are built once into a private cache, loaded only when sound, and never without need.

A module whose bytes no longer hash to its record (truncated, changed) is
built again rather than loaded; the cache folder is the user's alone (0700);
without a C compiler the game plays on Python and the reason names what is
missing.  The runtime's tables (builtins and their charging flags) are the
Python engine's.
"""

from __future__ import annotations

import json
import re
import stat

import pytest

from ruleplay import load_game
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.native import choose, playout
from ruleplay.engine.native import build
from ruleplay.engine.native.backend import NativeGame, NativeUnavailable
from ruleplay.engine.native.module import lower_model
from ruleplay.engine.native.verify import CSRC
from ruleplay.runs.play import agent_seed

from native_support import native_of

TINY = """\
ruleplay: 1
game: tiny
players: 2
constants: {marker: MARKER}
state:
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go: {effects: n += marker}
end:
  - when: n >= 10 * marker
"""


def _tiny(tmp_path, marker: int):
    path = tmp_path / f"tiny{marker}.yaml"
    path.write_text(TINY.replace("MARKER", str(marker)), encoding="utf-8")
    return load_game(path)


def _module_files(source: str):
    key = build.module_key(source)
    folder = build.cache_dir()
    return [p for p in folder.iterdir() if p.name.startswith(f"_ruleplay_{key[:24]}")]


def test_the_cache_is_private_and_a_changed_module_is_built_again(tmp_path, monkeypatch):
    game = _tiny(tmp_path, 7919)
    native_of(game)
    assert stat.S_IMODE(build.cache_dir().stat().st_mode) == 0o700
    source = lower_model(game.model).source
    so = next(p for p in _module_files(source) if p.suffix == ".so")
    original = so.read_bytes()
    torn = so.with_name(so.name + ".torn")
    torn.write_bytes(original[: len(original) // 2])  # a torn module: its hash no longer matches its record
    torn.replace(so)  # a new file in its place: the module this process has loaded stays as it was
    monkeypatch.setattr(build, "_LOADED", {})
    built, verified = [], []
    real_build, real_verify = build._build, build.verify
    monkeypatch.setattr(build, "_build", lambda *args: (built.append(args[0]), real_build(*args))[1])
    monkeypatch.setattr(build, "verify", lambda text: (verified.append(text), real_verify(text))[1])
    build.load_module(source)
    assert built, "a module whose bytes changed must be built again, never loaded"
    assert verified == [source], "a source is verified before it is built"
    assert so.read_bytes() != original[: len(original) // 2]
    monkeypatch.setattr(build, "_LOADED", {})
    built.clear()
    verified.clear()
    build.load_module(source)
    assert not built, "a sound module is loaded from the cache"
    assert not verified, "a cached module was built from this source after this verifier passed it"
    other_verifier = tmp_path / "verify.py"
    other_verifier.write_text(build.VERIFIER.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    key = build.module_key(source)
    monkeypatch.setattr(build, "VERIFIER", other_verifier)
    assert build.module_key(source) != key, "a changed verifier must verify (and build) every source again"


def test_without_a_compiler_the_game_plays_on_python_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    build.compiler_identity.cache_clear()
    try:
        game = _tiny(tmp_path, 104729)
        backend = choose(game, "auto")
        assert backend.name == "python" and "no C compiler" in backend.why_not
        with pytest.raises(NativeUnavailable) as err:
            choose(game, "native")
        assert err.value.code == "RP670" and "no-such-cc" in str(err.value)
    finally:
        build.compiler_identity.cache_clear()


def test_the_runtime_knows_every_builtin_in_the_python_engines_order_with_its_charges():
    header = (CSRC / "rp.h").read_text(encoding="utf-8")
    enum = re.search(r"enum \{\n((?:    BI_\w+,\n)+)    BI__N\n\};", header).group(1)
    assert re.findall(r"BI_(\w+),", enum) == [name.upper() for name in BUILTINS]
    flags = dict(re.findall(r"\[BI_(\w+)\] = \{(\d, \d, \d)\}", (CSRC / "rp_builtins.c").read_text(encoding="utf-8")))
    assert {name: flags[name.upper()] for name in BUILTINS} == {
        name: f"{int(b.linear)}, {int(b.prepaid)}, {int(b.sorts)}" for name, b in BUILTINS.items()}


def test_a_game_shares_one_module_and_says_what_it_lowered(tmp_path):
    game = _tiny(tmp_path, 1299709)
    first = native_of(game)
    assert NativeGame.of(game) is first
    assert json.loads(json.dumps(first.rules)) == []


@pytest.mark.parametrize("name", sorted(builtin_games()))
def test_a_module_leaves_the_floating_point_unit_as_it_found_it(name):
    """GCC's vectorizer once moved 64-bit values through an MMX register without `emms`: after one Nautilus
    game natively the x87 stack stayed full, NumPy's next floor division gave NaN and a later `analyze`
    report failed inside matplotlib.  Modules are built with -mno-mmx on x86; NumPy's fmod checks it."""
    import numpy as np
    import warnings

    game = load_game(name)
    ng = native_of(game)
    seats = game.info.players
    for index in range(3):
        playout(ng, [0] * seats, [agent_seed(index, k) for k in range(seats)], index)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [np.float64(-1.0953) // np.float64(0.25) for _ in range(10)] == [-5.0] * 10


def test_every_flag_that_changes_the_binary_is_in_the_key(monkeypatch):
    """A module built with other flags (ours, the environment's, a size class) is another module: never loaded."""
    monkeypatch.delenv(build.OPT_ENV, raising=False)
    for name in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED"):
        monkeypatch.delenv(name, raising=False)
    source = "int rp_tiny_module;\n"
    key = build.module_key(source)
    runtime_key = build.runtime_key()
    compiling = {build.OPT_ENV: "-O1", "CC": "gcc", "CFLAGS": "-O0", "CPPFLAGS": "-DNDEBUG=0"}
    for name, value in (*compiling.items(), ("LDFLAGS", "-s"), ("LDSHARED", "cc -shared")):
        monkeypatch.setenv(name, value)
        assert build.module_key(source) != key, f"{name}={value} builds another module"
        if name in compiling:
            assert build.runtime_key() != runtime_key, f"{name}={value} compiles another runtime"
        monkeypatch.delenv(name)
    assert build.module_key(source) == key
    monkeypatch.setattr(build, "LARGE_MODULE", len(source) - 1)  # the same source now counts as large
    assert build.module_key(source) != key, "the flags chosen by a module's size are part of its key"


def test_optimisation_by_size_and_by_the_environment(monkeypatch):
    monkeypatch.delenv(build.OPT_ENV, raising=False)
    small, large = "x" * build.LARGE_MODULE, "x" * (build.LARGE_MODULE + 1)
    assert build.optimization() == build.RUNTIME_OPT == ("-O2",)
    assert build.optimization(small) == build.MODULE_OPT == ("-O2", "-fno-tree-pre")
    assert build.optimization(large) == build.LARGE_MODULE_OPT
    monkeypatch.setenv(build.OPT_ENV, " -O3  -march=native ")
    assert build.optimization() == build.optimization(small) == build.optimization(large) == ("-O3", "-march=native")
