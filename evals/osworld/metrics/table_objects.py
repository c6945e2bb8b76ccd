"""A sheet's charts and pivot tables, reduced to what OSWorld's `compare_table` compares.

Both are read by openpyxl (`load_workbook` reads chart and pivot parts) and keyed by their data:
- a chart by its series, `"<values formula>,<categories formula>"` joined by `;` (a chart whose
  series equal an earlier chart's replaces it), with the `chart_props` asked for: `title`, `xtitle`,
  `ytitle`, `ztitle` (the first run of the title; None when there is none), `legend` (position),
  `anchor` (`[editAs, from column, to row, to column, to row]`, as OSWorld reads it), `width`,
  `height`, `type` (the plot's tag, e.g. `barChart`), `direction` (`barDir`; a chart that is not a
  bar chart raises, as in OSWorld);
- a pivot table by its cache source (type, source range, sheet), with the pivot fields that have
  no chosen items trimmed from both ends and the field indices shifted to match, and the
  `pivot_props` asked for: `name`, `show_total`, `show_empty_row`, `show_empty_col`,
  `show_headers`, `location`, `selection` and `filter` (the chosen (hidden, index) items of each
  field, sets unless `ordered`; `filter` adds the page fields), `row_fields`, `col_fields`,
  `data_fields` (`"<field>;<name if data_fields_name>;<subtotal>;<show data as>"`).
Properties OSWorld does not know are ignored, as there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from openpyxl.utils import coordinate_to_tuple


def _first_run(title: Callable[[], Any]) -> Any:
    """The text of a title's first run; None when the title, or anything on the way, is missing."""
    try:
        return title().tx.rich.p[0].r[0].t
    except Exception:
        return None


_CHART_PROPS: dict[str, Callable[[Any], Any]] = {
    "title": lambda chart: _first_run(lambda: chart.title),
    "legend": lambda chart: chart.legend.position if chart.legend is not None else None,
    "anchor": lambda chart: [
        chart.anchor.editAs,
        chart.anchor._from.col,
        chart.anchor.to.row,
        chart.anchor.to.col,
        chart.anchor.to.row,
    ],
    "width": lambda chart: chart.width,
    "height": lambda chart: chart.height,
    "type": lambda chart: chart.tagname,
    "direction": lambda chart: chart.barDir,
    "xtitle": lambda chart: _first_run(lambda: chart.x_axis.title),
    "ytitle": lambda chart: _first_run(lambda: chart.y_axis.title),
    "ztitle": lambda chart: _first_run(lambda: chart.z_axis.title),
}


def _formula(source: Any) -> Any:
    """The formula of a data source's number reference, else its string reference; '' for neither."""
    for kind in ("numRef", "strRef"):
        reference = getattr(source, kind, None)
        if hasattr(reference, "f"):
            return reference.f
    return ""


def charts(sheet: Any, props: list[str]) -> dict[str, dict[str, Any]]:
    """The sheet's charts by series, each with the `props` asked for (see the module docstring)."""
    if sheet is None:
        return {}
    wanted = set(props)
    found: dict[str, dict[str, Any]] = {}
    for chart in sheet._charts:  # openpyxl keeps the charts it read only here
        series = ";".join(f"{_formula(s.val)},{_formula(s.cat)}" for s in chart.series)
        found[series] = {name: read(chart) for name, read in _CHART_PROPS.items() if name in wanted}
    return found


def _leading_empty(lists: list[list[Any]]) -> int:
    return sum(1 for _ in itertools.takewhile(lambda items: not items, lists))


def pivot_tables(sheet: Any, props: list[str]) -> dict[str, dict[str, Any]]:
    """The sheet's pivot tables by cache source, each with the `props` asked for (see the module
    docstring)."""
    if sheet is None:
        return {}
    wanted = set(props)
    found: dict[str, dict[str, Any]] = {}
    for pivot in sheet._pivots:  # openpyxl keeps the pivot tables it read only here
        chosen = [
            [(item.h, item.x) for item in field.items if item.x is not None] for field in pivot.pivotFields
        ]
        left = _leading_empty(chosen)
        right = _leading_empty(chosen[left:][::-1])
        selection = chosen[left : len(chosen) - right]
        source = pivot.cache.cacheSource
        start, end = source.worksheetSource.ref.split(":")
        (top, first), (bottom, last) = coordinate_to_tuple(start), coordinate_to_tuple(end)
        key = f"{source.type};{(top, first + left)}:{(bottom, last - right)};{source.worksheetSource.sheet}"
        found[key] = _pivot_props(pivot, wanted, selection, left)
    return found


def _pivot_props(pivot: Any, wanted: set[str], selection: list[list[Any]], left: int) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for name, attribute in (
        ("name", "name"),
        ("show_total", "visualTotals"),
        ("show_empty_row", "showEmptyRow"),
        ("show_empty_col", "showEmptyCol"),
        ("show_headers", "showHeaders"),
        ("location", "location"),
    ):
        if name in wanted:
            info[name] = getattr(pivot, attribute)
    if wanted & {"filter", "selection"}:
        info["selection"] = selection if "ordered" in wanted else [set(items) for items in selection]
    if "filter" in wanted:
        info["filter_fields"] = {field.fld for field in pivot.pageFields}
    if "col_fields" in wanted:
        info["col_fields"] = [field.x - left for field in pivot.colFields]
    if "row_fields" in wanted:
        info["row_fields"] = [field.x - left for field in pivot.rowFields]
    if "data_fields" in wanted:
        named = "data_fields_name" in wanted
        info["data_fields"] = [
            f"{field.fld - left:d};{field.name if named else ''};{field.subtotal};{field.showDataAs}"
            for field in pivot.dataFields
        ]
    return info
