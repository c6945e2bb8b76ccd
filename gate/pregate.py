"""The deterministic pre-gate: cheap file checks that run before any model call.

For each path the instruction names: an output must exist (a bare file name may sit
anywhere under the home folder), parse with the reader its extension calls for, match
its extension's format, and have changed since the task started; a workbook must hold
cached values for its formulas and no error values (#DIV/0!, #REF!, ...); no named file may
still be held open by LibreOffice (its lock file means unsaved work, or a later
ctrl+s that would overwrite the file with a stale copy); a workbook's saved formula values
must match what LibreOffice computes from its formulas (`formula_consistency`, run on a copy).
"""

from __future__ import annotations

from dataclasses import dataclass

from gate import settings
from gate.deliverables import MentionedPath
from gate.probes import ProbeError, run_probe
from gate.verdict import Finding
from sandbox.base import Sandbox
from sandbox.toolkit.settings import TOOLKIT_REMOTE_DIR


@dataclass
class PregateResult:
    findings: list[Finding]
    facts: list[dict]
    """file_facts of every named path (and of bare names found elsewhere): shown to the gate model."""


def run_pregate(sandbox: Sandbox, paths: list[MentionedPath], task_started_at: float | None) -> PregateResult:
    if not paths:
        return PregateResult([], [])
    try:
        facts = _facts(sandbox, [p.path for p in paths], task_started_at)
        located = [
            f
            for fact in facts
            if _is_bare(fact["path"]) and not fact["exists"]
            for f in fact.get("same_name_elsewhere", [])
        ]
        if located:
            facts += _facts(sandbox, located, task_started_at)
    except ProbeError as exc:  # the model round still runs; it sees why the file check is missing
        return PregateResult([], [{"error": f"file check failed: {exc}"}])
    outputs = {p.path for p in paths if p.output}
    findings = []
    for fact in facts:
        output = fact["path"] in outputs or fact["path"] in located
        checks = _check(fact, output)
        if not checks and _recalculable(fact, output):
            checks = formula_consistency(sandbox, fact)
        findings.extend(checks)
    return PregateResult(findings, facts)


RECALC_EXTENSIONS = ("xlsx", "xlsm", "ods")


def _recalculable(fact: dict, output: bool) -> bool:
    return (
        (output or bool(fact.get("modified_after_start")))
        and fact.get("exists", False)
        and fact.get("extension") in RECALC_EXTENSIONS
        and fact.get("format_matches_extension") is not False
        and not fact.get("parse_error")
        and "formula_check_error" not in fact
    )


def formula_consistency(sandbox: Sandbox, fact: dict) -> list[Finding]:
    """Findings for formula cells whose saved value differs from LibreOffice's recalculation of a copy.

    Records the outcome in `fact["formula_recalc"]`; a recalculation that cannot run is a fact
    ("could_not_check" with its reason), never a finding.
    """
    try:
        result = run_probe(
            sandbox,
            "formula_recalc",
            timeout=settings.GATE_RECALC_TIMEOUT_S + settings.GATE_PROBE_TIMEOUT_S,
            path=fact["resolved"],
            tools_dir=TOOLKIT_REMOTE_DIR,
            recalc_timeout=settings.GATE_RECALC_TIMEOUT_S,
            rel_tol=settings.GATE_RECALC_REL_TOL,
            limit=settings.GATE_RECALC_MAX_LISTED,
        )
    except ProbeError as exc:
        result = {"error": str(exc)}
    if "error" in result:
        result = {"status": "could_not_check", "reason": result["error"]}
    fact["formula_recalc"] = result
    if not result.get("mismatch_count"):
        return []
    listed = result["mismatches"]
    evidence = "; ".join(
        f"{m['cell']} {m['formula']}: saved {m['saved']!r}, recalculated {m['recalculated']!r}"
        for m in listed
    )
    if result["mismatch_count"] > len(listed):
        evidence += f"; and {result['mismatch_count'] - len(listed)} more"
    return [
        Finding(
            problem="saved formula values disagree with their formulas (inputs changed after the last "
            "recalculation, or values were written over the cache): anything reading the file sees stale "
            "numbers; recalculate it (office-recalc) and save",
            location=fact["path"],
            evidence=evidence,
        )
    ]


def _facts(sandbox: Sandbox, paths: list[str], since: float | None) -> list[dict]:
    result = run_probe(sandbox, "file_facts", paths=paths, since=since)
    if "error" in result:
        raise ProbeError(result["error"])
    return result["files"]


def _is_bare(path: str) -> bool:
    return not path.startswith(("/", "~"))


def _check(fact: dict, output: bool) -> list[Finding]:
    path = fact["path"]
    if not output and not fact.get("modified_after_start"):
        return []
    if not fact["exists"]:
        elsewhere = fact.get("same_name_elsewhere", [])
        if _is_bare(path) and elsewhere:
            return []
        evidence = f"{fact['resolved']} is missing"
        if elsewhere:
            evidence += f"; a file with that name exists at {', '.join(elsewhere)} (wrong folder?)"
        return [
            Finding(
                problem="the file the instruction asks for does not exist at this path",
                location=path,
                evidence=evidence,
            )
        ]
    found: list[Finding] = []
    lock = fact.get("lock_file")
    if lock:
        found.append(
            Finding(
                problem="the document is still open in LibreOffice (lock file present): unsaved edits, or a "
                "later save would overwrite the file with a stale copy; save and close it",
                location=path,
                evidence=f"lock file {lock['path']} ({lock['owner'][:80]})",
            )
        )
    if fact.get("is_dir"):
        return found
    error = fact.get("parse_error")
    if error and not error.startswith("cannot check"):
        found.append(Finding(problem="the file does not open as its format", location=path, evidence=error))
    if fact.get("format_matches_extension") is False:
        found.append(
            Finding(
                problem=f"the content is {fact['format']}, not the .{fact['extension']} format its name says",
                location=path,
                evidence=f"file signature read as {fact['format']}",
            )
        )
    if fact.get("uncached_formulas"):
        found.append(
            Finding(
                problem="formulas have no cached values (the file was written by a library and never "
                "recalculated), so anything reading the saved values sees them as empty; open and recalculate "
                "it in LibreOffice and save, or write the computed values",
                location=path,
                evidence="formula cells without a cached value: " + ", ".join(fact["uncached_formulas"]),
            )
        )
    if fact.get("error_cells"):
        found.append(
            Finding(
                problem="cells hold spreadsheet errors instead of values",
                location=path,
                evidence=", ".join(
                    f"{c['cell']} = {c['value']}" + (f" (formula {c['formula']})" if c["formula"] else "")
                    for c in fact["error_cells"]
                ),
            )
        )
    if output and fact.get("modified_after_start") is False:
        found.append(
            Finding(
                problem="the file has not been changed since the task started",
                location=path,
                evidence=f"last modified {fact['mtime_text']}, before the task started",
            )
        )
    return found
