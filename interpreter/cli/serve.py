"""`ruleplay serve`: a game table in the browser for one or more people, against agents or each other.

The table listens on the loopback address by default (127.0.0.1: only this
machine can reach it) and prints one secret address per person's seat; each
address shows that seat's view alone.  The game is kept in `--log FILE`
after every move, in the format `play --log` writes (without its end line
until the game is over), and `--resume` continues it, here or at the
terminal table when one person plays.  The log is held while the table is
served, as `play` holds its own: a second table or `play` naming it is
refused (RP681); a log that cannot be written stops the table (RP680).  The web framework (Starlette, served
by uvicorn) is the optional `serve` extra.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from pathlib import Path
from typing import Any

import click

from ..engine.errors import ReplayError, RuleplayError
from ..runs.play import SeatingError
from ..runs.gamelog import LogWriter
from ..runs.shared_table import SharedTable, log_keeper, served_seats
from ..runs.table import Table
from .options import (WholeNumber, game_options, load, output_file, overwrite_option, overwriting, refuse_existing,
                      table_agents_option)
from .output import echo, reports_errors
from .table import note_unchecked, note_unfollowed_ruleset, seed_text, unseen_seed


class ServeError(RuleplayError):
    """A table that cannot be served: the `serve` extra missing, an address that cannot be taken."""

    code = "RP662"


def _people(ctx: click.Context, param: click.Parameter, value: str | None) -> list[int] | None:
    if value is None:
        return None
    try:
        return [int(v) for v in value.split(",")]
    except ValueError:
        raise click.BadParameter("give seat numbers separated by commas: --human 0 or --human 0,2") from None


@click.command("serve")
@click.argument("game_name", metavar="GAME")
@table_agents_option
@click.option("--human", "people", callback=_people, default=None, metavar="SEAT[,SEAT...]",
              help="People play these seats in the browser; --agents names the other seats' agents.")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=output_file, help="Keep the game in this log (JSON Lines) after every move.")
@click.option("--resume", is_flag=True, help="Continue the game saved in --log FILE (seats, seed, variant from it).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; only the loopback address keeps the table on this machine.")
@click.option("--port", type=WholeNumber(min=0), default=8000, show_default=True,
              help="The port to listen on (0: any free port).")
@game_options
@overwrite_option
@reports_errors
def serve_command(game_name: str, agents: list[str], people: list[int] | None, log_file: Path | None, resume: bool,
                  host: str, port: int, players: int | None, variant: str | None, seed: int) -> None:
    """Serve a game table in the browser: each person opens their own seat's address."""
    try:
        import uvicorn

        from ..view.webtable import make_app, seat_tokens
    except ImportError:
        raise ServeError("`ruleplay serve` needs the web framework: install the extra with "
                         "`pip install 'ruleplay[serve]'`") from None
    if resume and log_file is None:
        raise click.UsageError("--resume continues the game saved in --log FILE")
    with contextlib.ExitStack() as held:
        table, seats_of_people, log = (_resumed(game_name, log_file) if resume else  # type: ignore[arg-type]
                                       _new(game_name, agents, people, players, variant, seed, log_file))
        if log is not None:
            held.enter_context(log)
        shared = SharedTable(table, seats_of_people, log_keeper(log) if log is not None else None)
        tokens = seat_tokens(seats_of_people)
        _serve(shared, uvicorn, make_app(shared, tokens), tokens, host, port, log_file)
    if shared.save_error is not None:  # the table stopped: the game is kept as far as the log took it
        raise shared.save_error
    snap = shared.snapshot()
    if snap.error is not None:
        # Its text may quote what a seat cannot see, and whoever runs the table may be one of its players.
        echo(f"the game stopped on a rule error after {len(snap.records)} moves"
             + (f": `ruleplay replay {log_file}` shows it" if log_file is not None else ""), err=True)
    echo(f"stopped after {len(snap.records)} moves" + (f"; continue with `ruleplay serve {game_name} --log "
                                                        f"{log_file} --resume`" if log_file is not None and
                                                        not snap.state.is_terminal() else ""))


def _serve(shared: SharedTable, uvicorn: Any, app: Any, tokens: dict[str, int], host: str, port: int,
           log_file: Path | None) -> None:
    """Serve the table until Ctrl-C, or until it stops by itself (a log that cannot be written)."""
    table, seats_of_people = shared.table, shared.people
    listener = _listen(host, port)
    shown_host = f"[{host}]" if ":" in host else host
    where = f"http://{shown_host}:{listener.getsockname()[1]}"
    echo(f"{table.game.info.title}: " + ", ".join(
        f"player {k} " + ("a person" if k in seats_of_people else a) for k, a in enumerate(table.seats)))
    for token, seat in tokens.items():
        echo(f"player {seat} plays at {where}/seat/{token}")
    if not _loopback(host):
        echo(f"warning: listening on {host}: anyone who can reach this machine can open the table's page "
             f"(each seat's address is still its own secret)", err=True)
    echo("Ctrl-C stops the table" + (f"; the game is kept in {log_file}" if log_file is not None else ""))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                           timeout_graceful_shutdown=1))  # pages wait on long polls
    agents_thread = threading.Thread(target=shared.run, name="ruleplay agents", daemon=True)
    agents_thread.start()

    def stop_serving() -> None:  # a table that stopped by itself takes the server down with it
        shared.wait_stopped()
        server.should_exit = True

    threading.Thread(target=stop_serving, name="ruleplay table stop", daemon=True).start()
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn stops on Ctrl-C, then raises it again: the way to close a table
        pass
    finally:
        shared.stop()
        agents_thread.join(timeout=5)
        listener.close()


def _new(game_name: str, agents: list[str], people: list[int] | None, players: int | None, variant: str | None,
         seed: int, log_file: Path | None) -> tuple[Table, set[int], LogWriter | None]:
    """A new table, and its log started (held, its header written) when there is one."""
    if log_file is not None and not overwriting():
        refuse_existing(log_file)
    game = load(game_name, players, variant)
    try:
        seats, seated_people = served_seats(agents, game.info.players, people)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--human" if people is not None else "--agents") from None
    seed, shown = unseen_seed(seed)
    echo(f"a new game: {seed_text(shown)}")
    table = Table.new(game, seats, min(seated_people), seed)
    if log_file is None:
        return table, seated_people, None
    log = LogWriter.start(log_file, game, seed, seats, game_name, replace=overwriting())
    note_unfollowed_ruleset(log_file, game_name)
    return table, seated_people, log


def _resumed(game_name: str, log_file: Path) -> tuple[Table, set[int], LogWriter]:
    """The unfinished game of `log_file`, its seats from the log, and the log held to go on with (a game
    in play elsewhere is refused before it is read).  Every agent move of the log is checked
    (`Table.resumed`)."""
    from ..runs.gamelog import read_log

    if not log_file.exists():
        raise click.BadParameter(f"no saved game {log_file} to resume", param_hint="--log")
    held = LogWriter.hold(log_file)
    try:
        logged = read_log(log_file, game_name)
        if logged.end is not None:
            raise ReplayError(f"{log_file}: the game is over ({len(logged.records)} moves): nothing to resume")
        seats = logged.header.get("agents")
        if not isinstance(seats, list) or not all(isinstance(a, str) for a in seats):
            raise ReplayError(f"{log_file}:1: header field 'agents' must be a list of agent names")
        try:
            seats, seated_people = served_seats(seats, logged.game.info.players, None)
        except SeatingError as err:
            raise ReplayError(f"{log_file}:1: the log's agents do not seat a table: {err}") from None
        note_unchecked(seats)
        table = Table.resumed(logged, seats, min(seated_people))
        return table, seated_people, LogWriter.resume(held, table.records, seats)
    except BaseException:
        held.close()
        raise


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, taken before the server starts so its port can be printed."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(64)
    except OSError as err:
        raise ServeError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    return listener
