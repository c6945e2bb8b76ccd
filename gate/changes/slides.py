"""Presentation diff (.pptx/.odp): slides added and removed, and the text changes of each slide."""

from __future__ import annotations

import io
from difflib import SequenceMatcher
from xml.etree import ElementTree

import pptx

from gate.changes.documents import ODF_TEXT, odf_root
from gate.changes.model import Section, sections, short

ODF_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"

Slide = list[str]
"""The texts of a slide's shapes, in order."""


def pptx_slides(data: bytes | None) -> list[Slide]:
    if data is None:
        return []
    deck = pptx.Presentation(io.BytesIO(data))
    return [[s.text_frame.text for s in slide.shapes if s.has_text_frame] for slide in deck.slides]


def odp_slides(data: bytes | None) -> list[Slide]:
    if data is None:
        return []
    pages = odf_root(data).iter(f"{{{ODF_DRAW}}}page")
    return [[_frame_text(frame) for frame in page.iter(f"{{{ODF_DRAW}}}frame")] for page in pages]


def _frame_text(frame: ElementTree.Element) -> str:
    return "\n".join("".join(p.itertext()) for p in frame.iter(f"{{{ODF_TEXT}}}p"))


def diff_slides(before: list[Slide], after: list[Slide]) -> list[Section]:
    changed, added, removed = [], [], []
    matcher = SequenceMatcher(None, [_key(s) for s in before], [_key(s) for s in after], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            changed += _text_changes(j1 + k + 1, before[i1 + k], after[j1 + k])
        removed += [f"slide {i + 1} (old): {_summary(before[i])}" for i in range(i1 + paired, i2)]
        added += [f"slide {j + 1}: {_summary(after[j])}" for j in range(j1 + paired, j2)]
    return sections(("slide texts changed", changed), ("slides added", added), ("slides removed", removed))


def diff_pptx(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_slides(pptx_slides(old), pptx_slides(new))


def diff_odp(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_slides(odp_slides(old), odp_slides(new))


def _key(slide: Slide) -> str:
    return "\x1f".join(slide)


def _summary(slide: Slide) -> str:
    return short(" | ".join(t.replace("\n", " / ") for t in slide if t)) or "(no text)"


def _text_changes(number: int, before: Slide, after: Slide) -> list[str]:
    lines = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old = " | ".join(before[i1:i2]).replace("\n", " / ")
        new = " | ".join(after[j1:j2]).replace("\n", " / ")
        lines.append(f"slide {number}: “{short(old)}” → “{short(new)}”")
    return lines
