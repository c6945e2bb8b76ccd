"""Image metrics of OSWorld's GIMP and VLC tasks, on Pillow and numpy.

SSIM is scikit-image's `structural_similarity` with its defaults: a 7x7 uniform window with mirrored
edges, sample covariance, K1 = 0.01, K2 = 0.03, the data range of 8-bit images (255), the mean over the
window-cropped map, averaged over colour channels.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from PIL import Image, ImageChops, ImageStat

from stateact.evals.osworld.metrics.rules import MetricError

SSIM_WINDOW = 7


def _box_mean(values: np.ndarray, size: int) -> np.ndarray:
    """The mean over a `size`-wide window along every axis, edges mirrored (d c b a | a b c d)."""
    pad = size // 2
    for axis in range(values.ndim):
        widths = [(0, 0)] * values.ndim
        widths[axis] = (pad, pad)
        padded = np.pad(values, widths, mode="symmetric")
        values = np.lib.stride_tricks.sliding_window_view(padded, size, axis=axis).mean(axis=-1)
    return values


def _ssim_plane(first: np.ndarray, second: np.ndarray, size: int, data_range: float) -> float:
    x, y = first.astype(np.float64), second.astype(np.float64)
    covariance = size**2 / (size**2 - 1)
    mean_x, mean_y = _box_mean(x, size), _box_mean(y, size)
    var_x = covariance * (_box_mean(x * x, size) - mean_x * mean_x)
    var_y = covariance * (_box_mean(y * y, size) - mean_y * mean_y)
    cov_xy = covariance * (_box_mean(x * y, size) - mean_x * mean_y)
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    index = ((2 * mean_x * mean_y + c1) * (2 * cov_xy + c2)) / (
        (mean_x**2 + mean_y**2 + c1) * (var_x + var_y + c2)
    )
    pad = (size - 1) // 2
    return float(index[pad : index.shape[0] - pad, pad : index.shape[1] - pad].mean(dtype=np.float64))


def ssim(first: np.ndarray, second: np.ndarray, size: int = SSIM_WINDOW) -> float:
    """The mean structural similarity of two 8-bit arrays of one shape (H x W, or H x W x channels)."""
    if first.shape != second.shape:
        raise ValueError(f"SSIM needs arrays of one shape, not {first.shape} and {second.shape}")
    if min(first.shape[:2]) < size:
        raise ValueError(f"SSIM needs images at least {size} pixels wide and high, not {first.shape[:2]}")
    if first.ndim == 2:
        return _ssim_plane(first, second, size, 255.0)
    planes = [_ssim_plane(first[..., c], second[..., c], size, 255.0) for c in range(first.shape[2])]
    return float(np.mean(planes))


def similar_by_ssim(first: Image.Image, second: Image.Image, threshold: float = 0.9) -> bool:
    """Whether two images, as RGB, have one size and an SSIM of at least `threshold`."""
    if min(first.size + second.size) < SSIM_WINDOW:
        return False
    first, second = first.convert("RGB"), second.convert("RGB")
    if first.size != second.size:
        return False
    return ssim(np.array(first), np.array(second)) >= threshold


def similar_by_mse(first: Image.Image, second: Image.Image, threshold: float = 0.03) -> bool:
    """Whether the mean squared difference of the RGB values (0..1) is under `threshold`; the first
    image is resized (Lanczos) to the second's size."""
    if first.size != second.size:
        first = first.resize(second.size, Image.Resampling.LANCZOS)
    a = np.array(first.convert("RGB"), dtype=np.float32) / 255
    b = np.array(second.convert("RGB"), dtype=np.float32) / 255
    return float(np.mean((a - b) ** 2)) < threshold


def brightness(image: Image.Image) -> float:
    return ImageStat.Stat(image.convert("L")).mean[0]


def _with_brightness(image: Image.Image, target: float) -> Image.Image:
    factor = target / brightness(image)
    return image.point(lambda value: min(255, max(0, int(value * factor))))


def compare_images(result: str | None, expected: str | None, **options: Any) -> float:
    """SSIM of the two pictures in grey, both resized (Lanczos) to the smaller size (as size tuples
    compare); with `reference_base_result`, the gain over that base, 0 under base + 0.01."""
    if not result or not expected:
        return 0.0
    first, second = Image.open(result).convert("L"), Image.open(expected).convert("L")
    size = min(first.size, second.size)
    first = first.resize(size, Image.Resampling.LANCZOS)
    second = second.resize(size, Image.Resampling.LANCZOS)
    score = ssim(np.array(first), np.array(second))
    base = options.get("reference_base_result")
    if base is None:
        return score
    return (score - base) / (1 - base) if score >= base + 0.01 else 0.0


def compare_image_list(
    result: str | list[str | None] | None, expected: str | list[str | None] | None
) -> float:
    """1 when every pair is pixel-identical once the result has the expected's size (Lanczos) and mode."""
    if not isinstance(result, list):
        result, expected = [result], [expected]
    for mine, gold in zip(result, expected, strict=False):
        if not mine or not gold:
            return 0.0
        first, second = Image.open(mine), Image.open(gold)
        if first.size != second.size:
            first = first.resize(second.size, Image.Resampling.LANCZOS)
        if first.mode != second.mode:
            first = first.convert(second.mode)
        if ImageChops.difference(first, second).getbbox():
            return 0.0
    return 1.0


def check_structure_sim(result: str | None, expected: str | None) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        first, second = Image.open(result), Image.open(expected)
        return float(first.size == second.size and similar_by_ssim(first, second))
    except Exception:  # OSWorld scores an unreadable picture 0
        return 0.0


def check_structure_sim_resized(result: str | None, expected: str | None) -> float:
    """The result's opaque part (all of it when it has no transparency), resized to the expected's
    size, is structurally similar to it."""
    if result is None or expected is None:
        return 0.0
    first, second = Image.open(result), Image.open(expected)
    if first.mode in ("RGBA", "LA") or "transparency" in first.info:
        first = first.convert("RGBA")
        box = first.split()[-1].getbbox()
        if box is None:
            return 0.0
        first = first.crop(box).convert("RGB")
    return float(similar_by_ssim(first.resize(second.size), second.convert("RGB")))


def check_brightness_decrease_and_structure_sim(
    result: str | None, expected: str | None, threshold: float = 0.03
) -> float:
    """The result is darker than the expected and, both brought to mean brightness 128, close by MSE."""
    if result is None or expected is None:
        return 0.0
    first, second = Image.open(result), Image.open(expected)
    darker = brightness(second) > brightness(first)
    same = similar_by_mse(_with_brightness(first, 128), _with_brightness(second, 128), threshold)
    return float(darker and same)


def check_contrast_increase_and_structure_sim(result: str | None, expected: str | None) -> float:
    """The result's pixel values spread more (standard deviation) and its SSIM is at least 0.65."""
    if result is None or expected is None:
        return 0.0
    first, second = Image.open(result), Image.open(expected)
    higher = np.std(np.asarray(second, dtype=np.float32)) < np.std(np.asarray(first, dtype=np.float32))
    return float(higher and similar_by_ssim(first, second, 0.65))


def check_saturation_increase_and_structure_sim(result: str | None, expected: str | None) -> float:
    """The result is more saturated (mean HSV saturation) with hue and value structurally similar."""
    if result is None or expected is None:
        return 0.0
    first, second = Image.open(result).convert("HSV"), Image.open(expected).convert("HSV")
    (h1, s1, v1), (h2, s2, v2) = first.split(), second.split()
    more = np.mean(np.array(s2)) < np.mean(np.array(s1))
    return float(more and similar_by_ssim(h1, h2) and similar_by_ssim(v1, v2))


def check_file_exists_and_structure_sim(result: str | None, expected: str | None) -> float:
    if result is None or expected is None or not os.path.isfile(result):
        return 0.0
    return float(similar_by_ssim(Image.open(result), Image.open(expected)))


def check_palette_and_structure_sim(result: str | None, expected: str | None) -> float:
    """The result is a palette image, structurally similar to the expected."""
    if result is None or expected is None:
        return 0.0
    try:
        first, second = Image.open(result), Image.open(expected)
        first.load()
        second.load()
        return float(first.mode == "P" and similar_by_ssim(first.convert("RGB"), second))
    except Exception:  # OSWorld scores an unreadable picture 0
        return 0.0


def check_image_mirror(result: str | None, expected: str | None) -> float:
    """The result flipped left to right has an SSIM of at least 0.99 with the expected."""
    if result is None or expected is None:
        return 0.0
    flipped = Image.open(result).transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return float(similar_by_ssim(flipped, Image.open(expected), 0.99))


def check_image_size(result: str | None, rule: dict[str, Any]) -> float:
    """The picture's width and height (those the rule names) are the rule's. The opaque part's box is
    measured instead when `ignore_transparent` is set on an RGBA/LA picture, or whenever the picture
    declares a transparent colour (OSWorld's condition)."""
    if result is None:
        return 0.0
    image = Image.open(result)
    if rule.get("ignore_transparent", False) and image.mode in ("RGBA", "LA") or "transparency" in image.info:
        box = image.convert("RGBA").split()[-1].getbbox()
        width, height = (0, 0) if box is None else (box[2] - box[0], box[3] - box[1])
    else:
        width, height = image.size
    return float(rule.get("height") in (None, height) and rule.get("width") in (None, width))


def check_image_file_size(result: str | None, rule: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    return float(os.path.getsize(result) < rule["max_size"])


def check_triangle_position(result: str | None) -> float:
    """The second least common colour's pixels (the triangle, by OSWorld's pick) centre within 5% of
    the picture's middle."""
    if result is None:
        return 0.0
    pixels = np.array(Image.open(result))
    if pixels.ndim != 3:
        raise MetricError("check_triangle_position needs a picture with colour channels")
    colours, counts = np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0, return_counts=True)
    triangle = colours[np.argsort(counts)][1]
    centre = np.argwhere(np.all(pixels == triangle, axis=2)).mean(axis=0)
    shape = np.array(pixels.shape[:2])
    return float(np.all(np.abs(centre - shape / 2) < 0.05 * shape))


def check_textbox_on_leftside(result: str | None) -> float:
    """The leftmost dark pixel (grey < 128) is in the left 5% of the picture."""
    if result is None:
        return 0.0
    image = Image.open(result)
    dark = np.argwhere(np.array(image.convert("L")) < 128)
    leftmost = dark[:, 1].min() if len(dark) else image.size[0]
    return float(leftmost < image.size[0] * 0.05)


def check_green_background(result: str | None, expected: str | None) -> float:
    """Every pixel that is not black in the expected picture is green (G above R and B) in the result.

    As OSWorld's function does, pixel (x, y) is read at row x, column y for x across the expected
    picture's width and y down its height, in that order: a picture that is not square is visited only
    up to where that reading leaves it (the top-left square when it is wider, the first row when it is
    taller) and then raises, unless a pixel that is not green came first. A picture without colour
    channels raises too.
    """
    if result is None or expected is None:
        return 0.0
    source = np.array(Image.open(result))
    target = np.array(Image.open(expected))
    height, width = target.shape[:2]
    if not width or not height:
        return 1.0
    if target.ndim != 3:
        raise MetricError("check_green_background: the expected picture has no colour channels")
    rows, columns = (height, height) if width >= height else (1, width)
    visited = target[:rows, :columns]
    background = (
        np.any(visited[..., :3] != 0, axis=-1) if visited.shape[-1] >= 3 else np.ones((rows, columns), bool)
    )
    if background.any() and not _visited_background_is_green(source, background):
        return 0.0
    if width != height:
        raise MetricError(
            "check_green_background: OSWorld's pixel order (row = x) leaves a picture that is not square"
        )
    return 1.0


def _visited_background_is_green(source: np.ndarray, background: np.ndarray) -> bool:
    """Whether the result is green at every visited background pixel, read in row-major order; raises
    where OSWorld's reading does (a pixel outside the result before any pixel that is not green)."""
    if source.ndim != 3 or source.shape[-1] < 3:
        raise MetricError("check_green_background: the result picture has no red, green and blue channels")
    rows, columns = background.shape
    inside = np.zeros((rows, columns), bool)
    inside[: source.shape[0], : source.shape[1]] = True
    grown = np.zeros((rows, columns, 3), source.dtype)
    grown[: source.shape[0], : source.shape[1]] = source[:rows, :columns, :3]
    red, green, blue = np.moveaxis(grown, -1, 0)
    outside = background & ~inside
    not_green = background & inside & ~((green > red) & (green > blue))
    first_outside = np.flatnonzero(outside.ravel())
    first_not_green = np.flatnonzero(not_green.ravel())
    if first_outside.size and (not first_not_green.size or first_outside[0] < first_not_green[0]):
        raise MetricError("check_green_background: the result picture is smaller than the expected one")
    return not first_not_green.size


def check_config_status(result: str | None, rule: dict[str, Any]) -> float:
    """A gimprc line `(KEY ... VALUE)` (KEY one word, or a pair of the first two) ends with VALUE."""
    if result is None:
        return 0.0
    key = rule["key"]
    with open(result) as handle:
        for line in handle:
            if line.startswith("#") or line == "\n":
                continue
            items = line.strip().lstrip("(").rstrip(")\n").split()
            if isinstance(key, str) and items[0] == key and items[-1] == rule["value"]:
                return 1.0
            pair = isinstance(key, list) and len(key) == 2
            if pair and items[0] == key[0] and items[1] == key[1] and items[-1] == rule["value"]:
                return 1.0
    return 0.0


METRICS = {
    "compare_images": compare_images,
    "compare_image_list": compare_image_list,
    "check_structure_sim": check_structure_sim,
    "check_structure_sim_resized": check_structure_sim_resized,
    "check_brightness_decrease_and_structure_sim": check_brightness_decrease_and_structure_sim,
    "check_contrast_increase_and_structure_sim": check_contrast_increase_and_structure_sim,
    "check_saturation_increase_and_structure_sim": check_saturation_increase_and_structure_sim,
    "check_file_exists_and_structure_sim": check_file_exists_and_structure_sim,
    "check_palette_and_structure_sim": check_palette_and_structure_sim,
    "check_image_mirror": check_image_mirror,
    "check_image_size": check_image_size,
    "check_image_file_size": check_image_file_size,
    "check_triangle_position": check_triangle_position,
    "check_textbox_on_leftside": check_textbox_on_leftside,
    "check_config_status": check_config_status,
    "check_green_background": check_green_background,
}
