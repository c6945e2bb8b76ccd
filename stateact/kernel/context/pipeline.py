"""How a loop's history becomes a request: one context pipeline, configured by every role.

    pipeline = build_context_manager(context, model.name, processors, plan=plan, notes=[plan_note])
    context.loop(spec, context=pipeline)     # or context.loop(spec, processors=processors)

`ContextPipeline` is the `ContextManager` (`stateact.kernel.context.manager`) of every role's loop
(main, GUI, web, gate, pixel):

- view: the history through the role's processors (`stateact.kernel.context.processors`: output caps,
  chunked image stripping, collapsed web observations), deterministic, so the view of a history
  only grows at its end and the provider's cached prefix stays valid between chunks;
- compaction: before a request whose estimated prompt passes the threshold share of the window,
  the oldest turns become a summary (`stateact.kernel.context.compaction`);
- notes: the stall note and the role's live notes (the plan) go after the latest message, past the
  cache breakpoint;
- overflow: when the provider refuses a request as too long, only that request is made smaller: it
  is compacted harder, and if that is not enough (or there is nothing to compact) its largest texts
  and images are cut. The window stays the model's own, unless the provider's error states a
  smaller one.

Estimates use the offline tokenizer, scaled by the ratio of the provider's reported prompt size to
the estimate of the previous request. The loop hands its manager the usage of each response and the
window an overflow stated: a manager holds nothing of the run but its own loop, so a finished loop
is released with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from stateact.kernel import settings
from stateact.kernel.context.block_cuts import BlockCuts, user_blocks
from stateact.kernel.context.compaction import Compactor, apply_compaction, choose_split, pairing_problems
from stateact.kernel.context.manager import Injection, ManagedLoop
from stateact.kernel.context.processors import CapOutputs, Processor, StripImages, run_processors
from stateact.kernel.context.stall_notes import StallDetector
from stateact.kernel.context.token_counter import TokenCounter, counter
from stateact.kernel.events import (
    Compaction,
    CompactionSkipped,
    ContextCut,
    ContextWindow,
    Stall,
)
from stateact.kernel.messages import Message, TextBlock, Usage
from stateact.kernel.models.base import ModelProvider
from stateact.kernel.models.catalog import lookup

PlanSource = Callable[[], str | None]
RATIO_BOUNDS = (0.5, 3.0)
"""Limits on the reported/estimated token ratio, so one odd report cannot derail compaction."""


class ModelSource(Protocol):
    """What the pipeline needs of its run (a `RunContext`): the model provider of a role."""

    def provider(self, role: str) -> ModelProvider: ...


def default_processors() -> list[Processor]:
    """Output caps and chunked image stripping with the run-wide settings."""
    return [CapOutputs(), StripImages()]


class ContextPipeline:
    """ContextManager for one loop: view processors, compaction, notes and overflow recovery.

    With `compactor` None nothing is compacted; with `cut_blocks` False no block is cut after an
    overflow; with `stall` None no stall notes are given. `notes` follow the stall note.
    """

    def __init__(
        self,
        *,
        window: int,
        compactor: Compactor | None,
        processors: Sequence[Processor] | None = None,
        plan: PlanSource | None = None,
        notes: Sequence[Injection] = (),
        threshold: float = settings.CONTEXT_COMPACT_THRESHOLD,
        keep_recent_share: float = settings.CONTEXT_KEEP_RECENT_SHARE,
        cut_blocks: bool = True,
        stall: StallDetector | None = None,
        tokens: TokenCounter | None = None,
    ) -> None:
        self.window = window
        self.compactor = compactor
        self.processors = list(default_processors() if processors is None else processors)
        self.plan = plan
        self.note_sources = list(notes)
        self.threshold = threshold
        self.keep_recent_share = keep_recent_share
        self.cut_blocks = cut_blocks
        self.cuts = BlockCuts()
        self.stall = stall
        self.tokens = tokens or counter()
        self.ratio = 1.0
        self.compactions = 0
        self._loop: ManagedLoop | None = None
        self._preamble = 0
        self._sent_estimate = 0
        self._memo: tuple[Message | None, int, list[Message], int] = (None, 0, [], 0)

    # -- ContextManager protocol ---------------------------------------------------
    def before_request(self, loop: ManagedLoop) -> None:
        self._attach(loop)
        if self.stall is not None:
            self.stall.observe(loop.messages)
        if self.compactor is not None and self.estimate(loop.messages) > self.threshold * self.window:
            self.compact(loop, "threshold")

    def view(self, messages: list[Message]) -> list[Message]:
        view, size = self._view(messages)
        self._sent_estimate = self._preamble + size
        return view

    def notes(self) -> list[str]:
        """The stall note (while stalled), then the role's notes, each asked once per request."""
        return [text for source in (self.stall_note, *self.note_sources) if (text := source())]

    def after_response(self, usage: Usage) -> None:
        """Calibrate estimates with the prompt size the provider reported for our last request."""
        reported = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        if reported > 0 and self._sent_estimate > 0:
            self.ratio = min(max(reported / self._sent_estimate, RATIO_BOUNDS[0]), RATIO_BOUNDS[1])

    def on_overflow(self, loop: ManagedLoop, maximum: int | None = None) -> bool:
        """The provider refused the last request: shrink the next one below a target; True to retry.

        The target (a share of the refused prompt, at most the threshold) holds for this request
        only; the window changes only to a smaller `maximum` the provider's error stated.
        """
        self._attach(loop)
        if maximum is not None and maximum < self.window:
            loop.log.emit(ContextWindow(scope=loop.scope, window=maximum, was=self.window))
            self.window = maximum
        refused = self._sent_estimate * self.ratio
        target = int(min(self.threshold * self.window, refused * settings.CONTEXT_OVERFLOW_TARGET_SHARE))
        compacted = self.compactor is not None and self.compact(loop, "overflow", target)
        cut = self.cut_blocks and self.estimate(loop.messages) > target and self.cut_largest(loop, target)
        return compacted or cut

    def stall_note(self) -> str | None:
        """The stall detector's runtime note, if the agent is stalled."""
        return self.stall() if self.stall is not None else None

    # -- accounting -----------------------------------------------------------------
    def estimate(self, messages: list[Message]) -> int:
        """Estimated prompt tokens of the next request built from `messages`."""
        return int((self._preamble + self._view(messages)[1]) * self.ratio)

    def _view(self, messages: list[Message]) -> tuple[list[Message], int]:
        last, length, view, size = self._memo
        if messages and messages[-1] is last and len(messages) == length:
            return view, size
        view = run_processors(self.processors, self.cuts.apply(messages))
        size = self.tokens.messages(view)
        self._memo = (messages[-1] if messages else None, len(messages), view, size)
        return view, size

    def _attach(self, loop: ManagedLoop) -> None:
        if self._loop is loop:
            return
        if self._loop is not None:
            raise RuntimeError("a ContextPipeline serves one loop; build one per loop")
        self._loop = loop
        self._preamble = self.tokens.preamble(loop.system_prompt, [t.spec() for t in loop.tools.values()])
        if self.stall is not None:
            log, scope = loop.log, loop.scope
            self.stall.on_stall = lambda sign, note: log.emit(Stall(scope=scope, sign=sign, note=note))

    # -- compaction -----------------------------------------------------------------
    def compact(self, loop: ManagedLoop, reason: str, budget: int | None = None) -> bool:
        """Replace the oldest turns of `loop.messages` with a summary; False if nothing could go.

        The turns kept verbatim fill a share of `budget` tokens (the window unless given).
        """
        assert self.compactor is not None
        history = loop.messages
        view, _ = self._view(history)
        before = self.estimate(history)
        keep_tokens = int((budget or self.window) * self.keep_recent_share / self.ratio)
        split = choose_split(history, [self.tokens.message(m) for m in view], keep_tokens)
        if split is None:
            loop.log.emit(CompactionSkipped(scope=loop.scope, reason=reason, messages=len(history)))
            return False
        summary = self.compactor.summarize(history, split, self.plan() if self.plan else None)
        compacted = apply_compaction(history, summary.text, split - 1)
        problems = pairing_problems(compacted)
        if problems:
            loop.log.emit(CompactionSkipped(scope=loop.scope, reason=reason, problems=problems))
            return False
        history[:] = compacted
        if summary.usage is not None:
            loop.meter.add("compactor", summary.usage, summary.usd)
        self.compactions += 1
        loop.log.emit(
            Compaction(
                scope=loop.scope,
                reason=reason,
                summary=summary.text,
                replaced=split - 1,
                kept=len(compacted) - 1,
                tokens_before=before,
                tokens_after=self.estimate(history),
                window=self.window,
                fallback=bool(summary.error),
                error=summary.error,
                model=summary.model,
                usage=summary.usage,
                usd=round(summary.usd, 6),
            )
        )
        return True

    def cut_largest(self, loop: ManagedLoop, target: int) -> bool:
        """Cut the largest texts and images of the view, largest first, until the estimate fits
        `target` tokens; each cut keeps at least a small share of the window. False if none was cut."""
        floor = int(self.window * settings.CONTEXT_CUT_KEEP_SHARE)
        cut = False
        while (excess := self.estimate(loop.messages) - target) > 0:
            view, _ = self._view(loop.messages)
            sizes = [
                (self.tokens.block(seen), block, seen)
                for block, seen in user_blocks(loop.messages, view)
                if block not in self.cuts
            ]
            tokens, block, seen = max(sizes, key=lambda size: size[0], default=(0, None, None))
            if block is None or tokens <= floor:
                break
            keep = max(tokens - int(excess / self.ratio), floor)
            keep_chars = len(seen.text) * keep // tokens if isinstance(seen, TextBlock) else 0
            replacement, saved = self.cuts.cut(block, keep_chars, loop.log)
            self._memo = (None, 0, [], 0)
            cut = True
            loop.log.emit(
                ContextCut(
                    scope=loop.scope,
                    block=block.type,
                    tokens_before=tokens,
                    tokens_after=self.tokens.block(replacement),
                    saved=str(saved),
                    target=target,
                )
            )
        return cut


def build_context_manager(
    context: ModelSource,
    model_name: str,
    processors: Sequence[Processor] | None = None,
    enabled: bool = True,
    *,
    plan: PlanSource | None = None,
    notes: Sequence[Injection] = (),
    window: int | None = None,
) -> ContextPipeline:
    """The context pipeline of one loop of a run, for any role.

    `processors` shape each request's view (by default output caps and chunked image stripping);
    `model_name` picks the context window from the catalog (unless `window` is given); the run's
    compactor role summarizes old turns, carrying `plan` into every summary; `notes` (the plan, a
    step count) end each request after the stall note. With `enabled` False (the no-sustain
    variant) only tool-output caps and the notes remain.
    """
    window = window or lookup(model_name).context_window
    if not enabled:
        return ContextPipeline(
            window=window, compactor=None, processors=[CapOutputs()], notes=notes, cut_blocks=False
        )
    tokens = counter()
    return ContextPipeline(
        window=window,
        compactor=Compactor(lambda: context.provider("compactor"), tokens),
        processors=processors,
        plan=plan,
        notes=notes,
        stall=StallDetector(),
        tokens=tokens,
    )


__all__ = ["ContextPipeline", "ModelSource", "PlanSource", "build_context_manager", "default_processors"]
