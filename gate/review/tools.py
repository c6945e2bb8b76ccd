"""The gate's own tools: a guarded read-only shell, a screenshot, value-level probes and `verdict`.

The file viewer is the shared editor in its read-only mode (`EditTool(context, read_only=True)`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from stateact.gate import settings
from stateact.gate.inspect.probes import ProbeError, run_probe
from stateact.gate.inspect.verdict import CheckItem, Finding
from stateact.gate.review.guard import check_command
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult
from stateact.kernel.tools.truncate import middle_truncate
from stateact.sandbox.base import CommandResult, Sandbox, SandboxError


def cap(text: str) -> str:
    """Middle-truncate long output for the gate model."""
    return middle_truncate(text, settings.GATE_OUTPUT_CAP_CHARS, "narrow the request")


REFUSED_EVERYWHERE = (
    "Refused, since the check reads the command's text and cannot see what these would do: `$(...)`, backquotes, "
    "`<(...)` and `>(...)` (run the inner command on its own), `eval`, `source`, scripts and stdin given to "
    "an interpreter (pass code with `python3 -c`), and code that runs programs or drives the screen "
    "(subprocess, os.system, exec, __import__, pyautogui). Refused because they act beyond files: ending "
    "processes, xdotool/wmctrl other than reading windows, office programs, package changes, settings writes "
    "(gsettings set, dconf write), git other than reading, curl/wget other than a GET to stdout."
)


class ReadOnlyShell(Tool):
    """The gate's shell where the sandbox has no read-only view: `guard.check_command`'s rules for writes too."""

    name = "bash"
    description = (
        "Run one read-only shell command on the task's machine (a fresh shell each time, home folder as working "
        "directory). Commands that write, delete, move or convert files are refused (redirect only to "
        "/dev/null), and so is interpreter code that writes files or looks names up at run time (`getattr` "
        "with a name written out, as getattr(c, 'value'), passes). " + REFUSED_EVERYWHERE
    )
    files_read_only: ClassVar[bool] = False

    class Input(BaseModel):
        command: str = Field(description="The command to run.")

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def run(self, params: Input) -> ToolResult:
        refusal = check_command(params.command, files_read_only=self.files_read_only)
        if refusal:
            return ToolResult.error(
                f"Refused: {refusal}; the gate is read-only (use the probes or read-only commands)."
            )
        result = self._run(params.command)
        return ToolResult(text=cap(f"{result.output.rstrip()}\n[exit code {result.returncode}]"))

    def _run(self, command: str) -> CommandResult:
        return self.sandbox.run(command, timeout=settings.GATE_SHELL_TIMEOUT_S)


class ReadOnlyViewShell(ReadOnlyShell):
    """The gate's shell in the sandbox's read-only view of its files (`Sandbox.run_read_only`): what would
    write fails there, so commands are judged only by what else they do."""

    description = (
        "Run one shell command on the task's machine (a fresh shell each time, home folder as working "
        "directory). It sees the machine's files read-only: a write fails with 'Read-only file system'; $TMPDIR "
        "is a scratch folder (unzip or convert copies there), emptied after the command. "
        + REFUSED_EVERYWHERE
    )
    files_read_only = True

    def _run(self, command: str) -> CommandResult:
        result = self.sandbox.run_read_only(command, timeout=settings.GATE_SHELL_TIMEOUT_S)
        if result is None:
            raise SandboxError("the sandbox's read-only view is gone")
        return result


def gate_shell(sandbox: Sandbox) -> ReadOnlyShell:
    """The read-only-view shell when the sandbox can make the view (tried once), else the guarded one."""
    probe = sandbox.run_read_only("true", timeout=settings.GATE_SHELL_TIMEOUT_S)
    return (
        ReadOnlyViewShell(sandbox) if probe is not None and probe.returncode == 0 else ReadOnlyShell(sandbox)
    )


class Screenshot(Tool):
    name = "screenshot"
    description = (
        "Take a screenshot of the machine's screen, for requirements about visible application state. "
        "Looking changes nothing; prefer the probes for file contents."
    )

    class Input(BaseModel):
        pass

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def run(self, params: Input) -> ToolResult:
        try:
            png = self.sandbox.screenshot()
        except (SandboxError, OSError) as exc:
            return ToolResult.error(f"No screenshot: {exc}")
        return ToolResult(text="Screenshot of the whole screen.", images=(png,))


class ProbeTool(Tool):
    """A tool that runs one probe in the sandbox and returns its JSON."""

    probe: ClassVar[str]

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def run(self, params: BaseModel) -> ToolResult:
        try:
            result = run_probe(self.sandbox, self.probe, **params.model_dump())
        except ProbeError as exc:
            return ToolResult.error(str(exc))
        text = cap(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
        return ToolResult(text=text, is_error="error" in result and len(result) == 1)


class FileFacts(ProbeTool):
    name = "file_facts"
    probe = "file_facts"
    description = (
        "Facts about files: exists, size, modification time, modified after the task started, real format vs "
        "extension, whether it parses, whether LibreOffice holds it open (lock file), and same-name files "
        "elsewhere under home when it is missing."
    )

    class Input(BaseModel):
        paths: list[str] = Field(description="Paths to check (absolute or ~/...).")


class InspectSpreadsheet(ProbeTool):
    name = "inspect_spreadsheet"
    probe = "spreadsheet"
    description = (
        "Read an .xlsx workbook (or an .ods: values and formulas only): its sheets (dimensions, charts with type and title, images, merged cells) and "
        "the cells of one sheet: cached value, formula, number format. Formulas with no cached value are "
        "flagged. Give `cells` as a range such as 'A1:F40' to read a block, empty cells included."
    )

    class Input(BaseModel):
        path: str
        sheet: str | None = Field(default=None, description="Sheet name; the active sheet when omitted.")
        cells: str | None = Field(
            default=None, description="A range like 'B2:D20'; all non-empty cells if omitted."
        )
        max_cells: int = Field(
            default=settings.GATE_PROBE_MAX_CELLS, ge=1, le=5 * settings.GATE_PROBE_MAX_CELLS
        )


class InspectDocument(ProbeTool):
    name = "inspect_document"
    probe = "document"
    description = (
        "Read a .docx (paragraph text, style, alignment, runs with font name/size/bold/italic/underline/color; "
        "tables; section page size, header, footer) or an .odt (paragraph text and style names; tables)."
    )

    class Input(BaseModel):
        path: str
        start: int = Field(
            default=1,
            ge=1,
            description="First paragraph to read: 1 is the first, as `n` and the change list's ¶N count.",
        )
        limit: int = Field(default=settings.GATE_PROBE_MAX_ITEMS, ge=1)
        fonts: bool = Field(default=True, description="Include run-level font facts.")


class InspectPresentation(ProbeTool):
    name = "inspect_presentation"
    probe = "presentation"
    description = (
        "Read a .pptx: slide size, and per slide its layout, shapes (name, type, placeholder, text, fonts, "
        "table cells, chart type, position/size in cm) and notes."
    )

    class Input(BaseModel):
        path: str
        limit: int = Field(default=settings.GATE_PROBE_MAX_ITEMS, ge=1, description="Shapes per slide.")


class ReadData(ProbeTool):
    name = "read_data"
    probe = "data"
    description = (
        "Read a csv/tsv (rows as parsed cells, delimiter, row count, blank rows, BOM), a json file (parsed) or "
        "a text file (numbered lines). Rows/lines from `start`, at most `limit`."
    )

    class Input(BaseModel):
        path: str
        start: int = Field(default=1, ge=1)
        limit: int = Field(default=settings.GATE_PROBE_MAX_ITEMS, ge=1)


class QuerySqlite(ProbeTool):
    name = "query_sqlite"
    probe = "sqlite"
    description = (
        "Run one SELECT (or PRAGMA) on an SQLite database opened read-only; returns columns and rows."
    )

    class Input(BaseModel):
        path: str
        query: str


PROBE_TOOLS: tuple[type[ProbeTool], ...] = (
    FileFacts,
    InspectSpreadsheet,
    InspectDocument,
    InspectPresentation,
    ReadData,
    QuerySqlite,
)


@dataclass(frozen=True)
class ReviewVerdict(LoopEnding):
    """The verdict the gate's model ended its review with (checked for consistency by `VerdictTool`)."""

    verdict: Literal["PASS", "FAIL"]
    checklist: tuple[CheckItem, ...] = ()
    findings: tuple[Finding, ...] = ()
    summary: str = ""


@dataclass(frozen=True)
class RejectedVerdicts(LoopEnding):
    """The review ended undecided: the model's verdict calls were refused too often."""

    reasons: tuple[str, ...]
    """Why each verdict call was refused, in order."""


class VerdictTool(Tool):
    name = "verdict"
    description = (
        "End the review with your verdict. PASS only when every checkable requirement was tested against the "
        "deliverable itself and holds; it needs the checklist: a list of objects "
        '{"requirement": "...", "result": "pass" | "fail" | "unverifiable", "evidence": "what you read"}. '
        "FAIL needs at least one finding: an object "
        '{"problem": "...", "location": "file and sheet!cell, paragraph, slide...", "evidence": "..."}. '
        "When you judge a claim that the task is infeasible, each checklist item is one point of the claim "
        'written as the claim states it ("no file holiday.xcf anywhere under home", "GIMP is not '
        'installed"), and its result says whether your check confirms that point: pass when it does, fail '
        "when the machine shows otherwise (a fail means the claim does not hold, so the verdict is FAIL). "
        f"After {settings.GATE_MAX_INVALID_VERDICTS} rejected verdict calls the review ends undecided."
    )

    class Input(BaseModel):
        verdict: Literal["PASS", "FAIL"]
        checklist: list[CheckItem] = Field(
            default_factory=list,
            description="Each requirement from the instruction and how it tested: objects with requirement, "
            "result (pass, fail or unverifiable) and evidence.",
        )
        findings: list[Finding] = Field(
            default_factory=list, description="Problems found (required on FAIL)."
        )
        summary: str = Field(default="", description="One or two sentences.")

        @model_validator(mode="after")
        def _consistent(self):
            if self.verdict == "FAIL" and not self.findings:
                raise ValueError("a FAIL verdict needs at least one finding (problem, location, evidence)")
            if self.verdict == "PASS" and not self.checklist:
                raise ValueError("a PASS verdict needs the checklist of requirements you tested")
            if self.verdict == "PASS" and any(item.result == "fail" for item in self.checklist):
                raise ValueError(
                    "a checklist item failed: the verdict must be FAIL, with a finding for it (judging an "
                    "infeasibility claim, write each item as a point of the claim, e.g. 'no ~/Desktop folder', "
                    "so that pass means your check confirms it)"
                )
            return self

    def __init__(self, max_invalid: int = settings.GATE_MAX_INVALID_VERDICTS) -> None:
        self.max_invalid = max_invalid
        self.rejected: list[str] = []
        """Why each rejected verdict call was refused, in order."""

    def invoke(self, call: ToolUseBlock) -> ToolResult:
        """As any tool; after `max_invalid` rejected calls, a terminal result that ends the round undecided."""
        result = super().invoke(call)
        if not result.is_error:
            return result
        self.rejected.append(result.text)
        if len(self.rejected) < self.max_invalid:
            left = self.max_invalid - len(self.rejected)
            return ToolResult.error(
                f"{result.text}\n(Rejected verdict {len(self.rejected)}; {left} more end the review undecided.)"
            )
        return ToolResult(
            text=f"{result.text}\nThat was rejected verdict call {len(self.rejected)} of {self.max_invalid}: "
            "the review ends undecided.",
            is_error=True,
            terminal=True,
            ending=RejectedVerdicts(tuple(self.rejected)),
        )

    def run(self, params: Input) -> ToolResult:
        verdict = ReviewVerdict(
            params.verdict, tuple(params.checklist), tuple(params.findings), params.summary
        )
        return ToolResult(text=f"Verdict recorded: {params.verdict}.", terminal=True, ending=verdict)
