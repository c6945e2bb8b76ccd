"""Screenshots scaled to a model-friendly size, and coordinates mapped back.

The model works in the scaled screenshot's pixel space; `Scaler` maps its
coordinates back to the real screen and rejects those outside the image.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from stateact.kernel import settings as model_limits
from stateact.kernel.images import fit_size
from stateact.subagents import settings


class CoordinateError(ValueError):
    """A coordinate outside the screenshot the model was shown."""


def model_size(screen: tuple[int, int], max_edge: int | None = None) -> tuple[int, int]:
    """The size a screenshot of `screen` is shown at.

    A screen larger than a standard size of the same aspect ratio (XGA, WXGA,
    FWXGA) is shown at that size; any other screen is scaled down, keeping its
    aspect ratio, until its long edge and pixel count are within the caps.
    With `max_edge` (a role's setting) only that long-edge cap applies.
    """
    width, height = screen
    if max_edge is not None:
        scale = min(1.0, max_edge / max(width, height))
        return max(1, int(width * scale)), max(1, int(height * scale))
    for target_w, target_h in settings.SCREEN_TARGETS:
        same_shape = abs(width / height - target_w / target_h) <= settings.SCREEN_ASPECT_TOLERANCE
        if same_shape and width >= target_w:
            return target_w, target_h
    return fit_size(screen)


def image_tokens(size: tuple[int, int]) -> int:
    """Approximate prompt tokens of an image (the width·height/750 rule)."""
    return math.ceil(size[0] * size[1] / model_limits.TOKENS_IMAGE_PIXELS_PER_TOKEN)


def encode_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=settings.SCREENSHOT_COMPRESS_LEVEL)
    return buffer.getvalue()


@dataclass(frozen=True)
class Scaler:
    """Maps between screen pixels and the model's coordinates.

    `model` is the size of the screenshot sent; `space` the model's coordinate space when it is not
    that screenshot's pixels (`subagents.grounding`: 0-1000 relative, or the model's resized image).
    """

    screen: tuple[int, int]
    model: tuple[int, int]
    space: tuple[int, int] | None = None

    @property
    def coordinate_space(self) -> tuple[int, int]:
        return self.space or self.model

    @classmethod
    def for_screen(cls, screen: tuple[int, int]) -> Scaler:
        return cls(screen, model_size(screen))

    @property
    def identity(self) -> bool:
        return self.screen == self.model

    def to_screen(self, x: float, y: float) -> tuple[int, int]:
        """A point of the model's coordinate space on the screen; CoordinateError outside the screenshot."""
        width, height = self.coordinate_space
        if not (0 <= x < width and 0 <= y < height):
            raise CoordinateError(
                f"coordinate ({x:g}, {y:g}) is outside the screenshot, which is {width}x{height} "
                f"(x from 0 to {width - 1}, y from 0 to {height - 1})"
            )
        return self._map(x, y, self.coordinate_space, self.screen)

    def to_model(self, x: float, y: float) -> tuple[int, int]:
        """A screen point in the model's coordinate space."""
        return self._map(x, y, self.screen, self.coordinate_space)

    @staticmethod
    def _map(x: float, y: float, source: tuple[int, int], target: tuple[int, int]) -> tuple[int, int]:
        """Pixel centre to pixel centre, so mapping a model point to the screen and back is exact."""
        out_x = int((math.floor(x) + 0.5) * target[0] / source[0])
        out_y = int((math.floor(y) + 0.5) * target[1] / source[1])
        return min(out_x, target[0] - 1), min(out_y, target[1] - 1)

    def scale_png(self, png: bytes) -> bytes:
        """A screen-sized PNG at the model's size (unchanged when no scaling is needed)."""
        if self.identity:
            return png
        image = Image.open(io.BytesIO(png)).convert("RGB")
        return encode_png(image.resize(self.model, Image.Resampling.LANCZOS))

    def zoom_png(self, png: bytes, region: Sequence[float]) -> tuple[bytes, tuple[int, int]]:
        """The screen region under a model-space box, at full detail, enlarged to fit the model's size."""
        x0, y0, x1, y1 = region
        if x1 - x0 < settings.ZOOM_MIN_REGION or y1 - y0 < settings.ZOOM_MIN_REGION:
            raise CoordinateError(
                f"zoom region must be at least {settings.ZOOM_MIN_REGION} pixels wide and high, "
                "given as [x0, y0, x1, y1] with x0 < x1 and y0 < y1"
            )
        width, height = self.coordinate_space
        if x1 <= width and y1 <= height:  # an end at the screenshot's edge ([0, 0, width, height]) is inside
            x1, y1 = min(x1, width - 1), min(y1, height - 1)
        left, top = self.to_screen(x0, y0)
        right, bottom = self.to_screen(x1, y1)
        crop = Image.open(io.BytesIO(png)).convert("RGB").crop((left, top, right + 1, bottom + 1))
        factor = min(self.model[0] / crop.width, self.model[1] / crop.height)
        size = (max(1, int(crop.width * factor)), max(1, int(crop.height * factor)))
        return encode_png(crop.resize(size, Image.Resampling.LANCZOS)), size
