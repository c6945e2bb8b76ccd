"""What a task's setup placed or created in a local sandbox, kept so that a resume can put it back.

    files = SetupFiles(run_dir / SETUP_FILES)        # None: hashes recorded, no copies kept
    files.placed(sandbox, "download", "/home/user/a.xlsx", data)
    with files.watching(sandbox, "execute"): ...     # what a command step created or changed
    files.finish(sandbox)                            # which were gone already when setup ended
    put_back(run_dir / SETUP_FILES, sandbox, named)  # at resume: the paths written again

Every file a step placed (`download`, `upload_file`, `update_browse_history`) or a command step created
or changed (found by listing the home and /tmp before and after the command) is recorded with its path,
SHA-256 and mode, and its bytes are kept in the run folder, out of the agent's reach. A resume in a new
sandbox puts back the files a relaunched program needs and that are gone: those already gone when setup
ended (a program the setup started read and removed them, so the agent never saw them) and those a
relaunched program names on its command line. A file that was there when the agent began and is gone
now is otherwise the agent's doing, and stays gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from shlex import quote
from typing import Any

from stateact.evals import settings
from stateact.sandbox.base import Sandbox, SandboxError

SETUP_FILES = "setup-files"
"""The run folder's place for the setup's files and their manifest."""
MANIFEST = "placed.json"
GONE = "gone"
"""`at_setup_end` of a file no longer there when the setup ended (a program it started consumed it)."""
PRESENT = "present"
CHANGED = "changed"
LISTING = """\
import json, os, stat
roots, limit, found = {roots!r}, {limit}, {{}}
for root in roots:
    for folder, dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found[path] = [info.st_size, info.st_mtime_ns, stat.S_IMODE(info.st_mode)]
        if len(found) > limit:
            print("null")
            raise SystemExit
print(json.dumps(found))
"""
"""Run in the sandbox: every regular file under the roots as {path: [size, mtime_ns, mode]}; `null`
when there are more than `limit` (the folders are then not watched)."""
DIGESTS = """\
import hashlib, json, os
states = {{}}
for path in {paths!r}:
    if not os.path.lexists(path):
        states[path] = None
        continue
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            for chunk in iter(lambda: file.read(1 << 20), b""):
                digest.update(chunk)
        states[path] = digest.hexdigest()
    except OSError:
        states[path] = ""
print(json.dumps(states))
"""
"""Run in the sandbox: each path's SHA-256, None when it is gone, '' when it cannot be read."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SetupFiles:
    """The files one setup placed or created, their bytes kept in `folder` (None: only recorded)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.entries: list[dict[str, Any]] = []

    def placed(self, sandbox: Sandbox, step: str, path: str, data: bytes, mode: int | None = None) -> None:
        """Record that `step` wrote `data` at `path`, and keep a copy."""
        entry = {"step": step, "path": sandbox.expand(path), "sha256": digest(data), "size": len(data)}
        if mode is not None:
            entry["mode"] = mode
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / entry["sha256"]).write_bytes(data)
            entry["kept"] = True
        self.entries.append(entry)

    @contextlib.contextmanager
    def watching(self, sandbox: Sandbox, step: str, command: str, programs_running: bool) -> Iterator[None]:
        """Record the files the body (the command step running `command`) created or changed under the
        home and /tmp, and which recorded files it removed: those that vanished while it ran, when no
        program of the setup was running yet or the command names them."""
        before = _listing(sandbox)
        yield
        after = _listing(sandbox) if before is not None else None
        if after is None:
            return
        home = sandbox.expand("~")
        for entry in self.entries:
            path = entry["path"]
            if (
                path in before
                and path not in after
                and (not programs_running or names(command, path, home, folders=True))
            ):
                entry["removed_by_setup"] = step
        for path, (size, mtime, mode) in sorted(after.items()):
            if before.get(path, [None, None])[:2] == [size, mtime]:
                continue
            if size > settings.SETUP_KEEP_MAX_BYTES:
                self.entries.append({"step": step, "path": path, "size": size, "kept": False})
                continue
            try:
                data = sandbox.read_file(path)
            except (OSError, SandboxError):
                continue  # gone again, or not readable by the sandbox's user: nothing to put back
            self.placed(sandbox, step, path, data, mode)

    def finish(self, sandbox: Sandbox) -> None:
        """Note which files were still there as placed when the setup ended, and write the manifest."""
        states = file_states(sandbox, [entry["path"] for entry in self.entries])
        for entry in self.entries:
            state = states.get(entry["path"])
            entry["at_setup_end"] = (
                GONE if state is None else PRESENT if state == entry.get("sha256") else CHANGED
            )
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / MANIFEST).write_text(json.dumps(self.entries, indent=1), encoding="utf-8")


def _listing(sandbox: Sandbox) -> dict[str, list[int]] | None:
    """The sandbox's regular files under its home and /tmp (None: too many, or the listing failed)."""
    roots = [sandbox.expand("~"), "/tmp"]
    done = sandbox.run_python(
        LISTING.format(roots=roots, limit=settings.SETUP_WATCH_MAX_FILES),
        timeout=settings.SETUP_WATCH_TIMEOUT_S,
    )
    try:
        return json.loads(done.stdout) if done.ok else None
    except ValueError:
        return None


def file_states(sandbox: Sandbox, paths: list[str]) -> dict[str, str | None]:
    """Each path's SHA-256 in the sandbox (None: gone; '': unreadable)."""
    if not paths:
        return {}
    done = sandbox.run_python(
        DIGESTS.format(paths=sorted(set(paths))), timeout=settings.SETUP_WATCH_TIMEOUT_S
    )
    if not done.ok:
        raise SandboxError(f"could not read the state of the setup's files: {done.output.strip()[-300:]}")
    return json.loads(done.stdout)


def load_manifest(folder: Path) -> list[dict[str, Any]]:
    """The entries a setup recorded in `folder` ([] when it kept none: a run of an older version)."""
    try:
        entries = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return entries if isinstance(entries, list) else []


def put_back(folder: Path, sandbox: Sandbox, named: str) -> list[str]:
    """Write again, from the copies kept in `folder`, the setup's files that are gone and that a
    relaunched program needs: gone when the setup ended, or named in `named` (the relaunched programs'
    command lines). Returns the paths written."""
    latest = {entry["path"]: entry for entry in load_manifest(folder) if entry.get("kept")}
    home = sandbox.expand("~")
    wanted = {
        path: entry
        for path, entry in latest.items()
        if not entry.get("removed_by_setup")
        and (entry.get("at_setup_end") == GONE or names(named, path, home))
    }
    now = file_states(sandbox, list(wanted))
    written = []
    for path, entry in sorted(wanted.items()):
        if now.get(path) is not None:
            continue
        data = (Path(folder) / entry["sha256"]).read_bytes()
        if digest(data) != entry["sha256"]:
            raise SandboxError(f"the kept copy of {path} in {folder} does not match what the setup placed")
        sandbox.write_file(path, data)
        if "mode" in entry:
            sandbox.run(f"chmod {entry['mode']:o} -- {quote(path)}", timeout=settings.SETUP_WATCH_TIMEOUT_S)
        written.append(path)
    return written


def names(text: str, path: str, home: str, folders: bool = False) -> bool:
    """Whether `text` (a command line) names `path` as a whole word: in full, from the home (`~/...`) or
    by its own name; with `folders`, also a folder below the home that holds it."""
    target = Path(path)
    spellings = [path, target.name]
    if target.is_relative_to(home):
        spellings.append(f"~/{target.relative_to(home)}")
    for folder in target.parents if folders else []:
        if folder == Path(home) or not folder.is_relative_to(home):
            break
        spellings += [str(folder), f"~/{folder.relative_to(home)}"]
    return any(re.search(rf"(?<![\w.-]){re.escape(word)}(?!/?[\w.-])", text) for word in spellings if word)
