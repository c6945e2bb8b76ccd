"""Document diff (.docx/.odt): paragraphs added, removed and changed in document order, with style names
and run formatting when they changed. Table rows count as paragraphs ("[table 1 row 2] a | b")."""

from __future__ import annotations

import io
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import docx
from docx.table import Table

from stateact.gate.inspect.changes.model import Section, align, sections, short
from stateact.gate.inspect.changes.run_format import runs_format
from stateact.sandbox.toolkit import toolkit_module

ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


@dataclass(frozen=True)
class Paragraph:
    text: str
    style: str
    format: str = ""
    """The explicit formatting of its runs ("bold, 14pt"), "" when none is set."""


def docx_paragraphs(data: bytes | None) -> list[Paragraph]:
    """The body's paragraphs and table rows, in the order they appear."""
    if data is None:
        return []
    found: list[Paragraph] = []
    tables = 0
    for block in docx.Document(io.BytesIO(data)).iter_inner_content():
        if isinstance(block, Table):
            tables += 1
            for r, row in enumerate(block.rows, start=1):
                found.append(Paragraph(_row_text(tables, r, [cell.text for cell in row.cells]), ""))
        else:
            style = block.style.name if block.style is not None else ""
            found.append(Paragraph(block.text, style, runs_format(block.runs)))
    return found


def odf_root(data: bytes) -> ElementTree.Element:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return ElementTree.fromstring(archive.read("content.xml"))


def odt_paragraphs(data: bytes | None) -> list[Paragraph]:
    """Paragraphs and table rows of an .odt, read by the office toolkit's reader (the one the probes use)."""
    if data is None:
        return []
    odt = toolkit_module("_odt")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "document.odt"
        path.write_bytes(data)
        blocks = odt.read_blocks(path)
    found: list[Paragraph] = []
    tables = 0
    for block in blocks:
        if block.kind == "table":
            tables += 1
            found += [Paragraph(_row_text(tables, r, row), "") for r, row in enumerate(block.rows, start=1)]
        else:
            found.append(Paragraph(block.text, block.style))
    return found


def diff_paragraphs(before: list[Paragraph], after: list[Paragraph]) -> list[Section]:
    """Paragraphs changed, added, removed, restyled and reformatted, matched by content (`align`); numbers
    are 1-based, old numbers for removed ones."""
    changed, added, removed, restyled, reformatted = [], [], [], [], []
    for kind, i, j in align([p.text for p in before], [p.text for p in after]):
        if kind == "removed":
            removed.append(f"¶{i + 1} (old): {_quote(before[i].text)}")
        elif kind == "added":
            added.append(f"¶{j + 1}: {_quote(after[j].text)} [{_describe(after[j])}]")
        elif kind == "changed":
            old, new = before[i], after[j]
            number = f"¶{j + 1}" if i == j else f"¶{j + 1} (¶{i + 1} before)"
            line = f"{number}: {_quote(old.text)} → {_quote(new.text)}"
            if old.style != new.style:
                line += f"; {_style_change(old, new)}"
            if old.format != new.format:
                line += f"; {_format_change(old, new)}"
            changed.append(line)
        else:
            if before[i].style != after[j].style:
                restyled.append(f"¶{j + 1} {_quote(after[j].text)}: {_style_change(before[i], after[j])}")
            if before[i].format != after[j].format:
                reformatted.append(f"¶{j + 1} {_quote(after[j].text)}: {_format_change(before[i], after[j])}")
    return sections(
        ("paragraphs changed", changed),
        ("paragraphs added", added),
        ("paragraphs removed", removed),
        ("paragraph styles changed", restyled),
        ("run formatting changed", reformatted),
    )


def diff_docx(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_paragraphs(docx_paragraphs(old), docx_paragraphs(new))


def diff_odt(old: bytes | None, new: bytes | None) -> list[Section]:
    return diff_paragraphs(odt_paragraphs(old), odt_paragraphs(new))


def _row_text(table: int, row: int, cells) -> str:
    return f"[table {table} row {row}] {' | '.join(cells)}"


def _quote(text: str) -> str:
    return f"“{short(text)}”" if text else "(empty paragraph)"


def _style_change(old: Paragraph, new: Paragraph) -> str:
    return f"style {old.style!r} → {new.style!r}"


def _format_change(old: Paragraph, new: Paragraph) -> str:
    return f"runs {old.format or 'plain'} → {new.format or 'plain'}"


def _describe(paragraph: Paragraph) -> str:
    return f"{paragraph.style}; {paragraph.format}" if paragraph.format else paragraph.style
