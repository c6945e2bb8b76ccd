"""What a vision model sees of the screen: a sandbox's screenshots at the model's size, and how its
coordinates read."""

from __future__ import annotations

from stateact.sandbox.base import Sandbox
from stateact.subagents.grounding import coordinate_note, scaler_for
from stateact.subagents.scaler import Scaler
from stateact.subagents.screen_settings import ScreenSettings


class Screen:
    """A sandbox's screen as the model sees it (`options`: the GUI role's size and coordinate settings)."""

    def __init__(
        self, sandbox: Sandbox, scaler: Scaler | None = None, options: ScreenSettings | None = None
    ) -> None:
        self.sandbox = sandbox
        self.options = options or ScreenSettings()
        self._scaler = scaler
        """Worked out from the sandbox's screen size on first use unless given."""

    @property
    def scaler(self) -> Scaler:
        if self._scaler is None:
            self._scaler = scaler_for(self.sandbox.screen_size(), self.options)
        return self._scaler

    def capture(self) -> bytes:
        """A screenshot at the model's size."""
        return self.scaler.scale_png(self.sandbox.screenshot())

    def describe(self) -> str:
        return coordinate_note(self.scaler, self.options)
