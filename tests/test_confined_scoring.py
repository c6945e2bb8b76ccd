"""A deliverable the agent wrote cannot hang, exhaust or crash the scoring: each metric call runs in a
limited child (evals/osworld/metric_call.py), and one that passes a limit or crashes makes the task a
scoring error (error.json), never a 0 or a 1. Real files, a real local sandbox and a scripted agent."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
from pathlib import Path

import pytest
from docx import Document

from stateact.evals import settings
from stateact.evals.osworld.metric_call import PRELOAD
from stateact.evals.running.results import ERROR_FILE, RESULT_FILE
from stateact.evals.running.runner import TaskOutcome, run_task_file
from stateact.kernel import confined
from stateact.sandbox.base import Sandbox
from tests.support.bombs import one_cell_book, shared_strings_bomb
from tests.support.documents import deflated, deflated_pdf, text_pdf
from tests.support.osworld_agent import scripted_agent

FLOOD = deflated(b"0 0 m 1 1 l S\n", 2)
"""Two million path operators in a 4 KB PDF: compare_pdfs reads it in-process in ~20 s and +450 MB."""
ORPHAN_SLEEP = "301.5"
"""The argument of a `sleep` a task's test suite leaves running, to find it."""


def deliverable_task(folder: Path, func: str, files: dict[str, bytes], expected: dict, options: dict) -> Path:
    """A task scored by `func` on ~/<first file>, whose files a scripted agent copies in place."""
    source = folder / "deliverables"
    source.mkdir(parents=True)
    for name, data in files.items():
        (source / name).write_bytes(data)
    result = next(iter(files))
    evaluator = {
        "func": func,
        "result": {"type": "vm_file", "path": f"/home/user/{result}", "dest": result},
        "expected": expected,
        "options": options,
    }
    path = folder / "tasks" / "os" / "deliverable.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"id": "deliverable", "instruction": "Do it.", "config": [], "evaluator": evaluator})
    )
    return path


def scored(folder: Path, sandbox: Sandbox, func: str, files: dict[str, bytes], **task: dict) -> TaskOutcome:
    """The outcome of a task whose agent only puts `files` in its home."""
    expected = task.get("expected") or {"type": "vm_file", "path": "/home/user/gold", "dest": "gold"}
    path = deliverable_task(folder, func, files, expected, task.get("options", {}))
    commands = [f"cp {folder / 'deliverables' / name} ~/{name}" for name in files]
    agent = scripted_agent(folder / "runs", commands)
    return run_task_file(path, sandbox, agent, folder / "cache", folder / "results", model="scripted:test")


def scoring_error(outcome: TaskOutcome) -> str:
    """The error of a task that scoring could not judge: error.json at stage scoring, no result.txt."""
    assert outcome.score is None and outcome.failure is not None, outcome.score
    record = json.loads((outcome.result_dir / ERROR_FILE).read_text())
    assert record["stage"] == "scoring" and not (outcome.result_dir / RESULT_FILE).exists()
    return record["error"]


def harness_memory_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def assert_nothing_left() -> None:
    """The scoring worker is alive and has no child: whatever a metric's child started has ended."""
    worker = confined._worker_for(PRELOAD)._process
    assert worker is not None and worker.poll() is None
    tasks = Path(f"/proc/{worker.pid}/task")
    assert [pid for task in tasks.iterdir() for pid in (task / "children").read_text().split()] == []


def sleeps_left() -> list[int]:
    """Processes running `sleep ORPHAN_SLEEP`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and (entry / "cmdline").read_bytes() == f"sleep\0{ORPHAN_SLEEP}\0".encode()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_a_pdf_decompression_bomb_is_a_scoring_error_not_a_zero(tmp_path, local, monkeypatch):
    bomb = deflated_pdf(deflated(b" ", 1000))  # 1 MB; in-process compare_pdfs: ~15 s, +2 GB, then 0.0
    monkeypatch.setattr(settings, "METRIC_MEMORY_MB", 400)
    before = harness_memory_mb()

    outcome = scored(
        tmp_path, local, "compare_pdfs", {"report.pdf": bomb, "gold": text_pdf([["Quarterly report"]])}
    )

    within = f"its inputs could not be read within {settings.METRIC_WALL_S:g} s / 400 MB"
    assert scoring_error(outcome) == f"{within}: it needed more memory"
    assert outcome.failure.what == "metric 1 (compare_pdfs)"
    assert harness_memory_mb() - before < 100
    assert_nothing_left()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cap", "value", "why"),
    [("METRIC_CPU_S", 1, "it used more CPU time"), ("METRIC_WALL_S", 1.5, "it took longer")],
)
def test_a_pdf_that_keeps_the_parser_busy_is_stopped_at_a_limit(
    tmp_path, local, monkeypatch, cap, value, why
):
    monkeypatch.setattr(settings, cap, value)

    outcome = scored(
        tmp_path, local, "compare_pdfs", {"plan.pdf": deflated_pdf(FLOOD), "gold": text_pdf([["Plan"]])}
    )

    assert scoring_error(outcome).endswith(why)
    assert_nothing_left()


@pytest.mark.slow
def test_a_shared_strings_zip_bomb_is_a_scoring_error_not_a_one(tmp_path, local, monkeypatch):
    """2.2 MB unpacking to 1 GB of strings: in-process compare_table reads it in ~40 s and +1.2 GB, and
    scores 1 (its first string is the expected cell)."""
    monkeypatch.setattr(settings, "METRIC_MEMORY_MB", 200)

    outcome = scored(
        tmp_path,
        local,
        "compare_table",
        {"Sales.xlsx": shared_strings_bomb(1000), "gold": one_cell_book()},
        expected={"type": "vm_file", "path": "/home/user/gold", "dest": "gold.xlsx"},
        options={"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]},
    )

    assert scoring_error(outcome).endswith("/ 200 MB: it needed more memory")
    assert_nothing_left()


def test_a_metric_that_crashes_on_a_truncated_docx_is_a_scoring_error(tmp_path, local, built_docx):
    truncated = built_docx[: len(built_docx) // 2]

    outcome = scored(
        tmp_path,
        local,
        "fuzzy_place_math",
        {"answer.docx": truncated},
        expected={"type": "rule", "rules": {"expected": ["1", "2", "3"]}},
    )

    assert scoring_error(outcome).startswith("PackageNotFoundError: Package not found at ")
    assert_nothing_left()


def test_a_truncated_docx_that_a_metric_reads_as_unreadable_scores_zero_as_in_osworld(
    tmp_path, local, built_docx
):
    outcome = scored(
        tmp_path, local, "compare_docx_files", {"letter.docx": built_docx[:-200], "gold": built_docx}
    )

    assert outcome.score == 0.0 and outcome.failure is None
    assert_nothing_left()


def test_what_a_test_suite_leaves_running_is_ended(tmp_path, local):
    suite = (
        "import subprocess\n"
        "def test():\n"
        f"    subprocess.Popen(['sleep', '{ORPHAN_SLEEP}'], start_new_session=True)\n"
        "    return True\n"
    )
    try:
        outcome = scored(
            tmp_path,
            local,
            "check_python_file_by_test_suite",
            {"solution.py": b"x = 1\n", "test_suite.py": suite.encode()},
            expected={"type": "vm_file", "path": "/home/user/test_suite.py", "dest": "test_suite.py"},
        )
        assert outcome.score == 1.0
        assert sleeps_left() == []
        assert_nothing_left()
    finally:
        for pid in sleeps_left():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def built_docx() -> bytes:
    """A one-paragraph .docx written by python-docx."""
    document = Document()
    document.add_paragraph("one two three")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
