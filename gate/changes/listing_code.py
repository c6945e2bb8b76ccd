"""Runs INSIDE the sandbox (stdlib only): list the files a state baseline covers, with size, mtime and
SHA-256, and the `dconf dump /` text when dconf is there. The host sends this source with a call
`main(request_json)` appended; the result is printed as JSON after a marker line."""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys


def file_hash(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def entry(path, kind, max_bytes):
    try:
        stat = os.stat(path)
    except OSError:
        return None
    copy = stat.st_size <= max_bytes
    return {
        "path": path,
        "kind": kind,
        "size": stat.st_size,
        "mtime": stat.st_mtime,
        "sha256": file_hash(path) if copy else None,
    }


def named_files(paths, max_files, skip_dirs):
    """The files the task names; a named folder stands for the files in it (hidden folders skipped)."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip_dirs)
                found += [os.path.join(root, name) for name in sorted(files)]
        elif os.path.isfile(path):
            found.append(path)
    return found[:max_files]


def home_documents(home, extensions, skip_dirs):
    found = []
    for root, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in skip_dirs]
        for name in files:
            if name.rsplit(".", 1)[-1].lower() in extensions and not name.startswith(".~lock."):
                found.append(os.path.join(root, name))
    return found


def dconf_dump():
    if not shutil.which("dconf"):
        return None
    try:
        done = subprocess.run(["dconf", "dump", "/"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def listing(home, named, extensions, settings, skip_dirs, max_files, file_max, config_max):
    files, seen, dropped = [], set(), []

    def add(path, kind, max_bytes):
        path = os.path.abspath(path)
        if path in seen:
            return
        if len(files) >= max_files:
            dropped.append(path)
            return
        found = entry(path, kind, max_bytes)
        if found:
            seen.add(path)
            files.append(found)

    for path in named_files(named, max_files, set(skip_dirs)):
        add(path, "named", file_max)
    for pattern in settings:
        for path in sorted(glob.glob(os.path.expanduser(pattern))):
            if os.path.isfile(path):
                add(path, "settings", config_max)
    documents = home_documents(home, set(extensions), set(skip_dirs))
    documents.sort(key=lambda p: -os.stat(p).st_mtime if os.path.exists(p) else 0)
    for path in documents:
        add(path, "document", file_max)
    return {
        "files": files,
        "more": len(set(dropped) - seen),
        "dconf": dconf_dump(),
    }


def main(request_json):
    try:
        result = listing(**json.loads(request_json))
    except Exception as exc:  # reported to the caller
        result = {"error": type(exc).__name__ + ": " + str(exc)[:500]}
    sys.stdout.write("\n@@LISTING@@" + json.dumps(result) + "\n")
