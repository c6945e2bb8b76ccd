"""Read-only probes of saved files, run INSIDE the sandbox.

gate/inspect/probes.py places this file in the sandbox once (beside the office toolkit, whose folder
is on sys.path here) and then calls `main` with a request; it prints one JSON object. It
depends only on the standard library and the toolkit's `_odt` and `_officekit`; openpyxl, python-docx and
python-pptx are imported when present. Every file is opened for reading only; SQLite
databases through a read-only URI.

Request: {"probe": NAME, "args": {...}}. Probes: file_facts, spreadsheet, document,
presentation, data, sqlite, named_cells, snapshot_take, snapshot_check, formula_recalc.
"""

import contextlib
import csv
import datetime
import decimal
import glob
import hashlib
import io
import json
import math
import os
import pathlib
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile

import _odt  # the office toolkit's .odt reader; the toolkit's folder is on sys.path (see gate/inspect/probes.py)
from _officekit import drawing_kinds

OOXML_MAIN = {
    "xlsx": "xl/workbook.xml",
    "xlsm": "xl/workbook.xml",
    "docx": "word/document.xml",
    "pptx": "ppt/presentation.xml",
}
ODF_MIME = {
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odt": "application/vnd.oasis.opendocument.text",
    "odp": "application/vnd.oasis.opendocument.presentation",
}
TEXT_EXTS = {
    "txt",
    "csv",
    "tsv",
    "json",
    "md",
    "html",
    "htm",
    "xml",
    "py",
    "sh",
    "ini",
    "cfg",
    "yaml",
    "yml",
    "log",
    "tex",
    "svg",
}


def expand(path):
    return os.path.abspath(os.path.expanduser(path))


def plain(value):
    """A JSON-safe form of a cell or field value."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, datetime.timedelta)):
        return str(value)
    return str(value)


def lock_file(path):
    """LibreOffice's lock file for `path` (`.~lock.NAME#` beside it) if present: its owner line, its mtime
    (LibreOffice writes it when it opens the document and when it starts saving it) and whether any
    LibreOffice runs (a lock without one is left over from a crash)."""
    lock = os.path.join(os.path.dirname(path), ".~lock." + os.path.basename(path) + "#")
    if not os.path.exists(lock):
        return None
    try:
        with open(lock, "rb") as handle:
            owner = handle.read(300).decode("utf-8", "replace").strip()
        mtime = os.stat(lock).st_mtime
    except OSError:
        owner, mtime = "", None
    return {"path": lock, "owner": owner, "mtime": mtime, "libreoffice_running": libreoffice_running()}


def libreoffice_running():
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        with contextlib.suppress(OSError), open(os.path.join("/proc", pid, "cmdline"), "rb") as handle:
            if os.path.basename(handle.read().split(b"\0")[0]) == b"soffice.bin":
                return True
    return False


def sniff_format(path):
    """What the bytes say the file is."""
    with open(path, "rb") as handle:
        head = handle.read(16)
    if head.startswith(b"PK"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                if "mimetype" in names:
                    mime = archive.read("mimetype").decode("ascii", "replace").strip()
                    for ext, known in ODF_MIME.items():
                        if mime == known:
                            return ext
                    return "zip:" + mime
                for ext, main in OOXML_MAIN.items():
                    if main in names:
                        return ext
                return "zip"
        except zipfile.BadZipFile:
            return "corrupt-zip"
    if head.startswith(b"SQLite format 3"):
        return "sqlite"
    if head.startswith(b"%PDF"):
        return "pdf"
    if head.startswith(b"\x89PNG"):
        return "png"
    if head.startswith(b"\xff\xd8"):
        return "jpg"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "ole"
    try:
        with open(path, "rb") as handle:
            handle.read(65536).decode("utf-8")
        return "text"
    except UnicodeDecodeError:
        return "binary"


def format_matches(ext, sniffed):
    if ext in ("xlsm",):
        ext = "xlsx"
    if ext in OOXML_MAIN or ext in ODF_MIME or ext in ("sqlite", "pdf", "png"):
        return sniffed == ext
    if ext in ("db", "sqlite3"):
        return sniffed == "sqlite"
    if ext in ("jpg", "jpeg"):
        return sniffed == "jpg"
    if ext in ("xls", "doc", "ppt"):
        return sniffed == "ole"
    if ext in TEXT_EXTS:
        return sniffed == "text"
    return None


def parse_check(path, ext):
    """Open the file with the reader its extension calls for; returns an error text or None."""
    try:
        if ext in ("xlsx", "xlsm"):
            import openpyxl

            openpyxl.load_workbook(path, read_only=True).close()
        elif ext == "docx":
            import docx

            docx.Document(path)
        elif ext == "pptx":
            import pptx

            pptx.Presentation(path)
        elif ext in ODF_MIME:
            with zipfile.ZipFile(path) as archive:
                ET.fromstring(archive.read("content.xml"))
        elif ext == "json":
            with open(path, encoding="utf-8") as handle:
                json.load(handle)
        elif ext in ("csv", "tsv"):
            with open(path, encoding="utf-8-sig", newline="") as handle:
                list(csv.reader(handle))
        elif ext in ("db", "sqlite", "sqlite3"):
            connection = sqlite3.connect(readonly_uri(path), uri=True)
            try:
                connection.execute("select count(*) from sqlite_master").fetchone()
            finally:
                connection.close()
        elif ext in TEXT_EXTS:
            with open(path, encoding="utf-8") as handle:
                handle.read()
        else:
            return None
    except ImportError as exc:
        return "cannot check: " + str(exc)
    except Exception as exc:  # any reader error means the file does not parse
        return type(exc).__name__ + ": " + str(exc)[:300]
    return None


SPREADSHEET_ERRORS = {
    "#DIV/0!",
    "#N/A",
    "#NAME?",
    "#NULL!",
    "#NUM!",
    "#REF!",
    "#VALUE!",
    "#SPILL!",
    "#CALC!",
    "Err:502",
    "Err:504",
    "Err:508",
    "Err:522",
}


def formula_problems(path, limit=10):
    """Formula cells (Sheet!A1) with no cached value (written by a library, never recalculated) and
    cells whose saved value is a spreadsheet error such as #DIV/0! or #REF!."""
    import openpyxl

    formulas = openpyxl.load_workbook(path, read_only=True)
    values = openpyxl.load_workbook(path, read_only=True, data_only=True)
    uncached, errors = [], []
    try:
        for ws in formulas.worksheets:
            cached_rows = values[ws.title].iter_rows(values_only=True)
            for row, cached in zip(ws.iter_rows(), cached_rows):  # noqa: B905 (runs on older Pythons too)
                for cell, value in zip(row, cached):  # noqa: B905
                    is_formula = isinstance(cell.value, str) and cell.value.startswith("=")
                    if is_formula and value is None and len(uncached) < limit:
                        uncached.append(ws.title + "!" + cell.coordinate)
                    elif isinstance(value, str) and value in SPREADSHEET_ERRORS and len(errors) < limit:
                        errors.append(
                            {
                                "cell": ws.title + "!" + cell.coordinate,
                                "value": value,
                                "formula": cell.value if is_formula else None,
                            }
                        )
    finally:
        formulas.close()
        values.close()
    return {"uncached": uncached, "errors": errors}


def ods_formula_problems(path, limit=10):
    """Cells of an .ods whose saved value is a spreadsheet error (LibreOffice always caches results)."""
    errors = []
    for name, cells in ods_sheets(path).items():
        for entry in cells.values():
            if (
                isinstance(entry["value"], str)
                and entry["value"] in SPREADSHEET_ERRORS
                and len(errors) < limit
            ):
                errors.append(
                    {
                        "cell": name + "!" + entry["cell"],
                        "value": entry["value"],
                        "formula": entry.get("formula"),
                    }
                )
    return {"uncached": [], "errors": errors}


def readonly_uri(path):
    return "file:" + urllib.parse.quote(path) + "?mode=ro"


def same_name_elsewhere(path, limit=10):
    """Files with the same name under the home folder (hidden folders skipped)."""
    name = os.path.basename(path)
    found = []
    for root, dirs, files in os.walk(os.path.expanduser("~")):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if name in files:
            found.append(os.path.join(root, name))
            if len(found) >= limit:
                break
    return found


def file_facts(paths, since=None, parse=True):
    out = []
    for raw in paths:
        fact = {"path": raw, "resolved": expand(raw)}
        try:
            fact.update(one_file_facts(fact["resolved"], since, parse))
        except Exception as exc:  # one unreadable path does not hide the others
            fact.setdefault("exists", os.path.exists(fact["resolved"]))
            fact["error"] = type(exc).__name__ + ": " + str(exc)[:300]
        out.append(fact)
    return {"files": out}


def one_file_facts(path, since, parse):
    fact = {"exists": os.path.exists(path), "lock_file": lock_file(path)}
    if not fact["exists"]:
        fact["same_name_elsewhere"] = same_name_elsewhere(path)
        return fact
    stat = os.stat(path)
    fact["is_dir"] = os.path.isdir(path)
    fact["size"] = stat.st_size
    fact["mtime"] = stat.st_mtime
    fact["mtime_text"] = datetime.datetime.fromtimestamp(stat.st_mtime).isoformat(timespec="seconds")
    if since is not None:
        fact["modified_after_start"] = stat.st_mtime > since
    if fact["is_dir"]:
        return fact
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    fact["extension"] = ext
    fact["format"] = sniff_format(path)
    fact["format_matches_extension"] = format_matches(ext, fact["format"])
    if parse:
        fact["parse_error"] = parse_check(path, ext)
        if ext in ("xlsx", "xlsm", "ods") and not fact["parse_error"]:
            try:
                problems = formula_problems(path) if ext != "ods" else ods_formula_problems(path)
                fact["uncached_formulas"], fact["error_cells"] = problems["uncached"], problems["errors"]
            except Exception as exc:  # reported, never fatal to the other facts
                fact["formula_check_error"] = type(exc).__name__ + ": " + str(exc)[:200]
    return fact


def cell_range(ws, spec, limit):
    """Up to `limit` cells of the range (non-empty ones of the whole sheet without one), and how many more."""
    from openpyxl.utils.cell import range_boundaries

    if spec:
        min_col, min_row, max_col, max_row = range_boundaries(spec.upper())
    else:
        min_col, min_row, max_col, max_row = 1, 1, ws.max_column, ws.max_row
    cells, more = [], 0
    for row in ws.iter_rows(
        min_row=min_row or 1,
        max_row=max_row or ws.max_row,
        min_col=min_col or 1,
        max_col=max_col or ws.max_column,
    ):
        for cell in row:
            if cell.value is None and not spec:
                continue
            if len(cells) < limit:
                cells.append(cell)
            else:
                more += 1
    return cells, more


def spreadsheet(path, sheet=None, cells=None, max_cells=400):
    import openpyxl

    path = expand(path)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".ods":
        return ods_spreadsheet(path, sheet, cells, max_cells)
    if ext not in (".xlsx", ".xlsm"):
        return {
            "error": "the spreadsheet probe reads .xlsx, .xlsm and .ods; for "
            + ext
            + " use file_facts or the shell"
        }
    formulas = openpyxl.load_workbook(path, data_only=False)
    values = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for ws in formulas.worksheets:
        charts = [
            {"type": type(chart).__name__, "title": chart_title(chart)}
            for chart in getattr(ws, "_charts", [])
        ]
        sheets.append(
            {
                "name": ws.title,
                "dimensions": ws.dimensions,
                "max_row": ws.max_row,
                "max_column": ws.max_column,
                "charts": charts,
                "images": len(getattr(ws, "_images", [])),
                "merged": [str(r) for r in list(ws.merged_cells.ranges)[:50]],
                "freeze_panes": ws.freeze_panes,
                "state": ws.sheet_state,
            }
        )
    out = {"path": path, "sheets": sheets, "active_sheet": formulas.active.title if formulas.active else None}
    chart_parts = []
    with zipfile.ZipFile(path) as archive:
        chart_parts = [n for n in archive.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)]
    out["chart_parts_in_file"] = len(chart_parts)
    name = sheet or formulas.active.title
    if name not in formulas.sheetnames:
        out["error"] = "no sheet named " + repr(name) + "; sheets: " + ", ".join(formulas.sheetnames)
        return out
    ws, wv = formulas[name], values[name]
    picked, more = cell_range(ws, cells, max_cells)
    rows = [cell_entry(cell, wv[cell.coordinate].value) for cell in picked]
    uncached = [r["cell"] for r in rows if r.get("formula") and r["value"] is None]
    out["sheet"] = name
    out["cells"] = rows
    out["truncated"] = more > 0
    if more:
        out["more"] = more_cells(more)
    if uncached:
        out["formulas_without_cached_value"] = uncached[:50]
        out["note"] = (
            "these formulas have no cached value: the file was written by a library and never recalculated; "
            "checkers that read values see them as empty"
        )
    return out


ODF = {
    "table": "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}",
    "office": "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}",
    "text": "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}",
}
ODS_MAX_REPEAT = 1000
"""Repeated empty rows/columns (LibreOffice pads sheets with them) are expanded at most this far."""


def column_letters(index):
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def ods_cell_value(element):
    kind = element.get(ODF["office"] + "value-type")
    if kind in ("float", "percentage", "currency"):
        number = float(element.get(ODF["office"] + "value"))
        return int(number) if number.is_integer() else number
    if kind == "date":
        return element.get(ODF["office"] + "date-value")
    if kind == "time":
        return element.get(ODF["office"] + "time-value")
    if kind == "boolean":
        return element.get(ODF["office"] + "boolean-value") == "true"
    text = "\n".join(_odt.element_text(p) for p in element.findall(ODF["text"] + "p"))
    return text if kind or text else None


def ods_sheets(path):
    """Sheet name -> {coordinate: entry} for the non-empty cells of an .ods file."""
    with zipfile.ZipFile(path) as archive:
        root = ET.fromstring(archive.read("content.xml"))
    sheets = {}
    for table in root.iter(ODF["table"] + "table"):
        cells, row_number = {}, 0
        for row in table.iter(ODF["table"] + "table-row"):
            rows = int(row.get(ODF["table"] + "number-rows-repeated", "1"))
            parsed, column = [], 0
            for element in row:
                if not element.tag.endswith(("}table-cell", "}covered-table-cell")):
                    continue
                repeat = int(element.get(ODF["table"] + "number-columns-repeated", "1"))
                value, formula = ods_cell_value(element), element.get(ODF["table"] + "formula")
                if value is not None or formula:
                    parsed.extend(
                        (column + i + 1, value, formula) for i in range(min(repeat, ODS_MAX_REPEAT))
                    )
                column += repeat
            for offset in range(min(rows, ODS_MAX_REPEAT) if parsed else 0):
                for col, value, formula in parsed:
                    entry = {"cell": column_letters(col) + str(row_number + offset + 1), "value": value}
                    if formula:
                        entry["formula"] = formula
                    cells[entry["cell"]] = entry
            row_number += rows
        sheets[table.get(ODF["table"] + "name")] = cells
    return sheets


def ods_spreadsheet(path, sheet, cells, max_cells):
    from_ref = None
    if cells:
        match = re.fullmatch(r"([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?", cells.upper())
        if not match:
            return {"error": "cells must look like A1 or A1:D20"}
        first_col, first_row, last_col, last_row = match.groups()
        from_ref = (
            column_number(first_col),
            int(first_row),
            column_number(last_col or first_col),
            int(last_row or first_row),
        )
    sheets = ods_sheets(path)
    names = list(sheets)
    out = {"path": path, "sheets": [{"name": n, "non_empty_cells": len(c)} for n, c in sheets.items()]}
    name = sheet or (names[0] if names else None)
    if name not in sheets:
        out["error"] = "no sheet named " + repr(name) + "; sheets: " + ", ".join(names)
        return out
    picked = []
    for entry in sheets[name].values():
        letters, number = re.fullmatch(r"([A-Z]+)(\d+)", entry["cell"]).groups()
        col = column_number(letters)
        if from_ref and not (from_ref[0] <= col <= from_ref[2] and from_ref[1] <= int(number) <= from_ref[3]):
            continue
        picked.append(entry)
    out.update(sheet=name, cells=picked[:max_cells], truncated=len(picked) > max_cells)
    if len(picked) > max_cells:
        out["more"] = more_cells(len(picked) - max_cells)
    out["note"] = "ods: values and formulas only (no number formats or charts)"
    return out


def more_cells(count):
    """What a truncated cell list says about the cells it left out."""
    return f"... and {count} more cells (ask for a range to see them)"


def column_number(letters):
    number = 0
    for char in letters:
        number = number * 26 + ord(char) - 64
    return number


def cell_entry(cell, cached):
    """A cell as the gate sees it: cached value, formula, number format, unusual type."""
    entry = {"cell": cell.coordinate, "value": plain(cached)}
    formula = cell_formula(cell.value)
    if formula:
        entry["formula"] = formula
    if cell.number_format and cell.number_format != "General":
        entry["number_format"] = cell.number_format
    if cell.data_type not in ("n", "s", "f") and cell.value is not None:
        entry["type"] = cell.data_type
    return entry


def named_cells(path, refs, limit):
    """The cells an instruction names, read from the workbook at `path`, on the sheets it names for them.

    Each ref is {cells, sheets}. A named sheet the workbook lacks is reported; a cell with no
    (existing) sheet named is shown on every sheet. At most `limit` cells in all; each ref says how many
    of its cells were left out.
    """
    import openpyxl
    from openpyxl.utils.cell import range_boundaries

    path = expand(path)
    formulas = openpyxl.load_workbook(path, data_only=False)
    values = openpyxl.load_workbook(path, data_only=True)
    by_lower = {name.lower(): name for name in formulas.sheetnames}
    budget = limit
    out = []
    for ref in refs:
        named = ref.get("sheets") or []
        present = [by_lower[n.lower()] for n in named if n.lower() in by_lower]
        missing = [n for n in named if n.lower() not in by_lower]
        group, notes = {"ref": ref["cells"]}, []
        sheets = present or formulas.sheetnames
        if missing:
            names, all_names = ", ".join(repr(n) for n in missing), ", ".join(formulas.sheetnames)
            notes.append(
                f"the instruction names sheet {names}, which the workbook does not have (its sheets: {all_names})"
            )
        if not present and len(sheets) > 1:
            lead = "so it is" if named else "no sheet is named for it; it is"
            notes.append(f"{lead} shown on each of the {len(sheets)} sheets (which one is meant is unsure)")
        elif len(present) > 1:
            notes.append("its sentence names several sheets; shown on each")
        try:
            min_col, min_row, max_col, max_row = range_boundaries(ref["cells"].upper())
        except ValueError as exc:
            group["note"] = f"not a cell reference: {exc}"
            out.append(group)
            continue
        area = (max_col - min_col + 1) * (max_row - min_row + 1)
        cells, left = [], 0
        for name in sheets:
            take = min(budget, area)
            left += area - take
            budget -= take
            rows = formulas[name].iter_rows(
                min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col
            )
            for cell in (cell for row in rows for cell in row):
                if take == 0:
                    break
                take -= 1
                entry = cell_entry(cell, values[name][cell.coordinate].value)
                entry["cell"] = sheet_label(name) + "!" + cell.coordinate
                cells.append(entry)
        group["cells"] = cells
        if left:
            group["more"] = more_cells(left)
        if notes:
            group["note"] = "; ".join(notes)
        out.append(group)
    return {"refs": out}


def sheet_label(name):
    """A sheet name as a formula writes it: quoted when it is not a plain word."""
    return name if re.fullmatch(r"[A-Za-z_][\w.]*", name) else "'" + name.replace("'", "''") + "'"


def chart_title(chart):
    try:
        title = chart.title
        if title is None:
            return None
        if isinstance(title, str):
            return title
        texts = []
        for paragraph in title.tx.rich.p:
            for run in paragraph.r or []:
                texts.append(run.t)
        return "".join(texts)
    except Exception:
        return None


def run_font(run):
    font = run.font
    facts = {}
    for key in ("name", "size", "bold", "italic", "underline"):
        value = getattr(font, key, None)
        if value is not None:
            facts[key] = value.pt if key == "size" and hasattr(value, "pt") else plain(value)
    try:
        if font.color is not None and font.color.type is not None and font.color.rgb is not None:
            facts["color"] = str(font.color.rgb)
    except Exception:
        pass
    return facts


def style_font(style):
    """Font facts a paragraph style gives its runs, following the style's base styles."""
    facts = {}
    while style is not None:
        for key, value in run_font(style).items():
            facts.setdefault(key, value)
        style = style.base_style
    return facts


def document(path, start=1, limit=300, fonts=True):
    """Paragraphs from number `start` (1 is the first, as the change list counts them), tables, sections."""
    path = expand(path)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".docx":
        return docx_document(path, start, limit, fonts)
    if ext == ".odt":
        return odt_document(path, start, limit)
    return {"error": "the document probe reads .docx and .odt; use `data` for text files"}


def docx_document(path, start, limit, fonts):
    import docx

    doc = docx.Document(path)
    paragraphs = []
    for number, paragraph in enumerate(doc.paragraphs, start=1):
        if number < start:
            continue
        if len(paragraphs) >= limit:
            break
        entry = {
            "n": number,
            "text": paragraph.text,
            "style": paragraph.style.name if paragraph.style is not None else None,
        }
        if paragraph.alignment is not None:
            entry["alignment"] = str(paragraph.alignment)
        inherited = style_font(paragraph.style) if fonts and paragraph.style is not None else {}
        if inherited:
            entry["style_font"] = inherited
        if fonts:
            runs = [dict(run_font(run), text=run.text) for run in paragraph.runs if run.text]
            if runs:
                entry["runs"] = runs
        paragraphs.append(entry)
    tables = []
    for table in doc.tables[:20]:
        tables.append([[cell.text for cell in row.cells] for row in table.rows[:100]])
    sections = []
    for section in doc.sections:
        sections.append(
            {
                "orientation": str(section.orientation),
                "page_width_cm": round(section.page_width.cm, 2) if section.page_width else None,
                "page_height_cm": round(section.page_height.cm, 2) if section.page_height else None,
                "header": "\n".join(p.text for p in section.header.paragraphs) if section.header else "",
                "footer": "\n".join(p.text for p in section.footer.paragraphs) if section.footer else "",
            }
        )
    return {
        "path": path,
        "paragraph_count": len(doc.paragraphs),
        "paragraphs": paragraphs,
        "tables": tables,
        "sections": sections,
        "inline_images": len(doc.inline_shapes),
        "drawings": drawing_kinds(doc.element.body),
    }


def odt_document(path, start, limit):
    """Paragraphs and tables of an .odt, read by the office toolkit's reader (`_odt`, beside this code)."""
    blocks = _odt.read_blocks(pathlib.Path(path))
    paragraphs = [block for block in blocks if block.kind == "paragraph"]
    tables = [block for block in blocks if block.kind == "table"]
    return {
        "path": path,
        "paragraph_count": len(paragraphs),
        "paragraphs": [
            {"n": number, "text": block.text, "style": block.style, "heading": block.heading}
            for number, block in enumerate(paragraphs, start=1)
            if number >= start
        ][:limit],
        "tables": [
            {"name": table.style, "rows": [list(row) for row in table.rows[:100]]} for table in tables[:20]
        ],
    }


def presentation(path, limit=300):
    import pptx
    from pptx.util import Emu

    path = expand(path)
    deck = pptx.Presentation(path)
    slides = []
    for number, slide in enumerate(deck.slides, start=1):
        shapes = []
        for shape in slide.shapes:
            entry = {"name": shape.name, "type": str(shape.shape_type), "id": shape.shape_id}
            if shape.is_placeholder:
                entry["placeholder"] = str(shape.placeholder_format.type)
            if shape.has_text_frame:
                entry["text"] = shape.text_frame.text
                fonts = [run_font(r) for p in shape.text_frame.paragraphs for r in p.runs if r.text]
                fonts = [f for f in fonts if f]
                if fonts:
                    entry["fonts"] = fonts[:10]
            if getattr(shape, "has_table", False) and shape.has_table:
                entry["table"] = [[cell.text for cell in row.cells] for row in shape.table.rows]
            if getattr(shape, "has_chart", False) and shape.has_chart:
                entry["chart"] = str(shape.chart.chart_type)
            if shape.left is not None:
                entry["box_cm"] = [
                    round(Emu(v).cm, 2) for v in (shape.left, shape.top, shape.width, shape.height)
                ]
            shapes.append(entry)
            if len(shapes) >= limit:
                break
        notes = slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""
        slides.append({"slide": number, "layout": slide.slide_layout.name, "shapes": shapes, "notes": notes})
    return {
        "path": path,
        "slide_count": len(slides),
        "slide_size_cm": [round(Emu(deck.slide_width).cm, 2), round(Emu(deck.slide_height).cm, 2)],
        "slides": slides,
    }


def data(path, start=1, limit=300, as_text=False):
    path = expand(path)
    ext = "" if as_text else os.path.splitext(path)[1].lower()
    with open(path, "rb") as handle:
        raw = handle.read()
    if as_text and b"\x00" in raw[:65536]:
        return {
            "error": "binary file (" + sniff_format(path) + "); use the probes for office files and databases"
        }
    facts = {"path": path, "bytes": len(raw), "utf8_bom": raw.startswith(b"\xef\xbb\xbf")}
    text = raw.decode("utf-8-sig", errors="replace")
    facts["ends_with_newline"] = text.endswith("\n")
    facts["crlf"] = "\r\n" in text
    if ext == ".json":
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            facts["json_error"] = str(exc)
        else:
            dumped = json.dumps(parsed, indent=1, ensure_ascii=False)
            facts["json"] = parsed if len(dumped) < 20000 else None
            if facts["json"] is None:
                facts["json_truncated"] = dumped[:20000]
        return facts
    if ext in (".csv", ".tsv"):
        delimiter = "\t" if ext == ".tsv" else ","
        with contextlib.suppress(csv.Error):
            delimiter = csv.Sniffer().sniff(text[:5000], delimiters=",;\t|").delimiter
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
        facts["delimiter"] = delimiter
        facts["row_count"] = len(rows)
        facts["blank_rows"] = sum(1 for r in rows if not any(c.strip() for c in r))
        facts["rows"] = [
            {"row": i, "cells": r} for i, r in enumerate(rows, start=1) if start <= i < start + limit
        ]
        return facts
    lines = text.splitlines()
    facts["line_count"] = len(lines)
    facts["lines"] = [
        {"n": i, "text": line} for i, line in enumerate(lines, start=1) if start <= i < start + limit
    ]
    return facts


def home_state(since=None, limit=50, skip=()):
    """Files under the home folder modified after `since`, newest first, and the documents LibreOffice
    holds open there (their lock files). Hidden folders are looked into (apps keep their data in
    ~/.local/share and ~/.config), except the `skip` ones (paths relative to the home: caches, profiles)."""
    found, open_documents = [], []
    home = os.path.expanduser("~")
    skipped = {os.path.join(home, s) for s in skip}
    for root, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in skipped]
        for name in files:
            path = os.path.join(root, name)
            if name.startswith(".~lock.") and name.endswith("#"):
                open_documents.append(os.path.join(root, name[len(".~lock.") : -1]))
                continue
            try:
                mtime = os.stat(path).st_mtime
            except OSError:
                continue
            if since is not None and mtime > since:
                found.append((mtime, path))
    found.sort(reverse=True)
    return {
        "recent": [
            {"path": p, "modified": datetime.datetime.fromtimestamp(m).isoformat(timespec="seconds")}
            for m, p in found[:limit]
        ],
        "more": max(0, len(found) - limit),
        "open_in_libreoffice": sorted(open_documents)[:limit],
    }


def sqlite(path, query, limit=300):
    path = expand(path)
    if not os.path.exists(path):
        return {"error": "no such database: " + path}
    connection = sqlite3.connect(readonly_uri(path), uri=True)
    try:
        connection.execute("PRAGMA query_only = ON")
        cursor = connection.execute(query)
        columns = [c[0] for c in cursor.description or []]
        rows = cursor.fetchmany(limit + 1)
    finally:
        connection.close()
    return {
        "columns": columns,
        "rows": [[plain(v) for v in row] for row in rows[:limit]],
        "truncated": len(rows) > limit,
    }


def fingerprint(roots, files, max_files, hash_max):
    """Path -> [size, mtime, sha256 or None] for the given files and every file under the roots
    (hidden folders skipped)."""
    out = {}

    def add(path):
        if path in out or len(out) >= max_files or not os.path.isfile(path) or os.path.islink(path):
            return
        stat = os.stat(path)
        out[path] = [stat.st_size, stat.st_mtime, file_hash(path) if stat.st_size <= hash_max else None]

    for raw in files:
        add(expand(raw))
    for raw in roots:
        for root, dirs, names in os.walk(expand(raw)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                add(os.path.join(root, name))
    return out


def file_hash(path):
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def snapshot_take(scope, copy_file_max, copy_total_max):
    """Fingerprint the scope and copy files into a new store (deliverables first, then the newest,
    within the caps). The store keeps `state.json`; its hash lets the caller detect tampering."""
    import shutil
    import tempfile

    files = fingerprint(**scope)
    wanted = {expand(p) for p in scope["files"]}
    store = tempfile.mkdtemp(prefix="stateact-gate-snapshot-")
    copies, total = {}, 0
    for path in sorted(files, key=lambda p: (p not in wanted, -files[p][1])):
        size = files[path][0]
        if size > copy_file_max or total + size > copy_total_max:
            continue
        copy = os.path.join(store, str(len(copies)))
        shutil.copy2(path, copy)
        copies[path] = copy
        total += size
    state = os.path.join(store, "state.json")
    with open(state, "w", encoding="utf-8") as handle:
        json.dump({"files": files, "copies": copies}, handle)
    return {
        "store": store,
        "state_sha256": file_hash(state),
        "files": len(files),
        "copies": len(copies),
        "copied_bytes": total,
        "capped": len(files) >= scope["max_files"],
    }


def snapshot_check(store, state_sha256, scope, restore):
    """Compare the scope with the stored fingerprint; with `restore`, put changed files back from their
    verified copies and delete created files. The store is removed."""
    import shutil

    state_path = os.path.join(store, "state.json")
    if file_hash(state_path) != state_sha256:
        return {"error": "the snapshot store was altered; nothing restored"}
    with open(state_path, encoding="utf-8") as handle:
        state = json.load(handle)
    before, copies = state["files"], state["copies"]
    after = fingerprint(**scope)
    changes = []
    for path, (size, mtime, digest) in before.items():
        now = after.get(path)
        if now is None:
            changes.append([path, "deleted"])
        elif now[0] != size or (digest and now[2] and now[2] != digest):
            changes.append([path, "changed"])
        elif now[1] != mtime:
            changes.append([path, "touched"])
    if len(after) < scope["max_files"]:
        changes.extend([path, "created"] for path in after if path not in before)
    restored, removed, failed = [], [], {}
    for path, kind in changes if restore else []:
        try:
            if kind == "created":
                os.remove(path)
                removed.append(path)
            elif path not in copies:
                failed[path] = "no snapshot copy (over the size caps)"
            elif before[path][2] and file_hash(copies[path]) != before[path][2]:
                failed[path] = "the snapshot copy was altered"
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                shutil.copy2(copies[path], path)
                restored.append(path)
        except OSError as exc:
            failed[path] = str(exc)
    shutil.rmtree(store, ignore_errors=True)
    return {"changes": changes, "restored": restored, "removed": removed, "failed": failed}


VOLATILE_CALL = re.compile(r"\b(NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY)\s*\(", re.IGNORECASE)
CELL_REFERENCE = re.compile(
    r"(?<![A-Za-z0-9_])\$?([A-Z]{1,3})\$?(\d+)(?:\s*:\s*[.]?\$?([A-Z]{1,3})\$?(\d+))?(?![A-Za-z0-9_(])"
)
UNEVALUATED = re.compile(r"#NAME\?|Err:5\d\d")
"""Recalculated errors that mean LibreOffice lacks a function the saving program had: not comparable."""


def formula_recalc(path, recalc_timeout, rel_tol, limit):
    """Compare each formula cell's saved value with its value after LibreOffice recalculates a copy.

    The file is copied into a private temporary folder and only the copy is recalculated (by the
    toolkit's office-recalc); the original is only read. Formulas calling NOW/TODAY/RAND..., and
    formulas that reference such cells, are skipped.
    """
    path = expand(path)
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    every = formula_cells(path, ext, with_formulas=True, every_cell=True)
    saved = {key: entry for key, entry in every.items() if entry[0]}
    if not saved:
        return {"status": "nothing_to_check", "formula_cells": 0, "scope": RECALC_NO_FORMULAS}
    short = short_ranges(sheet_grid(every), limit)
    scope = {"scope": RECALC_SCOPE, "ranges_stopping_short": short}
    program = os.path.join(os.path.dirname(os.path.abspath(_odt.__file__)), "office-recalc")
    if not os.path.isfile(program):
        return {
            "status": "could_not_check",
            "reason": "the office toolkit (office-recalc) is not installed",
            **scope,
        }
    work = tempfile.mkdtemp(prefix="stateact-gate-recalc-")
    try:
        copy = os.path.join(work, "copy." + ext)
        shutil.copyfile(path, copy)
        failure = run_recalc(program, copy, work, recalc_timeout)
        if failure:
            return {"status": "could_not_check", "reason": failure, **scope}
        recalculated = formula_cells(copy, ext, with_formulas=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    volatile = volatile_cells(saved)
    mismatches, compared, not_comparable = [], 0, 0
    for key, (formula, value) in saved.items():
        if not formula or key in volatile or value is None:
            continue
        new = recalculated.get(key, (None, None))[1]
        if isinstance(new, str) and UNEVALUATED.fullmatch(new) and new != value:
            not_comparable += 1
            continue
        compared += 1
        if not same_value(value, new, rel_tol):
            mismatches.append(
                {
                    "cell": key[0] + "!" + key[1],
                    "formula": formula,
                    "saved": plain(value),
                    "recalculated": plain(new),
                }
            )
    return {
        "status": "checked",
        "compared": compared,
        "skipped_volatile": len(volatile),
        "not_comparable": not_comparable,
        "mismatch_count": len(mismatches),
        "mismatches": mismatches[:limit],
        **scope,
    }


RECALC_NO_FORMULAS = (
    "the workbook's cells hold values only, no formulas: there was nothing to recalculate. A fact about "
    "the file, not a problem unless the task asks for formulas."
)
RECALC_SCOPE = (
    "checked: each formula cell's saved value against LibreOffice's recalculation of a copy, and each "
    "one-column or one-row range of an aggregate (SUM, AVERAGE, COUNT, MIN, MAX, ...) for numbers in the cells "
    "adjacent to it or between its parts that it leaves out (ranges_stopping_short). Not checked: whether a "
    "formula is the one the task asks for (its function, its other references, ranges on other sheets, named "
    "ranges), and whether a value without a formula is right."
)
AGGREGATE_CALL = re.compile(
    r"\b(SUM|SUMPRODUCT|AVERAGE|AVERAGEA|COUNT|COUNTA|MIN|MAX|PRODUCT|MEDIAN|SUBTOTAL|AGGREGATE|STDEV|"
    r"STDEV\.S|STDEV\.P|VAR|VAR\.S|VAR\.P)\s*\(",
    re.IGNORECASE,
)
OTHER_SHEET_REFERENCE = re.compile(r"(?:!|\$?'?[\w ]+'?\.)\s*\$?[A-Z]{1,3}\$?\d+$")
"""A reference qualified by a sheet (`Other!B2`, `$Other.B2`): its cells are not on the formula's sheet."""


def sheet_grid(cells):
    """The cells of `formula_cells` as sheet name -> {(column, row): (formula or None, saved value)}."""
    grid = {}
    for (sheet, coordinate), (formula, value) in cells.items():
        letters, number = re.fullmatch(r"([A-Z]+)(\d+)", coordinate).groups()
        grid.setdefault(sheet, {})[(column_number(letters), int(number))] = (formula, value)
    return grid


def aggregate_arguments(formula):
    """The argument texts of each aggregate call in the formula (nested calls included)."""
    found = []
    for match in AGGREGATE_CALL.finditer(formula):
        depth, start = 1, match.end()
        for index in range(start, len(formula)):
            depth += {"(": 1, ")": -1}.get(formula[index], 0)
            if depth == 0:
                found.append(formula[start:index])
                break
    return found


def short_ranges(grid, limit):
    """Aggregates whose one-column (or one-row) references leave out numbers next to them: the cells just
    past their ends and the cells between their parts, while those hold numbers typed as values (a blank,
    a text, a formula or the aggregate's own cell ends the run). A running total (its range ends on its own
    row or column) is judged only at the range's start."""
    found = []
    for sheet, cells in grid.items():
        for (col, row), (formula, _) in sorted(cells.items()):
            for arguments in aggregate_arguments(formula or ""):
                for line, spans in lines_covered(arguments).items():
                    left_out = left_out_cells(cells, line, spans, (col, row))
                    if left_out:
                        found.append(
                            {
                                "cell": sheet + "!" + column_letters(col) + str(row),
                                "formula": formula,
                                "left_out": left_out[:limit],
                            }
                        )
    return found[:limit]


def lines_covered(arguments):
    """("col", n) or ("row", n) -> the [first, last] spans the references cover along that column or row;
    a two-dimensional block or a reference to another sheet is left out."""
    lines = {}
    for match in CELL_REFERENCE.finditer(arguments):
        if OTHER_SHEET_REFERENCE.search(arguments[: match.start() + len(match.group(0).split(":")[0])]):
            continue
        a, b, c, d = match.groups()
        c1, r1, c2, r2 = column_number(a), int(b), column_number(c or a), int(d or b)
        if c1 == c2:
            lines.setdefault(("col", c1), []).append((min(r1, r2), max(r1, r2)))
        elif r1 == r2:
            lines.setdefault(("row", r1), []).append((min(c1, c2), max(c1, c2)))
    return {
        line: sorted(spans) for line, spans in lines.items() if any(b > a for a, b in spans) or len(spans) > 1
    }


def left_out_cells(cells, line, spans, own):
    """The cells with typed numbers adjacent to the spans along `line`, or between them, that no span covers."""
    kind, fixed = line

    def at(position):
        return (fixed, position) if kind == "col" else (position, fixed)

    def typed_number(position):
        formula, value = cells.get(at(position), (None, None))
        return (
            at(position) != own
            and not formula
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
        )

    covered = {p for first, last in spans for p in range(first, last + 1)}
    own_position = own[1] if kind == "col" else own[0]
    first, last = spans[0][0], max(b for _, b in spans)
    out = [p for p in range(first, last + 1) if p not in covered and typed_number(p)]
    steps = [(first - 1, -1)] + ([] if last == own_position else [(last + 1, 1)])
    for position, step in steps:
        while position >= 1 and position not in covered and typed_number(position):
            out.append(position)
            position += step
    return [column_letters(at(p)[0]) + str(at(p)[1]) for p in sorted(out)]


def formula_cells(path, ext, with_formulas, every_cell=False):
    """(sheet, cell) -> (formula or None, saved value) for every formula cell (every non-empty cell with
    `every_cell`, or when not `with_formulas`, whose formulas are then None; an .ods gives every cell)."""
    if ext == "ods":
        return {
            (name, entry["cell"]): (entry.get("formula") if with_formulas else None, entry["value"])
            for name, cells in ods_sheets(path).items()
            for entry in cells.values()
        }
    import openpyxl

    values = openpyxl.load_workbook(path, read_only=True, data_only=True)
    formulas = openpyxl.load_workbook(path, read_only=True) if with_formulas else None
    out = {}
    try:
        for ws in values.worksheets:
            if formulas is None:
                for row in ws.iter_rows():
                    out.update(
                        ((ws.title, c.coordinate), (None, c.value)) for c in row if c.value is not None
                    )
                continue
            for row, cached in zip(formulas[ws.title].iter_rows(), ws.iter_rows(values_only=True)):  # noqa: B905
                for cell, value in zip(row, cached):  # noqa: B905
                    formula = cell_formula(cell.value)
                    if formula or (every_cell and value is not None):
                        out[(ws.title, cell.coordinate)] = (formula, value)
    finally:
        values.close()
        if formulas:
            formulas.close()
    return out


def cell_formula(raw):
    if isinstance(raw, str) and raw.startswith("="):
        return raw
    if raw is not None and type(raw).__name__ == "ArrayFormula":
        return getattr(raw, "text", str(raw))
    return None


def run_recalc(program, copy, work, timeout):
    """Run office-recalc on the copy; an error text, or None when it succeeded.

    TMPDIR and HOME point into `work`, so LibreOffice's private profile and caches live there (the
    user's home gains nothing) and any process left after a timeout is found by that folder and ended."""
    env = dict(os.environ, TMPDIR=work, HOME=work, XDG_CACHE_HOME=work, XDG_CONFIG_HOME=work)
    try:
        proc = subprocess.run(
            [sys.executable, program, copy], capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        end_processes_using(work)
        return f"LibreOffice did not finish recalculating within {timeout:.0f}s"
    if proc.returncode != 0:
        return "office-recalc failed: " + (proc.stderr or proc.stdout).strip()[-300:]
    return None


def end_processes_using(folder, rounds=50):
    """Kill the processes (LibreOffice left by a timed-out run) whose command line names `folder`, again
    until none is left: a launcher may still be starting its office process while the first ones die."""
    for _ in range(rounds):
        found = [pid for pid in _pids_naming(folder) if pid != os.getpid()]
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
        time.sleep(0.1)


def _pids_naming(folder):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/" + entry + "/cmdline", "rb") as handle:
                if folder.encode() in handle.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def volatile_cells(cells):
    """Formula cells that call a volatile function or reference (through any chain) one that does.

    References are matched by column and row on any sheet, so this errs towards skipping."""
    volatile = {key for key, (formula, _) in cells.items() if formula and VOLATILE_CALL.search(formula)}
    if not volatile:
        return volatile
    spans = {
        key: [
            (column_number(a), int(b), column_number(c or a), int(d or b))
            for a, b, c, d in CELL_REFERENCE.findall(formula)
        ]
        for key, (formula, _) in cells.items()
        if formula and key not in volatile
    }
    changed = True
    while changed:
        points = {(column_number(re.sub(r"\d", "", k[1])), int(re.sub(r"\D", "", k[1]))) for k in volatile}
        changed = False
        for key, refs in spans.items():
            if key in volatile:
                continue
            if any(c1 <= col <= c2 and r1 <= row <= r2 for c1, r1, c2, r2 in refs for col, row in points):
                volatile.add(key)
                changed = True
    return volatile


def same_value(saved, recalculated, rel_tol):
    if saved in (None, "") and recalculated in (None, ""):
        return True
    numbers = (int, float)
    if isinstance(saved, numbers) and isinstance(recalculated, numbers):
        return math.isclose(saved, recalculated, rel_tol=rel_tol, abs_tol=1e-9)
    return plain(saved) == plain(recalculated)


# -- the state baseline: the files it covers, with size, mtime and SHA-256, and `dconf dump /` --


def baseline_entry(path, kind, max_bytes):
    try:
        stat = os.stat(path)
    except OSError:
        return None
    copy = stat.st_size <= max_bytes
    return {
        "path": path,
        "kind": kind,
        "size": stat.st_size,
        "mtime": stat.st_mtime,
        "sha256": file_hash(path) if copy else None,
    }


def baseline_named_files(paths, max_files, skip_dirs):
    """The files the task names; a named folder stands for the files in it (hidden folders skipped)."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip_dirs)
                found += [os.path.join(root, name) for name in sorted(files)]
        elif os.path.isfile(path):
            found.append(path)
    return found[:max_files]


def baseline_documents(home, extensions, skip_dirs):
    found = []
    for root, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in skip_dirs]
        for name in files:
            if name.rsplit(".", 1)[-1].lower() in extensions and not name.startswith(".~lock."):
                found.append(os.path.join(root, name))
    return found


def baseline_dconf():
    if not shutil.which("dconf"):
        return None
    try:
        done = subprocess.run(["dconf", "dump", "/"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def home_inventory(home, skip_dirs, max_files, hash_max):
    """Every file under the home that is not hidden nor in a hidden folder (shell histories, lock files and
    app data left out; settings are in the baseline's own list), as path ->
    [size, mtime, inode, SHA-256 or None over `hash_max` bytes], at most `max_files` (by path), and how
    many more there are: what tells a file created, moved or deleted whatever its type."""
    paths = []
    for root, dirs, names in os.walk(home):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip_dirs)
        paths += [os.path.join(root, n) for n in names if not n.startswith(".")]
    paths.sort()
    files = {}
    for path in paths[:max_files]:
        try:
            stat = os.stat(path, follow_symlinks=False)
            digest = file_hash(path) if stat.st_size <= hash_max and os.path.isfile(path) else None
        except OSError:
            continue
        files[path] = [stat.st_size, stat.st_mtime, stat.st_ino, digest]
    return {"files": files, "more": max(0, len(paths) - max_files)}


def baseline_listing(
    home, named, extensions, settings, skip_dirs, max_files, file_max, config_max, inventory=None
):
    """The files a baseline copies (named, settings, documents) with their facts, `dconf dump /`, and with
    `inventory` ({"max_files", "hash_max"}) the `home_inventory` of every file."""
    files, seen, dropped = [], set(), []

    def add(path, kind, max_bytes):
        path = os.path.abspath(path)
        if path in seen:
            return
        if len(files) >= max_files:
            dropped.append(path)
            return
        found = baseline_entry(path, kind, max_bytes)
        if found:
            seen.add(path)
            files.append(found)

    for path in baseline_named_files(named, max_files, set(skip_dirs)):
        add(path, "named", file_max)
    for pattern in settings:
        for path in sorted(glob.glob(os.path.expanduser(pattern))):
            if os.path.isfile(path):
                add(path, "settings", config_max)
    documents = baseline_documents(home, set(extensions), set(skip_dirs))
    documents.sort(key=lambda p: -os.stat(p).st_mtime if os.path.exists(p) else 0)
    for path in documents:
        add(path, "document", file_max)
    return {
        "files": files,
        "more": len(set(dropped) - seen),
        "dconf": baseline_dconf(),
        "inventory": home_inventory(home, set(skip_dirs), **inventory) if inventory else None,
    }


PROBES = {
    "baseline_listing": baseline_listing,
    "file_facts": file_facts,
    "spreadsheet": spreadsheet,
    "document": document,
    "presentation": presentation,
    "data": data,
    "sqlite": sqlite,
    "home_state": home_state,
    "named_cells": named_cells,
    "snapshot_take": snapshot_take,
    "snapshot_check": snapshot_check,
    "formula_recalc": formula_recalc,
}


def main(request_json):
    request = json.loads(request_json)
    try:
        result = PROBES[request["probe"]](**request.get("args", {}))
    except Exception as exc:  # reported to the caller as a probe error
        result = {"error": type(exc).__name__ + ": " + str(exc)[:500]}
    sys.stdout.write("\n@@PROBE@@" + json.dumps(result, default=plain, ensure_ascii=False) + "\n")
