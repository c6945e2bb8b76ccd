"""Image files for a model: their type sniffed from the bytes, scaled to the model's limits, encoded in a
format every provider takes (PNG, or JPEG for photos and for pictures too large as PNG).

    shown = model_image(data)          # ModelImage: bytes, media type, size sent and original size
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from stateact.kernel import settings

SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
)
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


class ImageError(ValueError):
    """Bytes that name an image format but cannot be shown as one; the message says why."""


def image_format(data: bytes) -> str | None:
    """The image format the bytes start with (PNG, JPEG, GIF, WEBP, BMP, TIFF), or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return next((name for magic, name in SIGNATURES if data.startswith(magic)), None)


def media_type(data: bytes) -> str:
    """The media type of an image's bytes (PNG when unknown: screenshots are PNG)."""
    return MEDIA_TYPES.get(image_format(data) or "PNG", "image/png")


def fit_size(
    size: tuple[int, int],
    max_edge: int = settings.MODEL_IMAGE_MAX_EDGE,
    max_pixels: int = settings.MODEL_IMAGE_MAX_PIXELS,
) -> tuple[int, int]:
    """`size` scaled down, keeping its aspect ratio, until its long edge and pixel count are within the caps."""
    width, height = size
    scale = min(1.0, max_edge / max(width, height, 1), math.sqrt(max_pixels / max(width * height, 1)))
    return max(1, int(width * scale)), max(1, int(height * scale))


@dataclass(frozen=True)
class ModelImage:
    data: bytes
    size: tuple[int, int]
    """The size sent."""
    original: tuple[int, int]
    format: str
    """The file's format (PNG, JPEG, ...)."""
    frames: int = 1

    def describe(self) -> str:
        """`PNG image, 3000x2000 pixels, shown at 1568x1045` (and which frame of an animation)."""
        text = f"{self.format} image, {self.original[0]}x{self.original[1]} pixels"
        if self.size != self.original:
            text += f", shown at {self.size[0]}x{self.size[1]}"
        if self.frames > 1:
            text += f", frame 1 of {self.frames}"
        return text


def model_image(data: bytes, max_edge: int = settings.MODEL_IMAGE_MAX_EDGE) -> ModelImage:
    """The image in `data` at most `max_edge` long and within the providers' pixel and byte caps.

    PNG and JPEG files that fit are sent as they are; a larger one is scaled down; other formats are
    converted (to PNG, or JPEG when the PNG would pass the byte cap). ImageError for bytes that are not an
    image Pillow can read, or one with more pixels than the harness decodes."""
    kind = image_format(data)
    if kind is None:
        raise ImageError("not an image file the harness knows (PNG, JPEG, GIF, WEBP, BMP, TIFF)")
    try:
        image = Image.open(io.BytesIO(data), formats=[kind])
        original = image.size
        if original[0] * original[1] > settings.EDITOR_IMAGE_MAX_SOURCE_PIXELS:
            raise ImageError(
                f"{original[0]}x{original[1]} pixels is more than the "
                f"{settings.EDITOR_IMAGE_MAX_SOURCE_PIXELS:,} the harness decodes; crop or scale it with bash first"
            )
        frames = getattr(image, "n_frames", 1)
        size = fit_size(original, max_edge)
        if kind in ("PNG", "JPEG") and size == original and len(data) <= settings.MODEL_IMAGE_MAX_BYTES:
            return ModelImage(data, size, original, kind, frames)
        if kind == "JPEG":
            image.draft("RGB", size)  # decode at a reduced scale where JPEG allows
        return ModelImage(
            encode_picture(_flattened(image).resize(size, Image.Resampling.LANCZOS), kind),
            size,
            original,
            kind,
            frames,
        )
    except ImageError:
        raise
    except UnidentifiedImageError:
        raise ImageError(
            f"it starts like a {kind} image but could not be decoded: damaged or cut short"
        ) from None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"it starts like a {kind} image but could not be decoded: {exc}") from None


def _flattened(image: Image.Image) -> Image.Image:
    """The first frame as RGB, or RGBA when it has transparency."""
    image.seek(0)
    transparent = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    return image.convert("RGBA" if transparent else "RGB")


def encode_picture(image: Image.Image, kind: str) -> bytes:
    """A photo as JPEG; anything else as PNG, or as JPEG when the PNG passes the byte cap."""
    if kind != "JPEG":
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=False)
        if buffer.tell() <= settings.MODEL_IMAGE_MAX_BYTES:
            return buffer.getvalue()
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=settings.EDITOR_JPEG_QUALITY)
    return buffer.getvalue()
