"""What a reviewer is shown of the task's files."""

from __future__ import annotations

from stateact.gate import settings as gate_settings
from stateact.gate.inspect.cell_refs import CellReference, cell_references
from stateact.gate.inspect.probes import ProbeError, run_probe
from stateact.sandbox.base import Sandbox


def fact_briefs(sandbox: Sandbox, instruction: str, facts: list[dict]) -> list[dict]:
    """The file facts a reviewer is shown: the telling fields of each, and for a workbook the values of
    the cells the instruction names (`cell_refs.py`)."""
    briefs = [_brief_fact(f) for f in facts]
    refs = cell_references(instruction)
    for brief, fact in zip(briefs, facts, strict=True):
        if refs and fact.get("exists") and fact.get("extension") in ("xlsx", "xlsm"):
            brief["cells_named_in_the_instruction"] = _named_cells(sandbox, fact["resolved"], refs)
    return briefs


def _named_cells(sandbox: Sandbox, path: str, refs: list[CellReference]) -> list | str:
    try:
        found = run_probe(
            sandbox,
            "named_cells",
            path=path,
            refs=[ref.as_probe_arg() for ref in refs],
            limit=gate_settings.GATE_NAMED_CELLS_MAX,
        )
    except ProbeError as exc:
        return f"(could not read: {exc})"
    return found.get("refs", found.get("error", ""))


def _brief_fact(fact: dict) -> dict:
    keep = ("path", "resolved", "exists", "size", "mtime_text", "modified_after_start", "format", "lock_file")
    keep += ("error",)
    brief = {k: fact[k] for k in keep if k in fact and fact[k] is not None}
    if "resolved" in brief and brief["resolved"] == brief.get("path"):
        del brief["resolved"]
    for key in ("same_name_elsewhere", "formula_recalc"):
        if fact.get(key):
            brief[key] = fact[key]
    return brief
