"""Running a task's setup steps (`config`, and the evaluator's `postconfig`) on any Sandbox.

Each step works through the Sandbox contract only (commands, files, launch),
so the same task runs on a LocalSandbox (its Xvfb display) and on an OSWorld
VM. A `shell: true` command runs under `/bin/sh`, as OSWorld's VM server runs it. What OSWorld
tolerates is recorded with `failed` and the task goes on, its result marked setup-degraded: a command
exiting non-zero or timing out (a `grep` that finds nothing), a window to activate or close that is not
there (the agent closed the app before postconfig). What says that the machine cannot run the task
raises SetupError naming the step, on a local sandbox: a command that is not found or cannot be run
here (exit 126 or 127, `lacks`). A step that cannot be done at all (a file neither cached nor
downloadable, a window that never opens, an unknown step type) raises SetupError everywhere.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote
from typing import Any

from playwright.sync_api import Browser
from playwright.sync_api import Error as PlaywrightError

from stateact.evals import settings
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.chrome.devtools import (
    CONNECT_ATTEMPTS,
    PAGE_TIMEOUT_MS,
    ChromeUnreachable,
    attached,
)
from stateact.evals.osworld.chrome.history import (
    EMPTY_HISTORY_NAME,
    EMPTY_HISTORY_URL,
    HISTORY_PATH,
    with_visits,
)
from stateact.evals.osworld.mail import MailError, build_message, deliver
from stateact.evals.osworld.metrics.chrome import same_url
from stateact.evals.osworld.setup_files import SetupFiles
from stateact.evals.osworld.task import Step
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.settings import HARNESS_TMP_PREFIX

CLIENT_PASSWORD = "password"
"""What OSWorld's `{CLIENT_PASSWORD}` placeholder stands for (the VM user's password)."""


class SetupError(RuntimeError):
    """A setup step could not be done (its message names the step), or the task needs a VM."""

    what = "task setup"


@dataclass
class SetupContext:
    """What steps need besides the sandbox: the download cache and the task file's folder."""

    cache: FileCache
    task_dir: Path = Path(".")
    records: list[dict[str, Any]] = field(default_factory=list)
    """One entry per step run: type, and what happened (return codes, outputs, `failed`)."""
    output_dir: Path | None = None
    """Where an `execute` step's `stdout`/`stderr` files go (the scoring folder, for `cache_file`)."""
    stage: str = "setup"
    """What the steps are (`setup`, `postconfig`): errors name it."""
    files: SetupFiles | None = None
    """Where the files the steps place or create are recorded for a resume (None: not recorded)."""

    def placed(self, sandbox: Sandbox, step: str, path: str, data: bytes) -> None:
        """Write `data` at `path` in the sandbox, recorded as placed by `step`."""
        sandbox.write_file(path, data)
        if self.files is not None:
            self.files.placed(sandbox, step, path, data)

    def watching(self, sandbox: Sandbox, step: str, command: str) -> contextlib.AbstractContextManager[None]:
        """Record what the body (a command step running `command`) creates, changes or removes."""
        if self.files is None:
            return contextlib.nullcontext()
        running = any(record["type"] in PROGRAM_STARTS for record in self.records)
        return self.files.watching(sandbox, step, command, running)


PROGRAM_STARTS = frozenset({"launch", "open", "chrome_open_tabs"})
"""Steps after which a program of the setup may be running (and removing the files it reads)."""
StepHandler = Callable[[Sandbox, dict[str, Any], SetupContext], dict[str, Any]]


def run_steps(steps: list[Step], sandbox: Sandbox, context: SetupContext) -> list[dict[str, Any]]:
    """Run steps in order; returns their records (also appended to `context.records`)."""
    done = []
    for index, step in enumerate(steps):
        handler = STEP_HANDLERS.get(step.type)
        if handler is None:
            raise SetupError(
                f"step {index + 1}: unsupported setup step type {step.type!r}; "
                f"supported: {', '.join(sorted(STEP_HANDLERS))}"
            )
        record = {"type": step.type, **handler(sandbox, step.parameters, context)}
        context.records.append(record)
        done.append(record)
        if record.get("lacks") and not sandbox.full_system:
            raise SetupError(
                f"{context.stage} step {index + 1}: this machine lacks what it runs: {record['failed']}"
            )
    return done


def degraded_steps(records: list[dict[str, Any]]) -> list[str]:
    """What failed among the recorded steps (empty when the start state is the task's)."""
    return [f"{record['type']}: {record['failed']}" for record in records if record.get("failed")]


def step_command(params: dict[str, Any], sandbox: Sandbox) -> str:
    """The command of an `execute` step or `vm_command_line` getter as `Sandbox.run` takes it: under
    `/bin/sh` when `shell` is true (OSWorld's VM server runs those with `shell=True`)."""
    text = command_text(params.get("command", ""), sandbox)
    return f"/bin/sh -c {quote(text)}" if params.get("shell") else text


def command_text(command: str | list[str], sandbox: Sandbox | None = None) -> str:
    """A step's command as one shell string, with OSWorld's placeholders filled in. A list's arguments
    are quoted, except that a leading `~/` stays bare so the shell expands it to the home folder, as the
    VM server expands it."""
    if isinstance(command, str):
        text = command
    else:
        parts = [str(part) for part in command]
        text = " ".join("~/" + quote(p[2:]) if p.startswith("~/") else quote(p) for p in parts)
    if "{SCREEN_" in text and sandbox is not None:
        width, height = sandbox.screen_size()
        for name, value in (
            ("{SCREEN_WIDTH_HALF}", width // 2),
            ("{SCREEN_HEIGHT_HALF}", height // 2),
            ("{SCREEN_WIDTH}", width),
            ("{SCREEN_HEIGHT}", height),
        ):
            text = text.replace(name, str(value))
    return text.replace("{CLIENT_PASSWORD}", CLIENT_PASSWORD)


# -- step handlers ---------------------------------------------------------------------
def _download(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    placed = []
    for item in params.get("files", []):
        url, path = item.get("url", ""), item.get("path", "")
        if not url or not path:
            raise SetupError(f"download: each file needs `url` and `path`, got {item}")
        try:
            data = context.cache.read(url, path)
        except FileNotFoundError as exc:
            raise SetupError(f"download of {Path(path).name}: {exc}") from exc
        context.placed(sandbox, "download", path, data)
        placed.append(path)
    return {"files": placed}


def _upload_file(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    placed = []
    for item in params.get("files", []):
        path = item.get("path", "")
        context.placed(
            sandbox, "upload_file", path, _local_file(item.get("local_path", ""), context, "upload_file")
        )
        placed.append(path)
    return {"files": placed}


def _local_file(local: str, context: SetupContext, step: str) -> bytes:
    """The bytes of a step's local file: a path, else relative to the task's folder, else in the cache."""
    source = Path(local) if Path(local).is_absolute() else context.task_dir / local
    if not source.is_file():
        source = context.cache.root / Path(local).name
    if not local or not source.is_file():
        raise SetupError(f"{step}: no local file {local!r} (looked in {context.task_dir} and the cache)")
    return source.read_bytes()


def _deliver_mail(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    attachments = [
        (
            item.get("name") or Path(item.get("local_path", "")).name,
            _local_file(item.get("local_path", ""), context, "deliver_mail"),
        )
        for item in params.get("attachments", [])
    ]
    try:
        message = build_message(params, attachments)
    except MailError as exc:
        raise SetupError(str(exc)) from None
    delivered = deliver(sandbox, params["mailbox"], params.get("format", "maildir"), message)
    record = {"mailbox": params["mailbox"], "subject": params["subject"], "message_id": message["Message-ID"]}
    return record if delivered else {**record, "held_already": True}


LAUNCH_LOGS = f"/tmp/{HARNESS_TMP_PREFIX}launch"
"""Where a local sandbox's launched programs leave the tail of their output and their exit status."""
EXIT_MARK = "[stateact: exited "


def _launch(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    command = command_text(params.get("command", ""), sandbox)
    if not command.strip():
        raise SetupError("launch: no command")
    if sandbox.full_system:  # a VM's own launch: nothing of it is read back
        sandbox.launch(command)
        return {"command": command}
    log = f"{LAUNCH_LOGS}/{len(context.records) + 1}-{secrets.token_hex(4)}.log"
    sandbox.launch(logged(command, log))
    return {"command": command, "log": log}


def logged(command: str, log: str) -> str:
    """`command` run by bash, the tail of its output and then its exit status written to `log` once it
    ends (the file is empty while it runs)."""
    tail = settings.LAUNCH_OUTPUT_TAIL_BYTES
    return (
        f"mkdir -p {quote(str(Path(log).parent))}; "
        f'{{ bash -c {quote(command)} </dev/null; status=$?; echo; echo "{EXIT_MARK}$status]"; }} 2>&1 '
        f"| tail -c {tail} > {quote(log)}"
    )


def launch_ending(sandbox: Sandbox, record: dict) -> str:
    """How a launched program ended, from its log: `exited N: <tail of its output>`; '' when it still
    runs or nothing was logged."""
    log = record.get("log")
    if not log:
        return ""
    try:
        text = sandbox.read_file(log).decode(errors="replace")
    except (OSError, SandboxError):
        return ""
    output, mark, status = text.rpartition(EXIT_MARK)
    if not mark:
        return ""
    tail = " ".join(output.split())[-settings.LAUNCH_OUTPUT_SHOWN_CHARS :] or "no output"
    return f"exited {status.strip().rstrip(']')}: {tail}"


def _execute(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    command = command_text(params.get("command", ""), sandbox)
    with context.watching(sandbox, "execute", command):
        result = sandbox.run(step_command(params, sandbox), timeout=settings.SETUP_COMMAND_TIMEOUT_S)
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if params.get(stream):
            if context.output_dir is None:
                raise SetupError(f"execute: `{stream}` names a file, but this step has no output folder")
            (context.output_dir / params[stream]).write_text(text)
    record = {"command": command, "returncode": result.returncode, "output": result.output[-2000:]}
    if not result.ok:
        tail = result.output.strip()[-300:] or "no output"
        record["failed"] = f"`{command}` exited {result.returncode}: {tail}"
        record["lacks"] = result.returncode in NOT_RUNNABLE
    return record


NOT_RUNNABLE = (126, 127)
"""Exit statuses of a shell that found no such program, or could not run it."""


def _sleep(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    seconds = float(params.get("seconds", 0))
    time.sleep(max(0.0, seconds))
    return {"seconds": seconds}


def window_titles(sandbox: Sandbox) -> list[str]:
    """Titles of the open windows (`wmctrl -l`)."""
    listing = sandbox.run("wmctrl -l", timeout=15).stdout
    return [line.split(None, 3)[3] if len(line.split(None, 3)) == 4 else "" for line in listing.splitlines()]


def wait_for_window(sandbox: Sandbox, fragment: str, timeout: float) -> str:
    """The first window title containing `fragment`, polled until `timeout`; raises SetupError."""
    deadline = time.monotonic() + timeout
    while True:
        titles = window_titles(sandbox)
        match = next((title for title in titles if fragment in title), None)
        if match is not None:
            return match
        if time.monotonic() >= deadline:
            shown = "; ".join(titles) or "none"
            raise SetupError(f"no window titled with {fragment!r} within {timeout:.0f}s (windows: {shown})")
        time.sleep(settings.WINDOW_POLL_S)


def _open(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    path = params.get("path", "")
    if not path or not sandbox.exists(path):
        raise SetupError(f"open: no file {path!r} in the sandbox")
    target = sandbox.expand(path)  # `~`, `$HOME`, relative: the file the VM server would open
    # not the VM server's /setup/open_file: it stays busy waiting for the window up to 30 minutes after
    # a client gives up; launching xdg-open and waiting here gives up when we do
    sandbox.launch(f"xdg-open {quote(target)}")
    title = wait_for_window(sandbox, Path(target).name, settings.OPEN_WINDOW_TIMEOUT_S)
    return {"path": path, "window": title}


STAND_IN_WINDOWS = {"Google Chrome": "Chromium", "google-chrome": "chromium", "Google-chrome": "Chromium"}
"""Window titles and classes of an application the toolkit may run a stand-in for, and the stand-in's:
where Chrome is not installed, `google-chrome` is Chromium, whose windows say so."""


def _wmctrl(action: str) -> StepHandler:
    def handler(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
        name = params.get("window_name", "")
        flags = ("x" if params.get("by_class") else "") + ("F" if params.get("strict") else "")
        result = sandbox.run(f"wmctrl -{flags}{action} {quote(name)}", timeout=15)
        if not result.ok and name in STAND_IN_WINDOWS:
            result = sandbox.run(f"wmctrl -{flags}{action} {quote(STAND_IN_WINDOWS[name])}", timeout=15)
        record = {"window_name": name, "matched": result.ok}
        if not result.ok:
            shown = "; ".join(window_titles(sandbox)) or "none"
            record["failed"] = f"no window {name!r} (windows: {shown})"
        return record

    return handler


def _chrome_open_tabs(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    """Each URL in a new tab of the running Chrome (over DevTools); the tab it had is closed after the
    first opens. A page that does not load in time stays open as it is."""
    urls = [str(url) for url in params.get("urls_to_open", [])]
    with _chrome(sandbox) as browser:
        tabs = browser.contexts[0]
        for index, url in enumerate(urls):
            page = tabs.new_page()
            with contextlib.suppress(PlaywrightError):
                page.goto(url, timeout=PAGE_TIMEOUT_MS)
            if index == 0:
                tabs.pages[0].close()
    return {"urls": urls}


def _chrome_close_tabs(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    """For each URL, the first open tab at the same page (OSWorld's URL equality) is closed."""
    urls = [str(url) for url in params.get("urls_to_close", [])]
    closed = []
    with _chrome(sandbox) as browser:
        for url in urls:
            page = next((page for page in browser.contexts[0].pages if same_url(page.url, url)), None)
            if page is not None:
                closed.append(page.url)
                page.close()
    return {"urls": urls, "closed": closed}


@contextlib.contextmanager
def _chrome(sandbox: Sandbox) -> Iterator[Browser]:
    """The task's Chrome over DevTools, waited for as OSWorld waits (it may still be starting)."""
    try:
        with attached(sandbox, attempts=CONNECT_ATTEMPTS) as browser:
            yield browser
    except ChromeUnreachable as exc:
        raise SetupError(str(exc)) from exc


def _update_browse_history(sandbox: Sandbox, params: dict, context: SetupContext) -> dict:
    """Chrome's History replaced by OSWorld's empty one (from the cache) holding the given visits."""
    try:
        empty = context.cache.read(EMPTY_HISTORY_URL, EMPTY_HISTORY_NAME)
    except FileNotFoundError as exc:
        raise SetupError(f"update_browse_history: {exc}") from exc
    visits = params.get("history", [])
    context.placed(sandbox, "update_browse_history", HISTORY_PATH, with_visits(empty, visits))
    return {"visits": len(visits)}


STEP_HANDLERS: dict[str, StepHandler] = {
    "download": _download,
    "upload_file": _upload_file,
    "launch": _launch,
    "execute": _execute,
    "command": _execute,
    "sleep": _sleep,
    "open": _open,
    "activate_window": _wmctrl("a"),
    "close_window": _wmctrl("c"),
    "chrome_open_tabs": _chrome_open_tabs,
    "chrome_close_tabs": _chrome_close_tabs,
    "update_browse_history": _update_browse_history,
    "deliver_mail": _deliver_mail,
}
STEP_FILES: dict[str, tuple[tuple[str, str], ...]] = {
    "update_browse_history": ((EMPTY_HISTORY_URL, EMPTY_HISTORY_NAME),),
}
"""Files a step type takes from the download cache whatever its parameters, as (URL, file name): the
check probes them and a run's pre-flight fetches them, as it does a `download` step's files."""
