"""Charts of one run or of two runs side by side, as PNG and SVG (matplotlib, the extra `ruleplay[plot]`).

For `simulate` (one run): win rate per seat (per agent when seats rotate)
with its 95% Wilson interval, the score and length distributions, and the
share of games in which each rule fired, rules that fired in only some
games coloured and rules that never fired marked.

For `compare` (A and B): first the answer to "did the variant change the
game?" — every tested statistic's B - A with the very interval the text
reports (paired, Bonferroni-corrected), one row each on its own scale,
significant rows marked, draws and decisiveness included — then the score
and length distributions of both sides overlaid as step histograms
(outlines, so both stay visible where they overlap), and the rules whose
share of games changed, by how much.  The win rates of each side alone,
with unpaired intervals, are left out: they disagreed with the paired test
about what is significant.

Histograms are binned on the values' own grid (whole numbers one bin each,
or a multiple of their spacing), so no bin straddles two scores.  Titles
name the game and variants by their titles.  The Agg backend draws without
a display; `figure_svg` gives a chart as SVG text for a page to hold.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from fractions import Fraction
from functools import reduce
from pathlib import Path
from typing import Any, Callable, Sequence

from ..files import atomic_write_bytes

COLOURS = ("#1f77b4", "#d62728")  # A blue, B red: tell apart also in greyscale by line style
STYLES = ("-", "--")
SIGNIFICANT = "#c0392b"
QUIET = "#7f8c8d"
MAX_BINS = 60

Run = tuple[list[str], dict, Any]  # agents, statistics (`runs.summary`), Measures


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "ruleplay"  # the same chart gives the same SVG ids every time
    return plt


SIMULATE_CHARTS = ("win-rates", "scores", "length", "rule-coverage")  # the file stems `write_charts` writes
COMPARE_CHARTS = ("differences", "scores", "length", "rule-coverage")
FORMATS = ("png", "svg")


def chart_files(folder: Path, comparison: bool = False) -> list[Path]:
    """Every file `write_charts(folder, ...)` writes, so a caller can check them before a long run."""
    return [path for stem in (COMPARE_CHARTS if comparison else SIMULATE_CHARTS) for path in _files(folder, stem)]


def _files(folder: Path, stem: str) -> list[Path]:
    return [folder / f"{stem}.{ext}" for ext in FORMATS]


def _save(plt: Any, figure: Any, folder: Path, stem: str, replace: bool) -> list[Path]:
    """The figure as PNG and SVG files, each written whole (`files.atomic_write_bytes`)."""
    figure.tight_layout()
    paths = _files(folder, stem)
    try:
        for path in paths:
            drawn = io.BytesIO()
            figure.savefig(drawn, format=path.suffix[1:], dpi=120,
                           metadata={"Date": None} if path.suffix == ".svg" else None)
            atomic_write_bytes(path, drawn.getvalue(), replace)
    finally:
        plt.close(figure)
    return paths


def figure_svg(plt: Any, figure: Any) -> str:
    """The chart as SVG text (no date in it, so the same chart gives the same text), and the figure closed."""
    figure.tight_layout()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


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


def plain(text: str) -> str:
    """Text from a ruleset or a user (a title, a path) as matplotlib shows it literally: `$` would start
    mathematics and a backslash an escape."""
    return text.replace("\\", "\\\\").replace("$", r"\$")


def win_rates(plt: Any, title: str, runs: dict[str, Run], holder: str) -> Any:
    figure, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(runs)
    for k, (label, (agents, stats, _)) in enumerate(runs.items()):
        rates = [w["rate"] for w in stats["win_rate"]]
        low = [w["rate"] - w["ci95"][0] for w in stats["win_rate"]]
        high = [w["ci95"][1] - w["rate"] for w in stats["win_rate"]]
        xs = [seat + (k - (len(runs) - 1) / 2) * width for seat in range(len(rates))]
        ax.bar(xs, rates, width, yerr=[low, high], capsize=4, color=COLOURS[k], alpha=0.8, label=plain(label))
    agents = next(iter(runs.values()))[0]
    ax.set_xticks(range(len(agents)), [plain(seat_label(s, a, holder)) for s, a in enumerate(agents)])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(f"{plain(title)}: win rate per {holder}")
    ax.legend()
    return figure


def grid_bins(values: Sequence[float]) -> list[float] | int:
    """Bin edges centred on the values' own grid: whole numbers one bin each (or every k-th whole number,
    at most MAX_BINS bins), values on a grid of g = 0.5, 0.25... likewise; other values, 40 equal bins."""
    distinct = sorted(set(values))
    if len(distinct) < 2:
        centre = distinct[0] if distinct else 0.0
        return [centre - 0.5, centre + 0.5]
    try:
        exact = [Fraction(v) for v in distinct]
    except (ValueError, OverflowError):
        return 40
    step = reduce(_fraction_gcd, (b - a for a, b in zip(exact, exact[1:])))
    if step.denominator > 1000 or (exact[-1] - exact[0]) / step > 100 * MAX_BINS:
        return min(40, len(distinct))
    count = (exact[-1] - exact[0]) / step + 1
    step *= max(1, math.ceil(count / MAX_BINS))
    edges, edge = [], exact[0] - step / 2
    while edge <= exact[-1] + step / 2:
        edges.append(float(edge))
        edge += step
    return edges if len(edges) > 1 else [float(exact[0] - step / 2), float(exact[0] + step / 2)]


def _fraction_gcd(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(math.gcd(a.numerator * b.denominator, b.numerator * a.denominator), a.denominator * b.denominator)


def histograms(plt: Any, title: str, runs: dict[str, Run], what: str,
               values: Callable[[Any], list[Counter]], names: Callable[[list[str]], list[str]]) -> Any:
    first = next(iter(runs.values()))
    panels = len(values(first[2]))
    figure, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 3.6), squeeze=False)
    for p, ax in enumerate(axes[0]):
        bins = grid_bins([v for _, _, m in runs.values() for v in values(m)[p]])
        for k, (label, (_, _, measures)) in enumerate(runs.items()):
            counts = values(measures)[p]
            ax.hist(list(counts), bins=bins, weights=list(counts.values()), histtype="step", linewidth=1.8,
                    linestyle=STYLES[k], color=COLOURS[k], label=plain(label))
        ax.set_title(plain(names(first[0])[p]))
        ax.set_xlabel(what)
        ax.set_ylabel("games")
        ax.legend()
    figure.suptitle(f"{plain(title)}: {what} distribution")
    return figure


def _natural(rule: str) -> list:
    """LP-2.7 before LP-10.1: numbers in a rule id compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", rule)]


def coverage(plt: Any, title: str, run: Run) -> Any:
    """One run's rules: the share of its games each fired in; full bars grey, partial ones coloured, and
    the rules cited where moves fire that never fired marked."""
    _, stats, _ = run
    rules = stats["rules"]
    names = sorted(set(rules["fired"]) | set(rules["possibly_dead"]), key=_natural)
    figure, ax = plt.subplots(figsize=(8.5, max(2.5, 0.28 * len(names) + 1)))
    if names:
        shares = [rules["fired"].get(r, {}).get("share_of_games", 0.0) for r in names]
        ax.barh(range(len(names)), shares, 0.8, color=[QUIET if s >= 1 else COLOURS[0] for s in shares])
        for i, rule in enumerate(names):
            if rule in rules["possibly_dead"]:
                ax.text(0.01, i, "never fired", va="center", color=SIGNIFICANT, fontsize=8)
        ax.set_yticks(range(len(names)), [plain(r) for r in names], fontsize=8)
        ax.set_ylim(len(names) - 0.5, -0.5)  # first rule on top, no empty margin
    else:  # no bar to draw, and an empty range of rules would be a singular y axis
        ax.text(0.5, 0.5, "no rule fired in these games (does the ruleset cite rule ids?)", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_yticks([])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games in which the rule fired (grey: every game)")
    ax.set_title(f"{plain(title)}: rule coverage")
    return figure


def coverage_changes(plt: Any, title: str, runs: dict[str, Run]) -> Any:
    """Two runs' rules whose share of games changed, by B - A, the largest changes first; the rules that
    fired in the same share of games on both sides are counted, not drawn."""
    (label_a, (_, a, _)), (label_b, (_, b, _)) = runs.items()
    fired_a, fired_b = a["rules"]["fired"], b["rules"]["fired"]
    shares = {r: (fired_a.get(r, {}).get("share_of_games", 0.0), fired_b.get(r, {}).get("share_of_games", 0.0))
              for r in set(fired_a) | set(fired_b)}
    changed = sorted((r for r, (x, y) in shares.items() if x != y), key=lambda r: (-abs(shares[r][1] - shares[r][0]),
                                                                                  _natural(r)))[:40]
    same = len(shares) - sum(1 for x, y in shares.values() if x != y)
    figure, ax = plt.subplots(figsize=(8.5, max(2.5, 0.3 * len(changed) + 1.2)))
    if changed:
        moves = [shares[r][1] - shares[r][0] for r in changed]
        ax.barh(range(len(changed)), moves, 0.8, color=[COLOURS[1] if m > 0 else COLOURS[0] for m in moves])
        for i, rule in enumerate(changed):
            x, y = shares[rule]
            ax.text(1.02, i, f"{x:.0%} → {y:.0%}", va="center", fontsize=8, transform=ax.get_yaxis_transform())
        ax.set_yticks(range(len(changed)), [plain(r) for r in changed], fontsize=8)
        ax.set_ylim(len(changed) - 0.5, -0.5)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlim(-1, 1)
    else:
        ax.text(0.5, 0.5, "every rule fired in the same share of games on both sides", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_yticks([])
    ax.set_xlabel(f"share of games in which the rule fired, B - A ({same} rules unchanged, not drawn)")
    ax.set_title(f"{plain(title)}: rules that fired in more (red) or fewer (blue) games, "
                 f"{plain(label_b)} against {plain(label_a)}", fontsize=10)
    return figure


def differences(plt: Any, title: str, labels: tuple[str, str], found: Sequence[Any], confidence: float) -> Any:
    """Every tested statistic's B - A with its (paired, corrected) interval: one row each, on its own scale
    around 0, significant rows in red with a star; an unbounded interval is drawn to the row's edges."""
    rows = len(found)
    figure, axes = plt.subplots(rows, 1, figsize=(9, 0.55 * rows + 1.3), squeeze=False)
    for ax, d in zip(axes[:, 0], found):
        bounded = math.isfinite(d.low) and math.isfinite(d.high)
        reach = max(abs(d.difference), abs(d.low) if bounded else 0.0, abs(d.high) if bounded else 0.0) or 1.0
        reach *= 1.15
        colour = SIGNIFICANT if d.significant else QUIET
        ax.axvline(0, color="black", linewidth=0.8)
        ax.hlines(0, d.low if bounded else -reach, d.high if bounded else reach, color=colour,
                  linewidth=3 if bounded else 1, linestyles="-" if bounded else ":")
        ax.plot([d.difference], [0], marker="*" if d.significant else "o", color=colour, markersize=10)
        ax.set_xlim(-reach, reach)
        ax.set_yticks([])
        ax.tick_params(axis="x", labelsize=7)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.text(-0.02, 0.5, plain(d.name), transform=ax.transAxes, ha="right", va="center", fontsize=9,
                color=colour, fontweight="bold" if d.significant else "normal")
        interval = f"[{d.low:+.3g}, {d.high:+.3g}]" if bounded else "unbounded: too few pairs"
        ax.text(1.02, 0.5, f"{d.a:.3g} → {d.b:.3g}: {d.difference:+.3g} {interval}", transform=ax.transAxes,
                ha="left", va="center", fontsize=8, color=colour)
    figure.suptitle(f"{plain(title)}: {plain(labels[1])} (B) against {plain(labels[0])} (A)\n"
                    f"B - A with {confidence:.2%} intervals (paired, Bonferroni for {rows}); red ★ significant",
                    fontsize=10)
    figure.subplots_adjust(left=0.22, right=0.68, hspace=0.9)
    return figure


def write_charts(folder: Path, title: str, runs: dict[str, Run], holder: str = "seat",
                 comparison: tuple[Sequence[Any], float] | None = None, replace: bool = True) -> list[Path]:
    """Write the charts (PNG and SVG) to `folder`; the paths written.  `holder` names what the runs' k-th
    figures belong to: "seat", or "agent" for seats rotated.  `comparison`, the differences of two runs
    and their per-comparison confidence, draws a comparison's charts (see the module docstring).  Without
    `replace`, a chart file already there is kept (FileExistsError); any OSError names its file."""
    plt = pyplot()
    if comparison is not None:
        label_a, label_b = runs
        written = _save(plt, differences(plt, title, (label_a, label_b), *comparison), folder, "differences",
                        replace)
    else:
        written = _save(plt, win_rates(plt, title, runs, holder), folder, "win-rates", replace)
    written += _save(plt, histograms(plt, title, runs, "score", lambda m: m.scores,
                                     lambda agents: [seat_label(s, a, holder) for s, a in enumerate(agents)]),
                     folder, "scores", replace)
    written += _save(plt, histograms(plt, title, runs, "length (moves)", lambda m: [m.lengths],
                                     lambda agents: ["all games"]), folder, "length", replace)
    if comparison is not None:
        figure = coverage_changes(plt, title, runs)
    else:
        figure = coverage(plt, title, next(iter(runs.values())))
    written += _save(plt, figure, folder, "rule-coverage", replace)
    return written
