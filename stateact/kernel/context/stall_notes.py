"""Stall and loop detection over an agent's steps.

A step is one assistant turn's tool calls with their results. Two signs of a
stall: the same calls with the same outputs `repeats` times in a row, or
`idle_steps` steps in a row without a new successful result. While stalled the
detector, used as a loop injection, returns a runtime note for the agent; each
new stall is logged once as a `stall` event.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from stateact.kernel import settings
from stateact.kernel.messages import Message

NOTE_REPEAT = (
    "[runtime note] Your last {count} steps made the same tool calls and got the same output. "
    "Repeating them will not change the result: read the output again, check your assumptions, "
    "and try a different approach."
)
NOTE_IDLE = (
    "[runtime note] Your last {count} steps produced no new successful result. Step back: say what "
    "blocks you, check the state directly, and change your approach or your plan."
)


def _digest(payload: object) -> str:
    return hashlib.sha1(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


class StallDetector:
    """Watches the newest step of a history; call it (as an injection) for the current note.

    `on_stall(sign, note)` is called when a stall starts; sign is `repeat` or `idle`.
    """

    def __init__(
        self,
        repeats: int = settings.CONTEXT_STALL_REPEATS,
        idle_steps: int = settings.CONTEXT_STALL_IDLE_STEPS,
        on_stall: Callable[[str, str], object] | None = None,
    ) -> None:
        self.repeats = repeats
        self.idle_steps = idle_steps
        self.on_stall = on_stall
        self._last_seen: Message | None = None
        self._last_step = ""
        self._same_in_row = 0
        self._idle_in_row = 0
        self._seen_results: set[str] = set()
        self._note: str | None = None

    def observe(self, messages: list[Message]) -> None:
        """Account for the newest step if `messages` ends with one not seen yet."""
        if len(messages) < 2 or messages[-1] is self._last_seen:
            return
        self._last_seen = messages[-1]
        calls, results = messages[-2].tool_uses(), messages[-1].tool_results()
        if messages[-2].role != "assistant" or not calls or not results:
            return
        outputs = {r.tool_use_id: (r.is_error, r.text(), len(r.content)) for r in results}
        pairs = [(c.name, c.input, c.raw_arguments, outputs.get(c.id)) for c in calls]
        step = _digest(pairs)
        self._same_in_row = self._same_in_row + 1 if step == self._last_step else 1
        self._last_step = step
        fresh = {_digest(p) for p in pairs if p[3] is not None and not p[3][0]} - self._seen_results
        self._seen_results |= fresh
        self._idle_in_row = 0 if fresh else self._idle_in_row + 1
        self._update_note()

    def _update_note(self) -> None:
        previous = self._note
        if self._same_in_row >= self.repeats:
            self._note = NOTE_REPEAT.format(count=self._same_in_row)
            sign = "repeat"
        elif self._idle_in_row >= self.idle_steps:
            self._note = NOTE_IDLE.format(count=self._idle_in_row)
            sign = "idle"
        else:
            self._note = None
            return
        if previous is None and self.on_stall is not None:
            self.on_stall(sign, self._note)

    def __call__(self) -> str | None:
        """The runtime note while the agent is stalled, else None."""
        return self._note


__all__ = ["StallDetector"]
