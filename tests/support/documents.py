"""Small real documents for file-view tests: a text PDF written object by object (no PDF library needed)
and pictures drawn with Pillow."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

PAGE_POINTS = (612, 792)


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
