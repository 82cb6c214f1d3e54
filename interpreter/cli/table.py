"""`ruleplay play --human SEAT` (or `--agents human,...`): a person at the table, and `--resume` of a saved game.

The person sees only their seat's view: every move as `record.views[seat]`
(what `move_view` shows that seat), the board drawn from their observation,
and at the end the result.  The game is kept in `--log FILE`, each move as
it is made (`gamelog.LogWriter`), the end line once it ends, so a person who
leaves (`q`, the end of input, Ctrl-C, a closed window, a kill) leaves it
without one, and `--resume` reads it back, replays it and continues.  This
module also holds the two printers `play` shares with it: a move as a seat
sees it, and the result line.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import sys
from pathlib import Path
from typing import Any, Callable

import click
from click.core import ParameterSource

from ..agents import check_heuristic, is_interactive, make_agent
from ..agents.human import HELP, HumanAgent, StdioConsole
from ..engine.errors import ReplayError, RuleRuntimeError
from ..engine.errors import withheld as withheld_text
from ..engine.game import Game
from ..engine.legal import CHANCE
from ..engine.model import GameModel
from ..engine.people import for_people
from ..engine.render import render_seat_text
from ..engine.views import rounds_shown, told
from ..engine.state import State
from ..runs.gamelog import LogWriter, read_log
from ..runs.play import MoveRecord, PlayResult, SeatingError
from ..runs.table import Table, table_seats, unchecked_seats
from .options import check_agents, load, overwriting, reads_ruleset, ruleset_files
from .output import INTERRUPTED, echo, reads


def show_as(seat: int) -> Callable[[State, MoveRecord | None], None]:
    """What seat `seat` is shown of each move: its own view, `?` for what it may not see, then the events
    it is told (`announce`) and the end of a round."""
    rounds: list[int] = []

    def show(state: State, record: MoveRecord | None) -> None:
        if record is not None:
            who = "chance" if record.player < 0 else f"player {record.player}"
            model = state.game.model
            echo(f"{record.n}. {who}: {for_people(model, record.views[seat] if record.views else record.move)}")
            for line in event_lines(model, record, seat):
                echo(line)
        ended = round_ended(rounds, state)
        if ended is not None and rounds_shown(state.game.model):
            echo(f"-- end of round {ended} --")
    return show


def _after_agents(show: Callable[[State, MoveRecord | None], None],
                  person: int) -> Callable[[State, MoveRecord | None], None]:
    """`show`, then, after an agent's move, drop what the person typed while it was thinking (a search can
    take seconds): a key pressed while waiting must not become their next move unseen."""
    def watch(state: State, record: MoveRecord | None) -> None:
        show(state, record)
        if record is not None and record.player not in (person, CHANCE):
            discard_typeahead()
    return watch


def discard_typeahead() -> None:
    """Forget the keys typed but not yet read, where standard input is a terminal."""
    if sys.stdin.isatty():
        try:
            import termios

            termios.tcflush(sys.stdin, termios.TCIFLUSH)
        except (ImportError, OSError):  # not a POSIX terminal: nothing to forget
            pass


def event_lines(model: GameModel, record: MoveRecord, seat: int | None) -> list[str]:
    """The events of a move that `seat` is told (all of them for None), one line each with its rule."""
    return [f"   >> {for_people(model, e['text'])}" + (f"  [{e['rule']}]" if e["rule"] else "")
            for e in told(list(record.events), seat)]


def round_ended(rounds: list[int], state: State) -> int | None:
    """The round that ended with the move that led to `state` (or None), from the rounds seen so far."""
    ended = rounds[-1] if rounds and (state.round != rounds[-1] or state.is_terminal()) else None
    rounds[:] = [] if state.is_terminal() else [state.round]
    return ended


def result_text(result: PlayResult) -> str:
    outcome = ("winner: " + ", ".join(f"player {p}" for p in result.winners)) if result.winners else "draw"
    return f"result: {outcome}; scores {result.scores}, returns {result.returns}, {result.length} moves"


SEED_BITS = 63  # a table's own seed when none is given: as many as a person could never guess or look up


def _given(name: str) -> bool:
    """Whether option `name` was given (on the command line or in the environment), not left at its default."""
    source = click.get_current_context().get_parameter_source(name)
    return source not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def unseen_seed(seed: int) -> tuple[int, int | None]:
    """The seed of a game shown through one seat's eyes, and the seed that seat may be shown (or None).

    The default seed is 0, and a seed fixes every deal: whoever is shown a
    seat's view could replay the game and look up every hidden card.  So a
    seat's game without `--seed` gets a seed drawn here and not shown (a log
    keeps it); a seed given on the command line is one the reader already has.
    """
    if _given("seed"):
        return seed, seed
    return secrets.randbits(SEED_BITS), None


def seed_text(shown: int | None) -> str:
    return "a seed drawn at random and not shown" if shown is None else f"seed {shown}"


def _seating(agents: list[str], players: int, human: int | None) -> tuple[list[str], int]:
    try:
        return table_seats(agents, players, human)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--human" if human is not None else "--agents") from None


def _resumed(game_name: str, log_file: Path, agents: list[str], human: int | None, players: int | None,
             variant: str | None, seed: int) -> Table:
    """The game saved in `log_file`, replayed against GAME and held for this table (`LogWriter.hold`: a
    game in play elsewhere is refused); an option given again must agree with the log."""
    if not log_file.exists():
        raise click.BadParameter(f"no saved game {log_file} to resume (start one without --resume)",
                                 param_hint="--log")
    reads_ruleset(game_name)
    held = LogWriter.hold(log_file)
    try:
        table = _read_back(game_name, log_file, agents, human, players, variant, seed)
        table.log = LogWriter.resume(held, table.records, table.seats)
    except BaseException:
        held.close()
        raise
    return table


def _read_back(game_name: str, log_file: Path, agents: list[str], human: int | None, players: int | None,
               variant: str | None, seed: int) -> Table:
    logged = read_log(log_file, game_name)
    reads(ruleset_files(logged.game), "a file of the ruleset")
    header, count = logged.header, len(logged.records)
    if logged.end is not None:
        raise ReplayError(f"{log_file}: the game is over ({count} moves, scores {logged.end.get('scores')}): "
                          f"nothing to resume; start a new game without --resume")
    info = logged.game.info
    logged_seats = header.get("agents")
    if not isinstance(logged_seats, list) or not all(isinstance(a, str) for a in logged_seats):
        raise ReplayError(f"{log_file}:1: header field 'agents' must be a list of agent names")
    if not any(is_interactive(name) for name in logged_seats):
        raise ReplayError(f"{log_file}:1: the game was played by agents {', '.join(logged_seats)}, with no person "
                          f"at the table: only a game a person left can be resumed (the seats come from the log, "
                          f"not from --agents or --human)")
    try:
        seats, seat = table_seats(logged_seats, info.players)
        for name in seats[:seat] + seats[seat + 1:]:
            make_agent(name)
            check_heuristic(name, info.name, logged.game.model.heuristics)  # as --agents is checked
    except (SeatingError, ValueError) as err:
        raise ReplayError(f"{log_file}:1: the log's agents {logged_seats} do not seat a table: {err}") from None
    check_agents(seats[:seat] + seats[seat + 1:], logged.game, option="--log")  # as a new table's are
    for option, given, logged_value in (("--seed", seed, header["seed"]), ("--players", players, info.players),
                                        ("--variant", variant, header["variant"])):
        if _given(option.lstrip("-")) and given != logged_value:
            # The seed fixes every hidden card: a person at the table is not told it (`unseen_seed`).
            played = "another seed" if option == "--seed" else f"{option} {logged_value}"
            raise click.BadParameter(f"the saved game was played with {played}; "
                                     + ("" if option == "--seed" else "give that, or ")
                                     + f"leave {option} out to take it from the log", param_hint=option)
    if (_given("agents") or human is not None) and _seating(agents, info.players, human) != (seats, seat):
        raise click.BadParameter(f"the saved game seats {', '.join(seats)}; leave --agents and --human out "
                                 f"to take them from the log", param_hint="--agents")
    note_unchecked(seats)
    return Table.resumed(logged, seats, seat)


def note_unchecked(seats: list[str]) -> None:
    """Say which agents' logged moves a resume takes as they are (`runs.table.unchecked_seats`)."""
    unchecked = unchecked_seats(seats)
    if unchecked:
        echo(f"note: the logged moves of {', '.join(f'{seats[k]} at seat {k}' for k in unchecked)} are taken as "
             f"they are: a search with a time budget (seconds=) does not decide the same way twice, so they "
             f"cannot be checked", err=True)


def play_with_person(game_name: str, agents: list[str], log_file: Path | None, seat: int | None,
                     human: int | None, resume: bool, players: int | None, variant: str | None, seed: int,
                     as_json: bool) -> None:
    """Set the table (new, or resumed from the log), play it, and keep the game in the log."""
    if as_json:
        raise click.UsageError("--json and --report give a finished game as one document; a game with a "
                               "person is shown as text: drop --json/--report")
    if seat is not None:
        raise click.UsageError("--as shows a game through one seat's eyes; at a table the person's seat "
                               "is the one shown: drop --as")
    if resume and log_file is None:
        raise click.UsageError("--resume continues the game saved in --log FILE")
    if resume:
        assert log_file is not None
        table = _resumed(game_name, log_file, agents, human, players, variant, seed)
        named = f"seed {table.seed}" if _given("seed") else "the saved game's seed"
    else:
        game = load(game_name, players, variant)
        seats, person_seat = _seating(agents, game.info.players, human)
        check_agents(seats[:person_seat] + seats[person_seat + 1:], game)
        seed, shown = unseen_seed(seed)  # the log keeps a drawn seed, for --resume
        try:
            table = Table.new(game, seats, person_seat, seed)
        except RuleRuntimeError as err:  # in the setup, or listing the first moves
            raise withheld(err, game, person_seat) from None
        named = seed_text(shown)
        if log_file is not None:
            table.log = LogWriter.start(log_file, game, seed, seats, game_name, replace=overwriting())
            note_unfollowed_ruleset(log_file, game_name)
    with table.log if table.log is not None else contextlib.nullcontext():
        _sit(table, game_name, log_file, named)


def _sit(table: Table, game_name: str, log_file: Path | None, named: str) -> None:
    """The person at the table until the game ends or they leave; the log follows every move."""
    me = table.human
    echo(f"{table.game.info.title}: {named}, "
         + ", ".join(f"player {k} " + ("you (human)" if k == me else a) for k, a in enumerate(table.seats)))
    echo(HELP)
    show = show_as(me)
    if table.records:
        echo(f"resumed from {log_file} after {len(table.records)} moves:")
        for record in table.records:
            show(table.state, record)
    person = HumanAgent(console=StdioConsole(write=echo))
    with _HangUp() as hang_up:
        try:
            stopped = table.play(person, _after_agents(show, me),
                                 thinking=lambda seat: echo(f"player {seat} ({table.seats[seat]}) is thinking..."))
        except OSError:  # the terminal went away (EIO on a closed window): the log holds the game; report it
            hang_up.playing = False
            raise
        except RuleRuntimeError as err:  # the log of the game a rule error stopped is what reports it
            hang_up.playing = False
            if log_file is not None:
                moves = len(table.records)
                echo(f"\nsaved to {log_file}: the {moves} move{'' if moves == 1 else 's'} before a rule error "
                     f"stopped the game")
            raise withheld(err, table.game, me) from None
        hang_up.playing = False
        _finish(table, stopped, game_name, log_file)


def withheld(err: RuleRuntimeError, game: Game, seat: int) -> RuleRuntimeError:
    """The rule error as seat `seat` may be shown it: in a game that keeps secrets, without its text
    (`engine.errors.withheld`); the text is for whoever may see the whole game (`ruleplay play` without
    --as or --human, with the seed)."""
    return withheld_text(err, seat) if game.model.keeps_secrets else err


class _HangUp:
    """While the game is played, a closed terminal window (SIGHUP) stops it like Ctrl-C, so it is saved.

    Once play stops, a hang-up is ignored until the command ends: the game
    is being saved, and closing a window often signals twice (tmux, then the
    kernel as the shell exits) or ends the input first, so a second signal
    would otherwise kill the save half written.  The previous handler is
    restored at the end (the command may run inside a longer process).
    """

    def __init__(self) -> None:
        self.playing = True
        self.previous: Any = None

    def __enter__(self) -> "_HangUp":
        if hasattr(signal, "SIGHUP"):  # not on Windows
            self.previous = signal.signal(signal.SIGHUP, self._signal)
        return self

    def __exit__(self, *exc: object) -> None:
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, self.previous)

    def _signal(self, signum: int, frame: object) -> None:
        if self.playing:
            self.playing = False
            raise KeyboardInterrupt


def note_unfollowed_ruleset(log_file: Path, game_name: str) -> None:
    """Say so when the log just written names its ruleset where reading it back will not follow it.

    A log records its ruleset relative to its own folder, and a reader follows
    no path out of that folder: a log written below the ruleset's folder
    replays only with `--ruleset`, which is better known now than at replay.
    """
    from ..runs.ruleset_ref import recorded

    ref = recorded(game_name, log_file)
    if ref.startswith("../"):
        echo(f"note: {log_file} names its ruleset {ref!r}, outside the log's folder, which `replay`, `view` "
             f"and `render` do not follow: give them --ruleset {game_name} (or keep logs in the ruleset's "
             f"folder or one above it)", err=True)


def _finish(table: Table, stopped: str, game_name: str, log_file: Path | None) -> None:
    """End the log (its moves are in it already), then show the end (or where the game was left)."""
    result = table.result()
    if stopped == "end" and table.log is not None:
        table.log.finish(result)  # first: after a hang-up there may be no terminal left to print to
    if stopped == "end":
        echo(render_seat_text(table.game.model, table.state.data, table.human))
        echo(f"\n{result_text(result)}")
        if log_file is not None:
            echo(f"log written to {log_file}")
        return
    echo("")
    if log_file is None:
        echo(f"left after {result.length} moves; not saved (give --log FILE to keep a game you leave)")
    else:
        echo(f"saved after {result.length} moves to {log_file}; continue with "
             f"`ruleplay play {game_name} --log {log_file} --resume`")
    if stopped == "interrupt":
        raise click.exceptions.Exit(INTERRUPTED)
