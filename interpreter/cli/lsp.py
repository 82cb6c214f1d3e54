"""`ruleplay lsp`: the language server for rulesets, over stdin and stdout, for an editor to start."""

from __future__ import annotations

import click

from .output import echo


@click.command("lsp")
def lsp_command() -> None:
    """Serve the Language Server Protocol over stdio: diagnostics, hover, definition, references, completion.

    An editor starts this command; see the README for VS Code and Neovim. Needs `pip install 'ruleplay[lsp]'`.
    """
    try:
        from ruleplay.editor.server import serve
    except ImportError as err:
        echo(f"error RP661: `ruleplay lsp` needs pygls ({err.name} is missing): pip install 'ruleplay[lsp]'",
             err=True)
        raise click.exceptions.Exit(1) from None
    serve()
