"""The paths a task instruction names, read from OSWorld-style phrasings: where each file is, and
whether the task produces it (output) or only reads it.

Each row: the instruction and the exact (path, output) pairs `mentioned_paths` must return, in order.
Relative paths are taken from the home folder (`~/...`); a bare file name with a folder named beside it
("report.csv in Documents", "on the Desktop") is joined to that folder.
"""

import pytest

from stateact.gate.inspect.deliverables import mentioned_paths

H = "/home/user"

CORPUS: list[tuple[str, list[tuple[str, bool]]]] = [
    (
        "Each region's sales export is in /home/user/Documents/sales/ (north.csv, west.csv; west.csv is "
        "semicolon-separated). Create /home/user/Documents/sales/review.xlsx.",
        [
            ("/home/user/Documents/sales/north.csv", False),
            ("/home/user/Documents/sales/west.csv", False),
            ("/home/user/Documents/sales/review.xlsx", True),
        ],
    ),
    (
        "In /home/user/Documents/close/ are the bank exports: checking.csv and card.csv. Our ledger is "
        "/home/user/Documents/close/ledger.xlsx.",
        [
            ("/home/user/Documents/close/checking.csv", False),
            ("/home/user/Documents/close/card.csv", False),
            ("/home/user/Documents/close/ledger.xlsx", False),
        ],
    ),
    (
        "Everything lives in ~/Documents/conference (read notes.txt there first). The exports are in "
        "~/Documents/term (a.csv, b.csv); policy.docx there has the weights.",
        [
            ("~/Documents/conference/notes.txt", False),
            ("~/Documents/term/a.csv", False),
            ("~/Documents/term/b.csv", False),
            ("~/Documents/term/policy.docx", False),
        ],
    ),
    # -- relative paths are relative to the home folder ------------------------------------------
    (
        "In Documents/memo.docx in my home folder, replace every 'teh' with 'the' and save it.",
        [("~/Documents/memo.docx", True)],
    ),
    (
        "The notes app keeps its data in .local/share/notes/notes.db under my home folder. Mark every note "
        "tagged 'old' as archived.",
        [("~/.local/share/notes/notes.db", True)],
    ),
    ("Create out/a.txt with the word hello in it.", [("~/out/a.txt", True)]),
    (
        "Read Documents/raw/data.csv and write the column averages to Documents/avg.csv.",
        [("~/Documents/raw/data.csv", False), ("~/Documents/avg.csv", True)],
    ),
    (
        "Copy the first sheet of Desktop/plan.xlsx into a new workbook Desktop/plan_copy.xlsx.",
        [("~/Desktop/plan.xlsx", False), ("~/Desktop/plan_copy.xlsx", True)],
    ),
    # -- ~/ and /home/user -------------------------------------------------------------------------
    (
        "Open ~/data.xlsx and save the totals as /home/user/Documents/out.csv.",
        [("~/data.xlsx", False), (f"{H}/Documents/out.csv", True)],
    ),
    ("Compute the totals in ~/data.xlsx", [("~/data.xlsx", True)]),
    (
        "The workbook /home/user/Documents/budget.xlsx has a Budget sheet and an Actual sheet. Add a sheet "
        '"Variance" with columns Department, Budget, Actual. Save the workbook in place.',
        [(f"{H}/Documents/budget.xlsx", True)],
    ),
    (
        "Clean the contact list /home/user/Documents/contacts.xlsx and save the result as "
        '/home/user/Documents/contacts_clean.xlsx (sheet "Contacts"). Do not change the original file.',
        [(f"{H}/Documents/contacts.xlsx", False), (f"{H}/Documents/contacts_clean.xlsx", True)],
    ),
    (
        'In /home/user/Documents/expenses.xlsx, add a sheet "ByCategory" that totals the expenses by '
        "category and month. Save in place.",
        [(f"{H}/Documents/expenses.xlsx", True)],
    ),
    (
        "Combine the three CSV exports /home/user/Documents/tx_2024_01.csv, /home/user/Documents/tx_2024_02.csv "
        "and /home/user/Documents/tx_2024_03.csv into one new workbook saved as "
        '/home/user/Documents/q1_transactions.xlsx with a single sheet named "Q1".',
        [
            (f"{H}/Documents/tx_2024_01.csv", False),
            (f"{H}/Documents/tx_2024_02.csv", False),
            (f"{H}/Documents/tx_2024_03.csv", False),
            (f"{H}/Documents/q1_transactions.xlsx", True),
        ],
    ),
    (
        "The workbook ~/Documents/sales_2024.xlsx is open in Calc. Export the East region's orders from its "
        "Orders sheet to a new file ~/Documents/east_orders.csv. Leave the workbook itself unchanged.",
        [("~/Documents/sales_2024.xlsx", False), ("~/Documents/east_orders.csv", True)],
    ),
    (
        'Using /home/user/Documents/inventory.xlsx, create a new sheet named "Reorder" in the same workbook. '
        "Keep the Stock sheet unchanged and save the workbook in place.",
        [(f"{H}/Documents/inventory.xlsx", True)],
    ),
    (
        "Embed the keynote video from the USB stick (/media/usb/keynote.mp4) on slide 2 of "
        "/home/user/Documents/company_deck.pptx so it plays automatically, and save the presentation.",
        [("/media/usb/keynote.mp4", False), (f"{H}/Documents/company_deck.pptx", True)],
    ),
    (
        "Build a presentation /home/user/Documents/onboarding.pptx from the outline "
        '/home/user/Documents/outline.md: the first slide uses the "Title Slide" layout.',
        [(f"{H}/Documents/onboarding.pptx", True), (f"{H}/Documents/outline.md", False)],
    ),
    (
        'Append a slide titled "Revenue by Region" to /home/user/Documents/regional_update.pptx with a table '
        "of /home/user/Documents/regional.csv. Keep the existing slides. Save in place.",
        [(f"{H}/Documents/regional_update.pptx", True), (f"{H}/Documents/regional.csv", False)],
    ),
    (
        "Add speaker notes to /home/user/Documents/quarterly_review.pptx: the file "
        '/home/user/Documents/speaker_notes.txt has one line per slide ("Slide N: text"). Save in place.',
        [(f"{H}/Documents/quarterly_review.pptx", True), (f"{H}/Documents/speaker_notes.txt", False)],
    ),
    (
        "Prepare /home/user/Documents/handbook.docx for printing: landscape A4 pages. Save it in place, then "
        "export it as /home/user/Documents/handbook.pdf.",
        [(f"{H}/Documents/handbook.docx", True), (f"{H}/Documents/handbook.pdf", True)],
    ),
    (
        "For every customer listed in /home/user/Documents/customers.csv, make one letter from the template "
        "/home/user/Documents/letter_template.docx and save each letter as "
        "/home/user/Documents/letters/<last_name>.docx (for example /home/user/Documents/letters/Archer.docx).",
        [
            (f"{H}/Documents/customers.csv", False),
            (f"{H}/Documents/letter_template.docx", False),
            (f"{H}/Documents/letters/Archer.docx", True),
        ],
    ),
    (
        "Turn the raw notes in /home/user/Documents/meeting_notes.txt into a formatted Writer document saved "
        'as /home/user/Documents/minutes.docx: a Heading 1 "Meeting Minutes 2024-03-14".',
        [(f"{H}/Documents/meeting_notes.txt", False), (f"{H}/Documents/minutes.docx", True)],
    ),
    (
        "Write a short Writer brief /home/user/Documents/sales_brief.docx from the spreadsheet "
        '/home/user/Documents/quarterly.xlsx: a Heading 1 "Sales by Quarter".',
        [(f"{H}/Documents/sales_brief.docx", True), (f"{H}/Documents/quarterly.xlsx", False)],
    ),
    (
        "The project tracker keeps its data in the SQLite database /home/user/.local/share/tracker/tracker.db. "
        "Write /home/user/Documents/overdue.docx with one Heading 2 per project; write "
        '/home/user/Documents/overdue.xlsx with a sheet "Overdue"; and finally set the status of those tasks '
        'to "escalated" in the tracker.',
        [
            (f"{H}/.local/share/tracker/tracker.db", False),
            (f"{H}/Documents/overdue.docx", True),
            (f"{H}/Documents/overdue.xlsx", True),
        ],
    ),
    (
        "For every row of /home/user/Documents/restock.xlsx with a quantity above zero, add a record in Stock "
        "Keeper; then save the total quantity you added, as a single number, in "
        "/home/user/Documents/restock_total.txt.",
        [(f"{H}/Documents/restock.xlsx", False), (f"{H}/Documents/restock_total.txt", True)],
    ),
    # -- URLs are not paths ------------------------------------------------------------------------
    (
        "See https://example.com/x.html and save the page text to ~/x.txt",
        [("~/x.txt", True)],
    ),
    (
        "From the staff directory at http://127.0.0.1:18434/directory/, export everyone in the Engineering "
        "department to /home/user/Documents/engineering.csv with the header Name,Email,Phone.",
        [(f"{H}/Documents/engineering.csv", True)],
    ),
    (
        'Download the "Q3 2024 store revenue" CSV from the Reports page at http://127.0.0.1:18432/reports/q3.csv '
        "(keep the downloaded file in ~/Downloads), then write /home/user/Documents/q3_summary.csv with the "
        "header store,total_revenue.",
        [("~/Downloads", False), (f"{H}/Documents/q3_summary.csv", True)],
    ),
    (
        "Go to www.example.org/prices.html and put the prices in ~/prices.csv.",
        [("~/prices.csv", True)],
    ),
    (
        "Convert the invoice amounts in /home/user/Documents/invoices.xlsx to euros using the reference rates "
        "published on the intranet (http://127.0.0.1:18435/rates/, euros per unit). Save in place.",
        [(f"{H}/Documents/invoices.xlsx", True)],
    ),
    # -- quoted paths, spaces ----------------------------------------------------------------------
    (
        'Open "~/My Files/a b.xlsx" and sort it by the second column.',
        [("~/My Files/a b.xlsx", True)],
    ),
    (
        'I have a file "Q3 report.docx" on the Desktop. Export it to PDF as report.pdf in the same folder.',
        [("~/Desktop/Q3 report.docx", False), ("~/Desktop/report.pdf", True)],
    ),
    (
        "Rename the file 'old notes.txt' in Documents to 'meeting notes.txt'.",
        [("~/Documents/old notes.txt", False), ("~/Documents/meeting notes.txt", True)],
    ),
    (
        "Save the chart as “sales chart.png” in ~/Pictures.",
        [("~/Pictures/sales chart.png", True)],
    ),
    (
        "Extract the table from `~/Downloads/stats 2023.pdf` into ~/Documents/stats.csv.",
        [("~/Downloads/stats 2023.pdf", False), ("~/Documents/stats.csv", True)],
    ),
    # -- punctuation after a path ------------------------------------------------------------------
    ("Please fix the formulas in ~/Documents/file.xlsx.", [("~/Documents/file.xlsx", True)]),
    (
        "Merge ~/a.xlsx, ~/b.xlsx and ~/c.xlsx into ~/all.xlsx.",
        [("~/a.xlsx", False), ("~/b.xlsx", False), ("~/c.xlsx", False), ("~/all.xlsx", True)],
    ),
    (
        "Use the template (~/Templates/memo.ott) to write the memo ~/Documents/memo.odt; nothing else.",
        [("~/Templates/memo.ott", False), ("~/Documents/memo.odt", True)],
    ),
    (
        "Is the total in ~/Documents/budget.ods correct?",
        [("~/Documents/budget.ods", True)],
    ),
    (
        'Fill in the form ~/Documents/form.pdf: name "Ana", date "2024-05-01"!',
        [("~/Documents/form.pdf", True)],
    ),
    (
        "Sort the names in report.xlsx, then export the sheet as report.csv.",
        [("~/report.xlsx", False), ("~/report.csv", True)],
    ),
    # -- inputs versus outputs ---------------------------------------------------------------------
    ("Export ~/report.docx to PDF as ~/report.pdf.", [("~/report.docx", False), ("~/report.pdf", True)]),
    ("Convert the file ~/a.docx into ~/a.odt", [("~/a.docx", False), ("~/a.odt", True)]),
    ("Rename ~/a.txt to ~/b.txt", [("~/a.txt", False), ("~/b.txt", True)]),
    (
        "Please save the workbook ~/data.xlsx after adding a chart from ~/in.csv",
        [("~/data.xlsx", True), ("~/in.csv", False)],
    ),
    (
        "Based on ~/Documents/survey.csv, create ~/Documents/summary.xlsx with one row per answer.",
        [("~/Documents/survey.csv", False), ("~/Documents/summary.xlsx", True)],
    ),
    (
        "Write the word count of ~/essay.odt to ~/count.txt.",
        [("~/essay.odt", False), ("~/count.txt", True)],
    ),
    (
        "Compress ~/Pictures/trip into ~/trip.zip.",
        [("~/Pictures/trip", False), ("~/trip.zip", True)],
    ),
    (
        "Move ~/Downloads/invoice.pdf to ~/Documents/Invoices/invoice.pdf.",
        [("~/Downloads/invoice.pdf", False), ("~/Documents/Invoices/invoice.pdf", True)],
    ),
    (
        "Copy the chart from ~/Documents/sales.xlsx onto the second slide of ~/Documents/deck.pptx and save "
        "the presentation.",
        [("~/Documents/sales.xlsx", False), ("~/Documents/deck.pptx", True)],
    ),
    # -- bare names with the folder beside them ----------------------------------------------------
    ("Save the table as report.csv in Documents.", [("~/Documents/report.csv", True)]),
    (
        "There is a spreadsheet called grades.xlsx on the Desktop; compute each student's average in column E.",
        [("~/Desktop/grades.xlsx", True)],
    ),
    (
        "Save the document to the Desktop as letter.docx.",
        [("~/Desktop/letter.docx", True)],
    ),
    (
        "Export the slides of talk.pptx in my Documents folder as talk.pdf in the same folder.",
        [("~/Documents/talk.pptx", False), ("~/Documents/talk.pdf", True)],
    ),
    (
        "Save it as summary.txt in /home/user/Documents.",
        [(f"{H}/Documents/summary.txt", True)],
    ),
    ("Create a file named todo.md with three empty checkboxes.", [("~/todo.md", True)]),
    (
        "Currently, the program my_process.sh is running in the system and I want to end the process.",
        [("~/my_process.sh", False)],  # a running program the task acts on, not its output
    ),
    (
        "Open my photo holiday.xcf in GIMP, crop it to a square and export it as holiday.png.",
        [("~/holiday.xcf", False), ("~/holiday.png", True)],
    ),
    (
        "Collect every line with ERROR from the .log files in ~/logs into errors.txt in my home folder.",
        [("~/logs", False), ("~/errors.txt", True)],
    ),
    (
        "Open ~/data/q1.xlsx and save the totals as totals.csv.",  # Save As starts in the document's folder
        [("~/data/q1.xlsx", False), ("~/data/totals.csv", True)],
    ),
    # -- no paths ----------------------------------------------------------------------------------
    ("Sort the rows of the open spreadsheet by date.", []),
    ("Set the Units column to a 1/2 width and the ratio to 3/4; use and/or as you like.", []),
    ("Make the title 36 pt bold and change the font to Liberation Serif, version 2.0.", []),
    ("Turn on Dark mode in the Preferences window, then apply the settings.", []),
    ("Save each letter as /home/user/Documents/letters/<last_name>.docx.", []),
]


@pytest.mark.parametrize(("instruction", "expected"), CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_instruction_paths(instruction: str, expected: list[tuple[str, bool]]) -> None:
    assert [(p.path, p.output) for p in mentioned_paths(instruction)] == expected


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 50


@pytest.mark.parametrize(
    ("instruction", "exact"),
    [
        ("Save it as ~/Documents/out.csv.", [True]),
        (f"Save it as {H}/Documents/out.csv.", [True]),
        ("Save it as Documents/out.csv.", [False]),  # relative: taken from the home folder, a guess
        ("Save it as out.csv.", [False]),
        ("Save it as out.csv in Documents.", [False]),
        ("Write the error lines to errors.txt in my home folder.", [True]),  # the words name the folder
        ("In Documents/memo.docx in my home folder, fix the typos.", [True]),
        ("Open my photo holiday.xcf in GIMP and export it as holiday.png.", [False, False]),
    ],
)
def test_only_paths_written_in_full_are_exact(instruction: str, exact: list[bool]) -> None:
    assert [p.exact for p in mentioned_paths(instruction)] == exact


@pytest.mark.parametrize(
    ("instruction", "stated"),
    [
        ("Export ~/a.docx to PDF as ~/a.pdf.", [True, True]),  # a verb says which is which
        ("Is the total in ~/budget.ods correct?", [False]),  # a lone path is taken as the output
    ],
)
def test_roles_a_verb_states_are_told_apart_from_defaults(instruction: str, stated: list[bool]) -> None:
    assert [p.role_stated for p in mentioned_paths(instruction)] == stated
