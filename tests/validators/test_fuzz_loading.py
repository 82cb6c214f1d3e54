"""Mutated shipped rulesets load as a game or fail with `RulesetError`, never anything else.

Each example takes one of `rulesets/*.yaml` and breaks it: a key deleted, a
value swapped for one of another type, random text pushed into an expression
(then loaded with each of its variants too), or the file's text cut, spliced
or gouged at random offsets.  Loading must end in a `Game` or a
`RulesetError` — any other exception is a loader bug — and
within a time limit (an alarm turns a hang into a failure).  Example counts
come from the hypothesis profile (`ci` by default; `HYPOTHESIS_PROFILE=dev`
for a longer run, or tests/fuzz/fuzz_load.py for coverage-guided fuzzing) in
the slow run; the default run tries the first `QUICK` of them.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleplay import Game, RulesetError, load_game
from ruleplay.engine.loader import rulesets_dir

# Read once, so every example (and hypothesis's replay of it) sees the same bytes.
SOURCES = {p.name: p.read_bytes() for p in sorted(rulesets_dir().glob("*.yaml"))}
SECONDS = 20.0  # CPU seconds: a load takes about one at most; this only catches hangs

# Pieces of rule text that stress the expression parser and compiler.
TOKENS = ["(", ")", "[", "]", "{", "}", '"', "'", ".", ",", ":", ";", "@", "#", "=", "==", "<", "+", "-", "*",
          "//", "%", "!", "\\", "\n", "\t", " ", "if", "then", "else", "for", "in", "not", "and", "or", "let",
          "goto x", "stage y", "call f()", "x", "board", "__class__", ".__class__", "__import__('os')", '"".join',
          "1e999", "9" * 400, "(" * 70, "not " * 150, "1 + " * 150, "@TT-9.9 ", "é", "\u2028", "\x00", "\x07"]
rule_text = st.lists(st.sampled_from(TOKENS) | st.text(max_size=6), max_size=8).map("".join)
json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | rule_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the ruleset folder and its sibling seeds/, so `spec:` and includes still resolve."""
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(rulesets_dir(), root / "rulesets")
    for name, raw in SOURCES.items():
        (root / "rulesets" / name).write_bytes(raw)
    seeds = rulesets_dir().parent / "seeds"
    if seeds.is_dir():
        shutil.copytree(seeds, root / "seeds")
    return root / "rulesets"


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: a CPU-time alarm where the platform has one, a clock check everywhere.

    CPU time, not wall time, so a busy machine slows the test down without failing it.
    """
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"loading used over {seconds}s of CPU time")

    alarm = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
    if alarm:
        previous = signal.signal(signal.SIGPROF, expire)
        signal.setitimer(signal.ITIMER_PROF, seconds)
    start = time.process_time()
    try:
        yield
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
    assert time.process_time() - start < seconds


def load_cleanly(folder: Path, source: str, text: str | bytes, variants: bool = False) -> None:
    """Load the text as a ruleset (and, if asked and it loads, each of its variants): a game or a RulesetError."""
    path = folder / f"mutant-{source}"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    names: list[str | None] = [None]
    while names:
        with deadline(SECONDS):
            try:
                game = load_game(path, variant=names.pop())
            except RulesetError as err:
                assert err.diagnostics and "Traceback" not in err.format()
                continue
        assert isinstance(game, Game) and game.info.num_distinct_actions >= 0
        if variants and game.info.variant is None:
            names = list(game.info.variants)


def places(data: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every path in the data (the root included)."""
    yield prefix
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from places(value, prefix + (key,))


def parent_of(data: Any, path: tuple) -> Any:
    for step in path[:-1]:
        data = data[step]
    return data


def dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


FUZZ = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
QUICK = 12  # examples of each kind in the default run (a load of a seed game with its variants takes a second)


def structural_mutation(workdir: Path, data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(sorted(SOURCES)), label="ruleset")
    tree = yaml.safe_load(SOURCES[source].decode("utf-8"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        kind = data.draw(st.sampled_from(["delete", "swap", "text"]), label="kind")
        spots = [p for p in places(tree) if p]
        if kind == "delete":
            keys = [p for p in spots if isinstance(parent_of(tree, p), dict)]
            if keys:
                path = data.draw(st.sampled_from(keys), label="delete")
                del parent_of(tree, path)[path[-1]]
        elif kind == "swap" and spots:
            path = data.draw(st.sampled_from(spots), label="swap")
            parent_of(tree, path)[path[-1]] = data.draw(json_like, label="value")
        elif kind == "text":
            strings = [p for p in spots if isinstance(parent_of(tree, p)[p[-1]], str)]
            if not strings:
                continue
            path = data.draw(st.sampled_from(strings), label="string")
            old = parent_of(tree, path)[path[-1]]
            at = data.draw(st.integers(0, len(old)), label="at")
            parent_of(tree, path)[path[-1]] = old[:at] + data.draw(rule_text, label="insert") + old[at:]
    load_cleanly(workdir, source, dump(tree), variants=True)


def text_mutation(workdir: Path, data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(sorted(SOURCES)), label="ruleset")
    raw = SOURCES[source]
    kind = data.draw(st.sampled_from(["truncate", "splice", "gouge"]), label="kind")
    at = data.draw(st.integers(0, len(raw)), label="at")
    if kind == "truncate":
        raw = raw[:at]
    elif kind == "splice":
        piece = data.draw(rule_text | st.binary(max_size=8), label="insert")
        raw = raw[:at] + (piece if isinstance(piece, bytes) else piece.encode("utf-8")) + raw[at:]
    else:
        raw = raw[:at] + raw[at + data.draw(st.integers(1, 200), label="length"):]
    load_cleanly(workdir, source, raw)


@settings(FUZZ, max_examples=QUICK)
@given(data=st.data())
def test_structural_mutations_load_or_fail_cleanly(workdir: Path, data: st.DataObject):
    structural_mutation(workdir, data)


@settings(FUZZ, max_examples=QUICK)
@given(data=st.data())
def test_text_mutations_load_or_fail_cleanly(workdir: Path, data: st.DataObject):
    text_mutation(workdir, data)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_structural_mutations_load_or_fail_cleanly_at_length(workdir: Path, data: st.DataObject):
    structural_mutation(workdir, data)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_text_mutations_load_or_fail_cleanly_at_length(workdir: Path, data: st.DataObject):
    text_mutation(workdir, data)


def test_every_shipped_ruleset_loads_unmutated(workdir: Path):
    """The baseline: the copies load, so what the tests above see comes from their mutations."""
    assert SOURCES
    for name, raw in SOURCES.items():
        (workdir / name).write_bytes(raw)
        assert isinstance(load_game(workdir / name), Game)
