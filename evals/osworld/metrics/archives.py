"""Archive metrics: `compare_archive` (the files of two archives, by a file metric) and `compare_epub`.

`compare_archive` unpacks both archives (zip, tar, tar.gz, ... by their names, as
`shutil.unpack_archive` reads them) into a temporary folder, lists the folder
`file_path` inside each (default: the top), and scores 0 unless both list the same
names; the score is then the mean, over the files in name order, of the metric
that `file_type` names (`text`: compare_text_file, `pdf`: compare_pdfs, `docx`,
`ppt`, `image`, `csv`, `table`, `audio`, `video`), called with the other options.
A `file_type` whose metric is not implemented here makes the task unscorable.

`compare_epub` is the mean difflib similarity of the normalised parts of two
EPUB files (see its docstring).
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import lxml.html

from stateact.evals.osworld.metrics.rules import MetricError, MetricUnsupported

FILE_METRICS = {
    "text": "compare_text_file",
    "pdf": "compare_pdfs",
    "docx": "compare_docx_files",
    "ppt": "compare_pptx_files",
    "image": "compare_images",
    "csv": "compare_csv",
    "table": "compare_table",
    "audio": "compare_audios",
    "video": "compare_videos",
}
"""OSWorld's `file_type` values and the metric each compares the archived files with."""


def _file_metric(options: dict[str, Any]) -> str:
    """The registered metric `file_type` names; MetricUnsupported when there is none."""
    from stateact.evals.osworld.metrics import METRICS  # the registry imports this module

    file_type = options.get("file_type", "text")
    name = FILE_METRICS.get(file_type)
    if name is None:
        raise MetricUnsupported(
            f"compare_archive file_type {file_type!r} (OSWorld has {', '.join(FILE_METRICS)})"
        )
    if name not in METRICS:
        raise MetricUnsupported(
            f"compare_archive file_type {file_type!r} needs metric {name}, not implemented"
        )
    return name


def check_archive_options(options: dict[str, Any]) -> None:
    """Raise MetricUnsupported when `file_type`, or the options passed on to its metric, are not
    implemented."""
    from stateact.evals.osworld.metrics import check_metric_options  # the registry imports this module

    name = _file_metric(options)
    check_metric_options(name, _passed_on(options))


def _passed_on(options: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in options.items() if key not in ("file_path", "file_type")}


def compare_archive(result: str | None, expected: str, **options: Any) -> float:
    from stateact.evals.osworld.metrics import METRICS  # the registry imports this module

    metric = METRICS[_file_metric(options)]
    if not result:
        return 0.0
    inner = options.get("file_path", "")
    with tempfile.TemporaryDirectory(prefix="archive-") as folder:
        ours, theirs = Path(folder, "result"), Path(folder, "expected")
        _unpack(result, ours)
        _unpack(expected, theirs)
        names = sorted(os.listdir(ours / inner))
        if names != sorted(os.listdir(theirs / inner)):
            return 0.0
        if not names:
            raise MetricError(f"compare_archive: {inner or 'the top'} of both archives is empty")
        passed_on = _passed_on(options)
        scores = [metric(str(ours / inner / name), str(theirs / inner / name), **passed_on) for name in names]
    return sum(scores) / len(scores)


def _unpack(archive: str, folder: Path) -> None:
    """Unpack as shutil does (the format by the file name); tar members that would land outside
    the folder, or are devices, are refused (tarfile's `data` filter; zip extraction already
    skips such names)."""
    folder.mkdir()
    safety = {} if archive.endswith(".zip") else {"filter": "data"}
    shutil.unpack_archive(archive, folder, **safety)


def _epub_parts(path: str) -> dict[str, list[str]]:
    """The lines of an EPUB's compared parts, by name: `toc.ncx` without its `navPoint` lines and
    `content.opf` without its `dc:identifier` lines (both only at the top of the archive), and
    every `.html` member, its line breaks removed and re-serialised by lxml (pretty-printed).
    A file that is not a zip has no parts. As in OSWorld, an `.html` member inside a folder is an
    error (its copy cannot be written there) and parts must be UTF-8."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        return {}
    parts: dict[str, list[str]] = {}
    with archive:
        members = archive.namelist()
        for name, dropped in (("toc.ncx", "navPoint"), ("content.opf", "dc:identifier")):
            if name in members:
                lines = archive.read(name).decode().splitlines()
                parts[name] = [line for line in lines if dropped not in line]
        for name in members:
            if not name.endswith(".html"):
                continue
            if "/" in name:
                raise MetricError(
                    f"{path}: OSWorld's EPUB reader fails on {name} (an .html part in a folder)"
                )
            text = archive.read(name).decode().replace("\n", "").replace("\r", "")
            page = lxml.html.fromstring(text.encode())
            parts[name] = lxml.html.tostring(page, pretty_print=True, encoding="unicode").splitlines()
    return parts


def compare_epub(result: str | None, expected: str) -> float:
    """The mean, over the result's parts in name order, of the difflib line similarity with the
    expected part at the same position (extra expected parts are ignored); 0 with no parts."""
    if result is None:
        return 0.0
    ours, theirs = _epub_parts(result), _epub_parts(expected)
    if not ours:
        return 0.0
    pairs = zip(sorted(ours), sorted(theirs), strict=False)
    total = sum(difflib.SequenceMatcher(a=ours[a], b=theirs[b]).ratio() for a, b in pairs)
    return total / len(ours)


METRICS = {"compare_archive": compare_archive, "compare_epub": compare_epub}
OPTION_CHECKS = {"compare_archive": check_archive_options}
