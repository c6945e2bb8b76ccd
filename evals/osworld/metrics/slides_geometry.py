"""`compare_pptx_files`' shape geometry checks, in OSWorld's order, on one pair of shapes.

Positions and sizes are equal when they differ by at most `tolerance` of the larger (0 equals only
0). "Geometry close" is all of left, top, width and height equal that way.
- `examine_title_bottom_position`: two shapes with the same text must be the title "Product
  Comparison" moved down (lower than in the expected deck, and below 3600000 EMU), or any other
  text; other shapes must be geometry close.
- `examine_table_bottom_position`: two tables on slide 3 must have moved down the same way; all
  other shapes must be geometry close.
- `examine_right_position`: on slide 2, two shapes without text must lie further right than in the
  expected deck, and left of them at least 4320000 EMU.
- `examine_top_position`: on slide 2, two pictures must lie higher than in the expected deck, their
  top at most 1980000 EMU.
- `examine_shape_for_shift_size`: geometry close, except two shapes reading "Elaborate on what you
  want to discuss.".
- `examine_shape` (default on): geometry close.
- `examine_image_size`: two pictures of equal width and height; other shapes geometry close.
- `examine_modify_height`: two shapes without text, or two freeforms, of equal height; other shapes
  geometry close.
The texts, slide numbers and EMU bounds are OSWorld's, written for its own tasks' decks.
"""

from __future__ import annotations

from typing import Any

from pptx.enum.shapes import MSO_SHAPE_TYPE

TITLE_TEXT = "Product Comparison"
BOTTOM_EMU = 3600000
"""A title or table counts as at the bottom once its top is at least this far down."""
TABLE_SLIDE = 3
IMAGE_SLIDE = 2
RIGHT_EMU = 4320000
"""A shape counts as on the right once its left edge is at least this far right."""
TOP_EMU = 1980000
"""A picture counts as at the top while its top is at most this far down."""
SHIFT_EXEMPT_TEXT = "Elaborate on what you want to discuss."

POSITION_CHECKS = (
    "examine_title_bottom_position",
    "examine_table_bottom_position",
    "examine_right_position",
    "examine_top_position",
    "examine_shape_for_shift_size",
    "examine_image_size",
    "examine_modify_height",
)
"""The task-specific checks, all off by default."""


def approximately_equal(first: Any, second: Any, tolerance: float) -> bool:
    if first == second:
        return True
    if first == 0 or second == 0:
        return False
    return abs(first - second) / max(abs(first), abs(second)) <= tolerance


def _alike(shape1: Any, shape2: Any, tolerance: float, *sides: str) -> bool:
    return all(approximately_equal(getattr(shape1, side), getattr(shape2, side), tolerance) for side in sides)


def _close(shape1: Any, shape2: Any, tolerance: float) -> bool:
    return _alike(shape1, shape2, tolerance, "left", "top", "width", "height")


def _both(shape1: Any, shape2: Any, kind: MSO_SHAPE_TYPE) -> bool:
    return shape1.shape_type == kind and shape2.shape_type == kind


def _texts(shape1: Any, shape2: Any) -> bool:
    return hasattr(shape1, "text") and hasattr(shape2, "text")


def _moved_down(shape1: Any, shape2: Any) -> bool:
    return shape1.top > shape2.top and shape1.top >= BOTTOM_EMU


def geometry_matches(shape1: Any, shape2: Any, slide: int, check: dict[str, bool], tolerance: float) -> bool:
    """Whether `shape1` (on slide number `slide`, from 1) passes every geometry check `check` turns
    on against `shape2` of the expected deck."""
    if check["examine_title_bottom_position"]:
        if _texts(shape1, shape2) and shape1.text == shape2.text:
            if shape1.text == TITLE_TEXT and not _moved_down(shape1, shape2):
                return False
        elif not _close(shape1, shape2, tolerance):
            return False
    if check["examine_table_bottom_position"]:
        if slide == TABLE_SLIDE and _both(shape1, shape2, MSO_SHAPE_TYPE.TABLE):
            if not _moved_down(shape1, shape2):
                return False
        elif not _close(shape1, shape2, tolerance):
            return False
    if (
        check["examine_right_position"]
        and slide == IMAGE_SLIDE
        and not hasattr(shape1, "text")
        and not hasattr(shape2, "text")
        and (shape1.left <= shape2.left or shape1.left < RIGHT_EMU)
    ):
        return False
    if (
        check["examine_top_position"]
        and slide == IMAGE_SLIDE
        and _both(shape1, shape2, MSO_SHAPE_TYPE.PICTURE)
        and (shape1.top >= shape2.top or shape1.top > TOP_EMU)
    ):
        return False
    if (
        check["examine_shape_for_shift_size"]
        and not _close(shape1, shape2, tolerance)
        and not (_texts(shape1, shape2) and shape1.text == shape2.text == SHIFT_EXEMPT_TEXT)
    ):
        return False
    if check["examine_shape"] and not _close(shape1, shape2, tolerance):
        return False
    if check["examine_image_size"]:
        if _both(shape1, shape2, MSO_SHAPE_TYPE.PICTURE):
            if not _alike(shape1, shape2, tolerance, "width", "height"):
                return False
        elif not _close(shape1, shape2, tolerance):
            return False
    if check["examine_modify_height"]:
        if (not hasattr(shape1, "text") and not hasattr(shape2, "text")) or _both(
            shape1, shape2, MSO_SHAPE_TYPE.FREEFORM
        ):
            if not _alike(shape1, shape2, tolerance, "height"):
                return False
        elif not _close(shape1, shape2, tolerance):
            return False
    return True
