"""Hostile deliverables for the scoring tests: an xlsx whose shared strings are a zip bomb, written
member by member (the bomb's deflate stream is one compressed megabyte repeated, built in milliseconds)."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from openpyxl import Workbook

from tests.support.documents import MEGABYTE

SHARED_STRINGS = "xl/sharedStrings.xml"
SST_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)

SHARED_STRING_PATCHES = {
    "xl/worksheets/sheet1.xml": (
        b'<c r="A1" t="inlineStr"><is><t>a</t></is></c>',
        b'<c r="A1" t="s"><v>0</v></c>',
    ),
    "xl/_rels/workbook.xml.rels": (
        b"</Relationships>",
        b'<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"'
        b' Target="sharedStrings.xml" Id="rId9"/></Relationships>',
    ),
    "[Content_Types].xml": (
        b"</Types>",
        b'<Override PartName="/xl/sharedStrings.xml"'
        b' ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
    ),
}
"""openpyxl writes "a" as an inline string: these make A1 the first shared string, in a part the book lists."""


def one_cell_book() -> bytes:
    """A workbook of one sheet whose cell A1 holds "a", as openpyxl writes it."""
    book = Workbook()
    book.active["A1"] = "a"
    saved = io.BytesIO()
    book.save(saved)
    return saved.getvalue()


def shared_strings_bomb(megabytes: int) -> bytes:
    """`one_cell_book` whose shared-strings part, after "a" (cell A1's), unpacks to `megabytes` MB of
    1000-letter strings, from a file of about 1 KB per MB."""
    saved = zipfile.ZipFile(io.BytesIO(one_cell_book()))
    parts = {info.filename: saved.read(info.filename) for info in saved.infolist()}
    for name, (old, new) in SHARED_STRING_PATCHES.items():
        parts[name] = parts[name].replace(old, new)
    members = {name: _deflated_member(data) for name, data in parts.items()}
    piece = b"<si><t>" + b"b" * 1000 + b"</t></si>"
    members[SHARED_STRINGS] = _deflated_member(
        SST_HEAD + b"<si><t>a</t></si>", piece * (MEGABYTE // len(piece)), megabytes, b"</sst>"
    )
    return _zip_file(members)


def _deflated_member(
    head: bytes, block: bytes = b"", repeats: int = 0, tail: bytes = b""
) -> tuple[bytes, int, int]:
    """A raw deflate stream of `head`, `block` repeated `repeats` times and `tail`: (stream, CRC-32, size).
    After a full flush the compressor forgets what it saw, so every repeat of `block` compresses alike."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    middle = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH) if repeats else b""
    last = compressor.compress(tail) + compressor.flush(zlib.Z_FINISH)
    checksum = zlib.crc32(head)
    for _ in range(repeats):
        checksum = zlib.crc32(block, checksum)
    checksum = zlib.crc32(tail, checksum)
    return first + middle * repeats + last, checksum, len(head) + len(block) * repeats + len(tail)


def _zip_file(members: dict[str, tuple[bytes, int, int]]) -> bytes:
    """A zip archive of deflated members, with its central directory (zip64 is not needed under 4 GB)."""
    out = io.BytesIO()
    directory = io.BytesIO()
    for name, (stream, checksum, size) in members.items():
        encoded = name.encode()
        fields = struct.pack("<HHHHHIII", 20, 0, 8, 0, 0, checksum, len(stream), size)
        directory.write(
            b"PK\x01\x02"
            + struct.pack("<H", 20)
            + fields
            + struct.pack("<HHHHHII", len(encoded), 0, 0, 0, 0, 0, out.tell())
            + encoded
        )
        out.write(b"PK\x03\x04" + fields + struct.pack("<HH", len(encoded), 0) + encoded + stream)
    start, entries = out.tell(), len(members)
    out.write(directory.getvalue())
    out.write(b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, entries, entries, directory.tell(), start, 0))
    return out.getvalue()
