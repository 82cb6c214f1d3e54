"""The options several commands share, defined once: --players --variant --seed --agents (with
--allow-omniscient) --json --report --overwrite.

An output file that already exists is refused (exit 2, naming it) unless
the command is given `--overwrite`: a report, log, picture or chart must
not silently replace a file of the user's.  A results file (`simulate
--out`) is never replaced: it is completed with `--resume` or removed.

Output files (`--report`, `--log`, `--out`) are also guarded against the
files the same command reads.  `ruleplay validate game.yaml --report
game.yaml` would otherwise replace the user's ruleset with the report (and
a hard or symbolic link to it would do the same under another name).  So
`output_file` registers each output as its option is parsed (refusing two
outputs that name one file), each command names what it reads with
`output.reads` as soon as it knows (the ruleset and every file it extends
or includes, its spec, scenario files, a log, a saved state; `load` does
it for a ruleset), and an output that is one of those files, by device and
inode, is a usage error (exit 2) before anything is written.  The one file
meant to be both is `simulate --out F --resume`, which reads F and extends
it; it is not registered as something read.
"""

from __future__ import annotations

import functools
import re
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from ruleplay.dsl.diagnostics import ERROR

from ..agents import (AgentSpecError, agents_help, check_heuristic, check_spec, cut_off_warning, hidden_roll_warning,
                      omniscience_refusal)
from ..engine.errors import RulesetError
from ..engine.game import Game, load_game
from ..engine.loader import builtin_games, find_ruleset
from ..engine.rng import MAX_SEED
from ..files import UserFileError, write_target
from ..runs.play import SeatingError, seat_agents
from .output import OUTPUTS_KEY, OVERWRITE_KEY, REPORT_KEY, echo, overwriting, reads, same_file, terminal_safe


class WholeNumber(click.IntRange):
    """An integer option written in ASCII digits: Python's int() also reads `３` and `১` as numbers."""

    name = "integer"

    def _describe_range(self) -> str:
        """No range in `--help` for an unbounded number (click would print `x<=None`)."""
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
            self.fail(f"{value!r} is not a whole number written in the digits 0-9", param, ctx)
        return super().convert(value, param, ctx)


SEEDS = WholeNumber(min=0, max=MAX_SEED)  # every seed option: one game per seed written (see `check_seed`)


def _note_overwrite(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    ctx.meta[OVERWRITE_KEY] = value


def overwrite_option(fn: Callable) -> Callable:
    """`--overwrite`, parsed before every other option (eager) so the output callbacks can see it."""
    return click.option("--overwrite", is_flag=True, is_eager=True, expose_value=False, callback=_note_overwrite,
                        help="Replace output files that already exist (--report, --log, -o, the --plot "
                             "charts); without it an existing file is refused.")(fn)


def refuse_existing(path: Path) -> None:
    """A usage error if `path` exists and `--overwrite` was not given: a user's file is never replaced
    unasked (a dangling symbolic link counts as missing: writing creates the file it names)."""
    if path.exists() and not overwriting():
        raise click.BadParameter(f"{path} exists: add --overwrite to replace it, or choose another file")


def new_output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """`output_file` for an output written whole: a file that exists is refused unless `--overwrite`."""
    value = output_file(ctx, param, value)
    if value is not None:
        refuse_existing(value)
    return value


def output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """An output FILE is checked now, not after an hour of simulation: its folder must exist, and a
    FIFO, device or folder there is refused rather than replaced (a symbolic link is written through).
    Whether a regular file already there may be replaced is the caller's (`new_output_file`).

    A name the OS refuses (too long, ENAMETOOLONG; a folder without search
    permission) is a usage error naming it, like a missing folder.
    """
    if value is None:
        return None
    option = param.opts[0] if param.opts else str(param.name)
    try:
        folder_exists = value.parent.is_dir()
        if folder_exists:
            write_target(value)
    except UserFileError as err:
        raise click.BadParameter(f"{value} is {err.strerror}") from None
    except OSError as err:
        raise click.BadParameter(f"{value}: cannot write there: {err.strerror or err}") from None
    except ValueError as err:  # a NUL byte: only possible through the API, not from a shell
        raise click.BadParameter(f"{value!r}: {err}") from None
    if not folder_exists:
        raise click.BadParameter(f"no folder {value.parent} to write {value.name} in")
    outputs = ctx.meta.setdefault(OUTPUTS_KEY, [])
    for other_option, other in outputs:
        if same_file(other, value):
            raise click.BadParameter(f"{value} is also the {other_option} file: one would replace the other; "
                                     f"give each output a file of its own")
    outputs.append((option, value))
    return value


def ruleset_files(game: Game) -> list[Path]:
    """Every file a loaded game was read from: the ruleset, what it extends and includes, and its spec."""
    from ruleplay.validators.citations import spec_path

    model = game.model
    found = [Path(doc.file) for doc in model.source.documents()]
    spec, _ = spec_path(model)
    return found + ([spec] if spec is not None else [])


def reads_ruleset(game_name: str | os.PathLike) -> None:
    """Note the file `game_name` names as read, before loading it: an output naming it is then refused
    even if the ruleset does not load (its diagnostics would otherwise be written over it)."""
    try:
        reads([find_ruleset(game_name)], "the ruleset")
    except RulesetError:
        pass  # no such file: loading it reports that, with the same diagnostic


# Diagnostics that fault an option, not the ruleset: the ruleset is fine, the --players or --variant given is not
OPTION_FAULTS = {"RP302": "--players", "RP405": "--variant"}


def load(game_name: str | os.PathLike, players: int | None = None, variant: str | None = None,
         **options: Any) -> Game:
    """`load_noting_files`, where a player count or variant the game does not have is a usage error
    (exit 2) naming the option, as any other bad option value is, rather than a fault of the ruleset."""
    try:
        return load_noting_files(game_name, players, variant, **options)
    except RulesetError as err:
        errors = [d for d in err.diagnostics if d.severity == ERROR]
        if len(errors) == 1 and errors[0].code in OPTION_FAULTS:
            fault = errors[0]
            raise click.BadParameter(f"{fault.message} ({fault.code}; {fault.hint})",
                                     param_hint=OPTION_FAULTS[fault.code]) from None
        raise


def load_noting_files(game_name: str | os.PathLike, players: int | None = None, variant: str | None = None,
                      **options: Any) -> Game:
    """`load_game`, noting the files it reads (see `reads`): the named file first, then every file of the
    loaded game."""
    reads_ruleset(game_name)
    _note_shadowed_file(str(game_name))
    game = load_game(game_name, players, variant, **options)
    reads_game(game)
    return game


NOTED_KEY = "ruleplay.noted"  # the built-in names a command has already said are not the local files


def _note_shadowed_file(name: str) -> None:
    """A built-in game's name is the built-in game, even with a file of that name here: say so on stderr,
    as the user may have meant the file (`./NAME.yaml` names it)."""
    ctx = click.get_current_context(silent=True)
    noted = ctx.meta.setdefault(NOTED_KEY, set()) if ctx is not None else set()
    if name not in builtin_games() or name in noted:  # a command loading the game twice says it once
        return
    noted.add(name)
    for local in (name, f"{name}.yaml"):
        if os.path.isfile(local):
            echo(terminal_safe(f"note: {name} is the built-in game, not the file {local} here "
                               f"(give ./{local} to play the file)"), err=True)
            return


def reads_game(game: Game) -> None:
    """Note every file `game` was read from as read (`reads`): an output naming one of them is refused."""
    reads(ruleset_files(game), "a file of the ruleset")


def json_option(fn: Callable) -> Callable:
    """`--json` prints one JSON document; `--report FILE` writes that document to FILE atomically."""
    @functools.wraps(fn)
    def wrapper(*args: Any, report_file: Path | None, **kwargs: Any) -> Any:
        if report_file is not None:
            click.get_current_context().meta[REPORT_KEY] = report_file
            kwargs["as_json"] = True
        return fn(*args, **kwargs)

    wrapper = click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
                           callback=new_output_file, default=None, metavar="FILE",
                           help="Write the JSON document to FILE (whole or not at all) instead of printing it.")(wrapper)
    wrapper = overwrite_option(wrapper)
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(wrapper)


def ruleset_options(fn: Callable) -> Callable:
    fn = click.option("--variant", default=None, metavar="V", help="Play this variant of the ruleset.")(fn)
    return click.option("--players", type=WholeNumber(min=1), default=None, metavar="N",
                        help="Number of players (default: the ruleset's).")(fn)


def backend_option(fn: Callable) -> Callable:
    """`--backend auto|python|native`: what the command's games play on (`engine.native`)."""
    from ..engine.native import BACKENDS, ENV_VAR, default_choice

    return click.option("--backend", type=click.Choice(BACKENDS), default=default_choice,
                        show_default=f"auto, or ${ENV_VAR}",
                        help="What the games play on: the ruleset compiled to C (native), the Python engine "
                             "(python), or native where it can (auto: a line on stderr says where it cannot "
                             "and why). The results are the same on both.")(fn)


def plays_on(game: Game, choice: str, agents: list[str] | None = None, judged: bool = False,
             heuristic: str | None = None, said: set[str] | None = None) -> str:
    """The backend the command's games play on ("native" or "python"), saying on stderr why `auto` plays on
    Python (once: not again if already in `said`, for commands that play several games); `native` that
    cannot be is an error (RP670, exit 1)."""
    from ..runs.play import plays_on as backend_of

    backend = backend_of(game, choice, agents, judged, heuristic)
    if backend.why_not is not None and backend.why_not not in (said if said is not None else ()):
        echo(terminal_safe(f"note: playing on the Python engine: {backend.why_not}"), err=True)
        if said is not None:
            said.add(backend.why_not)
    return backend.name


def game_options(fn: Callable) -> Callable:
    fn = click.option("--seed", type=SEEDS, default=0, show_default=True, metavar="S",
                      help="Seed of every random event (and of the agents).")(fn)
    return ruleset_options(fn)


def parse_agents(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """Agent specs, one per seat: commas separate seats, colons an agent's options (`mcts:iterations=400`)."""
    specs = [v.strip() for v in value.split(",")]
    try:
        return [check_spec(spec) for spec in specs]
    except AgentSpecError as err:
        raise click.BadParameter(str(err)) from None


def parse_headless_agents(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """`parse_agents` for the commands no person sits at (simulations, comparisons, tournaments): an agent
    that needs a person is a usage error saying how to play it, in every one of them alike."""
    specs = parse_agents(ctx, param, value)
    try:
        seat_agents(specs, len(specs))  # as many agents as seats: only a person can be refused
    except SeatingError as err:
        raise click.BadParameter(str(err)) from None
    return specs


OMNISCIENT_KEY = "ruleplay.allow_omniscient"


def _note_omniscient(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    ctx.meta[OMNISCIENT_KEY] = value


def allow_omniscient_option(fn: Callable) -> Callable:
    """`--allow-omniscient`, noted for `check_agents` (eager, like --overwrite, so every check sees it)."""
    return click.option("--allow-omniscient", is_flag=True, is_eager=True, expose_value=False,
                        callback=_note_omniscient,
                        help="Let agents that read the whole state (greedy, mcts) play a game that keeps "
                             "secrets; without it they are refused there (use ismcts).")(fn)


def _agents_option(people: bool) -> Callable[[Callable], Callable]:
    def decorate(fn: Callable) -> Callable:
        fn = allow_omniscient_option(fn)
        return click.option("--agents", default="random", show_default=True,
                            callback=parse_agents if people else parse_headless_agents,
                            metavar="A[:OPT=V...][,B...]",
                            help=f"One agent for all seats, or one per seat, options after colons "
                                 f"(mcts:iterations=400:depth=20,random). Agents: {agents_help(people)}.")(fn)

    return decorate


agents_option = _agents_option(people=False)  # headless runs: no `human`, which needs a person at the table
table_agents_option = _agents_option(people=True)  # `ruleplay play`, where a person can take a seat


def seated(agents: Sequence[str], game: Game) -> list[str]:
    """The agent of each seat of `game`, once the agents are checked against it (`check_agents`)."""
    check_agents(agents, game)
    try:
        return [str(a) for a in seat_agents(agents, game.info.players)]
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None


def check_seat(seat: int | None, game: Game) -> None:
    """A usage error for an `--as SEAT` the game does not have (known only once the game is loaded)."""
    players = game.info.players
    if seat is not None and seat >= players:
        raise click.BadParameter(f"seat {seat} is not a seat of this game (0..{players - 1})", param_hint="--as")


def check_agents(agents: Sequence[str], game: Game, option: str = "--agents") -> None:
    """A usage error, before any game is played, for an agent naming a heuristic `game` lacks, and for an
    agent that reads the whole state in a game that keeps secrets unless `--allow-omniscient` was given;
    a warning for a search cut off by `depth` where there is no heuristic to judge the cut-off."""
    try:
        for spec in agents:
            check_heuristic(spec, game.info.name, game.model.heuristics)
    except AgentSpecError as err:
        raise click.BadParameter(str(err), param_hint=option) from None
    ctx = click.get_current_context(silent=True)
    refusal = omniscience_refusal(agents, game)
    if refusal is not None and not (ctx is not None and ctx.meta.get(OMNISCIENT_KEY)):
        raise click.BadParameter(f"{refusal}; give --allow-omniscient to allow that", param_hint=option)
    for spec in dict.fromkeys(agents):
        for warning in (cut_off_warning(spec, game.info.name, game.model.heuristics),
                        hidden_roll_warning(spec, game)):
            if warning is not None:
                echo(f"warning: {warning}", err=True)
