"""The live view: a page on loopback that follows runs' event logs as they grow and shows their display.

`stateact watch DIR` (and `run --watch`, `eval run --watch`) serves DIR: a run folder, or a folder that
holds run folders at any depth (a runs folder, a results folder). The page lists the runs found there,
follows the newest live one (a run whose folder has no result.json yet) unless another is picked, and
polls:

    GET /                               the page (watch_page.html)
    GET /api/runs                       [{id, live, display}], newest first
    GET /api/events?run=ID&from=BYTE    {rows, next, live, started, display, end, pending}: the log's whole lines
                                        from BYTE; `end` (once the run ended) its result.json's status, gate
                                        verdict, turns, dollars and seconds, and the task's score if scored;
                                        `pending` the question the run waits on for the person at its
                                        terminal ({number, question}), else null
    GET /api/screen?run=ID              a JPEG of the run's display (404: none is known; 503: it is gone)
    POST /api/answer                    {run, number, answer} (JSON): the answer to the question the run
                                        waits on (`pending` of /api/events); 409 when the terminal answered
                                        first (`stateact.app.answer_box`: a question is answered once)

A run's display is the one its last `run_start` event names: an Xvfb display of this machine; a run
whose `run_start` names none has no display pane. While it serves, the server's address is in DIR's
`watch.json` ({url, pid}). A server stopped as its run ends (`run --watch`) first waits, up to
`FINAL_READ_WAIT_S`, for the pages following that run to read its log to the end.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from stateact.app.answer_box import WATCH, AnswerBox, Answered
from stateact.app.progress import preview
from stateact.gate.events import GateVerdict
from stateact.kernel.events import (
    EventLogError,
    MessageEvent,
    PlanEvent,
    Response,
    RunStart,
    ToolCall,
    ToolResultEvent,
    UserAnswer,
    UserQuestion,
    parse_event,
)

LOOPBACK = "127.0.0.1"
EVENTS = "events.jsonl"
RESULT = "result.json"
ADDRESS_FILE = "watch.json"
PAGE = Path(__file__).with_name("watch_page.html")
ROW_CHARS = 600
"""How much of a tool's input or result, or a model's words, a row shows."""
MAX_READ_BYTES = 4 << 20
"""The most of a log one poll reads; the page asks again from where it stopped."""
SCREEN_QUALITY = 70
TASK_SCORE = "result.txt"
"""The score file of a task's results folder, whose run folder is its `run/` (evals/running/results.py)."""
TASK_RUN_FOLDER = "run"
ANSWERED_BY = {"terminal": "at the terminal", WATCH: "on the watch page"}
MAX_ANSWER_BYTES = 64 << 10
"""The largest answer request the server reads."""
FINAL_READ_WAIT_S = 3.0
"""How long a stopping server waits for following pages to read their run's log to the end."""
FOLLOWING_S = 2.0
"""A page that asked for a run's events this recently still follows it (the page asks every 0.7 s)."""


def run_row(event: Any) -> dict[str, Any]:
    """What the page shows of one event: kind, scope, a title, a text, and the dollars it cost."""
    row: dict[str, Any] = {"kind": event.kind, "scope": event.scope, "t": event.t, "title": event.kind}
    if isinstance(event, Response):
        tokens = sum(event.usage.model_dump().values())
        row.update(
            title=f"{event.role or event.scope} step {event.turn}", text=f"{tokens:,} tokens", usd=event.usd
        )
    elif isinstance(event, MessageEvent):
        row.update(title=event.message.role, text=preview(event.message.text(), ROW_CHARS))
    elif isinstance(event, ToolCall):
        row.update(title=event.name, text=preview(event.input, ROW_CHARS))
    elif isinstance(event, ToolResultEvent):
        row.update(title=f"{event.name} result", text=preview(event.text, ROW_CHARS), error=event.is_error)
    elif isinstance(event, GateVerdict):
        verdict = {True: "PASS", False: "FAIL", None: "undecided"}[event.passed]
        row.update(title=f"gate round {event.round}: {verdict}", text=preview(event.summary, ROW_CHARS))
        row["passed"] = event.passed
    elif isinstance(event, PlanEvent):
        row.update(title=f"plan {event.action}", items=event.items)
    elif isinstance(event, UserQuestion):
        row.update(title=f"question to the user ({event.answerer})", text=preview(event.question, ROW_CHARS))
    elif isinstance(event, UserAnswer):
        answer = event.answer if event.answer is not None else f"(no answer: {event.reason})"
        row.update(title=f"the user's answer ({event.answerer})", text=preview(answer, ROW_CHARS))
    else:
        row["text"] = preview(event.details(), ROW_CHARS)
    return row


@dataclass
class _Follower:
    """What is known of one run's log: how far it was read for its display, that display, and where and
    when a page last read it."""

    scanned: int = 0
    started: bool = False
    """Its `run_start` was read: `display` is known (None: the run has no display)."""
    display: str | None = None
    served: int = 0
    served_at: float = 0.0


def run_end(folder: Path) -> dict[str, Any] | None:
    """What an ended run's result.json says (status, gate verdict, turns, dollars, seconds), and the task's
    score when the run is a task's and it was scored; None while the run is live."""
    try:
        result = json.loads((folder / RESULT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(result, dict):
        return None
    end = {key: result.get(key) for key in ("status", "gate_passed", "turns", "usd", "seconds")}
    score = folder.parent / TASK_SCORE
    if folder.name == TASK_RUN_FOLDER and score.is_file():
        with suppress(OSError, ValueError):
            end["score"] = float(score.read_text().strip())
    return end


class RunFolders:
    """The run folders under a root, their logs read from a byte offset, and their displays."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._followers: dict[str, _Follower] = {}
        self._lock = threading.Lock()

    def runs(self) -> list[dict[str, Any]]:
        """The runs under the root, newest log first."""
        logs = [self.root / EVENTS] if (self.root / EVENTS).is_file() else list(self.root.rglob(EVENTS))
        logs.sort(key=lambda log: log.stat().st_mtime, reverse=True)
        return [
            {
                "id": self._id(log.parent),
                "live": not (log.parent / RESULT).exists(),
                "display": self.display(self._id(log.parent)),
            }
            for log in logs
        ]

    def _id(self, folder: Path) -> str:
        return folder.relative_to(self.root).as_posix()

    def folder(self, run_id: str) -> Path:
        """The run folder `run_id` names; KeyError unless it is a run under the root."""
        folder = (self.root / run_id).resolve()
        if not folder.is_relative_to(self.root) or not (folder / EVENTS).is_file():
            raise KeyError(run_id)
        return folder

    def events(self, run_id: str, start: int) -> dict[str, Any]:
        """The rows of the whole log lines from byte `start` on, and the byte the next read starts at."""
        folder = self.folder(run_id)
        with (folder / EVENTS).open("rb") as log:
            log.seek(start)
            chunk = log.read(MAX_READ_BYTES)
        whole = chunk[: chunk.rfind(b"\n") + 1]
        rows = []
        for line in whole.splitlines():
            try:
                rows.append(run_row(parse_event(json.loads(line), lenient=True)))
            except (ValueError, EventLogError):
                rows.append({"kind": "damaged", "scope": "", "title": "a damaged log line", "text": ""})
        end = run_end(folder)
        display = self.display(run_id)
        with self._lock:
            follower = self._followers[run_id]
            follower.served, follower.served_at = start + len(whole), time.monotonic()
            started = follower.started
        return {
            "rows": rows,
            "next": start + len(whole),
            "live": end is None,
            "started": started,
            "display": display,
            "end": end,
            "pending": AnswerBox(folder).pending() if end is None else None,
        }

    def answer(self, run_id: str, number: int, answer: str) -> Answered | None:
        """Give `answer` to the question `number` that run `run_id` waits on: None when it counts, else
        the answer given first; KeyError when the run waits on no such question."""
        box = AnswerBox(self.folder(run_id))
        pending = box.pending()
        if pending is None or pending["number"] != number:
            earlier = box.answer(number)
            if earlier is None:
                raise KeyError(number)
            return earlier
        return None if box.claim(number, answer, WATCH) else box.answer(number)

    def unread(self) -> list[str]:
        """The runs a page follows (it asked for events within FOLLOWING_S) and has not read to the end."""
        now = time.monotonic()
        with self._lock:
            following = {k: f.served for k, f in self._followers.items() if now - f.served_at < FOLLOWING_S}
        unread = []
        for run_id, served in following.items():
            folder = self.folder(run_id)
            if not (folder / RESULT).exists() or (folder / EVENTS).stat().st_size > served:
                unread.append(run_id)
        return unread

    def display(self, run_id: str) -> str | None:
        """The display the run's last `run_start` names (the log is read on from where it was last)."""
        path = self.folder(run_id) / EVENTS
        with self._lock:
            follower = self._followers.setdefault(run_id, _Follower())
            with path.open("rb") as log:
                log.seek(follower.scanned)
                chunk = log.read()
            whole = chunk[: chunk.rfind(b"\n") + 1]
            follower.scanned += len(whole)
            for line in whole.splitlines():
                if b'"run_start"' in line:
                    try:
                        event = parse_event(json.loads(line), lenient=True)
                    except (ValueError, EventLogError):
                        continue
                    if isinstance(event, RunStart):
                        follower.started, follower.display = True, event.display
            return follower.display


def grab_screen(display: str) -> bytes:
    """A JPEG of the X display `display`; OSError when it cannot be read (the display is gone)."""
    from PIL import ImageGrab

    image = ImageGrab.grab(xdisplay=display)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=SCREEN_QUALITY)
    return buffer.getvalue()


class _Handler(BaseHTTPRequestHandler):
    server: WatchServer

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        url = urlparse(self.path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        folders = self.server.folders
        try:
            if url.path == "/":
                self._send(HTTPStatus.OK, "text/html; charset=utf-8", PAGE.read_bytes())
            elif url.path == "/api/runs":
                self._json(folders.runs())
            elif url.path == "/api/events":
                self._json(folders.events(query.get("run", ""), max(0, int(query.get("from", "0")))))
            elif url.path == "/api/screen":
                self._screen(folders.display(query.get("run", "")))
            else:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"no such page")
        except KeyError:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"no such run")
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST, "text/plain", b"bad request")

    def do_POST(self) -> None:  # noqa: N802 (the http.server name)
        if urlparse(self.path).path != "/api/answer":
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"no such page")
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin.rstrip("/") != self.server.url.rstrip("/"):
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"answers come from the watch page itself")
            return
        try:
            length = int(self.headers.get("Content-Length", "0"))
            if self.headers.get_content_type() != "application/json" or not 0 < length <= MAX_ANSWER_BYTES:
                raise ValueError("a JSON body of at most 64 KiB")
            body = json.loads(self.rfile.read(length))
            run, number, answer = str(body["run"]), int(body["number"]), str(body["answer"]).strip()
            if not answer:
                raise ValueError("an empty answer")
            earlier = self.server.folders.answer(run, number, answer)
        except KeyError:
            self._json({"error": "the run waits on no such question"}, HTTPStatus.NOT_FOUND)
            return
        except (ValueError, TypeError) as exc:
            self._json({"error": f"bad answer: {exc}"}, HTTPStatus.BAD_REQUEST)
            return
        if earlier is not None:
            self._json(
                {
                    "error": f"answered already, {ANSWERED_BY.get(earlier.by, earlier.by)}",
                    "answer": earlier.answer,
                },
                HTTPStatus.CONFLICT,
            )
            return
        self._json({"answered": True})

    def _screen(self, display: str | None) -> None:
        if not display:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"the run has no display on this machine")
            return
        try:
            picture = grab_screen(display)
        except OSError as exc:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, "text/plain", f"display {display}: {exc}".encode())
            return
        self._send(HTTPStatus.OK, "image/jpeg", picture)

    def _json(self, value: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, "application/json", json.dumps(value, default=str).encode())

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the http.server name)
        """Requests are not logged: the page polls every second."""


class WatchServer(ThreadingHTTPServer):
    """The live view of the runs under `root`, on loopback; `start` serves it from a thread, `stop` ends
    it. Port 0 takes a free port (`url` says which)."""

    daemon_threads = True

    def __init__(self, root: Path, port: int = 0) -> None:
        super().__init__((LOOPBACK, port), _Handler)
        self.folders = RunFolders(root)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}/"

    def start(self) -> WatchServer:
        """Serve from a thread, and write the address into the root's `watch.json`."""
        self.folders.root.mkdir(parents=True, exist_ok=True)
        address = {"url": self.url, "pid": os.getpid()}
        (self.folders.root / ADDRESS_FILE).write_text(json.dumps(address), encoding="utf-8")
        self._thread = threading.Thread(target=self.serve_forever, name="stateact-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (once the pages that follow a run have read its log to the end, or after
        FINAL_READ_WAIT_S), close the socket and remove `watch.json`; safe to call twice."""
        if self._thread is not None:
            deadline = time.monotonic() + FINAL_READ_WAIT_S
            while self.folders.unread() and time.monotonic() < deadline:
                time.sleep(0.1)
            self.shutdown()
            self._thread.join()
            self._thread = None
            (self.folders.root / ADDRESS_FILE).unlink(missing_ok=True)
        self.server_close()

    def __enter__(self) -> WatchServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def live_view(folder: Path, serve: bool, say: Callable[[str], None]) -> Iterator[None]:
    """With `serve`, the live view of `folder` while the block runs, its address told to `say` first;
    without, `say` is told the command that shows it."""
    if not serve:
        say(f"follow it live: stateact watch {folder}")
        yield
        return
    with WatchServer(folder) as server:
        say(f"watch it live: {server.url} (serving {folder})")
        yield
