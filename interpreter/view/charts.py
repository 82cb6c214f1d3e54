"""Charts of one run or of two runs side by side, as PNG and SVG (matplotlib, the extra `ruleplay[plot]`).

Three charts, each drawn for every run given (one for `simulate`, A and B
for `compare`): win rate per seat (per agent when seats rotate) with its 95% Wilson interval, the score
and length distributions overlaid as step histograms (outlines, so both
runs stay visible where they overlap), and the share of games in which
each rule fired.  The Agg backend draws without a display.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable

COLOURS = ("#1f77b4", "#d62728")  # A blue, B red: tell apart also in greyscale by line style
STYLES = ("-", "--")

Run = tuple[list[str], dict, Any]  # agents, statistics (`runs.summary`), Measures


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


CHARTS = ("win-rates", "scores", "length", "rule-coverage")  # the file stems `write_charts` writes
FORMATS = ("png", "svg")


def chart_files(folder: Path) -> list[Path]:
    """Every file `write_charts(folder, ...)` writes, so a caller can check them before a long run."""
    return [path for stem in CHARTS for path in _files(folder, stem)]


def _files(folder: Path, stem: str) -> list[Path]:
    return [folder / f"{stem}.{ext}" for ext in FORMATS]


def _save(plt: Any, figure: Any, folder: Path, stem: str) -> list[Path]:
    figure.tight_layout()
    paths = _files(folder, stem)
    for path in paths:
        figure.savefig(path, dpi=120)
    plt.close(figure)
    return paths


def wrapped(spec: str, width: int = 28) -> str:
    """An agent spec on lines of about `width` characters, broken after its colons.

    Specs have no spaces for matplotlib to break at, and a long one
    (`ismcts:iterations=20:depth=3:heuristic=prospects`) written on one line
    runs into the next seat's label.
    """
    lines, line = [], ""
    for part in re.split(r"(?<=:)", spec):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = part
        else:
            line += part
    return "\n".join(lines + [line])


def seat_label(seat: int, spec: str, holder: str = "seat") -> str:
    return f"{holder} {seat}\n{wrapped(spec)}"


def _win_rates(plt: Any, title: str, runs: dict[str, Run], holder: str) -> Any:
    figure, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(runs)
    for k, (label, (agents, stats, _)) in enumerate(runs.items()):
        rates = [w["rate"] for w in stats["win_rate"]]
        low = [w["rate"] - w["ci95"][0] for w in stats["win_rate"]]
        high = [w["ci95"][1] - w["rate"] for w in stats["win_rate"]]
        xs = [seat + (k - (len(runs) - 1) / 2) * width for seat in range(len(rates))]
        ax.bar(xs, rates, width, yerr=[low, high], capsize=4, color=COLOURS[k], alpha=0.8, label=label)
    agents = next(iter(runs.values()))[0]
    ax.set_xticks(range(len(agents)), [seat_label(s, a, holder) for s, a in enumerate(agents)])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(f"{title}: win rate per {holder}")
    ax.legend()
    return figure


def _histograms(plt: Any, title: str, runs: dict[str, Run], what: str,
                values: Callable[[Any], list[Counter]], names: Callable[[list[str]], list[str]]) -> Any:
    first = next(iter(runs.values()))
    panels = len(values(first[2]))
    figure, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 3.6), squeeze=False)
    for p, ax in enumerate(axes[0]):
        everything = sorted({v for _, _, m in runs.values() for v in values(m)[p]})
        low, high = (everything[0], everything[-1]) if everything else (0, 1)
        bins = min(40, max(1, len(everything))) if everything else 1
        for k, (label, (_, _, measures)) in enumerate(runs.items()):
            counts = values(measures)[p]
            ax.hist(list(counts), bins=bins, range=(low, high + (high == low)), weights=list(counts.values()),
                    histtype="step", linewidth=1.8, linestyle=STYLES[k], color=COLOURS[k], label=label)
        ax.set_title(names(first[0])[p])
        ax.set_xlabel(what)
        ax.set_ylabel("games")
        ax.legend()
    figure.suptitle(f"{title}: {what} distribution")
    return figure


def _natural(rule: str) -> list:
    """LP-2.7 before LP-10.1: numbers in a rule id compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", rule)]


def _coverage(plt: Any, title: str, runs: dict[str, Run]) -> Any:
    rules = sorted({r for _, s, _ in runs.values() for r in s["rules"]["fired"]}, key=_natural)
    figure, ax = plt.subplots(figsize=(8.5, max(2.5, 0.28 * len(rules) + 1)))
    if rules:
        _coverage_bars(ax, rules, runs)
    else:  # no bar to draw, and an empty range of rules would be a singular y axis
        ax.text(0.5, 0.5, "no rule fired in these games (does the ruleset cite rule ids?)", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_yticks([])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games in which the rule fired")
    ax.set_title(f"{title}: rule coverage")
    return figure


def _coverage_bars(ax: Any, rules: list[str], runs: dict[str, Run]) -> None:
    """One bar per rule and run: the share of the run's games in which the rule fired."""
    height = 0.8 / len(runs)
    for k, (label, (_, stats, _)) in enumerate(runs.items()):
        fired = stats["rules"]["fired"]
        shares = [fired[r]["share_of_games"] if r in fired else 0.0 for r in rules]
        ys = [i + (k - (len(runs) - 1) / 2) * height for i in range(len(rules))]
        ax.barh(ys, shares, height, color=COLOURS[k], alpha=0.8, label=label)
    ax.set_yticks(range(len(rules)), rules, fontsize=8)
    ax.set_ylim(len(rules) - 0.5, -0.5)  # first rule on top, no empty margin
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars: full-length bars are common


def write_charts(folder: Path, title: str, runs: dict[str, Run], holder: str = "seat") -> list[Path]:
    """Write win-rates, scores, length and coverage charts (PNG and SVG) to `folder`; the paths written.
    `holder` names what the runs' k-th figures belong to: "seat", or "agent" for seats rotated."""
    plt = _pyplot()
    written = _save(plt, _win_rates(plt, title, runs, holder), folder, "win-rates")
    written += _save(plt, _histograms(plt, title, runs, "score", lambda m: m.scores,
                                      lambda agents: [seat_label(s, a, holder) for s, a in enumerate(agents)]),
                     folder, "scores")
    written += _save(plt, _histograms(plt, title, runs, "length (moves)", lambda m: [m.lengths],
                                      lambda agents: ["all games"]), folder, "length")
    written += _save(plt, _coverage(plt, title, runs), folder, "rule-coverage")
    return written
