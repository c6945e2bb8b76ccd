"""The long suite's scanned-paper task, service-warranty-claims, written from the data of
evals/fixtures/long_scans.py:

    python -m stateact.evals.authoring.long_scan_tasks [SUITE_DIR]     # default evals/suites/long

The facts the deliverables need (each job's serial number, date, visit type, parts and hours; the
quotation's number, prices and labour rate) exist only as pictures: PNG and JPEG job sheets and an
image-only PDF. The reference solution reads them with the editor's `view`, as an agent would, and the
gate looks at a scan to check a serial number and hours against the workbook.
"""

from __future__ import annotations

import calendar
import datetime
import sys

from stateact.evals.authoring.long_events_tasks import (
    Desk,
    cell_rows,
    columns,
    done,
    finish,
    plan,
    print_xlsx,
    sheet_rows,
)
from stateact.evals.authoring.long_events_tasks import main as write_tasks
from stateact.evals.authoring.long_tasks import (
    HOME,
    TaskSpec,
    bash,
    call,
    download,
    python_script,
    turn,
)
from stateact.evals.fixtures import long_scans as data
from stateact.kernel.tools.edit import EditTool

EDITOR = EditTool.name
CLAIMS_DIR = f"{HOME}/Documents/warranty"
RECORDS_DIR = f"{CLAIMS_DIR}/service_records"
CLAIMS_DESK = Desk(
    "Warranty Claims", ("Job", "Serial", "Amount"), f"{HOME}/.local/share/warranty/claims.json"
)
MONEY = "#,##0.00"
MAINTENANCE, EXPIRED = "Maintenance visit", "Out of warranty"
JOB_TEXT = (
    "def J(v): return str(int(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else N(v)\n"
)
"""Probe helper: a job number read as text whether it was saved as a number or as text."""


def view(path: str, pages: int | None = None) -> dict:
    """An editor `view` call: the file at `path`, or page `pages` of a PDF as a picture."""
    return call(EDITOR, command="view", path=path, **({"view_range": [pages, pages]} if pages else {}))


def warranty_end(installed: datetime.date, months: int) -> datetime.date:
    """The last day of warranty: the installation date `months` months on (clamped to the month's end)."""
    month = installed.month - 1 + months
    year, month = installed.year + month // 12, month % 12 + 1
    return datetime.date(year, month, min(installed.day, calendar.monthrange(year, month)[1]))


def decisions() -> tuple[list[dict], list[tuple[str, str, str]]]:
    """The claims (by service date) and the jobs not claimed (job, serial, reason; by job number)."""
    register = {serial: (tag, installed, months) for tag, _, _, serial, installed, months in data.ASSETS}
    claims, refused = [], []
    for job in sorted({job.number: job for job in data.JOBS}.values(), key=lambda j: (j.date, j.number)):
        tag, installed, months = register[job.serial]
        if job.visit != "Repair":
            refused.append((job.number, job.serial, MAINTENANCE))
        elif job.date > warranty_end(installed, months):
            refused.append((job.number, job.serial, EXPIRED))
        else:
            parts = round(sum(q * data.unit_price(p) for p, q in job.parts), 2)
            labour = round(job.hours * data.LABOUR_RATE, 2)
            claims.append(
                {
                    "job": job.number,
                    "date": job.date.isoformat(),
                    "tag": tag,
                    "serial": job.serial,
                    "parts": parts,
                    "labour": labour,
                    "total": round(parts + labour, 2),
                }
            )
    return claims, sorted(refused)


def service_warranty_claims() -> TaskSpec:
    claims, refused = decisions()
    grand = round(sum(c["total"] for c in claims), 2)
    records = [(c["job"], c["serial"], f"{c['total']:.2f}") for c in claims]
    scans = [job.file for job in data.JOBS]
    instruction = (
        "I need this quarter's warranty claims for our Norvik floor scrubbers. Everything is in ~/Documents/warranty: the "
        "technicians' job sheets were scanned into service_records/, the parts supplier's quotation was scanned to "
        "quote.pdf, the machines are in assets.xlsx and the manufacturer's rules in policy.txt (follow them exactly).\n"
        '1. ~/Documents/warranty/claims.xlsx with a sheet "Claims": header Job, Service date, Asset tag, Serial number, '
        "Parts, Labour, Total and one row per claimable job, by service date (Job as the job number, Service date as "
        "YYYY-MM-DD; Parts, Labour and Total in EUR), then a last row with Total in the Job column and the sums of Parts, "
        f'Labour and Total. Give every Parts, Labour and Total cell the number format {MONEY}. A second sheet "Not claimed": '
        f'header Job, Serial number, Reason and one row per job sheet that is not claimed, by job number, Reason being "{MAINTENANCE}" '
        f'or "{EXPIRED}". Values, not formulas.\n'
        '2. ~/Documents/warranty/claim_letter.docx for the manufacturer: a Heading 1 "Warranty claim - Brightline Facilities"; '
        'a paragraph "Supplier quotation: NUMBER" (the quotation\'s number); a paragraph "Labour rate: EUR 0.00 per hour" '
        "(the quotation's warranty rate); one table with the header row Job | Serial number | Amount and a row per claim "
        'in the workbook\'s order (Amount like 1234.50); then a paragraph "Total claimed: EUR 1,234.50".\n'
        "3. Enter every claim in the Warranty Claims app open on the screen (fields Job, Serial, Amount; Amount with two "
        "decimals like 1234.50), in the workbook's order. It only takes input through its window; leave it open."
    )
    script = f"""
import docx, openpyxl
claims = {claims!r}
refused = {[list(r) for r in refused]!r}
book = openpyxl.Workbook()
sheet = book.active
sheet.title = 'Claims'
sheet.append(['Job', 'Service date', 'Asset tag', 'Serial number', 'Parts', 'Labour', 'Total'])
for c in claims:
    sheet.append([c['job'], c['date'], c['tag'], c['serial'], c['parts'], c['labour'], c['total']])
sums = [round(sum(c[k] for c in claims), 2) for k in ('parts', 'labour', 'total')]
sheet.append(['Total', None, None, None, *sums])
for row in sheet.iter_rows(min_row=2, min_col=5, max_col=7):
    for cell in row:
        cell.number_format = '{MONEY}'
other = book.create_sheet('Not claimed')
other.append(['Job', 'Serial number', 'Reason'])
for r in refused:
    other.append(r)
book.save('{CLAIMS_DIR}/claims.xlsx')
d = docx.Document()
d.add_heading('Warranty claim - Brightline Facilities', 1)
d.add_paragraph('Supplier quotation: {data.QUOTE_NUMBER}')
d.add_paragraph('Labour rate: EUR {data.LABOUR_RATE:.2f} per hour')
table = d.add_table(rows=1, cols=3)
for cell, text in zip(table.rows[0].cells, ('Job', 'Serial number', 'Amount')):
    cell.text = text
for c in claims:
    for cell, text in zip(table.add_row().cells, (c['job'], c['serial'], f"{{c['total']:.2f}}")):
        cell.text = text
d.add_paragraph(f'Total claimed: EUR {{sums[2]:,.2f}}')
d.save('{CLAIMS_DIR}/claim_letter.docx')
print('claims', [c['job'] for c in claims], 'total', sums[2])
"""
    not_claimed = cell_rows("b['Not claimed']")
    book = sheet_rows(f"{CLAIMS_DIR}/claims.xlsx", "C", "Claims") + f"X = {not_claimed}\n" + JOB_TEXT
    styles = f"import openpyxl\nb = openpyxl.load_workbook('{CLAIMS_DIR}/claims.xlsx')\nws = b['Claims']\n"
    letter = (
        f"import docx\nd = docx.Document('{CLAIMS_DIR}/claim_letter.docx')\n"
        "P = [(p.style.name if p.style.name.startswith('Heading') else 'text', p.text.strip()) for p in d.paragraphs if p.text.strip()]\n"
        "T = [[c.text.strip() for c in r.cells] for r in d.tables[0].rows] if d.tables else []\n"
    )
    assets = (
        f"import openpyxl\nb = openpyxl.load_workbook('{CLAIMS_DIR}/assets.xlsx', data_only=True)\n"
        "out({ws.title: [[N(v) for v in r] for r in ws.iter_rows(values_only=True)] for ws in b})"
    )
    store = CLAIMS_DESK.rows("S")
    probes = [
        book + "out(C[:1])",
        book + "out([J(r[0]) for r in C[1:-1]])",
        *columns(book, "C[:-1]", 1, 2, 3, 4, 5, 6),
        book + "out([J(C[-1][0])] + C[-1][4:] if len(C) > 1 else None)",
        book + "out(len(C))",
        styles
        + "out(sorted({ws.cell(r, c).number_format for r in range(2, ws.max_row + 1) for c in range(5, 8) if ws.cell(r, c).value is not None}))",
        book + "out(X[:1])",
        book + "out([[J(r[0])] + r[1:] for r in X[1:]])",
        letter + "out([p for p in P if p[0] != 'text'])",
        letter + "out([t for s, t in P if t.startswith('Supplier quotation')])",
        letter + "out([t for s, t in P if t.startswith('Labour rate')])",
        letter + "out((len(d.tables), T[:1]))",
        letter + "out([r[:2] for r in T[1:]])",
        letter + "out([r[2:] for r in T[1:]])",
        letter + "out([t for s, t in P if t.startswith('Total claimed')])",
        letter + "out(P)",
        assets,
        *(store + f"out([s for s in S if s[0] == {job!r}])" for job, _, _ in records),
        store + "out(S)",
    ]
    config = [
        *CLAIMS_DESK.steps(),
        download(
            {
                **{f"{data.TASK}_{name}": f"{RECORDS_DIR}/{name}" for name in scans},
                f"{data.TASK}_quote.pdf": f"{CLAIMS_DIR}/quote.pdf",
                f"{data.TASK}_assets.xlsx": f"{CLAIMS_DIR}/assets.xlsx",
                f"{data.TASK}_policy.txt": f"{CLAIMS_DIR}/policy.txt",
            }
        ),
    ]
    looked = [{"contains": "PNG image" if name.endswith(".png") else "JPEG image"} for name in scans]
    main = [
        plan(
            "Read the policy and the asset register",
            "Read the scanned job sheets",
            "Read the scanned quotation",
            "Decide which jobs are claimable",
            "Write the Claims sheet",
            "Write the Not claimed sheet",
            "Write the claim letter",
            "Enter the claims in Warranty Claims",
        ),
        turn(
            "Policy, register and what was scanned.",
            bash(f"cat {CLAIMS_DIR}/policy.txt && ls {RECORDS_DIR}"),
            bash(print_xlsx(f"{CLAIMS_DIR}/assets.xlsx")),
            done(1),
            expect=[{"contains": "Plan (0/8 done"}],
        ),
        turn(
            "The job sheets are pictures: I look at each one.",
            *(view(f"{RECORDS_DIR}/{name}") for name in scans),
            expect=[
                {"exit": 0, "contains": ["One claim per job number", scans[-1]]},
                {"exit": 0, "contains": data.ASSETS[2][3]},
                {},
            ],
        ),
        turn(
            "Job 5115 was scanned twice. The quotation is a scan too: its pages come as pictures.",
            done(2),
            view(f"{CLAIMS_DIR}/quote.pdf"),
            expect=looked,
        ),
        turn(
            f"Quotation {data.QUOTE_NUMBER}, warranty labour EUR {data.LABOUR_RATE:.2f} per hour. Job 5104 was maintenance "
            "and job 5108's machine left warranty in January; the rest are claimable.",
            done(3, 4),
            bash(python_script(script)),
            done(5, 6, 7),
            expect=[
                {},
                {
                    "contains": [
                        "no text on this page: a scan or a picture",
                        "page 1 shown as a picture",
                        "page 2 shown as a picture",
                    ]
                },
            ],
        ),
        CLAIMS_DESK.entry_turn(
            "The claims go in through the app's window.",
            what="one record per claim",
            records=records,
            expect=[{}, {"exit": 0, "contains": f"total {grand}"}, {}],
            after_return=True,
        ),
        CLAIMS_DESK.check_turn(8, [{}, {"contains": "DONE"}]),
        finish(
            f"{len(claims)} claims for EUR {grand:,.2f} in the workbook, the letter and Warranty Claims.",
            [{}, {"exit": 0, "contains": records[-1][2]}],
        ),
    ]
    checked = claims[-1]
    checked_job = next(job for job in data.JOBS if job.number == checked["job"])
    gate = [
        turn(
            "The serial numbers and hours exist only in the scans: I compare one with the workbook.",
            view(f"{RECORDS_DIR}/{checked_job.file}"),
            bash(print_xlsx(f"{CLAIMS_DIR}/claims.xlsx")),
        ),
        turn(
            "Every requirement holds in the saved files.",
            call(
                "verdict",
                verdict="PASS",
                checklist=[
                    {
                        "requirement": "claims workbook",
                        "result": "pass",
                        "evidence": f"job {checked['job']}: serial {checked['serial']} and "
                        f"{checked_job.hours:g} h on the scan, labour {checked['labour']:.2f} in the workbook",
                    },
                    *(
                        {"requirement": r, "result": "pass", "evidence": "read from the saved files"}
                        for r in ("claim letter", "Warranty Claims entries")
                    ),
                ],
                summary="The saved deliverables meet every requirement.",
            ),
            expect=[{"contains": "JPEG image"}, {"exit": 0, "contains": checked["serial"]}],
        ),
    ]
    return CLAIMS_DESK.task(
        records,
        "All claims are shown in the Warranty Claims list.",
        id=data.TASK,
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_writer", "image", "pdf", "warranty_claims"],
        probes=probes,
        reference=[script],
        main=main,
        gate=gate,
    )


SPECS = (service_warranty_claims,)

if __name__ == "__main__":
    raise SystemExit(write_tasks(sys.argv[1:], SPECS))
