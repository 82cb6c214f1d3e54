"""The analysis report (`ruleplay analyze -o FILE`): one self-contained HTML page.

Everything is in the page: the charts are SVG (`view.report_charts`)
embedded as `data:` images, the style is inline, there is no script to
run, and nothing is fetched, so it opens from a file, offline.  The
analysis itself is kept in the page too, as the JSON document `--json`
prints, in a `<script type="application/json">` block (written with `<`,
`>` and `&` as JSON escapes, so no text can close the block).  Every text
that comes from a ruleset or the command line (titles, labels, agent specs)
is HTML-escaped.

The page answers first what a designer asks first: for each variant, what
changed significantly against the base, with the differences chart; then
every metric of every ruleset with its interval, strategic depth, the
distributions of the games, and what each metric means and where it comes
from.
"""

from __future__ import annotations

import base64
import html
import json
import math

from ..runs.analysis import Analysis, Side
from ..runs.quality import BY_NAME, METRICS
from ..runs.stats import Difference
from .report_charts import depth_svg, differences_svg, distributions_svg, metrics_svg

STYLE = """
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 0 auto; max-width: 1150px; padding: 12px 20px;
       color: #222; background: #fafafa; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; background: #fff; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
.significant { color: #c0392b; font-weight: bold; }
.quiet { color: #7f8c8d; }
img { max-width: 100%; background: #fff; border: 1px solid #ddd; margin: 6px 0; }
.note { font-size: 13px; color: #555; }
dt { font-weight: bold; margin-top: 8px; } dd { margin-left: 18px; font-size: 14px; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _image(svg: str, alt: str) -> str:
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{_e(alt)}">'


def _number(value: float) -> str:
    if not math.isfinite(value):
        return "unbounded"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _cell(found: dict | None) -> str:
    if found is None:
        return '<td class="quiet">—</td>'
    if "ci95" not in found:  # strategic depth: steps
        return f"<td>{found['value']} of {found['steps']} steps</td>"
    low, high = found["ci95"]
    return f"<td>{_number(found['value'])} <span class=\"quiet\">[{_number(low)}, {_number(high)}]</span></td>"


def _difference_cell(d: Difference | None) -> str:
    if d is None:
        return '<td class="quiet">—</td>'
    interval = f"[{_number(d.low)}, {_number(d.high)}]" if math.isfinite(d.low) else "unbounded (too few pairs)"
    css = "significant" if d.significant else "quiet"
    star = " ★" if d.significant else ""
    return f'<td class="{css}">{d.difference:+.3g} {interval}{star}</td>'


def _at_a_glance(analysis: Analysis) -> list[str]:
    out = ["<h2>Did the variants change the game?</h2>"]
    if not analysis.versus:
        out.append("<p class=\"note\">Only the base game was analysed: give <code>--variant V</code> to compare "
                   "a variant with it.</p>")
        return out
    for k, versus in enumerate(analysis.versus):
        significant = [d for d in versus.differences if d.significant]
        out.append(f"<h3>{_e(versus.label)} against {_e(analysis.sides[0].label)}</h3>")
        if significant:
            items = "".join(f"<li class=\"significant\">{_e(d.name)}: {_number(d.a)} → {_number(d.b)} "
                            f"({d.difference:+.3g}, interval [{_number(d.low)}, {_number(d.high)}])</li>"
                            for d in significant)
            out.append(f"<p>Significant at a 5% family-wise error (Bonferroni for {len(versus.differences)} "
                       f"statistics, each at {versus.confidence:.2%}), over {versus.paired_games} pairs of games "
                       f"played from the same seeds:</p><ul>{items}</ul>")
        else:
            out.append(f"<p>Nothing changed significantly over {versus.paired_games} pairs of games (5% "
                       f"family-wise error); more games narrow the intervals.</p>")
        out.append(_image(differences_svg(analysis, k), f"B - A of every statistic, {versus.label}"))
    return out


def _metrics_table(analysis: Analysis) -> list[str]:
    head = "".join(f"<th>{_e(side.label)}</th>" for side in analysis.sides)
    head += "".join(f"<th>{_e(v.label)} − {_e(analysis.sides[0].label)}</th>" for v in analysis.versus)
    rows = []
    for metric in METRICS:
        if not any(metric.name in side.metrics for side in analysis.sides):
            continue
        cells = "".join(_cell(side.metrics.get(metric.name)) for side in analysis.sides)
        for versus in analysis.versus:
            tested = {d.name: d for d in versus.differences}
            cells += _difference_cell(tested.get(metric.compared_as) if metric.compared_as else None)
        rows.append(f"<tr><td><a href=\"#{metric.name}\">{_e(metric.label)}</a></td>{cells}</tr>")
    return ["<h2>What makes a game good, measured</h2>",
            "<p class=\"note\">Each ruleset's value with its 95% interval; each variant's difference from the base "
            "with the paired, corrected interval (★ significant).</p>",
            f"<table><tr><th>metric</th>{head}</tr>{''.join(rows)}</table>",
            _image(metrics_svg(analysis), "every metric of every ruleset")]


def _depth(analysis: Analysis) -> list[str]:
    measured = [side for side in analysis.sides if side.depth is not None]
    if not measured:
        return ["<h2>Strategic depth</h2>", "<p class=\"note\">Not measured (<code>--depth-games 0</code>, or a game "
                "of one seat, where no agent plays another).</p>"]
    rows = []
    for side in measured:
        assert side.depth is not None
        for step in side.depth.steps:
            low, high = step.ci95
            css = "significant" if step.significant else "quiet"
            rows.append(f"<tr><td>{_e(side.label)}</td><td>{_e(step.stronger)}</td><td>{_e(step.weaker)}</td>"
                        f"<td>{step.wins}–{step.draws}–{step.losses}</td>"
                        f"<td class=\"{css}\">{step.score:.3f} [{low:.3f}, {high:.3f}]</td></tr>")
    return ["<h2>Strategic depth</h2>",
            "<p class=\"note\">Each step plays the stronger agent against the weaker one in every seating; its "
            "score is wins plus half the draws over the games, with a 95% interval. A step counts toward the "
            "depth when the interval lies above one half.</p>",
            "<table><tr><th>ruleset</th><th>stronger</th><th>weaker</th><th>won–drawn–lost</th>"
            f"<th>score</th></tr>{''.join(rows)}</table>", _image(depth_svg(analysis), "strategic depth")]


def _definitions() -> list[str]:
    items = "".join(f"<dt id=\"{m.name}\">{_e(m.label)} <span class=\"quiet\">({_e(m.name)})</span></dt>"
                    f"<dd>{_e(m.definition)}. <span class=\"quiet\">Source: {_e(m.source)}.</span></dd>"
                    for m in METRICS)
    return ["<h2>What the metrics mean</h2>", f"<dl>{items}</dl>"]


def _named(analysis: Analysis, side: Side) -> str:
    """How the page names a ruleset: the base game by its name, a variant by its name in the game, a file
    by its label and path."""
    if side is analysis.sides[0]:
        return f"base: {analysis.game}"
    if side.spec.variant is not None:
        return f"{side.label}: a variant of {analysis.game}"
    return f"{side.label}: the file {side.spec.ruleset}"


def _script_json(data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def report_html(analysis: Analysis, document: dict) -> str:
    """The page of `analysis`; `document` is the JSON document of the same analysis, kept in the page."""
    base = analysis.sides[0]
    judged = sorted({side.judged_by for side in analysis.sides})
    intro = (f"<p>{analysis.games} games per ruleset from seed {analysis.seed}, agents "
             f"{_e(', '.join(analysis.agents))}; positions judged (for lead changes, drama and when the lead "
             f"settled) by {_e(', '.join(judged))}. Rulesets: "
             + "; ".join(_e(_named(analysis, side)) for side in analysis.sides) + ".</p>")
    body = [f"<h1>{_e(analysis.title)}: what makes it good, measured</h1>", intro,
            *_at_a_glance(analysis), *_metrics_table(analysis), *_depth(analysis),
            "<h2>The games</h2>", _image(distributions_svg(analysis), "distributions of the games"),
            *_definitions()]
    if any(BY_NAME[name].arc for name in base.metrics if name in BY_NAME):
        body.append("<p class=\"note\">Arc metrics read every position with the judge named above, all-seeing: "
                    "an observer's account of the game, not any player's.</p>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:\">\n"
            f"<title>{_e(analysis.title)} — ruleplay analysis</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body)
            + f"\n<script type=\"application/json\" id=\"analysis\">{_script_json(document)}</script>\n"
              "</body>\n</html>\n")
