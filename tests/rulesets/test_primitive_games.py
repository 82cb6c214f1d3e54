"""Test-only rulesets, one per general primitive, played to the end and checked rule by rule.

Each ruleset in this folder is a small non-seed game written to prove that a
primitive of the language serves a game nobody designed it for: knight steps,
a perimeter track with a weighted die, majorities and tie-breakers, hidden
hands with a stage, face-down items and a declared graph.  Every test below
recomputes the expected behaviour in plain Python from the state, rather than
trusting the ruleset's own numbers.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from ruleplay import CHANCE, RulesetError, load_game
from ruleplay.dsl import runtime as R
from ruleplay.dsl.builtins import BUILTINS

HERE = Path(__file__).resolve().parent
RULESETS = ["knights", "track-race", "majority", "go-fish-lite", "face-down", "graph-walk"]


def load(name: str, players: int | None = None):
    return load_game(HERE / f"{name}.yaml", players=players, checking=True)


def playout(game, seed: int, max_moves: int = 2000) -> list:
    """Every state of one seeded random game, initial and terminal included."""
    rng = random.Random(seed)
    state = game.new_state(seed=seed)
    states = [state]
    for _ in range(max_moves):
        if state.is_terminal():
            return states
        if state.is_chance_node():
            state = state.apply_chance()
        else:
            state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    raise AssertionError(f"{game.name}: no end after {max_moves} moves (seed {seed})")


def player_counts(name: str) -> list[int]:
    game = load(name)
    return list(range(game.info.min_players, game.info.max_players + 1))


# ------------------------------------------------------------------- all games
@pytest.mark.parametrize("name", RULESETS)
def test_loads_without_any_diagnostic(name):
    """Valid, and every rule of its spec is cited (no RP310 warning either)."""
    game = load(name)
    assert [d.format() for d in game.model.diagnostics] == []
    assert game.model.spec == f"{name}.md"


@pytest.mark.parametrize("name", RULESETS)
def test_seeded_random_games_reach_the_end(name):
    for players in player_counts(name):
        game = load(name, players)
        for seed in range(3):
            states = playout(game, seed)
            end = states[-1]
            assert end.is_terminal()
            returns = end.returns()
            assert len(returns) == players and all(-1.0 <= r <= 1.0 for r in returns)
            # Replaying the same seed gives the same game.
            assert playout(game, seed)[-1].history == end.history
            again = game.state_from_json(end.to_json())
            assert again == end


# --------------------------------------------------------------------- knights
def knight_targets(cell: int, width: int = 5, height: int = 5) -> set[int]:
    x, y = cell % width, cell // width
    out = set()
    for dx, dy in [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]:
        if 0 <= x + dx < width and 0 <= y + dy < height:
            out.add((y + dy) * width + x + dx)
    return out


def with_vars(state, **changes):
    """A copy of `state` with some variables replaced, through the public JSON form."""
    data = state.to_json()
    data["data"]["vars"].update(changes)
    return state.game.state_from_json(data)


def test_knight_moves_are_exactly_the_knight_steps():
    game = load("knights")
    checked = 0
    for seed in range(4):
        for state in playout(game, seed):
            if state.is_terminal():
                continue
            me = state.current_player
            knights = state.data["vars"]["knight"]
            targets = {m.args[0] for m in state.legal_moves()}
            assert targets == knight_targets(knights[me]) - {knights[1 - me]}
            checked += 1
    assert checked > 20


def test_knight_step_counts_on_corner_edge_and_centre():
    state = load("knights").new_state()
    assert {m.args[0] for m in state.legal_moves()} == {7, 11}  # corner: two steps
    assert len(with_vars(state, knight=[2, 24]).legal_moves()) == 4  # middle of the top edge
    assert len(with_vars(state, knight=[12, 24]).legal_moves()) == 8  # centre
    # The other knight's square is refused with the rule that forbids it.
    blocked = with_vars(state, knight=[12, 1])
    assert 1 not in {m.args[0] for m in blocked.legal_moves()}
    assert "KN-2.2" in blocked.explain("jump(1)")


def test_landing_on_a_gem_takes_it():
    state = load("knights").new_state()
    state = with_vars(state, knight=[5, 24])
    after = state.apply("jump(12)")
    assert 12 not in after.data["vars"]["gems"]
    assert after.data["vars"]["taken"] == [1, 0]
    assert "KN-2.3" in after.last_fired


def test_knight_game_ends_on_the_move_limit_or_when_gems_run_out():
    game = load("knights")
    for seed in range(6):
        end = playout(game, seed)[-1]
        v = end.data["vars"]
        assert v["moves"] == 20 or v["gems"] == []
        assert sum(v["taken"]) + len(v["gems"]) == 5
        assert end.scores() == v["taken"]


# ------------------------------------------------------------------ track race
PERIMETER_4X4 = [0, 1, 2, 3, 7, 11, 15, 14, 13, 12, 8, 4]


def test_the_die_is_a_weighted_chance_action():
    game = load("track-race")
    state = game.new_state()
    assert game.info.chance and state.current_player == CHANCE
    outcomes = {m.args[0]: p for m, p in state.chance_outcomes()}
    assert outcomes == pytest.approx({1: 2 / 6, 2: 3 / 6, 3: 1 / 6})
    # Sampling follows the weights (the state's own seeded generator).
    faces = Counter(game.new_state(seed=s).apply_chance().data["vars"]["thrown"] for s in range(600))
    assert abs(faces[2] / 600 - 0.5) < 0.07 and abs(faces[3] / 600 - 1 / 6) < 0.07


def test_runners_move_along_the_perimeter_and_bump_opponents():
    bumps = 0
    for players in (2, 3):
        game = load("track-race", players)
        for seed in range(5):
            states = playout(game, seed)
            for before, after in zip(states, states[1:]):
                move = after.history[-1]
                if move.action != "advance":
                    continue
                me, r = before.current_player, move.args[0]
                thrown = before.data["vars"]["thrown"]
                old, new = before.data["vars"]["gone"], after.data["vars"]["gone"]
                assert new[me][r] == old[me][r] + thrown
                here = PERIMETER_4X4[new[me][r] % 12] if new[me][r] < 12 else None
                for q in range(players):
                    for k in range(2):
                        if q == me:
                            continue
                        hit = here is not None and old[q][k] < 12 and PERIMETER_4X4[old[q][k]] == here
                        assert new[q][k] == (0 if hit else old[q][k])
                        bumps += hit
    assert bumps > 0


def test_turns_rotate_and_the_first_player_home_twice_wins():
    game = load("track-race", 3)
    for seed in range(4):
        states = playout(game, seed)
        for state in states:
            if not state.is_terminal() and state.phase == "run":
                assert state.current_player == (state.round - 1) % 3
        end = states[-1]
        gone = end.data["vars"]["gone"]
        finished = [p for p in range(3) if min(gone[p]) >= 12]
        assert len(finished) == 1
        assert end.winners() == finished


# -------------------------------------------------------------------- majority
def majority_points(placed: list[list[int]], p: int) -> int:
    total = 0
    for value, counts in zip([6, 4, 2], placed):
        ahead = sum(1 for c in counts if c > counts[p])
        top = max(counts)
        if counts[p] == top and counts.count(top) == 1:
            total += value
        elif counts[p] > 0 and ahead == 0:
            total += value // 2
        elif counts[p] > 0 and ahead == 1:
            total += 1
    return total


def test_majority_scores_and_tie_breakers():
    score_ties = 0
    for players in (2, 3, 4):
        game = load("majority", players)
        for seed in range(8):
            end = playout(game, seed)[-1]
            placed = end.data["vars"]["placed"]
            assert end.scores() == [majority_points(placed, p) for p in range(players)]
            keys = []
            for p in range(players):
                majorities = sum(1 for counts in placed if sorted(counts)[-1] == counts[p]
                                 and counts.count(counts[p]) == 1)
                keys.append((majority_points(placed, p), majorities, placed[0][p]))
            returns = end.returns()
            for a in range(players):
                for b in range(players):
                    if keys[a] > keys[b]:
                        assert returns[a] > returns[b]
                    elif keys[a] == keys[b]:
                        assert returns[a] == returns[b]
            score_ties += len({k[0] for k in keys}) < players
    assert score_ties > 0  # the tie-breakers were really exercised


def test_a_tie_on_points_goes_to_more_majorities():
    game = load("majority", 2)
    state = game.new_state()
    for move in ["put(0, 2)", "put(2, 1)",   # round 1: seat 0 starts
                 "put(0, 2)", "put(1, 1)",   # round 2: seat 1 starts (rotate_start)
                 "put(0, 2)", "put(1, 2)"]:  # round 3: seat 0 starts
        state = state.apply(move)
    assert state.is_terminal()
    assert state.data["vars"]["starts"] == [0, 1, 0]
    assert state.data["vars"]["placed"] == [[4, 2], [1, 2], [0, 1]]
    assert state.scores() == [7, 7]  # 6 + 1 against 1 + 4 + 2
    assert state.winners() == [1]  # seat 1 has two majorities, seat 0 one


def test_players_without_cubes_are_skipped_and_the_start_rotates():
    game = load("majority", 3)
    rounds = 0
    for seed in range(6):
        states = playout(game, seed)
        assert states[0].data["vars"]["starts"] == [0]
        for state in states[:-1]:
            assert state.data["vars"]["cubes"][state.current_player] > 0
        for before, after in zip(states, states[1:]):
            if after.is_terminal() or after.round == before.round:
                continue
            previous = before.data["vars"]["starts"][-1]
            cubes = after.data["vars"]["cubes"]
            expected = next(s for s in ((previous + k) % 3 for k in range(1, 4)) if cubes[s] > 0)
            assert after.data["vars"]["starts"][-1] == expected == after.current_player
            rounds += 1
    assert rounds > 6


# ---------------------------------------------------------------- go fish lite
def test_hands_are_seen_by_their_owner_only():
    for players in (2, 3):
        game = load("go-fish-lite", players)
        assert game.info.hidden_information
        for state in playout(game, seed=players)[:40]:
            hands, deck = state.data["vars"]["hand"], state.data["vars"]["deck"]
            for viewer in range(players):
                seen = state.observe(viewer)["state"]
                assert seen["deck"] == {"hidden": len(deck)}
                for q in range(players):
                    want = hands[q] if q == viewer else {"hidden": len(hands[q])}
                    assert seen["hand"][q] == want


def test_the_deck_is_shuffled_by_the_seed_and_dealt():
    game = load("go-fish-lite", 2)
    deals = [tuple(map(tuple, game.new_state(seed=s).data["vars"]["hand"])) for s in range(6)]
    assert len(set(deals)) > 1
    assert deals[0] == tuple(map(tuple, game.new_state(seed=0).data["vars"]["hand"]))
    first = game.new_state(seed=0).data["vars"]
    assert [len(h) for h in first["hand"]] == [4, 4] and len(first["deck"]) == 12


def test_asking_is_a_two_step_decision_in_one_turn():
    game = load("go-fish-lite", 3)
    steps = transfers = fishes = 0
    for seed in range(4):
        states = playout(game, seed)
        for before, after in zip(states, states[1:]):
            move = after.history[-1]
            me = before.current_player
            if move.action == "ask":
                assert after.current_player == me and after.data["flow"]["stage"] == "whom"
                assert {str(m) for m in after.legal_moves()} == {f"target({q})" for q in range(3) if q != me}
                steps += 1
            elif move.action == "target":
                rank = before.data["vars"]["asked"]
                q = move.args[0]
                given = [c for c in before.data["vars"]["hand"][q] if c.startswith(f"r{rank}#")]
                assert not any(c.startswith(f"r{rank}#") for c in after.data["vars"]["hand"][q])
                if given:
                    transfers += 1
                    assert after.current_player == me or after.is_terminal() or \
                        not after.data["vars"]["hand"][me]
                else:
                    fishes += 1
                    assert len(after.data["vars"]["deck"]) == max(0, len(before.data["vars"]["deck"]) - 1)
                    assert after.current_player != me or after.is_terminal()
    assert steps > 0 and transfers > 0 and fishes > 0


def test_books_are_laid_down_and_end_the_game():
    game = load("go-fish-lite", 2)
    for seed in range(4):
        end = playout(game, seed)[-1]
        books = end.data["vars"]["books"]
        assert sorted(b for pb in books for b in pb) == [1, 2, 3, 4, 5]
        assert end.scores() == [len(b) for b in books]


# ------------------------------------------------------------------ face down
def test_face_down_tiles_show_their_back_until_turned():
    game = load("face-down")
    misses = 0
    for seed in range(4):
        states = playout(game, seed)
        tiles = states[0].data["vars"]["tiles"]
        assert sorted(tiles) == sorted(["sun", "moon", "star", "wave"] * 2)
        for state in states:
            v = state.data["vars"]
            assert v["tiles"] == tiles  # the row itself never changes
            for viewer in (0, 1):
                seen = state.observe(viewer)["state"]["tiles"]
                for i, shown in enumerate(seen):
                    face_up = v["taken"][i] or i in v["peek"]
                    assert shown == (tiles[i] if face_up else "?")
            if len(v["peek"]) == 2 and not state.is_terminal():
                misses += 1
                a, b = v["peek"]
                assert tiles[a] != tiles[b]
        assert sum(states[-1].data["vars"]["pairs"]) == 4
    assert misses > 0


def test_a_miss_stays_visible_until_the_next_tile_is_turned():
    game = load("face-down")
    state = game.new_state(seed=5)
    tiles = state.data["vars"]["tiles"]
    a = 0
    b = next(i for i in range(1, 8) if tiles[i] != tiles[0])
    state = state.apply(f"turn_up({a})").apply(f"turn_up({b})")
    assert state.current_player == 1
    for viewer in (0, 1):
        seen = state.observe(viewer)["state"]["tiles"]
        assert seen[a] == tiles[a] and seen[b] == tiles[b]
    c = next(i for i in range(8) if i not in (a, b))
    state = state.apply(f"turn_up({c})")
    seen = state.observe(0)["state"]["tiles"]
    assert seen[a] == "?" and seen[b] == "?" and seen[c] == tiles[c]


def test_different_seeds_lay_out_different_rows():
    game = load("face-down")
    assert len({tuple(game.new_state(seed=s).data["vars"]["tiles"]) for s in range(5)}) > 1


# ------------------------------------------------------------------ graph walk
ROADS = [("depot", "mill"), ("depot", "ford"), ("depot", "hill"), ("mill", "port"), ("ford", "port"),
         ("ford", "well"), ("hill", "well"), ("port", "cape"), ("well", "cape"), ("cape", "dune")]


def test_couriers_travel_one_or_two_roads():
    graph = nx.Graph(ROADS)
    for players in (2, 3):
        game = load("graph-walk", players)
        for seed in range(3):
            for state in playout(game, seed):
                if state.is_terminal():
                    continue
                at = state.data["vars"]["at"]
                me = state.current_player
                near = nx.single_source_shortest_path_length(graph, at[me], cutoff=2)
                want = {t for t, d in near.items() if d > 0} - set(at)
                assert {m.args[0] for m in state.legal_moves()} == want


def test_distance_and_reachable_agree_with_networkx():
    game = load("graph-walk")
    ctx = R.Ctx({}, {"players": 2}, game.model)
    graph = nx.Graph(ROADS)
    lengths = dict(nx.all_pairs_shortest_path_length(graph))
    for a in graph:
        for b in graph:
            assert BUILTINS["distance"].fn(ctx, "roads", a, b) == lengths[a][b]
        assert set(BUILTINS["reachable"].fn(ctx, "roads", a)) == set(graph) - {a}
        assert sorted(BUILTINS["adjacent"].fn(ctx, "roads", a)) == sorted(graph[a])


def test_parcels_are_delivered_in_order():
    game = load("graph-walk", 2)
    parcels = ["cape", "well", "mill", "dune", "hill", "port"]
    for seed in range(4):
        states = playout(game, seed)
        for before, after in zip(states, states[1:]):
            k = before.data["vars"]["next_parcel"]
            me = before.current_player
            if k < len(parcels) and after.data["vars"]["at"][me] == parcels[k]:
                assert after.data["vars"]["next_parcel"] == k + 1
                assert after.data["vars"]["delivered"][me] == before.data["vars"]["delivered"][me] + 1
            else:
                assert after.data["vars"]["next_parcel"] == k


def test_ties_go_to_the_courier_nearer_the_depot():
    graph = nx.Graph(ROADS)
    ties = 0
    for players in (2, 3):
        game = load("graph-walk", players)
        for seed in range(10):
            end = playout(game, seed)[-1]
            v = end.data["vars"]
            keys = [(v["delivered"][p], -nx.shortest_path_length(graph, v["at"][p], "depot"))
                    for p in range(players)]
            returns = end.returns()
            for a in range(players):
                for b in range(players):
                    if keys[a] > keys[b]:
                        assert returns[a] > returns[b]
                    if keys[a][0] == keys[b][0] and keys[a][1] != keys[b][1]:
                        ties += 1
    assert ties > 0


def test_an_undirected_adjacency_needs_both_directions(tmp_path):
    text = (HERE / "graph-walk.yaml").read_text(encoding="utf-8")
    broken = text.replace("dune: [cape]", "dune: []")
    (tmp_path / "graph-walk.md").write_text((HERE / "graph-walk.md").read_text(encoding="utf-8"))
    (tmp_path / "broken.yaml").write_text(broken, encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_game(tmp_path / "broken.yaml")
    assert [d.code for d in err.value.diagnostics] == ["RP303"]
