"""The package layout stays true: imports point one way, modules stay small, every part has its place.

Imports are read from the source with `ast` (those inside functions and
`TYPE_CHECKING` blocks too), so a lazy import cannot hide a wrong-way
dependency.  The rules are the ones each subpackage's docstring states and
docs/architecture.md draws.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"ruleplay": ROOT / "interpreter", "ruleplay.dsl": ROOT / "dsl", "ruleplay.validators": ROOT / "validators"}

# Layer -> the layers it may import (besides itself and the standard library and third-party packages).
ALLOWED = {
    "dsl": set(),
    "validators": {"dsl"},
    "files": set(),
    "engine": {"dsl", "validators", "files"},
    "agents": {"engine"},
    "runs": {"engine", "agents", "files"},
    "authoring": {"engine", "agents", "runs", "files", "dsl", "validators"},
    "view": {"engine", "agents", "runs", "files"},
    "adapters": {"engine", "agents", "runs", "view"},
    "editor": {"engine", "dsl", "validators", "files"},
    "cli": {"top", "engine", "agents", "runs", "authoring", "view", "adapters", "editor", "files", "dsl", "validators"},
    "pettingzoo": {"adapters"},  # ruleplay.pettingzoo and ruleplay.openspiel: the adapters' entry points
    "openspiel": {"adapters"},
    "top": {"engine"},
}
MAX_TOP_LEVEL_MODULES = 4  # besides __init__.py, e.g. the adapters' entry points
MAX_MODULE_LINES = 700


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str) -> set[str]:
    """The ruleplay modules that module `name` imports, resolved to module names."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            submodules = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES}
            found |= submodules
            if len(submodules) < len(node.names):  # names defined in `target` itself, not only its submodules
                found.add(target)
    return {t for t in found if t in MODULES}


def _layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1:
        return "top"
    return parts[1]


def test_every_module_belongs_to_a_layer_with_rules():
    unknown = sorted(n for n in MODULES if _layer(n) not in ALLOWED)
    assert unknown == [], "new top-level parts of ruleplay need a rule in ALLOWED (and in docs/architecture.md)"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_one_way(name):
    layer = _layer(name)
    wrong = sorted(t for t in _imports(name) if _layer(t) != layer and _layer(t) not in ALLOWED[layer])
    assert wrong == [], f"{name} ({layer}) may import only {sorted(ALLOWED[layer] | {layer})}"


def test_nothing_imports_the_command_line():
    users = sorted(n for n in MODULES if _layer(n) != "cli" and any(_layer(t) == "cli" for t in _imports(n)))
    assert users == []


def test_there_is_no_import_cycle():
    graph = nx.DiGraph()
    for name in MODULES:
        graph.add_edges_from((name, target) for target in _imports(name) if target != name)
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles}"


def test_the_state_does_not_import_its_game():
    assert "ruleplay.engine.game" not in _imports("ruleplay.engine.state")


def test_the_top_of_the_package_stays_small():
    top = sorted(p.name for p in SOURCES["ruleplay"].glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"modules at the top of interpreter/: {top}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_the_line_limit(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{MODULES[name]} has {lines} lines: split it by job"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _is_package(n) and n.startswith("ruleplay.")))
def test_each_subpackage_says_what_lives_there_and_what_it_may_import(name):
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    assert doc, f"{MODULES[name]} needs a docstring saying what lives there"
    if name.count(".") == 1:
        assert "import" in doc.lower(), f"{MODULES[name]}: say what the subpackage may import"


def test_the_rules_here_are_the_rules_in_the_architecture_page():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in ALLOWED:
        if layer != "top" and (SOURCES["ruleplay"] / layer).exists():
            assert f"`{layer}/`" in page, f"docs/architecture.md does not describe {layer}/"
