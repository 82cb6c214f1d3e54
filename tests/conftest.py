"""Shared test set-up: hypothesis profiles and a factory for inline rulesets."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

# Commands play on the Python engine unless a test asks for the native backend (tests/interpreter/engine/native):
# a command's default, `auto`, would compile every ruleset a test runs a command on.
os.environ.setdefault("RULEPLAY_BACKEND", "python")

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def make_game(tmp_path: Path):
    """make_game(yaml_text, **load_game_kwargs) -> Game, from a ruleset written to tmp_path."""
    from ruleplay import load_game

    def make(text: str, name: str = "game.yaml", **kwargs):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return load_game(path, **kwargs)

    return make
