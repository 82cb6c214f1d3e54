"""The charts of an analysis report (`ruleplay analyze`), each as SVG text for the page to hold.

* every metric of every ruleset, one small panel a metric, each ruleset a
  point with its 95% interval, so a variant that moves a metric stands out;
* per variant, the differences chart `compare --plot` draws (`charts.
  differences`): B - A with the paired, corrected interval;
* strategic depth: each step of the skill chain, the stronger agent's
  score with its interval against the line of one half;
* the distributions of length, lead changes and when the lead settled,
  all rulesets overlaid, binned on the values' grid.
"""

from __future__ import annotations

import math
from ..runs.analysis import Analysis
from ..runs.quality import METRICS
from .charts import COLOURS, QUIET, differences, figure_svg, grid_bins, plain, pyplot

PALETTE = (*COLOURS, "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


def _colour(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def metrics_svg(analysis: Analysis) -> str:
    """Every metric measured, a panel each: each ruleset's value and 95% interval."""
    plt = pyplot()
    shown = [m for m in METRICS if m.name != "strategic_depth"
             and any(m.name in side.metrics for side in analysis.sides)]
    columns = 3
    rows = math.ceil(len(shown) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(11, (0.4 * len(analysis.sides) + 1.0) * rows + 0.8),
                                squeeze=False)
    for n, (ax, metric) in enumerate(zip(axes.flat, shown)):
        for k, side in enumerate(analysis.sides):
            found = side.metrics.get(metric.name)
            if found is None:
                continue
            value, (low, high) = found["value"], found["ci95"]
            ax.errorbar([value], [k], xerr=[[value - low], [high - value]], fmt="o", color=_colour(k), capsize=3)
        ax.set_yticks(range(len(analysis.sides)),
                      [plain(_short(s.label)) if n % columns == 0 else "" for s in analysis.sides], fontsize=8)
        ax.set_ylim(len(analysis.sides) - 0.5, -0.5)
        ax.set_title(plain(metric.label), fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
        if metric.name in ("balance", "first_move_advantage", "drawishness", "decisiveness", "settled_at", "drama"):
            ax.set_xlim(-0.02, 1.02)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    figure.suptitle(f"{plain(analysis.title)}: the metrics of each ruleset (95% intervals)", fontsize=11)
    return figure_svg(plt, figure)


def differences_svg(analysis: Analysis, k: int) -> str:
    """The differences chart of variant k (0 is the first variant) against the base."""
    plt = pyplot()
    versus = analysis.versus[k]
    labels = (analysis.sides[0].label, versus.label)
    return figure_svg(plt, differences(plt, analysis.title, labels, versus.differences, versus.confidence))


def depth_svg(analysis: Analysis) -> str:
    """Each ruleset's skill chain: the stronger agent's score at each step, with its interval."""
    plt = pyplot()
    measured = [side for side in analysis.sides if side.depth is not None]
    steps = max(len(side.depth.steps) for side in measured if side.depth is not None)
    figure, ax = plt.subplots(figsize=(8, 3.2 + 0.3 * len(measured)))
    width = 0.8 / len(measured)
    names: list[str] = []
    for k, side in enumerate(measured):
        assert side.depth is not None
        for i, step in enumerate(side.depth.steps):
            low, high = step.ci95
            x = i + (k - (len(measured) - 1) / 2) * width
            ax.errorbar([x], [step.score], yerr=[[step.score - low], [high - step.score]], fmt="*" if step.significant
                        else "o", color=_colour(k), markersize=10 if step.significant else 6, capsize=4,
                        label=plain(_short(side.label)) if i == 0 else None)
            if k == 0:
                names.append(f"{step.stronger}\nagainst {step.weaker}")
    ax.axhline(0.5, color=QUIET, linestyle="--", linewidth=1)
    ax.set_xticks(range(steps), [plain(n) for n in names], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("stronger agent's score\n(wins + draws/2, 95% interval)")
    ax.set_title(f"{plain(analysis.title)}: strategic depth (★ significantly above one half)", fontsize=10)
    ax.legend(fontsize=8)
    return figure_svg(plt, figure)


def distributions_svg(analysis: Analysis) -> str:
    """Game length, lead changes and when the lead settled, every ruleset overlaid."""
    plt = pyplot()
    panels = [("length (moves)", lambda m: m.lengths), ("lead changes", lambda m: m.arc_values["lead_changes"]),
              ("when the lead settled (share of the game)", lambda m: m.arc_values["settled_at"])]
    figure, axes = plt.subplots(1, len(panels), figsize=(13, 3.6), squeeze=False)
    for ax, (what, values) in zip(axes[0], panels):
        counted = [values(side.report.measures) for side in analysis.sides]
        bins = grid_bins([v for counts in counted for v in counts])
        for k, (side, counts) in enumerate(zip(analysis.sides, counted)):
            if counts:
                ax.hist(list(counts), bins=bins, weights=list(counts.values()), histtype="step", linewidth=1.8,
                        color=_colour(k), label=plain(_short(side.label)))
        ax.set_xlabel(what)
        ax.set_ylabel("games")
        ax.legend(fontsize=8)
    figure.suptitle(f"{plain(analysis.title)}: distributions over the games", fontsize=11)
    return figure_svg(plt, figure)


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"

