"""The long suite's `trainer-claims-correction` task: a correction arrives by mail while the agent works.

    python -m stateact.evals.authoring.long_correction_task [SUITE_DIR]     # default evals/suites/long

The training coordinator's session log and trainer rates become a claims workbook, a payments file and
one letter per trainer. After CORRECTION_AFTER_STEPS tool calls (the task's `schedule`,
evals/running/schedule.py) the coordinator's correction lands in ~/Maildir: one trainer's rate was wrong
and one session was cancelled. The instruction says corrections may come by mail and that the
deliverables must hold the latest figures when the agent finishes; the harness tells the agent nothing
when the mail lands. Every deliverable the correction touches has checkpoints, so a run that made the
deliverables and never read the mail again scores less than 1 (its `ignoring` script, written beside the
solution by `write_ignoring_script`, is what the tests play).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from stateact.evals.authoring.long_tasks import (
    HOME,
    TaskSpec,
    bash,
    call,
    expected_outputs,
    gate_turns,
    python_script,
    shell,
    task_json,
    turn,
)

LONG_SUITE = Path(__file__).parents[1] / "suites" / "long"
TASK_ID = "trainer-claims-correction"
DIR = f"{HOME}/Documents/training"
MAILDIR = f"{HOME}/Maildir"
CORRECTION_AFTER_STEPS = 8
"""The steps after which the correction lands: once the reference solution has made every deliverable."""
COORDINATOR = "Dana Whitfield <dana.whitfield@northbridge-training.org>"


@dataclass(frozen=True)
class Session:
    date: str
    title: str
    trainer: str
    hours: float


SESSIONS = (
    Session("2025-03-03", "Spreadsheet basics", "Priya Shah", 3),
    Session("2025-03-04", "Writing clear reports", "Marco Rossi", 2.5),
    Session("2025-03-06", "Pivot tables", "Priya Shah", 3),
    Session("2025-03-07", "Presentation design", "Lena Novak", 2),
    Session("2025-03-10", "Data cleaning", "Marco Rossi", 3.5),
    Session("2025-03-11", "Email etiquette", "Omar Haddad", 1.5),
    Session("2025-03-12", "Charts that inform", "Lena Novak", 2.5),
    Session("2025-03-13", "Lookup functions", "Priya Shah", 2),
    Session("2025-03-14", "Data cleaning II", "Marco Rossi", 3),
    Session("2025-03-17", "Meeting minutes", "Omar Haddad", 2),
    Session("2025-03-18", "Slide storytelling", "Lena Novak", 3),
    Session("2025-03-19", "Macros intro", "Priya Shah", 2.5),
)
RATES = {"Lena Novak": 70, "Marco Rossi": 75, "Omar Haddad": 60, "Priya Shah": 80}
EMAILS = {name: name.lower().replace(" ", ".") + "@trainers.example.org" for name in RATES}
CORRECTED_RATE = ("Priya Shah", 95)
CANCELLED = "Data cleaning II"
CORRECTION_BODY = (
    "Hello,\n\n"
    "Two corrections to the March training figures I sent you:\n\n"
    f"1. {CORRECTED_RATE[0]}'s hourly rate for March is {CORRECTED_RATE[1]}, not {RATES[CORRECTED_RATE[0]]}: "
    "her new contract started on 1 March.\n"
    f'2. The 14 March session "{CANCELLED}" was cancelled at short notice and never held: it must not '
    "be claimed.\n\n"
    "Please make sure everything you prepare uses these figures.\n\nThanks,\nDana"
)


def money(value: float) -> float:
    return float(Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def figures(corrected: bool) -> tuple[list[Session], dict[str, int], list[list]]:
    """The held sessions by date, the rates, and the Claims rows (trainer, sessions, hours, rate, amount;
    by trainer name, then the Total row) before or after the correction."""
    rates = dict(RATES)
    held = [s for s in SESSIONS if not (corrected and s.title == CANCELLED)]
    if corrected:
        rates[CORRECTED_RATE[0]] = CORRECTED_RATE[1]
    rows = []
    for name in sorted(rates):
        mine = [s for s in held if s.trainer == name]
        hours = sum(s.hours for s in mine)
        rows.append([name, len(mine), hours, rates[name], money(hours * rates[name])])
    total = ["Total", sum(r[1] for r in rows), sum(r[2] for r in rows), None, money(sum(r[4] for r in rows))]
    return held, rates, [*rows, total]


INSTRUCTION = (
    "You prepare the March trainer claims for Northbridge Training. The session log is "
    "~/Documents/training/sessions.csv (date, session, trainer, hours) and the hourly rates and emails are in "
    "~/Documents/training/rates.csv. Dana Whitfield, the coordinator, is still checking the figures: she sends "
    "any correction by mail to your local mailbox ~/Maildir (Maildir format), and the deliverables must reflect "
    "her latest figures when you finish, including anything you made before her mail arrived. Make:\n"
    '1. ~/Documents/training/claims.xlsx with a sheet "Claims": header Trainer, Sessions, Hours, Rate, Amount; '
    'one row per trainer ordered by name (Amount = Hours x Rate, rounded to cents); then a row "Total" with '
    'the sums of Sessions, Hours and Amount and an empty Rate. A second sheet "Sessions": header Date, Session, '
    "Trainer, Hours, then every session held, ordered by date (dates as text YYYY-MM-DD). Values, not formulas.\n"
    "2. ~/Documents/training/payments.csv: header Trainer,Email,Amount, one line per trainer ordered by name, "
    "amounts with two decimals.\n"
    "3. ~/Documents/training/letters/<First>_<Last>.docx for each trainer (e.g. Lena_Novak.docx): a Heading 1 "
    'paragraph "March claim: <Trainer>", then one paragraph "Sessions: <n>. Hours: <hours>. Rate: <rate> per '
    'hour. Amount due: <amount>." with hours as a plain number (2.5, 7) and the amount with two decimals. '
    "Nothing else in that folder."
)
PERSONA = {
    "persona": "Dana Whitfield, training coordinator at Northbridge Training, who asked for the March claims.",
    "knows": [
        f"{CORRECTED_RATE[0]}'s March rate is {CORRECTED_RATE[1]} per hour (her new contract started on 1 March).",
        f'The 14 March session "{CANCELLED}" was cancelled and must not be claimed.',
        "You mailed both corrections to the mailbox ~/Maildir during the work.",
    ],
    "wants": ["Every deliverable (workbook, payments file, letters) to use the corrected figures."],
    "does_not_know": ["How the files are made or which tools are used."],
    "answers": "Briefly, and only what is asked; you point to your mail when asked about the figures.",
}


def _inputs_script() -> str:
    """The script that writes the task's inputs (a setup step, and the first reference script)."""
    sessions = [[s.date, s.title, s.trainer, s.hours] for s in SESSIONS]
    rates = [[name, rate, EMAILS[name]] for name, rate in sorted(RATES.items())]
    return (
        "import csv, os\n"
        f"os.makedirs('{DIR}', exist_ok=True)\n"
        f"with open('{DIR}/sessions.csv', 'w', newline='') as f:\n"
        "    w = csv.writer(f); w.writerow(['date', 'session', 'trainer', 'hours'])\n"
        f"    w.writerows({sessions!r})\n"
        f"with open('{DIR}/rates.csv', 'w', newline='') as f:\n"
        "    w = csv.writer(f); w.writerow(['trainer', 'rate', 'email'])\n"
        f"    w.writerows({rates!r})\n"
    )


def _number(hours: float) -> str:
    return f"{hours:g}"


def _deliverables_script(corrected: bool) -> str:
    """The script that writes every deliverable from the figures before or after the correction."""
    held, _, rows = figures(corrected)
    sessions = [[s.date, s.title, s.trainer, s.hours] for s in held]
    letters = {
        name.replace(" ", "_"): (
            f"March claim: {name}",
            f"Sessions: {n}. Hours: {_number(hours)}. Rate: {rate} per hour. Amount due: {amount:.2f}.",
        )
        for name, n, hours, rate, amount in rows[:-1]
    }
    payments = [[name, EMAILS[name], f"{amount:.2f}"] for name, _, _, _, amount in rows[:-1]]
    return (
        "import csv, docx, glob, openpyxl, os\n"
        f"D = '{DIR}'\n"
        "b = openpyxl.Workbook(); ws = b.active; ws.title = 'Claims'\n"
        "ws.append(['Trainer', 'Sessions', 'Hours', 'Rate', 'Amount'])\n"
        f"for r in {rows!r}: ws.append(r)\n"
        "s = b.create_sheet('Sessions'); s.append(['Date', 'Session', 'Trainer', 'Hours'])\n"
        f"for r in {sessions!r}: s.append(r)\n"
        "b.save(D + '/claims.xlsx')\n"
        "with open(D + '/payments.csv', 'w', newline='') as f:\n"
        "    w = csv.writer(f); w.writerow(['Trainer', 'Email', 'Amount'])\n"
        f"    w.writerows({payments!r})\n"
        "os.makedirs(D + '/letters', exist_ok=True)\n"
        "for old in glob.glob(D + '/letters/*'): os.remove(old)\n"
        f"for stem, (title, body) in {letters!r}.items():\n"
        "    d = docx.Document(); d.add_heading(title, level=1); d.add_paragraph(body); d.save(f'{D}/letters/{stem}.docx')\n"
    )


CLAIMS = (
    f"import openpyxl\nb = openpyxl.load_workbook('{DIR}/claims.xlsx', data_only=True)\n"
    "C = [[N(v) for v in r] for r in b['Claims'].iter_rows(values_only=True) if any(v is not None for v in r)]\n"
)
HELD = (
    CLAIMS
    + "S = [[N(v) for v in r] for r in b['Sessions'].iter_rows(values_only=True) if any(v is not None for v in r)]\n"
)
PAYMENTS = f"import csv\nP = list(csv.reader(open('{DIR}/payments.csv')))\n"


def _letter(stem: str) -> str:
    return (
        f"import docx\nd = docx.Document('{DIR}/letters/{stem}.docx')\n"
        "out([(p.style.name, p.text.strip()) for p in d.paragraphs if p.text.strip()])"
    )


def probes() -> list[str]:
    """The checkpoints: every row of both sheets and of the payments file, every letter."""
    names = sorted(RATES)
    found = [CLAIMS + "out(b.sheetnames)", CLAIMS + "out(C[0])"]
    found += [CLAIMS + f"out(next((r for r in C if r[0] == {name!r}), None))" for name in names]
    found += [CLAIMS + "out(next((r for r in C if r[0] == 'Total'), None))", CLAIMS + "out(len(C))"]
    found += [HELD + "out(S[0])", HELD + "out(len(S))", HELD + "out([r[0] for r in S[1:]])"]
    found += [HELD + "out([r[1:] for r in S[1:]])"]
    found += [PAYMENTS + "out(P[0])", PAYMENTS + "out(len(P))"]
    found += [PAYMENTS + f"out(next((r for r in P if r[0] == {name!r}), None))" for name in names]
    found += [f"import os\nout(sorted(os.listdir('{DIR}/letters')))"]
    found += [_letter(name.replace(" ", "_")) for name in names]
    return found


def _mail_step() -> dict:
    return {
        "type": "deliver_mail",
        "parameters": {
            "mailbox": MAILDIR,
            "from": COORDINATOR,
            "to": "claims@northbridge-training.org",
            "subject": "Corrections to the March training figures",
            "body": CORRECTION_BODY,
        },
    }


READ_MAIL = python_script(
    "import mailbox, os\n"
    f"messages = list(mailbox.Maildir('{MAILDIR}', create=False).values()) if os.path.isdir('{MAILDIR}') else []\n"
    "print(f'{len(messages)} messages')\n"
    "for m in messages:\n"
    "    print(m['From'], '|', m['Subject']); print(m.get_payload())"
)
PLAN = [
    "Read the log and rates",
    "Check the mail",
    "Write the workbook and payments",
    "Write the letters",
    "Apply Dana's corrections",
]


PLAN_TURN = turn("Plan.", call("plan", action="set", items=[{"title": t} for t in PLAN]))


def _plan_done(*ids: int) -> dict:
    return call("plan", action="update", updates=[{"id": i, "status": "done"} for i in ids])


def _gate() -> list[dict]:
    return gate_turns(
        f"cat {DIR}/payments.csv && ls {DIR}/letters", ["claims workbook", "payments file", "letters"]
    )


def main_turns(follows_correction: bool) -> list[dict]:
    """The main agent's turns: the reference (it reads the mail again before finishing and applies the
    correction), or a run that makes the deliverables once and never looks at the mail again. Each
    turn's `expect` checks the results of the turn before it."""
    summary = "Claims workbook, payments file and letters written" + (
        " with Dana's corrected rate and without the cancelled session." if follows_correction else "."
    )
    read = turn(
        "Read the inputs and the mailbox.",
        bash(f"cat {DIR}/sessions.csv {DIR}/rates.csv"),
        bash(READ_MAIL),
        _plan_done(1, 2),
        expect=[{"contains": "Plan (0/5 done"}],
    )
    write = turn(
        "Workbook, payments and letters from the log and rates.",
        bash(python_script(_deliverables_script(False))),
        _plan_done(3),
        expect=[
            {"exit": 0, "contains": ["Data cleaning II", "priya.shah@"]},
            {"exit": 0, "contains": "0 messages"},
            {},
        ],
    )
    check = turn("Check the letters.", bash(f"ls {DIR}/letters"), _plan_done(4), expect=[{"exit": 0}, {}])
    wrote = [{"exit": 0, "contains": "Priya_Shah.docx"}, {}]
    if not follows_correction:
        return [
            PLAN_TURN,
            read,
            write,
            check,
            turn("", call("finish", summary=summary, infeasible=False), expect=wrote),
        ]
    mail = turn(
        "Before finishing, check the mailbox again for Dana's corrections.", bash(READ_MAIL), expect=wrote
    )
    fix = turn(
        "Apply both corrections to every deliverable.",
        bash(python_script(_deliverables_script(True))),
        _plan_done(5),
        expect=[{"exit": 0, "contains": ["1 messages", "hourly rate for March is 95", "Data cleaning II"]}],
    )
    closing = turn("", call("finish", summary=summary, infeasible=False), expect=[{"exit": 0}, {}])
    return [PLAN_TURN, read, write, check, mail, fix, closing]


def spec() -> TaskSpec:
    return TaskSpec(
        id=TASK_ID,
        instruction=INSTRUCTION,
        config=[shell(python_script(_inputs_script()))],
        apps=["libreoffice_calc", "libreoffice_writer"],
        probes=probes(),
        reference=[_inputs_script(), _deliverables_script(True)],
        solution={"main": main_turns(True), "gate": _gate()},
    )


def task_file(expected: list[str]) -> dict:
    """The task file: the suite's shape, with the scheduled correction and the coordinator's persona."""
    task = task_json(spec(), expected)
    task["schedule"] = [
        {"id": "dana-correction", "after_steps": CORRECTION_AFTER_STEPS, "steps": [_mail_step()]}
    ]
    task["user"] = PERSONA
    return task


def ignoring_script() -> dict:
    """The scripted run that makes the deliverables once and never reads the correction."""
    return {"roles": {"main": main_turns(False), "gate": _gate()}}


def write(suite: Path) -> Path:
    """Write the task file and its reference solution into `suite`; returns the task file."""
    with tempfile.TemporaryDirectory(prefix="stateact-long-cache-") as scratch:  # it downloads nothing
        expected = expected_outputs(spec(), Path(scratch))
    path = suite / f"{TASK_ID}.json"
    path.write_text(json.dumps(task_file(expected), indent=2) + "\n", encoding="utf-8")
    solution = {"roles": spec().solution}
    path.with_suffix(".solution.json").write_text(json.dumps(solution, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else LONG_SUITE))
