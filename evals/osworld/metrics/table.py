"""`compare_table`: spreadsheet checks with OSWorld's rule semantics.

Sheet references: an int (result sheet by index), `RI<n>`/`EI<n>` (result /
expected sheet by index), `RN<name>`/`EN<name>` (by name).
- `sheet_name`: the two books' sheet name lists are equal.
- `sheet_data`: both sheets read with pandas (cached values), rounded to
  `precision` (default 4), compared with `DataFrame.equals` (dtypes matter).
  A missing first sheet scores 0; a missing second sheet is an error.
- `sheet_print`: the lines of the CSV exports `<book>-<sheet>.csv` beside each
  book (as OSWorld's postconfig writes them), trailing blank lines dropped,
  `ignore_case` optional.
- `sheet_fuzzy`: per cell of each sub-rule's `range`, the two values (as text)
  after `normalization`, `trim_leadings`, `trim_trailings`, `ignore_chars`,
  `ignore_case`: `includes`, `included_by`, `fuzzy_match` (`threshold`, default
  85) or `exact_match`.
- `check_cell`: `props` maps `value` (read from the sheet XML: numbers as
  float, shared and inline strings as text, uncached formulas and booleans as
  None) or a style property to a `{method, ref}` rule; any error scores 0.
- `style`: the `props` styles of every cell are equal in both sheets (cell
  styles only; conditional formatting is not evaluated). An unreadable style
  (a font colour that is unset) raises, as in OSWorld.
- `freeze` (panes equal), `zoom` (the zoom scale, 100 when unset, against a
  `{method, ref}` rule), `row_props` / `col_props` (the `props` attributes of
  every row / column dimension), `filter` (auto-filter range, columns and sort
  state), `data_validation` (every validation matches one of `dv_props`).
- `chart` / `pivot_table`: the two sheets' charts (`chart_props`) / pivot tables (`pivot_props`)
  are equal, as evals/osworld/metrics/table_objects.py reads them.
Rules run in order; the first failing rule scores 0, and is noted (evals/osworld/metrics/explain.py) with
what differs: the cells of `sheet_data`, `sheet_fuzzy`, `check_cell` and `style` (`Sheet!D6: 1 → 122.5`),
the first differing line of `sheet_print`, the sheet names of `sheet_name`.
"""

from __future__ import annotations

import functools
import itertools
import os
import zipfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from xml.etree import ElementTree

import openpyxl
import pandas as pd
from openpyxl.cell.cell import MergedCell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.worksheet import Worksheet

from stateact.evals import settings
from stateact.evals.osworld.metrics.explain import change, first_line_difference, note, shown
from stateact.evals.osworld.metrics.rules import (
    MetricError,
    MetricUnsupported,
    check_method,
    match_value_to_rule,
    similarity,
)
from stateact.evals.osworld.metrics.table_objects import charts, pivot_tables
from stateact.evals.osworld.metrics.text import read_lines

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
        note(f"the result workbook {result or '(none)'} does not exist")
        return 0.0
    try:
        result_book = _Book(result)
    except Exception as exc:
        note(f"the result workbook {result} cannot be read: {type(exc).__name__}: {exc}")
        return 0.0
    expected_book = _Book(expected) if expected is not None else None
    for rule in options.get("rules", []):
        if not _RULES.get(rule.get("type"), _unknown_rule)(rule, result_book, expected_book):
            explain = _DIFFERENCES.get(rule["type"])
            note(
                f"{rule_text(rule)}: does not hold",
                functools.partial(explain, rule, result_book, expected_book) if explain else (),
            )
            return 0.0
    return 1.0


def sheet_text(ref: int | str) -> str:
    """A sheet reference as a reader says it: `Stock (result)`, `sheet 1 (expected)`."""
    if isinstance(ref, int):
        return f"sheet {ref + 1} (result)"
    book = "result" if ref[:1] == "R" else "expected"
    return f"{ref[2:]} ({book})" if ref[1:2] == "N" else f"sheet {_sheet_number(ref[2:])} ({book})"


def _sheet_number(index: str) -> str:
    return str(int(index) + 1) if index.isdigit() else index


def rule_text(rule: dict) -> str:
    """A rule named by its type and what it compares: `sheet_data Stock (result) against Stock (expected)`."""
    kind = str(rule.get("type", "?"))
    if "sheet_idx0" in rule:
        return f"{kind} {sheet_text(rule['sheet_idx0'])} against {sheet_text(rule.get('sheet_idx1', '?'))}"
    if "sheet_idx" in rule:
        where = f"!{rule['coordinate']}" if "coordinate" in rule else ""
        return f"{kind} {sheet_text(rule['sheet_idx'])}{where}"
    return kind


def check_table_options(options: dict[str, Any]) -> None:
    """Raise MetricUnsupported when the options name a rule, method or property not implemented here."""
    for rule in options.get("rules", []):
        kind = rule.get("type")
        if kind not in _RULES:
            _unknown_rule(rule, None, None)  # type: ignore[arg-type]
        if kind == "check_cell":
            for prop, value_rule in rule.get("props", {}).items():
                if prop != "value" and prop not in STYLES:
                    raise MetricUnsupported(
                        f"unsupported cell style {prop!r}; supported: {', '.join(STYLES)}"
                    )
                check_method(value_rule.get("method"))
        if kind == "style":
            for prop in rule.get("props", []):
                if prop not in STYLES:
                    raise MetricUnsupported(
                        f"unsupported cell style {prop!r}; supported: {', '.join(STYLES)}"
                    )
        if kind == "zoom":
            check_method(rule.get("method"))
        if kind == "data_validation":
            for props in rule.get("dv_props", []):
                for value_rule in props.values():
                    check_method(value_rule.get("method"))
        if kind == "sheet_fuzzy":
            for sub in rule.get("rules", []):
                if sub.get("type") not in _FUZZY:
                    raise MetricUnsupported(f"unsupported sheet_fuzzy type {sub.get('type')!r}")


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


def _sheet(ref: int | str, result: _Book, expected: _Book | None) -> Worksheet | None:
    book, name = _pick(ref, result, expected)
    if book is None or name not in book.xl.sheetnames:
        return None
    return book.xl[name]


def _printed(ref: int | str, result: _Book, expected: _Book | None) -> list[str] | None:
    """The sheet's CSV export `<book>-<sheet>.csv`, lines stripped, trailing blank lines dropped
    (in reverse order, as OSWorld compares them); None when it cannot be read."""
    book, name = _pick(ref, result, expected)
    if book is None:
        raise MetricError(f"sheet {ref!r} names the expected book, and there is none")
    try:
        lines = read_lines(f"{os.path.splitext(book.path)[0]}-{name}.csv")
    except OSError:
        return None
    return list(itertools.dropwhile(lambda line: not line, (line.strip() for line in reversed(lines))))


def _sheet_print(rule: dict, result: _Book, expected: _Book | None) -> bool:
    first = _printed(rule["sheet_idx0"], result, expected)
    if first is None:
        return False
    second = _printed(rule["sheet_idx1"], result, expected)
    if rule.get("ignore_case", False):
        if second is None:
            raise MetricError(f"sheet {rule['sheet_idx1']!r} has no CSV export")
        first, second = [line.lower() for line in first], [line.lower() for line in second]
    return first == second


def _fuzzy_text(value: Any, sub: dict) -> str:
    text = str(value)
    for old, new in sub.get("normalization", []):
        text = text.replace(old, new)
    if "trim_leadings" in sub:
        text = text.lstrip(sub["trim_leadings"])
    if "trim_trailings" in sub:
        text = text.rstrip(sub["trim_trailings"])
    if "ignore_chars" in sub:
        text = "".join(ch for ch in text if ch not in set(sub["ignore_chars"]))
    return text.lower() if sub.get("ignore_case", False) else text


_FUZZY: dict[str, Callable[[str, str, dict], bool]] = {
    "includes": lambda a, b, sub: b in a,
    "included_by": lambda a, b, sub: a in b,
    "fuzzy_match": lambda a, b, sub: similarity(a, b) * 100 >= sub.get("threshold", settings.FUZZY_THRESHOLD),
    "exact_match": lambda a, b, sub: a == b,
}


def _sheet_fuzzy(rule: dict, result: _Book, expected: _Book | None) -> bool:
    passed = True
    for sub, _, first, second in _fuzzy_cells(rule, result, expected):
        passed = _FUZZY[sub["type"]](first, second, sub) and passed
    return passed


def _fuzzy_cells(rule: dict, result: _Book, expected: _Book | None) -> Iterator[tuple[dict, str, Any, Any]]:
    """Each cell a `sheet_fuzzy` sub-rule compares: the sub-rule, the cell and its two texts."""
    books = [_pick(rule[key], result, expected) for key in ("sheet_idx0", "sheet_idx1")]
    for sub in rule["rules"]:
        for cell_range in MultiCellRange(sub["range"]):
            for row, column in cell_range.cells:
                coordinate = f"{get_column_letter(column)}{row}"
                first, second = (
                    _fuzzy_text(read_cell_value(book.path, name, coordinate) if book else None, sub)
                    for book, name in books
                )
                yield sub, coordinate, first, second


def _check_cell(rule: dict, result: _Book, expected: _Book | None) -> bool:
    """OSWorld's check_cell: a property that cannot be read is None, and any error scores 0."""
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
                try:
                    value = cell_style(prop, cell)
                except MetricUnsupported:
                    raise
                except Exception:
                    value = None
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


def _freeze(rule: dict, result: _Book, expected: _Book | None) -> bool:
    first = _sheet(rule["sheet_idx0"], result, expected)
    if first is None:
        return False
    second = _sheet(rule["sheet_idx1"], result, expected)
    if second is None:
        raise MetricError(f"sheet {rule['sheet_idx1']!r} cannot be read")
    return first.freeze_panes == second.freeze_panes


def _zoom(rule: dict, result: _Book, expected: _Book | None) -> bool:
    sheet = _sheet(rule["sheet_idx"], result, expected)
    if sheet is None:
        return False
    return match_value_to_rule(sheet.sheet_view.zoomScale or settings.DEFAULT_ZOOM, rule)


def _dimensions(kind: str) -> Callable[[dict, _Book, _Book | None], bool]:
    """`row_props` / `col_props`: the `props` attributes of every stored row / column dimension."""

    def read(ref: int | str, result: _Book, expected: _Book | None, props: set[str]) -> dict:
        sheet = _sheet(ref, result, expected)
        if sheet is None:
            return {}
        holder = sheet.row_dimensions if kind == "row" else sheet.column_dimensions
        return {key: {p: getattr(dims, p) for p in props} for key, dims in holder.items()}

    def rule_fn(rule: dict, result: _Book, expected: _Book | None) -> bool:
        props = set(rule.get("props", []))
        return read(rule["sheet_idx0"], result, expected, props) == read(
            rule["sheet_idx1"], result, expected, props
        )

    return rule_fn


def _filters(sheet: Worksheet | None) -> dict[str, Any]:
    """The auto-filter as OSWorld compares it: range, filter columns by id, sort state."""
    if sheet is None:
        return {}
    auto = sheet.auto_filter
    columns = []
    for column in auto.filterColumn:
        entry: dict[str, Any] = {
            "col_id": column.colId,
            "hidden_button": column.hiddenButton,
            "show_button": column.showButton,
        }
        if column.filters is not None:
            entry["filters_blank"] = column.filters.blank
            entry["filters"] = set(column.filters.filter)
        if column.customFilters is not None:
            entry["custom_filters_op"] = column.customFilters._and
            entry["custom_filters"] = {(f.operator, f.val) for f in column.customFilters.customFilter}
        columns.append(entry)
    found: dict[str, Any] = {"ref": auto.ref, "filter_column": sorted(columns, key=lambda d: d["col_id"])}
    sort = auto.sortState
    if sort is not None:
        found["sort_state"] = {
            "sort": sort.columnSort,
            "case": sort.caseSensitive,
            "method": sort.sortMethod,
            "ref": sort.ref,
            "condition": [
                {
                    "descending": c.descending,
                    "key": c.sortBy,
                    "ref": c.ref,
                    "custom_list": c.customList,
                    "dxf_id": c.dxfId,
                    "icon": c.iconSet,
                    "iconid": c.iconId,
                }
                for c in sort.sortCondition
            ],
        }
    return found


def _filter(rule: dict, result: _Book, expected: _Book | None) -> bool:
    return _filters(_sheet(rule["sheet_idx0"], result, expected)) == _filters(
        _sheet(rule["sheet_idx1"], result, expected)
    )


def _data_validation(rule: dict, result: _Book, expected: _Book | None) -> bool:
    """At least as many validations as `dv_props`, and each matches one of them (all its rules)."""
    sheet = _sheet(rule["sheet_idx"], result, expected)
    if sheet is None:
        return False
    validations = sheet.data_validations.dataValidation
    wanted = rule["dv_props"]
    if len(validations) < len(wanted):
        return False
    return all(
        any(
            all(
                match_value_to_rule(getattr(dv, attribute), value_rule)
                for attribute, value_rule in props.items()
            )
            for props in wanted
        )
        for dv in validations
    )


def _worksheet(ref: int | str, result: _Book, expected: _Book | None) -> Any:
    """The sheet a reference names, None when the book lacks it; a reference to an expected book
    that is not there raises (OSWorld indexes None)."""
    book, name = _pick(ref, result, expected)
    if book is None:
        raise MetricError(f"sheet {ref!r} names the expected book, and there is none")
    return book.xl[name] if name in book.xl.sheetnames else None


def _sheet_objects(
    read: Callable[[Any, list[str]], dict], props: str
) -> Callable[[dict, _Book, _Book | None], bool]:
    """A rule comparing what `read` finds on the two sheets, with the rule's `props` list."""

    def rule_fn(rule: dict, result: _Book, expected: _Book | None) -> bool:
        first, second = (
            read(_worksheet(rule[key], result, expected), rule.get(props, []))
            for key in ("sheet_idx0", "sheet_idx1")
        )
        return first == second

    return rule_fn


_RULES: dict[str, Callable[[dict, _Book, _Book | None], bool]] = {
    "sheet_name": _sheet_name,
    "sheet_data": _sheet_data,
    "sheet_print": _sheet_print,
    "sheet_fuzzy": _sheet_fuzzy,
    "check_cell": _check_cell,
    "style": _style,
    "freeze": _freeze,
    "zoom": _zoom,
    "row_props": _dimensions("row"),
    "col_props": _dimensions("column"),
    "filter": _filter,
    "data_validation": _data_validation,
    "chart": _sheet_objects(charts, "chart_props"),
    "pivot_table": _sheet_objects(pivot_tables, "pivot_props"),
}


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


def _fill_colour(cell: Any) -> Any:
    try:
        return cell.fill.fgColor.rgb
    except Exception:
        return None


def _fill_type(cell: Any) -> Any:
    try:
        return cell.fill.tagname
    except Exception:
        return None


def _filled(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A font property, None for an empty cell; it raises when the font lacks it (an unset colour)."""
    return lambda cell: read(cell) if cell.value is not None else None


STYLES: dict[str, Callable[[Any], Any]] = {
    "number_format": lambda cell: (
        cell.number_format if cell.value is not None and cell.data_type == "n" else None
    ),
    "font_name": _filled(lambda cell: cell.font.name),
    "font_family": _filled(lambda cell: cell.font.family),
    "font_color": _filled(lambda cell: cell.font.color.rgb),
    "font_bold": _filled(lambda cell: cell.font.bold),
    "font_italic": _filled(lambda cell: cell.font.italic),
    "font_underline": _filled(lambda cell: cell.font.underline),
    "font_size": _filled(lambda cell: cell.font.size),
    "fill_type": _fill_type,
    "bgcolor": _fill_colour,
    "fgcolor": _fill_colour,
    "hyperlink": _filled(lambda cell: cell.hyperlink or ""),
    "merge": lambda cell: isinstance(cell, MergedCell),
}
"""Cell style properties as OSWorld reads them: font properties of empty cells and number formats of
non-numeric cells are None; `bgcolor` and `fgcolor` both read the fill's foreground colour."""


def cell_style(prop: str, cell: Any) -> Any:
    """One style property of `cell` (see STYLES); reading it may raise, as in OSWorld."""
    if prop not in STYLES:
        raise MetricUnsupported(f"unsupported cell style {prop!r}; supported: {', '.join(STYLES)}")
    return STYLES[prop](cell)


def _styles(book: _Book | None, name: str, props: list[str]) -> dict[str, list[Any]]:
    """Every cell's `props`, by coordinate; an absent sheet gives {}."""
    if book is None or name not in book.xl.sheetnames:
        return {}
    sheet = book.xl[name]
    return {
        cell.coordinate: [cell_style(p, cell) for p in props]
        for column in sheet.iter_cols()
        for cell in column
    }


# -- explanations of a failing rule (evals/osworld/metrics/explain.py) --------------------------------------
def _column_letter(index: int) -> str:
    return get_column_letter(index + 1)


def _frame_differences(name: str, first: pd.DataFrame, second: pd.DataFrame) -> Iterator[str]:
    """Cells where two sheets read by pandas differ, as `Sheet!D6: observed → expected` (row 1 is the
    header pandas took); then a shape or column-type difference when the values agree."""
    found = False
    for column, (ours, theirs) in enumerate(zip(first.columns, second.columns, strict=False)):
        if ours != theirs:
            found = True
            yield change(f"{name}!{_column_letter(column)}1", ours, theirs)
    rows, columns = min(len(first), len(second)), min(first.shape[1], second.shape[1])
    for row in range(rows):
        for column in range(columns):
            ours, theirs = first.iat[row, column], second.iat[row, column]
            if not (_same(ours, theirs)):
                found = True
                yield change(f"{name}!{_column_letter(column)}{row + 2}", ours, theirs)
    if first.shape != second.shape:
        yield f"{name}: {first.shape[0]} rows × {first.shape[1]} columns → {second.shape[0]} × {second.shape[1]}"
    elif not found:
        for column, (ours, theirs) in enumerate(zip(first.dtypes, second.dtypes, strict=True)):
            if ours != theirs:
                yield f"{name}!{_column_letter(column)}: values equal, types {ours} → {theirs}"


def _same(ours: Any, theirs: Any) -> bool:
    return bool(ours == theirs) or (pd.isna(ours) and pd.isna(theirs))


def _data_differences(rule: dict, result: _Book, expected: _Book | None) -> Iterator[str]:
    precision = rule.get("precision", settings.SHEET_PRECISION)
    (_, name), first, second = (
        _pick(rule["sheet_idx0"], result, expected),
        _frame(rule["sheet_idx0"], result, expected),
        _frame(rule["sheet_idx1"], result, expected),
    )
    if first is None:
        yield f"{sheet_text(rule['sheet_idx0'])} cannot be read"
        return
    yield from _frame_differences(name, first.round(precision), second.round(precision))


def _print_differences(rule: dict, result: _Book, expected: _Book | None) -> list[str]:
    first, second = (_printed(rule[key], result, expected) for key in ("sheet_idx0", "sheet_idx1"))
    if first is None or second is None:
        return [f"{sheet_text(rule['sheet_idx0' if first is None else 'sheet_idx1'])} has no CSV export"]
    return first_line_difference(first[::-1], second[::-1])


def _name_differences(rule: dict, result: _Book, expected: _Book | None) -> list[str]:
    return [change("sheet names", ", ".join(result.names), ", ".join(expected.names) if expected else None)]


def _fuzzy_differences(rule: dict, result: _Book, expected: _Book | None) -> Iterator[str]:
    sheet = _pick(rule["sheet_idx0"], result, expected)[1]
    for sub, coordinate, first, second in _fuzzy_cells(rule, result, expected):
        if not _FUZZY[sub["type"]](first, second, sub):
            yield change(f"{sheet}!{coordinate} ({sub['type']})", first, second)


def _cell_differences(rule: dict, result: _Book, expected: _Book | None) -> Iterator[str]:
    book, name = _pick(rule["sheet_idx"], result, expected)
    if book is None or name not in book.xl.sheetnames:
        yield f"no sheet {sheet_text(rule['sheet_idx'])}"
        return
    coordinate = rule["coordinate"]
    for prop, value_rule in rule["props"].items():
        if prop == "value":
            value = read_cell_value(book.path, name, coordinate)
        else:
            try:
                value = cell_style(prop, book.xl[name][coordinate])
            except Exception:
                value = None
        try:
            held = match_value_to_rule(value, value_rule)
        except Exception:
            held = False
        if not held:
            wanted = f"{value_rule.get('method')} {shown(value_rule.get('ref'))}"
            yield f"{name}!{coordinate} {prop}: {shown(value)} → {wanted}"


def _style_differences(rule: dict, result: _Book, expected: _Book | None) -> Iterator[str]:
    props = rule.get("props", [])
    (_, name), first, second = (
        _pick(rule["sheet_idx0"], result, expected),
        _styles(*_pick(rule["sheet_idx0"], result, expected), props),
        _styles(*_pick(rule["sheet_idx1"], result, expected), props),
    )
    for coordinate in sorted(set(first) | set(second), key=lambda c: (len(c), c)):
        ours, theirs = first.get(coordinate), second.get(coordinate)
        if ours != theirs:
            ours_text, theirs_text = (", ".join(map(shown, v)) if v else None for v in (ours, theirs))
            yield change(f"{name}!{coordinate} {', '.join(props)}", ours_text, theirs_text)


_DIFFERENCES: dict[str, Callable[[dict, _Book, _Book | None], Iterable[str]]] = {
    "sheet_name": _name_differences,
    "sheet_data": _data_differences,
    "sheet_print": _print_differences,
    "sheet_fuzzy": _fuzzy_differences,
    "check_cell": _cell_differences,
    "style": _style_differences,
}
"""Per rule type, what differs when it fails (the other rules are named without their differences)."""


METRICS = {"compare_table": compare_table}
OPTION_CHECKS = {"compare_table": check_table_options}
