"""Inline SVG bar charts (no library, no CDN): success by app and by step budget."""

from __future__ import annotations

from html import escape
from statistics import mean

from asil.report.runs import RunSet
from asil.report.tables import BUDGETS, budget_rates
from asil.runner.summary import app_of

# Series colours, in order; bars are drawn crisp so each bar is exactly its colour.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT, TOP, BOTTOM, LEFT = 760, 280, 20, 40, 44


def bar_chart(chart_id: str, title: str, categories: list[str], series: list[tuple[str, list[float | None]]]) -> str:
    """Grouped bars of rates in [0, 1]: one group per category, one bar per series."""
    plot_h = HEIGHT - TOP - BOTTOM
    group_w = (WIDTH - LEFT - 10) / max(len(categories), 1)
    bar_w = min(36.0, group_w * 0.8 / max(len(series), 1))
    parts = [f'<svg id="{escape(chart_id)}" class="chart" width="{WIDTH}" '
             f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">']
    for tick in (0, 25, 50, 75, 100):
        y = TOP + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - 10}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                     f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{tick}%</text>')
    for index, category in enumerate(categories):
        x0 = LEFT + index * group_w + (group_w - bar_w * len(series)) / 2
        for number, (name, values) in enumerate(series):
            value = values[index]
            if value is None:
                continue
            height = plot_h * value
            x, y = x0 + number * bar_w, TOP + plot_h - height
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w - 2:.1f}" height="{height:.1f}" '
                         f'fill="{PALETTE[number % len(PALETTE)]}" shape-rendering="crispEdges" '
                         f'data-series="{escape(name)}" data-category="{escape(category)}" data-value="{value:.4f}">'
                         f'<title>{escape(name)} — {escape(category)}: {100 * value:.1f}%</title></rect>')
        parts.append(f'<text x="{LEFT + (index + 0.5) * group_w:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                     f'class="label">{escape(category)}</text>')
    parts.append("</svg>")
    legend = "".join(f'<span class="key"><i style="border-color:{PALETTE[n % len(PALETTE)]}"></i>{escape(name)}</span>'
                     for n, (name, _) in enumerate(series))
    return f'<figure><figcaption>{escape(title)}</figcaption>{"".join(parts)}<div class="legend">{legend}</div></figure>'


def success_by_app(sets: list[RunSet]) -> str:
    """Bars of success per app; a set of repeats is drawn at its mean."""
    apps = sorted({app_of(r) for item in sets for run in item.runs for r in run.results.values()})
    categories = apps + ["all"]
    series = []
    for item in sets:
        values: list[float | None] = []
        for app in categories:
            rates = []
            for run in item.runs:
                group = [r for r in run.results.values() if app == "all" or app_of(r) == app]
                if group:
                    rates.append(sum(r.success for r in group) / len(group))
            values.append(mean(rates) if rates else None)
        series.append((item.label, values))
    return bar_chart("chart-apps", "Success rate by app", categories, series)


def success_by_budget(sets: list[RunSet]) -> str:
    rows = budget_rates(sets)
    if not rows:
        return ""
    series = [(f"{config} — {source}", [mean(cell[0]) if cell else None for cell in rates.values()])
              for config, source, rates in rows]
    return bar_chart("chart-budgets", "Success rate by step budget (SR-K)", [f"SR-{k}" for k in BUDGETS], series)
