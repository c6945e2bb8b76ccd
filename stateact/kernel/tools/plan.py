"""The plan checklist: kept outside the message history, saved as `plan.json`, shown every turn.

`Plan` holds the items and saves itself after each change; `PlanTool` lets the
model change it; `plan_injection` renders it at the end of every request so
the cached prefix of the conversation stays stable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, Field, field_validator

from stateact.kernel import settings
from stateact.kernel.context.manager import Injection
from stateact.kernel.events import PlanEvent, PlanReverted
from stateact.kernel.evidence import Evidence, EvidenceChecker
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.kernel.tools.prompts import load_prompt

PLAN_FILE = "plan.json"
ValueT = TypeVar("ValueT")
PlanStatus = Literal["pending", "in_progress", "done", "blocked"]
STATUS_MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]", "blocked": "[!]"}


class PlanError(ValueError):
    """A change the plan cannot make (such as an unknown id)."""


class PlanItem(BaseModel):
    id: int
    title: str
    status: PlanStatus = "pending"
    note: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    verified_by: Literal["", "probe", "gate"] = ""
    """Who confirmed a done item: a passing evidence check or a passing finish gate; '' = only claimed."""

    @property
    def claimed(self) -> bool:
        return self.status == "done" and not self.verified_by

    def render(self) -> str:
        mark = STATUS_MARKS.get(self.status, f"[{self.status}]")
        state = ""
        if self.status == "done":
            state = f" (verified by {self.verified_by})" if self.verified_by else " (claimed, unverified)"
        return f"{mark} {self.id}. {self.title}{state}" + (f" — {self.note}" if self.note else "")


class NewItem(BaseModel):
    title: str = Field(min_length=1, description="What to do, briefly.")
    status: PlanStatus = "pending"
    note: str = ""


class ItemUpdate(BaseModel):
    id: int = Field(description="The id of the item to change.")
    status: PlanStatus | None = None
    note: str | None = Field(default=None, description="Replaces the item's note.")


class Claim(BaseModel):
    id: int = Field(description="The item claimed done.")
    evidence: list[Evidence] = Field(
        default_factory=list, description="What the claim rests on; checked now and again later."
    )


class Plan:
    """An ordered checklist plus remembered facts; with a `path` it is saved (atomically) after every change."""

    def __init__(
        self, path: Path | None = None, items: Iterable[PlanItem] = (), facts: dict[str, str] | None = None
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.items: list[PlanItem] = list(items)
        self.facts: dict[str, str] = dict(facts or {})

    @classmethod
    def load(cls, path: Path) -> Plan:
        """The plan saved at `path`, or an empty plan saved there from now on; PlanError if unreadable."""
        path = Path(path)
        if not path.exists():
            return cls(path)
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            items = [PlanItem.model_validate(item) for item in payload["items"]]
            return cls(path, items, payload.get("facts", {}))
        except (ValueError, KeyError, TypeError) as exc:
            raise PlanError(f"{path} is not a saved plan: {type(exc).__name__}: {exc}") from exc

    @classmethod
    def for_run(cls, run_dir: Path) -> Plan:
        """The plan of a run folder (reloaded when the run resumes)."""
        return cls.load(Path(run_dir) / PLAN_FILE)

    # -- changes ---------------------------------------------------------------
    def set(self, items: Iterable[NewItem]) -> None:
        """Replace every item; ids restart at 1, and the first pending item is put in progress."""
        self.items = []
        self.add(items)
        if not self._in_progress():
            self._start_next_after(0)
            self.save()

    def add(self, items: Iterable[NewItem]) -> list[PlanItem]:
        next_id = max((item.id for item in self.items), default=0) + 1
        added = [PlanItem(id=next_id + i, **item.model_dump()) for i, item in enumerate(items)]
        self.items.extend(added)
        self.save()
        return added

    def update(self, updates: Iterable[ItemUpdate]) -> None:
        """Apply every update, or none of them when an id is unknown."""
        updates = list(updates)
        self._require_ids([u.id for u in updates])
        finished = []
        started = [u.id for u in updates if u.status == "in_progress"]
        for update in updates:
            item = self.item(update.id)
            changes = update.model_dump(exclude={"id"}, exclude_none=True)
            if "status" in changes:  # any status change drops an earlier verification
                changes["verified_by"] = ""
            if item.status == "in_progress" and changes.get("status") == "done":
                finished.append(item.id)
            self._replace(item, **changes)
        if started:
            self._focus(started[-1])
        self._move_on(finished)
        self.save()

    def claim(self, claims: Iterable[Claim], checker: EvidenceChecker | None) -> list[str]:
        """Mark items done with their evidence; an item is verified only if every check passes.

        Returns one line per claim saying what the checks found.
        """
        claims = list(claims)
        self._require_ids([c.id for c in claims])
        lines = []
        finished = []
        reopened = []
        for claim in claims:
            item = self.item(claim.id)
            verdict = checker.check_all(claim.evidence) if (checker and claim.evidence) else None
            verified = "probe" if verdict and verdict.ok else ""
            status = "in_progress" if verdict and not verdict.ok else "done"
            if item.status == "in_progress" and status == "done":
                finished.append(item.id)
            if status == "in_progress":
                reopened.append(item.id)
            self._replace(item, status=status, evidence=claim.evidence, verified_by=verified)
            if verdict is None:
                lines.append(f"{claim.id}: claimed without evidence; it stays unverified")
            else:
                lines.append(
                    f"{claim.id}: {'verified' if verdict.ok else 'NOT verified, reopened'}: {verdict.detail}"
                )
        if reopened:
            self._focus(reopened[0])
        self._move_on(finished)
        self.save()
        return lines

    def recheck(self, checker: EvidenceChecker) -> list[str]:
        """Re-run the evidence of probe-verified items; a failing one is undone again: pending, or in
        progress when no other item is (one item is in progress at a time)."""
        reverted = []
        for item in list(self.items):
            if item.verified_by != "probe" or not item.evidence:
                continue
            verdict = checker.check_all(item.evidence)
            if not verdict.ok:
                note = f"contradicted by a later check: {verdict.detail}"
                self._replace(item, status="pending", verified_by="", note=note)
                reverted.append(f"{item.id}: {note}")
        if reverted:
            if not self._in_progress():
                self._start_next_after(0)
            self.save()
        return reverted

    def has_probe_verified(self) -> bool:
        """Whether an item is verified by its evidence (which a re-check can run again)."""
        return any(item.verified_by == "probe" and item.evidence for item in self.items)

    def confirm_by_gate(self) -> list[int]:
        """The finish gate passed the deliverable: every claimed item becomes verified by it."""
        confirmed = [item.id for item in self.items if item.claimed]
        for item_id in confirmed:
            self._replace(self.item(item_id), verified_by="gate")
        if confirmed:
            self.save()
        return confirmed

    def remember(self, facts: dict[str, str]) -> None:
        """Keep values worth not losing (paths, URLs, ids); they are shown with the plan."""
        self.facts.update(facts)
        self.save()

    def _in_progress(self) -> bool:
        return any(item.status == "in_progress" for item in self.items)

    def _focus(self, item_id: int) -> None:
        """Keep `item_id` the one item in progress: any other in progress goes back to pending."""
        for item in list(self.items):
            if item.status == "in_progress" and item.id != item_id:
                self._replace(item, status="pending")

    def _move_on(self, finished: list[int]) -> None:
        """The item in progress was just done: when nothing else is in progress, start the next pending one."""
        if finished and not self._in_progress():
            self._start_next_after(self.items.index(self.item(finished[-1])) + 1)

    def _start_next_after(self, position: int) -> None:
        """Put the first pending item at or after `position` in progress (else the first pending one)."""
        pending = [i for i, item in enumerate(self.items) if item.status == "pending"]
        chosen = next((i for i in pending if i >= position), pending[0] if pending else None)
        if chosen is not None:
            self._replace(self.items[chosen], status="in_progress")

    def _replace(self, item: PlanItem, **changes: object) -> None:
        self.items[self.items.index(item)] = item.model_copy(update=changes)

    def _require_ids(self, ids: list[int]) -> None:
        unknown = [i for i in ids if self.get(i) is None]
        if unknown:
            known = ", ".join(str(item.id) for item in self.items) or "none: the plan is empty"
            raise PlanError(f"No plan item with id {', '.join(map(str, unknown))} (ids: {known}).")

    def get(self, item_id: int) -> PlanItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    def item(self, item_id: int) -> PlanItem:
        """The item with `item_id`; PlanError when there is none."""
        self._require_ids([item_id])
        return next(item for item in self.items if item.id == item_id)

    # -- output ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"items": [item.model_dump() for item in self.items], "facts": self.facts}

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)

    def progress(self) -> str:
        """The progress count: `Plan (1/3 done, 0 verified)`."""
        done = sum(item.status == "done" for item in self.items)
        verified = sum(bool(item.verified_by) for item in self.items)
        return f"Plan ({done}/{len(self.items)} done, {verified} verified)"

    def render(self) -> str:
        """A compact checklist, one item a line, under a progress count."""
        lines = ["(the plan is empty)"]
        if self.items:
            lines = [f"{self.progress()}:", *(i.render() for i in self.items)]
        if self.facts:
            lines += ["Known facts:", *(f"- {key}: {value}" for key, value in self.facts.items())]
        return "\n".join(lines)


def plan_injection(plan: Plan) -> Injection:
    """A loop injection showing the plan as a `<plan>` block; nothing while the plan is empty."""

    def inject() -> str | None:
        return f"<plan>\n{plan.render()}\n</plan>" if plan.items or plan.facts else None

    return inject


class PlanInput(BaseModel):
    action: Literal["set", "add", "update", "claim", "remember"] = Field(
        description="set: replace the plan with `items`; add: append `items`; update: apply `updates`; "
        "claim: mark items done with `claims` (their evidence is checked); remember: keep `facts`."
    )
    items: list[NewItem | Annotated[str, Field(min_length=1)]] | None = Field(
        default=None,
        description="set/add: the items, in order; each an item object or a plain string (its title).",
    )
    updates: list[ItemUpdate] | None = Field(default=None, description="update: changes by item id.")
    claims: list[Claim] | None = Field(default=None, description="claim: items done, with evidence.")
    facts: dict[str, str] | None = Field(
        default=None, description="remember: name -> value (paths, URLs, ids)."
    )

    @field_validator("items", mode="before")
    @classmethod
    def _titles_as_items(cls, value: object) -> object:
        """A plain string is an item with that title."""
        if isinstance(value, list):
            return [{"title": v} if isinstance(v, str) else v for v in value]
        return value


class PlanTool(Tool[PlanInput]):
    """Changes the run's plan and logs each new version as a `plan` event.

    With a `checker`, claimed items are verified by their evidence, and verified items are
    re-checked every `recheck_every` requests and at each finish-gate boundary.
    """

    name = "plan"
    description = load_prompt("plan")
    Input = PlanInput

    def __init__(
        self,
        context: RunContext,
        plan: Plan,
        checker: EvidenceChecker | None = None,
        recheck_every: int = settings.PLAN_RECHECK_EVERY,
    ) -> None:
        self.context = context
        self.plan = plan
        self.checker = checker
        self.recheck_every = recheck_every
        self._requests = 0

    def run(self, params: PlanInput) -> ToolResult:
        """Apply the change; the result confirms it with the items it changed, since the whole plan is
        injected at the end of every request (`injection`) and is not repeated here."""
        before = {item.id: item.render() for item in self.plan.items}
        lines: list[str] = []
        try:
            if params.action == "update":
                self.plan.update(
                    _required(params.updates, "`update` needs `updates`: a list of {id, status, note}.")
                )
            elif params.action == "claim":
                claims = _required(params.claims, "`claim` needs `claims`: a list of {id, evidence}.")
                lines = self.plan.claim(claims, self.checker)
            elif params.action == "remember":
                self.plan.remember(_required(params.facts, "`remember` needs `facts`: {name: value}."))
            else:
                needed = f"`{params.action}` needs `items`: a list of {{title, status, note}}."
                items = cast(list[NewItem], _required(params.items, needed))  # titles became items
                (self.plan.set if params.action == "set" else self.plan.add)(items)
        except PlanError as exc:
            return ToolResult.error(str(exc))
        self._log(params.action)
        refuted = params.action == "claim" and any(
            self.plan.item(claim.id).status == "in_progress" for claim in params.claims or []
        )
        return ToolResult(text="\n".join([*lines, *self._confirmation(params, before)]), setback=refuted)

    def _confirmation(self, params: PlanInput, before: dict[int, str]) -> list[str]:
        """The progress count and the changed items (after `set`: the item in progress)."""
        progress = self.plan.progress()
        if params.action == "remember":
            return [f"{progress}; remembered: {', '.join(params.facts or {})}"]
        if params.action == "set":
            started = [item.render() for item in self.plan.items if item.status == "in_progress"]
            return [
                f"{progress}: {len(self.plan.items)} items set" + ("; in progress:" if started else ""),
                *started,
            ]
        changed = [item.render() for item in self.plan.items if before.get(item.id) != item.render()]
        return [f"{progress}; " + ("changed:" if changed else "nothing changed"), *changed]

    def injection(self) -> str | None:
        """The loop injection: re-checks verified items now and then, then shows the plan. Verified
        items at the first request come from a resumed run's saved plan: they are re-checked at once,
        since the machine may have lost what their evidence read."""
        self._requests += 1
        if self.checker is not None:
            if self._requests == 1 and self.plan.has_probe_verified():
                self._recheck(self.checker, "resume")
            elif self._requests % self.recheck_every == 0:
                self._recheck(self.checker, "periodic")
        return plan_injection(self.plan)()

    def gate_boundary(self, passed: bool) -> None:
        """After a finish-gate verdict: re-check probe evidence; a pass confirms what is claimed."""
        if self.checker is not None:
            self._recheck(self.checker, "gate boundary")
        if passed and self.plan.confirm_by_gate():
            self._log("confirmed by gate")

    def _recheck(self, checker: EvidenceChecker, reason: str) -> None:
        reverted = self.plan.recheck(checker)
        if reverted:
            self.context.log.emit(PlanReverted(reason=reason, items=reverted))
            self._log("reverted")

    def _log(self, action: str) -> None:
        self.context.log.emit(PlanEvent(action=action, **self.plan.to_json()))


def _required(value: ValueT | None, message: str) -> ValueT:
    if not value:
        raise PlanError(message)
    return value
