"""Reading and text replacement in OpenDocument text files (.odt), with the standard library only."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path

from _officekit import ToolkitError

TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
PARTS_WITH_TEXT = ("content.xml", "styles.xml")


def q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


@dataclass(frozen=True)
class Block:
    """A top-level paragraph, heading or table of the document body."""

    kind: str  # "paragraph" | "table"
    style: str
    text: str
    rows: tuple[tuple[str, ...], ...] = ()
    heading: bool = False


def read_part(path: Path, name: str) -> bytes:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.read(name)
    except (zipfile.BadZipFile, KeyError):
        raise ToolkitError(f"{path.name} is not an OpenDocument file (no {name})") from None


def element_text(elem: ET.Element) -> str:
    """Text of a paragraph with ODF's space, tab and line-break elements expanded; notes left out."""
    out = [elem.text or ""]
    for child in elem:
        tag = child.tag
        if tag == q(TEXT, "s"):
            out.append(" " * int(child.get(q(TEXT, "c"), "1")))
        elif tag == q(TEXT, "tab"):
            out.append("\t")
        elif tag == q(TEXT, "line-break"):
            out.append("\n")
        elif tag != q(TEXT, "note"):
            out.append(element_text(child))
        out.append(child.tail or "")
    return "".join(out)


def style_names(path: Path, content: ET.Element) -> dict[str, str]:
    """Style name -> display name, resolving automatic styles (P1...) to their parent style."""
    display: dict[str, str] = {}
    for root in (ET.fromstring(read_part(path, "styles.xml")), content):
        for style in root.iter(q(STYLE, "style")):
            name = style.get(q(STYLE, "name"), "")
            display[name] = style.get(q(STYLE, "display-name")) or name.replace("_20_", " ")
    automatic = content.find(q(OFFICE, "automatic-styles"))
    if automatic is not None:
        for style in automatic.iter(q(STYLE, "style")):
            parent = style.get(q(STYLE, "parent-style-name"))
            if parent:
                display[style.get(q(STYLE, "name"), "")] = display.get(parent, parent.replace("_20_", " "))
    return display


def read_blocks(path: Path) -> list[Block]:
    content = ET.fromstring(read_part(path, "content.xml"))
    styles = style_names(path, content)
    body = content.find(f"{q(OFFICE, 'body')}/{q(OFFICE, 'text')}")
    if body is None:
        raise ToolkitError(f"{path.name} has no text body (is it a text document?)")
    blocks: list[Block] = []

    def visit(elem: ET.Element) -> None:
        if elem.tag in (q(TEXT, "p"), q(TEXT, "h")):
            style = elem.get(q(TEXT, "style-name"), "")
            heading = elem.tag == q(TEXT, "h")
            blocks.append(Block("paragraph", styles.get(style, style), element_text(elem), heading=heading))
        elif elem.tag == q(TABLE, "table"):
            rows = tuple(
                tuple(
                    " / ".join(element_text(p) for p in cell.iter(q(TEXT, "p")))
                    for cell in row.iter(q(TABLE, "table-cell"))
                )
                for row in elem.iter(q(TABLE, "table-row"))
            )
            blocks.append(Block("table", elem.get(q(TABLE, "name"), ""), "", rows))
        else:
            for child in elem:
                visit(child)

    for child in body:
        visit(child)
    return blocks


def _register_namespaces(data: bytes) -> None:
    for _, (prefix, uri) in ET.iterparse(io.BytesIO(data), events=("start-ns",)):
        ET.register_namespace(prefix, uri)


def _replace_in_tree(root: ET.Element, old: str, new: str) -> int:
    count = 0
    for elem in root.iter():
        for attr in ("text", "tail"):
            value = getattr(elem, attr)
            if value and old in value:
                count += value.count(old)
                setattr(elem, attr, value.replace(old, new))
    return count


def replace_text(path: Path, output: Path, pairs: list[tuple[str, str]]) -> list[int]:
    """Replace text in content and styles (headers, footers); returns the count per pair.

    Matches are found within one text run: text split across differently formatted spans is not matched.
    """
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info.filename)) for info in archive.infolist()]
    counts = [0] * len(pairs)
    rewritten: dict[str, bytes] = {}
    for info, data in entries:
        if info.filename not in PARTS_WITH_TEXT:
            continue
        _register_namespaces(data)
        root = ET.fromstring(data)
        for i, (old, new) in enumerate(pairs):
            counts[i] += _replace_in_tree(root, old, new)
        rewritten[info.filename] = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for info, data in entries:
            out.writestr(info, rewritten.get(info.filename, data))
    output.write_bytes(buffer.getvalue())
    return counts
