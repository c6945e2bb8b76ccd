"""Presentation diff (.pptx/.odp): slides added and removed, the text changes of each slide, and the run
formatting that changed on a shape whose text stayed (.pptx)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from xml.etree import ElementTree

import pptx

from gate.inspect.changes.documents import ODF_TEXT, odf_root
from gate.inspect.changes.model import Section, align, sections, short
from gate.inspect.changes.run_format import runs_format

ODF_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"

Slide = list[str]
"""The texts of a slide's shapes, in order."""


@dataclass(frozen=True)
class Deck:
    slides: list[Slide]
    formats: list[list[str]] = field(default_factory=list)
    """Per slide, the run formatting of each shape in `slides` ("" when none is set; empty for .odp)."""

    def format_of(self, slide: int, shape: int) -> str:
        shapes = self.formats[slide] if slide < len(self.formats) else []
        return shapes[shape] if shape < len(shapes) else ""


def pptx_deck(data: bytes | None) -> Deck:
    if data is None:
        return Deck([])
    deck = pptx.Presentation(io.BytesIO(data))
    frames = [[s.text_frame for s in slide.shapes if s.has_text_frame] for slide in deck.slides]
    return Deck(
        [[frame.text for frame in shapes] for shapes in frames],
        [
            [runs_format(run for p in frame.paragraphs for run in p.runs) for frame in shapes]
            for shapes in frames
        ],
    )


def odp_deck(data: bytes | None) -> Deck:
    if data is None:
        return Deck([])
    pages = odf_root(data).iter(f"{{{ODF_DRAW}}}page")
    return Deck([[_frame_text(frame) for frame in page.iter(f"{{{ODF_DRAW}}}frame")] for page in pages])


def _frame_text(frame: ElementTree.Element) -> str:
    return "\n".join("".join(p.itertext()) for p in frame.iter(f"{{{ODF_TEXT}}}p"))


def diff_decks(before: Deck, after: Deck) -> list[Section]:
    """Slides matched by content (`align` over each slide's texts), then their shapes the same way."""
    changed, added, removed, reformatted = [], [], [], []
    old_slides, new_slides = before.slides, after.slides
    for kind, i, j in align([_key(s) for s in old_slides], [_key(s) for s in new_slides]):
        if kind == "equal":
            reformatted += _format_changes(before, i, after, j, range(len(new_slides[j])))
        elif kind == "changed":
            changed += _text_changes(j + 1, old_slides[i], new_slides[j])
        elif kind == "removed":
            removed.append(f"slide {i + 1} (old): {_summary(old_slides[i])}")
        else:
            added.append(f"slide {j + 1}: {_summary(new_slides[j])}")
    return sections(
        ("slide texts changed", changed),
        ("slides added", added),
        ("slides removed", removed),
        ("run formatting changed", reformatted),
    )


def diff_pptx(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_decks(pptx_deck(old), pptx_deck(new))


def diff_odp(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_decks(odp_deck(old), odp_deck(new))


def _key(slide: Slide) -> str:
    return "\x1f".join(slide)


def _summary(slide: Slide) -> str:
    return short(" | ".join(t.replace("\n", " / ") for t in slide if t)) or "(no text)"


def _format_changes(before: Deck, i: int, after: Deck, j: int, shapes: range) -> list[str]:
    lines = []
    for shape in shapes:
        old, new = before.format_of(i, shape), after.format_of(j, shape)
        if old != new:
            text = short(after.slides[j][shape].replace("\n", " / "))
            lines.append(f"slide {j + 1} “{text}”: runs {old or 'plain'} → {new or 'plain'}")
    return lines


def _text_changes(number: int, before: Slide, after: Slide) -> list[str]:
    """A slide's shape texts matched by content: edited, added and removed shapes."""
    lines = []
    for kind, i, j in align(before, after):
        old = "" if i is None else before[i].replace("\n", " / ")
        new = "" if j is None else after[j].replace("\n", " / ")
        if kind == "changed":
            lines.append(f"slide {number}: “{short(old)}” → “{short(new)}”")
        elif kind == "removed":
            lines.append(f"slide {number}: shape text removed: “{short(old)}”")
        elif kind == "added":
            lines.append(f"slide {number}: shape text added: “{short(new)}”")
    return lines
