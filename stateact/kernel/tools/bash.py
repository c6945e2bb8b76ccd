"""The `bash` tool: a persistent shell in the sandbox, with soft timeouts, input and interrupts.

A non-zero exit code is information for the model, not a tool failure: the
result is an error (`is_error`) only when the call itself could not be done
(a new command while one runs, input with nothing running, a broken shell).
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel, Field

from stateact.kernel import settings
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.kernel.tools.prompts import load_prompt
from stateact.kernel.tools.truncate import middle_truncate
from stateact.sandbox import settings as sandbox_settings
from stateact.sandbox.base import SandboxError, Shell, ShellOutput

OUTPUTS_INSIDE = "/tmp/stateact-outputs"
"""Where a long output's full text is copied inside a sandbox that cannot see the run folder."""
STILL_RUNNING_OPTIONS = (
    "call bash with no command to keep waiting, with input to type into it, or interrupt=true"
)


class BashInput(BaseModel):
    command: str | None = Field(
        default=None, description="The command to run. Omit it to keep waiting for a running command."
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        description=(
            f"Seconds to wait before returning partial output (default {sandbox_settings.BASH_SOFT_TIMEOUT_S:.0f}, "
            f"at most {settings.BASH_MAX_TIMEOUT_S:.0f}). The command keeps running after it."
        ),
    )
    input: str | None = Field(
        default=None, description='Text typed into the running command; add "\\n" to press Enter.'
    )
    interrupt: bool = Field(default=False, description="Stop the running command (Ctrl-C, escalated).")
    restart: bool = Field(
        default=False, description="Start a fresh shell; state and background jobs are lost."
    )


class BashTool(Tool[BashInput]):
    """One persistent shell per run, opened on first use."""

    name = "bash"
    description = load_prompt(
        "bash",
        soft_timeout=f"{sandbox_settings.BASH_SOFT_TIMEOUT_S:.0f}",
        max_timeout=f"{settings.BASH_MAX_TIMEOUT_S:.0f}",
    )
    Input = BashInput

    def __init__(self, context: RunContext) -> None:
        self.context = context
        self._shell: Shell | None = None
        self._command = ""
        self._started_at = 0.0

    # -- the call ------------------------------------------------------------
    def run(self, params: BashInput) -> ToolResult:
        if params.input is not None and (params.command is not None or params.interrupt or params.restart):
            return ToolResult.error(
                "`input` is typed into the running command on its own: do not combine it with "
                "`command`, `interrupt` or `restart`."
            )
        try:
            return self._dispatch(params)
        except (OSError, RuntimeError, SandboxError) as exc:
            return ToolResult.error(
                f"The shell failed: {type(exc).__name__}: {exc}. Call bash with restart=true to start a new one."
            )

    def _dispatch(self, params: BashInput) -> ToolResult:
        notes: list[str] = []
        timeout = params.timeout or sandbox_settings.BASH_SOFT_TIMEOUT_S
        if timeout > settings.BASH_MAX_TIMEOUT_S:
            timeout = settings.BASH_MAX_TIMEOUT_S
            notes.append(f"timeout lowered to the maximum, {timeout:.0f}s")
        if (left := self.context.seconds_left(timeout)) < timeout:
            timeout = left
            notes.append(f"timeout lowered to the run's remaining time, {timeout:.0f}s")
        if params.restart:
            notes.append(self._restart())
        if params.interrupt:
            if (running := self._running()) is None:
                notes.append("nothing was running to interrupt")
            elif params.command is None:
                return self._result(running.interrupt(), notes)
            else:
                stopped = running.interrupt()
                notes.append(self._stopped_note(stopped))
        if params.input is not None:
            if (running := self._running()) is None:
                return ToolResult.error(
                    "Nothing is running to receive the input. Run the program with `command` first."
                )
            return self._result(running.send_input(params.input, timeout), notes)
        if params.command is not None:
            if self._running() is not None:
                return ToolResult.error(
                    f"A command is still running (started {self._elapsed()}s ago: `{self._command[:200]}`). "
                    "Call bash with no command to keep waiting, with `input` to type into it, or with "
                    "interrupt=true to stop it (interrupt=true together with a new command stops it "
                    "and runs the new one)."
                )
            shell = self._open()
            self._command, self._started_at = params.command, time.monotonic()
            return self._result(shell.run(params.command, timeout), notes)
        if (running := self._running()) is not None:
            return self._result(running.wait(timeout), notes)
        if notes:
            return ToolResult(text="\n".join(f"[{n}]" for n in notes))
        return ToolResult.error("Nothing is running. Give a `command` to run.")

    # -- shell state ---------------------------------------------------------
    def _running(self) -> Shell | None:
        """The shell while a command runs in it, else None."""
        return self._shell if self._shell is not None and self._shell.busy else None

    def _open(self) -> Shell:
        if self._shell is None:
            self._shell = self.context.sandbox.open_shell(self.context.run_dir / "shell")
        return self._shell

    def _restart(self) -> str:
        if self._shell is None:
            self._open()
            return "a new shell was started"
        return self._shell.restart().note

    def _elapsed(self) -> int:
        return round(time.monotonic() - self._started_at)

    # -- result text ---------------------------------------------------------------
    def _stopped_note(self, out: ShellOutput) -> str:
        status = f"exit {out.exit_code}" if out.exit_code is not None else out.note
        tail = out.output.strip()[-500:]
        return f"the previous command was stopped ({status})" + (f"; its last output: {tail}" if tail else "")

    def _result(self, out: ShellOutput, notes: list[str]) -> ToolResult:
        body = self._shown_output(out.output)
        lines = [body] if body else []
        lines += [f"[{n}]" for n in [*notes, out.note] if n and n != "interrupted"]
        lines.append(self._status_line(out))
        return ToolResult(text="\n".join(lines))

    def _status_line(self, out: ShellOutput) -> str:
        if out.running:
            return f"[still running after {self._elapsed()}s: {STILL_RUNNING_OPTIONS}]"
        prefix = "interrupted · " if out.note == "interrupted" else ""
        if out.exit_code is None:
            return f"[{prefix}cwd {out.cwd}]"
        return f"[{prefix}exit {out.exit_code} · cwd {out.cwd}]"

    def _shown_output(self, output: str) -> str:
        output = output.rstrip("\n")
        undecodable = output.count("\ufffd")
        if len(output) > settings.BASH_OUTPUT_CAP_CHARS:
            saved = self._readable_copy(self.context.log.save_output(output, "bash"))
            output = middle_truncate(
                output, settings.BASH_OUTPUT_CAP_CHARS, f"full output: {saved} (page it with sed -n or grep)"
            )
        if undecodable:
            output += (
                f"\n[{undecodable} places where the output is not UTF-8 text are shown as \ufffd; "
                "inspect binary data with `xxd | head` or `file`]"
            )
        return output

    def _readable_copy(self, saved: Path) -> str:
        """Where the sandbox's processes read the saved output: the run folder's file when they see it,
        else a copy in the sandbox's own /tmp (an isolated sandbox, a VM)."""
        sandbox = self.context.sandbox
        if sandbox.exists(str(saved)):
            return str(saved)
        inside = f"{OUTPUTS_INSIDE}/{saved.name}"
        sandbox.write_file(inside, saved.read_bytes())
        return inside

    def close(self) -> None:
        if self._shell is not None:
            self._shell.close()
            self._shell = None
