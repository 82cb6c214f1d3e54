"""Agents: what picks the moves in headless play, registered by the names the command line uses.

`simple` holds random, first-legal-move and one-ply greedy agents; `mcts`
and `ismcts` search (the second through determinizations, for hidden
information), over the Python engine's states or, on the native backend,
the game's native module's with the same decisions (`searcher`).  An agent is named by a spec, `name[:option=value...]`
(`spec`), the same string on the command line, in the API and in worker
processes.  Every agent draws from its own seeded generator, so a game is a
function of its seeds.  `human` asks a person for each move (`human`): it is
`interactive`, played only at a table (`runs.table`), never in headless
runs.  Agents import `engine` only: the console a person types at is given
to the human agent (the command line's escapes its output).
"""

from __future__ import annotations

from collections.abc import Collection

from ..engine.game import Game
from .base import Agent
from .human import HumanAgent
from .ismcts import ISMCTSAgent
from .mcts import MCTSAgent
from .search import SEARCH_OPTIONS
from .simple import GREEDY_OPTIONS, FirstAgent, GreedyAgent, RandomAgent
from .spec import AgentSpecError, AgentType, describe, parse_spec

AGENTS: dict[str, AgentType] = {
    "random": AgentType(RandomAgent),
    "first": AgentType(FirstAgent),
    "greedy": AgentType(GreedyAgent, GREEDY_OPTIONS, omniscient=True),
    "mcts": AgentType(MCTSAgent, SEARCH_OPTIONS, omniscient=True, native=True),
    "ismcts": AgentType(ISMCTSAgent, SEARCH_OPTIONS, native=True),
    "human": AgentType(HumanAgent),
}
HONEST_SEARCH = "ismcts"  # the search agent that reads only what its seat observes: the default where secrets are kept


def search_agent(game: Game) -> str:
    """The search agent to play `game` with when none is named: `mcts`, or `ismcts` in a game that keeps
    secrets, where `mcts` would read them."""
    return HONEST_SEARCH if game.model.keeps_secrets else "mcts"


def is_omniscient(spec: str) -> bool:
    """Whether the agent `spec` names reads the whole state, what other seats hide included."""
    name, _ = parse_spec(spec, AGENTS)
    return AGENTS[name].omniscient


def omniscience_refusal(specs: Collection[str], game: Game) -> str | None:
    """Why these agents should not play `game`, or None: an agent that reads the whole state (`greedy`'s
    look-ahead and heuristic, `mcts`'s search) in a game that keeps secrets plays on what its seat cannot
    see (a person's cards included), and wins by it.  The caller decides whether that is wanted."""
    if not game.model.keeps_secrets:
        return None
    seeing = [spec for spec in dict.fromkeys(specs) if is_omniscient(spec)]
    if not seeing:
        return None
    names = ", ".join(repr(spec) for spec in seeing)
    return (f"{names} read{'s' if len(seeing) == 1 else ''} the whole state, what the other seats hide included, "
            f"and {game.name} keeps secrets: {'it' if len(seeing) == 1 else 'they'} would play on what "
            f"{'its' if len(seeing) == 1 else 'their'} seat cannot see; {HONEST_SEARCH} searches only what its "
            f"seat observes (docs/agents.md, Agents that see everything)")


def searches_natively(spec: str) -> bool:
    """Whether the agent `spec` names searches in the game's native module on a native backend."""
    name, _ = parse_spec(spec, AGENTS)
    return AGENTS[name].native


def is_interactive(agent: object) -> bool:
    """Whether `agent` (a spec or an agent) needs a person to answer it."""
    if isinstance(agent, str):
        kind = AGENTS.get(agent.split(":", 1)[0].strip())
        agent = kind.factory if kind is not None else None
    return bool(getattr(agent, "interactive", False))


def check_spec(spec: str) -> str:
    """`spec` if it names a registered agent with valid options; raises AgentSpecError saying what is wrong."""
    parse_spec(spec, AGENTS)
    return spec


def check_heuristic(spec: str, game: str, heuristics: Collection[str]) -> None:
    """Refuse a spec whose `heuristic` option names none of `game`'s heuristics, with an AgentSpecError.

    The name can only be checked against a loaded ruleset, so `check_spec`
    lets it through; a command that has loaded its game asks here before any
    game starts, rather than failing in the first decision of a worker.
    """
    name, options = parse_spec(spec, AGENTS)
    wanted = options.get("heuristic")
    if wanted is not None and wanted not in heuristics:
        known = ", ".join(heuristics) or "none: its ruleset has no `heuristics:` section"
        raise AgentSpecError(f"agent {name!r}: {game} has no heuristic {wanted!r} (its heuristics: {known})")


def cut_off_warning(spec: str, game: str, heuristics: Collection[str]) -> str | None:
    """What a search spec with `depth` will not do in a game without heuristics, or None.

    A rollout cut off after `depth` moves is judged by a heuristic; without
    one every cut-off position counts as level (0 for every seat).  That
    may be meant (rollouts bounded in a long game), so it is a warning,
    not a refusal: but a search that learns only from the games that end
    within `depth` moves should not go unnoticed.
    """
    name, options = parse_spec(spec, AGENTS)
    if options.get("depth") is None or heuristics or AGENTS[name].options is not SEARCH_OPTIONS:
        return None
    return (f"agent {spec!r}: {game} has no `heuristics:`, so a rollout cut off after depth={options['depth']} "
            f"moves counts as level (0 for every seat); only games that end within it tell moves apart")


def hidden_roll_warning(spec: str, game: Game) -> str | None:
    """What `ismcts` will know in `game` that its seat should not, or None.

    A determinization redraws a hidden component among the places of its
    kind, and a hidden chance outcome of other values (a die kept as 1-6) by
    playing the game again with that outcome drawn anew; but it can play a
    game again only when every game starts alike, when the setup draws no
    random number (`engine.determinize`). Otherwise such an outcome is only
    reordered among the values drawn, so the search plays knowing them. No
    rule text tells the engine what else they could have been, so this is a
    warning.
    """
    name, _ = parse_spec(spec, AGENTS)
    if name != "ismcts":
        return None
    model = game.model
    components = {c for ids in model.components_by_kind.values() for c in ids}
    for action in model.actions.values():
        if action.chance and any(p.seen_by is not None and any(not (isinstance(v, str) and v in components)
                                                                for v in p.universe) for p in action.params):
            if not game.setup_draws():
                return None
            return (f"agent {spec!r}: chance action {action.name!r} of {model.name} draws values that are not "
                    f"components and not every seat sees, and the setup draws random numbers, so a "
                    f"determinization cannot play the game again: it only reorders such values, and the search "
                    f"knows which were drawn (docs/agents.md, What a determinization redraws)")
    return None


def is_reproducible(spec: str) -> bool:
    """Whether the agent `spec` names chooses the same move again for the same seed and state: every agent
    does, but a search given a time budget (`seconds`), which stops wherever the clock says."""
    _, options = parse_spec(spec, AGENTS)
    return options.get("seconds") is None


def make_agent(spec: str, seed: int = 0, backend: str = "python") -> Agent:
    """Build the agent a spec names (`"mcts:iterations=400"`); raises AgentSpecError (a ValueError).

    `backend` ("python", "native" or "auto", as `--backend` says) is what a search agent searches on: the
    game's native module where it can, with the same moves as on the Python engine (`searcher`)."""
    name, options = parse_spec(spec, AGENTS)
    kind = AGENTS[name]
    if kind.native:
        return kind.factory(seed, backend=backend, **options)
    return kind.factory(seed, **options)


def agents_help(people: bool = False) -> str:
    """The agents and their options, for `--help`: the interactive ones only where a person can play."""
    return describe({n: t for n, t in AGENTS.items() if people or not is_interactive(n)})


__all__ = ["AGENTS", "HONEST_SEARCH", "Agent", "AgentSpecError", "FirstAgent", "GreedyAgent", "HumanAgent",
           "ISMCTSAgent", "MCTSAgent", "RandomAgent", "agents_help", "check_heuristic", "check_spec",
           "cut_off_warning", "hidden_roll_warning", "is_interactive", "is_omniscient", "is_reproducible",
           "make_agent", "omniscience_refusal", "search_agent", "searches_natively"]
