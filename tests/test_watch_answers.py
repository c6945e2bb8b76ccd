"""Answering the agent's question from the watch page: a real interactive `stateact run --watch` in a pty
asks twice; the person answers one question at the terminal and the other through the watch server (over
HTTP, and through the page in Debian's Chromium). A question is answered once, by whichever side answers
first, and the other side sees that it was answered."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator

import httpx
import pexpect
import pytest

from stateact.app.answer_box import WATCH, AnswerBox
from stateact.app.users import TERMINAL
from stateact.app.watch import ADDRESS_FILE
from tests.test_ask_user import answers, ask, finish, script, spawn_run, the_run
from tests.test_watch import chromium_page  # noqa: F401, F811 (a fixture)

FIRST, SECOND = "Which colour is your favourite?", "Which shade of it?"


def claimed_together(box: AnswerBox, number: int, sides: int = 8) -> list[bool]:
    """`sides` threads claiming question `number` at once: which of them counted."""
    start = threading.Barrier(sides)
    won = [False] * sides

    def claim(index: int) -> None:
        start.wait()
        won[index] = box.claim(number, f"answer {index}", WATCH)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(sides)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return won


def test_a_question_is_answered_once_and_only_while_a_live_run_waits_on_it(tmp_path):
    box = AnswerBox(tmp_path)
    box.ask(1, FIRST)
    assert box.pending() == {"number": 1, "question": FIRST}
    assert sum(claimed_together(box, 1)) == 1
    assert box.answer(1).by == WATCH and box.pending() is None  # answered: no longer open
    box.ask(1, FIRST)  # the same question asked again by a resumed run: the stale answer is gone
    assert box.answer(1) is None and box.pending() is not None
    (tmp_path / "question.json").write_text(
        (tmp_path / "question.json").read_text().replace(str(os.getpid()), "999999999")
    )
    assert box.pending() is None  # a run that is gone waits on nothing
    assert not list(tmp_path.glob(".*"))  # no temporary file is left


@pytest.fixture
def asking_run(tmp_path) -> Iterator[tuple[pexpect.spawn, str]]:
    """An interactive run with --watch in a pty whose agent asks FIRST, then SECOND, then finishes; and
    its watch page's address."""
    main = script(
        tmp_path,
        [
            ask(FIRST),
            ask(SECOND, expect={"contains": "The user answered:\nteal"}),
            finish(expect={"contains": "The user answered:\ndeep teal"}),
        ],
    )
    child = spawn_run(tmp_path, main, "--watch")
    try:
        child.expect_exact("The agent asks you:")
        yield child, json.loads((the_run(tmp_path) / ADDRESS_FILE).read_text())["url"]
    finally:
        child.close(force=True)


def pending(url: str, run: str, number: int) -> dict:
    """The question the run waits on, once it is question `number`."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = httpx.get(f"{url}api/events", params={"run": run, "from": 0}).json()["pending"]
        if found and found["number"] == number:
            return found
        time.sleep(0.1)
    raise AssertionError(f"question {number} never pending")


def post(url: str, run: str, number: int, answer: str, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{url}api/answer", json={"run": run, "number": number, "answer": answer}, headers=headers
    )


@pytest.mark.slow
def test_the_terminal_and_the_watch_server_answer_first_come_first_served(tmp_path, asking_run):
    child, url = asking_run
    child.expect_exact(FIRST)
    (run,) = [found["id"] for found in httpx.get(f"{url}api/runs").json()]
    assert pending(url, run, 1)["question"] == FIRST
    child.sendline("teal")  # the terminal answers the first question
    assert pending(url, run, 2)["question"] == SECOND
    late = post(url, run, 1, "crimson")
    assert late.status_code == 409 and late.json() == {
        "error": "answered already, at the terminal",
        "answer": "teal",
    }
    assert post(url, run, 2, "deep teal", Origin="http://elsewhere.example").status_code == 403
    assert post(url, run, 3, "deep teal").status_code == 404
    assert post(url, run, 2, "   ").status_code == 400
    assert post(url, run, 2, "deep teal").json() == {"answered": True}  # the page answers the second
    child.expect_exact("(answered on the watch page: deep teal)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert answers(the_run(tmp_path)) == [("teal", TERMINAL), ("deep teal", WATCH)]
    assert not (the_run(tmp_path) / "question.json").exists()


@pytest.mark.slow
@pytest.mark.apps
def test_the_watch_page_shows_the_question_and_its_answer_box(
    tmp_path,
    asking_run,
    chromium_page,  # noqa: F811 (the fixture)
):
    child, url = asking_run
    page = chromium_page
    page.goto(url)
    page.wait_for_selector("#ask:not([hidden])", timeout=30_000)
    assert page.inner_text("#ask-question") == FIRST
    child.sendline("teal")  # answered at the terminal: the page's box goes, and the page says who answered
    page.wait_for_function(
        "document.querySelector('#ask-question').textContent.includes('shade')", timeout=30_000
    )
    assert page.inner_text("#asked") == "the user's answer (terminal): teal"
    page.fill("#ask-answer", "deep teal")
    page.screenshot(path=str(tmp_path / "watch-asking.png"))
    page.click("#ask button")
    child.expect_exact("(answered on the watch page: deep teal)")
    child.expect(pexpect.EOF)
    page.wait_for_selector("#ask[hidden]", state="attached", timeout=30_000)
    page.screenshot(path=str(tmp_path / "watch-answered.png"))
    assert answers(the_run(tmp_path))[-1] == ("deep teal", WATCH)
    assert not page.problems
