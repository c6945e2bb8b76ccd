"""The harness's file helper: its file operations on a sandbox's paths, done inside it as its user.

Started by sandbox/file_access.py as `python3 -I -S _file_helper.py` inside the sandbox (its namespaces,
user and limits), so every path resolves as the sandbox's own processes see it. It reads requests on its
standard input and answers on its standard output, one at a time:

    request:  a JSON line {"op": "read"|"write"|"kind", "path": ..., "size": N, "limit": N}, then N bytes
    answer:   a JSON line {"ok": true, "size": N, "kind": ...}, then N bytes;
              or {"ok": false, "errno": E, "message": ...} (or "refused": true)

Only regular files are read or written: a FIFO, socket or device is refused without being opened for
blocking I/O (opened with O_NONBLOCK, then checked with fstat). Standard library only; it names itself
`stateact-files` so `ps` says what it is.
"""

import contextlib
import ctypes
import errno
import json
import os
import stat
import sys

IN, OUT = sys.stdin.buffer, sys.stdout.buffer
PROCESS_NAME = b"stateact-files"
PR_SET_NAME = 15
KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}
OPEN_FLAGS = os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class Refused(Exception):
    pass


def kind_of(mode):
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return KINDS.get(stat.S_IFMT(mode), "a special file")


def require_regular(mode, path):
    kind = kind_of(mode)
    if kind == "directory":
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if kind != "file":
        raise Refused(path + " is " + kind + ": only regular files can be read or written this way")


def checked_open(path, flags):
    try:
        require_regular(os.stat(path).st_mode, path)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    fd = os.open(path, flags | OPEN_FLAGS, 0o644)
    try:
        require_regular(os.fstat(fd).st_mode, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read(request):
    fd = checked_open(request["path"], os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > request["limit"]:
            raise Refused(
                f"{request['path']} is {size} bytes, more than the {request['limit']} the harness reads"
            )
        chunks, total = [], 0
        while total <= request["limit"]:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > request["limit"]:
            raise Refused(f"{request['path']} grew past the {request['limit']} bytes the harness reads")
        return {}, b"".join(chunks)
    finally:
        os.close(fd)


def make_parents(folder):
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError as exc:
        blocking = exc.filename or folder
        raise Refused(
            blocking + " is in the way: it is a file, or a link to nothing, where a folder is needed"
        ) from None


def write(request, data):
    path = request["path"]
    if request.get("parents"):
        make_parents(os.path.dirname(path) or ".")
    fd = checked_open(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return {}, b""


def kind(request):
    try:
        return {"kind": kind_of(os.stat(request["path"]).st_mode)}, b""
    except (FileNotFoundError, NotADirectoryError):
        return {"kind": "missing"}, b""


def read_exactly(size):
    data = IN.read(size)
    if len(data) != size:
        sys.exit(0)
    return data


def answer(header, data=b""):
    OUT.write(json.dumps(dict(header, size=len(data))).encode() + b"\n")
    OUT.write(data)
    OUT.flush()


def name_process():
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_NAME, PROCESS_NAME, 0, 0, 0)


name_process()
while True:
    line = IN.readline()
    if not line:
        break
    request = json.loads(line)
    payload = read_exactly(request.get("size", 0))
    try:
        if request["op"] == "read":
            header, data = read(request)
        elif request["op"] == "write":
            header, data = write(request, payload)
        else:
            header, data = kind(request)
        answer(dict(header, ok=True), data)
    except Refused as exc:
        answer({"ok": False, "refused": True, "message": str(exc)})
    except OSError as exc:
        answer({"ok": False, "errno": exc.errno or 0, "message": exc.strerror or str(exc)})
