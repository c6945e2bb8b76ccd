"""The static HTML report of a results folder: a summary page and one trajectory page per task.

    index = write_html_report(results_dir)            # <results_dir>/report/index.html

The summary answers first what a reader asks first: per harness and model, success, partial score,
cost, turns and errors in one table; then success against cost per harness and per domain (inline
SVG charts), the comparison table and every task with a link to its trajectory page. Every column
header names its unit. A trajectory page lists each step of the run: model text, tool calls and
results with their screenshots (linked from the run's `images/`), subagent
loops nested under the delegation, compactions, gate verdicts with findings, and
links to the files the task was scored on (`artifacts/`).
No scripts, no external assets, nothing fetched from the network.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from html import escape
from pathlib import Path
from string import Template

from stateact.app.variants import VARIANTS
from stateact.evals import settings
from stateact.evals.osworld.metrics.explain import checkpoint_detail, checkpoint_titles
from stateact.evals.reports.budget_curve import budget_curve_html
from stateact.evals.reports.comparison import ALL_DOMAINS, COLUMNS, TEXT_COLUMNS, Column, GroupRow, aggregate
from stateact.evals.reports.svg_charts import Point, bar_chart, dollars, percent, scatter_chart
from stateact.evals.reports.task_metrics import TaskMetrics, collect_metrics
from stateact.evals.reports.trajectory import Step, dicts, osworld_steps, trajectory_steps
from stateact.evals.running.results import ARTIFACTS_DIR, safe_name

TEMPLATES = Path(__file__).parent / "templates"
REPORT_FOLDER = "report"
TASK_PAGES = "tasks"


def _template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def render_page(body_template: str, title: str, **fields: str) -> str:
    """A whole page: the body template filled in, inside the page shell with the report's CSS."""
    body = _template(body_template).substitute(title=title, **fields)
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    return _template("page.html").substitute(title=title, css=css, body=body)


def _cut(text: str) -> str:
    cap = settings.TRAJECTORY_TEXT_CAP_CHARS
    return text if len(text) <= cap else text[:cap] + f"\n… ({len(text) - cap} more characters)"


def _series_label(row: GroupRow | TaskMetrics) -> str:
    return f"{row.harness} ({row.model})"


def task_page_name(metrics: TaskMetrics) -> str:
    return (
        "__".join(safe_name(p) for p in (metrics.harness, metrics.model, metrics.domain, metrics.task_id))
        + ".html"
    )


# -- summary ---------------------------------------------------------------------
SUMMARY_HEADERS = (
    "harness",
    "model",
    "tasks scored",
    "success (% of tasks)",
    "partial score (% of checkpoints)",
    "cost ($ per task)",
    "turns per task (main + subagent)",
    "errors (tasks not scored)",
)


def _summary_html(rows: list[GroupRow]) -> str:
    """One row per harness and model (its `all` row): what a reader asks first."""
    head = "".join(
        f'<th class="{"text" if index < 2 else "num"}">{escape(header)}</th>'
        for index, header in enumerate(SUMMARY_HEADERS)
    )
    body = []
    for row in (r for r in rows if r.domain == ALL_DOMAINS):
        cells = [
            row.harness,
            row.model,
            str(row.tasks),
            "-" if row.binary is None else f"{100 * row.binary:.1f}",
            "-" if row.partial is None else f"{100 * row.partial:.1f}",
            f"{row.usd:.4f}",
            f"{row.main_turns:.1f} + {row.sub_turns:.1f}",
            str(row.errors),
        ]
        body.append(
            "<tr>"
            + "".join(
                f'<td class="{"text" if i < 2 else "num"}">{escape(cell)}</td>'
                for i, cell in enumerate(cells)
            )
            + "</tr>"
        )
    return f'<table id="summary"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _charts(rows: list[GroupRow]) -> str:
    overall = [r for r in rows if r.domain == ALL_DOMAINS]
    charts = [
        (
            f"{name.capitalize()} success against cost per task",
            scatter_chart(
                [
                    Point(_series_label(r), r.usd, getattr(r, name))
                    for r in overall
                    if getattr(r, name) is not None
                ],
                f"{name} success against cost per task",
                "dollars per task",
                f"{name} success",
            ),
        )
        for name in ("partial", "binary")
    ]
    domains = sorted({r.domain for r in rows if r.domain != ALL_DOMAINS})
    series = [_series_label(r) for r in overall]
    per_domain = (
        ("partial", "Partial success per domain", "partial success", percent),
        ("binary", "Binary success per domain", "binary success", percent),
        ("usd", "Dollars per task per domain", "dollars per task", dollars),
    )
    for attribute, title, y_label, label in per_domain:
        values = {
            (_series_label(r), r.domain): getattr(r, attribute)
            for r in rows
            if r.domain != ALL_DOMAINS and getattr(r, attribute) is not None
        }
        charts.append((title, bar_chart(domains, series, values, title, y_label, label)))
    return "\n".join(
        f'<figure class="figure">{chart}<figcaption>{escape(title)}</figcaption></figure>'
        for title, chart in charts
    )


BEST_OF_COLUMNS = frozenset({"best_of", "pass_at_n", "pick_accuracy"})


def shown_columns(rows: list[GroupRow]) -> list[Column]:
    """The comparison's columns that say something here: role models only when a run had them, the
    best-of columns only for best-of runs (summary.md and the CSV keep every column)."""
    hidden = set()
    if not any(row.roles for row in rows):
        hidden.add("roles")
    if all(row.best_of == 1 for row in rows):
        hidden |= BEST_OF_COLUMNS
    return [c for c in COLUMNS if c.key not in hidden]


def _comparison_html(rows: list[GroupRow]) -> str:
    columns = shown_columns(rows)
    head = "".join(
        f'<th class="{"text" if c.key in TEXT_COLUMNS else "num"}">{escape(c.header).replace("/", "/<wbr>")}</th>'
        for c in columns
    )
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="{"text" if c.key in TEXT_COLUMNS else "num"}">{escape(c.show(row))}</td>'
            for c in columns
        )
        body.append(f'<tr class="{"all" if row.domain == ALL_DOMAINS else "domain"}">{cells}</tr>')
    table = f'<table id="comparison"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return _reference_note(rows) + table


def _reference_note(rows: list[GroupRow]) -> str:
    """A note on harnesses scored with the reference solutions they cannot play."""
    unplayable = sorted(
        {
            row.harness
            for row in rows
            if row.model == settings.REFERENCE_MODEL
            and row.harness in VARIANTS
            and not VARIANTS[row.harness].plays_reference_scripts
        }
    )
    if not unplayable:
        return ""
    names = ", ".join(unplayable)
    return (
        f'<p class="note" id="reference-note">{escape(names)} with the reference model: the reference '
        "solutions are scripts written for stateact's own tools (plan, editor, subagents), so a task whose "
        "script calls a tool one of these harnesses lacks fails there by construction; their scores here "
        "measure which scripts fit the harness's tools, not a model.</p>"
    )


def _tasks_html(metrics: list[TaskMetrics]) -> str:
    headers = (
        "harness",
        "model",
        "domain",
        "task",
        "score (0 to 1)",
        "partial score (% of checkpoints)",
        "checkpoints (met / all)",
        "status",
        "setup",
        "turns (main + subagent)",
        "cost ($)",
    )
    head = "".join(f'<th class="text">{h}</th>' for h in headers)
    rows = []
    for m in metrics:
        verdict = "ok" if m.binary else "bad"
        link = f'<a href="{TASK_PAGES}/{escape(task_page_name(m))}">{escape(m.task_id)}</a>'
        cells = [
            escape(m.harness),
            escape(m.model),
            escape(m.domain),
            link,
            f'<span class="bad">error ({escape(m.error_stage or "?")})</span>'
            if m.failed
            else f'<span class="{verdict}">{m.score:.2f}</span>',
            "-" if m.partial is None else f"{100 * m.partial:.0f}%",
            f"{m.checkpoints_met}/{m.checkpoints}",
            escape(status_text(m)),
            f'<span class="bad">degraded: {escape("; ".join(m.setup_degraded))}</span>'
            if m.setup_degraded
            else "ok",
            f"{m.main_turns} + {m.sub_turns}",
            f"{m.usd:.4f}",
        ]
        rows.append("<tr>" + "".join(f'<td class="text">{c}</td>' for c in cells) + "</tr>")
    return f'<table id="tasks"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def status_text(m: TaskMetrics) -> str:
    """The task's status as the tables count it: an unscored error (in `errors`) says so, and a run that
    ended in error but was scored says it was scored."""
    if m.failed:
        return f"error, not scored: {m.error}" if m.error else "error, not scored"
    if m.status == "error":
        return "run ended in error (scored)"
    return m.status


# -- trajectory pages ------------------------------------------------------------
def _step_html(step: Step, base: Path, page_dir: Path) -> str:
    classes = ["step", f"kind-{step.kind}", "sub" if step.scope != "main" else "main"]
    if step.is_error:
        classes.append("error")
    if step.passed is not None:
        classes.append("passed" if step.passed else "failed")
    parts = [
        f'<div class="head"><span class="scope">{escape(step.scope)}</span> <strong>{escape(step.title)}</strong></div>'
    ]
    if step.body:
        parts.append(f'<pre class="body">{escape(_cut(step.body))}</pre>')
    if step.detail:
        parts.append(f'<pre class="detail">{escape(_cut(step.detail))}</pre>')
    for image in step.images:
        src = Path(os.path.relpath(base / image, page_dir)).as_posix()
        parts.append(f'<img src="{escape(src)}" alt="screenshot {escape(image)}" loading="lazy">')
    return f'<li class="{" ".join(classes)}" data-kind="{step.kind}">{"".join(parts)}</li>'


def _checkpoints_html(result_dir: Path, failed: bool, error: str) -> str:
    if failed:
        return f'<p class="bad">No score: the task failed outside the agent: {escape(error)}</p>'
    try:
        details = json.loads((result_dir / "score.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        details = None
    parts = dicts(details.get("parts")) if isinstance(details, dict) else []
    if not parts:
        return "<p>No score details.</p>"
    rows = []
    for part, title in zip(parts, checkpoint_titles(parts), strict=True):
        score = part["score"] if isinstance(part.get("score"), int | float) else 0.0
        rows.append(
            f'<tr><td class="text">{escape(title)}</td>'
            f'<td class="{"ok" if score == 1.0 else "bad"}">{score:.2f}</td>'
            f'<td class="text"><pre class="explain">{escape(_cut(checkpoint_detail(part)))}</pre></td></tr>'
        )
    head = (
        '<tr><th class="text">checkpoint</th><th>score (0 to 1)</th>'
        '<th class="text">what was compared (observed → expected), or the error</th></tr>'
    )
    return f'<table id="checkpoints"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _screens_html(steps: list[Step], result_dir: Path, page_dir: Path) -> str:
    """The screenshots OSWorld's traj.jsonl names (the last one is the screen the task was scored on)."""
    figures = []
    for step in steps:
        for image in step.images:
            src = Path(os.path.relpath(result_dir / image, page_dir)).as_posix()
            caption = f"{step.title} ({image})"
            figures.append(
                f'<figure class="screen"><img src="{escape(src)}" alt="{escape(caption)}">'
                f"<figcaption>{escape(caption)}</figcaption></figure>"
            )
    return "\n".join(figures) or "<p>No screenshots.</p>"


def _artifacts_html(result_dir: Path, page_dir: Path) -> str:
    """Links to the files the task was scored on (the results' `artifacts/`)."""
    folder = result_dir / ARTIFACTS_DIR
    files = sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []
    items = [
        f'<li><a href="{escape(Path(os.path.relpath(path, page_dir)).as_posix())}">'
        f"{escape(path.relative_to(folder).as_posix())}</a> ({path.stat().st_size:,} bytes)</li>"
        for path in files
    ]
    return f'<ul id="artifacts">{"".join(items)}</ul>' if items else "<p>No scored files were kept.</p>"


def _task_meta(m: TaskMetrics) -> str:
    gate = f"gate rounds {m.gate_rounds} ({m.gate_passes} pass, {m.gate_fails} fail, {m.gate_undecided} undecided)"
    scored = (
        f"error in {m.error_stage or '?'} (no score)"
        if m.failed
        else f"score {m.score:.2f}, partial {100 * (m.partial or 0.0):.0f}% "
        f"({m.checkpoints_met}/{m.checkpoints} checkpoints)"
    )
    degraded = f" (setup degraded: {'; '.join(m.setup_degraded)})" if m.setup_degraded else ""
    return escape(
        f"{scored}{degraded}, status {status_text(m)}; main turns {m.main_turns}, subagent turns {m.sub_turns}, "
        f"delegations {m.delegations}, {gate}, compactions {m.compactions}; "
        f"tokens in {m.input_tokens:,} / out {m.output_tokens:,} / cached {m.cached_tokens:,}; "
        f"${m.usd:.4f}{_by_role(m.usd_by_role)}, {m.seconds:.1f}s{_best_of_text(m)}"
    )


def _best_of_text(m: TaskMetrics) -> str:
    """A best-of-N task's line: pass@N and the pick (its dollars count every rollout and the judge)."""
    if m.best_of < 2:
        return ""
    some = "some rollout succeeded" if m.pass_at_n else "no rollout succeeded"
    return f"; best of {m.best_of}: {some}, the judge's pick {'succeeded' if m.binary else 'did not'}"


def _by_role(usd_by_role: dict[str, float]) -> str:
    """Spend per role, e.g. ` (main $0.1200, gui $0.0300)`; empty when the run recorded none."""
    parts = ", ".join(f"{role} ${usd:.4f}" for role, usd in usd_by_role.items())
    return f" ({parts})" if parts else ""


def write_task_page(metrics: TaskMetrics, page_dir: Path) -> Path:
    """A task's trajectory page: from the run's event log, or else from OSWorld's traj.jsonl."""
    osworld = osworld_steps(metrics.result_dir)
    steps, base = trajectory_steps(metrics.run_dir), metrics.run_dir
    if steps:
        screens = _screens_html(osworld, metrics.result_dir, page_dir)
    else:
        steps, base = osworld, metrics.result_dir
        screens = "<p>Shown with the steps (no run log: the steps are OSWorld's traj.jsonl).</p>"
    items = "\n".join(_step_html(step, base, page_dir) for step in steps)
    page = render_page(
        "task.html",
        escape(f"{metrics.task_id} — {metrics.harness} ({metrics.model}, {metrics.domain})"),
        meta=_task_meta(metrics),
        checkpoints=_checkpoints_html(metrics.result_dir, metrics.failed, metrics.error),
        artifacts=_artifacts_html(metrics.result_dir, page_dir),
        screens=screens,
        steps=items or '<li class="step">No events were logged.</li>',
    )
    path = page_dir / task_page_name(metrics)
    path.write_text(page, encoding="utf-8")
    return path


def write_html_report(results_dir: Path, out_dir: Path | None = None) -> Path:
    """Write the report of every task under `results_dir`; returns the summary page's path."""
    results_dir = Path(results_dir)
    out = Path(out_dir) if out_dir else results_dir / REPORT_FOLDER
    page_dir = out / TASK_PAGES
    page_dir.mkdir(parents=True, exist_ok=True)
    metrics = collect_metrics(results_dir)
    rows = aggregate(metrics)
    for task in metrics:
        write_task_page(task, page_dir)
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    index = out / "index.html"
    index.write_text(
        render_page(
            "summary.html",
            "Suite report",
            meta=escape(f"{len(metrics)} task runs from {results_dir.resolve()}, written {stamp}"),
            summary=_summary_html(rows) if rows else "<p>No results yet.</p>",
            charts=_charts(rows) if rows else "<p>No results yet.</p>",
            budgets=budget_curve_html(metrics, _series_label),
            comparison=_comparison_html(rows),
            tasks=_tasks_html(metrics),
        ),
        encoding="utf-8",
    )
    return index
