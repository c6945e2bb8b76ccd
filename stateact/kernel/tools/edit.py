"""The `str_replace_based_edit_tool`: view, create, str_replace, insert and undo_edit on text files.

Files are read and written through the sandbox, so the tool works on any
backend. `EditTool(context, read_only=True)` offers only `view` (for agents
that must not change anything, such as the finish gate). `view` also shows an
image file as a picture (its type sniffed from its bytes) and a PDF's text,
one page as a picture on request: a scan is state in a file, read without the screen.
"""

from __future__ import annotations

import posixpath
from collections import deque
from shlex import quote
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from stateact.kernel import settings
from stateact.kernel.confined import confined
from stateact.kernel.images import ImageError, ModelImage, image_format, model_image
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.kernel.tools.pdf_view import PdfError, is_pdf, pdf_look
from stateact.kernel.tools.prompts import load_prompt
from stateact.sandbox.base import SandboxError

BINARY_SNIFF_BYTES = 8192


class EditError(Exception):
    """A request the editor cannot do; its message goes back to the model."""


class IsDirectory(EditError):
    """The path is a directory where a file was expected."""


class ViewInput(BaseModel):
    command: Literal["view"]
    path: str = Field(description="Absolute path of a file or directory.")
    view_range: list[int] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="view: [start, end] line numbers (of a PDF: pages; [n, n] also shows page n as a "
        "picture), 1-based and inclusive; end -1 = to the end.",
    )


class EditInput(ViewInput):
    command: Literal["view", "create", "str_replace", "insert", "undo_edit"]  # type: ignore[assignment]
    file_text: str | None = Field(default=None, description="create: the content of the new file.")
    old_str: str | None = Field(default=None, description="str_replace: the exact text to replace.")
    new_str: str | None = Field(
        default=None, description="str_replace: the replacement text. insert: the text to insert."
    )
    insert_line: int | None = Field(
        default=None, ge=0, description="insert: the line after which to insert (0 = at the top)."
    )


class EditTool(Tool[EditInput]):
    """Text file editor with per-file undo; `read_only=True` keeps only `view`."""

    name = "str_replace_based_edit_tool"
    description = load_prompt("edit", scan_pictures=str(settings.EDITOR_PDF_SCAN_PICTURES))
    Input: ClassVar[type[BaseModel]] = EditInput

    def __init__(self, context: RunContext, read_only: bool = False) -> None:
        self.context = context
        self.read_only = read_only
        if read_only:
            self.Input = ViewInput  # type: ignore[misc]
            self.description = load_prompt(  # type: ignore[misc]
                "edit_view", scan_pictures=str(settings.EDITOR_PDF_SCAN_PICTURES)
            )
        self._history: dict[str, deque[bytes | None]] = {}

    def run(self, params: EditInput | ViewInput) -> ToolResult:
        try:
            path = self._checked_path(params.path)
            if params.command == "view":
                return self._view(path, params.view_range)
            if self.read_only:
                raise EditError("This editor is read-only: only `view` is available.")
            operation = {
                "create": self._create,
                "str_replace": self._str_replace,
                "insert": self._insert,
                "undo_edit": self._undo,
            }[params.command]
            return ToolResult(text=operation(path, params))
        except EditError as exc:
            return ToolResult.error(str(exc))
        except (ImageError, PdfError) as exc:
            return ToolResult.error(f"Could not show {params.path}: {exc}.")
        except SandboxError as exc:  # the sandbox could not look (its file helper died, a timeout)
            return ToolResult.error(f"`{params.command}` of {params.path} failed: {exc}")

    # -- paths and file access ---------------------------------------------------
    def _checked_path(self, path: str) -> str:
        if not path.startswith("/"):
            relative = "" if path == "~" else path.removeprefix("~/")
            hint = posixpath.normpath(posixpath.join(self.context.sandbox.home, relative))
            raise EditError(f"The path must be absolute (start with /): `{path}`. Did you mean `{hint}`?")
        return posixpath.normpath(path)

    def _read_bytes(self, path: str) -> bytes:
        try:
            return self.context.sandbox.read_file(path)
        except IsADirectoryError:
            raise IsDirectory(f"{path} is a directory, not a file.") from None
        except FileNotFoundError:
            raise EditError(f"{path} does not exist.") from None
        except (OSError, SandboxError) as exc:
            raise _could_not("read", path, exc) from None

    def _read_text(self, path: str) -> tuple[str, bytes]:
        """The file as text (CRLF line ends read as `\\n` when every line has one), and its raw bytes."""
        data = self._read_bytes(path)
        return _as_text(path, data), data

    def _write(self, path: str, text: str, previous: bytes | None) -> None:
        """Write `text` (keeping CRLF line ends if the file had them) and remember `previous` for undo."""
        if previous is not None and _uses_crlf(previous):
            text = text.replace("\n", "\r\n")
        self._write_bytes(path, text.encode("utf-8"))
        self._history.setdefault(path, deque(maxlen=settings.EDITOR_UNDO_DEPTH)).append(previous)

    def _write_bytes(self, path: str, data: bytes) -> None:
        try:
            self.context.sandbox.write_file(path, data)
        except IsADirectoryError:
            raise EditError(f"{path} is a directory, not a file.") from None
        except (OSError, SandboxError) as exc:
            raise _could_not("write", path, exc) from None

    # -- view ------------------------------------------------------------------------
    def _view(self, path: str, view_range: list[int] | None) -> ToolResult:
        try:
            data = self._read_bytes(path)
        except IsDirectory:
            if view_range is not None:
                raise EditError(f"{path} is a directory; view_range applies to files only.") from None
            return ToolResult(text=self._view_dir(path))
        if image_format(data) is not None:
            try:
                return _view_image(
                    path, confined(model_image, data, error=ImageError, what="the image"), view_range
                )
            except ImageError:
                if not data.startswith(b"BM"):  # else a text file that happens to start with "BM"
                    raise
        if is_pdf(data):
            return _view_pdf(path, data, view_range)
        return ToolResult(text=_view_text(path, _as_text(path, data), view_range))

    def _view_dir(self, path: str) -> str:
        listing = self.context.sandbox.run(
            f"cd {quote(path)} && find . -mindepth 1 -maxdepth {settings.EDITOR_DIR_DEPTH} "
            "-name '.*' -prune -o -printf '%y %P\\n' | sort -k2"
        )
        if not listing.ok:
            raise EditError(f"Could not list {path}: {listing.stderr.strip()}")
        entries = [
            line[2:] + ("/" if line[0] == "d" else "")
            for line in listing.stdout.splitlines()
            if len(line) > 2
        ]
        header = f"{path.rstrip('/')}/ ({settings.EDITOR_DIR_DEPTH} levels deep, hidden items left out):"
        body = "\n".join(entries) if entries else "(empty)"
        text = f"{header}\n{body}"
        if len(text) > settings.EDITOR_VIEW_CAP_CHARS:
            text = text[: text.rfind("\n", 0, settings.EDITOR_VIEW_CAP_CHARS)]
            text += "\n[listing cut: view a subdirectory, or use bash `find` with filters]"
        return text

    # -- edits ------------------------------------------------------------------------------
    def _create(self, path: str, params: EditInput) -> str:
        if params.file_text is None:
            raise EditError("`create` needs `file_text`, the content of the new file.")
        if self.context.sandbox.exists(path):
            raise EditError(
                f"{path} already exists; `create` does not overwrite. Use `str_replace` or `insert` to change it."
            )
        self._write(path, params.file_text, None)
        return f"Created {path} ({len(split_lines(params.file_text))} lines)."

    def _str_replace(self, path: str, params: EditInput) -> str:
        old, new = params.old_str, params.new_str or ""
        if not old:
            raise EditError("`str_replace` needs a non-empty `old_str`.")
        if old == new:
            raise EditError("`old_str` and `new_str` are the same; nothing would change.")
        text, data = self._read_text(path)
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        starts = match_starts(text, old)
        if not starts:
            raise EditError(
                f"`old_str` was not found in {path}. It must match exactly, including whitespace and "
                "indentation; view the file to copy the exact text."
            )
        if len(starts) > 1:
            raise EditError(
                f"`old_str` matches {len(starts)} times in {path} ({_where(text, starts)}). "
                "Include more surrounding lines so it matches exactly once."
            )
        result = text[: starts[0]] + new + text[starts[0] + len(old) :]
        self._write(path, result, data)
        first = text.count("\n", 0, starts[0]) + 1
        return self._edited(path, result, first, first + new.count("\n"))

    def _insert(self, path: str, params: EditInput) -> str:
        if params.insert_line is None or params.new_str is None:
            raise EditError("`insert` needs `insert_line` (0 = top) and `new_str`, the text to insert.")
        text, data = self._read_text(path)
        lines, added = split_lines(text), split_lines(params.new_str.replace("\r\n", "\n"))
        if not added:
            raise EditError('`new_str` is empty: nothing to insert (use "\\n" for a blank line).')
        if params.insert_line > len(lines):
            raise EditError(
                f"insert_line {params.insert_line} is beyond the end of {path} ({len(lines)} lines)."
            )
        at = params.insert_line
        result = "\n".join(lines[:at] + added + lines[at:])
        if text.endswith("\n") or not text:
            result += "\n"
        self._write(path, result, data)
        return self._edited(path, result, at + 1, at + len(added))

    def _undo(self, path: str, params: EditInput) -> str:
        history = self._history.get(path)
        if not history:
            raise EditError(f"No edits of {path} to undo.")
        previous = history.pop()
        if previous is None:
            removed = self.context.sandbox.run(f"rm -f -- {quote(path)}")
            if not removed.ok:
                history.append(previous)
                raise EditError(f"Could not remove {path}: {removed.stderr.strip()}")
            return f"Undid the creation of {path}: the file was removed."
        try:
            self._write_bytes(path, previous)
        except EditError:
            history.append(previous)
            raise
        left = f"{len(history)} more undo step(s) kept" if history else "no more undo steps"
        return f"Undid the last edit of {path} ({left})."

    def _edited(self, path: str, text: str, first: int, last: int) -> str:
        """A confirmation with the changed lines and a little context, numbered."""
        lines = split_lines(text)
        context = settings.EDITOR_SNIPPET_CONTEXT_LINES
        start = max(1, first - context)
        end = min(len(lines), max(last, first) + context)
        snippet = numbered(lines[start - 1 : end], start) if lines else "(the file is now empty)"
        return f"Edited {path}. Lines {start}-{end} now read:\n{snippet}\nCheck the change; `undo_edit` reverts it."


def _view_text(path: str, text: str, view_range: list[int] | None) -> str:
    lines = split_lines(text)
    if not lines:
        return f"{path} is empty."
    start, end = 1, len(lines)
    if view_range is not None:
        start, end = view_range
        end = len(lines) if end == -1 else min(end, len(lines))
        if not 1 <= start <= len(lines):
            raise EditError(f"view_range start {start} is outside the file's lines 1-{len(lines)}.")
        if end < start:
            raise EditError(f"view_range end {view_range[1]} is before its start {start}.")
    shown = numbered(lines[start - 1 : end], start)
    if len(shown) <= settings.EDITOR_VIEW_CAP_CHARS:
        return shown
    cut = shown[: settings.EDITOR_VIEW_CAP_CHARS]
    complete = cut.count("\n")
    last = start + complete - 1
    if complete:
        cut = cut[: cut.rfind("\n")]
        note = f"view cut after line {last} of {len(lines)}: use view_range [{last + 1}, {end}] for the rest"
    else:
        note = f"line {start} alone is longer than {settings.EDITOR_VIEW_CAP_CHARS} characters; use bash to read it in parts"
    return f"{cut}\n[{note}]"


def _view_image(path: str, shown: ModelImage, view_range: list[int] | None) -> ToolResult:
    """The picture itself, scaled to the model's limits, under a line saying what it is."""
    if view_range is not None:
        raise EditError(f"{path} is an image; view_range applies to text files and PDF pages.")
    return ToolResult(text=f"{path}: {shown.describe()}.", images=(shown.data,))


def _view_pdf(path: str, data: bytes, view_range: list[int] | None) -> ToolResult:
    """The text of the PDF's pages with their layout, and as pictures its pages without text (a few) or,
    with view_range [n, n], page n."""
    first, last = view_range or (1, None)
    look = confined(pdf_look, data, first, last, error=PdfError, what="the PDF")
    lines = [f"{path}: PDF, text with layout.", look.text]
    lines += [f"[page {n} shown as a picture, {p.size[0]}x{p.size[1]}]" for n, p in look.pictures]
    if look.textless_not_shown:
        pages = ", ".join(map(str, look.textless_not_shown))
        lines.append(f"[pages {pages} have no text either: view_range [N, N] shows page N as a picture]")
    return ToolResult(text="\n".join(lines), images=tuple(p.data for _, p in look.pictures))


def _as_text(path: str, data: bytes) -> str:
    """The bytes as text (CRLF line ends read as `\\n` when every line has one); EditError if binary."""
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise EditError(_not_text(path, "is a binary file"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EditError(_not_text(path, "is not UTF-8 text")) from None
    return text.replace("\r\n", "\n") if _uses_crlf(data) else text


def _could_not(action: str, path: str, exc: OSError | SandboxError) -> EditError:
    """The error of a read or write the sandbox refused: the system's words for a file error, the
    sandbox's own otherwise."""
    reason = (exc.strerror or exc) if isinstance(exc, OSError) else exc
    return EditError(f"Could not {action} {path}: {reason}")


def split_lines(text: str) -> list[str]:
    """Lines split at `\\n` only; a final newline does not start another line."""
    if not text:
        return []
    return text.removesuffix("\n").split("\n")


def numbered(lines: list[str], first: int) -> str:
    """`cat -n` style: a right-aligned line number, a tab, the line."""
    return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(lines, start=first))


def match_starts(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of `needle`."""
    starts, at = [], text.find(needle)
    while at >= 0:
        starts.append(at)
        at = text.find(needle, at + len(needle))
    return starts


def _where(text: str, starts: list[int]) -> str:
    """The lines where the matches at `starts` begin: `starting at lines 3, 9 (2 on line 9)`."""
    lines = [text.count("\n", 0, start) + 1 for start in starts]
    unique = sorted(set(lines))
    repeated = [f"{lines.count(n)} on line {n}" for n in unique if lines.count(n) > 1]
    said = f"starting at line{'s' if len(unique) > 1 else ''} {', '.join(map(str, unique))}"
    return f"{said} ({', '.join(repeated)})" if repeated else said


def _uses_crlf(data: bytes) -> bool:
    """Every line break is CRLF."""
    return b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n")


def _not_text(path: str, what: str) -> str:
    return (
        f"{path} {what}; the editor shows UTF-8 text, images and PDFs. Inspect it with bash instead "
        "(`file`, `xxd | head`, or python: openpyxl, python-docx, python-pptx for office documents)."
    )
