"""RP323: a requirement that can never fail is a warning, given only where it is proved."""

from __future__ import annotations

import pytest

TEMPLATE = """\
ruleplay: 1
game: mini
players: 2
boards:
  b: {width: 3, height: 3}
state:
  at: {init: "0"}
  flag: {init: "true"}
  n: {init: "1"}
flow:
  phases:
    - name: play
      actions: [go]
actions:
  go:
    params:
      to:
        of: cells("b")
        from: neighbors("b", at, "king")
        where: to != 4 and flag
      n: {of: "[1, 2]", where: n > to}
    require:
REQUIRE
    effects: at = to
end:
  - when: at == 8
"""


def warnings(make_game, *requirements: str) -> list[str]:
    text = TEMPLATE.replace("REQUIRE", "\n".join(f"      - {r}" for r in requirements))
    game = make_game(text)
    return [d.message for d in game.model.diagnostics if d.code == "RP323"]


@pytest.mark.parametrize("requirements, why", [
    (["'true'"], "it is `true`"),
    (["to in neighbors(\"b\", at, \"king\")"], "the `from:` of parameter 'to'"),
    (["to in cells(\"b\")"], "the `of:` of parameter 'to'"),
    (["n in [1, 2]"], "the `of:` of parameter 'n'"),
    (["flag"], "the `where:` of parameter 'to'"),
    (["n > to"], "the `where:` of parameter 'n'"),  # there `n` is the parameter too: it is bound
    (["to != 4"], "the `where:` of parameter 'to'"),
    (["at > 0 and to < 8", "to < 8"], "requirement 1"),
    (["at > 0", "at > 0"], "requirement 1"),
])
def test_a_requirement_proved_never_to_fail_is_a_warning(make_game, requirements, why):
    found = warnings(make_game, *requirements)
    assert len(found) == 1 and why in found[0], found


@pytest.mark.parametrize("requirements", [
    ["to != 5"],
    ["at > 0 or to < 8", "to < 8"],  # a part of an `or` does not hold on its own
    ["at == 1", "at == true"],  # 1 and true are two values, however Python compares them
    ["flag == true"],
])
def test_nothing_is_reported_without_a_proof(make_game, requirements):
    assert warnings(make_game, *requirements) == []


def test_a_filter_reading_a_later_parameter_is_not_compared(make_game):
    """In `to`'s `where:`, `n` is the state variable; in a requirement it is the parameter `n`."""
    text = TEMPLATE.replace("where: to != 4 and flag", "where: n > 0").replace(
        "REQUIRE", "      - n > 0")
    game = make_game(text)
    assert [d for d in game.model.diagnostics if d.code == "RP323"] == []
