"""OSWorld metric semantics (see OSWORLD.md), on real office files."""

from __future__ import annotations

import openpyxl
import pytest

from stateact.evals.osworld.metrics import METRICS, MetricUnsupported, check_metric_options
from stateact.evals.osworld.metrics.rules import MetricError, match_value_to_rule
from stateact.evals.osworld.metrics.table import read_cell_value
from tests.support.osworld_artifacts import docx_file, move_first_textbox, pptx_file, sales_book

compare_table = METRICS["compare_table"]
compare_docx = METRICS["compare_docx_files"]
compare_pptx = METRICS["compare_pptx_files"]
compare_csv = METRICS["compare_csv"]


def _data_rule(first="RNSheet1", second="ENSheet1", **extra):
    return {"rules": [{"type": "sheet_data", "sheet_idx0": first, "sheet_idx1": second, **extra}]}


def test_sheet_data_compares_rounded_values_and_dtypes(tmp_path):
    gold = sales_book(tmp_path / "gold.xlsx")
    assert compare_table(str(sales_book(tmp_path / "same.xlsx")), str(gold), **_data_rule()) == 1.0
    near = sales_book(tmp_path / "near.xlsx", qty_of_pen=3.00001)
    assert compare_table(str(near), str(gold), **_data_rule()) == 0.0  # float column vs int column
    assert compare_table(str(near), str(gold), **_data_rule(precision=2)) == 0.0
    rounded_gold = sales_book(tmp_path / "gold_float.xlsx", qty_of_pen=3.0000001)
    assert compare_table(str(near), str(rounded_gold), **_data_rule()) == 1.0  # both float: rounding applies
    assert compare_table(str(tmp_path / "absent.xlsx"), str(gold), **_data_rule()) == 0.0


def test_sheet_data_reads_cached_values_only(tmp_path):
    literal = sales_book(tmp_path / "literal.xlsx")
    formulas = sales_book(tmp_path / "formulas.xlsx", formulas=True)
    other_formulas = sales_book(tmp_path / "formulas2.xlsx", formulas=True)
    assert compare_table(str(formulas), str(other_formulas), **_data_rule()) == 1.0
    assert compare_table(str(formulas), str(literal), **_data_rule()) == 0.0


def test_sheet_references_by_index_and_name_and_missing_sheets(tmp_path):
    gold = sales_book(tmp_path / "gold.xlsx")
    mine = sales_book(tmp_path / "mine.xlsx")
    assert compare_table(str(mine), str(gold), **_data_rule("RNSheet2", "ENSheet2")) == 1.0
    assert compare_table(str(mine), str(gold), **_data_rule("RI1", "EI1")) == 1.0
    assert compare_table(str(mine), str(gold), **_data_rule(0, "ENSheet1")) == 1.0
    assert compare_table(str(mine), str(gold), **_data_rule("RNSheet1", "ENSheet2")) == 0.0
    assert compare_table(str(mine), str(gold), **_data_rule("RNSheet1", "ENSheet2", ignore_case=True)) == 0.0
    assert compare_table(str(mine), str(gold), **_data_rule("RNNope", "ENSheet1")) == 0.0
    with pytest.raises(MetricError):
        compare_table(str(mine), str(gold), **_data_rule("RNSheet1", "ENNope"))
    with pytest.raises(MetricError):
        compare_table(str(mine), str(gold), **_data_rule("XX1", "ENSheet1"))


def test_sheet_name_rule(tmp_path):
    gold = sales_book(tmp_path / "gold.xlsx")
    one_sheet = sales_book(tmp_path / "one.xlsx", second_sheet=False)
    rule = {"rules": [{"type": "sheet_name"}]}
    assert compare_table(str(sales_book(tmp_path / "two.xlsx")), str(gold), **rule) == 1.0
    assert compare_table(str(one_sheet), str(gold), **rule) == 0.0


def test_check_cell_values_and_styles(tmp_path):
    book = sales_book(tmp_path / "book.xlsx")
    formulas = sales_book(tmp_path / "formulas.xlsx", formulas=True)

    def check(path, coordinate, props, sheet="RNSheet1"):
        rules = {
            "rules": [{"type": "check_cell", "sheet_idx": sheet, "coordinate": coordinate, "props": props}]
        }
        return compare_table(str(path), **rules)

    assert check(book, "A2", {"value": {"method": "eq", "ref": "Pen"}}) == 1.0
    assert check(book, "B2", {"value": {"method": "eq", "ref": 3.0}}) == 1.0
    assert check(book, "B2", {"value": {"method": "eq", "ref": 4.0}}) == 0.0
    assert check(book, "A1", {"font_bold": {"method": "eq", "ref": True}}, sheet="RNSheet2") == 1.0
    assert check(book, "A2", {"font_bold": {"method": "eq", "ref": True}}, sheet="RNSheet2") == 0.0
    assert check(book, "D3", {"value": {"method": "approx:0.01", "ref": 42.5}}) == 1.0
    assert read_cell_value(str(formulas), "Sheet1", "D2") is None  # no cached value
    assert read_cell_value(str(book), "Sheet2", "B3") is None  # booleans read as None
    assert check(book, "A2", {"value": {"method": "eq", "ref": "Pen"}}, sheet="RNMissing") == 0.0


def test_style_rule_compares_cell_styles(tmp_path):
    gold = sales_book(tmp_path / "gold.xlsx")
    same = sales_book(tmp_path / "same.xlsx")
    plain = sales_book(tmp_path / "plain.xlsx")
    book = openpyxl.load_workbook(plain)
    book["Sheet2"]["A1"].font = openpyxl.styles.Font(bold=False)
    book.save(plain)
    rule = {
        "type": "style",
        "sheet_idx0": "RNSheet2",
        "sheet_idx1": "ENSheet2",
        "props": ["font_bold", "font_name"],
    }
    assert compare_table(str(same), str(gold), rules=[rule]) == 1.0
    assert compare_table(str(plain), str(gold), rules=[rule]) == 0.0
    assert compare_table(str(plain), str(gold), rules=[{**rule, "props": ["font_name"]}]) == 1.0
    with pytest.raises(MetricError, match="unsupported cell style"):
        compare_table(str(same), str(gold), rules=[{**rule, "props": ["glow"]}])


def test_value_rules():
    assert match_value_to_rule("Total: 42", {"method": "re.I", "ref": "total"})
    assert not match_value_to_rule("Total", {"method": "re", "ref": "^x"})
    assert match_value_to_rule(5, {"method": "ge", "ref": 5})
    assert match_value_to_rule("'a,b'", {"method": "str_set_eq", "ref": ["b", "a"]})  # commas, as OSWorld
    assert not match_value_to_rule("a\nb", {"method": "str_set_eq", "ref": ["b", "a"]})
    assert match_value_to_rule(2, {"method": "range.te", "ref": [1, 2]})
    assert not match_value_to_rule(1, {"method": "range.te", "ref": [1, 2]})
    with pytest.raises(MetricError):
        match_value_to_rule(1, {"method": "nearly", "ref": 1})


def test_docx_ignore_blanks_and_options(tmp_path):
    gold = str(docx_file(tmp_path / "gold.docx", ["Dear team,", "The launch is on Monday."]))
    split = str(docx_file(tmp_path / "split.docx", ["Dear  team,", "", "The launch\tis on Monday."]))
    changed = str(docx_file(tmp_path / "changed.docx", ["Dear team,", "The launch is on Tuesday."]))
    shouted = str(docx_file(tmp_path / "shouted.docx", ["DEAR TEAM,", "THE LAUNCH IS ON MONDAY."]))
    assert compare_docx(split, gold) == 1.0
    assert compare_docx(changed, gold) == 0.0
    assert compare_docx(split, gold, ignore_blanks=False) == 0.0  # paragraph counts differ
    assert compare_docx(shouted, gold) == 0.0
    assert compare_docx(shouted, gold, ignore_case=True) == 1.0
    ratio = compare_docx(changed, gold, content_only=True)
    assert 0.8 < ratio < 1.0
    reordered = str(docx_file(tmp_path / "reordered.docx", ["The launch is on Monday.", "Dear team,"]))
    assert compare_docx(reordered, gold, ignore_blanks=False) == 0.0
    assert compare_docx(reordered, gold, ignore_blanks=False, ignore_order=True) == 1.0
    with_table = str(
        docx_file(tmp_path / "table.docx", ["Dear team,", "The launch is on Monday."], [["x", "y"]])
    )
    assert compare_docx(with_table, gold) == 1.0  # tables are not compared
    assert compare_docx(None, gold) == 0.0


def test_pptx_shapes_text_and_bullets(tmp_path):
    gold = str(pptx_file(tmp_path / "gold.pptx"))
    assert compare_pptx(str(pptx_file(tmp_path / "same.pptx")), gold) == 1.0
    moved = str(move_first_textbox(tmp_path / "same.pptx", tmp_path / "moved.pptx"))
    assert compare_pptx(moved, gold) == 0.0
    assert compare_pptx(moved, gold, examine_shape=False) == 1.0
    retitled = str(pptx_file(tmp_path / "retitled.pptx", title="Annual review"))
    assert compare_pptx(retitled, gold) == 0.0
    assert compare_pptx(retitled, gold, examine_text=False) == 0.0  # the bullets still differ
    assert compare_pptx(retitled, gold, examine_text=False, examine_bullets=False) == 1.0
    longer = str(pptx_file(tmp_path / "longer.pptx", bullets=("Growth", "Costs", "Hiring")))
    assert compare_pptx(longer, gold) == 0.0


def test_csv_bom_blank_lines_and_case(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("name,qty\npen,3\n")
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfname,qty\npen,3\n")
    blank = tmp_path / "blank.csv"
    blank.write_text("name,qty\npen,3\n\n")
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("name,qty  \n  pen,3\n")
    upper = tmp_path / "upper.csv"
    upper.write_text("NAME,QTY\nPEN,3\n")
    assert compare_csv(str(gold), str(gold)) == 1.0
    assert compare_csv(str(bom), str(gold)) == 0.0
    assert compare_csv(str(blank), str(gold), strict=False) == 0.0
    assert compare_csv(str(spaced), str(gold)) == 0.0
    assert compare_csv(str(spaced), str(gold), strict=False) == 1.0
    assert compare_csv(str(upper), str(gold), ignore_case=True) == 1.0
    assert compare_csv(None, str(gold)) == 0.0


def test_text_metrics(tmp_path):
    empty1, empty2 = tmp_path / "a.txt", tmp_path / "b.txt"
    empty1.write_text("")
    empty2.write_text("")
    assert METRICS["diff_text_file"](str(empty1), str(empty2)) == 1.0
    empty2.write_text("one\ntwo\n")
    empty1.write_text("one\nthree\n")
    assert METRICS["diff_text_file"](str(empty1), str(empty2)) == 0.5
    assert METRICS["diff_text_file"](None, str(empty2)) == 0.0
    assert METRICS["exact_match"]("42", {"expected": "42"}) == 1.0
    assert METRICS["exact_match"]("42\n", {"expected": "42"}) == 0.0
    rules = {"include": ["saved", "ok"], "exclude": ["error"]}
    assert METRICS["check_include_exclude"]("saved: ok", rules) == 1.0
    assert METRICS["check_include_exclude"]("saved: ok, error", rules) == 0.0
    assert METRICS["check_include_exclude"](None, rules) == 0.0


def test_archive_file_types_are_checked_before_scoring():
    check_metric_options("compare_archive", {"file_type": "csv", "file_path": "data"})
    with pytest.raises(MetricUnsupported, match="rar"):
        check_metric_options("compare_archive", {"file_type": "rar"})
    with pytest.raises(MetricUnsupported, match="sparkline"):
        check_metric_options("compare_archive", {"file_type": "table", "rules": [{"type": "sparkline"}]})


def test_shortcut_rule_types_osworld_lacks_are_unsupported():
    with pytest.raises(MetricUnsupported, match="url"):
        METRICS["is_shortcut_on_desktop"]({}, {"type": "url", "url": "https://play2048.co/"})


def test_chart_pivot_and_position_options_are_accepted_before_scoring():
    pivot = {"type": "pivot_table", "sheet_idx0": 0, "sheet_idx1": "EI0", "pivot_props": ["row_fields"]}
    chart = {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "legend"]}
    check_metric_options("compare_table", {"rules": [chart, pivot]})
    for option in ("examine_title_bottom_position", "examine_image_size", "examine_modify_height"):
        check_metric_options("compare_pptx_files", {"examine_shape": False, option: True})
    with pytest.raises(MetricUnsupported, match="sparkline"):
        check_metric_options("compare_table", {"rules": [{"type": "sparkline"}]})
