"""Rule coverage of a batch: which cited rules its moves fired, and which never could.

A move reports the rule ids its effects fired (`State.last_fired`): the
action's own rule, the `@ID` blocks its effects, procedures, hooks and
triggers ran, the end condition that ended the game.  Some citations are
never reported by a move, because they label what is checked or built
rather than done: components, functions, setup (run before the first
move), scoring, invariants, requirements, a parameter's own label (its
`from:` and `where:` filter, as a requirement checks), the own label of a
phase or a procedure (the blocks inside them fire), assumptions.  A rule
cited only there is `static`, not dead.  A rule cited where moves do fire
rules but that no game of the run fired is `possibly_dead`: a rule the
agents never reached, or one that cannot happen — the run cannot tell which.
A spec rule that nothing in the ruleset cites can never fire: `uncited`.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Sequence

STATIC_SECTIONS = {"components", "functions", "setup", "scoring", "assumptions", "variants", "heuristics",
                   "invariants"}


def _static(path: Sequence) -> bool:
    """A citation site that no move reports as fired (see the module docstring)."""
    if not path or path[0] in STATIC_SECTIONS or "require" in path:
        return True
    if len(path) == 2 and path[0] == "procedures":
        return True  # the procedure's own label
    if len(path) == 4 and path[0] == "actions" and path[2] == "params":
        return True  # a parameter's own label: it filters the values, as a requirement checks
    return len(path) == 3 and path[0] == "flow" and path[1] == "phases"  # the phase's own label


def coverage(cited: Mapping[str, Iterable[Sequence]], fired: Counter, fired_in_games: Counter, games: int,
             spec_ids: Sequence[str] | None) -> dict:
    """The coverage summary: per rule the moves and share of games that fired it, then the lists above.

    `cited` maps each rule id the ruleset cites to the YAML paths citing it;
    `spec_ids` are the rule ids of the game's spec (None without a spec).
    """
    firing = {rule for rule, paths in cited.items() if not all(_static(p) for p in paths)}
    rules = {rule: {"moves": fired[rule], "games": fired_in_games[rule],
                    "share_of_games": fired_in_games[rule] / games if games else 0.0}
             for rule in sorted(set(fired) | firing)}
    return {"fired": rules,
            "possibly_dead": sorted(r for r in firing if not fired[r]),
            "static": sorted(set(cited) - firing - set(fired)),
            "uncited": [r for r in spec_ids or () if r not in cited]}
