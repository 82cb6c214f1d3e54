"""`ruleplay analyze`: the metrics of a game and its variants as text, JSON and one self-contained HTML page."""

from __future__ import annotations

import base64
import builtins
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay.cli import main

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
SCRIPTED = str(RULESETS / "scripted-lead.yaml")


def run(*args: object):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_json_holds_every_metric_of_every_ruleset_and_the_tests_against_the_base():
    result = run("analyze", SCRIPTED, "--variant", "level", "--variant", "wire-to-wire", "-n", "10",
                 "--depth-games", "2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["label"] for r in data["rulesets"]] == ["base", "level", "wire-to-wire"]
    base, level, wire = (r["metrics"] for r in data["rulesets"])
    assert (base["lead_changes"]["value"], base["balance"]["value"], base["duration"]["value"]) == (3.0, 0.0, 6.0)
    assert "drama" not in level and level["drawishness"]["value"] == 1.0
    assert wire["first_move_advantage"]["value"] == 1.0
    assert base["strategic_depth"] == {"value": 0, "steps": 2}
    assert data["rulesets"][0]["strategic_depth"]["chain"] == ["random", "mcts:iterations=50", "mcts:iterations=500"]
    assert [v["variant"] for v in data["against_base"]] == ["level", "wire-to-wire"]
    tested = {d["statistic"]: d for d in data["against_base"][1]["differences"]}
    assert tested["lead_changes"]["difference"] == -3 and tested["lead_changes"]["significant"]
    assert [m["name"] for m in data["metrics"]][-1] == "strategic_depth" and data["report"] is None
    assert data["rulesets"][0]["judged_by"] == "points"


def test_the_text_names_each_metric_and_what_changed(tmp_path):
    result = run("analyze", SCRIPTED, "--variant", "wire-to-wire", "-n", "10", "--depth-games", "0")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "base (Scripted lead; positions judged by points):" in text
    assert re.search(r"lead changes +3\.000 +95% CI \[3\.000, 3\.000\]", text)
    assert "wire-to-wire against base (10 pairs of games, 99.69% intervals, Bonferroni for 16): significant:" in text
    assert "  lead_changes: 3.000 -> 0.000 (-3.000, [-3.000, -3.000])" in text
    assert "strategic depth" not in text  # --depth-games 0


@pytest.mark.slow  # a whole analysis with its skill chain: some fifteen seconds
def test_the_report_is_one_page_that_holds_everything_and_fetches_nothing(tmp_path):
    pytest.importorskip("matplotlib")
    titled = tmp_path / "titled.yaml"
    titled.write_text(f"extends: ./scripted-lead.yaml\ntitle: '<script>alert(1)</script> & co'\n", encoding="utf-8")
    (tmp_path / "scripted-lead.yaml").write_text(Path(SCRIPTED).read_text(encoding="utf-8"), encoding="utf-8")
    page = tmp_path / "report.html"
    result = run("analyze", tmp_path / "scripted-lead.yaml", "--variant", titled, "-n", "8", "--depth-games", "2",
                 "-o", page)
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"report written to {page}\n")
    text = page.read_text(encoding="utf-8")
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in text
    assert re.findall(r"https?://", text) == []  # nothing to fetch: the SVG namespaces are inside data: images
    images = re.findall(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 4  # differences, metrics, strategic depth, distributions
    assert all(base64.b64decode(i).startswith(b"<?xml") for i in images)
    data = json.loads(text.split('<script type="application/json" id="analysis">')[1].split("</script>")[0])
    assert data["rulesets"][1]["title"] == "<script>alert(1)</script> & co"
    for heading in ("Did the variants change the game?", "What makes a game good, measured", "Strategic depth",
                    "What the metrics mean"):
        assert heading in text
    again = run("analyze", tmp_path / "scripted-lead.yaml", "-n", "2", "--depth-games", "0", "-o", page)
    assert again.exit_code == 2 and "exists: add --overwrite" in again.output


def test_the_report_needs_matplotlib_and_says_so_before_playing(tmp_path, monkeypatch):
    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    result = run("analyze", SCRIPTED, "-n", "2", "-o", tmp_path / "r.html")
    assert result.exit_code == 2 and "pip install 'ruleplay[plot]'" in result.output


def test_a_hidden_information_game_gets_an_honest_chain_and_refuses_an_omniscient_one():
    honest = run("analyze", "kuhn-poker", "-n", "4", "--depth-games", "2", "--json")
    assert honest.exit_code == 0, honest.output
    chain = json.loads(honest.output)["rulesets"][0]["strategic_depth"]["chain"]
    assert chain == ["random", "ismcts:iterations=50", "ismcts:iterations=500"]
    refused = run("analyze", "kuhn-poker", "-n", "4", "--skill-chain", "random,mcts:iterations=5")
    assert refused.exit_code == 2
    assert "Invalid value for --skill-chain: 'mcts:iterations=5' reads the whole state" in refused.output
    allowed = run("analyze", "kuhn-poker", "-n", "4", "--skill-chain", "random,mcts:iterations=5",
                  "--depth-games", "2", "--allow-omniscient", "--json")
    assert allowed.exit_code == 0, allowed.output
    short = run("analyze", "kuhn-poker", "-n", "4", "--skill-chain", "random")
    assert short.exit_code == 2 and "a skill chain names at least two agents" in short.output


def test_a_heuristic_the_game_lacks_is_a_usage_error():
    result = run("analyze", SCRIPTED, "-n", "2", "--heuristic", "gold")
    assert result.exit_code == 2
    assert "Invalid value for --heuristic: scripted-lead has no heuristic 'gold' (its heuristics: points)" in result.output


def test_a_one_player_game_is_analysed_without_strategic_depth(tmp_path):
    solo = tmp_path / "solo.yaml"
    solo.write_text("ruleplay: 1\ngame: solo\nplayers: 1\nstate:\n  x: {init: \"0\"}\nflow:\n  phases:\n"
                    "    - {name: a, actions: [go]}\nactions:\n  go:\n    params: {n: 'range(1, 3)'}\n"
                    "    effects: x += n\nend:\n  - when: x > 4\nscoring:\n  score: x\n", encoding="utf-8")
    result = run("analyze", solo, "-n", "5", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rulesets"][0]["strategic_depth"] is None and data["rulesets"][0]["metrics"]["balance"]["value"] == 1
    assert "note: strategic depth plays a stronger agent against a weaker one, and this game of solo has one " \
           "seat: it is not measured" in result.stderr


def test_the_intervals_of_bounded_metrics_stay_in_their_range():
    result = run("analyze", RULESETS / "graph-walk.yaml", "-n", "5", "--depth-games", "0", "--json")
    metrics = json.loads(result.stdout)["rulesets"][0]["metrics"]
    for name in ("drama", "settled_at"):
        low, high = metrics[name]["ci95"]
        assert 0 <= low <= metrics[name]["value"] <= high <= 1, name
