"""An editor's own client: headless Neovim (Debian's package) runs `ruleplay lsp` through its built-in LSP client.

Neovim opens a copy of a built-in ruleset, a typo is typed into it, and the
diagnostic, a hover and a definition are read back from Neovim's side.
Under CI (env CI set) a missing `nvim` fails the test; elsewhere it is
skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RULEPLAY = str(Path(sys.executable).with_name("ruleplay"))
DRIVE = Path(__file__).with_name("neovim_drive.lua")
TIMEOUT = 60  # seconds Neovim waits for each answer, on a loaded machine


@pytest.fixture
def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is not installed: .ci/run installs it (apt-get install neovim)")
        pytest.skip("nvim is not installed (apt-get install neovim)")
    pytest.importorskip("pygls", reason="the lsp extra is not installed (pip install -e '.[lsp]')")
    return found


def test_neovim_shows_a_typo_and_answers_hover_and_definition(nvim: str, tmp_path: Path) -> None:
    (tmp_path / "rulesets").mkdir()
    ruleset = tmp_path / "rulesets" / "tic-tac-toe.yaml"
    shutil.copy(ROOT / "rulesets" / "tic-tac-toe.yaml", ruleset)
    shutil.copytree(ROOT / "seeds", tmp_path / "seeds")
    lines = ruleset.read_text(encoding="utf-8").splitlines()
    row = lines.index("      board[cell] = current")  # in actions.place.effects
    out = tmp_path / "out.json"
    env = {**os.environ, "LSP_OUT": str(out), "LSP_TIMEOUT": str(TIMEOUT), "LSP_FILE": str(ruleset),
           "RULEPLAY": RULEPLAY, "LSP_ROW": str(row), "LSP_COL": "6", "LSP_OLD": "board", "LSP_NEW": "bord",
           "LSP_HOVER_ROW": str(row), "LSP_HOVER_COL": "12"}  # the `cell` of `bord[cell]`
    done = subprocess.run([nvim, "--headless", "--clean", "-c", f"luafile {DRIVE}"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=6 * TIMEOUT)
    assert out.exists(), done.stderr
    found = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in found, found["error"]
    assert found["initialized"] and found["before"] == 0 and found["typo_seen"]
    assert found["diagnostics"] == [{"lnum": row, "col": 6, "end_col": 10, "code": "RP210", "severity": 1,
                                     "message": "unknown name `bord`\nhint: did you mean 'board'?"}]
    assert found["hover"].startswith("**parameter** `cell` of action `place`: `int`")
    params = lines.index("    params:") + 1  # `      cell: cells("grid")`, its declaration
    assert found["definition"] == [{"uri": ruleset.as_uri(), "range": {"start": {"line": params, "character": 6},
                                                                       "end": {"line": params, "character": 10}}}]
