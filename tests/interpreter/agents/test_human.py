"""The human agent reads a person's answer from a console: numbers, move texts, `?`, `u`, `q`, the end of input."""

from __future__ import annotations

import pytest

from ruleplay import load_game
from ruleplay.agents import AGENTS, is_interactive, make_agent
from ruleplay.agents.human import HumanAgent, QuitRequest, StdioConsole, UndoRequest


def ttt_after(*moves: str):
    state = load_game("tic-tac-toe").new_state(1)
    for move in moves:
        state = state.apply(move)
    return state


def test_the_moves_are_numbered_from_one_and_a_number_picks_one(Script):
    console = Script("3")
    move = HumanAgent(console=console).choose(ttt_after())
    assert str(move) == "place(2)"
    assert "  1. place(0)" in console.text and "  9. place(8)" in console.text and "player 0> " in console.text
    assert "board:" in console.text  # the picture comes with the list
    assert list(console.choices[0][:9]) == [f"place({k})" for k in range(9)] and "q" in console.choices[0]


def test_a_move_text_picks_it_and_spacing_does_not_matter(Script):
    assert str(HumanAgent(console=Script(" place( 8 ) ")).choose(ttt_after())) == "place(8)"


def test_a_refused_move_is_explained_and_asked_again(Script):
    console = Script("place(4)", "10", "jump(1)", "plac(", "place(0)")
    move = HumanAgent(console=console).choose(ttt_after("place(4)"))
    assert str(move) == "place(0)"
    text = console.text
    assert "refused: illegal move place(4): that cell is already marked [TT-2.2]" in text
    assert "no move 10: type a number from 1 to 8" in text
    assert "there is no action 'jump' in tic-tac-toe" in text
    assert "cannot read move 'plac('" in text
    assert text.count("player 1> ") == 5


def test_an_answer_of_odd_digits_is_refused_and_asked_again(Script):
    """`²` passed `str.isdigit` and 5000 digits `int`'s guard, then `int()` raised: an internal error
    that stopped the person's game unsaved."""
    long = "9" * 5000
    console = Script("²", "? ²", long, f"? {long}", "١", "2")
    assert str(HumanAgent(console=console).choose(ttt_after())) == "place(1)"
    text = console.text
    assert "cannot read move '²'" in text and "cannot read move '١'" in text
    assert f"no move {'9' * 20}…: type a number from 1 to 9" in text
    assert f"there is no move {'9' * 20}…: the moves are numbered 1 to 9" in text
    assert long not in text


def test_question_mark_explains_a_move_or_says_it_is_legal(Script):
    console = Script("? place(4)", "? place(1)", "? 2", "? 12", "?", "1")
    HumanAgent(console=console).choose(ttt_after("place(4)"))
    text = console.text
    assert "illegal move place(4): that cell is already marked [TT-2.2]" in text
    assert "place(1) is legal (move 2)" in text and "2. place(1) is legal" in text
    assert "there is no move 12: the moves are numbered 1 to 8" in text
    assert "`u`: undo back to your previous decision" in text  # `?` alone is the help


def test_u_q_and_the_end_of_input_are_requests_to_the_table(Script):
    with pytest.raises(UndoRequest):
        HumanAgent(console=Script("u")).choose(ttt_after())
    with pytest.raises(QuitRequest):
        HumanAgent(console=Script("q")).choose(ttt_after())
    with pytest.raises(QuitRequest):
        HumanAgent(console=Script()).choose(ttt_after())


def test_an_empty_line_shows_the_board_again(Script):
    console = Script("", "1")
    HumanAgent(console=console).choose(ttt_after())
    assert console.text.count("board:") == 2


def test_the_person_sees_their_own_hand_and_not_the_other(Script):
    state = load_game("kuhn-poker").new_state(2).apply_chance()
    mine, theirs = state.data["vars"]["hand"][0][0], state.data["vars"]["hand"][1][0]
    console = Script("1")
    HumanAgent(console=console).choose(state)
    assert f"your hand: {mine}\n" in console.text
    assert theirs not in console.text.replace("Kuhn", "")


def test_the_human_agent_is_registered_and_interactive():
    assert AGENTS["human"].factory is HumanAgent and is_interactive("human") and is_interactive(HumanAgent())
    assert not is_interactive("random") and not is_interactive(make_agent("greedy"))


def test_tab_completes_the_line_to_a_choice_or_a_question_about_a_move():
    console = StdioConsole(write=lambda text: None)
    console.choices = ["place(0)", "place(1)", "q"]
    assert [console._complete("place(", k) for k in range(3)] == ["place(0)", "place(1)", None]
    assert [console._complete("? place(1", k) for k in range(2)] == ["? place(1)", None]
    assert console._complete("x", 0) is None and console._complete("q", 0) == "q"


CALL_EARLY = """\
ruleplay: 1
game: call-early
players: 2
state:
  hand: {per_player: true, init: '[["jack"], [HELD]][p]', visibility: owner}
  n: {init: "0"}
flow:
  phases:
    - {name: play, actions: [tick, tock, call]}
actions:
  tick: {effects: n += 1}
  tock: {effects: n += 1}
  call:
    require:
      - {check: '"queen" not in hand[1 - current]', message: "the other seat holds the queen"}
      - {check: n >= 10, message: "too early to call"}
    effects: n += 1
end:
  - when: n >= 2
"""


def test_a_refusal_does_not_tell_the_person_what_their_seat_cannot_see(make_game, Script):
    """Whether seat 1 holds the queen, `call` is refused and `tick` and `tock` are the moves: the reason a
    person is given must not change with it (the first failing check reads seat 1's hand)."""
    shown = []
    for held, reason in (("queen", "the other seat holds the queen"), ("king", "too early to call")):
        state = make_game(CALL_EARLY.replace("HELD", f'"{held}"'), name=f"{held}.yaml").new_state(0)
        assert state.explain("call") == f"illegal move call: {reason}"  # the operator is told the first check
        console = Script("? call", "call", "1")
        assert str(HumanAgent(console=console).choose(state)) == "tick"
        shown.append(console.text.replace(held, "HELD"))
    assert shown[0] == shown[1] and "refused: illegal move call: too early to call" in shown[0]


def test_a_seats_only_move_is_played_for_it_with_a_notice(make_game, Script):
    text = CALL_EARLY.replace("HELD", '"king"').replace("[tick, tock, call]", "[tick, call]")
    state = make_game(text.replace("  tock: {effects: n += 1}\n", "")).new_state(0)
    console = Script()  # nothing is asked
    assert str(HumanAgent(console=console).choose(state)) == "tick"
    assert console.text == "your only move, played for you: tick"


def test_help_names_an_actions_rules_from_the_spec(Script):
    console = Script("help bet", "help nothing", "1")
    HumanAgent(console=console).choose(load_game("kuhn-poker").new_state(2).apply_chance())
    assert "\nbet:" in console.text and "  KP-" in console.text
    assert "there is no action 'nothing'; the actions are: " in console.text
