"""`compare_table`: spreadsheet checks with OSWorld's rule semantics.

Sheet references: an int (result sheet by index), `RI<n>`/`EI<n>` (result /
expected sheet by index), `RN<name>`/`EN<name>` (by name).
- `sheet_name`: the two books' sheet name lists are equal.
- `sheet_data`: both sheets read with pandas (cached values), rounded to
  `precision` (default 4), compared with `DataFrame.equals` (dtypes matter).
  A missing first sheet scores 0; a missing second sheet is an error.
- `check_cell`: `props` maps `value` (read from the sheet XML: numbers as
  float, shared and inline strings as text, uncached formulas and booleans as
  None) or a style property to a `{method, ref}` rule.
- `style`: the `props` styles of every cell are equal in both sheets (cell
  styles only; conditional formatting is not evaluated).
Rules run in order; the first failing rule scores 0.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree

import openpyxl
import pandas as pd
from openpyxl.cell.cell import MergedCell

from evals import settings
from evals.metrics.rules import MetricError, MetricUnsupported, match_value_to_rule

_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}


class _Book:
    """One workbook read both ways: openpyxl (styles) and pandas (cached values)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.xl = openpyxl.load_workbook(filename=path)
        self.pd = pd.ExcelFile(path)
        self.names: list[str] = list(self.pd.sheet_names)

    def frame(self, name: str) -> pd.DataFrame | None:
        try:
            return pd.read_excel(self.pd, name)
        except Exception:
            return None


def _pick(ref: int | str, result: _Book, expected: _Book | None) -> tuple[_Book | None, str]:
    """Resolve a sheet reference to (book, sheet name); an unknown index gives the name ''."""
    if isinstance(ref, int):
        return result, result.names[ref] if 0 <= ref < len(result.names) else ""
    prefix, rest = ref[:2], ref[2:]
    if prefix not in ("RI", "RN", "EI", "EN"):
        raise MetricUnsupported(f"unrecognized sheet reference {ref!r} (use RI0, RNSheet1, EI0, ENSheet1)")
    book = result if prefix[0] == "R" else expected
    if prefix[1] == "N":
        return book, rest
    names = book.names if book is not None else []
    try:
        return book, names[int(rest)]
    except (ValueError, IndexError):
        return book, ""


def _frame(ref: int | str, result: _Book, expected: _Book | None) -> pd.DataFrame | None:
    book, name = _pick(ref, result, expected)
    return book.frame(name) if book is not None else None


def compare_table(result: str | None, expected: str | None = None, **options: Any) -> float:
    if result is None or not os.path.exists(result):
        return 0.0
    try:
        result_book = _Book(result)
    except Exception:
        return 0.0
    expected_book = _Book(expected) if expected is not None else None
    for rule in options.get("rules", []):
        if not _RULES.get(rule.get("type"), _unknown_rule)(rule, result_book, expected_book):
            return 0.0
    return 1.0


def _unknown_rule(rule: dict, result: _Book, expected: _Book | None) -> bool:
    raise MetricUnsupported(
        f"unsupported compare_table rule {rule.get('type')!r}; supported: {', '.join(_RULES)}"
    )


def _sheet_name(rule: dict, result: _Book, expected: _Book | None) -> bool:
    return result.names == (expected.names if expected is not None else None)


def _sheet_data(rule: dict, result: _Book, expected: _Book | None) -> bool:
    precision = rule.get("precision", settings.SHEET_PRECISION)
    first = _frame(rule["sheet_idx0"], result, expected)
    if first is None:
        return False
    second = _frame(rule["sheet_idx1"], result, expected)
    if second is None:
        raise MetricError(f"sheet {rule['sheet_idx1']!r} cannot be read")
    return first.round(precision).equals(second.round(precision))


def _check_cell(rule: dict, result: _Book, expected: _Book | None) -> bool:
    try:
        book, name = _pick(rule["sheet_idx"], result, expected)
        if book is None or name not in book.xl.sheetnames:
            return False
        cell = book.xl[name][rule["coordinate"]]
        passed = True
        for prop, value_rule in rule["props"].items():
            if prop == "value":
                value = read_cell_value(book.path, name, rule["coordinate"])
            else:
                value = _cell_style(prop, cell)
            passed = passed and match_value_to_rule(value, value_rule)
        return passed
    except MetricUnsupported:
        raise
    except Exception:
        return False


def _style(rule: dict, result: _Book, expected: _Book | None) -> bool:
    props = rule.get("props", [])
    first = _styles(*_pick(rule["sheet_idx0"], result, expected), props)
    second = _styles(*_pick(rule["sheet_idx1"], result, expected), props)
    return first == second


_RULES = {"sheet_name": _sheet_name, "sheet_data": _sheet_data, "check_cell": _check_cell, "style": _style}


def read_cell_value(path: str, sheet: str, coordinate: str) -> Any:
    """A cell's stored value as OSWorld reads it from the XML; None when absent, boolean or uncached."""
    try:
        with zipfile.ZipFile(path) as archive:
            shared = _shared_strings(archive)
            book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
            ids = {s.get("name"): s.get("sheetId") for s in book.iterfind("m:sheets/m:sheet", _NS)}
            root = ElementTree.fromstring(archive.read(f"xl/worksheets/sheet{ids[sheet]}.xml"))
    except (zipfile.BadZipFile, KeyError, OSError):
        return None
    cell = root.find(f"m:sheetData/m:row/m:c[@r='{coordinate}']", _NS)
    if cell is None:
        return None
    kind, raw = cell.get("t", "n"), cell.find("m:v", _NS)
    text = raw.text if raw is not None else None
    try:
        if kind == "n":
            return float(text) if text is not None else None
        if kind == "s":
            return shared[int(text)]
        if kind in ("str", "e"):
            return text
        if kind == "inlineStr":
            return "".join(t.text or "" for t in cell.iterfind("m:is//m:t", _NS))
    except (TypeError, ValueError, IndexError):
        return None
    return None


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    try:
        root = ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))
    except KeyError:
        return []
    return [
        "".join(t.text or "" for t in item.iter(f"{{{_NS['m']}}}t")) for item in root.iterfind("m:si", _NS)
    ]


def _cell_style(prop: str, cell: Any) -> Any:
    """A style property as OSWorld reads it: font properties of empty cells and number formats of
    non-numeric cells are None; `bgcolor` and `fgcolor` both read the fill's foreground colour."""
    filled = cell.value is not None
    readers: dict[str, Callable[[], Any]] = {
        "number_format": lambda: cell.number_format if filled and cell.data_type == "n" else None,
        "font_name": lambda: cell.font.name if filled else None,
        "font_family": lambda: cell.font.family if filled else None,
        "font_color": lambda: cell.font.color.rgb if filled and cell.font.color is not None else None,
        "font_bold": lambda: cell.font.bold if filled else None,
        "font_italic": lambda: cell.font.italic if filled else None,
        "font_underline": lambda: cell.font.underline if filled else None,
        "font_size": lambda: cell.font.size if filled else None,
        "fill_type": lambda: cell.fill.tagname,
        "bgcolor": lambda: cell.fill.fgColor.rgb,
        "fgcolor": lambda: cell.fill.fgColor.rgb,
        "hyperlink": lambda: (cell.hyperlink or "") if filled else None,
        "merge": lambda: isinstance(cell, MergedCell),
    }
    if prop not in readers:
        raise MetricUnsupported(f"unsupported cell style {prop!r}; supported: {', '.join(readers)}")
    try:
        return readers[prop]()
    except AttributeError:
        return None


def _styles(book: _Book | None, name: str, props: list[str]) -> dict[str, list[Any]]:
    """Every cell's `props`, by coordinate; an absent sheet gives {}."""
    if book is None or name not in book.xl.sheetnames:
        return {}
    sheet = book.xl[name]
    return {
        cell.coordinate: [_cell_style(p, cell) for p in props]
        for column in sheet.iter_cols()
        for cell in column
    }
