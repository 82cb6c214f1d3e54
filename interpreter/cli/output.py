"""How every command reports: one JSON document or clear text, one message per error, never a traceback.

With `--json` a command prints one JSON document on stdout, errors included;
with `--report FILE` that document goes to FILE atomically instead.  Errors
from the engine become one located message and exit status 1; a bug in
ruleplay itself is still one line (the traceback only on request).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import Any, Callable, Sequence

import click

from ..engine.errors import RuleplayError, RuleRuntimeError, RulesetError

TRACEBACK_ENV = "RULEPLAY_TRACEBACK"


REPORT_KEY = "ruleplay.report"


def emit_json(data: Any) -> None:
    """Print the JSON document, or write it whole to the --report file (never half a report)."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    ctx = click.get_current_context(silent=True)
    report = ctx.meta.get(REPORT_KEY) if ctx is not None else None
    if report is None:
        click.echo(text, nl=False)
        return
    from ..files import atomic_write_text

    try:
        atomic_write_text(report, text)
    except OSError as err:
        click.echo(f"error: cannot write the report {report}: {err.strerror}", err=True)
        raise click.exceptions.Exit(1) from None
    click.echo(f"report written to {report}", err=True)


def rule_error_dict(err: RuleRuntimeError) -> dict:
    pos = err.pos
    where = {"file": pos.file, "line": pos.line, "col": pos.col} if pos and pos.line else None
    return {"code": err.code, "message": err.message, "pos": where, "hint": err.hint}


def reports_errors(fn: Callable) -> Callable:
    """Turn engine errors into one message (or one JSON document) and exit status 1."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = kwargs.get("as_json", False)
        try:
            return fn(*args, **kwargs)
        except RulesetError as err:
            if as_json:
                emit_json([d.to_dict() for d in err.diagnostics])
            else:
                for d in err.diagnostics:
                    click.echo(d.format(), err=True)
        except RuleRuntimeError as err:
            if as_json:
                emit_json({"error": rule_error_dict(err)})
            else:
                click.echo(f"error {err.code}: {err}", err=True)
                if err.hint:
                    click.echo(f"  hint: {err.hint}", err=True)
        except RuleplayError as err:
            if as_json:
                emit_json({"error": {"code": err.code, "message": err.message}})
            else:
                click.echo(f"error {err.code}: {err.message}", err=True)
        except BrokenPipeError:
            silence_stdout()
        except OSError as err:
            message = f"{err.filename}: {err.strerror}" if err.filename else str(err)
            if as_json:
                emit_json({"error": {"code": "OS", "message": message}})
            else:
                click.echo(f"error: {message}", err=True)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as err:
            # A bug in ruleplay itself: still one line for the user, the traceback on request.
            if os.environ.get(TRACEBACK_ENV):
                raise
            message = f"internal error {type(err).__name__}: {err} (set {TRACEBACK_ENV}=1 for the traceback)"
            if as_json:
                emit_json({"error": {"code": "internal", "message": message}})
            else:
                click.echo(message, err=True)
        raise click.exceptions.Exit(1)
    return wrapper


def silence_stdout() -> None:
    """The reader went away (`ruleplay play ... | head`): drop the rest quietly, even at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests); nothing will be flushed
        pass


SHOWN_ERRORS = 10


def echo_failures(failures: Sequence[Any], total: int, indent: str, err: bool) -> None:
    """The first few of `total` per-game rule errors as text (JSON output lists the first thousand)."""
    for e in failures[:SHOWN_ERRORS]:
        click.echo(f"{indent}game {e.index} (seed {e.seed}): error {e.code}: {e.message}", err=err)
    if total > SHOWN_ERRORS:
        click.echo(f"{indent}... and {total - SHOWN_ERRORS} more", err=err)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"
