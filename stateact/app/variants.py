"""Harness variants: the full code-first harness, its ablations, and the pixel baseline, as data."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from stateact.kernel import settings
from stateact.kernel.roles import Role

GATE_ROLE = "gate"
FULL_HARNESS = "stateact"
"""The variant with every part on: a run's default, and the one reference solutions are validated through."""


@dataclass(frozen=True)
class HarnessVariant:
    name: str
    description: str
    bash: bool = True
    editor: bool = True
    plan: bool = True
    subagents: bool = True
    """Whether the main agent may delegate: to every registered subagent role but those `without`."""
    without: tuple[str, ...] = ()
    """Subagent roles whose delegate tool this variant leaves out."""
    gate: bool = True
    context_management: bool = True
    pixel: bool = False
    """The screenshot-driven GUI loop is the top-level agent."""
    default_max_turns: int = settings.MAIN_MAX_TURNS
    """The top-level agent's turn budget when the run does not set one."""

    @property
    def plays_reference_scripts(self) -> bool:
        """Whether the reference solutions (scripts of the code-first agent's bash and editor calls)
        can run here: not under the pixel agent nor without the editor."""
        return self.bash and self.editor and not self.pixel

    def delegates_to(self, role: str) -> bool:
        """Whether the main agent gets the delegate tool of subagent `role`."""
        return self.subagents and role not in self.without

    def has_part(self, role: Role) -> bool:
        """Whether a run of this variant has `role`'s part: a subagent's when the main agent may delegate
        to it, the finish gate's when the gate is on, any other's always."""
        if role.delegate is not None:
            return self.delegates_to(role.name)
        return self.gate or role.name != GATE_ROLE


VARIANTS: dict[str, HarnessVariant] = {
    v.name: v
    for v in (
        HarnessVariant(
            FULL_HARNESS, "code-first main agent with GUI and web subagents, plan, gate, compaction"
        ),
        HarnessVariant("no-act", "without the GUI subagent", without=("gui",)),
        HarnessVariant("no-verify", "without the finish gate", gate=False),
        HarnessVariant(
            "no-sustain", "without the plan and context management", plan=False, context_management=False
        ),
        HarnessVariant(
            "bash-only",
            "bash, ask_user and finish only",
            editor=False,
            plan=False,
            subagents=False,
            gate=False,
        ),
        HarnessVariant(
            "pixel",
            "screenshot-driven agent on the whole task",
            bash=False,
            editor=False,
            plan=False,
            subagents=False,
            gate=False,
            pixel=True,
        ),
    )
}


def default_turns_text() -> str:
    """The variants' default turn budgets in words: the common one, then any other by variant."""
    common = Counter(v.default_max_turns for v in VARIANTS.values()).most_common(1)[0][0]
    others = [
        f"{v.default_max_turns} for the {v.name} harness"
        for v in VARIANTS.values()
        if v.default_max_turns != common
    ]
    return "; ".join([str(common), *others])


def get_variant(name: str) -> HarnessVariant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown harness {name!r}; choose from {', '.join(VARIANTS)}") from None
