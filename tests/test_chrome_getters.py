"""Chrome's getters, metrics and setup steps on a real Chromium started by the sandbox's `google-chrome`.

The browser runs headless in a local sandbox (its profile in the sandbox's ~/.config/google-chrome),
serving DevTools on a free loopback port that the sandbox names as its `cdp_port`, or, for the tests
that take `sandbox`, also in an OSWorld VM (the server double, or the real server at OSWORLD_SERVER_URL)
started through the server as OSWorld's tasks start it; pages come from a local HTTP server. Profile
getters read the files that Chromium itself wrote.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.chrome.history import EMPTY_HISTORY_URL
from stateact.evals.osworld.chrome.profile import PROFILE
from stateact.evals.osworld.chrome.websites import RecreationSite, recreation_page
from stateact.evals.osworld.getters import GetterContext, fetch
from stateact.evals.osworld.metrics import METRICS
from stateact.evals.osworld.setup import SetupContext, run_steps
from stateact.evals.osworld.task import Getter, Step, TaskError
from stateact.sandbox.base import Sandbox
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.toolkit import TOOLKIT_BIN
from tests.support.docker_stand_in import free_port
from tests.support.file_server import served_files
from tests.support.osworld_vm_server import vm_under_test

APP_FIXTURES = frozenset({"local_sandbox", "sandbox", "vm"})

PAGE_A = b"""<html><head><title>Page A</title></head><body>
<div class="price">10</div><div class="price">20</div><p class="city">Oslo</p>
<main><section><h1>Fjords</h1></section></main>
<label>Name</label><input id="name" value="  Ada  "></body></html>"""
PAGE_B = b"<html><head><title>Page B</title></head><body>b</body></html>"


@pytest.fixture(scope="module")
def site():
    with served_files({"/a.html": PAGE_A, "/b.html": PAGE_B}) as server:
        yield server


def wait_for_devtools(sandbox: LocalSandbox, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(sandbox.cdp_url() + "/json/version", timeout=2).raise_for_status()
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def start_chrome(sandbox: LocalSandbox) -> None:
    sandbox.launch(f"google-chrome --remote-debugging-port={sandbox.cdp_port} about:blank")
    wait_for_devtools(sandbox)


def quit_chrome(sandbox: LocalSandbox) -> None:
    """Chrome shut down as a user quits it, so it writes its profile's files."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(sandbox.cdp_url())
        browser.new_browser_cdp_session().send("Browser.close")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(sandbox.cdp_url() + "/json/version", timeout=1)
        except httpx.HTTPError:
            time.sleep(1)  # the last files are written as the process ends
            return
        time.sleep(0.2)
    raise AssertionError("Chrome did not quit")


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    """An OSWorld VM: the server double over a local desktop, or the real server at OSWORLD_SERVER_URL."""
    with vm_under_test(tmp_path_factory.mktemp("vm") / "home") as parts:
        yield parts[0]


@contextmanager
def chrome_in_vm(vm: Sandbox, tmp_path: Path) -> Iterator[Sandbox]:
    """Chrome started in the VM as OSWorld's chrome tasks start it, through the server's /setup/launch:
    `google-chrome` with a DevTools port, and socat forwarding the VM's `cdp_port` to it. Its profile
    starts empty, as a reverted VM's; it is quit (and socat stopped) afterwards."""
    chrome_port, vm.cdp_port = free_port(), free_port()
    vm.run("rm -rf ~/.config/google-chrome")
    launches = [
        f"google-chrome --remote-debugging-port={chrome_port} about:blank",
        f"socat tcp-listen:{vm.cdp_port},fork,reuseaddr,bind=127.0.0.1 tcp:localhost:{chrome_port}",
    ]
    steps(vm, tmp_path, *[("launch", {"command": command}) for command in launches])
    try:
        wait_for_devtools(vm)
        yield vm
    finally:
        with suppress(httpx.HTTPError, PlaywrightError):
            quit_chrome(vm)
        vm.run(f"pgrep -f '[s]ocat tcp-listen:{vm.cdp_port},' | xargs -r kill")


@contextmanager
def chrome_in_local_sandbox(home: Path) -> Iterator[LocalSandbox]:
    """Chrome (headless) in a fresh local sandbox."""
    box = LocalSandbox(home)
    box.cdp_port = free_port()
    box.start()
    try:
        start_chrome(box)
        yield box
    finally:
        box.close()


@pytest.fixture(params=["local", "vm"])
def sandbox(request, tmp_path):
    """Chrome in a local sandbox, or in an OSWorld VM over its DevTools."""
    if request.param == "vm":
        chrome = chrome_in_vm(request.getfixturevalue("vm"), tmp_path)
    else:
        chrome = chrome_in_local_sandbox(tmp_path / "home")
    with chrome as box:
        yield box


@pytest.fixture
def local_sandbox(tmp_path):
    """Chrome in a local sandbox, for getters whose VM form reads the address bar from the AT-SPI tree
    (Google Chrome's there; a VM with only Chromium has no such application in it)."""
    with chrome_in_local_sandbox(tmp_path / "home") as box:
        yield box


def context_of(sandbox: LocalSandbox, tmp_path: Path) -> GetterContext:
    return GetterContext(sandbox=sandbox, cache=FileCache(tmp_path / "cache"), work_dir=tmp_path / "scoring")


def get(kind: str, sandbox: LocalSandbox, tmp_path: Path, **params):
    return fetch(Getter(type=kind, **params), context_of(sandbox, tmp_path))


def steps(sandbox: Sandbox, tmp_path: Path, *items: tuple[str, dict]) -> list[dict]:
    context = SetupContext(cache=FileCache(tmp_path / "cache"))
    return run_steps([Step(type=kind, parameters=params) for kind, params in items], sandbox, context)


def test_google_chrome_is_chromium_with_chrome_s_profile(sandbox):
    usage = sandbox.run("google-chrome --help")
    assert usage.ok and usage.stdout.startswith("usage: google-chrome")
    assert sandbox.exists("~/.config/google-chrome/Default")


@pytest.mark.apps
def test_google_chrome_installed_twice_on_the_path_is_still_chromium(tmp_path):
    """Two copies of the toolkit on the PATH (a VM's uploaded one before the local one) do not pass the
    call back and forth."""
    for copy in ("uploaded", "local"):
        (tmp_path / copy).mkdir()
        shutil.copy2(TOOLKIT_BIN / "google-chrome", tmp_path / copy / "google-chrome")
    path = f"{tmp_path}/uploaded:{tmp_path}/local:/usr/bin:/bin"
    version = subprocess.run(
        ["google-chrome", "--version"],
        env={"PATH": path, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert version.returncode == 0 and version.stdout.startswith("Chromium"), version


def test_open_and_close_tabs_then_the_tab_getters(sandbox, site, tmp_path):
    a, b = site.url("/a.html"), site.url("/b.html")
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [a, b]}))
    tabs = get("open_tabs_info", sandbox, tmp_path)
    assert sorted(tabs, key=lambda tab: tab["url"]) == [
        {"title": "Page A", "url": a},
        {"title": "Page B", "url": b},
    ]
    assert METRICS["is_expected_tabs"](tabs, {"type": "url", "urls": [b, a]}) == 1.0
    record = steps(sandbox, tmp_path, ("chrome_close_tabs", {"urls_to_close": [b, "http://nowhere.test/"]}))
    assert record[0]["closed"] == [b]
    assert [tab["url"] for tab in get("open_tabs_info", sandbox, tmp_path)] == [a]
    assert (
        METRICS["is_expected_tabs"](get("open_tabs_info", sandbox, tmp_path), {"type": "url", "urls": [a, b]})
        == 0
    )


def test_active_tab_getters_follow_the_tab_in_front(local_sandbox, site, tmp_path):
    sandbox = local_sandbox
    a, b = site.url("/a.html"), site.url("/b.html")
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [b, a]}))
    address = a.removeprefix("http://")
    assert get("active_url_from_accessTree", sandbox, tmp_path) == "https://" + address
    assert get("active_url_from_accessTree", sandbox, tmp_path, goto_prefix="http://") == a
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(sandbox.cdp_url())
        next(page for page in browser.contexts[0].pages if page.url == b).bring_to_front()
        browser.close()
    info = get("active_tab_info", sandbox, tmp_path, goto_prefix="http://")
    assert info["title"] == "Page B" and info["url"] == b and "<body>b</body>" in info["content"]
    assert METRICS["is_expected_active_tab"](info, {"type": "url", "url": b}) == 1.0
    assert METRICS["is_expected_url_pattern_match"](info, {"expected": [r"/b\.html$"]}) == 1.0


def test_url_parts_and_page_elements(local_sandbox, site, tmp_path):
    sandbox = local_sandbox
    site.files["/a.html?from=OSL&to=BGN&when=today"] = PAGE_A
    query = site.url("/a.html?from=OSL&to=BGN&when=today")
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [query]}))
    parsed = get(
        "active_tab_url_parse",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        parse_keys=["from", "to", "when", "x"],
        replace={"when": "time"},
    )
    assert parsed == {"from": "OSL", "to": "BGN", "x": "", "time": "today"}
    dash = get(
        "url_dashPart",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        partIndex=-1,
        needDeleteId=True,
        returnType="json",
        key="page",
    )
    assert dash == {"page": "a.html"}
    found = get(
        "active_tab_html_parse",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        category="class",
        class_multiObject={"price": {"1": "second", "5": "sixth"}},
        class_singleObject={"city": "city"},
    )
    assert found == {"second": "20", "sixth": "", "city": "Oslo"}
    xpath = get(
        "active_tab_html_parse",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        category="xpath",
        xpathObject={"/html/body/main/section/h1": "title", "/html/body/nav": "none"},
    )
    assert xpath == {"title": "Fjords", "none": ""}
    typed = get(
        "active_tab_html_parse",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        category="input",
        inputObject={'//*[@id="name"]': "name"},
    )
    assert typed == {"name": "Ada"}
    with pytest.raises(Exception, match="class_multiObject_li"):
        get(
            "active_tab_html_parse",
            sandbox,
            tmp_path,
            goto_prefix="http://",
            category="class",
            class_multiObject_li={},
        )


def test_page_info_and_pdf(sandbox, site, tmp_path):
    page = get("page_info", sandbox, tmp_path, url=site.url("/a.html"))
    assert page["title"] == "Page A" and "Fjords" in page["content"]
    assert METRICS["is_added_to_steam_cart"](page, {"items": ["Oslo", "Fjords"]}) == 1.0
    pdf = get("pdf_from_url", sandbox, tmp_path, path=site.url("/a.html"), dest="a.pdf")
    assert Path(pdf).read_bytes().startswith(b"%PDF")


def test_profile_getters_read_what_chrome_wrote(sandbox, site, tmp_path):
    a = site.url("/a.html")
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [a]}))
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(sandbox.cdp_url())
        browser.contexts[0].pages[0].evaluate("document.cookie = 'seen=1; max-age=86400'")
        browser.close()
    quit_chrome(sandbox)
    history = get("history", sandbox, tmp_path, dest="history.sqlite")
    assert a in [row[0] for row in history]
    assert METRICS["check_history_deleted"](history, {"type": "keywords", "keywords": ["a.html"]}) == 0.0
    cookies = get("cookie_data", sandbox, tmp_path, dest="Cookies")
    assert [row[1] for row in cookies] == ["127.0.0.1"]
    assert METRICS["is_cookie_deleted"](cookies, {"type": "domains", "domains": ["127.0.0.1"]}) == 0.0
    # settings a user changes in chrome://settings, written into the files as Chrome keeps them
    preferences = json.loads(sandbox.read_file(f"{PROFILE}/Default/Preferences"))
    assert get("profile_name", sandbox, tmp_path) == preferences["profile"]["name"]
    assert get("chrome_font_size", sandbox, tmp_path)["default_font_size"] == 16
    preferences.update(enable_do_not_track=True, session={"restore_on_startup": 5})
    preferences.setdefault("webkit", {})["webprefs"] = {"default_font_size": 20}
    preferences["profile"]["default_content_setting_values"] = {"cookies": 4}
    sandbox.write_file(f"{PROFILE}/Default/Preferences", json.dumps(preferences).encode())
    assert get("enable_do_not_track", sandbox, tmp_path) == "true"
    assert get("new_startup_page", sandbox, tmp_path) == "true"
    assert get("data_delete_automacally", sandbox, tmp_path) == "true"
    assert get("enable_enhanced_safety_browsing", sandbox, tmp_path) == "false"
    assert get("default_search_engine", sandbox, tmp_path) == "Google"
    assert (
        METRICS["check_font_size"](get("chrome_font_size", sandbox, tmp_path), {"type": "value", "value": 20})
        == 1
    )
    local_state = json.loads(sandbox.read_file(f"{PROFILE}/Local State"))
    local_state.setdefault("browser", {})["enabled_labs_experiments"] = ["tab-groups@1"]
    sandbox.write_file(f"{PROFILE}/Local State", json.dumps(local_state).encode())
    flags = get("enabled_experiments", sandbox, tmp_path)
    assert METRICS["check_enabled_experiments"](flags, {"type": "names", "names": ["tab-groups"]}) == 1.0
    assert get("bookmarks", sandbox, tmp_path) == []
    sandbox.write_file(
        f"{PROFILE}/Default/Bookmarks",
        json.dumps(
            {
                "roots": {
                    "bookmark_bar": {"children": [{"name": "A", "type": "url", "url": a}], "type": "folder"}
                },
                "version": 1,
            }
        ).encode(),
    )
    marks = get("bookmarks", sandbox, tmp_path)
    assert METRICS["is_expected_bookmarks"](marks, {"type": "bookmark_bar_websites_urls", "urls": [a]}) == 1.0


def test_update_browse_history_adds_visits_to_an_empty_history(sandbox, site, tmp_path):
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [site.url("/b.html")]}))
    quit_chrome(sandbox)
    empty = tmp_path / "cache/history_empty.sqlite"
    empty.parent.mkdir(parents=True)
    empty.write_bytes(sandbox.read_file(f"{PROFILE}/Default/History"))
    with closing(sqlite3.connect(empty)) as connection:
        connection.execute("DELETE FROM visits")
        connection.execute("DELETE FROM urls")
        connection.commit()
    assert FileCache(tmp_path / "cache").resolve(EMPTY_HISTORY_URL) == empty
    visits = [
        {"url": "https://www.youtube.com/watch?v=1", "title": "Video", "visit_time_from_now_in_seconds": 60},
        {"url": "https://www.bbc.co.uk/", "title": "BBC", "visit_time_from_now_in_seconds": 600},
    ]
    steps(sandbox, tmp_path, ("update_browse_history", {"history": visits}))
    rows = get("history", sandbox, tmp_path, dest="history.sqlite")
    assert [row[:2] for row in rows] == [(v["url"], v["title"]) for v in visits]
    assert rows[0][2] > rows[1][2]
    assert METRICS["check_history_deleted"](rows, {"type": "keywords", "keywords": ["youtube"]}) == 0.0
    assert METRICS["check_history_deleted"](rows, {"type": "keywords", "keywords": ["cnn"]}) == 1.0


def test_no_browser_gives_osworld_s_empty_values(tmp_path):
    with LocalSandbox(tmp_path / "home") as box:
        box.cdp_port = free_port()
        assert get("active_url_from_accessTree", box, tmp_path) is None
        assert get("active_tab_info", box, tmp_path) is None
        assert get("history", box, tmp_path, dest="h.sqlite") is None
        assert get("enabled_experiments", box, tmp_path) == []
        assert get("enable_enhanced_safety_browsing", box, tmp_path) == "Google"


PROFILE_PAGE = b"""<html><head><title>Profile</title></head><body>
<div id="profile_name">Ada Lovelace</div>
<table id="stats"><tbody><tr><td>Citations</td><td>1843</td></tr><tr><td>h-index</td><td>12</td></tr></tbody></table>
<table><tbody id="papers"><tr><td class="title"><a href="/paper.html">Notes on the Engine</a></td></tr></tbody></table>
</body></html>"""
PAPER_PAGE = b"""<html><head><title>Paper</title></head><body>
<div id="links"><div><a href="https://archive.example/notes.pdf">[PDF]</a></div></div>
<h1 id="paper_title">Notes on the Engine</h1></body></html>"""
SEARCH_PAGE = b"""<html><head><title>Recreation</title></head><body>
<input id="hero-search-input"><button class="nav-search-button" onclick="search()">Search</button>
<div id="results"></div>
<script>function search() {
  if (document.getElementById('hero-search-input').value !== 'Diamond') return;
  document.getElementById('results').innerHTML =
    '<a class="search-result-highlight--success" href="/camp.html" target="_blank">Albion Basin</a>';
}</script></body></html>"""
CAMP_PAGE = b"""<html><head><title>Albion Basin</title></head><body>
<button class="next-available" onclick="next()">Next available</button>
<table><tr><th class="camp-sortable-column-header">Site</th><th class="camp-sortable-column-header">Loop</th>
<th class="camp-sortable-column-header">Jun 1</th><th class="camp-sortable-column-header">Jun 2</th></tr></table>
<script>function next() {
  const days = document.querySelectorAll('.camp-sortable-column-header');
  days[2].textContent = ' Jul 14 '; days[3].textContent = 'Jul 15';
}</script></body></html>"""
INSTANT = RecreationSite(search_settle_s=0, result_settle_s=0, button_settle_s=0, retry_s=0)


@pytest.fixture
def websites():
    pages = {
        "/profile.html": PROFILE_PAGE,
        "/paper.html": PAPER_PAGE,
        "/": SEARCH_PAGE,
        "/camp.html": CAMP_PAGE,
    }
    with served_files(pages) as server:
        yield server


def test_info_from_website_reads_the_page_and_the_pages_its_links_lead_to(sandbox, websites, tmp_path):
    url = websites.url("/profile.html")
    link = "#papers > tr:nth-child(1) > td.title > a"
    infos = [
        {"action": "inner_text", "selector": "#profile_name"},
        {"selector": "#stats > tbody > tr:nth-child(2) > td:nth-child(2)"},
        {"action": "attribute", "selector": link, "attribute": "href"},
        {"action": "click_and_inner_text", "selector": [link, "#paper_title"]},
        {
            "action": "click_and_attribute",
            "selector": [link, "#links > div:nth-child(1) > a"],
            "attribute": "href",
        },
        {"action": "inner_text", "selector": "#stats > tbody > tr:nth-child(1) > td:nth-child(2)"},
    ]
    found = get("info_from_website", sandbox, tmp_path, url=url, infos=infos, backups=["backup"])
    assert found == [
        "Ada Lovelace",
        "12",
        "/paper.html",
        "Notes on the Engine",
        "https://archive.example/notes.pdf",
        "1843",  # read after going back from the paper's page
    ]
    assert websites.url("/profile.html") not in [
        tab["url"] for tab in get("open_tabs_info", sandbox, tmp_path)
    ]
    missing = [{"action": "inner_text", "selector": "#profile_name"}, {"selector": "#affiliation"}]
    assert get("info_from_website", sandbox, tmp_path, url=url, infos=missing, backups=["A", "B"]) == [
        "A",
        "B",
    ]
    closed = f"http://127.0.0.1:{free_port()}/"
    assert get("info_from_website", sandbox, tmp_path, url=closed, infos=infos, backups=["C"]) == ["C"]
    with pytest.raises(TaskError, match="actions hover are not supported"):
        get("info_from_website", sandbox, tmp_path, url=url, infos=[{"action": "hover", "selector": "a"}])


def test_recreation_getter_searches_opens_the_result_and_reads_the_next_available_date(
    local_sandbox, websites, tmp_path
):
    sandbox = local_sandbox  # the agent's tab is read from the address bar (see local_sandbox)
    site = replace(INSTANT, start_urls=(websites.url("/"),))
    params = {"selector": "class", "class": "camp-sortable-column-header", "order": "2"}
    expected = recreation_page(params, context_of(sandbox, tmp_path), site)
    assert expected == {"expected": {"camp-sortable-column-header": "Jul 14"}}
    assert recreation_page({**params, "order": "9"}, context_of(sandbox, tmp_path), site) == {
        "expected": {"camp-sortable-column-header": "__EVALUATION_FAILED__"}
    }
    # the agent's tab, at the next available dates, scores against it as the corpus task scores
    steps(sandbox, tmp_path, ("chrome_open_tabs", {"urls_to_open": [websites.url("/camp.html")]}))
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(sandbox.cdp_url())
        next(p for p in browser.contexts[0].pages if p.url.endswith("/camp.html")).click(
            "button.next-available"
        )
        browser.close()
    found = get(
        "active_tab_html_parse",
        sandbox,
        tmp_path,
        goto_prefix="http://",
        category="class",
        class_singleObject={},
        class_multiObject={"camp-sortable-column-header": {"2": "camp-sortable-column-header"}},
    )
    assert METRICS["check_direct_json_object"](found, expected) == 1.0


def test_recreation_getter_reports_a_site_that_never_loads(sandbox, tmp_path):
    site = replace(INSTANT, start_urls=(f"http://127.0.0.1:{free_port()}/",))
    failed = recreation_page({"selector": "class", "class": "x"}, context_of(sandbox, tmp_path), site)
    assert failed["expected"]["error"] == "__EVALUATION_FAILED__"
    assert failed["expected"]["error_message"].startswith(
        "Failed after 3 attempts: none of http://127.0.0.1:"
    )
    assert METRICS["check_direct_json_object"]({"x": "Jul 14"}, failed) == 0.0
