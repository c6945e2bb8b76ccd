"""Document diff (.docx/.odt): paragraphs added, removed and changed, with style names when they changed.
Table rows count as paragraphs ("[table 1 row 2] a | b")."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from difflib import SequenceMatcher
from xml.etree import ElementTree

import docx

from gate.changes.model import Section, sections, short

ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
ODF_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


@dataclass(frozen=True)
class Paragraph:
    text: str
    style: str


def docx_paragraphs(data: bytes | None) -> list[Paragraph]:
    if data is None:
        return []
    document = docx.Document(io.BytesIO(data))
    found = [Paragraph(p.text, p.style.name if p.style is not None else "") for p in document.paragraphs]
    for t, table in enumerate(document.tables, start=1):
        for r, row in enumerate(table.rows, start=1):
            cells = " | ".join(cell.text for cell in row.cells)
            found.append(Paragraph(f"[table {t} row {r}] {cells}", ""))
    return found


def odf_root(data: bytes) -> ElementTree.Element:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return ElementTree.fromstring(archive.read("content.xml"))


def odt_paragraphs(data: bytes | None) -> list[Paragraph]:
    if data is None:
        return []
    body = odf_root(data)
    kinds = (f"{{{ODF_TEXT}}}p", f"{{{ODF_TEXT}}}h")
    return [
        Paragraph("".join(e.itertext()), e.get(f"{{{ODF_TEXT}}}style-name", ""))
        for e in body.iter()
        if e.tag in kinds
    ]


def diff_paragraphs(before: list[Paragraph], after: list[Paragraph]) -> list[Section]:
    """Paragraphs changed, added, removed and restyled; numbers are 1-based, old numbers for removed ones."""
    changed, added, removed, restyled = [], [], [], []
    matcher = SequenceMatcher(None, [p.text for p in before], [p.text for p in after], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                if before[i].style != after[j].style:
                    restyled.append(f"¶{j + 1} {_quote(after[j].text)}: {_style_change(before[i], after[j])}")
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            old, new = before[i1 + k], after[j1 + k]
            line = f"¶{j1 + k + 1}: {_quote(old.text)} → {_quote(new.text)}"
            changed.append(f"{line}; {_style_change(old, new)}" if old.style != new.style else line)
        removed += [f"¶{i + 1} (old): {_quote(before[i].text)}" for i in range(i1 + paired, i2)]
        added += [f"¶{j + 1}: {_quote(after[j].text)} [{after[j].style}]" for j in range(j1 + paired, j2)]
    return sections(
        ("paragraphs changed", changed),
        ("paragraphs added", added),
        ("paragraphs removed", removed),
        ("paragraph styles changed", restyled),
    )


def diff_docx(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_paragraphs(docx_paragraphs(old), docx_paragraphs(new))


def diff_odt(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_paragraphs(odt_paragraphs(old), odt_paragraphs(new))


def _quote(text: str) -> str:
    return f"“{short(text)}”" if text else "(empty paragraph)"


def _style_change(old: Paragraph, new: Paragraph) -> str:
    return f"style {old.style!r} → {new.style!r}"
