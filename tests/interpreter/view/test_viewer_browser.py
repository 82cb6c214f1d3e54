"""The replay page in a real browser: headless Chromium driven by Selenium through /usr/bin/chromedriver.

The page is clicked through as a person would: the move counter, a piece
appearing on the board, and a card that stays a card back in the other
seat's view.  Under CI (the `CI` variable set) a missing browser, driver or
Selenium fails these tests: they must never pass by not running.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ruleplay.cli import main
from ruleplay.view.sources import log_steps

def _page(tmp_path: Path, game: str, seed: int, *extra: str) -> tuple[Path, Path]:
    log, page = tmp_path / f"{game}.jsonl", tmp_path / f"{game}.html"
    runner = CliRunner()
    played = runner.invoke(main, ["play", game, "--seed", str(seed), "--log", str(log)])
    assert played.exit_code == 0, played.output
    viewed = runner.invoke(main, ["view", str(log), "-o", str(page), *extra])
    assert viewed.exit_code == 0, viewed.output
    return log, page


def _by_id(driver, name: str):  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def _all(driver, css: str) -> list:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def test_steps_through_a_game_and_pieces_appear(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.keys import Keys

    log, page = _page(tmp_path, "tic-tac-toe", 4)
    length = len(log_steps(log)) - 1
    browser.get(page.as_uri())
    assert _by_id(browser, "counter").text == f"move 0 / {length}"
    assert _all(browser, "#picture .piece") == []
    _by_id(browser, "forward").click()
    assert _by_id(browser, "counter").text == f"move 1 / {length}"
    assert len(_all(browser, "#picture .piece")) == 1
    _by_id(browser, "picture").click()
    browser.find_element("tag name", "body").send_keys(Keys.ARROW_RIGHT)
    assert _by_id(browser, "counter").text == f"move 2 / {length}"
    assert len(_all(browser, "#picture .piece")) == 2
    browser.find_element("tag name", "body").send_keys(Keys.ARROW_LEFT)
    assert len(_all(browser, "#picture .piece")) == 1
    _by_id(browser, "last").click()
    assert _by_id(browser, "counter").text == f"move {length} / {length}"
    assert len(_all(browser, "#picture .piece")) == length
    assert "final scores" in _by_id(browser, "scores").text
    assert _by_id(browser, "forward").get_attribute("disabled") is not None
    jump = _by_id(browser, "jump")
    jump.clear()
    jump.send_keys("3")
    _by_id(browser, "go").click()
    assert _by_id(browser, "counter").text == f"move 3 / {length}"
    assert len(_all(browser, "#moves li.current")) == 1
    assert "TT-" in _all(browser, "#moves li")[0].text  # the rule ids that fired
    _by_id(browser, "first").click()
    assert _all(browser, "#picture .piece") == []


def test_a_hidden_card_stays_hidden_in_a_seats_view(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.support.ui import Select

    log, page = _page(tmp_path, "kuhn-poker", 5)
    steps = log_steps(log)
    dealt = steps[2].state  # both cards dealt, nobody has bet
    deal, deal_seen = steps[1].move, steps[1].state.last_move_view(0)
    assert deal != deal_seen  # the deal names the other card, seat 0 is shown it as ?
    own, other = (dealt.data["vars"]["hand"][p][0] for p in (0, 1))
    browser.get(page.as_uri())
    _by_id(browser, "forward").click()
    _by_id(browser, "forward").click()
    cards = lambda: sorted(e.get_attribute("textContent") for e in _all(browser, "#picture g.card title"))  # noqa: E731
    assert cards() == sorted([own, other])
    assert _all(browser, "#moves li")[0].text.startswith(f"chance: {deal}")
    assert _all(browser, "#picture .back") == []
    Select(_by_id(browser, "view")).select_by_visible_text("seat 0")
    assert _by_id(browser, "counter").text.startswith("move 2 /")
    assert cards() == [own]
    assert len(_all(browser, "#picture .back")) == 1
    first = _all(browser, "#moves li")[0].text
    assert first.startswith(f"chance: {deal_seen}") and deal not in first
    assert "scores are shown at the end" in _by_id(browser, "scores").text
    _by_id(browser, "last").click()
    assert "final scores" in _by_id(browser, "scores").text


BIG_SCORES = """\
ruleplay: 1
game: big-scores
players: 2
state:
  x: {init: "0"}
flow:
  phases:
    - name: play
      actions: [go]
actions:
  go:
    effects: x += 1
end:
  - when: x > 1
scoring:
  score: 1152921504606846977 + p
"""


def test_scores_past_a_doubles_precision_are_shown_exactly(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rules, log, page = tmp_path / "big.yaml", tmp_path / "big.jsonl", tmp_path / "big.html"
    rules.write_text(BIG_SCORES, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["play", str(rules), "--log", str(log)]).exit_code == 0
    assert runner.invoke(main, ["view", str(log), "-o", str(page)]).exit_code == 0
    browser.get(page.as_uri())
    _by_id(browser, "last").click()
    # As doubles both are 1152921504606846976: the page would show a tie where seat 1 won.
    assert "seat 0 1152921504606846977, seat 1 1152921504606846978" in _by_id(browser, "scores").text


def test_rounds_their_ends_events_rule_texts_scores_and_move_links(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Nautilus (card game): the list is grouped by round, a round's end is a step of its own with the
    awards it told, a rule id shows its spec text on hover, each seat has a score row, and #move=N opens
    move N."""
    from selenium.webdriver.support.ui import Select

    log, page = _page(tmp_path, "nautilus-cards", 3)
    browser.get(page.as_uri() + "#move=14")
    assert _by_id(browser, "counter").text == "move 14 / 89"
    heads = [e.text for e in _all(browser, "#moves li.round-head")]
    assert heads == [f"round {r}" for r in range(1, 7)]
    assert len(_all(browser, "#picture g.slot")) == 0  # move 14 fills the last slot: the table is full
    _by_id(browser, "forward").click()
    assert _by_id(browser, "counter").text == "move 14 / 89, end of round 1"
    current = _all(browser, "#moves li.current")[0]
    assert current.get_attribute("class").split() == ["flow", "current"]
    awards = current.find_elements("css selector", ".event")
    assert len(awards) == 5 and all(" wins " in a.text and a.text.endswith("NC-7.7") for a in awards)
    rule = current.find_element("css selector", ".event .rule")
    assert rule.get_attribute("title").startswith("NC-7.7: A won domain card is placed face down")
    assert len(_all(browser, "#picture g.slot")) == 10  # the next round's empty table
    rows = [r.text for r in _all(browser, "#score-panel tr")]
    assert len(rows) == 2 and rows[0].startswith("player 0") and rows[1].startswith("player 1")
    _by_id(browser, "forward").click()
    assert browser.execute_script("return location.hash") == "#move=15"
    link = _all(browser, "#moves li.move a.link")[2]
    link.click()
    assert _by_id(browser, "counter").text == "move 3 / 89"
    Select(_by_id(browser, "view")).select_by_visible_text("seat 0")
    told = " ".join(e.text for e in _all(browser, "#moves .event"))
    # Seat 0 reads what it was told, and only that: player 1's harpoon told player 1 which card it took.
    assert "harpoon takes your d4" in told and "your harpoon takes" not in told and "(told" not in told


def test_a_game_in_progress_is_marked_unfinished(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log, page = tmp_path / "left.jsonl", tmp_path / "left.html"
    runner = CliRunner()
    left = runner.invoke(main, ["play", "tic-tac-toe", "--human", "1", "--agents", "first", "--seed", "2",
                                "--log", str(log)], input="1\nq\n")
    assert left.exit_code == 0, left.output
    assert runner.invoke(main, ["view", str(log), "-o", str(page)]).exit_code == 0
    browser.get(page.as_uri())
    assert _by_id(browser, "title").text == "Tic-tac-toe (unfinished game)"
    assert _by_id(browser, "counter").text == "move 0 / 3"
    _by_id(browser, "last").click()
    assert _by_id(browser, "counter").text == "move 3 / 3 (unfinished: the log stops here)"
    assert len(_all(browser, "#picture .piece")) == 3
    assert _by_id(browser, "scores").text.startswith("scores: ")  # not "final scores": the game goes on
