"""The marathon suite's tasks, written from the themes of evals/fixtures/marathon.py:

    python -m evals.authoring.marathon_tasks [SUITE_DIR]     # default evals/suites/marathon

Each task is one period close: read a portal one page at a time (each page's token is on the page
before), type every record into a Desk window that refuses retired codes and shows a confirmation
number per record, file the large records and the period close on intranet forms that refuse
suspended parties and answer with receipts, then act on the correction notice the close's receipt
carries (amend filings, correct registers). The reference solution does what a strong agent would:
one record per GUI turn (its keystrokes and Return, then the look at the window: the confirmation
number shows only there, in the status line, for the record just added), one portal page per web
turn, one filing per web turn.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import ModuleType

from stateact.evals.authoring import long_tasks
from stateact.evals.authoring.long_events_tasks import (
    delegate_web,
    doc_paragraphs,
    done,
    plan,
    print_xlsx,
    report,
    sheet_rows,
)
from stateact.evals.fixtures import marathon as data
from stateact.evals.fixtures.apps.desk import confirmation

SERVER_FILE = Path(data.__file__).parent / "site" / "long_server.py"


def _server_module() -> ModuleType:
    """The intranet server program (it sits beside server.py, not in a package), for its receipts and tokens."""
    spec = importlib.util.spec_from_file_location("long_server", SERVER_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SERVER = _server_module()
page_token, receipt = _SERVER.page_token, _SERVER.receipt

MARATHON_SUITE = Path(__file__).parents[1] / "suites" / "marathon"
MAX_STEPS = 500
"""The tier's main-agent step budget, carried by every task file."""
GUI_CHUNK = 10
"""Records per GUI delegation (the GUI subagent has 25 steps)."""
FILE_JS = (
    "async () => {{ const r = await fetch('/file/{form}', {{method: 'POST', headers: {{'Content-Type': "
    "'application/x-www-form-urlencoded'}}, body: new URLSearchParams({fields}).toString()}}); "
    "const t = await r.text(); return [r.status, t.replace(/<[^>]*>/g, ' ').replace(/\\s+/g, ' ').trim()]; }}"
)


def _cents(value: Decimal) -> str:
    return f"{value:.2f}"


@dataclass
class Close:
    """Everything the reference computes for one theme, in the order the work happens."""

    theme: data.Theme

    def __post_init__(self) -> None:
        t = self.theme
        names = data.party_ids(t)
        self.rows = [r for r in data.records(t) if r.status == "Open"]
        self.code = {r.ref: t.retired.get(r.code, r.code) for r in self.rows}
        self.party = {r.ref: names[r.party_id] for r in self.rows}
        self.entry = {r.ref: [r.ref, self.code[r.ref], _cents(r.amount)] for r in self.rows}
        seed = data.desk_seed(t)
        self.confirm = {ref: confirmation(t.confirm, seed, values) for ref, values in self.entry.items()}
        fixes = data.erratum(t)
        self.amount = {r.ref: fixes[r.ref][1] if r.ref in fixes else r.amount for r in self.rows}
        self.items = []
        self.receipt: dict[str, str] = {}
        for r in self.rows:
            if r.amount >= data.THRESHOLD:
                party = t.suspended.get(self.party[r.ref], self.party[r.ref])
                fields = {
                    "period": data.PERIOD,
                    "ref": r.ref,
                    "party": party,
                    "amount": _cents(r.amount),
                    "confirmation": self.confirm[r.ref],
                }
                refused = {**fields, "party": self.party[r.ref]} if party != self.party[r.ref] else None
                self.items.append((fields, refused))
                self.receipt[r.ref] = receipt("IT", "item", fields)
        total = sum((r.amount for r in self.rows), Decimal(0))
        self.close = {"period": data.PERIOD, "count": str(len(self.rows)), "total": _cents(total)}
        self.close_receipt = receipt("PC", "close", self.close)
        self.total = sum(self.amount.values(), Decimal(0))
        self.amends = [
            {"receipt": self.receipt[ref], "amount": _cents(self.amount[ref])}
            for ref in fixes
            if ref in self.receipt
        ] + [{"receipt": self.close_receipt, "amount": _cents(self.total)}]
        self.amended = {a["receipt"]: receipt("AM", "amend", a) for a in self.amends}
        self.close_amend = self.amended[self.close_receipt]

    def latest(self, ref: str) -> str:
        """The record's filing receipt after the amendments ("-" when it is not filed)."""
        first = self.receipt.get(ref)
        return self.amended.get(first, first) if first else "-"

    def register(self) -> list[list]:
        return [
            [r.ref, self.party[r.ref], self.code[r.ref], float(self.amount[r.ref]), self.confirm[r.ref], self.latest(r.ref)]
            for r in self.rows
        ]  # fmt: skip

    def by_code(self) -> list[tuple[str, int, float]]:
        counts = Counter(self.code.values())
        return [
            (code, counts[code], float(sum(self.amount[r] for r in self.code if self.code[r] == code)))
            for code in sorted(counts)
        ]

    def filings(self) -> list[tuple[str, dict]]:
        """The filings the server stores, in filing order (refused attempts are not stored)."""
        stored = [("item", {**f, "receipt": self.receipt[f["ref"]]}) for f, _ in self.items]
        stored.append(("close", {**self.close, "receipt": self.close_receipt}))
        stored += [
            ("amend", {**a, "receipt": self.amended[a["receipt"]], "amends": a["receipt"]})
            for a in self.amends
        ]
        return stored


def _folder(theme: data.Theme) -> str:
    return f"{long_tasks.HOME}/Documents/{theme.folder}"


def _instruction(c: Close) -> str:
    t, url, folder = c.theme, f"http://127.0.0.1:{c.theme.port}", _folder(c.theme)
    lookup = "parties.db (table parties)" if t.sqlite == "lookup" else "parties.xlsx"
    doc = (
        f'4. {folder}/summary.docx: a Heading 1 "{t.title}", a paragraph "Close receipt: <close receipt>, '
        'amended by <close amendment receipt>.", a table Code | Count | Total (one row per code A to Z, then a '
        'row Total; totals written like 1,234.56), a Heading 2 "Filed items" and a table Ref | Receipt with every '
        "record filed on the item form (its latest receipt), in list order.\n"
        if t.doc == "docx"
        else f'4. {folder}/summary.pptx: a title slide "{t.title}" with the subtitle "Period close {data.PERIOD}", '
        'a slide "Totals by code" whose body has one paragraph per code A to Z as "CODE: N records, 1,234.56" and '
        'a last paragraph "Total: N records, 1,234.56", and a slide "Filed items" with one paragraph per record '
        'filed on the item form, in list order, as "REF: RECEIPT" (its latest receipt) and a last paragraph '
        '"Close: <close amendment receipt>".\n'
    )
    ledger = (
        f"5. Append this period's entries to {folder}/ledger.db: table entries (ref, code, amount, "
        f"confirmation, period {data.PERIOD}) one row per entered record, and a row in periods (period, the "
        "close amendment receipt, the corrected total). Keep the October rows.\n"
        if t.sqlite == "ledger"
        else ""
    )
    return (
        f"Period close for {t.title}. Read {folder}/notes.txt first; {t.party_label} names are in "
        f"{folder}/{lookup} (by ID). The source list is on the intranet at {url}/portal/{t.id}/1 "
        "(one page at a time: each page links to the next). The filing forms are described at "
        f"{url}/forms/ (POST /file/item, /file/close and /file/amend; an accepted filing answers with a receipt).\n"
        f"1. Enter every record that is not void into the {t.desk} window open on the screen ({', '.join(t.fields)}; "
        f"{t.fields[2]} as on the list without thousands separators, e.g. 1234.50). It has no import. It refuses "
        "some codes and says which to use instead, and it shows each added record's confirmation number in its "
        "status line (the latest record's only); "
        "leave it open. It keeps what was entered: corrections do not go into it.\n"
        f"2. File each entered record of {data.money(data.THRESHOLD)} or more on the item form (period {data.PERIOD}, "
        f"ref, party = the {t.party_label.lower()}'s name, amount as listed but written like 1234.50, confirmation = "
        f"its {t.desk} number); "
        "the form may refuse a party and say how to file instead. Then file the period close on the close form "
        "(period, count of entered records, total of their listed amounts) and do what its receipt page says.\n"
        f"3. {folder}/register.xlsx: sheet Entries with the header Ref, {t.party_label}, Code, Amount, "
        "Confirmation, Receipt and one row per entered record in list order (Code as the desk accepted it, Amount "
        'after any correction, as a number; Receipt the latest receipt of its item filing, or "-"), and sheet Summary '
        'with the header Code, Count, Total, one row per code A to Z, a row "Total" (count and total of all), then '
        'the rows "Close receipt" and "Close amendment" with those receipt numbers in column B. Give every Total '
        "number the format #,##0.00.\n" + doc + ledger + "Leave the other files as they are."
    )


def _portal_web(c: Close) -> list[dict]:
    t, url = c.theme, f"http://127.0.0.1:{c.theme.port}"
    pages = data.portal(t)["pages"]
    turns = []
    for number in range(1, len(pages) + 1):
        token = f"?token={page_token(f'marathon-{t.id}', t.id, number)}" if number > 1 else ""
        seen = [{"contains": [f"Page {number - 1} of {len(pages)}", pages[number - 2]["rows"][-1][0]]}]
        turns.append(
            long_tasks.turn(
                "",
                long_tasks.call("navigate", url=f"{url}/portal/{t.id}/{number}{token}"),
                expect=seen if number > 1 else None,
            )
        )
    facts = [" | ".join(row) for shown in pages for row in shown["rows"]]
    last = [{"contains": [f"Page {len(pages)} of {len(pages)}", "Last page of the list."]}]
    turns.append(report(f"Read all {len(pages)} pages.", facts) | {"expect": last})
    return turns


def _filing_web(c: Close, form: str, filings: list[tuple[dict, dict | None]], summary: str) -> list[dict]:
    """Web turns filing each (fields, first attempt refused or None) on `form`, one per turn, a refused
    attempt again with the corrected fields; each turn checks the answer the previous one got."""
    prefix = data.form_rules(c.theme)[form]["receipt"]
    expect: list[dict] = [{"contains": "filing forms"}]
    turns, facts = (
        [long_tasks.turn("", long_tasks.call("navigate", url=f"http://127.0.0.1:{c.theme.port}/forms/"))],
        [],
    )
    for fields, refused in filings:
        for attempt in [refused, fields] if refused else [fields]:
            turns.append(
                long_tasks.turn(
                    "",
                    long_tasks.call("run_js", script=FILE_JS.format(form=form, fields=json.dumps(attempt))),
                    expect=expect,
                )
            )
            number = receipt(prefix, form, attempt)
            expect = [{"contains": "Refused:" if attempt is refused else f"Receipt: {number}"}]
        facts.append(f"{' | '.join(fields.values())} -> receipt {number}")
    if form == "close":
        expect = [{"contains": [f"Receipt: {number}", "Correction to the"]}]
        facts.append(data.notice(c.theme))
    return [*turns, report(summary, facts) | {"expect": expect}]


def _gui(c: Close) -> list[list[dict]]:
    """The GUI delegations: per chunk of records a screenshot, one turn per record (the window's answer
    to it shows in that turn's screenshot), a refused code typed again, and the numbers reported."""
    t = c.theme
    chunks = [c.rows[i : i + GUI_CHUNK] for i in range(0, len(c.rows), GUI_CHUNK)]
    runs = []
    for chunk in chunks:
        turns = [long_tasks.turn("Look at the window.", long_tasks.call("computer", action="screenshot"))]
        seen = ""
        for r in chunk:
            listed = [r.ref, r.code, _cents(r.amount)]
            actions = []
            for index, value in enumerate(listed):
                actions.append(long_tasks.call("computer", action="type", text=value))
                actions.append(
                    long_tasks.call("computer", action="key", text="Return" if index == 2 else "Tab")
                )
            turns.append(long_tasks.turn(f"{seen}Add {r.ref}.", *actions))
            if r.code in t.retired:
                turns.append(
                    long_tasks.turn(
                        f"Refused: {t.fields[1]} {r.code} is retired; the cursor is in that field.",
                        long_tasks.call("computer", action="type", text=c.code[r.ref]),
                        long_tasks.call("computer", action="key", text="Return"),
                    )
                )
            seen = f"The status line: {r.ref} added, confirmation {c.confirm[r.ref]}. "
        numbers = [f"{r.ref} {c.code[r.ref]} {c.confirm[r.ref]}" for r in chunk]
        turns.append(
            long_tasks.turn(
                "", long_tasks.call("done", summary="Added, with confirmation numbers: " + "; ".join(numbers))
            )
        )
        runs.append(turns)
    return runs


def _deliverables(c: Close) -> str:
    """The reference script writing the register, the summary document and (ledger tasks) the ledger."""
    t, folder = c.theme, _folder(c.theme)
    codes = c.by_code()
    count, total = len(c.rows), float(c.total)
    filed = [(r.ref, c.latest(r.ref)) for r in c.rows if r.ref in c.receipt]
    script = f"""
import openpyxl
book = openpyxl.Workbook()
entries = book.active
entries.title = 'Entries'
entries.append(['Ref', {t.party_label!r}, 'Code', 'Amount', 'Confirmation', 'Receipt'])
for row in {c.register()!r}:
    entries.append(row)
summary = book.create_sheet('Summary')
summary.append(['Code', 'Count', 'Total'])
for row in {codes!r} + [('Total', {count}, {total})]:
    summary.append(list(row))
    summary.cell(summary.max_row, 3).number_format = '#,##0.00'
summary.append(['Close receipt', {c.close_receipt!r}])
summary.append(['Close amendment', {c.close_amend!r}])
book.save('{folder}/register.xlsx')
"""
    lines = [(code, n, f"{value:,.2f}") for code, n, value in codes] + [("Total", count, f"{total:,.2f}")]
    if t.doc == "docx":
        script += f"""
import docx
d = docx.Document()
d.add_heading({t.title!r}, 1)
d.add_paragraph('Close receipt: {c.close_receipt}, amended by {c.close_amend}.')
def table(header, rows):
    grid = d.add_table(rows=len(rows) + 1, cols=len(header))
    for cells, texts in zip(grid.rows, [header, *rows]):
        for cell, text in zip(cells.cells, texts):
            cell.text = str(text)
table(('Code', 'Count', 'Total'), {lines!r})
d.add_heading('Filed items', 2)
table(('Ref', 'Receipt'), {filed!r})
d.save('{folder}/summary.docx')
"""
    else:
        body = [f"{code}: {n} records, {value}" for code, n, value in lines]
        items = [f"{ref}: {number}" for ref, number in filed] + [f"Close: {c.close_amend}"]
        script += f"""
import pptx
deck = pptx.Presentation()
first = deck.slides.add_slide(deck.slide_layouts[0])
first.shapes.title.text = {t.title!r}
first.placeholders[1].text = 'Period close {data.PERIOD}'
for title, paragraphs in (('Totals by code', {body!r}), ('Filed items', {items!r})):
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    frame = slide.placeholders[1].text_frame
    for index, text in enumerate(paragraphs):
        (frame.paragraphs[0] if index == 0 else frame.add_paragraph()).text = text
deck.save('{folder}/summary.pptx')
"""
    if t.sqlite == "ledger":
        rows = [(r.ref, c.code[r.ref], float(c.amount[r.ref]), c.confirm[r.ref], data.PERIOD) for r in c.rows]
        script += f"""
import sqlite3
db = sqlite3.connect('{folder}/ledger.db')
db.executemany('INSERT INTO entries VALUES (?, ?, ?, ?, ?)', {rows!r})
db.execute('INSERT INTO periods VALUES (?, ?, ?)', ({data.PERIOD!r}, {c.close_amend!r}, {total}))
db.commit()
"""
    return script + f"print('written', {count}, 'entries', {c.close_amend!r})\n"


def _filings_script(c: Close) -> str:
    """The filings the intranet stores (written for the expected outputs; the server writes them in a run)."""
    rows = [(form, json.dumps(fields, sort_keys=True)) for form, fields in c.filings()]
    return f"""
import os, sqlite3
os.makedirs('{long_tasks.HOME}/.site', exist_ok=True)
db = sqlite3.connect('{long_tasks.HOME}/.site/state.db')
db.execute('CREATE TABLE IF NOT EXISTS filings (id INTEGER PRIMARY KEY, form TEXT, data TEXT)')
db.executemany('INSERT INTO filings (form, data) VALUES (?, ?)', {rows!r})
db.commit()
"""


def _probes(c: Close) -> list[str]:
    t, folder = c.theme, _folder(c.theme)
    register = f"{folder}/register.xlsx"
    entries = sheet_rows(register, "E", "Entries")
    summary = sheet_rows(register, "S", "Summary")
    formats = f"import openpyxl\nb = openpyxl.load_workbook('{register}')\n"
    filings = f"import sqlite3\nF = [(f, json.loads(d)) for f, d in sqlite3.connect('{long_tasks.HOME}/.site/state.db').execute('SELECT form, data FROM filings ORDER BY id')]\n"
    store = f"S = json.load(open('{t.store}'))\n"
    untouched = lambda path: f"import hashlib\nout(hashlib.sha256(open('{path}', 'rb').read()).hexdigest())"  # noqa: E731
    probes = [
        *(entries + f"out(next((r for r in E if r[0] == {r.ref!r}), None))" for r in c.rows),
        entries + "out(E[:1])",
        entries + "out([r[0] for r in E[1:]])",
        summary + "out(S)",
        formats + "out([b['Summary'].cell(r, 3).number_format for r in range(2, b['Summary'].max_row - 1)])",
        store + "out(len(S))",
        store + "out([(r.get('" + "'), r.get('".join(f.lower() for f in t.fields) + "')) for r in S])",
        filings
        + "out(sorted(d['ref'] + ' ' + d['party'] + ' ' + d['amount'] + ' ' + d['receipt'] for f, d in F if f == 'item'))",
        filings + "out(sorted(d['confirmation'] for f, d in F if f == 'item'))",
        filings + "out([d for f, d in F if f == 'close'])",
        filings + "out(sorted((d.get('amends'), d['amount'], d['receipt']) for f, d in F if f == 'amend'))",
        untouched(f"{folder}/register_2024-10.xlsx"),
        untouched(f"{folder}/notes_2023.txt"),
    ]
    if t.doc == "docx":
        doc = (
            doc_paragraphs(f"{folder}/summary.docx")
            + "T = [[[c.text.strip() for c in r.cells] for r in t.rows] for t in d.tables]\n"
        )
        probes += [
            doc + "out(P)",
            doc + "out(len(T))",
            doc + "out(T[0] if T else None)",
            doc + "out(T[1] if len(T) > 1 else None)",
        ]
    else:
        deck = f"import pptx\nD = list(pptx.Presentation('{folder}/summary.pptx').slides)\n"
        texts = "B = [[p.text.strip() for sh in s.shapes if sh.has_text_frame for p in sh.text_frame.paragraphs if p.text.strip()] for s in D]\n"
        probes += [
            deck + "out(len(D))",
            deck + texts + "out(B[0])",
            deck + texts + "out(B[1] if len(B) > 1 else None)",
            deck + texts + "out(B[2] if len(B) > 2 else None)",
        ]
    if t.sqlite == "ledger":
        ledger = f"import sqlite3\ndb = sqlite3.connect('{folder}/ledger.db')\n"
        probes += [
            ledger
            + f"out([tuple(N(v) for v in r) for r in db.execute(\"SELECT * FROM entries WHERE period = '{data.PERIOD}' ORDER BY ref\")])",
            ledger
            + "out([tuple(N(v) for v in r) for r in db.execute(\"SELECT * FROM entries WHERE period = '2024-10' ORDER BY ref\")])",
            ledger
            + "out([tuple(N(v) for v in r) for r in db.execute('SELECT * FROM periods ORDER BY period')])",
        ]
    else:
        probes.append(untouched(f"{folder}/parties.db"))
    return probes  # fmt: skip


def _inputs(c: Close) -> dict[str, str]:
    t, folder = c.theme, _folder(c.theme)
    files = ["notes.txt", "notes_2023.txt", "register_2024-10.xlsx"]
    files += ["parties.db"] if t.sqlite == "lookup" else ["parties.xlsx", "ledger.db"]
    return {f"{t.id}_{name}": f"{folder}/{name}" for name in files}


def _main(c: Close, gui_runs: list[list[dict]]) -> list[dict]:
    """The main agent's turns: plan, read, one GUI delegation per chunk, the filings, the deliverables."""
    t, folder = c.theme, _folder(c.theme)
    lookup = (
        f"python3 -c \"import sqlite3; print(sqlite3.connect('{folder}/parties.db').execute('SELECT * FROM parties').fetchall())\""
        if t.sqlite == "lookup"
        else print_xlsx(f"{folder}/parties.xlsx")
        + f" && python3 -c \"import sqlite3; print(sqlite3.connect('{folder}/ledger.db').execute('SELECT sql FROM sqlite_master').fetchall())\""
    )
    pages = len(data.portal(t)["pages"])
    steps = [
        "Read the notes and the lookup", "Read every portal page", f"Enter the records in the {t.desk}",
        "File the large records", "File the period close", "Amend as the notice says",
        "Write the register", f"Write the summary {t.doc}", "Check the saved work",
    ]  # fmt: skip
    turns = [
        plan(*steps),
        long_tasks.turn(
            "Notes and lookup first.",
            long_tasks.bash(f"ls -la {folder} && cat {folder}/notes.txt && {lookup}"),
            done(1),
            expect=[{"contains": f"Plan (0/{len(steps)} done"}],
        ),
        long_tasks.turn(
            "The list opens one page at a time.",
            long_tasks.call(
                "delegate_web",
                subgoal=f"Read every page of http://127.0.0.1:{t.port}/portal/{t.id}/1, following each page's Next page link to the last page.",
                context="Report every row as 'ref | party id | code | amount | status'.",
            ),
            expect=[{"exit": 0, "contains": ["Void records", data.party_ids(t)["P01"]]}, {}],
        ),
    ]
    previous: list[dict] = [{"contains": ["DONE", f"Read all {pages} pages."]}]
    for number in range(len(gui_runs)):
        chunk = c.rows[number * GUI_CHUNK : (number + 1) * GUI_CHUNK]
        listed = "; ".join(f"{r.ref} / {r.code} / {_cents(r.amount)}" for r in chunk)
        turns.append(
            long_tasks.turn(
                f"Records {number * GUI_CHUNK + 1}-{number * GUI_CHUNK + len(chunk)} into the {t.desk}, one at a time: it may refuse a code.",
                *([done(2)] if number == 0 else []),
                long_tasks.bash(f"wmctrl -a '{t.desk}'"),
                long_tasks.call(
                    "delegate_gui",
                    subgoal=(
                        f"In the open {t.desk} window add these records one at a time ({', '.join(t.fields)}; Tab between "
                        f"fields, Return adds): {listed}. After each Return read the status line: if it says Refused, type "
                        "the code it names (the cursor is in that field) and press Return; if it says Added, note the "
                        "confirmation number it shows (only the latest record's is shown). Report each record's code as "
                        "accepted and its confirmation number."
                    ),
                    context=f"The cursor starts in the {t.fields[0]} field and returns there after each added record.",
                ),
                expect=previous,
            )
        )
        previous = (
            [{}, {"exit": 0}, {"contains": ["DONE", c.confirm[chunk[-1].ref]]}]
            if number == 0
            else [{"exit": 0}, {"contains": ["DONE", c.confirm[chunk[-1].ref]]}]
        )
    items = "; ".join(" / ".join(f.values()) for f, _ in c.items)
    turns.append(
        long_tasks.turn(
            "Large records go on the item form, one filing each.",
            done(3),
            delegate_web(
                f"On http://127.0.0.1:{t.port}/forms/ file each of these on the item form (period / ref / party / amount / confirmation): {items}. "
                "If the form refuses one, file it as the refusal says. Report each receipt.",
                "POST urlencoded fields to /file/item from the page; the answer page has the receipt or the refusal.",
            ),
            expect=previous,
        )
    )
    close = " / ".join(c.close.values())
    turns.append(
        long_tasks.turn(
            "Now the close.",
            done(4),
            delegate_web(
                f"On http://127.0.0.1:{t.port}/forms/ file the close form (period / count / total): {close}. Report the receipt and any notice on the answer page.",
                "POST urlencoded fields to /file/close.",
            ),
            expect=[{}, {"contains": ["DONE", c.receipt[c.items[-1][0]["ref"]]]}],
        )
    )
    amends = "; ".join(f"{a['receipt']} / {a['amount']}" for a in c.amends)
    turns.append(
        long_tasks.turn(
            "The notice corrects two amounts: amend the filings it touches and the close (new total).",
            done(5),
            delegate_web(
                f"On http://127.0.0.1:{t.port}/forms/ file these amendments on the amend form (receipt / amount): {amends}. Report each receipt.",
                "POST urlencoded fields to /file/amend.",
            ),
            expect=[{}, {"contains": ["DONE", "Correction to the", c.close_receipt]}],
        )
    )
    turns += [
        long_tasks.turn(
            "Registers and summary with the corrected amounts and the latest receipts.",
            done(6),
            long_tasks.bash(long_tasks.python_script(_deliverables(c))),
            expect=[{}, {"contains": ["DONE", c.close_amend]}],
        ),
        long_tasks.turn(
            "Check what the desk saved and the register.",
            done(7, 8),
            long_tasks.bash(f"cat {t.store} | head -c 600 && " + print_xlsx(f"{folder}/register.xlsx")),
            expect=[{}, {"exit": 0, "contains": f"written {len(c.rows)} entries {c.close_amend}"}],
        ),
        long_tasks.turn(
            "",
            done(9),
            long_tasks.call(
                "finish",
                summary=f"{t.title}: entered, filed, amended, registered and summarised.",
                infeasible=False,
            ),
            expect=[{}, {"exit": 0, "contains": [c.confirm[c.rows[0].ref], c.close_amend]}],
        ),
    ]
    return turns


def marathon_task(theme: data.Theme) -> long_tasks.TaskSpec:
    c = Close(theme)
    gui_runs = _gui(c)
    config = [
        *long_tasks.site_steps(
            theme.port, f"{theme.id}_site.zip", "long_server.py", f"{theme.id}_site_private.json"
        ),
        long_tasks.shell(f"rm {long_tasks.HOME}/.site/{theme.id}_site.zip"),
        *long_tasks.desk_steps(theme.desk, theme.fields, theme.store, f"{theme.id}_desk_rules.json"),
        long_tasks.download(_inputs(c)),
    ]
    refused = [(f, r) for f, r in c.items]
    web = [
        *_portal_web(c),
        *_filing_web(c, "item", refused, "Filed every item."),
        *_filing_web(c, "close", [(c.close, None)], "Filed the close."),
        *_filing_web(c, "amend", [(a, None) for a in c.amends], "Filed the amendments."),
    ]
    gui_files = {
        theme.store: [
            {f.lower(): v for f, v in zip(theme.fields, [r.ref, c.code[r.ref], _cents(r.amount)], strict=True)}
            for r in c.rows
        ]
    }  # fmt: skip
    apps = [
        "chrome",
        "libreoffice_calc",
        "libreoffice_writer" if theme.doc == "docx" else "libreoffice_impress",
        "sqlite3",
        theme.id + "_desk",
    ]
    return long_tasks.TaskSpec(
        id=theme.id,
        instruction=_instruction(c),
        config=config,
        apps=apps,
        probes=_probes(c),
        reference=[_deliverables(c), _filings_script(c)],
        gui_files=gui_files,
        solution={
            "main": _main(c, gui_runs),
            "web": web,
            "gui": [t for run in gui_runs for t in run],
            "gate": long_tasks.gate_turns(
                f"ls -la {_folder(theme)}", ["desk", "filings", "amendments", "register", "summary"]
            ),
        },
        max_steps=MAX_STEPS,
    )


def main(argv: list[str]) -> int:
    suite = Path(argv[0]) if argv else MARATHON_SUITE
    only = set(argv[1:])
    suite.mkdir(parents=True, exist_ok=True)
    long_tasks.build_all([marathon_task(t) for t in data.THEMES if not only or t.id in only], suite)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
