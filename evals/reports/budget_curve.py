"""Score against step budget per harness (`--checkpoint-steps` results, evals/running/budget_scores.py):
a line chart and a table for the report.

At each budget a series' score is the mean over its tasks that have a score there: scored when the run
passed the budget, or the final score of a run that ended before it. A task whose scoring was skipped at
a budget (not safe mid-run) or failed is left out of that budget's mean and counted in the table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from stateact.evals.reports.svg_charts import line_chart
from stateact.evals.reports.task_metrics import TaskMetrics
from stateact.evals.running.budget_scores import read_budget_results


@dataclass(frozen=True)
class BudgetPoint:
    """One series (harness and model) at one step budget."""

    series: str
    budget: int
    mean: float | None
    """Mean score of the tasks scored at this budget (None: none was)."""
    partial: float | None
    """Mean share of checkpoints met by the tasks scored here that have one."""
    scored: int
    reached: int
    """Of the scored tasks, those whose run passed the budget (the others had ended before it)."""
    skipped: int
    """Tasks not scored here: not safe to score mid-run, or the scoring failed."""


def budget_points(metrics: list[TaskMetrics], label: Callable[[TaskMetrics], str]) -> list[BudgetPoint]:
    """Every series' points, by series then budget; `label(metrics)` names a task's series."""
    records: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for task in metrics:
        for budget, record in read_budget_results(task.result_dir).items():
            records[(label(task), budget)].append(record)
    points = []
    for (series, budget), found in sorted(records.items()):
        scores = [r for r in found if isinstance(r.get("score"), int | float)]
        partials = [r["partial"] for r in scores if isinstance(r.get("partial"), int | float)]
        points.append(
            BudgetPoint(
                series,
                budget,
                sum(r["score"] for r in scores) / len(scores) if scores else None,
                sum(partials) / len(partials) if partials else None,
                len(scores),
                sum(1 for r in scores if r.get("reached", True)),
                len(found) - len(scores),
            )
        )
    return points


def budget_curve_html(metrics: list[TaskMetrics], label: Callable[[TaskMetrics], str]) -> str:
    """The chart and table of score against step budget ('' when no task was scored at a budget)."""
    points = budget_points(metrics, label)
    if not points:
        return ""
    series: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for point in points:
        if point.mean is not None:
            series[point.series].append((point.budget, point.mean))
    chart = line_chart(
        dict(series), "Score against step budget", "steps (tool calls of every role)", "mean score"
    )
    head = "".join(
        f'<th class="{kind}">{escape(name)}</th>'
        for name, kind in (
            ("harness (model)", "text"),
            ("step budget", "num"),
            ("mean score", "num"),
            ("mean partial score (% of checkpoints)", "num"),
            ("tasks scored", "num"),
            ("of them, run ended before the budget", "num"),
            ("tasks skipped (not safe mid-run, or scoring failed)", "num"),
        )
    )
    rows = "".join(
        "<tr>"
        + f'<td class="text">{escape(p.series)}</td><td class="num">{p.budget}</td>'
        + f'<td class="num">{"-" if p.mean is None else f"{p.mean:.3f}"}</td>'
        + f'<td class="num">{"-" if p.partial is None else f"{100 * p.partial:.1f}"}</td><td class="num">{p.scored}</td>'
        + f'<td class="num">{p.scored - p.reached}</td><td class="num">{p.skipped}</td></tr>'
        for p in points
    )
    return (
        f'<h2>Score against step budget</h2><div class="charts" id="budget-curve"><figure class="figure">{chart}'
        f"<figcaption>Score against step budget</figcaption></figure></div>"
        f'<table id="budgets"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )
