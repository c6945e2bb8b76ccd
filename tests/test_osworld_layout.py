"""`eval run` on OSWorld's own `evaluation_examples` layout: meta files listing `examples/<domain>/<id>.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.osworld.task import TaskError
from stateact.evals.running.suite import discover
from tests.support.pool_suites import file_check, write_task
from tests.test_eval_runner import run_cli


def evaluation_examples(root: Path) -> Path:
    """Three tasks in two domains; test_all.json lists two of them, test_small.json one."""
    examples = root / "examples"
    for domain, task_id in (("os", "b-answer"), ("os", "unlisted"), ("files", "a-notes")):
        command = f"printf {task_id} > /home/user/out.txt"
        write_task(examples, domain, task_id, [command], file_check("/home/user/out.txt", [task_id]))
    (root / "test_all.json").write_text(json.dumps({"os": ["b-answer"], "files": ["a-notes"]}))
    (root / "test_small.json").write_text(json.dumps({"files": ["a-notes"]}))
    return root


def test_the_meta_file_lists_the_tasks_in_its_order(tmp_path):
    root = evaluation_examples(tmp_path / "evaluation_examples")
    assert [(t.domain, t.id) for t in discover(root)] == [("os", "b-answer"), ("files", "a-notes")]
    assert [t.id for t in discover(root / "test_small.json")] == ["a-notes"]
    (root / "test_all.json").write_text(json.dumps({"os": ["b-answer", "gone"]}))
    with pytest.raises(TaskError, match=r"lists 1 task\(s\) without a file, e.g. .*examples/os/gone.json"):
        discover(root)
    (root / "test_all.json").write_text(json.dumps(["b-answer"]))
    with pytest.raises(TaskError, match="is not an OSWorld meta file"):
        discover(root)


@pytest.mark.slow
def test_eval_run_takes_an_evaluation_examples_folder(tmp_path, built_fixtures):
    root = evaluation_examples(tmp_path / "evaluation_examples")
    results = tmp_path / "results"
    code, output = run_cli(
        "eval",
        "run",
        str(root),
        "--harness",
        "bash-only",
        "--results",
        str(results),
        "--no-display",
        "--no-html",
        "--cache",
        str(built_fixtures),  # not built anew for this run
    )
    assert code == 0, output
    scores = {p.parent.name: p.read_text().strip() for p in results.rglob("result.txt")}
    assert scores == {"b-answer": "1.0", "a-notes": "1.0"}
