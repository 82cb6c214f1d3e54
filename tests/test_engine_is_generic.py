"""The engine knows no game: no file of the language, engine or checks names one.

Whatever a game needs becomes a general primitive; this test keeps the names
of the built-in games and their pieces out of `dsl/`, `interpreter/` and
`validators/`.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ["dsl", "interpreter", "validators"]
GAME_WORDS = re.compile(
    r"\b(nautilus|lovci|divers?|sailors?|submarines?|researchers?|seahorses?|dolphins?|octopus|"
    r"tic.?tac.?toe|connect.?four|kuhn)\b", re.IGNORECASE)


def engine_files() -> list[Path]:
    return sorted(p for d in ENGINE for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".lark"))


def test_engine_files_exist():
    assert len(engine_files()) > 20


def test_no_engine_file_names_a_game():
    offenders = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
                 for p in engine_files()
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
                 if GAME_WORDS.search(line)]
    assert offenders == []
