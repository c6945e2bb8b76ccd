"""The comparison table: task metrics aggregated per harness x domain, as rich, markdown and CSV.

One row per (harness, model, domain) and one `all` row per (harness, model).
`tasks` counts the scored tasks, and every rate and mean is over them; a task
that failed outside the agent (error.json: no score) is not a 0, it is counted
in `errors` only, and its run's dollars are in `$ total`. A row without a scored
task has no success rates (`-`, empty in the CSV).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from itertools import groupby

from rich import box
from rich.table import Table

from stateact.evals.reports.task_metrics import TaskMetrics

ALL_DOMAINS = "all"
TEXT_COLUMNS = frozenset({"harness", "model", "roles", "domain"})
"""Columns of names (left-aligned); the others are numbers."""


@dataclass
class GroupRow:
    """Aggregated metrics of one harness (and model) on one domain or on all of them."""

    harness: str
    model: str
    domain: str
    roles: str
    """The roles with a model of their own (`gui=SPEC; web=SPEC`); empty when every role ran the main model."""
    tasks: int
    """Scored tasks (the errored ones are in `errors`)."""
    binary: float | None
    """Share of scored tasks with every checkpoint met; None without a scored task."""
    partial: float | None
    """Mean fraction of checkpoints met."""
    main_turns: float
    sub_turns: float
    delegations: float
    gate_rounds: float
    gate_passes: int
    gate_fails: int
    gate_undecided: int
    """Gate rounds that could not decide (neither passes nor fails)."""
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    usd: float
    """Mean dollars per task."""
    usd_total: float
    """Dollars of every run, errored tasks included."""
    seconds: float
    """Mean agent wall time per task."""
    errors: int
    """Tasks that failed outside the agent (no score)."""
    degraded: int = 0
    """Scored tasks whose setup degraded on a VM (a step failed and the task was scored anyway)."""
    best_of: int = 1
    """Rollouts per task (best-of-N; 1 for plain runs)."""
    pass_at_n: float | None = None
    """Best-of-N: share of scored tasks where some rollout succeeded; None for plain runs."""
    pick_accuracy: float | None = None
    """Best-of-N: share of the tasks with a succeeding rollout where the judge picked one."""


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    show: Callable[[GroupRow], str]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


COLUMNS: tuple[Column, ...] = (
    Column("harness", "harness", lambda r: r.harness),
    Column("model", "model", lambda r: r.model),
    Column("roles", "role models", lambda r: r.roles or "-"),
    Column("domain", "domain", lambda r: r.domain),
    Column("tasks", "tasks scored", lambda r: str(r.tasks)),
    Column("binary", "success %", lambda r: _pct(r.binary)),
    Column("partial", "partial %", lambda r: _pct(r.partial)),
    Column("main_turns", "main turns/task", lambda r: f"{r.main_turns:.1f}"),
    Column("sub_turns", "subagent turns/task", lambda r: f"{r.sub_turns:.1f}"),
    Column("delegations", "delegations/task", lambda r: f"{r.delegations:.1f}"),
    Column("gate_rounds", "gate rounds/task", lambda r: f"{r.gate_rounds:.1f}"),
    Column("gate_passes", "gate pass/fail (sum)", lambda r: f"{r.gate_passes}/{r.gate_fails}"),
    Column("gate_undecided", "gate undecided (sum)", lambda r: str(r.gate_undecided)),
    Column("input_tokens", "input tokens (sum)", lambda r: f"{r.input_tokens:,}"),
    Column("output_tokens", "output tokens (sum)", lambda r: f"{r.output_tokens:,}"),
    Column("cached_tokens", "cached tokens (sum)", lambda r: f"{r.cached_tokens:,}"),
    Column("usd", "$/task", lambda r: f"{r.usd:.4f}"),
    Column("usd_total", "$ (sum)", lambda r: f"{r.usd_total:.4f}"),
    Column("seconds", "agent s/task", lambda r: f"{r.seconds:.1f}"),
    Column("errors", "not scored (tasks)", lambda r: str(r.errors)),
    Column("degraded", "setup degraded (tasks)", lambda r: str(r.degraded)),
    Column("best_of", "best of N", lambda r: str(r.best_of)),
    Column("pass_at_n", "pass@N %", lambda r: _pct(r.pass_at_n)),
    Column("pick_accuracy", "pick acc %", lambda r: _pct(r.pick_accuracy)),
)
"""Every column with its unit: `/task` columns are means over the scored tasks, `(sum)` ones totals,
`(tasks)` counts of tasks; `agent s/task` is the harness's own run time, not the job's wall time."""


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(harness: str, model: str, domain: str, runs: list[TaskMetrics]) -> GroupRow:
    """The row of `runs`: means over the scored ones, errored ones counted apart."""
    tasks = [t for t in runs if not t.failed]

    def mean(attribute: str) -> float:
        return _mean([float(getattr(t, attribute)) for t in tasks])

    return GroupRow(
        harness=harness,
        model=model,
        domain=domain,
        roles=next((t.roles for t in runs if t.roles), ""),
        tasks=len(tasks),
        binary=_mean([float(bool(t.binary)) for t in tasks]) if tasks else None,
        partial=mean("partial") if tasks else None,
        main_turns=mean("main_turns"),
        sub_turns=mean("sub_turns"),
        delegations=mean("delegations"),
        gate_rounds=mean("gate_rounds"),
        gate_passes=sum(t.gate_passes for t in tasks),
        gate_fails=sum(t.gate_fails for t in tasks),
        gate_undecided=sum(t.gate_undecided for t in tasks),
        input_tokens=sum(t.input_tokens for t in tasks),
        output_tokens=sum(t.output_tokens for t in tasks),
        cached_tokens=sum(t.cached_tokens for t in tasks),
        usd=mean("usd"),
        usd_total=round(sum(t.usd for t in runs), 6),
        seconds=mean("seconds"),
        errors=len(runs) - len(tasks),
        degraded=sum(bool(t.setup_degraded) for t in tasks),
        **_best_of(tasks),
    )


def _best_of(tasks: list[TaskMetrics]) -> dict:
    """best_of, pass_at_n and pick_accuracy of the scored best-of-N tasks (plain tasks have none)."""
    judged = [t for t in tasks if t.best_of > 1]
    if not judged:
        return {}
    could = [t for t in judged if t.pass_at_n]
    return {
        "best_of": max(t.best_of for t in judged),
        "pass_at_n": len(could) / len(judged),
        "pick_accuracy": _mean([float(bool(t.pick_correct)) for t in could]) if could else None,
    }


def aggregate(metrics: Iterable[TaskMetrics]) -> list[GroupRow]:
    """Rows per (harness, model, domain), each harness's `all` row after its domains."""
    rows: list[GroupRow] = []
    ordered = sorted(metrics, key=lambda m: (m.harness, m.model, m.domain, m.task_id))
    for (harness, model), group in groupby(ordered, key=lambda m: (m.harness, m.model)):
        tasks = list(group)
        for domain, in_domain in groupby(tasks, key=lambda m: m.domain):
            rows.append(summarize(harness, model, domain, list(in_domain)))
        rows.append(summarize(harness, model, ALL_DOMAINS, tasks))
    return rows


def to_csv(rows: Iterable[GroupRow]) -> str:
    """Raw numbers, one column per GroupRow field."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[c.key for c in COLUMNS], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: value for key, value in asdict(row).items() if key in writer.fieldnames})
    return out.getvalue()


def tasks_csv(metrics: Iterable[TaskMetrics]) -> str:
    """Every task's metrics, one row each."""
    records = [m.row() for m in metrics]
    if not records:
        return ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def to_markdown(rows: Iterable[GroupRow]) -> str:
    lines = [
        "| " + " | ".join(c.header for c in COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ]
    lines += ["| " + " | ".join(c.show(row) for c in COLUMNS) + " |" for row in rows]
    return "\n".join(lines) + "\n"


TERMINAL_VIEW = (
    ("harness", "harness"),
    ("model", "model"),
    ("domain", "domain"),
    ("tasks", "n"),
    ("binary", "success"),
    ("partial", "partial"),
    ("turns", "turns/task"),
    ("delegations", "deleg/task"),
    ("gate_rounds", "gate/task"),
    ("usd", "$/task"),
    ("seconds", "agent s/task"),
    ("errors", "errors"),
    ("degraded", "degraded"),
    ("pass_at_n", "pass@N"),
    ("pick_accuracy", "pick acc"),
)
_BY_KEY = {
    **{column.key: column for column in COLUMNS},
    "turns": Column("turns", "turns", lambda r: f"{r.main_turns:.0f}+{r.sub_turns:.0f}"),
}
TERMINAL_COLUMNS: tuple[Column, ...] = tuple(
    replace(_BY_KEY[key], header=header) for key, header in TERMINAL_VIEW
)
"""The terminal's compact view (turns are main+subagent means per task, the model is the results'
model key); the markdown and CSV have every column."""


def to_rich(rows: Iterable[GroupRow], title: str = "Harness comparison") -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True, pad_edge=False)
    for column in TERMINAL_COLUMNS:
        justify = "left" if column.key in TEXT_COLUMNS else "right"
        table.add_column(column.header, justify=justify)
    for row in rows:
        table.add_row(
            *(c.show(row) for c in TERMINAL_COLUMNS), style="bold" if row.domain == ALL_DOMAINS else None
        )
    return table
