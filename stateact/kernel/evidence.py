"""Evidence behind a plan item, and the deterministic, read-only checks that confirm it.

The agent names what its claim rests on (a file, a text in it, a spreadsheet
cell's saved value, a read-only command's output); `EvidenceChecker` re-reads
that state through the sandbox. Only a passing check makes an item verified.
"""

from __future__ import annotations

import io
import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from stateact.sandbox.base import Sandbox, SandboxError

CommandGuard = Callable[[str], str | None]
"""Returns what a shell command would change (so it may not run as a check), or None to allow it."""

COMMAND_REFUSAL_ADVICE = (
    "Evidence commands must leave the machine as it is, since they are run again later to re-check the claim. "
    "Use a command that only prints (such as cat, grep, ls, wmctrl -l, or python3 -c code that only reads), "
    "or give file_exists, file_contains or cell_equals evidence."
)

NUMBER_TOLERANCE = 1e-9
CHECK_TIMEOUT_S = 60.0
DOCUMENT_READERS = {
    ".docx": "docx-dump",
    ".odt": "docx-dump",
    ".pptx": "pptx-dump",
    ".odp": "pptx-dump",
    ".xlsx": "xlsx-dump",
    ".ods": "xlsx-dump",
}
"""The office toolkit's reader (in the sandbox) whose output `file_contains` searches in an office file."""


class FileExists(BaseModel):
    kind: Literal["file_exists"] = "file_exists"
    path: str


class FileContains(BaseModel):
    kind: Literal["file_contains"] = "file_contains"
    path: str
    text: str = Field(
        description="Text the file must contain: a text file is read as UTF-8; in .docx/.odt, .pptx/.odp and "
        ".xlsx/.ods files the text of their paragraphs, shapes, tables and cells is searched."
    )


class CellEquals(BaseModel):
    kind: Literal["cell_equals"] = "cell_equals"
    path: str = Field(description="An .xlsx file.")
    cell: str = Field(description="Like B7.")
    value: str | float | int | bool = Field(description="The saved value (for a formula: its cached result).")
    sheet: str | None = Field(default=None, description="Defaults to the active sheet.")


class CommandOutput(BaseModel):
    kind: Literal["command_output"] = "command_output"
    command: str = Field(description="A read-only shell command.")
    expect: str = Field(description="Text its output must contain.")


Evidence = Annotated[FileExists | FileContains | CellEquals | CommandOutput, Field(discriminator="kind")]


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str


class EvidenceChecker:
    """Runs evidence checks on a sandbox without changing it."""

    def __init__(self, sandbox: Sandbox, command_guard: CommandGuard | None = None) -> None:
        self.sandbox = sandbox
        self.command_guard = command_guard

    def check(self, evidence: FileExists | FileContains | CellEquals | CommandOutput) -> CheckResult:
        try:
            return _CHECKS[evidence.kind](self, evidence)
        except FileNotFoundError:
            return CheckResult(False, f"{evidence.path} does not exist")  # type: ignore[union-attr]
        except Exception as exc:  # an unreadable file is a failed check, not a crash
            return CheckResult(False, f"{evidence.kind} could not be checked: {_reason(exc)}")

    def check_all(self, evidence: list[Evidence]) -> CheckResult:
        """All checks must pass; the detail lists each."""
        results = [self.check(e) for e in evidence]
        return CheckResult(all(r.ok for r in results), "; ".join(r.detail for r in results))

    def _file_exists(self, evidence: FileExists) -> CheckResult:
        ok = self.sandbox.exists(evidence.path)
        return CheckResult(ok, f"{evidence.path} {'exists' if ok else 'does not exist'}")

    def _file_contains(self, evidence: FileContains) -> CheckResult:
        reader = DOCUMENT_READERS.get(PurePosixPath(evidence.path).suffix.lower())
        if reader is None:
            text = self.sandbox.read_file(evidence.path).decode("utf-8", errors="replace")
        elif not self.sandbox.exists(evidence.path):
            raise FileNotFoundError(evidence.path)
        else:
            shown = self.sandbox.run(
                f"{reader} {shlex.quote(self.sandbox.expand(evidence.path))}", CHECK_TIMEOUT_S
            )
            if not shown.ok:
                return CheckResult(
                    False, f"{reader} could not read {evidence.path}: {shown.output.strip()[-200:]}"
                )
            text = shown.stdout
        ok = evidence.text in text
        return CheckResult(
            ok, f"{evidence.path} {'contains' if ok else 'does not contain'} {evidence.text!r}"
        )

    def _cell_equals(self, evidence: CellEquals) -> CheckResult:
        import openpyxl
        from openpyxl.worksheet.worksheet import Worksheet

        book = openpyxl.load_workbook(io.BytesIO(self.sandbox.read_file(evidence.path)), data_only=True)
        sheet = book[evidence.sheet] if evidence.sheet else book.active
        if not isinstance(sheet, Worksheet):
            return CheckResult(False, f"{evidence.path} has no worksheet {evidence.sheet or '(active)'}")
        actual = sheet[evidence.cell].value
        where = f"{evidence.path} {sheet.title}!{evidence.cell}"
        if _same_value(actual, evidence.value):
            return CheckResult(True, f"{where} = {actual!r}")
        return CheckResult(False, f"{where} is {actual!r}, not {evidence.value!r}")

    def _command_output(self, evidence: CommandOutput) -> CheckResult:
        if self.command_guard is None:
            return CheckResult(False, "command checks are not available in this harness")
        refusal = self.command_guard(evidence.command)
        if refusal:
            return CheckResult(
                False, f"`{evidence.command}` was not run: {refusal}. {COMMAND_REFUSAL_ADVICE}"
            )
        result = self.sandbox.run(evidence.command, timeout=CHECK_TIMEOUT_S)
        ok = evidence.expect in result.stdout
        shown = result.stdout.strip()[-200:]
        return CheckResult(
            ok,
            f"`{evidence.command}` {'printed' if ok else 'did not print'} {evidence.expect!r}"
            + ("" if ok else f" (output: {shown!r})"),
        )


_CHECKS: dict[str, Callable[[EvidenceChecker, Any], CheckResult]] = {
    "file_exists": EvidenceChecker._file_exists,
    "file_contains": EvidenceChecker._file_contains,
    "cell_equals": EvidenceChecker._cell_equals,
    "command_output": EvidenceChecker._command_output,
}


def _same_value(actual: object, expected: str | float | int | bool) -> bool:
    """Numbers compare numerically (a saved 3.0 matches 3); everything else as text."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(actual).lower() == str(expected).lower()
    try:
        return math.isclose(float(actual), float(expected), rel_tol=NUMBER_TOLERANCE)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(actual if actual is not None else "") == str(expected)


def _reason(exc: Exception) -> str:
    """Why a check could not run, in words: a file's error as the system says it, a sandbox's as it says
    it, anything else with its kind."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, SandboxError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
