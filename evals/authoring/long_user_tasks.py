"""The long suite's human-in-the-loop tasks: the right outcome turns on a decision only the user can
make, so asking (`ask_user`) is the only way to 1.0. Written from evals/fixtures/long_user.py:

    python -m stateact.evals.authoring.long_user_tasks [SUITE_DIR]     # default evals/suites/long

Each task carries the persona a simulated user plays (the task file's `user`); its reference solution
asks, and its `user` role holds the persona's scripted reply, so `eval validate` replays the question
and the answer through a simulated user. The checkers read only the deliverables: their right content
follows from the user's answer alone, and the guess the files invite (the notice's default) scores 0.
"""

from __future__ import annotations

import sys
from decimal import Decimal

from stateact.evals.authoring import long_events_tasks
from stateact.evals.authoring.long_events_tasks import (
    cell_rows,
    columns,
    doc_paragraphs,
    done,
    finish,
    plan,
    print_docx,
    print_xlsx,
    sheet_rows,
)
from stateact.evals.authoring.long_tasks import (
    HOME,
    TaskSpec,
    bash,
    call,
    download,
    gate_turns,
    python_script,
    turn,
)
from stateact.evals.fixtures import long_user as data

RISE_DIR = f"{HOME}/Documents/pricing"
RISE_LETTER_TITLE = "Price changes from 1 August"
RISE_LETTER_CLOSE = "Prices not listed stay the same."
RISE_QUESTION = (
    "Halden's notice lets you choose: schedule A (5% on every product) or schedule B (12% on two "
    "categories you name, the others unchanged); your notes say you would decide and phone it through, "
    "and nothing on the computer records the choice. Which schedule did you choose, and for B, which two "
    "categories?"
)
RISE_ANSWER = f"Schedule B, on {data.RISE_USER_CHOICE[0]} and {data.RISE_USER_CHOICE[1]}. I told their account manager on 18 July."
RISE_PERSONA = {
    "persona": "You are Dana Whitfield, owner of Whitfield Home & Garden, a small shop. You asked the agent "
    "to get the shop's prices and customer letter ready for August after the supplier's price rise.",
    "knows": [
        f"On 18 July you phoned Halden Wholesale's account manager and chose schedule B, with the two "
        f"categories {data.RISE_USER_CHOICE[0]} and {data.RISE_USER_CHOICE[1]} (12% on those; Kitchen and "
        "Lighting keep their cost). Nothing on the computer records this choice.",
        "The pricing policy file is right and complete; the price list is up to date.",
    ],
    "wants": ["The August price list and the customer letter under the schedule you chose, ready to send."],
    "does_not_know": ["The products' costs or prices by heart.", "How the files are laid out."],
    "answers": "Briefly, in a sentence or two, and only what you were asked. Asked which schedule or which "
    "categories, you give your choice. Asked to confirm a plan or anything the files say, you tell the agent "
    "to go by the files.",
}
"""The user behind supplier-price-rise, as a simulated user plays it."""


def august_rows(
    schedule: str, chosen: tuple[str, ...] = data.RISE_USER_CHOICE
) -> list[tuple[str, str, str, Decimal, Decimal, Decimal]]:
    """SKU, product, category, August cost, August price, current price of every product."""
    rows = []
    for sku, name, category, cost in data.RISE_PRODUCTS:
        new = data.risen_cost(Decimal(cost), category, schedule, chosen)
        rows.append((sku, name, category, new, data.sale_price(new), data.sale_price(Decimal(cost))))
    return rows


def deliverables_script(schedule: str, chosen: tuple[str, ...] = data.RISE_USER_CHOICE) -> str:
    """A Python program writing prices_august.xlsx and customer_letter.docx under `schedule`."""
    rows = [
        (s, n, c, float(cost), float(price), float(old))
        for s, n, c, cost, price, old in august_rows(schedule, chosen)
    ]
    return f"""
import docx, openpyxl
rows = {rows!r}
book = openpyxl.Workbook()
sheet = book.active
sheet.title = 'Prices'
sheet.append(['SKU', 'Product', 'Category', 'Cost', 'Price'])
changes = book.create_sheet('Changes')
changes.append(['SKU', 'Old price', 'New price'])
letter = docx.Document()
letter.add_heading({RISE_LETTER_TITLE!r}, 1)
for sku, name, category, cost, price, old in rows:
    sheet.append([sku, name, category, cost, price])
    if price != old:
        changes.append([sku, old, price])
        letter.add_paragraph(f'{{sku}} {{name}}: {{old:.2f}} -> {{price:.2f}}')
letter.add_paragraph({RISE_LETTER_CLOSE!r})
book.save('{RISE_DIR}/prices_august.xlsx')
letter.save('{RISE_DIR}/customer_letter.docx')
print('changed', changes.max_row - 1)
"""


def supplier_price_rise() -> TaskSpec:
    rows = august_rows("B")
    changed = sum(price != old for *_, price, old in rows)
    instruction = (
        "Our supplier Halden Wholesale raises its prices from 1 August: its notice is "
        "~/Documents/pricing/supplier_notice.docx, and my notes are in ~/Documents/pricing/notes.txt. Please get our "
        "prices ready for August, following our pricing policy in ~/Documents/pricing/pricing_policy.txt:\n"
        '1. ~/Documents/pricing/prices_august.xlsx with a sheet "Prices": the same columns and rows, in the same '
        "order, as the sheet of ~/Documents/pricing/prices.xlsx (SKU, Product, Category, Cost, Price), Cost being our "
        'new cost from Halden and Price our new sale price (values, not formulas); and a second sheet "Changes": header '
        "SKU, Old price, New price, with one row per product whose price changes, in price-list order.\n"
        f'2. ~/Documents/pricing/customer_letter.docx: a Heading 1 "{RISE_LETTER_TITLE}", then one paragraph per '
        'product whose price changes, like "XY-900 Tape measure: 5.60 -> 5.88" (prices with two decimals), in '
        f'price-list order, and a last paragraph "{RISE_LETTER_CLOSE}"\n'
        "Leave prices.xlsx as it is."
    )
    changes = cell_rows("b['Changes']")
    august = sheet_rows(f"{RISE_DIR}/prices_august.xlsx", "R", "Prices") + f"C = {changes}\n"
    original = sheet_rows(f"{RISE_DIR}/prices.xlsx", "O", "Prices")
    letter = doc_paragraphs(f"{RISE_DIR}/customer_letter.docx")
    probes = [
        august + "out(R[:1])",
        *(august + f"out(R[{index}])" for index in range(1, len(rows) + 1)),
        august + "out(len(R))",
        august + "out(C[:1])",
        *columns(august, "C", 0, 1, 2),
        august + "out(C)",
        original + "out(O)",
        letter + "out([p for p in P if p[0] == 'Heading 1'])",
        letter + "out([t for s, t in P if s == 'text' and '->' in t])",
        letter + "out(P[-1:])",
        letter + "out(P)",
    ]
    script = deliverables_script("B")
    config = [
        download(
            {
                f"{data.RISE_ID}_prices.xlsx": f"{RISE_DIR}/prices.xlsx",
                f"{data.RISE_ID}_notice.docx": f"{RISE_DIR}/supplier_notice.docx",
                f"{data.RISE_ID}_policy.txt": f"{RISE_DIR}/pricing_policy.txt",
                f"{data.RISE_ID}_notes.txt": f"{RISE_DIR}/notes.txt",
            }
        )
    ]
    main = [
        plan(
            "Read the notice, notes, policy and price list",
            "Settle the schedule with the user",
            "Write the August price list",
            "Write the customer letter",
            "Check the deliverables",
        ),
        turn(
            "Notice, notes, policy, price list.",
            bash(f"cat {RISE_DIR}/notes.txt {RISE_DIR}/pricing_policy.txt"),
            bash(print_docx(f"{RISE_DIR}/supplier_notice.docx")),
            bash(print_xlsx(f"{RISE_DIR}/prices.xlsx")),
            done(1),
            expect=[{"contains": "Plan (0/5 done"}],
        ),
        turn(
            "The schedule is the owner's choice, made by phone and recorded nowhere: ask.",
            call("ask_user", question=RISE_QUESTION),
            expect=[
                {"exit": 0, "contains": ["decide myself", "1.40"]},
                {"exit": 0, "contains": ["Schedule B", "Without a choice, schedule A applies"]},
                {"exit": 0, "contains": "LT-403"},
                {},
            ],
        ),
        turn(
            "Schedule B on the two categories named: write the price list and the letter.",
            bash(python_script(script)),
            done(2, 3, 4),
            expect=[{"contains": f"{data.RISE_USER_CHOICE[0]} and {data.RISE_USER_CHOICE[1]}"}],
        ),
        turn(
            "Read back what was saved.",
            bash(print_xlsx(f"{RISE_DIR}/prices_august.xlsx")),
            bash(print_docx(f"{RISE_DIR}/customer_letter.docx")),
            done(5),
            expect=[{"exit": 0, "contains": f"changed {changed}"}, {}],
        ),
        finish(
            f"August prices under schedule B on {' and '.join(data.RISE_USER_CHOICE)}, as the owner chose: "
            f"{changed} prices change; price list and letter written.",
            [{"exit": 0, "contains": "Changes"}, {"exit": 0, "contains": RISE_LETTER_CLOSE}, {}],
        ),
    ]
    return TaskSpec(
        id=data.RISE_ID,
        instruction=instruction,
        config=config,
        apps=["libreoffice_calc", "libreoffice_writer"],
        probes=probes,
        reference=[script],
        solution={
            "main": main,
            "user": [turn(RISE_ANSWER)],
            "gate": gate_turns(
                f"{print_xlsx(f'{RISE_DIR}/prices_august.xlsx')} && {print_docx(f'{RISE_DIR}/customer_letter.docx')}",
                ["August price list", "changes sheet", "customer letter", "the schedule the user chose"],
            ),
        },
        user=RISE_PERSONA,
    )


SPECS = (supplier_price_rise,)


def main(argv: list[str]) -> int:
    return long_events_tasks.main(argv, SPECS)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
