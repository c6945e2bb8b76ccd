"""`compare_pptx_files`: two presentations slide by slide, shape by shape, run by run.

Checks in OSWorld's order, each behind its option (default on): slide count
(`examine_number_of_slides`), background colour (`examine_background_color`),
notes (`examine_note`), shape count, shape geometry (`examine_shape` and OSWorld's
task-specific position and size checks, see evals/osworld/metrics/slides_geometry.py; positions
equal within `approximately_tolerance`, default 0.5%),
shape and paragraph text (`examine_text`), paragraph count, alignment
(`examine_alignment`, None = left), level (`examine_indent`), run count, run
fonts (`examine_font_name`, `_size`, `_bold`, `_italic`, `examine_color_rgb`,
`examine_font_underline`, `examine_strike_through`), table cell text, and the
slide's bullets (`examine_bullets`: level, bullet character and text of every
non-empty paragraph, so changed text fails there even with `examine_text` off).
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

from pptx import Presentation
from pptx.enum.dml import MSO_FILL_TYPE
from pptx.enum.text import PP_ALIGN

from stateact.evals import settings
from stateact.evals.osworld.metrics.slides_geometry import POSITION_CHECKS, geometry_matches

_A = "http://schemas.openxmlformats.org/drawingml/2006/main"

DEFAULTS = {
    "examine_number_of_slides": True,
    "examine_shape": True,
    "examine_text": True,
    "examine_indent": True,
    "examine_font_name": True,
    "examine_font_size": True,
    "examine_font_bold": True,
    "examine_font_italic": True,
    "examine_color_rgb": True,
    "examine_font_underline": True,
    "examine_strike_through": True,
    "examine_alignment": True,
    "examine_bullets": True,
    "examine_background_color": True,
    "examine_note": True,
    **dict.fromkeys(POSITION_CHECKS, False),
}


def compare_pptx_files(result: str | None, expected: str | None, **options: Any) -> float:
    if not result or not expected:
        return 0.0
    try:
        first, second = Presentation(result), Presentation(expected)
    except Exception:
        return 0.0
    check = {**DEFAULTS, **{k: v for k, v in options.items() if k in DEFAULTS}}
    tolerance = options.get("approximately_tolerance", settings.SHAPE_TOLERANCE)
    if check["examine_number_of_slides"] and len(first.slides) != len(second.slides):
        return 0.0
    for number, (slide1, slide2) in enumerate(zip(first.slides, second.slides, strict=False), start=1):
        if not _slides_match(slide1, slide2, number, check, tolerance):
            return 0.0
    return 1.0


def _slides_match(slide1: Any, slide2: Any, number: int, check: dict[str, bool], tolerance: float) -> bool:
    if check["examine_background_color"] and _background(slide1) != _background(slide2):
        return False
    if check["examine_note"] and _notes(slide1) != _notes(slide2):
        return False
    if len(slide1.shapes) != len(slide2.shapes):
        return False
    any_runs = False
    for shape1, shape2 in zip(slide1.shapes, slide2.shapes, strict=True):
        if not geometry_matches(shape1, shape2, number, check, tolerance):
            return False
        if getattr(shape1, "has_table", False) and not (
            getattr(shape2, "has_table", False) and _table_text(shape1) == _table_text(shape2)
        ):
            return False
        if (
            hasattr(shape1, "text")
            and hasattr(shape2, "text")
            and shape1.has_text_frame
            and shape2.has_text_frame
        ):
            if check["examine_text"] and shape1.text.strip() != shape2.text.strip():
                return False
            matched, had_runs = _frames_match(shape1.text_frame, shape2.text_frame, check)
            if not matched:
                return False
            any_runs = any_runs or had_runs
    return not (check["examine_bullets"] and any_runs and _bullets(slide1) != _bullets(slide2))


def _frames_match(frame1: Any, frame2: Any, check: dict[str, bool]) -> tuple[bool, bool]:
    if len(frame1.paragraphs) != len(frame2.paragraphs):
        return False, False
    had_runs = False
    for para1, para2 in zip(frame1.paragraphs, frame2.paragraphs, strict=True):
        if check["examine_alignment"] and (para1.alignment or PP_ALIGN.LEFT) != (
            para2.alignment or PP_ALIGN.LEFT
        ):
            return False, had_runs
        if check["examine_text"] and para1.text != para2.text:
            return False, had_runs
        if check["examine_indent"] and para1.level != para2.level:
            return False, had_runs
        if len(para1.runs) != len(para2.runs):
            return False, had_runs
        for run1, run2 in zip(para1.runs, para2.runs, strict=True):
            had_runs = True
            if not _runs_match(run1.font, run2.font, check):
                return False, had_runs
    return True, had_runs


def _runs_match(font1: Any, font2: Any, check: dict[str, bool]) -> bool:
    if check["examine_font_name"] and font1.name != font2.name:
        return False
    if check["examine_font_size"] and font1.size != font2.size:
        return False
    if check["examine_font_bold"] and bool(font1.bold) != bool(font2.bold):
        return False
    if check["examine_font_italic"] and bool(font1.italic) != bool(font2.italic):
        return False
    if check["examine_color_rgb"] and _rgb(font1) != _rgb(font2):
        return False
    if check["examine_font_underline"] and _underline_differs(font1.underline, font2.underline):
        return False
    strike1, strike2 = (f._element.attrib.get("strike", "noStrike") for f in (font1, font2))
    return not (check["examine_strike_through"] and strike1 != strike2)


def _underline_differs(first: Any, second: Any) -> bool:
    if first == second:
        return False
    if first is not None and second is not None:
        return True
    return True in (first, second)


def _rgb(font: Any) -> Any:
    try:
        return font.color.rgb if font.color and font.color.type is not None else None
    except AttributeError:
        return None


def _table_text(shape: Any) -> list[list[str]]:
    return [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]


def solid_background(slide: Any) -> Any:
    """The solid fill that colours the slide, as OSWorld finds it: the slide's own, or the master's
    when the slide has none (the layout is skipped); None for any other fill."""
    fill = slide.background.fill
    if fill.type == MSO_FILL_TYPE.BACKGROUND:
        fill = slide.slide_layout.slide_master.background.fill
    return fill if fill.type == MSO_FILL_TYPE.SOLID else None


def _background(slide: Any) -> Any:
    fill = solid_background(slide)
    return fill.fore_color.rgb if fill is not None else None


def _notes(slide: Any) -> str:
    return slide.notes_slide.notes_text_frame.text.strip() if slide.has_notes_slide else ""


def _bullets(slide: Any) -> list[tuple[str, str, str]]:
    """(level, bullet character, text) of every non-empty paragraph of the slide; no pPr level is '0'."""
    root = ElementTree.fromstring(slide.part.blob)
    found = []
    for para in root.iter(f"{{{_A}}}p"):
        text = "".join(t.text or "" for t in para.iter(f"{{{_A}}}t"))
        if not text.strip():
            continue
        props = para.find(f"{{{_A}}}pPr")
        level = (props.get("lvl") if props is not None else None) or "0"
        char = props.find(f"{{{_A}}}buChar") if props is not None else None
        found.append((level, char.get("char") if char is not None else "No Bullet", text))
    return found


METRICS = {"compare_pptx_files": compare_pptx_files}
