"""How every command reports: one JSON document or clear text, one message per error, never a traceback.

With `--json` a command prints one JSON document on stdout, errors included;
with `--report FILE` that document goes to FILE atomically instead
(`write_output`, as every file written whole).  Errors
from the engine become one located message and exit status 1; a bug in
ruleplay itself is still one line (the traceback only on request).

Everything printed goes through `echo` (text) or `emit_json` (JSON), which
escape what a terminal would obey instead of show: control characters (C0
but tab and newline, DEL, C1) and the bidirectional overrides and isolates
that make text read differently from what it is.  A ruleset's title, a
move's text, a rule id or a results file's error message is data from
whoever wrote the file, and must not move the cursor, retitle the window or
reorder the line the user reads.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from typing import Any, Callable, Iterable, Sequence

import click

from .. import files
from ..dsl.ast import Pos
from ..dsl.diagnostics import caret_lines
from ..engine.errors import OutputError, RuleplayError, RuleRuntimeError, RulesetError, output_error

TRACEBACK_ENV = "RULEPLAY_TRACEBACK"


REPORT_KEY = "ruleplay.report"
INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C

# Characters a terminal may act on: C0 (but tab and newline), DEL, C1, the bidi marks, embeddings, overrides
# and isolates (Trojan Source), and the line and paragraph separators; and lone surrogates (an argument or
# file name that was not UTF-8), which no terminal encoding can write at all.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_TEXT = re.compile(f"[{_UNSAFE}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """`text` with every character a terminal would act on written as an escape (`\\x1b`, `\\u202e`)."""
    return _UNSAFE_TEXT.sub(_escape, text)


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """click.echo for every line a command prints as text: control characters from files come out escaped."""
    click.echo(terminal_safe(message), err=err, nl=nl)


def json_text(data: Any) -> str:
    """The JSON document as text, with the characters JSON allows raw in strings but a terminal acts on
    (DEL, C1, bidi controls) written as \\u escapes: the same JSON value, safe to print.  json.dumps
    escapes C0 inside strings itself, so what the pattern finds raw can only be inside a string."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _UNSAFE_TEXT.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


OUTPUTS_KEY = "ruleplay.outputs"  # [(option, path)] of this command's output files
OVERWRITE_KEY = "ruleplay.overwrite"


def overwriting() -> bool:
    """Whether the running command was given `--overwrite`: output files that exist may be replaced."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(OVERWRITE_KEY))


def write_output(path: str | os.PathLike, data: bytes, what: str) -> None:
    """`data` to the output file `path` (the report, a picture, ...), whole or not at all.

    A file there is replaced only with `--overwrite`: without it, a file
    that appeared at `path` since the command checked it is kept (the
    existence check at the start cannot see it).  OutputError (RP680)
    naming the file if it cannot be written.
    """
    try:
        files.atomic_write_bytes(path, data, replace=overwriting())
    except OSError as err:
        raise output_error(err, path, what) from None


def _identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """(device, inode) of the file at `path` after symbolic links, or None if there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file: the same inode (links of either kind), or, for files not yet
    there, the same real path."""
    ia, ib = _identity(a), _identity(b)
    if ia is not None or ib is not None:
        return ia == ib
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def reads(paths: Iterable[str | os.PathLike | None], what: str) -> None:
    """This command reads `paths` (`what` they are, for the message): refuse an output that is one of them.

    Called as soon as a command knows what it reads, before it writes
    anything; outside a command (the API) it does nothing.
    """
    ctx = click.get_current_context(silent=True)
    outputs = ctx.meta.get(OUTPUTS_KEY, []) if ctx is not None else []
    if not outputs:
        return
    for path in paths:
        if path is None:
            continue
        for option, output in outputs:
            if same_file(output, path):
                named = "" if os.path.realpath(output) == os.path.realpath(path) else f" ({path})"
                raise click.BadParameter(terminal_safe(
                    f"{output} is {what}{named} that this command reads: writing {option} there would "
                    f"replace it; choose another file"), param_hint=option)


def emit_json(data: Any) -> None:
    """Print the JSON document, or write it whole to the --report file (never half a report)."""
    text = json_text(data)
    ctx = click.get_current_context(silent=True)
    report = ctx.meta.get(REPORT_KEY) if ctx is not None else None
    if report is None:
        echo(text, nl=False)
        return
    try:
        write_output(report, text.encode("utf-8"), "report")
    except OutputError as err:  # also met while reporting an error: said here, not by `reports_errors`
        echo(f"error {err.code}: {err.message}", err=True)
        raise click.exceptions.Exit(1) from None
    echo(f"report written to {report}", err=True)


def _source_excerpt(pos: Pos | None) -> list[str]:
    """The ruleset line a rule error points at, with a caret under its column, as load errors show theirs.

    Read again from the file, as a traceback reads its source: only a regular
    file, and nothing at all when it cannot be read or has no such line now.
    """
    if pos is None or not pos.file or pos.line < 1:
        return []
    try:
        for number, line in enumerate(files.lines(pos.file), 1):
            if number == pos.line:
                return caret_lines(line.decode("utf-8", "replace"), pos.col)
    except OSError:
        pass
    return []


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
            reads((d.file for d in err.diagnostics if d.file), "a file of the ruleset")
            if as_json:
                emit_json([d.to_dict() for d in err.diagnostics])
            else:
                for d in err.diagnostics:
                    echo(d.format(), err=True)
        except RuleRuntimeError as err:
            if as_json:
                emit_json({"error": rule_error_dict(err)})
            else:
                echo(f"error {err.code}: {err}", err=True)
                for line in _source_excerpt(err.pos):
                    echo(line, err=True)
                if err.hint:
                    echo(f"  hint: {err.hint}", err=True)
        except RuleplayError as err:
            hint = getattr(err, "hint", "")
            if as_json:
                emit_json({"error": {"code": err.code, "message": err.message, **({"hint": hint} if hint else {})}})
            else:
                echo(f"error {err.code}: {err.message}", err=True)
                if hint:
                    echo(f"  hint: {hint}", err=True)
        except BrokenPipeError:
            silence_stdout()
        except OSError as err:
            message = f"{err.filename}: {err.strerror}" if err.filename else str(err)
            if as_json:
                emit_json({"error": {"code": "OS", "message": message}})
            else:
                echo(f"error: {message}", err=True)
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
                echo(message, err=True)
        raise click.exceptions.Exit(1)
    return wrapper


def silence_stdout() -> None:
    """The reader went away (`ruleplay play ... | head`): drop the rest quietly, even at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests); nothing will be flushed
        pass


SHOWN_ERRORS = 10


def echo_failures(failures: Sequence[Any], total: int, indent: str, err: bool,
                  replay: Callable[[Any], str] | None = None) -> None:
    """The first few of `total` per-game rule errors as text (JSON output lists the first thousand), each
    followed by `replay(failure)`, the command that plays that game again, if given."""
    for e in failures[:SHOWN_ERRORS]:
        echo(f"{indent}game {e.index} (seed {e.seed}): error {e.code}: {e.message}", err=err)
        if replay is not None:
            echo(f"{' ' * len(indent)}  replay it: {replay(e)}", err=err)
    if total > SHOWN_ERRORS:
        echo(f"{indent}... and {total - SHOWN_ERRORS} more", err=err)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"
