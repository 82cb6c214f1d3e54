"""Agent specs: `name[:option=value...]`, one per seat, refused with a message naming what is wrong."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.agents import (AGENTS, AgentSpecError, ISMCTSAgent, MCTSAgent, check_heuristic, check_spec,
                             is_omniscient, omniscience_refusal, search_agent,
                             cut_off_warning, hidden_roll_warning, make_agent)
from ruleplay.agents.spec import parse_spec
from ruleplay.cli import main


def test_options_are_parsed_and_typed():
    assert parse_spec("mcts:iterations=400:depth=20", AGENTS) == ("mcts", {"iterations": 400, "depth": 20})
    assert parse_spec(" ismcts : seconds=0.5 ", AGENTS) == ("ismcts", {"seconds": 0.5})
    assert parse_spec("greedy:heuristic=lead", AGENTS) == ("greedy", {"heuristic": "lead"})
    agent = make_agent("mcts:iterations=7:c=0.5", 3)
    assert isinstance(agent, MCTSAgent)
    assert (agent.settings.iterations, agent.settings.c, agent.settings.seconds) == (7, 0.5, None)


def test_bare_search_agents_count_iterations_not_seconds():
    for spec, kind in (("mcts", MCTSAgent), ("ismcts", ISMCTSAgent)):
        agent = make_agent(spec)
        assert isinstance(agent, kind)
        assert agent.settings.seconds is None and agent.settings.iterations >= 1


@pytest.mark.parametrize("spec, message", [
    ("minimax", "unknown agent 'minimax' (agents: random, first, greedy, mcts, ismcts, human)"),
    ("mcts:iters=4", "agent 'mcts' has no option 'iters' (its options: iterations, seconds, depth, c, heuristic, scale)"),
    ("random:depth=3", "agent 'random' has no option 'depth' (its options: none)"),
    ("mcts:iterations=many", "agent 'mcts': option iterations='many' is not a whole number (iterations per decision)"),
    ("mcts:iterations=0", "agent 'mcts': option iterations=0 must be at least 1 (iterations per decision)"),
    ("ismcts:seconds=0", "agent 'ismcts': option seconds=0 must be above 0"),
    ("mcts:iterations=100000000000000000000000", "agent 'mcts': option iterations=100000000000000000000000 must "
                                                 "be at most 1e+09 (iterations per decision)"),
    ("ismcts:seconds=1e9", "agent 'ismcts': option seconds=1e9 must be at most 86400"),
    ("ismcts:seconds=inf", "agent 'ismcts': option seconds='inf' is not a number"),
    ("mcts:depth", "agent 'mcts': option 'depth' needs a value, as in depth=VALUE"),
    ("mcts:depth=2:depth=3", "agent 'mcts': option 'depth' is given twice"),
    ("greedy:heuristic=1x", "agent 'greedy': option heuristic='1x' is not a name"),
])
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError) as info:
        check_spec(spec)
    assert str(info.value).startswith(message)


def test_command_line_takes_specs_per_seat_and_refuses_bad_ones():
    ok = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "2", "--agents",
                                   "mcts:iterations=20:depth=3,random", "--json"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "2", "--agents", "mcts:budget=3,random"])
    assert bad.exit_code == 2
    assert "agent 'mcts' has no option 'budget'" in bad.output


def test_a_heuristic_is_checked_against_the_game_that_should_have_it():
    check_heuristic("greedy:heuristic=points", "nautilus", ["prospects", "points"])
    check_heuristic("mcts:iterations=5", "tic-tac-toe", [])
    with pytest.raises(AgentSpecError, match=r"agent 'ismcts': nautilus has no heuristic 'gold' "
                                             r"\(its heuristics: prospects, points\)"):
        check_heuristic("ismcts:heuristic=gold", "nautilus", ["prospects", "points"])
    with pytest.raises(AgentSpecError, match="tic-tac-toe has no heuristic 'x' .*no `heuristics:` section"):
        check_heuristic("mcts:heuristic=x", "tic-tac-toe", [])


@pytest.mark.parametrize("command", [["simulate", "-n", "1"], ["tournament", "-n", "1"],
                                     ["compare", "--variant", "no-sharks", "-n", "1"], ["play"]])
def test_every_command_refuses_a_heuristic_its_game_lacks_before_playing(command):
    result = CliRunner().invoke(main, [command[0], "lovci-pokladu", *command[1:], "--agents",
                                       "random,greedy:heuristic=gold"])
    assert result.exit_code == 2, result.output
    assert "Invalid value for --agents: agent 'greedy': lovci-pokladu has no heuristic 'gold' " \
           "(its heuristics: treasure)" in result.output
    assert "internal error" not in result.output


def test_a_search_cut_off_where_the_game_has_no_heuristic_is_warned_of():
    """Cut-offs count as level without a heuristic: a depth-limited search then learns only from short games."""
    assert cut_off_warning("mcts:depth=3", "nautilus", ["prospects"]) is None
    assert cut_off_warning("mcts:iterations=5", "tic-tac-toe", []) is None
    assert cut_off_warning("greedy", "tic-tac-toe", []) is None
    assert "tic-tac-toe has no `heuristics:`, so a rollout cut off after depth=3 moves counts as level" in \
        cut_off_warning("ismcts:depth=3", "tic-tac-toe", [])
    result = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "2", "--agents", "mcts:iterations=4:depth=2"])
    assert result.exit_code == 0 and result.output.count("warning: agent 'mcts:iterations=4:depth=2'") == 1


HIDDEN_ROLL = """\
ruleplay: 1
game: hidden-roll
players: 2
state:
  die: {per_player: true, init: "[]", visibility: owner}
  called: {init: "0"}
flow:
  phases:
    - name: roll
      order: chance
      actions: [roll]
    - name: call
      actions: [call]
actions:
  roll:
    chance: true
    params:
      a: {of: "range(1, 7)", seen_by: "[0]"}
    effects: append a to die[0]
  call:
    params:
      n: range(1, 7)
    effects: |
      called = n
      end_game
scoring:
  score: "if p == 1 and len(die[0]) > 0 and called == die[0][0] then 1 else 0"
"""


def test_ismcts_is_warned_of_a_hidden_roll_only_where_a_determinization_cannot_draw_it_again(tmp_path):
    """A hidden roll is drawn again by playing the game again from its start, which needs a setup that
    draws nothing; with a shuffle in the setup the values are only reordered, and the search knows them."""
    path, shuffled = tmp_path / "hidden-roll.yaml", tmp_path / "shuffled.yaml"
    path.write_text(HIDDEN_ROLL, encoding="utf-8")
    shuffled.write_text(HIDDEN_ROLL.replace('  called: {init: "0"}\n', '  called: {init: "0"}\n'
                                            '  order: {init: "[1, 2, 3]"}\nsetup: shuffle order\n'), encoding="utf-8")
    assert hidden_roll_warning("ismcts:iterations=5", load_game(path)) is None
    game = load_game(shuffled)
    assert "chance action 'roll' of hidden-roll draws values that are not components" in \
        hidden_roll_warning("ismcts:iterations=5", game)
    assert hidden_roll_warning("mcts", game) is None  # mcts reads the full state, as documented
    assert hidden_roll_warning("ismcts", load_game("kuhn-poker")) is None  # its cards are components
    result = CliRunner().invoke(main, ["simulate", str(shuffled), "-n", "2", "--agents", "ismcts:iterations=4,random"])
    assert result.exit_code == 0 and "warning: agent 'ismcts:iterations=4': chance action 'roll'" in result.output


def test_the_agents_that_read_the_whole_state_are_named_and_ismcts_is_the_search_where_secrets_are_kept():
    assert [name for name in AGENTS if is_omniscient(name)] == ["greedy", "mcts"]
    assert is_omniscient("mcts:iterations=5:depth=2") and not is_omniscient("ismcts:iterations=5")
    kuhn, ttt = load_game("kuhn-poker"), load_game("tic-tac-toe")
    assert search_agent(kuhn) == "ismcts" and search_agent(ttt) == "mcts"
    assert omniscience_refusal(["mcts", "greedy", "random"], ttt) is None  # nothing hidden: nothing to read
    assert omniscience_refusal(["random", "first", "ismcts:iterations=9", "human"], kuhn) is None
    assert omniscience_refusal(["mcts:iterations=3", "random"], kuhn) == (
        "'mcts:iterations=3' reads the whole state, what the other seats hide included, and kuhn-poker keeps "
        "secrets: it would play on what its seat cannot see; ismcts searches only what its seat observes "
        "(docs/agents.md, Agents that see everything)")
    assert omniscience_refusal(["greedy", "mcts", "greedy"], kuhn).startswith(
        "'greedy', 'mcts' read the whole state, what the other seats hide included, and kuhn-poker keeps "
        "secrets: they would play on what their seat cannot see")


REFUSED = "Invalid value for --agents: 'mcts:iterations=2:depth=1' reads the whole state"


@pytest.mark.parametrize("command", [["simulate", "-n", "1"], ["tournament", "-n", "1"], ["play"],
                                     ["compare", "--variant", "no-crab-exception", "-n", "1"]])
def test_every_command_refuses_an_agent_that_sees_hidden_state_unless_allowed(command):
    args = [command[0], "nautilus-cards", *command[1:], "--agents", "random,mcts:iterations=2:depth=1"]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and REFUSED in refused.output
    assert "ismcts searches only what its seat observes" in refused.output
    assert "give --allow-omniscient to allow that" in refused.output
    allowed = CliRunner().invoke(main, [*args, "--allow-omniscient", "--json"])
    assert allowed.exit_code == 0, allowed.output
    honest = CliRunner().invoke(main, [*args[:-1], "random,ismcts:iterations=2:depth=1", "--json"])
    assert honest.exit_code == 0, honest.output


def test_an_agent_that_reads_the_whole_state_plays_a_game_without_secrets_unasked():
    result = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "2", "--agents", "greedy,mcts:iterations=2"])
    assert result.exit_code == 0, result.output


def test_a_person_at_the_table_is_not_seated_against_an_agent_that_sees_their_cards(tmp_path):
    log = tmp_path / "game.jsonl"
    refused = CliRunner().invoke(main, ["play", "kuhn-poker", "--human", "0", "--agents", "mcts", "--log", str(log)],
                                 input="q\n")
    assert refused.exit_code == 2 and "Invalid value for --agents: 'mcts' reads" in refused.output
    assert not log.exists()
    left = CliRunner().invoke(main, ["play", "kuhn-poker", "--human", "0", "--agents", "mcts:iterations=3",
                                     "--log", str(log), "--allow-omniscient", "--seed", "1"], input="q\n")
    assert left.exit_code == 0, left.output
    resumed = CliRunner().invoke(main, ["play", "kuhn-poker", "--log", str(log), "--resume"], input="q\n")
    assert resumed.exit_code == 2, resumed.output
    assert "Invalid value for --log: 'mcts:iterations=3' reads the whole state" in resumed.output
    again = CliRunner().invoke(main, ["play", "kuhn-poker", "--log", str(log), "--resume", "--allow-omniscient"],
                               input="q\n")
    assert again.exit_code == 0, again.output
