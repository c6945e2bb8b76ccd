"""Reading the deliverable paths from a task instruction."""

import pytest

from stateact.gate.inspect.deliverables import mentioned_paths

CASES = [
    (
        "Open ~/data.xlsx and save the totals as /home/user/Documents/out.csv.",
        [("~/data.xlsx", False), ("/home/user/Documents/out.csv", True)],
    ),
    ("Export ~/report.docx to PDF as ~/report.pdf.", [("~/report.docx", False), ("~/report.pdf", True)]),
    ("Convert the file ~/a.docx into ~/a.odt", [("~/a.docx", False), ("~/a.odt", True)]),
    ("Rename ~/a.txt to ~/b.txt", [("~/a.txt", False), ("~/b.txt", True)]),
    (
        "Please save the workbook ~/data.xlsx after adding a chart from ~/in.csv",
        [("~/data.xlsx", True), ("~/in.csv", False)],
    ),
    (
        'I have a file "Q3 report.docx" on the Desktop. Export it to PDF as report.pdf in the same folder.',
        [("~/Desktop/Q3 report.docx", False), ("~/Desktop/report.pdf", True)],
    ),
    ("Compute the totals in ~/data.xlsx", [("~/data.xlsx", True)]),
    ("Sort the rows of the open spreadsheet by date.", []),
    ("See https://example.com/x.html and save the page text to ~/x.txt", [("~/x.txt", True)]),
]


@pytest.mark.parametrize(("instruction", "expected"), CASES)
def test_paths_and_outputs(instruction, expected):
    assert [(p.path, p.output) for p in mentioned_paths(instruction)] == expected
