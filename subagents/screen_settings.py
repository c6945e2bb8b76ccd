"""The settings of a role whose model sees the screen (the GUI subagent; the pixel harness's main agent):
the kernel's RoleSettings plus what a GUI model sees and how it acts. Registered with those roles
(`subagents/roles.py`), so their settings tables, flags and run configs take these fields.

    [gui]                      # a TOML file given with --roles FILE
    coordinates = "resized"    # pixels | relative1000 | resized
    action_format = "uitars"   # tools | uitars | qwen_computer_use
    tools_in_prompt = false    # qwen_computer_use: schemas in the system message
"""

from __future__ import annotations

from typing import Literal

from pydantic import PositiveInt, model_validator

from stateact.kernel.models.role_settings import RoleSettings
from stateact.subagents import settings

Coordinates = Literal["pixels", "relative1000", "resized"]
"""How a GUI model states a point: pixels of the screenshot we send; 0-1000 relative to its width and
height (UI-TARS 1.0, Qwen2-VL); pixels of the model's own resized image (Qwen2.5-VL, UI-TARS-1.5)."""
ActionFormat = Literal["tools", "uitars", "qwen_computer_use"]
"""How a GUI model acts: our `computer` function tool; UI-TARS' text `Action: click(start_box=...)`;
Qwen2.5-VL's `computer_use` function tool (`subagents/action_formats/`)."""


class ScreenSettings(RoleSettings):
    """A screen-seeing role's model settings: the kernel's, and what its model sees and how it acts."""

    keep_screenshots: PositiveInt | None = None
    """The most screenshots one request carries, whatever the batching (a server's
    `--limit-mm-per-prompt` or below); older ones leave in chunks that fit under it."""
    batch_screenshots: Literal["last", "every"] = "last"
    """Acting with `computer` calls: which calls of a batch (the calls of one reply) answer with a
    screenshot: the last one only (the others with text), or every one."""
    screenshot_max_edge: PositiveInt | None = None
    """Longest edge of a screenshot sent (instead of the standard sizes)."""
    coordinates: Coordinates = "pixels"
    native_size: bool = False
    """With `resized` coordinates: send the screenshot already at the model's resized size, so its
    pixels and the model's coordinates are the same."""
    min_pixels: PositiveInt = settings.GROUNDING_MIN_PIXELS
    """`resized` coordinates: the model's image pixel budget, lower bound."""
    max_pixels: PositiveInt = settings.GROUNDING_MAX_PIXELS
    """`resized` coordinates: the model's image pixel budget, upper bound."""
    action_format: ActionFormat = "tools"
    """The model's native action format."""
    tools_in_prompt: bool = False
    """In `qwen_computer_use`: the function schemas and the `<tool_call>` output format written into the
    system message, and past calls and results sent as text, as Qwen's computer-use cookbook does
    (Qwen2.5-VL's chat template renders neither the request's `tools` nor an assistant's `tool_calls`)."""

    @model_validator(mode="after")
    def _tools_in_prompt_is_qwens(self) -> ScreenSettings:
        if self.tools_in_prompt and self.action_format != "qwen_computer_use":
            raise ValueError(
                f'tools_in_prompt is for action_format = "qwen_computer_use", not {self.action_format!r}'
            )
        return self

    @classmethod
    def of(cls, options: RoleSettings) -> ScreenSettings:
        """`options` as screen settings (a role registered without them: the defaults of these fields)."""
        return (
            options
            if isinstance(options, cls)
            else cls.model_validate(options.model_dump(exclude_unset=True))
        )
