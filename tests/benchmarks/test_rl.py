"""The RL benchmark: PettingZoo's loop and the batched one, measured in each tree's own worker."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("pettingzoo", reason="the RL environments need the `rl` extra")

from benchmarks import against, rl
from benchmarks.worker import serve
from native_support import native_of
from ruleplay import load_game


def test_a_worker_steps_the_trees_own_environments_on_request():
    import ruleplay

    native_of(load_game("tic-tac-toe"))
    key = {"game": "tic-tac-toe", "players": None, "variant": None}
    requests = [{"op": "rl", **key, "env": "pettingzoo", "backend": None, "seconds": 0.01},
                {"op": "rl", **key, "env": "vector", "backend": "native", "seconds": 0.01},
                {"op": "rl", **key, "env": "vector-nocopy", "backend": "native", "seconds": 0.01}]
    replies = io.StringIO()
    serve(ruleplay, [json.dumps(r) for r in requests], replies)
    stepped, *batched = (json.loads(line) for line in replies.getvalue().splitlines())
    assert stepped["moves"] >= 7 * stepped["playouts"] > 0  # 5 moves at least, and one closing step per seat
    for batch in batched:
        assert batch["moves"] % rl.BATCH == 0 and batch["moves"] >= rl.BATCH


@pytest.mark.skipif(not (against.ROOT / ".git").exists(), reason="needs a git checkout")
def test_rl_compares_an_older_trees_pettingzoo_with_the_current_native_and_batched_ones():
    native_of(load_game("tic-tac-toe"))
    result = rl.compare("HEAD", [("tic-tac-toe", None)], pairs=1, seconds=0.02)
    (row,) = result["rows"]
    assert list(row["steps_per_s"]) == ["reference", "pettingzoo", "vector", "vector-nocopy"]
    assert row["ratios"]["reference"] == 1
    rates = row["steps_per_s"]
    assert row["batch_over_pettingzoo"] == pytest.approx(rates["vector"] / rates["pettingzoo"])
    assert row["nocopy_over_pettingzoo"] == pytest.approx(rates["vector-nocopy"] / rates["pettingzoo"])
    text = rl.report(result)
    assert "HEAD's PettingZoo environment" in text and text.splitlines()[-1].startswith("tic-tac-toe")


def test_the_batchs_random_draw_picks_each_games_legal_actions_alike():
    import numpy as np

    counts = np.array([3, 0, 1, 1], np.int64)
    legal = np.array([[4, 1, 2], [-1, -1, -1], [0, -1, -1], [4, -1, -1]], np.int32)
    draws = np.random.default_rng(0)
    picked = np.array([rl.random_legal(counts, legal, draws) for _ in range(3000)])
    assert set(picked[:, 0].tolist()) == {1, 2, 4} and picked[:, 1:].tolist() == [[0, 0, 4]] * 3000
    counted = np.bincount(picked[:, 0], minlength=5)[[1, 2, 4]]
    assert counted.min() > 900 and counted.max() < 1100  # 1000 each expected; 4 sigma is about 100
    assert rl.random_legal(np.zeros(2, np.int64), np.zeros((2, 0), np.int32), draws).tolist() == [0, 0]


def test_the_split_of_a_batched_step_names_its_parts():
    from benchmarks import rl_split

    native_of(load_game("tic-tac-toe"))
    (row,) = rl_split.split([("tic-tac-toe", None)], seconds=0.02)
    assert (row["numbers"], row["actions"]) == (53, 9)
    assert all(row[part] > 0 for part in ("game_steps_per_s", "draw_us", "native_us", "move_us", "observation_us"))
    assert rl_split.report([row]).splitlines()[-1].startswith("tic-tac-toe")
