"""The long suite's events, course, procurement and project tasks, written from the data of
evals/fixtures/long_events.py:

    python -m evals.authoring.long_events_tasks [SUITE_DIR]     # default evals/suites/long

Each task's checkpoints, expected values and reference solution come from the same rows, so a change
to a dataset is one rebuild away from a consistent task.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from stateact.evals.authoring.long_tasks import (
    HOME,
    TaskSpec,
    bash,
    build_all,
    call,
    desk_steps,
    download,
    gate_turns,
    gui_entries,
    python_script,
    site_steps,
    turn,
)
from stateact.evals.fixtures import long_events as data

LONG_SUITE = Path(__file__).parents[1] / "suites" / "long"
SLIDE_BODY = "def body(s): return [p.text.strip() for sh in s.shapes if sh.has_text_frame and sh != s.shapes.title for p in sh.text_frame.paragraphs if p.text.strip()]\n"
"""Probe helper: `body(slide)` is the non-empty paragraphs of a slide outside its title."""
TITLE_SLIDE = "out([t for t in (sh.text_frame.text.strip() for sh in S[0].shapes if sh.has_text_frame) if t])"
"""Probe of the non-empty texts on the first slide of the deck `S`."""


def plan(*titles: str) -> dict:
    """The opening turn: set the plan to `titles`."""
    return turn("Plan.", call("plan", action="set", items=[{"title": t} for t in titles]))


def done(*ids: int) -> dict:
    return call("plan", action="update", updates=[{"id": i, "status": "done"} for i in ids])


def read_rows(selector: str) -> dict:
    """A web turn running a script that returns each table row of `selector` as 'cell | cell | ...'."""
    script = f"() => [...document.querySelectorAll('{selector} tbody tr')].map(tr => [...tr.cells].map(td => td.textContent).join(' | '))"
    return turn("", call("run_js", script=script))


def report(summary: str, facts: list[str]) -> dict:
    """The web sub-agent's closing turn: `summary` and the `facts` it read."""
    return turn("", call("done", summary=summary, facts=facts))


def delegate_web(subgoal: str, context: str) -> dict:
    """A call handing `subgoal` to the web sub-agent."""
    return call("delegate_web", subgoal=subgoal, context=context)


def finish(summary: str, expect: list[dict]) -> dict:
    """The closing turn: finish with `summary`."""
    return turn("", call("finish", summary=summary, infeasible=False), expect=expect)


def print_docx(path: str) -> str:
    """A shell command printing each paragraph of the .docx at `path` as 'style | text'."""
    return f"python3 -c \"import docx; [print(p.style.name, '|', p.text) for p in docx.Document('{path}').paragraphs]\""


def print_xlsx(path: str) -> str:
    """A shell command printing each sheet of the workbook at `path` with its rows."""
    return f"python3 -c \"import openpyxl; b = openpyxl.load_workbook('{path}'); [print(ws.title, list(ws.values)) for ws in b]\""


def cell_rows(sheet: str) -> str:
    """Probe expression: the non-empty rows of the openpyxl sheet expression `sheet`, cells normalised."""
    return (
        f"[[N(v) for v in r] for r in {sheet}.iter_rows(values_only=True) if any(v is not None for v in r)]"
    )


def columns(prelude: str, rows: str, *picks: int | str) -> list[str]:
    """Probes, one per pick (a column index or slice text such as '2:4'), of that part of every row of
    the table `rows` below its header."""
    return [prelude + f"out([r[{pick}] for r in {rows}[1:]])" for pick in picks]


def sheet_rows(path: str, name: str, sheet: str) -> str:
    """Probe prelude: `b` is the workbook at `path` (values), `name` the non-empty rows of its `sheet`."""
    return f"import openpyxl\nb = openpyxl.load_workbook('{path}', data_only=True)\n{name} = {cell_rows(f'b[{sheet!r}]')}\n"


def doc_paragraphs(path: str, *styles: str) -> str:
    """Probe prelude: `d` is the .docx at `path`, `P` its non-empty paragraphs as (style, text) pairs; the
    style is kept for names starting with one of `styles` (default Heading) and is 'text' otherwise."""
    kept = repr(styles) if len(styles) > 1 else repr(styles[0] if styles else "Heading")
    return (
        f"import docx\nd = docx.Document('{path}')\n"
        f"P = [(p.style.name if p.style.name.startswith({kept}) else 'text', p.text.strip()) for p in d.paragraphs if p.text.strip()]\n"
    )


@dataclass(frozen=True)
class Desk:
    """A task's Record Desk app: window title, form fields and the JSON file its records are saved to."""

    title: str
    fields: tuple[str, ...]
    store: str

    def steps(self) -> list[dict]:
        """Setup steps launching the app."""
        return desk_steps(self.title, self.fields, self.store)

    def rows(self, name: str, source: str = "") -> str:
        """Probe prelude binding `name` to the saved records (from `source`, default the store) as tuples
        of stripped field values."""
        values = ", ".join(f"r.get({f.lower()!r}, '').strip()" for f in self.fields)
        source = source or f"json.load(open('{self.store}'))"
        return f"{name} = [({values}) for r in {source}]\n"

    def entry_turn(
        self,
        text: str,
        *before: dict,
        what: str,
        records: list[tuple[str, ...]],
        expect: list[dict],
        after_return: bool = False,
    ) -> dict:
        """The turn raising the app's window and delegating the entry of `records` (`what` names them)."""
        confirm = "Confirm all appear in its list." if len(records) > 1 else "Confirm it appears in the list."
        first = self.fields[0]
        context = f"The cursor starts in the {first} field" + (
            f"; after Return the form clears and the cursor returns to {first}." if after_return else "."
        )
        subgoal = (
            f"In the open {self.title} window add {what} ({', '.join(self.fields)}; Tab moves between fields, "
            f"Return adds): {'; '.join(' / '.join(r) for r in records)}. {confirm}"
        )
        return turn(
            text,
            *before,
            bash(f"wmctrl -a {shlex.quote(self.title)}"),
            call("delegate_gui", subgoal=subgoal, context=context),
            expect=expect,
        )

    def check_turn(self, step: int, expect: list[dict], text: str = "Check what the app saved.") -> dict:
        """The turn marking plan item `step` done and printing the saved records."""
        return turn(text, done(step), bash(f"cat {self.store}"), expect=expect)

    def task(
        self,
        records: list[tuple[str, ...]],
        reported: str,
        *,
        main: list[dict],
        gate: list[dict],
        web: list[dict] | None = None,
        **spec: Any,
    ) -> TaskSpec:
        """The task whose GUI part enters `records` into this app and reports `reported`; `spec` holds the
        other TaskSpec fields."""
        keys = [f.lower() for f in self.fields]
        gui = [*gui_entries(records), turn("", call("done", summary=reported))]
        return TaskSpec(
            gui_files={self.store: [dict(zip(keys, r, strict=True)) for r in records]},
            solution={"main": main, **({"web": web} if web else {}), "gui": gui, "gate": gate},
            **spec,
        )


# -- conference-pack -------------------------------------------------------------------------------
CONF_PORT = 18750
CONF_DIR = f"{HOME}/Documents/conference"
CONF_DESK = Desk("Room Booker", ("Room", "Session", "Time"), f"{HOME}/.local/share/room-booker/bookings.json")


def _room(expected: int) -> str:
    return next(name for name, seats in data.CONF_ROOMS if seats >= expected)


def conference_pack() -> TaskSpec:
    regs = data.conference_registrations()
    confirmed = [r for r in regs if r["status"] == "Confirmed"]
    sessions = [s for s in data.conference_sessions() if s["state"] == "Scheduled"]
    bookings = [(_room(int(s["expected"])), str(s["title"]), str(s["time"])) for s in sessions]
    attendees, speakers = len(confirmed), sum(r["ticket"] == "Speaker" for r in confirmed)
    quantity = {
        "days": data.CONF_DAYS,
        "attendees": attendees,
        "speakers": speakers,
        "sessions": len(sessions),
    }
    url = f"http://127.0.0.1:{CONF_PORT}"
    instruction = (
        "I'm putting together the pack for DataDays 2024. Everything lives in ~/Documents/conference "
        f"(read notes.txt there first: it has the organiser's rules). The registrations are on the intranet at {url}/events/registrations/ "
        f"(several pages) and the programme at {url}/events/sessions/. Please produce:\n"
        '1. ~/Documents/conference/badges.docx: a Heading 1 "Name badges" followed by one table with the header row '
        "Name | Organisation | Ticket and one row per attendee, sorted by surname (last word of the name), then first name.\n"
        "2. ~/Documents/conference/dietary.csv with the header diet,count: one line per dietary requirement among the "
        'attendees (leave out "None"), largest count first, ties by name A to Z.\n'
        "3. Fill in ~/Documents/conference/budget.xlsx in place. Budget sheet: Quantity (column C) and Total "
        "(column D = unit cost x quantity) for every cost line, and the sum of the totals in D7 (Total costs). "
        "Income sheet: Sold and Income for each ticket type, total income in D5 and the balance (total income minus "
        "total costs) in D6. Give every Total and Income cell, the totals and the balance included, the number format "
        "#,##0.00. Formulas are fine as long as the saved file carries their values; change nothing else.\n"
        '4. ~/Documents/conference/schedule.pptx: a first slide with the title "DataDays 2024" and the subtitle '
        '"Programme", then one slide per session in time order (same time: programme order) with the title '
        '"HH:MM Session title" and exactly two body paragraphs "Speaker: NAME" and "Room: ROOM".\n'
        "5. Book every session's room in the Room Booker app that is open on the screen (fields Room, Session, Time; "
        "Session is the title as on the programme, Time as HH:MM). It has no import, so use its window, and leave it open."
    )
    sort_key = lambda r: (r["name"].split()[-1], r["name"].split()[0])  # noqa: E731
    badges = [(r["name"], r["organisation"], r["ticket"]) for r in sorted(confirmed, key=sort_key)]
    diets: dict[str, int] = {}
    for r in confirmed:
        if r["diet"] != "None":
            diets[r["diet"]] = diets.get(r["diet"], 0) + 1
    rooms = {title: room for room, title, _ in bookings}
    programme = [(s["time"], s["title"], s["speaker"], rooms[s["title"]]) for s in sessions]
    documents = f"""
import csv, docx, pptx
d = docx.Document()
d.add_heading('Name badges', 1)
rows = {badges!r}
table = d.add_table(rows=1, cols=3)
for cell, text in zip(table.rows[0].cells, ('Name', 'Organisation', 'Ticket')):
    cell.text = text
for row in rows:
    for cell, text in zip(table.add_row().cells, row):
        cell.text = text
d.save('{CONF_DIR}/badges.docx')
diets = {sorted(diets.items(), key=lambda kv: (-kv[1], kv[0]))!r}
with open('{CONF_DIR}/dietary.csv', 'w', newline='') as fh:
    w = csv.writer(fh, lineterminator='\\n')
    w.writerow(['diet', 'count'])
    w.writerows(diets)
deck = pptx.Presentation()
first = deck.slides.add_slide(deck.slide_layouts[0])
first.shapes.title.text = 'DataDays 2024'
first.placeholders[1].text = 'Programme'
for time, title, speaker, room in {programme!r}:
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = f'{{time}} {{title}}'
    body = slide.placeholders[1].text_frame
    body.text = f'Speaker: {{speaker}}'
    body.add_paragraph().text = f'Room: {{room}}'
deck.save('{CONF_DIR}/schedule.pptx')
print('written', len(rows), 'badges', len(deck.slides), 'slides')
"""
    sold = {t: sum(r["ticket"] == t for r in confirmed) for t, _ in data.CONF_PRICES}
    budget = f"""
import openpyxl
path = '{CONF_DIR}/budget.xlsx'
book = openpyxl.load_workbook(path)
costs, income = book['Budget'], book['Income']
quantity = {[quantity[kind] for _, _, kind in data.CONF_COSTS]!r}
total = 0
for row, qty in enumerate(quantity, start=2):
    costs.cell(row, 3).value = qty
    costs.cell(row, 4).value = costs.cell(row, 2).value * qty
    costs.cell(row, 4).number_format = '#,##0.00'
    total += costs.cell(row, 4).value
costs['D7'] = total
costs['D7'].number_format = '#,##0.00'
sold = {[sold[t] for t, _ in data.CONF_PRICES]!r}
earned = 0
for row, count in enumerate(sold, start=2):
    income.cell(row, 3).value = count
    income.cell(row, 4).value = income.cell(row, 2).value * count
    income.cell(row, 4).number_format = '#,##0.00'
    earned += income.cell(row, 4).value
income['D5'], income['D6'] = earned, earned - total
income['D5'].number_format = income['D6'].number_format = '#,##0.00'
book.save(path)
print('costs', total, 'income', earned, 'balance', earned - total)
"""
    xlsx = f"import openpyxl\nb = openpyxl.load_workbook('{CONF_DIR}/budget.xlsx', data_only=True)\n"
    xlsx_styles = f"import openpyxl\nb = openpyxl.load_workbook('{CONF_DIR}/budget.xlsx')\n"
    doc = f"import docx\nd = docx.Document('{CONF_DIR}/badges.docx')\nT = d.tables[0] if d.tables else None\nR = [[c.text.strip() for c in r.cells] for r in T.rows] if T else []\n"
    deck = f"import pptx\nS = list(pptx.Presentation('{CONF_DIR}/schedule.pptx').slides)\n"
    store = f"S = json.load(open('{CONF_DESK.store}'))\n" + CONF_DESK.rows("B", source="S")
    probes = [
        xlsx + "out([N(b['Budget'].cell(r, 3).value) for r in range(2, 7)])",
        xlsx + "out([N(b['Budget'].cell(r, 4).value) for r in range(2, 7)])",
        xlsx + "out(N(b['Budget']['D7'].value))",
        xlsx + "out([N(b['Income'].cell(r, 3).value) for r in range(2, 5)])",
        xlsx + "out([N(b['Income'].cell(r, 4).value) for r in range(2, 5)])",
        xlsx + "out(N(b['Income']['D5'].value))",
        xlsx + "out(N(b['Income']['D6'].value))",
        xlsx_styles
        + "out([b['Budget'].cell(r, 4).number_format for r in range(2, 8)] + [b['Income'].cell(r, 4).number_format for r in range(2, 7)])",
        xlsx + "out({ws.title: [[N(v) for v in row] for row in ws.iter_rows(values_only=True)] for ws in b})",
        doc + "out([(p.style.name, p.text.strip()) for p in d.paragraphs if p.text.strip()])",
        doc + "out((len(d.tables), R[:1]))",
        doc + "out(len(R) - 1)",
        doc + "out([r[0] for r in R[1:]])",
        doc + "out(R)",
        f"import csv\nout([r for r in csv.reader(open('{CONF_DIR}/dietary.csv'))][:1])",
        f"import csv\nout([[c.strip() for c in r] for r in csv.reader(open('{CONF_DIR}/dietary.csv')) if r][1:])",
        f"import csv\nout(sum(int(r[1]) for r in list(csv.reader(open('{CONF_DIR}/dietary.csv')))[1:] if r))",
        deck + "out(len(S))",
        deck + TITLE_SLIDE,
        deck + "out([s.shapes.title.text.strip() for s in S[1:]])",
        deck + SLIDE_BODY + "out([body(s) for s in S[1:]])",
        *(store + f"out([b for b in B if b[1] == {title!r}])" for _, title, _ in bookings),
        store + "out(sorted(b[1] for b in B))",
    ]
    config = [
        *site_steps(CONF_PORT),
        *CONF_DESK.steps(),
        download(
            {
                "conference-pack_budget.xlsx": f"{CONF_DIR}/budget.xlsx",
                "conference-pack_notes.txt": f"{CONF_DIR}/notes.txt",
                "conference-pack_dietary_2023.xlsx": f"{CONF_DIR}/dietary_2023.xlsx",
            }
        ),
    ]
    pages = (len(regs) + data.CONF_PAGE_SIZE - 1) // data.CONF_PAGE_SIZE
    web = []
    for page in range(1, pages + 1):
        web.append(turn("", call("navigate", url=f"{url}/events/registrations/?page={page}")))
        web.append(read_rows("#registrations"))
    facts = [" | ".join(r.values()) for r in regs]
    web.append(report(f"Read all {len(regs)} registrations.", facts))
    web.append(turn("", call("navigate", url=f"{url}/events/sessions/")))
    web.append(read_rows("#sessions"))
    web.append(
        report(
            "Read the programme.",
            [
                f"{s['time']} | {s['title']} | {s['speaker']} | {s['expected']} | {s['state']}"
                for s in data.conference_sessions()
            ],
        )
    )
    main = [
        plan(
            "Read the organiser notes and the budget template",
            "Read every registration page",
            "Read the programme",
            "Write the badge list and dietary summary",
            "Fill the budget",
            "Build the schedule deck",
            "Book the rooms in Room Booker",
        ),
        turn(
            "Read the notes and the template.",
            bash(
                f"ls -la {CONF_DIR} && cat {CONF_DIR}/notes.txt && " + print_xlsx(f"{CONF_DIR}/budget.xlsx")
            ),
            done(1),
            expect=[{"contains": "Plan (0/7 done"}],
        ),
        turn(
            "Registrations are rendered by JavaScript over several pages.",
            delegate_web(
                f"Read every registration on {url}/events/registrations/ (all pages).",
                "Report each as 'id | name | organisation | ticket | dietary | status'.",
            ),
            expect=[{"exit": 0, "contains": ["Only Confirmed registrations count", "Total costs"]}, {}],
        ),
        turn(
            "Now the programme.",
            done(2),
            delegate_web(
                f"Read the programme on {url}/events/sessions/.",
                "Report each session as 'time | title | speaker | expected audience | state'.",
            ),
            expect=[{"contains": ["DONE", f"- {facts[-1]}"]}],
        ),
        turn(
            "Badges, dietary summary and deck from the confirmed registrations and scheduled sessions.",
            done(3),
            bash(python_script(documents)),
            expect=[{}, {"contains": ["DONE", "Withdrawn"]}],
        ),
        turn(
            "Budget.",
            done(4, 6),
            bash(python_script(budget)),
            expect=[{}, {"exit": 0, "contains": f"written {len(badges)} badges {len(sessions) + 1} slides"}],
        ),
        CONF_DESK.entry_turn(
            "Room Booker has no import: its window it is.",
            done(5),
            what="these bookings, one per record",
            records=bookings,
            expect=[{}, {"exit": 0, "contains": "costs"}],
            after_return=True,
        ),
        CONF_DESK.check_turn(
            7, [{}, {"exit": 0}, {"contains": "DONE"}], text="Check the bookings file the app saved."
        ),
        finish(
            "Badges, dietary summary, budget, schedule deck and room bookings done.",
            [{}, {"exit": 0, "contains": bookings[-1][1]}],
        ),
    ]
    return CONF_DESK.task(
        bookings,
        f"All {len(bookings)} bookings are shown in the Room Booker list.",
        id="conference-pack",
        instruction=instruction,
        config=config,
        apps=["libreoffice_writer", "libreoffice_calc", "libreoffice_impress", "chrome", "room_booker"],
        probes=probes,
        reference=[documents, budget],
        main=main,
        web=web,
        gate=gate_turns(f"cat {CONF_DIR}/dietary.csv", ["badges", "dietary", "budget", "deck", "bookings"]),
    )


# -- course-term-close -----------------------------------------------------------------------------
TERM_DIR = f"{HOME}/Documents/term"
TERM_DESK = Desk(
    "Registrar", ("Section", "Students", "Average"), f"{HOME}/.local/share/registrar/submissions.json"
)
TERM_LETTERS = ("A", 90), ("B", 80), ("C", 70), ("D", 60), ("F", 0)


def _half_up(value: Decimal, places: str = "1") -> Decimal:
    return value.quantize(Decimal(places), ROUND_HALF_UP)


def term_results() -> list[tuple[str, str, str, int, int, int, int, str]]:
    """Every student: section, id, name, homework, midterm, final, total, letter; by section then id."""
    rows = []
    for section, students in data.term_scores().items():
        for sid, name, hw, mid, final in sorted(students):
            final = final or 0
            total = int(_half_up(Decimal(3 * hw + 3 * mid + 4 * final) / 10))
            letter = next(mark for mark, floor in TERM_LETTERS if total >= floor)
            rows.append((section, sid, name, hw, mid, final, total, letter))
    return rows


def course_term_close() -> TaskSpec:
    results = term_results()
    failing = [r for r in results if r[7] == "F"]
    sections = {s: [r[6] for r in results if r[0] == s] for s in data.TERM_SECTIONS}
    averages = [(s, str(len(t)), str(_half_up(Decimal(sum(t)) / len(t), "0.1"))) for s, t in sections.items()]
    instruction = (
        "Term close for STAT 101. The grade exports of the three sections are in ~/Documents/term "
        "(section_A.csv, section_B.csv, section_C.csv); grading_policy.docx there has the weights, the rounding "
        "rule and the letter bands. Please:\n"
        '1. Make ~/Documents/term/gradebook.xlsx with a sheet "Grades": header row Section, Student ID, Name, '
        "Homework, Midterm, Final, Total, Letter and one row per student (Section as A, B or C; a missing score as 0), "
        "sorted by section, then student ID. Total is the weighted total rounded as the policy says, Letter its band.\n"
        '2. In the same workbook a sheet "Summary": A1 Letter, B1 Count, then rows 2-6 for A, B, C, D, F with how many '
        'students got each letter, and in row 7 "Average" with the average Total of all students rounded to one '
        "decimal. The saved file must carry values (formulas are fine if their results are saved).\n"
        "3. For every student with an F, a letter from ~/Documents/term/letter_template.docx (fill its "
        "\u00abName\u00bb, \u00abSection\u00bb, \u00abID\u00bb and \u00abTotal\u00bb fields, keep its paragraphs and styles) "
        "saved as ~/Documents/term/letters/<student ID>.docx; nothing else in that folder, and leave the template as it is.\n"
        '4. ~/Documents/term/term_summary.pptx with two slides: "STAT 101 term summary" with a table Letter | Count '
        '(rows A, B, C, D, F), and "Section averages" with a table Section | Students | Average (average Total of the '
        "section, one decimal, e.g. 71.0).\n"
        "5. Submit each section's result in the Registrar app open on the screen: one record per section with Section "
        "(A, B or C), Students (how many) and Average (as on the slide). It only takes input through its window; leave it open."
    )
    script = f"""
import csv, os, docx, openpyxl, pptx
from decimal import Decimal, ROUND_HALF_UP
from pptx.util import Inches
bands = {TERM_LETTERS!r}
rows = []
for section in 'ABC':
    for r in csv.DictReader(open(f'{TERM_DIR}/section_{{section}}.csv')):
        hw, mid, final = (int(r[k] or 0) for k in ('hw', 'midterm', 'final'))
        total = int((Decimal(3 * hw + 3 * mid + 4 * final) / 10).quantize(Decimal(1), ROUND_HALF_UP))
        letter = next(m for m, floor in bands if total >= floor)
        rows.append([section, r['student_id'], r['name'], hw, mid, final, total, letter])
rows.sort(key=lambda r: (r[0], r[1]))
book = openpyxl.Workbook()
grades = book.active
grades.title = 'Grades'
grades.append(['Section', 'Student ID', 'Name', 'Homework', 'Midterm', 'Final', 'Total', 'Letter'])
for r in rows:
    grades.append(r)
summary = book.create_sheet('Summary')
summary.append(['Letter', 'Count'])
counts = [(m, sum(r[7] == m for r in rows)) for m, _ in bands]
for m, n in counts:
    summary.append([m, n])
average = float((Decimal(sum(r[6] for r in rows)) / len(rows)).quantize(Decimal('0.1'), ROUND_HALF_UP))
summary.append(['Average', average])
book.save('{TERM_DIR}/gradebook.xlsx')
os.makedirs('{TERM_DIR}/letters', exist_ok=True)
for r in rows:
    if r[7] != 'F':
        continue
    letter = docx.Document('{TERM_DIR}/letter_template.docx')
    fields = {{'\u00abName\u00bb': r[2], '\u00abSection\u00bb': r[0], '\u00abID\u00bb': r[1], '\u00abTotal\u00bb': str(r[6])}}
    for p in letter.paragraphs:
        text = p.text
        for key, value in fields.items():
            text = text.replace(key, value)
        if text != p.text:
            p.runs[0].text = text
            for run in p.runs[1:]:
                run.text = ''
    letter.save(f'{TERM_DIR}/letters/{{r[1]}}.docx')
deck = pptx.Presentation()
def table_slide(title, header, body):
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = title
    grid = slide.shapes.add_table(len(body) + 1, len(header), Inches(1), Inches(1.8), Inches(8), Inches(3)).table
    for i, line in enumerate([header, *body]):
        for j, value in enumerate(line):
            grid.cell(i, j).text = str(value)
table_slide('STAT 101 term summary', ['Letter', 'Count'], counts)
per = []
for section in 'ABC':
    totals = [r[6] for r in rows if r[0] == section]
    per.append([section, len(totals), str((Decimal(sum(totals)) / len(totals)).quantize(Decimal('0.1'), ROUND_HALF_UP))])
table_slide('Section averages', ['Section', 'Students', 'Average'], per)
deck.save('{TERM_DIR}/term_summary.pptx')
print('students', len(rows), 'failing', sorted(os.listdir('{TERM_DIR}/letters')), 'per section', per, 'average', average)
"""
    grades = sheet_rows(f"{TERM_DIR}/gradebook.xlsx", "G", "Grades")
    summary = f"import openpyxl\nb = openpyxl.load_workbook('{TERM_DIR}/gradebook.xlsx', data_only=True)\nS = b['Summary']\n"
    letter = "import docx\nout([(p.style.name, p.text.strip()) for p in docx.Document('{}').paragraphs if p.text.strip()])"
    deck = f"import pptx\nD = list(pptx.Presentation('{TERM_DIR}/term_summary.pptx').slides)\ndef T(s): return [[c.text.strip() for c in r.cells] for sh in s.shapes if sh.has_table for r in sh.table.rows]\n"
    store = TERM_DESK.rows("R")
    probes = [
        grades + "out(G[:1])",
        *columns(grades, "G", 1, 5, 6, 7),
        grades + "out(G)",
        summary + "out([[N(S.cell(r, c).value) for c in (1, 2)] for r in range(2, 7)])",
        summary + "out([N(S['A7'].value), N(S['B7'].value)])",
        summary + "out([[N(v) for v in r] for r in S.iter_rows(values_only=True)])",
        f"import os\nout(sorted(os.listdir('{TERM_DIR}/letters')))",
        *(letter.format(f"{TERM_DIR}/letters/{r[1]}.docx") for r in failing),
        f"import hashlib\nout(hashlib.sha256(open('{TERM_DIR}/letter_template.docx', 'rb').read()).hexdigest())",
        deck + "out(len(D))",
        deck + "out([s.shapes.title.text.strip() for s in D])",
        deck + "out(T(D[0]))",
        deck + "out(T(D[1]))",
        *(store + f"out([r for r in R if r[0] == {s!r}])" for s, _, _ in averages),
        store + "out(sorted(r[0] for r in R))",
    ]
    config = [
        *TERM_DESK.steps(),
        download(
            {
                **{
                    f"course-term-close_section_{s}.csv": f"{TERM_DIR}/section_{s}.csv"
                    for s in data.TERM_SECTIONS
                },
                "course-term-close_section_B_draft.csv": f"{TERM_DIR}/section_B_draft.csv",
                "course-term-close_policy.docx": f"{TERM_DIR}/grading_policy.docx",
                "course-term-close_letter_template.docx": f"{TERM_DIR}/letter_template.docx",
            }
        ),
    ]
    main = [
        plan(
            "Read the grading policy",
            "Read the three section exports",
            "Write the grade book and summary",
            "Write a letter per failing student",
            "Build the summary deck",
            "Submit the section results in the Registrar",
        ),
        turn(
            "Policy and exports.",
            bash(f"ls -la {TERM_DIR} && " + print_docx(f"{TERM_DIR}/grading_policy.docx")),
            bash(f"head -n 20 {TERM_DIR}/section_*.csv"),
            bash(print_docx(f"{TERM_DIR}/letter_template.docx")),
            done(1, 2),
            expect=[{"contains": "Plan (0/6 done"}],
        ),
        turn(
            "Drafts are superseded; compute from the three final exports and write everything.",
            bash(python_script(script)),
            done(3, 4, 5),
            expect=[
                {"exit": 0, "contains": ["rounded half up", "_draft"]},
                {"exit": 0, "contains": "section_C.csv"},
                {"exit": 0, "contains": "Resit notice"},
                {},
            ],
        ),
        TERM_DESK.entry_turn(
            "The Registrar only takes input through its window.",
            what="one record per section",
            records=averages,
            after_return=True,
            expect=[
                {
                    "exit": 0,
                    "contains": [
                        f"failing {sorted(r[1] + '.docx' for r in failing)!r}",
                        f"'{averages[-1][2]}'",
                    ],
                },
                {},
            ],
        ),
        TERM_DESK.check_turn(6, [{}, {"contains": "DONE"}]),
        finish(
            "Grade book, letters, summary deck and Registrar submissions done.",
            [{}, {"exit": 0, "contains": averages[-1][2]}],
        ),
    ]
    return TERM_DESK.task(
        averages,
        "All three section records are shown in the Registrar list.",
        id="course-term-close",
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_writer", "libreoffice_impress", "registrar"],
        probes=probes,
        reference=[script],
        main=main,
        gate=gate_turns(f"ls {TERM_DIR}/letters", ["grade book", "summary", "letters", "deck", "registrar"]),
    )


# -- vendor-rfp-comparison -------------------------------------------------------------------------
RFP_PORT = 18752
RFP_DIR = f"{HOME}/Documents/rfp"
RFP_DB = f"{HOME}/.local/share/procure/procure.db"
RFP_DESK = Desk(
    "Purchase Orders", ("Vendor", "Reference", "Amount"), f"{HOME}/.local/share/purchase-orders/orders.json"
)


def rfp_matrix() -> list[tuple[str, float, int, int, float, float, float, float]]:
    """Qualifying vendors: name, total price, days, rating, the three scores and the weighted total, best first."""
    qualifying = {v: d for v, d in data.RFP_VENDORS.items() if d["days"] <= data.RFP_MAX_DAYS}
    totals = {
        v: round(
            sum(q * p for (_, q), p in zip(data.RFP_ITEMS, d["prices"], strict=True))
            * (100 - d["discount"])
            / 100,
            2,
        )
        for v, d in qualifying.items()
    }
    low, fast = min(totals.values()), min(d["days"] for d in qualifying.values())
    weights = dict(data.RFP_WEIGHTS)
    rows = []
    for v, d in qualifying.items():
        scores = (100 * low / totals[v], 100 * fast / d["days"], d["support"] * 20)
        weighted = sum(w * s for w, s in zip(weights.values(), scores, strict=True))
        rows.append((v, totals[v], d["days"], d["support"], *scores, weighted))
    return sorted(rows, key=lambda r: -r[-1])


def _two(value: float) -> str:
    return str(Decimal(repr(value)).quantize(Decimal("0.01"), ROUND_HALF_UP))


def vendor_rfp_comparison() -> TaskSpec:
    matrix = rfp_matrix()
    best = matrix[0]
    disqualified = [(v, d["days"]) for v, d in data.RFP_VENDORS.items() if d["days"] > data.RFP_MAX_DAYS]
    url = f"http://127.0.0.1:{RFP_PORT}/procurement/vendors/"
    order = (best[0], data.RFP_ID, _two(best[1]))
    instruction = (
        f"Please close {data.RFP_ID} (laptop refresh). The brief with the quantities, the mandatory requirement and the "
        "scoring rules is ~/Documents/rfp/rfp_brief.docx. Quotes: ~/Documents/rfp/quotes/acme.csv, brightline.docx and "
        "corvid.csv (quotes/old holds last year's prices: don't use them); Dunmore submitted online, and every vendor's "
        f"delivery time and support rating are on the intranet at {url}.\n"
        '1. ~/Documents/rfp/scoring.xlsx with a sheet "Matrix": header Vendor, Total price, Delivery days, Support rating, '
        "Price score, Delivery score, Support score, Weighted, then one row per qualifying vendor, highest Weighted first. "
        "Weighted is the weights applied to the unrounded scores; values are checked to two decimals and must be saved in "
        "the file (formulas are fine if their results are saved). Give the Total price cells the number format #,##0.00. "
        'A second sheet "Weights" with header Criterion, Weight and rows Price 0.5, Delivery 0.2, Support 0.3.\n'
        f'2. ~/Documents/rfp/recommendation.docx: a Heading 1 "Recommendation: {data.RFP_ID}"; one paragraph "We recommend '
        'VENDOR with a weighted score of SCORE and a total price of PRICE EUR." (SCORE with two decimals, PRICE written '
        'like 12,345.60); a Heading 2 "Ranking" followed by a table Rank | Vendor | Weighted (two decimals) in the '
        'matrix\'s order; a Heading 2 "Disqualified" followed by one paragraph per disqualified vendor "VENDOR: delivery '
        f'in N days exceeds the {data.RFP_MAX_DAYS}-day limit."\n'
        f"3. Record the award in the procurement database ~/.local/share/procure/procure.db (table rfps, row {data.RFP_ID}): "
        'status "awarded", awarded_vendor the winner, amount its total price as a number. Leave the other RFPs alone.\n'
        "4. Raise the purchase order in the Purchase Orders app open on the screen: Vendor, Reference (the RFP id) and "
        "Amount (the total price with two decimals and no thousands separator). It only takes input through its window; "
        "leave it open."
    )
    script = f"""
import docx, openpyxl
rows = {[list(r) for r in matrix]!r}
book = openpyxl.Workbook()
sheet = book.active
sheet.title = 'Matrix'
sheet.append(['Vendor', 'Total price', 'Delivery days', 'Support rating', 'Price score', 'Delivery score', 'Support score', 'Weighted'])
for r in rows:
    sheet.append(r)
    sheet.cell(sheet.max_row, 2).number_format = '#,##0.00'
weights = book.create_sheet('Weights')
weights.append(['Criterion', 'Weight'])
for line in {[list(w) for w in data.RFP_WEIGHTS]!r}:
    weights.append(line)
book.save('{RFP_DIR}/scoring.xlsx')
d = docx.Document()
d.add_heading('Recommendation: {data.RFP_ID}', 1)
best = rows[0]
d.add_paragraph(f'We recommend {{best[0]}} with a weighted score of {{best[7]:.2f}} and a total price of {{best[1]:,.2f}} EUR.')
d.add_heading('Ranking', 2)
table = d.add_table(rows=1, cols=3)
for cell, text in zip(table.rows[0].cells, ('Rank', 'Vendor', 'Weighted')):
    cell.text = text
for rank, r in enumerate(rows, start=1):
    for cell, text in zip(table.add_row().cells, (str(rank), r[0], f'{{r[7]:.2f}}')):
        cell.text = text
d.add_heading('Disqualified', 2)
for vendor, days in {disqualified!r}:
    d.add_paragraph(f'{{vendor}}: delivery in {{days}} days exceeds the {data.RFP_MAX_DAYS}-day limit.')
d.save('{RFP_DIR}/recommendation.docx')
print('winner', best[0], f'{{best[7]:.2f}}', f'{{best[1]:.2f}}')
"""
    award = (
        f"sqlite3 {RFP_DB} \"UPDATE rfps SET status = 'awarded', awarded_vendor = '{best[0]}', amount = {best[1]} "
        f"WHERE id = '{data.RFP_ID}'\" && sqlite3 {RFP_DB} 'SELECT * FROM rfps'"
    )
    book = sheet_rows(f"{RFP_DIR}/scoring.xlsx", "M", "Matrix")
    styles = f"import openpyxl\nb = openpyxl.load_workbook('{RFP_DIR}/scoring.xlsx')\n"
    memo = doc_paragraphs(f"{RFP_DIR}/recommendation.docx")
    db = f"import sqlite3\nc = sqlite3.connect('{RFP_DB}')\n"
    store = RFP_DESK.rows("R")
    probes = [
        book + "out(M[:1])",
        book + "out(len(M) - 1)",
        *columns(book, "M", 0, 1, "2:4", 4, 5, 6, 7),
        styles + "out([b['Matrix'].cell(r, 2).number_format for r in range(2, b['Matrix'].max_row + 1)])",
        book + "out(M)",
        book + "out(" + cell_rows("b['Weights']") + ")",
        memo + "out([p for p in P if p[0].startswith('Heading')])",
        memo + "out([p[1] for p in P if p[1].startswith('We recommend')])",
        memo + "out([[c.text.strip() for c in r.cells] for t in d.tables for r in t.rows])",
        memo + "out([p[1] for p in P if 'exceeds' in p[1]])",
        memo + "out(P)",
        db
        + f"out(c.execute(\"SELECT status, awarded_vendor, round(amount, 2) FROM rfps WHERE id = '{data.RFP_ID}'\").fetchall())",
        db + f"out(c.execute(\"SELECT * FROM rfps WHERE id != '{data.RFP_ID}' ORDER BY id\").fetchall())",
        store + f"out([r for r in R if r[0] == {best[0]!r}])",
        store + "out(len(R))",
    ]
    config = [
        *site_steps(RFP_PORT),
        *RFP_DESK.steps(),
        download(
            {
                "vendor-rfp-comparison_brief.docx": f"{RFP_DIR}/rfp_brief.docx",
                "vendor-rfp-comparison_acme.csv": f"{RFP_DIR}/quotes/acme.csv",
                "vendor-rfp-comparison_corvid.csv": f"{RFP_DIR}/quotes/corvid.csv",
                "vendor-rfp-comparison_brightline.docx": f"{RFP_DIR}/quotes/brightline.docx",
                "vendor-rfp-comparison_acme_2023.csv": f"{RFP_DIR}/quotes/old/acme.csv",
                "vendor-rfp-comparison_procure.db": RFP_DB,
            }
        ),
    ]
    read_docx = "python3 -c \"import docx, sys; d = docx.Document(sys.argv[1]); [print(p.style.name, '|', p.text) for p in d.paragraphs]; [print([c.text for c in r.cells]) for t in d.tables for r in t.rows]\" "
    web = [
        turn("", call("navigate", url=url)),
        read_rows("#vendors"),
        read_rows("#dunmore"),
        report(
            "Read the vendor table and Dunmore's quote.",
            [f"{v} | {d['days']} days | support {d['support']}" for v, d in data.RFP_VENDORS.items()]
            + [f"Dunmore quote: {i} | {q} | {p}" for i, q, p in data.quote_rows("Dunmore")],
        ),
    ]
    main = [
        plan(
            "Read the brief and the file quotes",
            "Read vendor data and Dunmore's quote on the intranet",
            "Write the scoring matrix",
            "Write the recommendation memo",
            "Record the award",
            "Raise the purchase order",
        ),
        turn(
            "Brief and quotes.",
            bash(read_docx + f"{RFP_DIR}/rfp_brief.docx && ls -R {RFP_DIR}"),
            bash(
                f"cat {RFP_DIR}/quotes/acme.csv {RFP_DIR}/quotes/corvid.csv && "
                + read_docx
                + f"{RFP_DIR}/quotes/brightline.docx"
            ),
            bash(f"sqlite3 -header {RFP_DB} '.schema' 'SELECT * FROM rfps'"),
            done(1),
            expect=[{"contains": "Plan (0/6 done"}],
        ),
        turn(
            "The vendor table is rendered by JavaScript.",
            delegate_web(
                f"Read {url}: every vendor's delivery days and support rating, and Dunmore's quote table.",
                "Report rows as 'vendor | days | support' and quote lines as 'item | quantity | unit price'.",
            ),
            expect=[
                {"exit": 0, "contains": ["Delivery within 30 days", "Docking station: 35"]},
                {"exit": 0, "contains": "discount applies to the order total"},
                {"exit": 0, "contains": "Laptop refresh|open"},
                {},
            ],
        ),
        turn(
            "Corvid misses the 30-day limit; Brightline's total is after its discount. Write matrix and memo.",
            done(2),
            bash(python_script(script)),
            expect=[{"contains": ["DONE", "Corvid | 35 days"]}],
        ),
        turn(
            "Record the award.",
            done(3, 4),
            bash(award),
            expect=[{}, {"exit": 0, "contains": f"winner {best[0]} {_two(best[7])} {_two(best[1])}"}],
        ),
        RFP_DESK.entry_turn(
            "The purchase order goes through the app's window.",
            done(5),
            what="one record",
            records=[order],
            expect=[{}, {"exit": 0, "contains": f"{data.RFP_ID}|Laptop refresh|awarded|{best[0]}|"}],
        ),
        RFP_DESK.check_turn(6, [{}, {}, {"contains": "DONE"}]),
        finish(
            f"{data.RFP_ID} scored, recommended, awarded and ordered.",
            [{}, {"exit": 0, "contains": order[2]}],
        ),
    ]
    return RFP_DESK.task(
        [order],
        "The purchase order is shown in the list.",
        id="vendor-rfp-comparison",
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_writer", "chrome", "sqlite3", "purchase_orders"],
        probes=probes,
        reference=[
            script,
            f"import sqlite3\nc = sqlite3.connect('{RFP_DB}')\nc.execute(\"UPDATE rfps SET status = 'awarded', awarded_vendor = '{best[0]}', amount = {best[1]} WHERE id = '{data.RFP_ID}'\")\nc.commit()",
        ],
        main=main,
        web=web,
        gate=gate_turns(
            f"sqlite3 -readonly {RFP_DB} 'SELECT * FROM rfps'",
            ["matrix", "memo", "award", "purchase order"],
        ),
    )


# -- project-status-pack ---------------------------------------------------------------------------
STATUS_DIR = f"{HOME}/Documents/status"
STATUS_DB = f"{HOME}/.local/share/taskboard/taskboard.db"
STATUS_DESK = Desk("Status Board", ("Project", "RAG"), f"{HOME}/.local/share/status-board/board.json")
STATUS_RED, STATUS_AMBER = 15, 5


def status_rows() -> list[tuple[str, int, int, float, int, int, float, str]]:
    """Per project (A to Z): done, total tasks, % complete, hours logged, budget, burn %, RAG."""
    logged: dict[str, int] = {}
    for week, _, project, hours in data.status_hours():
        if week in data.STATUS_WEEKS:
            logged[project] = logged.get(project, 0) + hours
    rows = []
    for name, (budget, tasks, _) in sorted(data.STATUS_PROJECTS.items()):
        done_hours = sum(e for _, s, e in tasks if s == "done")
        complete = float(_half_up(Decimal(100 * done_hours) / sum(e for _, _, e in tasks), "0.1"))
        burn = float(_half_up(Decimal(100 * logged[name]) / budget, "0.1"))
        gap = Decimal(repr(burn)) - Decimal(repr(complete))
        rag = "Red" if gap > STATUS_RED else "Amber" if gap > STATUS_AMBER else "Green"
        done_count = sum(s == "done" for _, s, _ in tasks)
        rows.append((name, done_count, len(tasks), complete, logged[name], budget, burn, rag))
    return rows


def project_status_pack() -> TaskSpec:
    rows = status_rows()
    instruction = (
        "Status pack for the week 25 portfolio review. The task tracker's database is "
        "~/.local/share/taskboard/taskboard.db (projects with budget hours, tasks with status and estimate hours); "
        "timesheets are in ~/Documents/status/timesheets (one CSV per week); the rules for the measures and the RAG "
        "are in ~/Documents/status/status_rules.docx. Please:\n"
        '1. ~/Documents/status/status.xlsx with a sheet "Status": header Project, Tasks done, Tasks total, % complete, '
        "Hours logged, Budget hours, Burn %, RAG and one row per project (names A to Z). % complete and Burn % as numbers "
        "like 57.1 (not fractions) with the number format 0.0; the saved file must carry values. RAG is Red, Amber or Green.\n"
        '2. ~/Documents/status/status_deck.pptx: a title slide "Portfolio status" with the subtitle "Week 25", then one '
        'slide per project (A to Z) titled "PROJECT: RAG" with exactly three body paragraphs "Complete: X%", '
        '"Burn: Y%" and "Hours logged: H" (X and Y with one decimal).\n'
        "3. Apply the decisions of the risk review (~/Documents/status/risk_review.txt) to ~/Documents/status/risks.xlsx "
        "in place: change only what the review decided, add a new risk as a new row at the bottom with the next ID and "
        "status Open, and make every Score equal Likelihood x Impact. Keep the other cells as they are.\n"
        "4. Store each project's RAG in the tracker database (projects.rag, the word Red, Amber or Green); change nothing else there.\n"
        "5. Put each project's RAG on the Status Board app open on the screen (fields Project, RAG; one record per "
        "project). It only takes input through its window; leave it open."
    )
    script = f"""
import csv, glob, sqlite3, openpyxl, pptx
from decimal import Decimal, ROUND_HALF_UP
db = sqlite3.connect('{STATUS_DB}')
logged = {{}}
for week in {list(data.STATUS_WEEKS)!r}:
    for r in csv.DictReader(open(f'{STATUS_DIR}/timesheets/week_{{week}}.csv')):
        logged[r['project']] = logged.get(r['project'], 0) + int(r['hours'])
def pct(a, b):
    return float((Decimal(100 * a) / b).quantize(Decimal('0.1'), ROUND_HALF_UP))
rows = []
for pid, name, budget in db.execute('SELECT id, name, budget_hours FROM projects ORDER BY name'):
    tasks = db.execute('SELECT status, estimate_hours FROM tasks WHERE project_id = ?', (pid,)).fetchall()
    complete = pct(sum(e for s, e in tasks if s == 'done'), sum(e for _, e in tasks))
    burn = pct(logged.get(name, 0), budget)
    gap = Decimal(str(burn)) - Decimal(str(complete))
    rag = 'Red' if gap > {STATUS_RED} else 'Amber' if gap > {STATUS_AMBER} else 'Green'
    rows.append([name, sum(s == 'done' for s, _ in tasks), len(tasks), complete, logged.get(name, 0), budget, burn, rag])
book = openpyxl.Workbook()
sheet = book.active
sheet.title = 'Status'
sheet.append(['Project', 'Tasks done', 'Tasks total', '% complete', 'Hours logged', 'Budget hours', 'Burn %', 'RAG'])
for r in rows:
    sheet.append(r)
    sheet.cell(sheet.max_row, 4).number_format = sheet.cell(sheet.max_row, 7).number_format = '0.0'
book.save('{STATUS_DIR}/status.xlsx')
deck = pptx.Presentation()
first = deck.slides.add_slide(deck.slide_layouts[0])
first.shapes.title.text = 'Portfolio status'
first.placeholders[1].text = 'Week 25'
for r in rows:
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = f'{{r[0]}}: {{r[7]}}'
    body = slide.placeholders[1].text_frame
    body.text = f'Complete: {{r[3]:.1f}}%'
    body.add_paragraph().text = f'Burn: {{r[6]:.1f}}%'
    body.add_paragraph().text = f'Hours logged: {{r[4]}}'
deck.save('{STATUS_DIR}/status_deck.pptx')
for r in rows:
    db.execute('UPDATE projects SET rag = ? WHERE name = ?', (r[7], r[0]))
db.commit()
print(rows)
"""
    register = f"""
import openpyxl
path = '{STATUS_DIR}/risks.xlsx'
book = openpyxl.load_workbook(path)
sheet = book['Risks']
ids = {{sheet.cell(r, 1).value: r for r in range(2, sheet.max_row + 1)}}
sheet.cell(ids['R-03'], 4).value = 2
sheet.cell(ids['R-05'], 7).value = 'Closed'
sheet.append(['R-07', 'Apollo', 'Vendor API deprecation', 3, 4, None, 'Open', 'Bruno Holm'])
for r in range(2, sheet.max_row + 1):
    sheet.cell(r, 6).value = sheet.cell(r, 4).value * sheet.cell(r, 5).value
book.save(path)
print([[c.value for c in row] for row in sheet.iter_rows()])
"""
    book = sheet_rows(f"{STATUS_DIR}/status.xlsx", "M", "Status")
    styles = f"import openpyxl\nb = openpyxl.load_workbook('{STATUS_DIR}/status.xlsx')['Status']\n"
    deck = f"import pptx\nS = list(pptx.Presentation('{STATUS_DIR}/status_deck.pptx').slides)\n" + SLIDE_BODY
    risks = cell_rows(f"openpyxl.load_workbook('{STATUS_DIR}/risks.xlsx', data_only=True)['Risks']")
    reg = f"import openpyxl\nR = {risks}\ndef risk(i): return [r for r in R if r[0] == i]\n"
    db = f"import sqlite3\nc = sqlite3.connect('{STATUS_DB}')\n"
    store = STATUS_DESK.rows("B")
    probes = [
        book + "out(M[:1])",
        *columns(book, "M", 0, "1:3", 3, 4, 5, 6, 7),
        styles + "out([b.cell(r, c).number_format for r in range(2, b.max_row + 1) for c in (4, 7)])",
        book + "out(M)",
        deck + "out(len(S))",
        deck + TITLE_SLIDE,
        deck + "out([s.shapes.title.text.strip() for s in S[1:]])",
        deck + "out([body(s) for s in S[1:]])",
        reg + "out(risk('R-03'))",
        reg + "out(risk('R-05'))",
        reg + "out(risk('R-04'))",
        reg + "out(risk('R-07'))",
        reg + "out(len(R))",
        reg + "out(R)",
        db + "out(c.execute('SELECT name, rag FROM projects ORDER BY name').fetchall())",
        db
        + "out(c.execute('SELECT id, name, budget_hours FROM projects ORDER BY id').fetchall() + c.execute('SELECT * FROM tasks ORDER BY id').fetchall())",
        *(store + f"out([b for b in B if b[0] == {r[0]!r}])" for r in rows),
        store + "out(sorted(b[0] for b in B))",
    ]
    weeks = (22, *data.STATUS_WEEKS)
    config = [
        *STATUS_DESK.steps(),
        download(
            {
                "project-status-pack_taskboard.db": STATUS_DB,
                **{
                    f"project-status-pack_week_{w}.csv": f"{STATUS_DIR}/timesheets/week_{w}.csv"
                    for w in weeks
                },
                "project-status-pack_risks.xlsx": f"{STATUS_DIR}/risks.xlsx",
                "project-status-pack_risk_review.txt": f"{STATUS_DIR}/risk_review.txt",
                "project-status-pack_rules.docx": f"{STATUS_DIR}/status_rules.docx",
            }
        ),
    ]
    board = [(r[0], r[7]) for r in rows]
    main = [
        plan(
            "Read the rules, the tracker and the timesheets",
            "Write the status workbook",
            "Build the RAG deck",
            "Store the RAG in the tracker",
            "Update the risk register",
            "Put the RAG on the Status Board",
        ),
        turn(
            "Rules, tracker, timesheets.",
            bash(
                f"python3 -c \"import docx; [print(p.text) for p in docx.Document('{STATUS_DIR}/status_rules.docx').paragraphs]\" && ls {STATUS_DIR}/timesheets"
            ),
            bash(f"sqlite3 -header {STATUS_DB} '.schema' 'SELECT * FROM projects' 'SELECT * FROM tasks'"),
            bash(f"head -n 50 {STATUS_DIR}/timesheets/*.csv"),
            done(1),
            expect=[{"contains": "Plan (0/6 done"}],
        ),
        turn(
            "Week 22 is the previous period; internal time is not a project. Workbook, deck and tracker.",
            bash(python_script(script)),
            done(2, 3, 4),
            expect=[
                {"exit": 0, "contains": ["weeks 23 to 25", "week_22.csv"]},
                {"exit": 0, "contains": "CREATE TABLE tasks"},
                {"exit": 0, "contains": "Internal"},
                {},
            ],
        ),
        turn(
            "Now the risk review.",
            bash(f"cat {STATUS_DIR}/risk_review.txt"),
            expect=[{"exit": 0, "contains": repr(list(rows[-1]))}, {}],
        ),
        turn(
            "R-03 likelihood 2, R-05 closed, R-07 new; every score recomputed.",
            bash(python_script(register)),
            expect=[{"exit": 0, "contains": "Vendor API deprecation"}],
        ),
        STATUS_DESK.entry_turn(
            "The Status Board only takes input through its window.",
            done(5),
            what="one record per project",
            records=board,
            expect=[{"exit": 0, "contains": "'R-07', 'Apollo', 'Vendor API deprecation', 3, 4, 12, 'Open'"}],
        ),
        STATUS_DESK.check_turn(6, [{}, {}, {"contains": "DONE"}]),
        finish(
            "Status workbook, RAG deck, tracker, risk register and Status Board updated.",
            [{}, {"exit": 0, "contains": board[-1][0]}],
        ),
    ]
    return STATUS_DESK.task(
        board,
        "Every project's RAG is shown in the Status Board list.",
        id="project-status-pack",
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_impress", "sqlite3", "status_board"],
        probes=probes,
        reference=[script, register],
        main=main,
        gate=gate_turns(
            f"sqlite3 -readonly {STATUS_DB} 'SELECT * FROM projects'",
            ["status", "deck", "risks", "tracker", "board"],
        ),
    )


# -- newsletter-production -------------------------------------------------------------------------
NEWS_PORT = 18754
NEWS_DIR = f"{HOME}/Documents/newsletter"
NEWS_DESK = Desk("Mailer Settings", ("Setting", "Value"), f"{HOME}/.local/share/mailer/settings.json")
NEWS_SEND_DATE = "2024-07-05"
"""The first Friday of July 2024, when the issue is sent."""


def newsletter_production() -> TaskSpec:
    issue = f"Community News - Issue {data.NEWS_ISSUE}"
    articles = [(t, list(ps)) for name, t, ps in data.NEWS_ARTICLES if "DRAFT" not in name]
    events = [(e, n) for d, e, n in data.NEWS_EVENTS if "2024-04" <= d[:7] <= "2024-06"]
    top = sorted(data.NEWS_VOLUNTEERS, key=lambda v: -v[1])[:3]
    settings = [("Issue", str(data.NEWS_ISSUE)), ("Subject", issue), ("Send date", NEWS_SEND_DATE)]
    url = f"http://127.0.0.1:{NEWS_PORT}/newsletter/highlights/"
    instruction = (
        f"Please produce issue {data.NEWS_ISSUE} of the community newsletter. The articles are in "
        "~/Documents/newsletter/articles (text files: the first line is the title, then paragraphs separated by blank "
        "lines; the .docx article has its title as Heading 1), the figures are in ~/Documents/newsletter/figures.xlsx, "
        f"and the fundraising total and volunteer hours are on the intranet at {url}.\n"
        f'1. ~/Documents/newsletter/issue_{data.NEWS_ISSUE}.docx: a Title paragraph "{issue}"; then each article in the '
        "order of its file number, as a Heading 1 with the article's title followed by its paragraphs word for word (one "
        'paragraph each; drafts are not published); then a Heading 1 "In numbers" with a Heading 2 "Members" and a '
        'table Month | Members (January to June as in the workbook), a Heading 2 "Events" and a table Event | Attendees '
        'with the events from April to June in date order and a last row Total | the sum, a paragraph "Fundraising so '
        'far: EUR X" (X like 1,234.50), and a Heading 2 "Top volunteers" with a table Name | Hours of the three '
        "volunteers with the most hours, most first.\n"
        f"2. A plain-text copy ~/Documents/newsletter/issue_{data.NEWS_ISSUE}.txt: every paragraph of the newsletter "
        "outside the tables, one per line in the same order, no blank lines.\n"
        "3. Schedule the mailing in the Mailer Settings app open on the screen: one record per setting (fields Setting, "
        f"Value): Issue = {data.NEWS_ISSUE}, Subject = the newsletter's title, Send date = the first Friday of July 2024 as "
        "YYYY-MM-DD. It only takes input through its window; leave it open."
    )
    script = f"""
import docx
issue = {issue!r}
articles = {articles!r}
members = {[list(m) for m in data.NEWS_MEMBERS]!r}
events = {[list(e) for e in events]!r}
top = {[list(v) for v in top]!r}
raised = {data.NEWS_FUNDRAISING!r}
d = docx.Document()
lines = []
def para(text, style=None):
    d.add_paragraph(text, style=style)
    lines.append(text)
def table(header, rows):
    t = d.add_table(rows=1, cols=len(header))
    for cell, text in zip(t.rows[0].cells, header):
        cell.text = text
    for row in rows:
        for cell, value in zip(t.add_row().cells, row):
            cell.text = str(value)
para(issue, 'Title')
for title, paragraphs in articles:
    para(title, 'Heading 1')
    for text in paragraphs:
        para(text)
para('In numbers', 'Heading 1')
para('Members', 'Heading 2')
table(['Month', 'Members'], members)
para('Events', 'Heading 2')
table(['Event', 'Attendees'], events + [['Total', sum(n for _, n in events)]])
para(f'Fundraising so far: EUR {{raised:,.2f}}')
para('Top volunteers', 'Heading 2')
table(['Name', 'Hours'], top)
d.save('{NEWS_DIR}/issue_{data.NEWS_ISSUE}.docx')
open('{NEWS_DIR}/issue_{data.NEWS_ISSUE}.txt', 'w').write('\\n'.join(lines) + '\\n')
print(len(lines), 'lines;', lines[-2])
"""
    doc = (
        doc_paragraphs(f"{NEWS_DIR}/issue_{data.NEWS_ISSUE}.docx", "Heading", "Title")
        + "T = [[[c.text.strip() for c in r.cells] for r in t.rows] for t in d.tables]\n"
        "def sec(title):\n"
        "    i = P.index(('Heading 1', title)) if ('Heading 1', title) in P else len(P)\n"
        "    rest = P[i + 1:]\n"
        "    end = next((k for k, p in enumerate(rest) if p[0] != 'text'), len(rest))\n"
        "    return [t for _, t in rest[:end]]\n"
    )
    text = f"L = open('{NEWS_DIR}/issue_{data.NEWS_ISSUE}.txt').read().splitlines()\n"
    store = NEWS_DESK.rows("S")
    probes = [
        doc + "out(P[:1])",
        doc + "out([p for p in P if p[0] != 'text'])",
        *(doc + f"out(sec({t!r}))" for t, _ in articles),
        doc + "out(sorted({t for _, t in P if 'DRAFT' in t or 'parking' in t}))",
        doc + "out(len(T))",
        doc + "out(T[:1])",
        doc + "out(T[1:2])",
        doc + "out(T[1][-1:] if len(T) > 1 else None)",
        doc + "out([t for _, t in P if t.startswith('Fundraising')])",
        doc + "out(T[2:])",
        doc + "out(P)",
        text + "out(L[:1])",
        text + "out(len(L))",
        text + "out(L)",
        *(store + f"out([s for s in S if s[0] == {k!r}])" for k, _ in settings),
        store + "out(len(S))",
    ]
    config = [
        *site_steps(NEWS_PORT),
        *NEWS_DESK.steps(),
        download(
            {
                **{
                    f"newsletter-production_{n}": f"{NEWS_DIR}/articles/{n}" for n, _, _ in data.NEWS_ARTICLES
                },
                "newsletter-production_figures.xlsx": f"{NEWS_DIR}/figures.xlsx",
            }
        ),
    ]
    web = [
        turn("", call("navigate", url=url)),
        turn("", call("run_js", script="() => document.getElementById('raised').textContent")),
        read_rows("#volunteers"),
        report(
            "Read the fundraising total and volunteer hours.",
            [f"Fundraising so far (EUR): {data.NEWS_FUNDRAISING:.2f}"]
            + [f"{n} | {h} hours" for n, h in data.NEWS_VOLUNTEERS],
        ),
    ]
    main = [
        plan(
            "Read the articles",
            "Read the figures workbook",
            "Read the intranet highlights",
            "Write the newsletter",
            "Write the plain-text copy",
            "Schedule the mailing in Mailer Settings",
        ),
        turn(
            "Articles and figures.",
            bash(f'cd {NEWS_DIR}/articles && ls && for f in *.txt; do echo "== $f"; cat "$f"; done'),
            bash(print_docx(f"{NEWS_DIR}/articles/02_volunteers.docx")),
            bash(print_xlsx(f"{NEWS_DIR}/figures.xlsx")),
            done(1, 2),
            expect=[{"contains": "Plan (0/6 done"}],
        ),
        turn(
            "The highlights page is rendered by JavaScript.",
            delegate_web(
                f"Read {url}: the fundraising total and every volunteer's hours.",
                "Report the total as shown and volunteers as 'name | hours'.",
            ),
            expect=[
                {"exit": 0, "contains": ["DRAFT - do not publish", "== 03_garden.txt"]},
                {"exit": 0, "contains": "Heading 1 | Our volunteers"},
                {"exit": 0, "contains": "Choir concert"},
                {},
            ],
        ),
        turn(
            "The parking article is a draft. Write the newsletter and its text copy.",
            done(3),
            bash(python_script(script)),
            expect=[{"contains": ["DONE", f"{data.NEWS_FUNDRAISING:.2f}"]}],
        ),
        NEWS_DESK.entry_turn(
            "The first Friday of July 2024 is the 5th. The mailing goes through the app's window.",
            done(4, 5),
            what="one record per setting",
            records=settings,
            expect=[{}, {"exit": 0, "contains": "Fundraising so far: EUR 12,840.50"}],
        ),
        NEWS_DESK.check_turn(6, [{}, {}, {"contains": "DONE"}]),
        finish(
            f"Issue {data.NEWS_ISSUE} written, text copy saved, mailing scheduled.",
            [{}, {"exit": 0, "contains": NEWS_SEND_DATE}],
        ),
    ]
    return NEWS_DESK.task(
        settings,
        "All three settings are shown in the Mailer Settings list.",
        id="newsletter-production",
        instruction=instruction,
        config=config,
        apps=["libreoffice_writer", "libreoffice_calc", "chrome", "mailer_settings"],
        probes=probes,
        reference=[script],
        main=main,
        web=web,
        gate=gate_turns(
            f"cat {NEWS_DIR}/issue_{data.NEWS_ISSUE}.txt", ["newsletter", "text copy", "mailing"]
        ),
    )


# -- clinic-rota -----------------------------------------------------------------------------------
ROTA_DIR = f"{HOME}/Documents/rota"
ROTA_DESK = Desk("On-Call Board", ("Day", "Doctor"), f"{HOME}/.local/share/on-call/board.json")
ROTA_SHIFT_HOURS = 4
ROTA_UNFILLED = "UNFILLED"
ROTA_WEEKDAYS = {"Monday": "Mon", "Tuesday": "Tue", "Wednesday": "Wed", "Thursday": "Thu", "Friday": "Fri"}


def _surname(name: str) -> str:
    return name.split()[-1]


def rota() -> list[tuple[str, str, str, str, str]]:
    """Day, shift, doctor, nurse 1, nurse 2 for every shift, filled by the policy's rule."""
    leave: dict[str, set[str]] = {}
    for line in data.ROTA_LEAVE.splitlines():
        if line.startswith("Approved: "):
            name, day = line.removeprefix("Approved: ").split(", ")
            leave.setdefault(name, set()).add(ROTA_WEEKDAYS[day.split()[0]])
    shifts: dict[str, int] = {}

    def pick(pool: dict[str, tuple[str, ...]], index: int, half: str, places: int) -> list[str]:
        day = data.ROTA_DAYS[index]
        chosen = [
            name
            for name in sorted(pool, key=_surname)
            if pool[name][index] in (half, "Both")
            and day not in leave.get(name, set())
            and shifts.get(name, 0) < data.ROTA_MAX_SHIFTS
        ][:places]
        for name in chosen:
            shifts[name] = shifts.get(name, 0) + 1
        return chosen + [ROTA_UNFILLED] * (places - len(chosen))

    rows = []
    for index, day in enumerate(data.ROTA_DAYS):
        for half in ("AM", "PM"):
            rows.append(
                (day, half, *pick(data.ROTA_DOCTORS, index, half, 1), *pick(data.ROTA_NURSES, index, half, 2))
            )
    return rows


def clinic_rota() -> TaskSpec:
    rows = rota()
    staff = sorted([*data.ROTA_DOCTORS, *data.ROTA_NURSES], key=_surname)
    role = {**{n: "Doctor" for n in data.ROTA_DOCTORS}, **{n: "Nurse" for n in data.ROTA_NURSES}}
    worked = {n: [f"{r[0]} {r[1]}" for r in rows if n in r[2:]] for n in staff}
    hours = [(n, role[n], len(worked[n]), len(worked[n]) * ROTA_SHIFT_HOURS) for n in staff]
    unfilled = [
        f"{r[0]} {r[1]}: {label}"
        for r in rows
        for label, who in zip(("Doctor", "Nurse 1", "Nurse 2"), r[2:], strict=True)
        if who == ROTA_UNFILLED
    ]
    on_call = [(r[0], r[2]) for r in rows if r[1] == "PM"]
    instruction = (
        "Please draw up next week's clinic rota (week 28). The availability sheets are ~/Documents/rota/doctors.xlsx and "
        "~/Documents/rota/nurses.xlsx, the leave register is ~/Documents/rota/leave.txt, and the rules for filling the "
        "shifts are in ~/Documents/rota/rota_policy.docx: follow them exactly.\n"
        '1. ~/Documents/rota/rota.xlsx with a sheet "Rota": header Day, Shift, Doctor, Nurse 1, Nurse 2 and one row per '
        "shift in order (Day as Mon..Fri, Shift as AM or PM; Nurse 1 is the first nurse the rule picks); a place nobody "
        f'can fill holds {ROTA_UNFILLED}. A second sheet "Hours": header Name, Role, Shifts, Hours with every doctor '
        "and nurse (Role Doctor or Nurse), sorted by surname, Hours being 4 per shift (values saved in the file).\n"
        '2. ~/Documents/rota/notices.docx: a Heading 1 "Rota notices - week 28"; then for every staff member, sorted by '
        'surname, a Heading 2 with their name followed by one paragraph "Your shifts: Mon AM, Tue PM" (their shifts in '
        'rota order, comma-separated) or "No shifts this week."; finally a Heading 2 "Unfilled" followed by one '
        'paragraph per unfilled place, like "Wed AM: Nurse 2", in rota order.\n'
        "3. Post the on-call doctor of each day (the doctor of that day's PM shift, or UNFILLED) on the On-Call Board app "
        "open on the screen: one record per day (fields Day, Doctor; Day as Mon..Fri). It only takes input through its "
        "window; leave it open."
    )
    script = f"""
import docx, openpyxl
rows = {[list(r) for r in rows]!r}
hours = {[list(h) for h in hours]!r}
worked = {worked!r}
unfilled = {unfilled!r}
book = openpyxl.Workbook()
sheet = book.active
sheet.title = 'Rota'
sheet.append(['Day', 'Shift', 'Doctor', 'Nurse 1', 'Nurse 2'])
for r in rows:
    sheet.append(r)
table = book.create_sheet('Hours')
table.append(['Name', 'Role', 'Shifts', 'Hours'])
for h in hours:
    table.append(h)
book.save('{ROTA_DIR}/rota.xlsx')
d = docx.Document()
d.add_heading('Rota notices - week 28', 1)
for name, _, _, _ in hours:
    d.add_heading(name, 2)
    d.add_paragraph('Your shifts: ' + ', '.join(worked[name]) if worked[name] else 'No shifts this week.')
d.add_heading('Unfilled', 2)
for place in unfilled:
    d.add_paragraph(place)
d.save('{ROTA_DIR}/notices.docx')
print('unfilled', unfilled)
"""
    book = f"import openpyxl\nb = openpyxl.load_workbook('{ROTA_DIR}/rota.xlsx', data_only=True)\ndef rows(ws): return {cell_rows('b[ws]')}\nR, H = rows('Rota'), rows('Hours')\n"
    doc = doc_paragraphs(f"{ROTA_DIR}/notices.docx")
    store = ROTA_DESK.rows("S")
    probes = [
        book + "out(R[:1])",
        *columns(book, "R", ":2", 2, 3, 4),
        book + "out(R)",
        book + "out([r[:2] for r in H])",
        *columns(book, "H", 2, 3),
        book + "out(H)",
        doc + "out([p for p in P if p[0] == 'Heading 1'])",
        doc + "out([p[1] for p in P if p[0] == 'Heading 2'])",
        doc
        + "out([t for s, t in P if s == 'text' and (t.startswith('Your shifts') or t.startswith('No shifts'))])",
        doc + "out([t for s, t in P if s == 'text' and ': ' in t and not t.startswith('Your shifts')])",
        doc + "out(P)",
        *(store + f"out([s for s in S if s[0] == {day!r}])" for day, _ in on_call),
        store + "out(len(S))",
    ]
    config = [
        *ROTA_DESK.steps(),
        download(
            {
                "clinic-rota_doctors.xlsx": f"{ROTA_DIR}/doctors.xlsx",
                "clinic-rota_nurses.xlsx": f"{ROTA_DIR}/nurses.xlsx",
                "clinic-rota_leave.txt": f"{ROTA_DIR}/leave.txt",
                "clinic-rota_policy.docx": f"{ROTA_DIR}/rota_policy.docx",
            }
        ),
    ]
    main = [
        plan(
            "Read the policy, leave register and availability",
            "Fill the rota by the rule",
            "Write the rota workbook",
            "Write the notices",
            "Post the on-call doctors",
        ),
        turn(
            "Policy, leave, availability.",
            bash(
                f"python3 -c \"import docx; [print(p.text) for p in docx.Document('{ROTA_DIR}/rota_policy.docx').paragraphs]\" && cat {ROTA_DIR}/leave.txt"
            ),
            bash(
                f"python3 -c \"import openpyxl; [print(f, list(openpyxl.load_workbook(f'{ROTA_DIR}/{{f}}.xlsx').active.values)) for f in ('doctors', 'nurses')]\""
            ),
            done(1),
            expect=[{"contains": "Plan (0/5 done"}],
        ),
        turn(
            "Greedy by surname with the 6-shift cap; only approved leave counts. Write the workbook and notices.",
            bash(python_script(script)),
            done(2, 3, 4),
            expect=[
                {"exit": 0, "contains": ["maximum of 6 shifts", "Requested, not yet approved"]},
                {"exit": 0, "contains": "Rosa Young"},
                {},
            ],
        ),
        ROTA_DESK.entry_turn(
            "The On-Call Board only takes input through its window.",
            what="one record per day",
            records=on_call,
            expect=[{"exit": 0, "contains": f"unfilled {unfilled!r}"}, {}],
        ),
        ROTA_DESK.check_turn(5, [{}, {"contains": "DONE"}]),
        finish("Rota, hours, notices and on-call board done.", [{}, {"exit": 0, "contains": on_call[-1][1]}]),
    ]
    return ROTA_DESK.task(
        on_call,
        "All five days are shown on the On-Call Board.",
        id="clinic-rota",
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_writer", "on_call_board"],
        probes=probes,
        reference=[script],
        main=main,
        gate=gate_turns(f"cat {ROTA_DESK.store}", ["rota", "hours", "notices", "on-call board"]),
    )


SPECS = (
    conference_pack,
    course_term_close,
    newsletter_production,
    vendor_rfp_comparison,
    project_status_pack,
    clinic_rota,
)


def main(argv: list[str], specs: tuple[Callable[[], TaskSpec], ...] = SPECS) -> int:
    """Write the task files of `specs` into the folder argv[0] (default the long suite)."""
    suite = Path(argv[0]) if argv else LONG_SUITE
    suite.mkdir(parents=True, exist_ok=True)
    build_all([make() for make in specs], suite)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
