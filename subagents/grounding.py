"""Coordinate conventions of grounding models: which image's space a GUI model's points are in.

    pixels        pixels of the screenshot we send (the default)
    relative1000  0-1000 relative to the screenshot's width and height (UI-TARS 1.0, Qwen2-VL)
    resized       pixels of the model's own resized copy of the screenshot (Qwen2.5-VL, UI-TARS-1.5
                  resize to multiples of 28 within a pixel budget: `smart_resize`)

With `native_size` the screenshot is sent already resized, so `resized` points are its pixels.
"""

from __future__ import annotations

import math

from stateact.subagents import settings as settings
from stateact.subagents.scaler import Scaler, model_size
from stateact.subagents.screen_settings import ScreenSettings

RELATIVE_SPAN = 1000
"""The span of `relative1000` coordinates."""


def smart_resize(
    width: int,
    height: int,
    min_pixels: int = settings.GROUNDING_MIN_PIXELS,
    max_pixels: int = settings.GROUNDING_MAX_PIXELS,
    factor: int = settings.GROUNDING_PATCH,
) -> tuple[int, int]:
    """The size Qwen2.5-VL's processor resizes an image to: each side a multiple of `factor`, as close
    to the original as the pixel budget allows, keeping the aspect ratio."""
    w_bar = max(factor, round(width / factor) * factor)
    h_bar = max(factor, round(height / factor) * factor)
    if w_bar * h_bar > max_pixels:
        beta = math.sqrt(width * height / max_pixels)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
    elif w_bar * h_bar < min_pixels:
        beta = math.sqrt(min_pixels / (width * height))
        w_bar = math.ceil(width * beta / factor) * factor
        h_bar = math.ceil(height * beta / factor) * factor
    return w_bar, h_bar


def scaler_for(screen: tuple[int, int], options: ScreenSettings) -> Scaler:
    """How a GUI role's model sees the screen: the size of the image sent and its coordinate space."""
    sent = model_size(screen, options.screenshot_max_edge)
    if options.coordinates == "relative1000":
        return Scaler(screen, sent, (RELATIVE_SPAN, RELATIVE_SPAN))
    if options.coordinates == "resized":
        resized = smart_resize(*sent, options.min_pixels, options.max_pixels)
        return Scaler(screen, resized) if options.native_size else Scaler(screen, sent, resized)
    return Scaler(screen, sent)


def coordinate_note(scaler: Scaler, options: ScreenSettings) -> str:
    """What the model is told about the screenshot and its coordinates."""
    width, height = scaler.model
    if options.coordinates == "relative1000":
        return (
            f"Screenshot size: {width}x{height} pixels. Coordinates are relative, from 0 to {RELATIVE_SPAN}: "
            f"x = 0 is the left edge and {RELATIVE_SPAN} the right edge, y = 0 the top and {RELATIVE_SPAN} "
            "the bottom."
        )
    space_w, space_h = scaler.coordinate_space
    return (
        f"Screenshot size: {space_w}x{space_h} pixels. Coordinates are pixels of this image: "
        f"x from 0 (left) to {space_w - 1}, y from 0 (top) to {space_h - 1}."
    )
