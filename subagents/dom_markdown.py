"""The DOM as markdown: visible text, with interactive elements indexed like `[12]`.

`snapshot_page` runs `dom_snapshot.js` in the page. The script stamps each
interactive element with a persistent id attribute (so an index stays the same
across steps while the element lives; ids are never reused within a session),
marks elements first seen in this snapshot as new (`*[13]`), and emits
simplified HTML that markdownify turns into markdown. It walks open shadow
roots, slots and same-origin frames itself; each other-origin frame is
serialized by running the script in that frame, and spliced in where its
<iframe> stands. `render_page` adds the
header (title, URL, scroll position) and caps the text to a window around the
viewport; `find_lines` searches the whole markdown for the `find` action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdownify import MarkdownConverter
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page

from stateact.subagents import settings

ELEMENT_ATTRIBUTE = "data-stateact-id"
"""The attribute the snapshot script stamps on interactive elements."""
FRAME_ATTRIBUTE = "data-stateact-frame"
"""The attribute that names an other-origin <iframe> whose document is serialized separately."""
OBSERVATION_MARK = "=== page:"
"""First characters of every page observation (context management finds them by it)."""
VIEWPORT_LINE = re.compile(
    r"^── viewport (?:starts|ends) here \(\d+ px (?:above|below)\) ──\n?", re.MULTILINE
)
"""The lines `_place_viewport_lines` inserts (they move with scrolling, the page text does not)."""

_SCRIPT = (Path(__file__).parent / "dom_snapshot.js").read_text(encoding="utf-8")
_VIEW_TOP = "\ue000"
_VIEW_BOTTOM = "\ue001"
_FRAME_OPEN = "\ue002"
_FRAME_CLOSE = "\ue003"
_INNER_SPACES = re.compile(r"(?<=\S) {2,}")
_LEADING_INDEX_SPACE = re.compile(r"^ (?=\*?\[\d)")
_BLANK_RUNS = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class PageSnapshot:
    """One serialization of a page. `markdown` is the whole page, uncapped."""

    url: str
    title: str
    markdown: str
    indexed: int
    fresh: int
    truncated: bool
    scroll_y: int
    scroll_height: int
    viewport: tuple[int, int]
    next_id: int

    @property
    def above(self) -> int:
        return max(0, self.scroll_y)

    @property
    def below(self) -> int:
        return max(0, self.scroll_height - self.scroll_y - self.viewport[1])


class _PageConverter(MarkdownConverter):
    """markdownify plus the `<sa-i>` wrapper of an indexed element."""

    def convert_sa_i(self, el, text: str, parent_tags: set[str]) -> str:
        mark = ("*" if el.get("new") == "1" else "") + f"[{el.get('id')}]"
        body = " ".join(text.split()) if "_inline" in parent_tags else text.strip()
        return f" {mark}{el.get('d', '')}{' ' + body if body else ''} "


_CONVERTER = _PageConverter(
    heading_style="ATX", bullets="-", escape_asterisks=False, escape_underscores=False, escape_misc=False
)


def html_to_markdown(html: str) -> str:
    """Markdown of the serializer's simplified HTML, with blank-line runs collapsed."""
    lines, fenced = [], False
    for line in _CONVERTER.convert(html).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced:
            line = _INNER_SPACES.sub(" ", line).rstrip()
            line = _LEADING_INDEX_SPACE.sub("", line)
        lines.append(line)
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def snapshot_page(target: Page | Frame, next_id: int) -> PageSnapshot:
    """Serialize a page, its frames included; new elements get ids from `next_id` on."""
    raw = _serialize(target, next_id, viewport=True, depth=0)
    snapshot = PageSnapshot(
        url=raw["url"],
        title=raw["title"],
        markdown="",
        indexed=raw["indexed"],
        fresh=raw["fresh"],
        truncated=raw["truncated"],
        scroll_y=raw["scrollY"],
        scroll_height=raw["scrollHeight"],
        viewport=(raw["viewportWidth"], raw["viewportHeight"]),
        next_id=raw["nextId"],
    )
    markdown = _place_viewport_lines(html_to_markdown(raw["html"]), snapshot)
    return PageSnapshot(**{**snapshot.__dict__, "markdown": markdown})


def _serialize(target: Page | Frame, next_id: int, viewport: bool, depth: int) -> dict:
    """Run the snapshot script in one document, then put each other-origin frame in its placeholder."""
    raw = target.evaluate(
        _SCRIPT,
        {
            "attr": ELEMENT_ATTRIBUTE,
            "frameAttr": FRAME_ATTRIBUTE,
            "nextId": next_id,
            "maxElements": settings.WEB_MAX_ELEMENTS,
            "maxOptions": settings.WEB_MAX_SELECT_OPTIONS,
            "maxValue": settings.WEB_MAX_VALUE_CHARS,
            "maxUrl": settings.WEB_MAX_URL_CHARS,
            "top": _VIEW_TOP,
            "bottom": _VIEW_BOTTOM,
            "frameOpen": _FRAME_OPEN,
            "frameClose": _FRAME_CLOSE,
            "viewport": viewport,
        },
    )
    if not raw["frames"]:
        return raw
    children = _frames_by_key(target) if depth < settings.WEB_MAX_FRAME_DEPTH else {}
    for key in raw["frames"]:
        placeholder = f"{_FRAME_OPEN}{key}{_FRAME_CLOSE}"
        frame = children.get(key)
        try:
            if frame is None:
                raise PlaywrightError("not reachable")
            inner = _serialize(frame, raw["nextId"], viewport=False, depth=depth + 1)
        except PlaywrightError as exc:
            raw["html"] = raw["html"].replace(
                placeholder, f"[frame {key}: not read ({str(exc).splitlines()[0]})]"
            )
            continue
        raw["html"] = raw["html"].replace(placeholder, inner["html"])
        raw["nextId"] = inner["nextId"]
        for count in ("indexed", "fresh"):
            raw[count] += inner[count]
        raw["truncated"] = raw["truncated"] or inner["truncated"]
    return raw


def _frames_by_key(target: Page | Frame) -> dict[str, Frame]:
    """The frames below a document, by the key a snapshot script stamped on their <iframe> elements."""
    found = {}
    pending = list(getattr(target, "main_frame", target).child_frames)
    while pending:
        frame = pending.pop()
        pending.extend(frame.child_frames)
        try:
            key = frame.frame_element().get_attribute(FRAME_ATTRIBUTE)
        except PlaywrightError:
            continue
        if key:
            found[key] = frame
    return found


def _place_viewport_lines(markdown: str, snapshot: PageSnapshot) -> str:
    """Turn the viewport sentinels into lines of their own, placed before the line they fell in."""
    for sentinel, line in (
        (_VIEW_TOP, f"── viewport starts here ({snapshot.above} px above) ──"),
        (_VIEW_BOTTOM, f"── viewport ends here ({snapshot.below} px below) ──"),
    ):
        at = markdown.find(sentinel)
        if at < 0:
            continue
        start = markdown.rfind("\n", 0, at) + 1
        rest = markdown[at + 1 :]
        markdown = (
            f"{markdown[:start]}{line}\n{markdown[start:at]}{rest.lstrip(' ') if at == start else rest}"
        )
    return markdown


def render_page(
    snapshot: PageSnapshot, tabs_line: str = "", cap: int = settings.WEB_OBSERVATION_CAP_CHARS
) -> str:
    """The observation the model reads: a header, then the markdown capped around the viewport."""
    width, height = snapshot.viewport
    header = [
        f"{OBSERVATION_MARK} {snapshot.title or '(untitled)'} — {snapshot.url} ===",
        *([tabs_line] if tabs_line else []),
        f"Viewport {width}x{height} at y={snapshot.scroll_y} of {snapshot.scroll_height} px: "
        f"{snapshot.above} px above, {snapshot.below} px below. "
        f"{snapshot.indexed} interactive elements [n], {snapshot.fresh} new since the last look *[n].",
    ]
    if snapshot.truncated:
        header.append(
            f"(The page has more than {settings.WEB_MAX_ELEMENTS} elements; the rest is not shown.)"
        )
    return (
        "\n".join(header)
        + "\n\n"
        + (cap_around_viewport(snapshot.markdown, cap) or "(the page shows no text)")
    )


def cap_around_viewport(markdown: str, cap: int) -> str:
    """At most `cap` characters, cut at line ends, keeping the viewport in the window."""
    if len(markdown) <= cap:
        return markdown
    anchor = max(markdown.find("── viewport starts here"), 0)
    start = max(0, min(anchor - cap // 5, len(markdown) - cap))
    start = markdown.rfind("\n", 0, start) + 1 if start else 0
    end = markdown.rfind("\n", start, start + cap)
    end = start + cap if end <= start else end
    parts = []
    if start:
        parts.append(f"[… {start} characters above not shown: scroll up or use find …]")
    parts.append(markdown[start:end])
    if end < len(markdown):
        parts.append(f"[… {len(markdown) - end} characters below not shown: scroll down or use find …]")
    return "\n".join(parts)


def find_lines(
    markdown: str,
    query: str,
    regex: bool = False,
    context: int = settings.WEB_FIND_CONTEXT_LINES,
    cap: int = settings.WEB_FIND_CAP_CHARS,
) -> str:
    """Lines of the markdown matching `query` (case-insensitive), with `context` lines around each."""
    pattern = re.compile(query if regex else re.escape(query), re.IGNORECASE)
    lines = markdown.splitlines()
    hits = [i for i, line in enumerate(lines) if pattern.search(line)]
    if not hits:
        return f"No match for {query!r} in the page text ({len(lines)} lines)."
    shown: list[str] = []
    used = shown_hits = 0
    last = -1
    for hit in hits:
        window = [n for n in range(max(last + 1, hit - context), min(len(lines), hit + context + 1))]
        block = [
            f"{n + 1}: {_clip(lines[n], settings.WEB_FIND_LINE_CHARS)}" for n in window if lines[n].strip()
        ]
        size = sum(len(line) + 1 for line in block)
        if shown and used + size > cap:
            break
        if shown and window and window[0] > last + 1:
            shown.append("…")
        shown.extend(block)
        used += size
        shown_hits += 1
        last = window[-1] if window else last
    note = f"{len(hits)} matching lines for {query!r}"
    if shown_hits < len(hits):
        note += f"; {len(hits) - shown_hits} not shown (narrow the query)"
    return note + ":\n" + "\n".join(shown)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
