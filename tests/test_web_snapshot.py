"""Snapshot tests of the DOM-to-markdown observation, against real Chromium."""

from __future__ import annotations

import re

import pytest

from stateact.kernel.context.processors import run_processors
from stateact.kernel.messages import Message, TextBlock, ToolResultBlock
from stateact.subagents import settings
from stateact.subagents.browser import WebActionError
from stateact.subagents.dom_markdown import OBSERVATION_MARK, cap_around_viewport, find_lines, render_page
from stateact.subagents.web import web_processors
from stateact.subagents.web_tools import _match_option
from tests.support.web_site import browser_session, serve_site

APP_FIXTURES = frozenset({"session"})
"""The fixtures here that start a real application: their tests are marked `apps`."""

LOGIN_MARKDOWN = (
    "# Sign in\n\n"
    'User name [1]<input type=text name="user" placeholder="alice" value=""> '
    'Password [2]<input type=password name="password" value=""> '
    '[3]<input type=checkbox name="remember"> Remember me [4]<button> Sign in'
)

WIDGETS_MARKDOWN = (
    "# Tools\n\n"
    "[1] [Open the help center](/help.html)\n\n"
    'Shipping [2]<select name="shipping" selected="Standard" options=["Standard","Express","Pick-up"]>\n\n'
    "Colour:\n\n"
    "[3]<div> Choose a colour\n\n"
    "No colour chosen.\n\n"
    "[4]<button> Save preferences\n\n"
    "[5] [Download the stock report](/report.csv)"
)


@pytest.fixture(scope="module")
def site():
    with serve_site() as base:
        yield base


@pytest.fixture
def session(tmp_path):
    with browser_session(tmp_path) as started:
        yield started


def test_login_form_snapshot(session, site):
    session.page.goto(f"{site}/login.html")
    snap = session.snapshot()
    assert snap.markdown == LOGIN_MARKDOWN
    assert (snap.indexed, snap.fresh, snap.title) == (4, 0, "Shop login")


def test_form_state_is_shown_and_password_masked(session, site):
    session.page.goto(f"{site}/login.html")
    session.snapshot()
    session.element(1).fill("alice")
    session.element(2).fill("secret")
    session.element(3).check()
    text = session.snapshot().markdown
    assert '[1]<input type=text name="user" placeholder="alice" value="alice">' in text
    assert '[2]<input type=password name="password" value="••••••">' in text
    assert "secret" not in text
    assert '[3]<input type=checkbox name="remember" checked>' in text


def test_indices_stay_stable_and_new_elements_are_marked(session, site):
    session.page.goto(f"{site}/widgets.html")
    assert session.snapshot().markdown == WIDGETS_MARKDOWN
    session.element(3).click()
    opened = session.snapshot()
    assert opened.fresh == 3
    assert "*[6]<div> Red\n\n*[7]<div> Green\n\n*[8]<div> Blue" in opened.markdown
    assert (
        opened.markdown.replace("*[6]<div> Red\n\n*[7]<div> Green\n\n*[8]<div> Blue\n\n", "")
        == WIDGETS_MARKDOWN
    )
    again = session.snapshot()
    assert again.fresh == 0 and "\n[6]<div> Red\n\n[7]<div> Green\n\n[8]<div> Blue" in again.markdown
    session.element(3).click()  # close the menu: its options are hidden, not gone
    assert "Red" not in session.snapshot().markdown
    session.element(3).click()  # reopen: the same elements keep their numbers and are not new
    reopened = session.snapshot()
    assert reopened.fresh == 0 and "\n[6]<div> Red\n\n[7]<div> Green\n\n[8]<div> Blue" in reopened.markdown


def test_select_state_follows_the_choice(session, site):
    session.page.goto(f"{site}/widgets.html")
    session.snapshot()
    session.element(2).select_option(value="exp")
    assert 'selected="Express"' in session.snapshot().markdown


def test_new_document_starts_unmarked_with_fresh_numbers(session, site):
    session.page.goto(f"{site}/widgets.html")
    session.snapshot()
    session.page.goto(f"{site}/login.html")
    snap = session.snapshot()
    assert snap.fresh == 0 and "*[" not in snap.markdown
    assert "[6]<input type=text" in snap.markdown  # numbers are never reused within a session


def test_stale_hidden_and_unknown_indices_are_clear_errors(session, site):
    session.page.goto(f"{site}/widgets.html")
    session.snapshot()
    session.element(3).click()
    session.snapshot()
    session.element(6).click()  # picks Red and closes the menu
    with pytest.raises(WebActionError, match=r"\[7\] is on the page but hidden"):
        session.element(7)
    session.page.goto(f"{site}/login.html")
    session.snapshot()
    with pytest.raises(WebActionError, match=r"\[3\] is no longer on this page"):
        session.element(3)
    with pytest.raises(WebActionError, match=r"There is no element \[999\]"):
        session.element(999)


def test_viewport_lines_and_cap_keep_the_viewport_in_view(session):
    paragraphs = "".join(f"<p>Paragraph {i:03d} of the long page.</p>" for i in range(400))
    session.page.set_content(f"<h1>Long</h1>{paragraphs}<button>Bottom button</button>")
    session.page.evaluate("window.scrollTo(0, 6000)")
    snap = session.snapshot()
    assert snap.scroll_y == 6000 and snap.above == 6000 and snap.below > 0
    lines = snap.markdown.splitlines()
    top = next(
        i for i, line in enumerate(lines) if line.startswith("── viewport starts here (6000 px above)")
    )
    bottom = next(i for i, line in enumerate(lines) if line.startswith("── viewport ends here ("))
    assert top < bottom
    first_visible = int(lines[top + 1].split()[1])
    assert session.page.evaluate(
        f"[...document.querySelectorAll('p')][{first_visible}].getBoundingClientRect().bottom > 0"
    )
    assert session.page.evaluate(
        f"[...document.querySelectorAll('p')][{first_visible - 1}].getBoundingClientRect().bottom <= 0"
    )
    shown = render_page(snap, cap=2_000)
    assert "viewport starts here" in shown
    assert "characters above not shown" in shown and "characters below not shown" in shown
    assert "Paragraph 000" not in shown and "Bottom button" not in shown
    assert shown.startswith(f"{OBSERVATION_MARK} (untitled) — about:blank ===\nViewport 1280x800 at y=6000")


def test_find_searches_past_the_cap(session):
    paragraphs = "".join(f"<p>Paragraph {i:03d} of the long page.</p>" for i in range(3000))
    session.page.set_content(f"{paragraphs}<p>Order number: ZX-9912</p><a href='/x'>Order details</a>")
    snap = session.snapshot()
    assert len(snap.markdown) > settings.WEB_OBSERVATION_CAP_CHARS
    assert "ZX-9912" not in render_page(snap)
    found = find_lines(snap.markdown, "order")
    assert found.startswith("2 matching lines for 'order'")
    assert "Order number: ZX-9912" in found and "[1] [Order details](/x)" in found
    assert "No match" in find_lines(snap.markdown, "nothing like this")
    many = find_lines(snap.markdown, r"Paragraph \d+", regex=True, cap=500)
    assert "3000 matching lines" in many and "not shown" in many and len(many) < 800


def test_frames_and_shadow_dom_are_serialized_and_clickable(session):
    session.page.set_content(
        """<h1>Host</h1>
        <iframe srcdoc="<p>Inside the frame</p><button onclick='this.textContent=&quot;Pressed&quot;'>Frame button</button>"></iframe>
        <div id="host"></div>
        <script>
          const root = document.getElementById('host').attachShadow({mode: 'open'});
          root.innerHTML = '<p>Shadow text</p><button>Shadow button</button>';
        </script>"""
    )
    session.page.wait_for_function("document.querySelector('iframe').contentDocument.body?.innerText")
    text = session.snapshot().markdown
    assert "Inside the frame" in text and "[1]<button> Frame button" in text
    assert "Shadow text" in text and "[2]<button> Shadow button" in text
    session.element(1).click()
    assert "[1]<button> Pressed" in session.snapshot().markdown


def test_other_origin_frames_are_serialized_in_place_and_clickable(session, site):
    other_origin = site.replace("127.0.0.1", "localhost")
    session.page.goto(f"{site}/help.html")
    session.page.set_content(
        f"<h1>Checkout</h1><iframe src='{other_origin}/widgets.html' width=900 height=600></iframe><p>After</p>"
    )
    frame = session.page.frame_locator("iframe")
    frame.get_by_text("Save preferences").wait_for()
    snap = session.snapshot()
    text = snap.markdown
    assert text.index("# Checkout") < text.index("# Tools") < text.index("[4]<button> Save preferences")
    assert text.index("[5] [Download the stock report]") < text.index("After")
    assert snap.indexed == 5
    assert session.page.locator("iframe").get_attribute("data-stateact-frame")  # read as another origin
    session.element(3).click()  # the custom dropdown inside the frame
    assert "*[6]<div> Red" in session.snapshot().markdown
    assert session.snapshot().markdown.count("# Tools") == 1


def test_slotted_content_of_custom_elements_and_hint_only_clickables(session):
    session.page.set_content(
        """<script>
          customElements.define('x-card', class extends HTMLElement {
            constructor() {
              super();
              this.attachShadow({mode: 'open'}).innerHTML =
                '<div><h2><slot name="title"></slot></h2><slot></slot><div style="cursor:pointer">More</div></div>';
            }
          });
        </script>
        <x-card><span slot="title">Card title</span><p>Card body</p><button>Act</button></x-card>
        <button><div style="cursor:pointer">Inner text</div></button>"""
    )
    assert session.snapshot().markdown == (
        "## Card title\n\nCard body\n\n[1]<button> Act\n\n[2]<div> More\n\n[3]<button> Inner text"
    )


def test_chrome_settings_pages_are_readable(session):
    session.page.goto("chrome://settings/search")
    session.page.get_by_text("Manage search engines").first.wait_for()
    text = session.snapshot().markdown
    assert "## Search engine" in text
    assert re.search(r"\[\d+\] \[Search engine\]\(/search\)", text)
    assert re.search(r"\[\d+\]<input type=search", text)


def test_cap_is_cut_at_line_ends_and_short_text_is_untouched():
    text = "\n".join(f"line {i}" for i in range(1000))
    assert cap_around_viewport("short", 100) == "short"
    capped = cap_around_viewport(text, 200)
    body = capped.split("\n", 1)[0]
    assert body.startswith("line 0") and capped.endswith(
        "characters below not shown: scroll down or use find …]"
    )
    assert all(line.startswith(("line ", "[…")) for line in capped.splitlines())


def test_option_matching():
    options = [["Standard", "std"], ["Express", "exp"], ["Pick-up", "pick"]]
    assert _match_option("Express", options) == "exp"
    assert _match_option("pick", options) == "pick"
    assert _match_option("express", options) == "exp"
    assert _match_option("Stand", options) == "std"
    assert _match_option("p", options) is None  # ambiguous part
    assert _match_option("Overnight", options) is None


def test_older_observations_shrink_to_their_header_a_chunk_at_a_time():
    def observation(n: int) -> str:
        return f"Clicked [{n}].\n\n{OBSERVATION_MARK} Page {n} — http://x/{n} ===\nViewport ...\n\nbody {n}"

    def trimmed(n: int) -> str:
        return f"Clicked [{n}].\n\n{OBSERVATION_MARK} Page {n} — http://x/{n} ===\n(older page view omitted)"

    messages = [Message(role="user", content=[TextBlock(text="Subgoal\n\n" + observation(0))])]
    for n in range(1, 6):
        messages.append(Message(role="assistant", content=[TextBlock(text=f"step {n}")]))
        result = ToolResultBlock(tool_use_id=f"t{n}", content=[TextBlock(text=observation(n))])
        messages.append(Message(role="user", content=[result]))

    def shown(count: int) -> list[str]:
        view = run_processors(web_processors(keep=2, chunk=3), messages[: 2 * count - 1])
        return [
            m.content[0].text if i == 0 else m.content[0].text()
            for i, m in enumerate(view)
            if m.role == "user"
        ]

    assert shown(4) == ["Subgoal\n\n" + observation(0), *(observation(n) for n in range(1, 4))]
    assert shown(5) == ["Subgoal\n\n" + trimmed(0), trimmed(1), trimmed(2), observation(3), observation(4)]
    assert shown(6)[:3] == shown(5)[:3] and shown(6)[3:] == [observation(3), observation(4), observation(5)]
    assert messages[0].content[0].text.endswith("body 0")  # the history itself is untouched

    batch = [
        ToolResultBlock(tool_use_id=f"b{n}", content=[TextBlock(text=observation(n))]) for n in (6, 7, 8)
    ]
    view = run_processors(web_processors(keep=2, chunk=3), [*messages, Message(role="user", content=batch)])
    assert [block.text() for block in view[-1].content] == [observation(n) for n in (6, 7, 8)]
