"""The gate reads the web: the web subagent's pages are saved in the run folder; `read_page` GETs the task's
sites only; curl to stdout passes the gate's shell. Real Chromium, the suite's local website, real HTTP."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sqlite3
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from stateact.evals.fixtures.site import site_zip
from stateact.gate.review import FinishGate
from stateact.gate.review.browser_cookies import Cookie, cookie_header, sandbox_cookies
from stateact.gate.review.web_read import ReadPage, allowed_sites, site_of
from stateact.kernel.events import read_events
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.runtime import RoleModels
from stateact.subagents.web import DelegateWebTool
from stateact.subagents.web_pages import saved_pages
from tests.support.tool_calls import turn_calling
from tests.support.tool_context import run_context
from tests.support.web_site import browser_session, serve_site

SERVER = Path(__file__).resolve().parents[1] / "evals" / "fixtures" / "site" / "server.py"


@contextmanager
def suite_site(root: Path) -> Iterator[str]:
    """The suite's website (pages rendered by JavaScript) served from `root` on a free port."""
    zipfile.ZipFile(io.BytesIO(site_zip())).extractall(root / "www")
    spec = importlib.util.spec_from_file_location("suite_site_server", SERVER)
    server_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server_module)
    with serve_site(server_module.make_handler(root / "www", root / "state.db")) as url:
        yield url


def after_error(turn: dict) -> dict:
    """`turn`, declaring that the previous turn's result is an error (a refusal)."""
    return {**turn, "expect": {"is_error": True, "contains": "Refused"}}


def results_of(request) -> list:
    return [r for m in request.messages for r in m.tool_results()]


@pytest.fixture
def site(tmp_path):
    with suite_site(tmp_path / "site") as base:
        yield base


@pytest.mark.apps
def test_gate_reads_the_task_site_and_the_pages_the_web_subagent_saw(tmp_path, site):
    script = tmp_path / "script.json"
    task = f"Open the exchange rates page at {site}/rates/ and write the EUR rate of one USD into ~/usd.txt."
    verdict = {
        "verdict": "PASS",
        "checklist": [{"requirement": "usd.txt holds the USD rate", "result": "pass", "evidence": "0.9231"}],
    }
    with serve_site() as other, run_context(tmp_path / "r") as context:
        context.task = task
        context.models = RoleModels(main=f"scripted:{script}")
        gate_turns = [
            turn_calling("web_pages"),
            turn_calling("web_pages", number=2),
            turn_calling("read_page", url=f"{site}/rates/"),
            turn_calling("read_page", url=f"{other}/login.html"),
            after_error(turn_calling("read_page", url=f"http://localhost:{site.rsplit(':', 1)[1]}/rates/")),
            after_error(turn_calling("bash", command=f"curl -sL {site}/rates/ | grep -c 'Reference rates'")),
            turn_calling("bash", command=f"curl -s -o page.html {site}/rates/"),
            after_error(turn_calling("verdict", **verdict)),
        ]
        web_turns = [
            turn_calling("navigate", url=f"{site}/"),
            turn_calling("navigate", url=f"{site}/rates/"),
            turn_calling("scroll", direction="down"),
            turn_calling("done", summary="Read the rates.", facts=["USD: 0.9231 EUR"]),
        ]
        script.write_text(json.dumps({"roles": {"web": web_turns, "gate": gate_turns}}))
        tool = DelegateWebTool(context)
        try:
            report = tool.invoke(ToolUseBlock(id="w", name="delegate_web", input={"subgoal": "read USD"}))
        finally:
            tool.close()
        assert report.text.startswith("Web subagent (web#1): DONE after"), report.text
        home = Path(context.sandbox.home)
        (home / "usd.txt").write_text("0.9231\n")
        before = sorted(p.name for p in home.iterdir())

        result = FinishGate(context, task_started_at=time.time() - 60).review()

        listing, page, static, other_site, other_name, curl, curl_to_file = results_of(
            context.provider("gate").requests[-1]
        )
        run_dir = context.run_dir

    # the pages the subagent saw are saved: index, files with a header, events; scrolling saved nothing new
    pages = saved_pages(run_dir)
    assert [p.url for p in pages] == [f"{site}/", f"{site}/rates/"]
    saved = (run_dir / "web_pages" / "002.md").read_text()
    assert saved.startswith(f"# Web page 002\nURL: {site}/rates/\nTitle: Exchange rates\nSaved: ")
    assert "by web#1" in saved and "| USD | 0.9231 |" in saved and "viewport starts here" not in saved
    logged = [e for e in read_events(run_dir / "events.jsonl") if e.kind == "web_page_saved"]
    assert [(e.scope, e.number, e.file) for e in logged] == [
        ("web#1", 1, "web_pages/001.md"),
        ("web#1", 2, "web_pages/002.md"),
    ]
    # the gate lists and reads them
    assert "2 saved pages:" in listing.text() and f"{site}/rates/" in listing.text()
    assert "| USD | 0.9231 |" in page.text() and not page.is_error
    # read_page: the task's site by a static GET (no JavaScript: the rates table is empty there)
    assert not static.is_error and static.text().startswith(f"GET {site}/rates/ -> HTTP 200 (text/html")
    assert "Reference rates: euros per one unit" in static.text() and "0.9231" not in static.text()
    assert "<script" not in static.text() and "payload(" not in static.text()
    # another site, even on the same loopback address, is refused
    assert other_site.is_error and "is not a site of this task" in other_site.text()
    assert other_name.is_error and "localhost" in other_name.text()
    # curl printing to stdout passes the shell; curl writing a file does not
    assert not curl.is_error and curl.text().startswith("1\n[exit code 0]")
    assert curl_to_file.is_error and "`curl -o`" in curl_to_file.text()
    assert result.passed
    assert sorted(p.name for p in home.iterdir()) == before  # nothing written into the home


def test_allowed_sites_come_from_the_instruction_and_the_saved_pages_only(tmp_path):
    task = "Compare https://Example.org/prices?x=1, with http://127.0.0.1:18432/reports/ and (see news.example.com)."
    assert allowed_sites(task, tmp_path) == {"example.org:443", "127.0.0.1:18432"}


WRITING_PAGE = (
    b"<html><body><p id='out'>waiting</p><script>"
    b"fetch('/count', {method: 'POST', body: 'x'}).catch(() => {});"
    b"fetch('/total').then(r => r.text()).then(t => document.getElementById('out').textContent = 'Total ' + t);"
    b"</script></body></html>"
)


class WritingPageHandler(SimpleHTTPRequestHandler):
    """A page whose script reads a total with a GET and tries to write with a POST; POSTs are counted."""

    posts = 0

    def log_message(self, format: str, *args) -> None:
        return None

    def do_GET(self) -> None:
        body = WRITING_PAGE if self.path == "/" else b"42"
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if self.path == "/" else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        type(self).posts += 1
        self.send_response(204)
        self.end_headers()


@pytest.mark.apps
def test_read_page_renders_scripts_but_lets_only_reads_of_the_task_sites_out(site):
    static = ReadPage({site_of(site)}).run(ReadPage.Input(url=f"{site}/rates/"))
    assert "The page runs scripts" in static.text and "`render: true`" in static.text
    assert "| USD | 0.9231 |" not in static.text
    rates = ReadPage({site_of(site)}).run(ReadPage.Input(url=f"{site}/rates/", render=True))
    assert not rates.is_error and "| USD | 0.9231 |" in rates.text, rates.text
    with serve_site(WritingPageHandler) as writer:
        page = ReadPage({site_of(writer)}).run(ReadPage.Input(url=f"{writer}/", render=True))
    assert "Total 42" in page.text, page.text
    assert "1 requests refused: POST" in page.text and WritingPageHandler.posts == 0
    elsewhere = ReadPage({site_of(writer)}).run(ReadPage.Input(url=f"{site}/rates/", render=True))
    assert elsewhere.is_error and "is not a site of this task" in elsewhere.text


def planted_cookie_database(path: Path) -> None:
    """A Chromium-shaped cookie database on the host holding a cookie named `planted` for 127.0.0.1."""
    database = sqlite3.connect(path)
    database.executescript(
        "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('version', '24');"
        "CREATE TABLE cookies (host_key TEXT, name TEXT, value TEXT, encrypted_value BLOB, path TEXT, "
        "is_secure INT, is_httponly INT, expires_utc INT, has_expires INT);"
        "INSERT INTO cookies VALUES ('127.0.0.1', 'planted', 'x', x'', '/', 0, 0, 0, 0);"
    )
    database.commit()
    database.close()


@pytest.mark.apps
@pytest.mark.slow
def test_read_page_is_signed_in_as_the_sandbox_browser_and_changes_nothing(tmp_path):
    planted = tmp_path / "planted.db"  # a host file the sandbox cannot see
    planted_cookie_database(planted)
    with serve_site() as shop, browser_session(tmp_path / "home", isolation="bwrap", sites=[shop]) as browser:
        box = browser.sandbox
        box.run(
            f"mkdir -p ~/.config/chromium/Default && ln -s {planted} ~/.config/chromium/Default/Cookies", 10
        )
        browser.page.goto(f"{shop}/login.html")
        browser.page.fill("input[name=user]", "alice")
        browser.page.fill("input[name=password]", "secret")
        browser.page.click("button[type=submit]")
        deadline = time.monotonic() + 60  # Chromium commits its cookies to the profile every 30 s
        while not any(c.name == "session" for c in sandbox_cookies(box)) and time.monotonic() < deadline:
            time.sleep(1)
        database = f"{browser._inside.profile}/Default/Cookies"
        before = hashlib.sha256(box.read_file(database)).hexdigest()
        signed_in = ReadPage({site_of(shop)}, box.harness_url, cookies=lambda: sandbox_cookies(box))
        signed_out = ReadPage({site_of(shop)}, box.harness_url)
        table = f"{shop}/table-1.html"

        page = signed_in.run(ReadPage.Input(url=table)).text
        rendered = signed_in.run(ReadPage.Input(url=table, render=True)).text
        without = signed_out.run(ReadPage.Input(url=table)).text

        assert "Signed in as alice" in page and "Anvil" in page
        assert "Signed in as alice" in rendered and "Anvil" in rendered
        assert "Sign in" in without and "Anvil" not in without
        assert [c.name for c in sandbox_cookies(box)] == ["session"]  # the planted link reads nothing
        assert hashlib.sha256(box.read_file(database)).hexdigest() == before


def test_the_cookie_header_holds_what_a_browser_would_send():
    cookies = [
        Cookie("shop.test", "session", "a", "/", False, True, None),
        Cookie(".shop.test", "lang", "en", "/", False, False, time.time() + 60),
        Cookie("shop.test", "admin", "b", "/admin", False, False, None),
        Cookie("shop.test", "token", "c", "/", True, False, None),
        Cookie("shop.test", "old", "d", "/", False, False, time.time() - 60),
        Cookie("other.test", "elsewhere", "e", "/", False, False, None),
    ]
    assert cookie_header(cookies, "http://shop.test:8080/orders") == "session=a; lang=en"
    assert cookie_header(cookies, "https://www.shop.test/admin/x") == "lang=en"  # host-only ones stay
    assert cookie_header(cookies, "https://shop.test/admin/x") == "admin=b; session=a; lang=en; token=c"
    assert cookie_header(cookies, "http://shop.test/administrator") == "session=a; lang=en"
