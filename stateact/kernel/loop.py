"""The agent loop every role runs: request, model call, tool calls, results, budgets.

    AgentLoop(LoopSpec(scope, tools, system_prompt, budget), model=..., log=..., meter=...).run(task)
    context.loop(LoopSpec(...))       # a loop of a run: `RunContext` supplies model, log and meter

Roles differ only in configuration (`LoopSpec`). Each message added to the history is
logged as a `message` event, so the log alone can rebuild the conversation.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from stateact.kernel import settings
from stateact.kernel.context.manager import ContextManager, Injection, PassThrough
from stateact.kernel.events import (
    LOGGED_TEXT_CHARS,
    ContextOverflow,
    ErrorEvent,
    Interrupted,
    LoopEnd,
    LoopStart,
    Request,
    Response,
    ToolCall,
    ToolCrash,
    ToolCutOff,
    ToolResultEvent,
)
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models.base import (
    ContextLengthError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ProviderError,
)
from stateact.kernel.models.script_expectations import ScriptExpectationError
from stateact.kernel.prompts import read_prompt
from stateact.kernel.roles import role_of_scope
from stateact.kernel.runlog import RunFolderFull, RunLog
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult
from stateact.sandbox.base import SandboxLost

TEXT_REPLY_NUDGE = read_prompt("text_reply_nudge").strip()
"""Sent when a loop that must act through tools gets a reply without a tool call."""
CUT_OFF_CALL = (
    "Not run: your reply hit the output token limit while writing this call, so its arguments may be "
    "incomplete. Send it again in smaller pieces (for example, write a long file in several steps)."
)

UNKNOWN_OUTCOME = (
    "The run was interrupted while this call was pending or running: its outcome is unknown. "
    "Check the machine's state before relying on it."
)
"""The result given to a tool call whose run was cut short by an interrupt or a crash."""


@dataclass(frozen=True)
class Budget:
    """When a loop stops. `max_usd` is a run-wide figure: the loop stops once the meter's total (every
    role's spend) reaches it; see `RunContext.dollar_budget`."""

    max_turns: int = settings.MAIN_MAX_TURNS
    max_usd: float | None = settings.MAIN_MAX_USD
    max_seconds: float | None = settings.MAIN_MAX_SECONDS


EndingT = TypeVar("EndingT", bound=LoopEnding)


@dataclass
class LoopOutcome:
    """How a loop ended. status: finished | replied | budget | error; a loop that finished through a
    terminal tool carries that tool's typed `ending`."""

    status: str
    text: str
    turns: int
    ending: LoopEnding | None = None

    def ending_as(self, kind: type[EndingT]) -> EndingT | None:
        """The typed ending when the loop finished with one of `kind`; None otherwise."""
        if self.status == "finished" and isinstance(self.ending, kind):
            return self.ending
        return None


@dataclass(frozen=True)
class ReplyNudge:
    """What a loop that must act through tools sends when a reply has no tool call, and how many replies
    in a row get it before the loop ends as `replied`."""

    text: str = TEXT_REPLY_NUDGE
    times: int = settings.TEXT_REPLY_NUDGES


@dataclass(frozen=True)
class LoopSpec:
    """What sets one loop apart: where it logs (its scope), its tools, system prompt and budget."""

    scope: str
    tools: Sequence[Tool[Any]]
    system_prompt: str
    budget: Budget = Budget()
    role: str = ""
    """Whose models and spend it uses; '': the role its scope names (`gui#2` -> `gui`)."""
    injections: Sequence[Injection] = ()
    """Live texts added at the end of every request (after the cache breakpoint)."""
    nudge: ReplyNudge | None = None
    """None: a reply without a tool call ends the loop at once."""
    opening: str = ""
    """What the first user message says before the task: what is specific to this task or run (a home
    folder, a start time), kept out of the system prompt so that the system prompt and tools, before
    their cache breakpoint, are the same for every loop of the role and its prefix is read from the cache."""

    @property
    def loop_role(self) -> str:
        """The role the loop runs as: `role`, or the one its scope names."""
        return self.role or role_of_scope(self.scope)


class AgentLoop:
    """One agent: a model, its tools, a system prompt and a budget."""

    def __init__(
        self,
        spec: LoopSpec,
        *,
        model: ModelProvider,
        log: RunLog,
        meter: Meter,
        context: ContextManager | None = None,
        check_helpers: Callable[[], str] = str,
    ) -> None:
        """`check_helpers` runs before each tool call: it returns what the model must be told of the
        sandbox's helpers (sandbox/base.py `restore_helpers`), or raises SandboxLost to end the run."""
        self.scope = spec.scope
        self.role = spec.loop_role
        self.model = model
        self.tools = {tool.name: tool for tool in spec.tools}
        self.system_prompt = spec.system_prompt
        self.log = log
        self.meter = meter
        self.budget = spec.budget
        self.context = context or PassThrough()
        self.check_helpers = check_helpers
        self.injections = list(spec.injections)
        self.nudge = spec.nudge
        self.opening = spec.opening
        self.messages: list[Message] = []
        self.turns = 0
        self._started = time.monotonic()

    # -- history -------------------------------------------------------------
    def append(self, message: Message) -> None:
        """Add a message to the history and log it."""
        self.messages.append(message)
        self.log.emit(self.log.message_event(message, self.scope))

    def build_request(self) -> ModelRequest:
        """The next request: the context manager's view, then its notes and the loop's live injections
        at the very end (after the cache breakpoint)."""
        self.context.before_request(self)
        view = [m.model_copy() for m in self.context.view(self.messages)]
        extra = [*self.context.notes(), *(text for inject in self.injections if (text := inject()))]
        if extra and view and view[-1].role == "user":
            view[-1] = Message(role="user", content=[*view[-1].content, *(TextBlock(text=t) for t in extra)])
        return ModelRequest(
            system=self.system_prompt,
            messages=view,
            tools=[t.spec() for t in self.tools.values()],
            injected_blocks=len(extra) if view and view[-1].role == "user" else 0,
            scope=self.scope,
        )

    # -- running -----------------------------------------------------------------
    def run(self, task: str | list[TextBlock | ImageBlock]) -> LoopOutcome:
        """Start on a task and loop until a terminal tool result, a reply, a budget or an error."""
        content = [TextBlock(text=task)] if isinstance(task, str) else list(task)
        if self.opening:
            content.insert(0, TextBlock(text=self.opening))
        self._started = time.monotonic()
        self.log.emit(LoopStart(scope=self.scope, model=self.model.spec, tools=sorted(self.tools)))
        self.append(Message(role="user", content=content))
        return self.resume()

    def restore(self, messages: list[Message], turns: int, elapsed_s: float) -> None:
        """Take up an earlier history (a resumed run): no message is logged again."""
        self.messages = list(messages)
        self.turns = turns
        self._started = time.monotonic() - elapsed_s

    def allow_final_turn(self, tools: Sequence[Tool[Any]] = ()) -> None:
        """Give the loop one turn past its turn budget, without a time limit, with `tools` offered as
        well: for a last report once its budget is spent."""
        self.tools.update({tool.name: tool for tool in tools})
        self.budget = replace(self.budget, max_turns=self.turns + 1, max_seconds=None)

    def resume(self) -> LoopOutcome:
        """Continue from the current history (its last message must be from the user)."""
        nudges = 0
        try:
            while True:
                exhausted = self._budget_exhausted()
                if exhausted:
                    return self._end(LoopOutcome("budget", exhausted, self.turns))
                try:
                    response = self._call_model()
                except ProviderError as exc:
                    self.log.emit(ErrorEvent(scope=self.scope, error=type(exc).__name__, message=str(exc)))
                    return self._end(LoopOutcome("error", f"model call failed: {exc}", self.turns))
                self.append(response.message())
                calls = response.tool_uses()
                if not calls:
                    text = response.message().text()
                    if self.nudge is not None and nudges < self.nudge.times:
                        nudges += 1
                        self.append(Message.user_text(self.nudge.text))
                        continue
                    return self._end(LoopOutcome("replied", text, self.turns))
                nudges = 0
                terminal = self._run_tools(calls, cut_off=calls[-1] if response.truncated else None)
                if terminal is not None:
                    return self._end(LoopOutcome("finished", terminal.text, self.turns, terminal.ending))
        except KeyboardInterrupt:
            self.log.emit(Interrupted(scope=self.scope, turns=self.turns))
            raise

    def _call_model(self) -> ModelResponse:
        request = self.build_request()
        self.log.emit(
            Request(
                scope=self.scope,
                messages=len(request.messages),
                chars=sum(
                    len(b.text) for m in request.messages for b in m.content if isinstance(b, TextBlock)
                ),
            )
        )
        started = time.monotonic()
        recoveries = 0
        while True:
            try:
                response = self.model.complete(request)
                break
            except ContextLengthError as exc:
                self.log.emit(
                    ContextOverflow(
                        scope=self.scope, message=str(exc), maximum=exc.maximum, recoveries=recoveries
                    )
                )
                if recoveries >= settings.CONTEXT_OVERFLOW_RECOVERIES or not self.context.on_overflow(
                    self, exc.maximum
                ):
                    raise
                recoveries += 1
                request = self.build_request()
        self.turns += 1
        self.context.after_response(response.usage)
        usd = self.model.info.cost(response.usage)  # the catalog's prices, or the role's stated ones
        self.meter.add(self.role, response.usage, usd)
        self.log.emit(
            Response(
                scope=self.scope,
                role=self.role,
                turn=self.turns,
                stop_reason=response.stop_reason,
                usage=response.usage,
                usd=round(usd, 6),
                seconds=round(time.monotonic() - started, 3),
                retried=response.retried,
            )
        )
        return response

    def _run_tools(self, calls: list[ToolUseBlock], cut_off: ToolUseBlock | None = None) -> ToolResult | None:
        """Run each call in order; results go back in one user message. Returns a terminal result.

        `cut_off` is a call the output limit truncated: its arguments may be incomplete, so it is not run.
        On an interrupt the calls not yet done get error results, so the history stays valid to resume.
        """
        self.before_tools(calls, cut_off)
        results: list[ToolResult] = []
        terminal: ToolResult | None = None
        try:
            for call in calls:
                if terminal is not None:
                    results.append(ToolResult.error("Not run: an earlier call in this turn ended the task."))
                    continue
                if call is cut_off:
                    self.log.emit(ToolCutOff(scope=self.scope, id=call.id, name=call.name, input=call.input))
                    results.append(ToolResult.error(CUT_OFF_CALL))
                    continue
                if (unread := _unsettled(calls, results)) and self._reports_success(call):
                    results.append(ToolResult.error(f"`{call.name}` was not run: {unread}"))
                    continue
                results.append(self._run_one(call))
                if results[-1].terminal:
                    terminal = results[-1]
        finally:
            results += [ToolResult.error(UNKNOWN_OUTCOME)] * (len(calls) - len(results))
            blocks = [
                ToolResultBlock(tool_use_id=call.id, content=result.blocks(), is_error=result.is_error)
                for call, result in zip(calls, results, strict=True)
            ]
            self.append(Message(role="user", content=blocks))
        return terminal

    def before_tools(self, calls: list[ToolUseBlock], cut_off: ToolUseBlock | None) -> None:
        """Hook: called once before a reply's tool calls run (`cut_off`: the call that will not run)."""

    def before_tool(self, call: ToolUseBlock) -> None:
        """Hook: called just before one tool call runs."""

    def _reports_success(self, call: ToolUseBlock) -> bool:
        tool = self.tools.get(call.name)
        return tool is not None and tool.reports_success

    def _run_one(self, call: ToolUseBlock) -> ToolResult:
        self.log.emit(
            ToolCall(
                scope=self.scope,
                id=call.id,
                name=call.name,
                input=call.input,
                raw_arguments=call.raw_arguments,
            )
        )
        self.before_tool(call)
        started = time.monotonic()
        tool = self.tools.get(call.name)
        if tool is None:
            result = ToolResult.error(
                f"Unknown tool `{call.name}`. Available tools: {', '.join(sorted(self.tools))}."
            )
        else:
            notice = self.check_helpers()
            try:
                result = tool.invoke(call)
            except (KeyboardInterrupt, ScriptExpectationError, SandboxLost, RunFolderFull):
                raise
            except Exception as exc:  # a tool bug must not end the run
                self.log.emit(ToolCrash(scope=self.scope, id=call.id, traceback=traceback.format_exc()))
                result = ToolResult.error(f"`{call.name}` failed: {type(exc).__name__}: {exc}")
            if notice:
                result = replace(result, text=f"{notice}\n{result.text}")
        self.log.emit(
            ToolResultEvent(
                scope=self.scope,
                id=call.id,
                name=call.name,
                is_error=result.is_error,
                terminal=result.terminal,
                text=result.text[:LOGGED_TEXT_CHARS],
                images=len(result.images),
                seconds=round(time.monotonic() - started, 3),
            )
        )
        return result

    def _budget_exhausted(self) -> str:
        if self.turns >= self.budget.max_turns:
            return f"turn budget spent ({self.turns} of {self.budget.max_turns})"
        if self.budget.max_usd is not None and self.meter.total_usd >= self.budget.max_usd:
            return f"dollar budget spent (${self.meter.total_usd:.2f} of ${self.budget.max_usd:.2f})"
        elapsed = time.monotonic() - self._started
        if self.budget.max_seconds is not None and elapsed >= self.budget.max_seconds:
            return f"time budget spent ({elapsed:.0f}s of {self.budget.max_seconds:.0f}s)"
        return ""

    def _end(self, outcome: LoopOutcome) -> LoopOutcome:
        self.log.emit(
            LoopEnd(
                scope=self.scope,
                status=outcome.status,
                turns=outcome.turns,
                text=outcome.text[:LOGGED_TEXT_CHARS],
            )
        )
        return outcome

    def close_tools(self) -> None:
        for tool in self.tools.values():
            tool.close()


def _unsettled(calls: list[ToolUseBlock], results: list[ToolResult]) -> str:
    """Why the turn's earlier results must be read before a call that reports success; '' if none failed."""
    for number, (call, result) in enumerate(zip(calls[: len(results)], results, strict=True), 1):
        if result.is_error or result.setback:
            what = "failed" if result.is_error else "found work unfinished"
            return f"call {number} of this turn (`{call.name}`) {what}. Read its result, then call again."
    return ""


def batch_lookers(
    calls: list[ToolUseBlock],
    cut_off: ToolUseBlock | None,
    observes: Callable[[ToolUseBlock], bool],
    every: bool = False,
) -> set[str]:
    """The ids of a batch's calls that answer with what the agent now sees (a screenshot, a page state): the
    last call that observes, or every one with `every`; never the call that will not run (`cut_off`)."""
    looking = [call for call in calls if call is not cut_off and observes(call)]
    return {call.id for call in (looking if every else looking[-1:])}
