"""Presentation diff (.pptx/.odp): slides added and removed, the text changes of each slide, and the run
formatting that changed on a shape whose text stayed (.pptx); for a .pptx also every shape that moved or was
resized, and the shapes of each added slide, with their boxes (a caption 0.25 cm instead of 0.25 in below a
photo changes no text and no byte count)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from xml.etree import ElementTree

import pptx

from stateact.gate.inspect.changes.documents import ODF_TEXT, odf_root
from stateact.gate.inspect.changes.model import Section, align, sections, short
from stateact.gate.inspect.changes.run_format import runs_format

ODF_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"

Slide = list[str]
"""The texts of a slide's shapes, in order."""
EMU_PER_CM = 360_000


@dataclass(frozen=True)
class Box:
    """A shape's name, text and position and size in EMU (None when it inherits them from its layout)."""

    name: str
    text: str
    left: int | None
    top: int | None
    width: int | None
    height: int | None

    @property
    def key(self) -> str:
        return f"{self.name}\x1f{self.text}"

    @property
    def label(self) -> str:
        text = short(self.text.replace("\n", " / "), 60)
        return f"“{text}” ({self.name})" if text else self.name

    def extent(self) -> str:
        """Where the shape is: its horizontal and vertical edges in cm."""
        if None in (self.left, self.top, self.width, self.height):
            return "position from its layout"
        x1, y1 = self.left / EMU_PER_CM, self.top / EMU_PER_CM
        x2, y2 = x1 + self.width / EMU_PER_CM, y1 + self.height / EMU_PER_CM
        return f"x {x1:.2f}–{x2:.2f} cm, y {y1:.2f}–{y2:.2f} cm"


@dataclass(frozen=True)
class Deck:
    slides: list[Slide]
    formats: list[list[str]] = field(default_factory=list)
    """Per slide, the run formatting of each shape in `slides` ("" when none is set; empty for .odp)."""
    boxes: list[list[Box]] = field(default_factory=list)
    """Per slide, every shape (with text or not) and its box (empty for .odp)."""

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
        [
            [
                Box(
                    shape.name,
                    shape.text_frame.text if shape.has_text_frame else "",
                    shape.left,
                    shape.top,
                    shape.width,
                    shape.height,
                )
                for shape in slide.shapes
            ]
            for slide in deck.slides
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
    changed, added, removed, reformatted, moved, new_shapes = [], [], [], [], [], []
    old_slides, new_slides = before.slides, after.slides
    for kind, i, j in align([_key(s) for s in old_slides], [_key(s) for s in new_slides]):
        if kind == "equal":
            reformatted += _format_changes(before, i, after, j, range(len(new_slides[j])))
        elif kind == "changed":
            texts, formats = _shape_changes(before, i, after, j)
            changed += texts
            reformatted += formats
        elif kind == "removed":
            removed.append(f"slide {i + 1} (old): {_summary(old_slides[i])}")
        else:
            added.append(f"slide {j + 1}: {_summary(new_slides[j])}")
            new_shapes += [f"slide {j + 1} {box.label}: {box.extent()}" for box in _boxes(after, j)]
        if i is not None and j is not None:
            moved += _box_changes(_boxes(before, i), _boxes(after, j), j)
    return sections(
        ("slide texts changed", changed),
        ("slides added", added),
        ("slides removed", removed),
        ("run formatting changed", reformatted),
        ("shapes moved or resized", moved),
        ("shapes on the added slides", new_shapes),
    )


def _boxes(deck: Deck, slide: int) -> list[Box]:
    return deck.boxes[slide] if slide < len(deck.boxes) else []


def _box_changes(old: list[Box], new: list[Box], slide: int) -> list[str]:
    """The shapes of one slide matched by name and text whose position or size changed, old → new."""
    lines = []
    for _kind, a, b in align([box.key for box in old], [box.key for box in new]):
        if a is None or b is None or old[a].extent() == new[b].extent():
            continue
        lines.append(f"slide {slide + 1} {new[b].label}: {old[a].extent()} → {new[b].extent()}")
    return lines


def diff_pptx(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_decks(pptx_deck(old), pptx_deck(new))


def diff_odp(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_decks(odp_deck(old), odp_deck(new))


def _key(slide: Slide) -> str:
    return "\x1f".join(slide)


def _summary(slide: Slide) -> str:
    return short(" | ".join(t.replace("\n", " / ") for t in slide if t)) or "(no text)"


def _format_changes(before: Deck, i: int, after: Deck, j: int, shapes: range) -> list[str]:
    return [line for shape in shapes if (line := _format_change(before, i, shape, after, j, shape))]


def _format_change(before: Deck, i: int, a: int, after: Deck, j: int, b: int) -> str:
    """Shape `a` of slide `i` before against shape `b` of slide `j` after: its run formatting's change, or ""."""
    old, new = before.format_of(i, a), after.format_of(j, b)
    if old == new:
        return ""
    text = short(after.slides[j][b].replace("\n", " / "))
    return f"slide {j + 1} “{text}”: runs {old or 'plain'} → {new or 'plain'}"


def _shape_changes(before: Deck, i: int, after: Deck, j: int) -> tuple[list[str], list[str]]:
    """A changed slide's shapes matched by content: their edited, added and removed texts, and the run
    formatting that changed on the shapes matched (a restyle rides along with an edit of the text)."""
    texts, formats = [], []
    old_shapes, new_shapes = before.slides[i], after.slides[j]
    for kind, a, b in align(old_shapes, new_shapes):
        old = "" if a is None else old_shapes[a].replace("\n", " / ")
        new = "" if b is None else new_shapes[b].replace("\n", " / ")
        if kind == "changed":
            texts.append(f"slide {j + 1}: “{short(old)}” → “{short(new)}”")
        elif kind == "removed":
            texts.append(f"slide {j + 1}: shape text removed: “{short(old)}”")
        elif kind == "added":
            texts.append(f"slide {j + 1}: shape text added: “{short(new)}”")
        if a is not None and b is not None:
            old_format, new_format = before.format_of(i, a), after.format_of(j, b)
            if old_format != new_format:
                formats.append(
                    f"slide {j + 1} “{short(new)}”: runs {old_format or 'plain'} → {new_format or 'plain'}"
                )
    return texts, formats
