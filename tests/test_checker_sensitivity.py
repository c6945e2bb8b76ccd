"""Checker sensitivity: mutated deliverables are re-scored; a strict checker catches them, a lax one does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.evals.authoring.mutators import EXTRA, FORMAT, KINDS, ROW, VALUE
from stateact.evals.authoring.sensitivity import task_sensitivity
from stateact.evals.osworld.task import load_task
from stateact.evals.running.suite import SuiteTask

REPO = Path(__file__).resolve().parents[1]
ORIGINAL = "id,price\na,1.50\nb,2.25\nc,3.75\n"
DELIVERED = "id,price\na,1.50\nb,2.25\nc,3.75\nd,9.10\ne,4.40\nf,5.20\n"
EXPECTED_URL = "https://fixtures.example/expected.csv"
STAMP_NS = 1_700_000_000_000_000_000


def suite_task(folder: Path, evaluator: dict) -> SuiteTask:
    """A task whose setup downloads prices.csv (the original) and whose deliverable is that file, extended."""
    path = folder / "tasks" / "files" / "prices.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    download = {"files": [{"url": "https://fixtures.example/prices.csv", "path": "/home/user/prices.csv"}]}
    task = {
        "id": "prices",
        "instruction": "Add rows d, e and f to ~/prices.csv.",
        "config": [{"type": "download", "parameters": download}],
        "evaluator": evaluator,
    }
    path.write_text(json.dumps(task), encoding="utf-8")
    return SuiteTask(path, load_task(path), "files")


def measure(tmp_path: Path, evaluator: dict):
    cache, home = tmp_path / "cache", tmp_path / "home"
    cache.mkdir()
    home.mkdir()
    (cache / "prices.csv").write_text(ORIGINAL)
    (cache / "expected.csv").write_text(DELIVERED)
    (home / "prices.csv").write_text(DELIVERED)
    os.utime(home / "prices.csv", ns=(STAMP_NS, STAMP_NS))
    result = task_sensitivity(suite_task(tmp_path, evaluator), home, cache, tmp_path / "work")
    assert (home / "prices.csv").read_text() == DELIVERED  # restored after every mutation
    assert (home / "prices.csv").stat().st_mtime_ns == STAMP_NS
    return result


def test_a_strict_checker_catches_every_kind_of_mutation(tmp_path):
    evaluator = {
        "func": "compare_csv",
        "result": {"type": "vm_file", "path": "/home/user/prices.csv", "dest": "prices.csv"},
        "expected": {"type": "cloud_file", "path": EXPECTED_URL, "dest": "expected.csv"},
    }
    result = measure(tmp_path, evaluator)
    assert not result.skipped and not result.inconclusive
    assert tuple(o.kind for o in result.outcomes) == KINDS == (VALUE, ROW, FORMAT, EXTRA)
    assert result.caught == 4
    assert "untouched line" in result.outcomes[-1].note


def test_a_spot_checking_checker_misses_what_it_does_not_read(tmp_path):
    """Only the first and last new rows are checked: a change in the middle row goes through."""
    evaluator = {
        "func": "check_include_exclude",
        "result": {
            "type": "vm_command_line",
            "command": "grep -c . /home/user/prices.csv; tail -1 /home/user/prices.csv",
            "shell": True,
        },
        "expected": {"type": "rule", "rules": {"include": ["7\n", "f,5.20"], "exclude": []}},
    }
    result = measure(tmp_path, evaluator)
    caught = {o.kind: o.caught for o in result.outcomes}
    assert caught == {VALUE: False, ROW: True, FORMAT: False, EXTRA: False}


def test_an_unreproducible_deliverable_is_not_measured(tmp_path):
    evaluator = {
        "func": "check_include_exclude",
        "result": {"type": "vm_command_line", "command": "cat /home/user/absent.txt", "shell": True},
        "expected": {"type": "rule", "rules": {"include": ["done"], "exclude": []}},
    }
    result = measure(tmp_path, evaluator)
    assert result.skipped == "the unmutated deliverable scores 0.00" and not result.outcomes


@pytest.mark.apps
def test_the_benchmark_replays_a_suite_task_and_prints_the_share(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "benchmarks/checker_sensitivity.py",
            "--task",
            "writer-quarterly-brief",
            "--out",
            str(tmp_path),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert "writer-quarterly-brief: 3/3 caught" in lines
    assert lines[-1] == "checker_sensitivity=3/3 (100.0%)"
