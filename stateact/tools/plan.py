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
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from stateact.loop import Injection
from stateact.runtime import RunContext
from stateact.tools.base import Tool, ToolResult
from stateact.tools.prompts import load_prompt

PLAN_FILE = "plan.json"
PlanStatus = Literal["pending", "in_progress", "done", "blocked"]
STATUS_MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]", "blocked": "[!]"}


class PlanError(ValueError):
    """A change the plan cannot make (such as an unknown id)."""


class PlanItem(BaseModel):
    id: int
    title: str
    status: PlanStatus = "pending"
    note: str = ""

    def render(self) -> str:
        mark = STATUS_MARKS.get(self.status, f"[{self.status}]")
        return f"{mark} {self.id}. {self.title}" + (f" — {self.note}" if self.note else "")


class NewItem(BaseModel):
    title: str = Field(min_length=1, description="What to do, briefly.")
    status: PlanStatus = "pending"
    note: str = ""


class ItemUpdate(BaseModel):
    id: int = Field(description="The id of the item to change.")
    status: PlanStatus | None = None
    note: str | None = Field(default=None, description="Replaces the item's note.")


class Plan:
    """An ordered checklist; with a `path` it is saved (atomically) after every change."""

    def __init__(self, path: Path | None = None, items: Iterable[PlanItem] = ()) -> None:
        self.path = Path(path) if path is not None else None
        self.items: list[PlanItem] = list(items)

    @classmethod
    def load(cls, path: Path) -> Plan:
        """The plan saved at `path`, or an empty plan saved there from now on."""
        path = Path(path)
        if not path.exists():
            return cls(path)
        payload = json.loads(path.read_text(encoding="utf-8"))
        return cls(path, (PlanItem.model_validate(item) for item in payload.get("items", [])))

    @classmethod
    def for_run(cls, run_dir: Path) -> Plan:
        """The plan of a run folder (reloaded when the run resumes)."""
        return cls.load(Path(run_dir) / PLAN_FILE)

    # -- changes ---------------------------------------------------------------
    def set(self, items: Iterable[NewItem]) -> None:
        """Replace every item; ids restart at 1."""
        self.items = []
        self.add(items)

    def add(self, items: Iterable[NewItem]) -> list[PlanItem]:
        next_id = max((item.id for item in self.items), default=0) + 1
        added = [PlanItem(id=next_id + i, **item.model_dump()) for i, item in enumerate(items)]
        self.items.extend(added)
        self.save()
        return added

    def update(self, updates: Iterable[ItemUpdate]) -> None:
        """Apply every update, or none of them when an id is unknown."""
        updates = list(updates)
        unknown = [u.id for u in updates if self.get(u.id) is None]
        if unknown:
            known = ", ".join(str(item.id) for item in self.items) or "none: the plan is empty"
            raise PlanError(f"No plan item with id {', '.join(map(str, unknown))} (ids: {known}).")
        for update in updates:
            item = self.get(update.id)
            changes = update.model_dump(exclude={"id"}, exclude_none=True)
            self.items[self.items.index(item)] = item.model_copy(update=changes)
        self.save()

    def get(self, item_id: int) -> PlanItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    # -- output ------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"items": [item.model_dump() for item in self.items]}

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)

    def render(self) -> str:
        """A compact checklist, one item a line, under a progress count."""
        if not self.items:
            return "(the plan is empty)"
        done = sum(item.status == "done" for item in self.items)
        return "\n".join([f"Plan ({done}/{len(self.items)} done):", *(i.render() for i in self.items)])


def plan_injection(plan: Plan) -> Injection:
    """A loop injection showing the plan as a `<plan>` block; nothing while the plan is empty."""

    def inject() -> str | None:
        return f"<plan>\n{plan.render()}\n</plan>" if plan.items else None

    return inject


class PlanInput(BaseModel):
    action: Literal["set", "add", "update"] = Field(
        description="set: replace the plan with `items`; add: append `items`; update: apply `updates`."
    )
    items: list[NewItem] | None = Field(default=None, description="set/add: the items, in order.")
    updates: list[ItemUpdate] | None = Field(default=None, description="update: changes by item id.")

    @field_validator("items", mode="before")
    @classmethod
    def _titles_as_items(cls, value: object) -> object:
        """Accept plain strings as item titles."""
        if isinstance(value, list):
            return [{"title": v} if isinstance(v, str) else v for v in value]
        return value


class PlanTool(Tool[PlanInput]):
    """Changes the run's plan and logs each new version as a `plan` event."""

    name = "plan"
    description = load_prompt("plan")
    Input = PlanInput

    def __init__(self, context: RunContext, plan: Plan) -> None:
        self.context = context
        self.plan = plan

    def run(self, params: PlanInput) -> ToolResult:
        try:
            if params.action == "update":
                if not params.updates:
                    raise PlanError("`update` needs `updates`: a list of {id, status, note}.")
                self.plan.update(params.updates)
            else:
                if not params.items:
                    raise PlanError(f"`{params.action}` needs `items`: a list of {{title, status, note}}.")
                (self.plan.set if params.action == "set" else self.plan.add)(params.items)
        except PlanError as exc:
            return ToolResult.error(f"{exc}\n{self.plan.render()}")
        self.context.log.emit("plan", "main", action=params.action, **self.plan.to_json())
        return ToolResult(text=self.plan.render())
