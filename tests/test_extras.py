"""Under CI every optional extra is installed, so no test of one may quietly skip.

Tests of an extra's feature skip when its library is missing (a plain
`pip install -e '.[test]'`); this check makes such a skip a failure where
`.ci/run` installed `.[dev]`.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from pathlib import Path

import pytest

# The module each extra of pyproject.toml provides, as its tests import it.
EXTRA_MODULES = {"rl": ["pettingzoo", "gymnasium", "pyspiel", "numpy"], "picture": ["cairosvg"],
                 "browser": ["selenium"], "plot": ["matplotlib"], "dask": ["distributed"],
                 "native": ["cffi", "setuptools"], "lsp": ["pygls", "lsprotocol"], "serve": ["starlette", "uvicorn"]}


@pytest.mark.skipif(not os.environ.get("CI"), reason="only CI promises every extra")
@pytest.mark.parametrize("extra", sorted(EXTRA_MODULES))
def test_every_extra_is_installed_under_ci(extra):
    missing = [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]
    assert not missing, f"extra {extra!r}: {missing} not importable; .ci/run installs '.[dev]'"


def test_the_dev_extra_names_every_extra():
    extras = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    dev = extras["dev"][0]
    assert set(EXTRA_MODULES) | {"test"} == set(extras) - {"dev"}
    assert all(name in dev for name in set(extras) - {"dev"}), dev
