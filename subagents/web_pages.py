"""The pages the web subagent saw, kept in the run folder as evidence the finish gate may read.

Layout of `runs/<id>/web_pages/`: `NNN.md` (a header with the URL, title, time and the
delegation's scope, then the page's whole markdown as the subagent's observations were cut
from) and `index.jsonl` (one line per saved page). A page is saved again only when its text
changed; scrolling alone does not change it. Each save is a `web_page_saved` event.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

from pydantic import BaseModel

from stateact.kernel.runlog import RunLog
from stateact.subagents.dom_markdown import VIEWPORT_LINE, PageSnapshot
from stateact.subagents.events import WebPageSaved, WebPageSaveError

PAGES_DIR = "web_pages"
INDEX_NAME = "index.jsonl"


class SavedPage(BaseModel):
    """One line of the index."""

    number: int
    url: str
    title: str
    saved_at: str
    scope: str
    chars: int
    file: str
    sha256: str


class WebPageLog:
    """Saves each distinct page the web subagent observes; `scope` names the current delegation."""

    def __init__(self, log: RunLog) -> None:
        self.log = log
        self.dir = log.run_dir / PAGES_DIR
        self.scope = "web"
        existing = saved_pages(log.run_dir)
        self._seen = {page.sha256 for page in existing}
        self._count = len(existing)
        self._lock = threading.Lock()

    def record(self, snapshot: PageSnapshot) -> SavedPage | None:
        """Save the page unless it is blank or the same URL with the same text is saved already.

        A disk error is logged, never raised: browsing goes on."""
        if snapshot.url == "about:blank":
            return None
        text = VIEWPORT_LINE.sub("", snapshot.markdown)
        digest = hashlib.sha256(f"{snapshot.url}\n{text}".encode()).hexdigest()
        with self._lock:
            if digest in self._seen:
                return None
            number = self._count + 1
            page = SavedPage(
                number=number,
                url=snapshot.url,
                title=snapshot.title,
                saved_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                scope=self.scope,
                chars=len(text),
                file=f"{PAGES_DIR}/{number:03d}.md",
                sha256=digest,
            )
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
                (self.log.run_dir / page.file).write_text(_page_file(page, text), encoding="utf-8")
                with (self.dir / INDEX_NAME).open("a", encoding="utf-8") as index:
                    index.write(page.model_dump_json() + "\n")
            except OSError as exc:
                self.log.emit(WebPageSaveError(scope=self.scope, url=snapshot.url, error=str(exc)))
                return None
            self._seen.add(digest)
            self._count = number
        self.log.emit(WebPageSaved(scope=self.scope, **page.model_dump(exclude={"sha256", "scope"})))
        return page


def _page_file(page: SavedPage, text: str) -> str:
    header = [
        f"# Web page {page.number:03d}",
        f"URL: {page.url}",
        f"Title: {page.title or '(untitled)'}",
        f"Saved: {page.saved_at} by {page.scope}",
        "",
        "---",
        "",
    ]
    return "\n".join(header) + text + "\n"


def saved_pages(run_dir: Path) -> list[SavedPage]:
    """The index of a run's saved pages, oldest first (empty when the web subagent saw none)."""
    index = Path(run_dir) / PAGES_DIR / INDEX_NAME
    if not index.exists():
        return []
    pages = []
    for line in index.read_text(encoding="utf-8").splitlines():
        try:
            pages.append(SavedPage.model_validate(json.loads(line)))
        except ValueError:
            continue  # a line torn by a crash
    return pages


def read_saved_page(run_dir: Path, number: int) -> str:
    """The saved file of page `number`; KeyError when the run has no such page."""
    for page in saved_pages(run_dir):
        if page.number == number:
            return (Path(run_dir) / page.file).read_text(encoding="utf-8")
    raise KeyError(number)
