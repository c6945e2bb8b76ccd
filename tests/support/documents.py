"""Small real documents for file-view tests: PDFs written object by object (no PDF library needed),
pictures drawn with Pillow, and decompression bombs (PDF and PNG) built in milliseconds."""

from __future__ import annotations

import io
import zlib

from PIL import Image, ImageDraw, ImageFont

PAGE_POINTS = (612, 792)
MEGABYTE = 1 << 20


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF with one page per entry, each line of it set in Helvetica, top-down from the page's top left."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    font = 3 + 2 * len(pages)
    kids = []
    for number, lines in enumerate(pages):
        page, content = 3 + 2 * number, 4 + 2 * number
        kids.append(f"{page} 0 R")
        stream = (
            "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({_escaped(line)}) Tj T*" for line in lines) + " ET"
        )
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_POINTS[0]} {PAGE_POINTS[1]}] "
            f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream".encode())
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _pdf_file(objects)


def deflated_pdf(content: bytes) -> bytes:
    """A one-page PDF whose content stream is `content`, already FlateDecode-compressed (see `deflated`)."""
    return _pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
            + content
            + b"\nendstream",
        ]
    )


def deflated(piece: bytes, megabytes: int) -> bytes:
    """A zlib stream of `piece` repeated to `megabytes` MB, built from one compressed megabyte repeated:
    a decompression bomb of about 1 KB per MB, made in milliseconds."""
    block = piece * (MEGABYTE // len(piece))
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    header, body = first[:2], first[2:]  # after a full flush, each megabyte compresses to the same bytes
    checksum = 1
    for _ in range(megabytes):
        checksum = zlib.adler32(block, checksum)
    return header + body * megabytes + b"\x03\x00" + checksum.to_bytes(4, "big")


def png_of(size: tuple[int, int], pixel_data: bytes) -> bytes:
    """A PNG (8-bit RGBA) with the given zlib-compressed rows, written chunk by chunk."""
    header = size[0].to_bytes(4, "big") + size[1].to_bytes(4, "big") + b"\x08\x06\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        _chunk(kind, body) for kind, body in ((b"IHDR", header), (b"IDAT", pixel_data), (b"IEND", b""))
    )


def _chunk(kind: bytes, body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")


def _pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of the numbered objects (the first the catalog), with its cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for index, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{index} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write("".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _escaped(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def scanned_letter(
    size: tuple[int, int] = (1240, 1754), text: str = "Invoice total: 4,812.50 EUR"
) -> Image.Image:
    """A white page with one line of large black text, as a scanner would give it (no text layer)."""
    page = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(page)
    draw.text(
        (size[0] // 10, size[1] // 8), text, fill="black", font=ImageFont.load_default(size=size[0] // 25)
    )
    return page


def encoded(image: Image.Image, kind: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind)
    return buffer.getvalue()
