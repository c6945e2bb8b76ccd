"""Shared helpers of the office toolkit programs (stdlib only; uploaded beside them).

Each program in this folder imports this module from its own directory, so the
folder can be copied as a whole into any machine with python3.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

CONVERT_TIMEOUT_S = 180.0
"""Longest a headless LibreOffice conversion may take."""
WINDOW_WAIT_S = 30.0
"""Longest we wait for a LibreOffice window or lock file to appear or go away."""
DIALOG_WAIT_S = 3.0
"""How long after a close request we look for a 'Save Document?' dialog."""
POLL_S = 0.25

RECALC_ALWAYS_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
</oor:items>
"""
"""A profile setting that makes LibreOffice recalculate every formula when it loads a file."""

EXPORT_FILTERS = {
    "xlsx": "Calc MS Excel 2007 XML",
    "docx": "MS Word 2007 XML",
    "pptx": "Impress MS PowerPoint 2007 XML",
}
"""Explicit filters where LibreOffice's default pick differs from what Microsoft Office writes."""


class ToolkitError(Exception):
    """A problem the user can fix; printed as `error: ...` with exit code 2."""


def run_main(main, argv: list[str] | None = None) -> None:
    """Run a program's main function, turning ToolkitError into a clean message and exit code 2.
    A reader that closes the pipe early (`| head`) ends the program quietly, as it ends `cat`."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        code = main(sys.argv[1:] if argv is None else argv)
    except ToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code or 0)


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as ToolkitError-style messages with exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def need_module(name: str, pip_name: str):
    """Import a python library or stop with the pip command that installs it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        scope = "" if sys.prefix != sys.base_prefix else "--user "  # a virtual environment refuses --user
        raise ToolkitError(
            f"python module '{name}' is missing for {sys.executable}; install it with: "
            f"{Path(sys.executable).name} -m pip install {scope}{pip_name}"
        ) from None


def existing_file(path: str, suffixes: tuple[str, ...] = ()) -> Path:
    """The path as an existing file with one of `suffixes` (any when empty), else a clear error."""
    file = Path(path).expanduser()
    if not file.exists():
        raise ToolkitError(f"no such file: {path}")
    if not file.is_file():
        raise ToolkitError(f"not a regular file: {path}")
    if suffixes and file.suffix.lower() not in suffixes:
        raise ToolkitError(
            f"{path}: expected a {'/'.join(suffixes)} file, got '{file.suffix or 'no suffix'}'"
        )
    return file.resolve()


# -- LibreOffice headless ------------------------------------------------------------------------


def soffice_binary() -> str:
    for name in ("soffice", "libreoffice"):
        found = shutil.which(name)
        if found:
            return found
    raise ToolkitError("LibreOffice (soffice) is not installed or not on PATH")


def headless_convert(source: Path, target_format: str, outdir: Path, filter_name: str = "") -> Path:
    """Convert `source` with a private, throw-away LibreOffice profile; return the written file.

    The private profile keeps the conversion apart from any LibreOffice the user has open
    (a shared profile would hand the job to that instance) and recalculates formulas on load.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    ext = target_format.split(":", 1)[0].lower()
    if not filter_name and ":" not in target_format and ext in EXPORT_FILTERS:
        filter_name = EXPORT_FILTERS[ext]
    convert_to = f"{ext}:{filter_name}" if filter_name else target_format
    with tempfile.TemporaryDirectory(prefix="stateact-lo-") as profile:
        user_dir = Path(profile) / "user"
        user_dir.mkdir()
        (user_dir / "registrymodifications.xcu").write_text(RECALC_ALWAYS_XCU, encoding="utf-8")
        command = [
            soffice_binary(),
            f"-env:UserInstallation={Path(profile).as_uri()}",
            "--headless",
            "--norestore",
            "--nologo",
            "--convert-to",
            convert_to,
            "--outdir",
            str(outdir),
            str(source),
        ]
        env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        try:
            proc = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=CONVERT_TIMEOUT_S,
                env=env,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            raise ToolkitError(
                f"LibreOffice did not finish converting {source.name} within {CONVERT_TIMEOUT_S:.0f}s"
            ) from None
    produced = outdir / f"{source.stem}.{ext}"
    if proc.returncode != 0 or not produced.exists():
        detail = (proc.stdout + proc.stderr).strip().replace("\n", " | ")[-400:]
        raise ToolkitError(f"LibreOffice could not convert {source.name} to {ext}: {detail or 'no output'}")
    return produced


def replace_atomically(source: Path, target: Path) -> None:
    """Move `source` over `target` (copying across file systems), keeping the target's permissions."""
    mode = target.stat().st_mode if target.exists() else None
    shutil.move(str(source), str(target))
    if mode is not None:
        os.chmod(target, mode & 0o7777)


# -- documents open in LibreOffice ---------------------------------------------------------------


@dataclass(frozen=True)
class Lock:
    """The content of LibreOffice's lock file `.~lock.NAME#` next to an open document."""

    path: Path
    user: str
    host: str
    since: str
    profile_url: str


def lock_path(document: Path) -> Path:
    return document.parent / f".~lock.{document.name}#"


def read_lock(document: Path) -> Lock | None:
    path = lock_path(document)
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = raw.strip().rstrip(";").split(",")
    fields += [""] * (5 - len(fields))
    formal_name, system_user, host, since = fields[:4]
    profile = ",".join(fields[4:]).strip(";")
    return Lock(path, formal_name or system_user, host, since, profile)


def soffice_processes() -> list[tuple[int, list[str]]]:
    """Running LibreOffice processes as (pid, argv)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and Path(argv[0].decode(errors="replace")).name == "soffice.bin":
            found.append((int(entry.name), [a.decode(errors="replace") for a in argv if a]))
    return found


def profile_in_use(profile_url: str) -> bool:
    """Whether a running LibreOffice uses this user profile (a lock without one is stale)."""
    processes = soffice_processes()
    if not profile_url:
        return bool(processes)
    wanted = profile_url.rstrip("/")
    for _, argv in processes:
        explicit = [a.split("=", 1)[1] for a in argv if a.startswith("-env:UserInstallation=")]
        if not explicit:
            if wanted.endswith("/.config/libreoffice/4") or wanted.endswith("/.config/libreoffice/4/user"):
                return True
            continue
        if explicit[-1].rstrip("/") == wanted:
            return True
    return False


def profile_path(profile_url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlparse(profile_url).path) if profile_url else ""


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(POLL_S)
    return condition()


# -- windows -------------------------------------------------------------------------------------


def require_display() -> None:
    if not os.environ.get("DISPLAY"):
        raise ToolkitError(
            "DISPLAY is not set: window operations need the desktop's X display (e.g. DISPLAY=:0)"
        )
    if shutil.which("wmctrl") is None:
        raise ToolkitError("wmctrl is not installed (apt-get install wmctrl)")


def list_windows() -> list[tuple[str, str]]:
    """Top-level windows as (id, title)."""
    proc = subprocess.run(["wmctrl", "-l"], capture_output=True, text=True, timeout=10)
    if proc.returncode != 0:
        raise ToolkitError(f"wmctrl could not list windows: {proc.stderr.strip() or 'no window manager?'}")
    windows = []
    for line in proc.stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) >= 3:
            windows.append((parts[0], parts[3] if len(parts) == 4 else ""))
    return windows


def document_windows(document: Path) -> list[str]:
    """Ids of LibreOffice windows whose title names the document."""
    return [
        wid for wid, title in list_windows() if title.startswith(document.name) and "LibreOffice" in title
    ]


def save_dialogs() -> list[str]:
    return [wid for wid, title in list_windows() if title.strip() == "Save Document?"]


def activate_window(window_id: str) -> None:
    subprocess.run(["wmctrl", "-i", "-a", window_id], capture_output=True, timeout=10)
    time.sleep(0.3)


def close_window(window_id: str) -> None:
    subprocess.run(["wmctrl", "-i", "-c", window_id], capture_output=True, timeout=10)


def press_keys(keys: str) -> None:
    """Press a key chord such as `alt+n` in the focused window (xdotool, else pyautogui)."""
    if shutil.which("xdotool"):
        subprocess.run(["xdotool", "key", "--clearmodifiers", keys], capture_output=True, timeout=10)
        return
    code = f"import pyautogui; pyautogui.FAILSAFE=False; pyautogui.hotkey(*{keys.split('+')!r})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise ToolkitError("cannot press keys: install xdotool or the python module pyautogui")


def close_document(document: Path, discard: bool) -> str:
    """Close the document's LibreOffice window without saving; returns a one-line outcome.

    When LibreOffice asks whether to save changes made in its window, those changes are
    dropped with `discard`, otherwise the dialog is cancelled and an error explains why.
    """
    lock = read_lock(document)
    if lock is None or not profile_in_use(lock.profile_url):
        return f"{document} is not open in LibreOffice; nothing to close"
    require_display()
    windows = document_windows(document)
    if not windows:
        raise ToolkitError(
            f"{document.name} is open in LibreOffice but no window shows it (a hidden or headless instance?)"
        )
    for window in windows:
        close_window(window)
    if wait_until(lambda: read_lock(document) is None, DIALOG_WAIT_S):
        return f"closed {document} in LibreOffice (nothing saved from its window)"
    dialogs = save_dialogs()
    if dialogs:
        activate_window(dialogs[0])
        press_keys("alt+n" if discard else "Escape")
        if not discard:
            raise ToolkitError(
                f"{document.name} has unsaved changes made in the LibreOffice window; nothing was closed. "
                "Re-run with --discard to drop them (the file on disk stays as it is)"
            )
    if not wait_until(lambda: read_lock(document) is None, WINDOW_WAIT_S):
        raise ToolkitError(f"LibreOffice did not close {document.name} (its lock file is still there)")
    return f"closed {document} in LibreOffice, discarding changes made in its window"


def open_in_libreoffice(document: Path, profile_url: str) -> None:
    """Open the document in the LibreOffice that uses `profile_url` (started detached when none runs)."""
    command = [soffice_binary(), "--norestore", str(document)]
    if profile_url:
        command.insert(1, f"-env:UserInstallation={profile_url}")
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def libreoffice_windows() -> list[str]:
    return [wid for wid, title in list_windows() if "LibreOffice" in title]


def reload_document(document: Path, discard: bool) -> str:
    """Close the document's stale LibreOffice window and open the file again from disk."""
    lock = read_lock(document)
    if lock is None or not profile_in_use(lock.profile_url):
        return f"{document} is not open in LibreOffice; nothing to reload"
    close_document(document, discard)
    # Closing the last window ends LibreOffice; wait for that before starting it again.
    wait_until(lambda: not profile_in_use(lock.profile_url) or bool(libreoffice_windows()), WINDOW_WAIT_S)
    open_in_libreoffice(document, lock.profile_url)
    if not wait_until(
        lambda: read_lock(document) is not None and bool(document_windows(document)), WINDOW_WAIT_S
    ):
        raise ToolkitError(
            f"closed {document.name}, but LibreOffice did not show it again within {WINDOW_WAIT_S:.0f}s"
        )
    return f"reloaded {document} in LibreOffice: its window now shows the content on disk"


def open_note(document: Path) -> str:
    """A warning line when the document is open in LibreOffice, else ''."""
    lock = read_lock(document)
    if lock is None or not profile_in_use(lock.profile_url):
        return ""
    return (
        f"note: {document.name} is open in LibreOffice; its window still shows the old content and a "
        f"later save there would overwrite this edit. Run: office-reload {document}"
    )


def recalculate_in_place(workbook: Path) -> None:
    """Let LibreOffice recalculate every formula and save the cached values into the same file."""
    with tempfile.TemporaryDirectory(prefix="office-recalc-") as tmp:
        produced = headless_convert(workbook, workbook.suffix.lstrip(".").lower(), Path(tmp))
        replace_atomically(produced, workbook)


def window_command(prog: str, description: str, action):
    """The main function of a program that applies `action(document, discard)` to open documents."""

    def main(argv: list[str]) -> int:
        parser = Parser(prog=prog, description=description)
        parser.add_argument("files", nargs="+", help="documents open in LibreOffice")
        parser.add_argument(
            "--discard",
            action="store_true",
            help="if LibreOffice asks to save changes made in its window, drop them (default: stop with an error)",
        )
        args = parser.parse_args(argv)
        for document in [existing_file(raw) for raw in args.files]:
            print(action(document, args.discard))
        return 0

    return main


GRAPHIC_DATA = "{http://schemas.openxmlformats.org/drawingml/2006/main}graphicData"


def drawing_kinds(element) -> list[str]:
    """The kind of each drawing under an OOXML element ("chart", "picture", "diagram", ...), from the URI
    of its graphic data."""
    return [
        (data.get("uri") or "").rstrip("/").rsplit("/", 1)[-1] or "drawing"
        for data in element.iter(GRAPHIC_DATA)
    ]
