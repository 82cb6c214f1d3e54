"""The wheel holds the whole package: an editable install reads the source tree and hides a missing one.

The project is copied (so the build writes nothing into the checkout),
built into a wheel without build isolation (no network), unpacked, and
imported by a fresh interpreter that sees the unpacked wheel and the
installed dependencies, but none of the `.pth` files through which an
editable install would find the source tree instead.
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL_SKIPPED = {".git", ".venv", "build", "dist", ".pytest_cache", ".hypothesis", "tests", "out"}


def _skipped(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out: the checkout's own tools and outputs, and caches anywhere."""
    top = Path(folder) == ROOT
    return {n for n in names if n == "__pycache__" or n.endswith(".egg-info") or (top and n in TOP_LEVEL_SKIPPED)}


CHECK = """
import importlib, json, sys
wheel, dependencies, modules = json.loads(sys.argv[1])
sys.path[:0] = [wheel]
sys.path += dependencies
import ruleplay
assert ruleplay.__file__.startswith(wheel), ruleplay.__file__
for name in modules:
    module = importlib.import_module(name)
    assert module.__file__.startswith(wheel), (name, module.__file__)
from ruleplay.dsl import larktables
larktables.build = lambda grammar: sys.exit("the parser was built: the wheel lacks its kept tables")
from ruleplay.engine.loader import builtin_games
from ruleplay import load_game
names = sorted(builtin_games())
for name in names:
    load_game(name).new_state(0).render()
from ruleplay.validators.schema import schema
schema()
from ruleplay.authoring.starters import builtin_scenarios, copy_files
import pathlib
scenarios = {name: sorted(str(p.relative_to(builtin_scenarios(name))) for p in builtin_scenarios(name).rglob("*.yaml"))
             for name in names}
for name in names:  # a copy (ruleplay new) finds the spec and scenarios in the installed package
    copy_files(name, pathlib.Path("copy"))
print(json.dumps([names, scenarios]))
"""


def _source_modules() -> list[str]:
    out = []
    for package, folder in {"ruleplay": ROOT / "interpreter", "ruleplay.dsl": ROOT / "dsl",
                            "ruleplay.validators": ROOT / "validators"}.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out.append(".".join([package, *parts]))
    return out


@pytest.mark.timeout(300)
def test_the_built_wheel_has_every_module_and_data_file(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=_skipped)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                            "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("ruleplay-*.whl")
    unpacked = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    assert sorted(p.name for p in unpacked.iterdir() if not p.name.endswith(".dist-info")) == ["ruleplay"]
    dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
    args = json.dumps([str(unpacked), dependencies, _source_modules()])
    checked = subprocess.run([sys.executable, "-S", "-E", "-c", CHECK, args], capture_output=True, text=True,
                             cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    shipped = sorted(p.stem for p in (ROOT / "rulesets").glob("*.yaml"))
    scenarios = {name: sorted(str(p.relative_to(ROOT / "scenarios" / name)) for p in (ROOT / "scenarios" / name).rglob("*.yaml"))
                 for name in shipped}
    assert json.loads(checked.stdout) == [shipped, scenarios]
