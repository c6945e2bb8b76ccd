"""Generic mutators of a deliverable, one per requirement kind, for the checker sensitivity test.

    for mutation in mutations(Path("report.xlsx"), original=Path("input.xlsx")):
        mutation.apply(path)   # changes the file in place

Kinds: `value` (one written value is wrong), `row` (one written row, paragraph or line is missing),
`format` (a number format, heading style or font of written content is changed; only when the
deliverable has such formatting) and `extra` (content the task did not ask to touch is changed;
only when the file existed before the task, `original`). "Written" means new or changed against
`original`. Workbooks are saved by openpyxl and recalculated by headless LibreOffice when they hold
formulas, so cached values stay consistent. SQLite databases get `value`, `row` and `extra`
mutations of their table rows.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pptx
from openpyxl.cell.cell import Cell

from stateact.evals import settings

VALUE, ROW, FORMAT, EXTRA = "value", "row", "format", "extra"
KINDS = (VALUE, ROW, FORMAT, EXTRA)
TEXT_SUFFIXES = {".csv", ".txt", ".md", ".tsv"}
DATABASE_SUFFIXES = {".db", ".sqlite", ".sqlite3"}
_DIGIT = re.compile(r"\d")
_DECIMAL = re.compile(r"\b\d+\.\d+\b")


@dataclass(frozen=True)
class Mutation:
    kind: str
    note: str
    """What was changed, for the printout."""
    apply: Callable[[Path], None]


def supported(path: Path) -> bool:
    return path.suffix.lower() in {".xlsx", ".docx", ".pptx"} | TEXT_SUFFIXES | DATABASE_SUFFIXES


def mutations(path: Path, original: Path | None) -> list[Mutation]:
    """The mutations that apply to the deliverable at `path` (kinds in KINDS order); [] for other types."""
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return _xlsx(path, original)
    if suffix == ".docx":
        return _docx(path, original)
    if suffix == ".pptx":
        return _pptx(path, original)
    if suffix in TEXT_SUFFIXES:
        return _text(path, original)
    if suffix in DATABASE_SUFFIXES:
        return _database(path, original)
    return []


def roundtrip(path: Path) -> None:
    """Load and save the file with the saver its mutations use, changing nothing (the control)."""
    savers = {".xlsx": _edit_book, ".docx": _edit_doc, ".pptx": _edit_deck}
    savers.update(dict.fromkeys(DATABASE_SUFFIXES, _edit_db))
    saver = savers.get(path.suffix.lower(), _edit_lines)
    saver(lambda _: None)(path)


def wrong_text(text: str) -> str:
    """The text with its first digit changed, or else with a letter added."""
    match = _DIGIT.search(text)
    if match is None:
        return text + "x"
    digit = str((int(match.group()) + 1) % 10)
    return text[: match.start()] + digit + text[match.end() :]


def _middle(items: list[Any]) -> Any:
    return items[len(items) // 2]


# -- workbooks -----------------------------------------------------------------------------
def _cells(path: Path) -> dict[tuple[str, str], Any]:
    book = openpyxl.load_workbook(path)
    return {
        (ws.title, c.coordinate): c.value
        for ws in book
        for row in ws.iter_rows()
        for c in row
        if c.value is not None
    }


def _xlsx(path: Path, original: Path | None) -> list[Mutation]:
    now = _cells(path)
    before = _cells(original) if original is not None else {}
    written = sorted(key for key, value in now.items() if before.get(key) != value)
    if not written:
        return []
    cached = openpyxl.load_workbook(path, data_only=True)
    numeric = [
        k
        for k in written
        if isinstance(cached[k[0]][k[1]].value, int | float)
        and not isinstance(cached[k[0]][k[1]].value, bool)
    ]
    target = _middle(numeric or written)
    found: list[Mutation] = [
        Mutation(
            VALUE,
            f"{target[0]}!{target[1]} changed",
            _edit_book(lambda b, key=target: _wrong_cell(b, cached, key)),
        )
    ]
    rows = sorted(
        {(sheet, int(re.sub(r"\D", "", ref))) for sheet, ref in written} - {(s, 1) for s, _ in written}
    )
    if rows:
        sheet, row = _middle(rows)
        found.append(
            Mutation(
                ROW, f"{sheet} row {row} deleted", _edit_book(lambda b, s=sheet, r=row: b[s].delete_rows(r))
            )
        )
    book = openpyxl.load_workbook(path)
    formatted = [k for k in numeric if book[k[0]][k[1]].number_format != "General"]
    if formatted:
        sheet, ref = _middle(formatted)
        found.append(
            Mutation(
                FORMAT,
                f"{sheet}!{ref} number format changed",
                _edit_book(lambda b, s=sheet, r=ref: _reformat(b[s][r])),
            )
        )
    untouched = sorted(key for key in before if key in now and key not in written and key[1] != "A1")
    if untouched:
        sheet, ref = _middle(untouched)
        found.append(
            Mutation(
                EXTRA,
                f"untouched {sheet}!{ref} changed",
                _edit_book(lambda b, key=(sheet, ref): _wrong_cell(b, cached, key)),
            )
        )
    return found


def _wrong_cell(book: openpyxl.Workbook, cached: openpyxl.Workbook, key: tuple[str, str]) -> None:
    value = cached[key[0]][key[1]].value
    if isinstance(value, int | float) and not isinstance(value, bool):
        book[key[0]][key[1]].value = value + 1
    else:
        book[key[0]][key[1]].value = wrong_text(str(value))


def _reformat(cell: Cell) -> None:
    cell.number_format = "0.000" if cell.number_format == "General" else "General"


def _edit_book(change: Callable[[openpyxl.Workbook], None]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        book = openpyxl.load_workbook(path)
        change(book)
        book.save(path)
        if any(
            isinstance(c.value, str) and c.value.startswith("=")
            for ws in book
            for row in ws.iter_rows()
            for c in row
        ):
            recalculate(path)

    return apply


def recalculate(path: Path) -> None:
    """Recompute a workbook's formulas (and their cached values) with headless LibreOffice, in place."""
    with tempfile.TemporaryDirectory(prefix="stateact-recalc-") as work:
        profile = Path(work) / "profile"
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless",
                "--convert-to",
                "xlsx",
                "--outdir",
                work,
                str(path),
            ],
            check=True,
            capture_output=True,
            timeout=settings.MUTATION_RECALC_TIMEOUT_S,
        )
        path.write_bytes((Path(work) / path.name).read_bytes())


# -- documents -----------------------------------------------------------------------------
def _texts(path: Path | None) -> set[str]:
    return set() if path is None else {p.text for p in docx.Document(str(path)).paragraphs if p.text.strip()}


def _docx(path: Path, original: Path | None) -> list[Mutation]:
    document = docx.Document(str(path))
    before = _texts(original)
    paragraphs = [i for i, p in enumerate(document.paragraphs) if p.text.strip() and p.text not in before]
    cells = [
        (t, r, c)
        for t, table in enumerate(document.tables)
        for r, row in enumerate(table.rows)
        for c, cell in enumerate(row.cells)
        if r > 0 and _DIGIT.search(cell.text)
    ]
    found: list[Mutation] = []
    if cells:
        t, r, c = _middle(cells)
        found.append(
            Mutation(
                VALUE,
                f"table {t} cell {r},{c} changed",
                _edit_doc(
                    lambda d, t=t, r=r, c=c: _set_text(d.tables[t].rows[r].cells[c].paragraphs[0], wrong_text)
                ),
            )
        )
    elif paragraphs:
        i = _middle(paragraphs)
        found.append(
            Mutation(
                VALUE,
                f"paragraph {i} changed",
                _edit_doc(lambda d, i=i: _set_text(d.paragraphs[i], wrong_text)),
            )
        )
    bodies = [(t, len(table.rows) - 1) for t, table in enumerate(document.tables) if len(table.rows) > 2]
    if bodies:
        t, r = bodies[0]
        found.append(
            Mutation(
                ROW,
                f"table {t} row {r} deleted",
                _edit_doc(lambda d, t=t, r=r: _drop(d.tables[t].rows[r]._tr)),
            )
        )
    elif len(paragraphs) > 1:
        i = _middle(paragraphs)
        found.append(
            Mutation(ROW, f"paragraph {i} deleted", _edit_doc(lambda d, i=i: _drop(d.paragraphs[i]._p)))
        )
    headings = [i for i in paragraphs if document.paragraphs[i].style.name.startswith(("Heading", "Title"))]
    bold = [i for i in paragraphs if any(run.bold for run in document.paragraphs[i].runs)]
    if headings:
        i = headings[0]
        found.append(
            Mutation(
                FORMAT,
                f"paragraph {i} restyled Normal",
                _edit_doc(lambda d, i=i: setattr(d.paragraphs[i], "style", d.styles["Normal"])),
            )
        )
    elif bold:
        i = bold[0]
        found.append(
            Mutation(
                FORMAT,
                f"paragraph {i} unbolded",
                _edit_doc(lambda d, i=i: [setattr(run, "bold", False) for run in d.paragraphs[i].runs]),
            )
        )
    kept = [i for i, p in enumerate(document.paragraphs) if p.text in before and p.text.strip()]
    if kept:
        i = _middle(kept)
        found.append(
            Mutation(
                EXTRA,
                f"untouched paragraph {i} changed",
                _edit_doc(lambda d, i=i: _set_text(d.paragraphs[i], wrong_text)),
            )
        )
    return found


def _set_text(paragraph: Any, change: Callable[[str], str]) -> None:
    """Change a paragraph's text, keeping its first run's formatting."""
    text = change(paragraph.text)
    runs = paragraph.runs
    if not runs:
        paragraph.add_run(text)
        return
    runs[0].text = text
    for run in runs[1:]:
        run.text = ""


def _drop(element: Any) -> None:
    element.getparent().remove(element)


def _edit_doc(change: Callable[[Any], Any]) -> Callable[[Path], None]:
    return _edit_saved(docx.Document, change)


def _edit_saved(load: Callable[[str], Any], change: Callable[[Any], Any]) -> Callable[[Path], None]:
    """Open the file with `load` (python-docx or python-pptx), `change` it and save it in place."""

    def apply(path: Path) -> None:
        opened = load(str(path))
        change(opened)
        opened.save(str(path))

    return apply


# -- presentations -------------------------------------------------------------------------
def _shape_texts(path: Path | None) -> set[str]:
    if path is None:
        return set()
    return {
        p.text
        for slide in pptx.Presentation(str(path)).slides
        for sh in slide.shapes
        if sh.has_text_frame
        for p in sh.text_frame.paragraphs
        if p.text.strip()
    }


def _pptx(path: Path, original: Path | None) -> list[Mutation]:
    deck = pptx.Presentation(str(path))
    before = _shape_texts(original)
    tables = [
        (s, k) for s, slide in enumerate(deck.slides) for k, sh in enumerate(slide.shapes) if sh.has_table
    ]
    paragraphs = [
        (s, k, j)
        for s, slide in enumerate(deck.slides)
        for k, sh in enumerate(slide.shapes)
        if sh.has_text_frame
        for j, p in enumerate(sh.text_frame.paragraphs)
        if p.text.strip() and p.text not in before
    ]
    found: list[Mutation] = []

    def shape(d: Any, s: int, k: int) -> Any:
        return list(d.slides)[s].shapes[k]

    if tables:
        s, k = tables[-1]
        r = len(shape(deck, s, k).table.rows) - 1
        found.append(
            Mutation(
                VALUE,
                f"slide {s + 1} table cell {r},last changed",
                _edit_deck(
                    lambda d, s=s, k=k, r=r: _set_text(
                        shape(d, s, k)
                        .table.cell(r, len(shape(d, s, k).table.columns) - 1)
                        .text_frame.paragraphs[0],
                        wrong_text,
                    )
                ),
            )
        )
        if r > 1:
            found.append(
                Mutation(
                    ROW,
                    f"slide {s + 1} table row {r} deleted",
                    _edit_deck(lambda d, s=s, k=k, r=r: _drop(shape(d, s, k).table._tbl.tr_lst[r])),
                )
            )
    elif paragraphs:
        s, k, j = _middle(paragraphs)
        found.append(
            Mutation(
                VALUE,
                f"slide {s + 1} text changed",
                _edit_deck(
                    lambda d, s=s, k=k, j=j: _set_text(shape(d, s, k).text_frame.paragraphs[j], wrong_text)
                ),
            )
        )
    lists = [(s, k, j) for s, k, j in paragraphs if len(shape(deck, s, k).text_frame.paragraphs) > 1]
    if not tables and lists:
        s, k, j = _middle(lists)
        found.append(
            Mutation(
                ROW,
                f"slide {s + 1} paragraph deleted",
                _edit_deck(lambda d, s=s, k=k, j=j: _drop(shape(d, s, k).text_frame.paragraphs[j]._p)),
            )
        )
    styled = [
        (s, k, j)
        for s, k, j in paragraphs
        if any(
            r.font.bold or r.font.size or r.font.name for r in shape(deck, s, k).text_frame.paragraphs[j].runs
        )
    ]
    if styled:
        s, k, j = styled[0]
        found.append(
            Mutation(
                FORMAT,
                f"slide {s + 1} run font changed",
                _edit_deck(
                    lambda d, s=s, k=k, j=j: _refont(shape(d, s, k).text_frame.paragraphs[j].runs[0].font)
                ),
            )
        )
    kept = [
        (s, k, j)
        for s, slide in enumerate(deck.slides)
        for k, sh in enumerate(slide.shapes)
        if sh.has_text_frame
        for j, p in enumerate(sh.text_frame.paragraphs)
        if p.text.strip() and p.text in before
    ]
    if kept:
        s, k, j = _middle(kept)
        found.append(
            Mutation(
                EXTRA,
                f"untouched slide {s + 1} text changed",
                _edit_deck(
                    lambda d, s=s, k=k, j=j: _set_text(shape(d, s, k).text_frame.paragraphs[j], wrong_text)
                ),
            )
        )
    return found


def _refont(font: Any) -> None:
    if font.bold:
        font.bold = False
    elif font.size:
        font.size = font.size + pptx.util.Pt(settings.MUTATION_FONT_STEP_PT)
    else:
        font.name = settings.MUTATION_FONT_NAME


def _edit_deck(change: Callable[[Any], Any]) -> Callable[[Path], None]:
    return _edit_saved(pptx.Presentation, change)


# -- text and CSV --------------------------------------------------------------------------
def _lines(path: Path | None) -> list[str]:
    return [] if path is None else path.read_text(encoding="utf-8", errors="replace").splitlines()


def _text(path: Path, original: Path | None) -> list[Mutation]:
    lines, before = _lines(path), set(_lines(original))
    written = [i for i, line in enumerate(lines) if line.strip() and line not in before and i > 0]
    written = written or [i for i, line in enumerate(lines) if line.strip() and line not in before]
    found: list[Mutation] = []
    if written:
        i = _middle(written)
        found.append(
            Mutation(
                VALUE,
                f"line {i + 1} changed",
                _edit_lines(lambda ls, i=i: ls.__setitem__(i, wrong_text(ls[i]))),
            )
        )
        found.append(Mutation(ROW, f"line {i + 1} deleted", _edit_lines(lambda ls, i=i: ls.pop(i))))
    decimals = [i for i in written if _DECIMAL.search(lines[i])]
    if path.suffix.lower() in {".csv", ".tsv"} and decimals:
        i = decimals[0]
        found.append(
            Mutation(
                FORMAT,
                f"line {i + 1} number reformatted",
                _edit_lines(
                    lambda ls, i=i: ls.__setitem__(i, _DECIMAL.sub(lambda m: m.group() + "0", ls[i], count=1))
                ),
            )
        )
    kept = [i for i, line in enumerate(lines) if line.strip() and line in before]
    if kept:
        i = _middle(kept)
        found.append(
            Mutation(
                EXTRA,
                f"untouched line {i + 1} changed",
                _edit_lines(lambda ls, i=i: ls.__setitem__(i, wrong_text(ls[i]))),
            )
        )
    return found


def _edit_lines(change: Callable[[list[str]], Any]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        data = path.read_bytes()
        newline = "\r\n" if b"\r\n" in data else "\n"
        lines = data.decode("utf-8", errors="replace").splitlines()
        change(lines)
        path.write_text(newline.join(lines) + (newline if data.endswith(b"\n") else ""), encoding="utf-8")

    return apply


# -- SQLite databases ----------------------------------------------------------------------
def _rows(path: Path | None) -> dict[tuple[str, int], tuple[Any, ...]]:
    """Every row of every table, by (table, rowid)."""
    if path is None:
        return {}
    db = sqlite3.connect(path)
    try:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            (table, row[0]): tuple(row[1:])
            for table in tables
            if not table.startswith("sqlite_")
            for row in db.execute(f'SELECT rowid, * FROM "{table}"')
        }
    finally:
        db.close()


def _database(path: Path, original: Path | None) -> list[Mutation]:
    now, before = _rows(path), _rows(original)
    written = sorted(key for key, values in now.items() if before.get(key) != values)
    kept = sorted(key for key, values in now.items() if before.get(key) == values)
    found: list[Mutation] = []
    if written:
        key = _middle(written)
        found.append(
            Mutation(
                VALUE, f"{key[0]} row {key[1]} changed", _edit_db(lambda db, k=key: _wrong_row(db, k, now[k]))
            )
        )
        found.append(
            Mutation(
                ROW,
                f"{key[0]} row {key[1]} deleted",
                _edit_db(lambda db, k=key: db.execute(f'DELETE FROM "{k[0]}" WHERE rowid = ?', (k[1],))),
            )
        )
    if kept and original is not None:
        key = _middle(kept)
        found.append(
            Mutation(
                EXTRA,
                f"untouched {key[0]} row {key[1]} changed",
                _edit_db(lambda db, k=key: _wrong_row(db, k, now[k])),
            )
        )
    return found


def _wrong_row(db: sqlite3.Connection, key: tuple[str, int], values: tuple[Any, ...]) -> None:
    """Change the row's first number (plus one), else its first text (wrong_text); never its key."""
    info = list(db.execute(f'PRAGMA table_info("{key[0]}")'))
    data = [i for i, column in enumerate(info) if not column[5]]  # column[5]: its place in the primary key
    numbers = [i for i in data if isinstance(values[i], int | float) and not isinstance(values[i], bool)]
    texts = [i for i in data if isinstance(values[i], str)]
    i = (numbers or texts)[0]
    value = values[i] + 1 if numbers else wrong_text(values[i])
    db.execute(f'UPDATE "{key[0]}" SET "{info[i][1]}" = ? WHERE rowid = ?', (value, key[1]))


def _edit_db(change: Callable[[sqlite3.Connection], Any]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        db = sqlite3.connect(path)
        try:
            change(db)
            db.commit()
        finally:
            db.close()

    return apply
