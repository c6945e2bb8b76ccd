"""Office files for the OSWorld metric and task tests, written with openpyxl, python-docx and python-pptx."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from docx import Document
from pptx import Presentation
from pptx.util import Inches, Pt

SALES_ROWS = [("Pen", 3, 1.5), ("Ink", 10, 4.25), ("Pad", 7, 2.0)]


def sales_book(path: Path, qty_of_pen: float = 3, formulas: bool = False, second_sheet: bool = True) -> Path:
    """Sheet1: Item, Qty, Price, Total (literal or `=B*C` formulas); Sheet2: a summary with a bold header."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    sheet.append(["Item", "Qty", "Price", "Total"])
    for row, (item, qty, price) in enumerate(SALES_ROWS, start=2):
        qty = qty_of_pen if item == "Pen" else qty
        total = f"=B{row}*C{row}" if formulas else qty * price
        sheet.append([item, qty, price, total])
    if second_sheet:
        summary = book.create_sheet("Sheet2")
        summary.append(["Metric", "Value"])
        summary.append(["Items", len(SALES_ROWS)])
        summary.append(["Checked", True])
        summary["A1"].font = openpyxl.styles.Font(bold=True)
    book.save(path)
    return path


def docx_file(path: Path, paragraphs: list[str], table: list[list[str]] | None = None) -> Path:
    document = Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    document.save(path)
    return path


def pptx_file(
    path: Path, title: str = "Quarterly review", bullets: tuple[str, ...] = ("Growth", "Costs")
) -> Path:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    body = slide.placeholders[1].text_frame
    body.text = bullets[0]
    for line in bullets[1:]:
        body.add_paragraph().text = line
    box = slide.shapes.add_textbox(Inches(1), Inches(6), Inches(4), Inches(1))
    box.text_frame.text = "footer"
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(12)
    deck.save(path)
    return path


def move_first_textbox(path: Path, target: Path) -> Path:
    deck = Presentation(path)
    shape = deck.slides[0].shapes[-1]
    shape.left += Inches(1)
    deck.save(target)
    return target
