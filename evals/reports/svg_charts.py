"""Small inline SVG charts for the static report: no scripts, no external assets."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 24, 56


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above `value` (1 for nothing)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= value)


def _frame(title: str, x_label: str, y_label: str, body: list[str]) -> str:
    plot_bottom = HEIGHT - BOTTOM
    return "\n".join(
        [
            f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
            f'<line x1="{LEFT}" y1="{plot_bottom}" x2="{WIDTH - RIGHT}" y2="{plot_bottom}" class="axis"/>',
            f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{plot_bottom}" class="axis"/>',
            f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 12}" text-anchor="middle">{escape(x_label)}</text>',
            f'<text x="16" y="{(TOP + plot_bottom) / 2}" text-anchor="middle" '
            f'transform="rotate(-90 16 {(TOP + plot_bottom) / 2})">{escape(y_label)}</text>',
            *body,
            "</svg>",
        ]
    )


def percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def dollars(value: float) -> str:
    return f"${value:.4g}"


def _y_ticks(top: float, label: Callable[[float], str] = percent) -> list[str]:
    """Gridlines and labels for a 0..top axis."""
    plot_height = HEIGHT - BOTTOM - TOP
    marks = []
    for i in range(5):
        value = top * i / 4
        y = HEIGHT - BOTTOM - plot_height * i / 4
        marks.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" class="grid"/>')
        marks.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{label(value)}</text>')
    return marks


def _legend(labels: list[str]) -> list[str]:
    x = WIDTH - RIGHT + 16
    items = []
    for i, label in enumerate(labels):
        y = TOP + 8 + 18 * i
        items.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour(i)}"/>')
        items.append(f'<text x="{x + 16}" y="{y}">{escape(label)}</text>')
    return items


def scatter_chart(points: list[Point], title: str, x_label: str, y_label: str) -> str:
    """Points on a success (0..1) versus cost plane, one colour and legend entry per point."""
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - BOTTOM - TOP
    x_top = nice_ceiling(1.05 * max((p.x for p in points), default=0.0))
    body = _y_ticks(1.0)
    for i in range(5):
        value = x_top * i / 4
        x = LEFT + plot_width * i / 4
        body.append(
            f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{dollars(value)}</text>'
        )
    for i, point in enumerate(points):
        cx = LEFT + plot_width * point.x / x_top
        cy = HEIGHT - BOTTOM - plot_height * point.y
        body.append(
            f'<circle class="point" data-label="{escape(point.label)}" cx="{cx:.1f}" cy="{cy:.1f}" r="7" '
            f'fill="{colour(i)}"><title>{escape(point.label)}: {100 * point.y:.1f}% at ${point.x:.4f}</title></circle>'
        )
    return _frame(title, x_label, y_label, body + _legend([p.label for p in points]))


def bar_chart(
    categories: list[str],
    series: list[str],
    values: dict[tuple[str, str], float],
    title: str,
    y_label: str,
    label: Callable[[float], str] = percent,
) -> str:
    """Grouped bars: for each category, one bar per series. Shares (0..1) by default; with another
    `label` (e.g. `dollars`) the axis runs from 0 to a round number above the largest value."""
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - BOTTOM - TOP
    top = 1.0 if label is percent else nice_ceiling(1.05 * max(values.values(), default=0.0))
    body = _y_ticks(top, label)
    group_width = plot_width / max(1, len(categories))
    bar_width = group_width * 0.8 / max(1, len(series))
    for c, category in enumerate(categories):
        x0 = LEFT + group_width * c + group_width * 0.1
        for s, name in enumerate(series):
            value = values.get((name, category))
            if value is None:
                continue
            height = plot_height * value / top
            x = x0 + bar_width * s
            body.append(
                f'<rect class="bar" data-series="{escape(name)}" data-category="{escape(category)}" '
                f'x="{x:.1f}" y="{HEIGHT - BOTTOM - height:.1f}" width="{bar_width:.1f}" height="{height:.1f}" '
                f'fill="{colour(s)}"><title>{escape(name)} on {escape(category)}: {label(value)}</title></rect>'
            )
            body.append(  # every bar's value, so a bar of 0 is seen as 0 rather than as missing
                f'<text class="bar-label" x="{x + bar_width / 2:.1f}" y="{HEIGHT - BOTTOM - height - 3:.1f}" '
                f'text-anchor="middle">{label(value)}</text>'
            )
        body.append(
            f'<text x="{x0 + group_width * 0.4:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">'
            f"{escape(category)}</text>"
        )
    return _frame(title, "domain", y_label, body + _legend(series))


def line_chart(series: dict[str, list[tuple[float, float]]], title: str, x_label: str, y_label: str) -> str:
    """One line of shares (0..1) per series over a 0..max x axis, each point marked and labelled."""
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - BOTTOM - TOP
    x_top = nice_ceiling(max((x for points in series.values() for x, _ in points), default=0.0))
    body = _y_ticks(1.0)
    for i in range(5):
        value = x_top * i / 4
        x = LEFT + plot_width * i / 4
        body.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{value:g}</text>')
    for s, (name, points) in enumerate(series.items()):
        at = [
            (LEFT + plot_width * x / x_top, HEIGHT - BOTTOM - plot_height * y, x, y)
            for x, y in sorted(points)
        ]
        path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy, _, _ in at)
        body.append(
            f'<polyline class="line" data-series="{escape(name)}" points="{path}" fill="none" stroke="{colour(s)}" stroke-width="2"/>'
        )
        body += [
            f'<circle class="point" cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour(s)}">'
            f"<title>{escape(name)}: {percent(y)} at {x:g}</title></circle>"
            for cx, cy, x, y in at
        ]
    return _frame(title, x_label, y_label, body + _legend(list(series)))
