"""Spend accounting shared by every loop of a run: tokens, dollars and turns per scope."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from stateact.kernel.messages import Usage
from stateact.kernel.models.catalog import cost_usd


@dataclass
class ScopeSpend:
    usage: Usage = field(default_factory=Usage)
    usd: float = 0.0
    turns: int = 0


class Meter:
    """Totals by role (main, gui, web, gate, compactor); budgets read the run-wide total."""

    def __init__(self) -> None:
        self.by_role: dict[str, ScopeSpend] = {}
        self._lock = threading.Lock()

    def record(self, role: str, model_name: str, usage: Usage) -> float:
        """Add one model call; returns its cost in dollars."""
        usd = cost_usd(model_name, usage)
        self.add(role, usage, usd)
        return usd

    def add(self, role: str, usage: Usage, usd: float) -> None:
        """Add one model call whose cost is known."""
        with self._lock:
            spend = self.by_role.setdefault(role, ScopeSpend())
            spend.usage = spend.usage + usage
            spend.usd += usd
            spend.turns += 1

    def _spends(self) -> dict[str, ScopeSpend]:
        """A snapshot of the totals (other loops may record from their own threads meanwhile)."""
        with self._lock:
            return {role: replace(spend) for role, spend in self.by_role.items()}

    @property
    def total_usd(self) -> float:
        return sum(s.usd for s in self._spends().values())

    def summary(self) -> dict[str, Any]:
        spends = self._spends()
        return {
            "total_usd": round(sum(s.usd for s in spends.values()), 6),
            "usage": _sum_usage(spends.values()).model_dump(),
            "by_role": {
                role: {"usd": round(s.usd, 6), "turns": s.turns, "usage": s.usage.model_dump()}
                for role, s in spends.items()
            },
        }


def _sum_usage(spends: Iterable[ScopeSpend]) -> Usage:
    total = Usage()
    for spend in spends:
        total = total + spend.usage
    return total
