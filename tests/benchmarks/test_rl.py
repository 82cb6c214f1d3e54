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
                {"op": "rl", **key, "env": "vector", "backend": "native", "seconds": 0.01}]
    replies = io.StringIO()
    serve(ruleplay, [json.dumps(r) for r in requests], replies)
    stepped, batched = (json.loads(line) for line in replies.getvalue().splitlines())
    assert stepped["moves"] >= 7 * stepped["playouts"] > 0  # 5 moves at least, and one closing step per seat
    assert batched["moves"] % rl.BATCH == 0 and batched["moves"] >= rl.BATCH


@pytest.mark.skipif(not (against.ROOT / ".git").exists(), reason="needs a git checkout")
def test_rl_compares_an_older_trees_pettingzoo_with_the_current_native_and_batched_ones():
    native_of(load_game("tic-tac-toe"))
    result = rl.compare("HEAD", [("tic-tac-toe", None)], pairs=1, seconds=0.02)
    (row,) = result["rows"]
    assert list(row["steps_per_s"]) == ["reference", "pettingzoo", "vector"] and row["ratios"]["reference"] == 1
    assert row["batch_over_pettingzoo"] == pytest.approx(row["steps_per_s"]["vector"] / row["steps_per_s"]["pettingzoo"])
    text = rl.report(result)
    assert "HEAD's PettingZoo environment" in text and text.splitlines()[-1].startswith("tic-tac-toe")
