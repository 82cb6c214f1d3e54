"""The soak run: many random games over every built-in configuration, every state of every game checked.

The configurations are every built-in ruleset at every player count, with
no variant and with each of its variants.  They share the run's time, not
its games: each next game goes to the configuration that has had the least
time so far, so a long game (a four-player Nautilus, some 500 states) is
checked as deeply as thousands of tic-tac-toe games, and the quick games
make up most of the count.  Game k is played by random agents from the seed
`game_seed(seed, k)`, so a finding is replayed alone by `ruleplay play`
with that seed (the report gives the command).  At every state it asserts what
the random-playout test asserts at the states it samples (the tests' own
checks, imported from `tests/interpreter/engine/`): the ruleset's
invariants (the game is loaded with `checking=True`), the JSON round trip,
a copy that shares nothing, observations, legal moves that apply and parse
back, and the leak checks (no seat's observation changes with what it may
not see, the history and chance outcomes stay masked, a move shows only
what is seen); at the end, the returns and the game log, written as
`ruleplay play --log` writes it, replayed move by move to the same final
state.  A check that fails is a finding (configuration, seed, state, what
failed) and the run goes on.

The native backend's soak (`--backend native`) plays the same random games
and holds the native module to the Python engine, which stays the
reference: the whole game played natively (`native.playout`, the random
agents seeded as `play_game` seeds them) makes the same moves, fires the
same rules and ends with the same scores (their types included) and
returns, without the Python engine making any step; and the game stepped
through the native state handle (`NativeState`) with the Python game's
moves agrees with the Python state at every state: who moves, the legal
actions, the chance outcomes, the rules fired, the whole state (through its
exact conversion, `to_state`, which must also survive the JSON round trip),
and a clone that takes another move leaves the handle as it was.  Each
backend and configuration pair gets its share of the time; `--backend`
names the backends soaked (default: both).
This is a benchmark, not a test: it runs for hours (`nice` it), on one core;
Ctrl-C ends it early with the report of the games it finished.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from ruleplay import load_game
from ruleplay.engine.game import Game
from ruleplay.engine.legal import CHANCE
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.native import AGENT_KINDS, NativeGame, NativeState, playout
from ruleplay.engine.state import State
from ruleplay.runs.play import agent_seed, game_seed, play_game

CHECKS = Path(__file__).resolve().parents[1] / "tests" / "interpreter" / "engine"
sys.path.insert(0, str(CHECKS))
from observation_checks import (TwinCounts, check_chance_outcomes_private, check_history_masked,  # noqa: E402
                                check_move_shows_only_what_is_seen, check_no_leak, check_twins_tested)
from playout_checks import (check_copy, check_end, check_log_replays, check_moves, check_observe,  # noqa: E402
                            check_round_trip)

Config = tuple[str, int, "str | None"]  # ruleset, players, variant
Unit = tuple[str, Config]  # a backend and a configuration: what shares the run's time


def configurations() -> list[Config]:
    """Every built-in ruleset at every player count, without a variant and with each of its variants."""
    found: list[Config] = []
    for name in builtin_games():
        info = load_game(name).info
        for players in range(info.min_players, info.max_players + 1):
            found += [(name, players, variant) for variant in (None, *info.variants)]
    return found


def label(config: Config) -> str:
    name, players, variant = config
    return f"{name} {players}p" + (f" {variant}" if variant else "")


def unit_label(unit: Unit) -> str:
    backend, config = unit
    return f"{backend}: {label(config)}"


@dataclasses.dataclass
class Finding:
    backend: str
    config: Config
    seed: int
    state: int | None  # the index of the state a check failed at (0: the start), None: the game's end or log
    error: str

    def replay_command(self) -> str:
        name, players, variant = self.config
        return (f"ruleplay play {name} --players {players}" + (f" --variant {variant}" if variant else "")
                + f" --agents random --seed {self.seed}")


@dataclasses.dataclass
class Report:
    backends: list[str]
    seed: int
    games: int = 0
    states: int = 0
    seconds: float = 0.0
    per_config: dict[str, list[float]] = dataclasses.field(default_factory=dict)  # label -> [games, states, s]
    findings: list[Finding] = dataclasses.field(default_factory=list)
    twins: Counter = dataclasses.field(default_factory=Counter)  # leak-check twins compared, and refused
    peak_rss_mb: float = 0.0
    interrupted: bool = False  # stopped by Ctrl-C before its games were played

    def to_dict(self) -> dict:
        return {"backends": self.backends, "seed": self.seed, "games": self.games, "interrupted": self.interrupted,
                "states": self.states,
                "seconds": round(self.seconds, 1), "peak_rss_mb": round(self.peak_rss_mb, 1),
                "twins": dict(self.twins), "configurations": {
                    k: {"games": int(g), "states": int(s), "seconds": round(t, 1)}
                    for k, (g, s, t) in self.per_config.items()},
                "findings": [dataclasses.asdict(f) | {"replay": f.replay_command()} for f in self.findings]}


def check_game(game: Game, config: Config, seed: int, folder: Path, twins: Counter) -> int:
    """Play one random game and check every state of it; the states checked.  AssertionError (or the rule
    error the game met) carries `.state`, the index of the state it failed at."""
    states: list[State] = []
    result = play_game(game, ["random"], seed, watch=lambda state, record: states.append(state))
    counts, players = TwinCounts(), game.info.players
    for k, state in enumerate(states):
        try:
            check_round_trip(game, state)
            check_copy(state)
            check_observe(state, players)
            check_no_leak(state, counts)
            check_history_masked(state)
            check_chance_outcomes_private(state, counts)
            if k:
                check_move_shows_only_what_is_seen(states[k - 1], state)
            check_moves(game, state)
        except Exception as err:
            err.state = k  # type: ignore[attr-defined]
            raise
    final = states[-1]
    check_twins_tested(final, counts)
    check_end(game, final, players)
    check_log_replays(game, config[0], result, final, folder / "game.jsonl")
    twins.update(tested=counts.tested, refused=counts.rejected)
    return len(states)


def native_game(config: Config) -> tuple[Game, NativeGame]:
    """The configuration's game (invariants checked) and its native module, built from that very game."""
    game = load_game(*config, checking=True)
    return game, NativeGame.of(game)


def check_native_game(loaded: tuple[Game, NativeGame], config: Config, seed: int, folder: Path,
                      twins: Counter) -> int:
    """Play one random game on the Python engine, then natively, whole and through the handle step by step,
    and compare them; the states compared.  AssertionError carries `.state` as `check_game`'s does."""
    game, ng = loaded
    states: list[State] = []
    python = play_game(game, ["random"], seed, watch=lambda state, record: states.append(state))
    players = game.info.players
    native = playout(ng, [AGENT_KINDS["random"]] * players, [agent_seed(seed, k) for k in range(players)], seed)
    assert native is not None
    assert native.moves == python.moves, "the native playout made other moves"
    assert native.fired == dict(Counter(rule for record in python.records for rule in record.rules)), \
        "the native playout fired other rules"
    assert (native.ended_by, native.scores, native.returns) == (python.ended_by, python.scores, python.returns)
    assert [type(s) for s in native.scores] == [type(s) for s in python.scores], "a score of another type"
    assert not native.handed_over, "the Python engine made a step of a built-in game"
    handle = NativeState.new(ng, seed)
    for k, state in enumerate(states):
        try:
            _same_state(game, handle, state)
            if k + 1 < len(states):
                _step(game, handle, states[k + 1].history[-1])
        except Exception as err:
            err.state = k  # type: ignore[attr-defined]
            raise
    return len(states)


def _same_state(game: Game, handle: NativeState, state: State) -> None:
    """The handle holds `state`: every question answered alike, the state itself equal and JSON-whole."""
    assert handle.current_player() == state.current_player, "another player to move"
    assert handle.is_terminal() == state.is_terminal()
    mirrored = handle.to_state()
    assert json.dumps(mirrored.data, sort_keys=True) == json.dumps(state.data, sort_keys=True), "other state data"
    assert mirrored == state and mirrored.history == state.history, "another state or history"
    assert handle.last_fired == state.last_fired, "other rules fired by the last move"
    check_round_trip(game, mirrored)
    if state.is_terminal():
        assert (handle.returns(), handle.scores()) == (state.returns(), state.scores())
        return
    actions = state.legal_actions()
    assert handle.legal_actions() == actions, "other legal actions"
    if state.current_player == CHANCE:
        assert handle.chance_outcomes() == [(game.move_to_index(m), p) for m, p in state.chance_outcomes()]
    elif len(actions) > 1:  # a clone taking another move leaves the handle as it was
        before = handle.to_state()
        twin = handle.clone()
        twin.apply_action(actions[-1])
        assert twin.to_state() == state.apply(game.index_to_move(actions[-1])), "a clone moved elsewhere"
        assert handle.to_state() == before and handle.legal_actions() == actions, "a clone's move changed it"


def _step(game: Game, handle: NativeState, move: object) -> None:
    if handle.current_player() == CHANCE:
        handle.apply_chance()  # the handle's generator must draw the outcome the Python engine drew
    else:
        handle.apply_action(game.move_to_index(move))


BACKENDS: dict[str, tuple[Callable[[Config], object], Callable[..., int]]] = {
    "python": (lambda config: load_game(*config, checking=True), check_game),
    "native": (native_game, check_native_game),
}


def soak(games: int, seed: int = 0, backends: list[str] | None = None, configs: list[Config] | None = None,
         seconds: float | None = None, progress: Callable[[Report], None] | None = None) -> Report:
    """Play and check `games` games (fewer if `seconds` runs out first: no game starts after it), shared by
    every backend and configuration."""
    configs = configs if configs is not None else configurations()
    backends = backends if backends is not None else list(BACKENDS)
    units = [(backend, config) for backend in backends for config in configs]
    loaded = {unit: BACKENDS[unit[0]][0](unit[1]) for unit in units}
    report = Report(backends, seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ruleplay-soak-") as folder:
        for key in map(unit_label, units):
            report.per_config[key] = [0, 0, 0.0]
        for k in _games(games, started, seconds):
            unit = min(units, key=lambda u: report.per_config[unit_label(u)][2])  # the least time so far
            (backend, config), gseed = unit, game_seed(seed, k)
            tally = report.per_config[unit_label(unit)]
            begun = time.monotonic()
            try:
                checked = BACKENDS[backend][1](loaded[unit], config, gseed, Path(folder), report.twins)
            except KeyboardInterrupt:  # Ctrl-C ends the run early: the report covers the games finished
                report.interrupted = True
                break
            except Exception as err:  # a finding: noted with its place, and the run goes on
                checked = 0
                report.findings.append(Finding(backend, config, gseed, getattr(err, "state", None), _described(err)))
            spent = time.monotonic() - begun
            tally[0] += 1
            tally[1] += checked
            tally[2] += spent
            report.games += 1
            report.states += checked
            report.seconds = time.monotonic() - started
            report.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            if progress is not None:
                progress(report)
    return report


def _games(games: int, started: float, seconds: float | None) -> Iterator[int]:
    for k in range(games):
        if seconds is not None and time.monotonic() - started > seconds:
            return
        yield k


def _described(err: Exception) -> str:
    """The failure in one paragraph: the exception and the innermost frames (a check's assert names it)."""
    frames = traceback.extract_tb(err.__traceback__)[-3:]
    where = "; ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in frames)
    return f"{type(err).__name__}: {err} (at {where})"


def text(report: Report) -> str:
    lines = [f"soak ({' and '.join(report.backends)} backend{'s' if len(report.backends) > 1 else ''}, seed "
             f"{report.seed}): {report.games} games"
             + (" (interrupted)" if report.interrupted else "") + f", {report.states} states "
             f"checked in {report.seconds:.0f} s; leak-check twins compared {report.twins['tested']}, refused as "
             f"no possible state {report.twins['refused']}; peak memory {report.peak_rss_mb:.0f} MB"]
    width = max((len(k) for k in report.per_config), default=0)
    lines.append(f"  {'configuration':<{width}}  {'games':>7} {'states':>10} {'seconds':>9}")
    for key, (games, states, spent) in sorted(report.per_config.items()):
        lines.append(f"  {key:<{width}}  {games:>7} {states:>10} {spent:>9.0f}")
    lines.append(f"findings: {len(report.findings)}")
    for finding in report.findings[:50]:
        step = "at the end" if finding.state is None else f"at state {finding.state}"
        lines.append(f"  {finding.backend}: {label(finding.config)}, seed {finding.seed}, {step}: {finding.error}")
        lines.append(f"    replay: {finding.replay_command()}")
    return "\n".join(lines)


def progress_line(every: float) -> Callable[[Report], None]:
    """A progress reporter printing one line to stderr at most every `every` seconds."""
    last = [time.monotonic()]

    def show(report: Report) -> None:
        if time.monotonic() - last[0] >= every:
            last[0] = time.monotonic()
            print(f"soak: {report.games} games, {report.states} states, {len(report.findings)} findings, "
                  f"{report.seconds:.0f} s", file=sys.stderr, flush=True)

    return show


def as_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2)
