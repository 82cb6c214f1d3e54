"""`ruleplay perft`: move-generator counts to a fixed depth."""

from __future__ import annotations

import time

import click

from .options import WholeNumber, backend_option, game_options, json_option, load, plays_on
from .output import echo, emit_json, reports_errors


MAX_DEPTH = 10**7  # the largest `limits.max_steps` a ruleset may set: no line of play has more decisions


@click.command("perft")
@click.argument("game_name", metavar="GAME")
@click.option("--depth", type=WholeNumber(min=0, max=MAX_DEPTH), required=True, metavar="D",
              help="Decisions deep (a chance draw takes none). A depth past every game's end counts the whole tree.")
@game_options
@backend_option
@json_option
@reports_errors
def perft_command(game_name: str, depth: int, players: int | None, variant: str | None, seed: int, backend: str,
                  as_json: bool) -> None:
    """Count the move sequences of exactly D decisions from the initial state.

    `nodes` is that count: a game that ends before D decisions adds nothing
    to it, as in chess perft.  `terminals` counts the games that ended within
    D decisions, that is after 0 to D of them: a game over at exactly D
    decisions is in both counts, one over sooner only in `terminals`.  Chance
    moves are not decisions.  A count that runs long shows on stderr, when it
    is a terminal, the share of the tree walked (an estimate), the states
    reached and the time left.
    """
    from ..engine.native import choose
    from ..runs.perft import perft as count
    from .progress import Progress

    game = load(game_name, players, variant)
    native = choose(game, backend).native if plays_on(game, backend) == "native" else None
    state = game.new_state(seed)
    started = time.process_time()
    with Progress(f"perft {depth} of {game_name}", None, "states", share=True) as shown:
        result = count(state, depth, lambda states, share: shown.update(share, f"{states:,} states reached"), native)
    seconds = time.process_time() - started
    nodes_per_s = result.nodes / seconds if seconds > 0 else 0.0  # leaf nodes per CPU-second, as perft reports
    if as_json:
        emit_json(result.to_dict() | {"seconds": seconds, "nodes_per_s": nodes_per_s,
                                      "backend": "native" if native is not None else "python"})
    else:
        echo(f"perft {depth}: {result.nodes} nodes, {result.terminals} terminal states "
             f"({nodes_per_s:,.0f} nodes/s, {seconds:.2f} CPU seconds)")
