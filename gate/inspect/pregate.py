"""The deterministic pre-gate: cheap file checks that run before any model call.

For each path the instruction names: an output must exist, parse with the reader its extension
calls for, match its extension's format, and have changed since the task started; a workbook must
hold cached values for its formulas and no error values (#DIV/0!, #REF!, ...); a workbook's saved
formula values must match what LibreOffice computes from its formulas (`formula_consistency`, run on
a copy). A document may stay open in LibreOffice when its window shows the saved file
(`OPEN_DOCUMENT_RULE`); a window opened or saved before the file's last write is stale.

It FAILs only on certainties. Where it had to guess (a location inferred from a relative path or a
bare name, a role the words do not state, a same-name file found in another folder, an open window
that may hold unsaved edits) it FAILs nothing and hands a note to the model gate instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stateact.gate import settings
from stateact.gate.inspect.deliverables import MentionedPath
from stateact.gate.inspect.probes import ProbeError, run_probe
from stateact.gate.inspect.verdict import Finding
from stateact.sandbox.base import Sandbox

OPEN_DOCUMENT_RULE = (
    "A document may stay open in LibreOffice when its window shows exactly the saved file. It must not hold "
    "unsaved changes, nor older content than the file (after an edit on disk): a later save there (ctrl+s, "
    "also by an evaluator before scoring) would write that over the file. After editing an open document "
    "on disk run `office-reload FILE` (the window then shows the file) or `office-close FILE`; never save "
    "from a window that shows older content than the file."
)
"""The one rule on open documents; the main agent's prompt and the gate's prompt state it too."""


@dataclass
class PregateResult:
    findings: list[Finding]
    facts: list[dict]
    """file_facts of every named path (and of same-name files found elsewhere): shown to the gate model."""
    notes: list[str] = field(default_factory=list)
    """What the check could not decide (see the module doc): shown to the gate model."""


@dataclass(frozen=True)
class _Problem:
    kind: str
    """"missing", "unchanged" (need an exact path with a stated role to be certain) or "content"."""
    finding: Finding


def run_pregate(sandbox: Sandbox, paths: list[MentionedPath], task_started_at: float | None) -> PregateResult:
    if not paths:
        return PregateResult([], [])
    named = {p.path: p for p in paths}
    try:
        facts = _facts(sandbox, list(named), task_started_at)
        located = [
            f
            for fact in facts
            if not named[fact["path"]].exact and not fact["exists"]
            for f in fact.get("same_name_elsewhere", [])
        ]
        if located:
            facts += _facts(sandbox, located, task_started_at)
    except ProbeError as exc:  # the model round still runs; it sees why the file check is missing
        note = (
            f"The file check could not run ({exc}): none of the named paths was checked; read them yourself."
        )
        return PregateResult([], [{"error": f"file check failed: {exc}"}], [note])
    result = PregateResult([], facts)
    for fact in facts:
        path = named.get(fact["path"])
        output = path.output if path else True
        stale, note = _open_window(fact)
        problems = _check(fact, output) + ([_Problem("content", stale)] if stale else [])
        if not problems and _recalculable(fact, output):
            problems = [_Problem("content", f) for f in formula_consistency(sandbox, fact)]
            result.notes += short_range_notes(fact)
        for problem in problems:
            doubt = _doubt(problem, fact, path)
            if doubt:
                f = problem.finding
                result.notes.append(f"{f.location}: {f.problem} ({f.evidence}). Not certain: {doubt}.")
            else:
                result.findings.append(problem.finding)
        if note:
            result.notes.append(note)
    return result


def _doubt(problem: _Problem, fact: dict, path: MentionedPath | None) -> str:
    """Why a problem is not certain enough to FAIL on, or '' when it is."""
    if path is None:
        return "this is a file of the same name found in another folder, not a path the instruction names"
    if problem.kind in ("missing", "unchanged") and not path.exact:
        return "the location was inferred from the instruction's words (a relative path or a bare file name)"
    if problem.kind in ("missing", "unchanged") and not path.role_stated:
        return "the instruction does not say that the task produces this file"
    if problem.kind == "content" and not path.exact and not fact.get("modified_after_start"):
        return "the location was inferred, and this file was not changed during the task"
    return ""


def _open_window(fact: dict) -> tuple[Finding | None, str]:
    """(a finding for a stale LibreOffice window, a note on an open document) per OPEN_DOCUMENT_RULE."""
    lock = fact.get("lock_file")
    if not lock or not fact.get("exists") or fact.get("is_dir"):
        return None, ""
    where = fact["resolved"]
    if not lock.get("libreoffice_running"):
        return (
            None,
            f"{where}: a lock file is left over ({lock['path']}), but no LibreOffice runs: no window holds it.",
        )
    if lock.get("mtime") is None or "mtime" not in fact:
        return None, f"{where} is open in LibreOffice (lock file {lock['path']}); its time could not be read."
    written_after = fact["mtime"] - lock["mtime"]
    if written_after > settings.GATE_OPEN_SAVE_GRACE_S:
        return (
            Finding(
                problem="the file was changed on disk after LibreOffice opened or last saved it, and the "
                "document's window still holds the older content: a later save there (ctrl+s, also by an "
                f"evaluator) would write that over the file. Run `office-reload {where}` (the window then shows "
                f"the file) or `office-close {where}`; do not save from that window",
                location=fact["path"],
                evidence=f"file written {written_after:.0f}s after the lock file {lock['path']} "
                f"(LibreOffice writes it when it opens or saves the document)",
            ),
            "",
        )
    return None, (
        f"{where} is open in LibreOffice, and its window opened or last saved the document "
        + ("after the file's last write" if written_after <= 0 else "in the save that wrote the file")
        + ", so it shows the saved content unless it holds changes made in the window since; those show as "
        "the document-modified indicator in the window's status bar (take a screenshot). "
        + OPEN_DOCUMENT_RULE
    )


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


def short_range_notes(fact: dict) -> list[str]:
    """A note per aggregate whose range leaves out numbers next to it (`ranges_stopping_short` of the
    formula check): likely a total that misses a row, but a deliberate partial range looks the same."""
    return [
        f"{fact['path']}: {entry['cell']} {entry['formula']} leaves out {', '.join(entry['left_out'])}, "
        "numbers next to its range (or between its parts). Not certain: check whether the task's total or "
        "aggregate should include them."
        for entry in fact.get("formula_recalc", {}).get("ranges_stopping_short", [])
    ]


def _facts(sandbox: Sandbox, paths: list[str], since: float | None) -> list[dict]:
    result = run_probe(sandbox, "file_facts", paths=paths, since=since)
    if "error" in result:
        raise ProbeError(result["error"])
    return result["files"]


def _check(fact: dict, output: bool) -> list[_Problem]:
    path = fact["path"]
    if not output and not fact.get("modified_after_start"):
        return []
    if not fact["exists"]:
        evidence = f"{fact['resolved']} does not exist"
        if fact.get("same_name_elsewhere"):
            evidence += f"; files of that name: {', '.join(fact['same_name_elsewhere'])}"
        return [
            _Problem(
                "missing",
                Finding(
                    problem="the file the instruction names does not exist at its path",
                    location=path,
                    evidence=evidence,
                ),
            )
        ]
    found = [_Problem("content", f) for f in _content_findings(fact)]
    if output and fact.get("modified_after_start") is False:
        found.append(
            _Problem(
                "unchanged",
                Finding(
                    problem="the file has not been changed since the task started",
                    location=path,
                    evidence=f"last modified {fact['mtime_text']}, before the task started",
                ),
            )
        )
    return found


def _content_findings(fact: dict) -> list[Finding]:
    path = fact["path"]
    found: list[Finding] = []
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
    return found
