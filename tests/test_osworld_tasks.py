"""OSWorld task files end to end: setup on a sandbox, a scripted agent, scoring, the results layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stateact.evals.osworld.cache import CacheMiss, FileCache, url_key
from stateact.evals.osworld.paths import HomeMap
from stateact.evals.osworld.setup import SetupContext, SetupError, run_steps
from stateact.evals.osworld.task import SHIPPED_SUITES, Step, TaskError, load_task, standalone_domain
from stateact.evals.running.runner import prepare_task, run_task_file
from stateact.evals.running.suite import discover
from tests.support.file_server import served_files
from tests.support.osworld_agent import scripted_agent
from tests.support.osworld_artifacts import docx_file, pptx_file, sales_book

FIXTURES = Path(__file__).parent / "fixtures" / "osworld"
MEMO_URL = "https://example.org/files/7f3a/download"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """The download cache: start files and gold files, under the names the cache scheme resolves."""
    root = tmp_path_factory.mktemp("cache")
    sales_book(root / "Sales.xlsx", qty_of_pen=5)  # found by destination name (the URL has none)
    sales_book(root / "Sales_gold.xlsx")  # found by the URL's file name
    keyed = root / "by-url" / url_key(MEMO_URL)
    keyed.mkdir(parents=True)
    docx_file(keyed / "memo.docx", ["Memo", "The launch is on Tuesday."])  # found by URL hash
    docx_file(root / "memo_Gold.docx", ["Memo", "The launch is on Monday."])
    pptx_file(root / "deck.pptx", title="Draft")
    pptx_file(root / "deck_gold.pptx")
    (root / "input.csv").write_text("NAME,QTY\nPEN,3\n")
    (root / "report.csv").write_text("name,qty\npen,3\n")
    (root / "notes_out.txt").write_text("meeting notes\nall good\n")
    return root


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    """What the scripted agents copy into the sandbox: right and wrong deliverables."""
    root = tmp_path_factory.mktemp("artifacts")
    sales_book(root / "right.xlsx")
    sales_book(root / "wrong.xlsx", qty_of_pen=3.00001)
    docx_file(root / "right.docx", ["MEMO", "The launch is on monday."])
    docx_file(root / "wrong.docx", ["Memo", "", "The launch is on Monday."])
    pptx_file(root / "right.pptx")
    pptx_file(root / "wrong.pptx", title="Quarterly Review")
    return root


def _run(task: str, sandbox, commands, tmp_path, cache, **agent) -> tuple[float, Path]:
    outcome = run_task_file(
        FIXTURES / task,
        sandbox,
        scripted_agent(tmp_path / "runs", commands, **agent),
        cache_dir=cache,
        results_dir=tmp_path / "results",
        model="scripted:test",
    )
    return outcome.score, outcome.result_dir


@pytest.mark.parametrize(
    ("task", "right", "wrong"),
    [
        (
            "libreoffice_calc/sales-sheet-data.json",
            "cp {a}/right.xlsx ~/Sales.xlsx",
            "cp {a}/wrong.xlsx ~/Sales.xlsx",
        ),
        ("libreoffice_calc/sales-check-cell.json", "cp {a}/right.xlsx ~/Sales.xlsx", "true"),
        (
            "libreoffice_writer/memo-docx.json",
            "cp {a}/right.docx ~/Documents/memo.docx",
            "cp {a}/wrong.docx ~/Documents/memo.docx",
        ),
        (
            "libreoffice_impress/deck-pptx.json",
            "cp {a}/right.pptx ~/deck.pptx",
            "cp {a}/wrong.pptx ~/deck.pptx",
        ),
    ],
)
def test_office_metric_tasks_score_right_and_wrong_work(
    task, right, wrong, tmp_path, cache, artifacts, local
):
    passed, result_dir = _run(task, local, [right.format(a=artifacts)], tmp_path / "pass", cache)
    failed, _ = _run(task, local, [wrong.format(a=artifacts)], tmp_path / "fail", cache)
    assert (passed, failed) == (1.0, 0.0)
    assert result_dir.parts[-4:-2] == ("stateact", "scripted_test")
    assert (result_dir / "result.txt").read_text() == "1.0\n"


@pytest.mark.slow
def test_multi_metric_and_task_with_every_command_step(tmp_path, cache, local):
    good = [
        "tr A-Z a-z < ~/input.csv > ~/report.csv",
        "printf 42 > ~/answer.txt",
        "cp ~/notes.txt ~/notes_out.txt",
    ]
    score, result_dir = _run("os/report-files.json", local, good, tmp_path / "pass", cache)
    assert score == 1.0
    details = json.loads((result_dir / "score.json").read_text())
    assert [part["score"] for part in details["parts"]] == [1.0, 1.0, 1.0, 1.0]
    assert [step["type"] for step in details["setup"]] == [
        "download",
        "upload_file",
        "execute",
        "command",
        "launch",
        "sleep",
    ]
    wrong_answer = [*good[:1], "printf '42\\n' > ~/answer.txt", good[2]]
    score, result_dir = _run("os/report-files.json", local, wrong_answer, tmp_path / "fail", cache)
    details = json.loads((result_dir / "score.json").read_text())
    assert score == 0.0 and [part["score"] for part in details["parts"]] == [1.0, 0.0, 1.0, 1.0]
    assert details["partial"] == 0.75 and details["binary"] is False  # every checkpoint is scored


def test_or_task_takes_the_first_success(tmp_path, cache, local):
    assert (
        _run("os/answer-any.json", local, ["echo forty-two > ~/answer.txt"], tmp_path / "a", cache)[0] == 1.0
    )
    assert _run("os/answer-any.json", local, ["echo 41 > ~/answer.txt"], tmp_path / "b", cache)[0] == 0.0


def test_infeasible_scores_from_the_declaration(tmp_path, cache, local):
    assert _run("os/impossible.json", local, ["true"], tmp_path / "a", cache, infeasible=True)[0] == 1.0
    assert _run("os/impossible.json", local, ["true"], tmp_path / "b", cache)[0] == 0.0
    right = ["printf 42 > ~/answer.txt"]
    assert _run("os/answer-any.json", local, right, tmp_path / "c", cache, infeasible=True)[0] == 0.0


def test_results_layout_trajectory_and_skip_on_rerun(tmp_path, cache, local):
    commands = ["printf 42 > ~/answer.txt", "cat ~/answer.txt"]
    score, result_dir = _run("os/answer-any.json", local, commands, tmp_path, cache)
    assert score == 1.0 and result_dir == tmp_path / "results/stateact/scripted_test/os/answer-any"
    lines = [json.loads(line) for line in (result_dir / "traj.jsonl").read_text().splitlines()]
    assert [line["step_num"] for line in lines] == [1, 2, 3]
    assert [line["action"]["tool"] for line in lines] == ["sh", "sh", "finish"]
    assert lines[1]["action"]["input"]["command"] == "cat ~/answer.txt" and lines[1]["info"]["result"] == "42"
    assert lines[0]["response"] == "Step 1" and [line["done"] for line in lines] == [False, False, True]
    assert lines[-1]["reward"] == 1.0
    assert set(lines[0]) == {
        "step_num",
        "action_timestamp",
        "action",
        "response",
        "reward",
        "done",
        "info",
        "screenshot_file",
    }
    assert json.loads((result_dir.parent.parent / "args.json").read_text())["model"] == "scripted:test"
    (tmp_path / "runs").rename(tmp_path / "runs_before")
    again = run_task_file(
        FIXTURES / "os/answer-any.json",
        local,
        scripted_agent(tmp_path / "runs", ["echo 0 > ~/answer.txt"]),
        cache_dir=cache,
        results_dir=tmp_path / "results",
        model="scripted:test",
    )
    assert again.skipped and again.score == 1.0 and not (tmp_path / "runs").exists()


def test_missing_download_names_the_file(tmp_path, local):
    empty_cache = tmp_path / "empty"
    empty_cache.mkdir()
    with served_files() as server:  # nothing served: the download gets a 404, not the internet
        task = tmp_path / "sales-sheet-data.json"
        text = (FIXTURES / "libreoffice_calc/sales-sheet-data.json").read_text()
        task.write_text(text.replace("https://drive.usercontent.google.com", server.base_url))
        with pytest.raises(SetupError, match="Sales.xlsx") as error:
            prepare_task(task, local, empty_cache)
    assert "download?id=1SALESxlsx" in str(error.value) and "HTTP 404" in str(error.value)
    assert str(empty_cache / "Sales.xlsx") in str(error.value)


def test_cache_resolution_order(tmp_path):
    cache = FileCache(tmp_path)
    (tmp_path / "a b.xlsx").write_text("by name")
    assert cache.read("https://host/x/a%20b.xlsx?dl=1").decode() == "by name"
    keyed = tmp_path / "by-url" / url_key("https://host/x/a%20b.xlsx?dl=1")
    keyed.parent.mkdir()
    keyed.write_text("by hash")
    assert cache.read("https://host/x/a%20b.xlsx?dl=1").decode() == "by hash"
    with pytest.raises(CacheMiss, match="no cached file for s3://host/other.*not an http"):
        cache.read("s3://host/other")


def test_setup_errors_are_clear(tmp_path, local):
    context = SetupContext(cache=FileCache(tmp_path), task_dir=tmp_path)
    with pytest.raises(SetupError, match="unsupported setup step type 'teleport'"):
        run_steps([Step(type="teleport")], local, context)
    with pytest.raises(SetupError, match="no file"):
        run_steps([Step(type="open", parameters={"path": f"{local.home}/missing.xlsx"})], local, context)
    with pytest.raises(SetupError, match="no local file 'nope.txt'"):
        run_steps(
            [Step(type="upload_file", parameters={"files": [{"local_path": "nope.txt", "path": "x"}]})],
            local,
            context,
        )
    steps = [
        Step(type="execute", parameters={"command": "exit 3", "shell": True}),
        Step(type="execute", parameters={"command": "no-such-tool", "shell": True}),
    ]
    with pytest.raises(
        SetupError, match=r"setup step 2: this machine lacks what it runs: `no-such-tool` exited 127"
    ):
        run_steps(steps, local, context)  # a non-zero exit is recorded; a program not found is fatal here
    assert [r["returncode"] for r in context.records[-2:]] == [3, 127]


def test_list_commands_expand_a_leading_tilde_as_the_vm_server_does(tmp_path, local):
    """The VM server expands a list argument that starts with `~/` (only that form); the rest is literal."""
    local.write_file(f"{local.home}/notes dir/a.txt", b"from home")
    context = SetupContext(cache=FileCache(tmp_path), task_dir=tmp_path)
    [read] = run_steps(
        [Step(type="execute", parameters={"command": ["cat", "~/notes dir/a.txt"]})], local, context
    )
    assert (read["returncode"], read["output"]) == (0, "from home")
    [echo] = run_steps(
        [Step(type="execute", parameters={"command": ["echo", "x~/y", "~root/z", "~", "$HOME"]})],
        local,
        context,
    )
    assert echo["output"].strip() == "x~/y ~root/z ~ $HOME"


def test_bad_task_files_are_rejected_clearly(tmp_path, local, cache):
    home_before = sorted(Path(local.home).iterdir())  # a new home holds only the LibreOffice profile
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(TaskError, match="not valid JSON"):
        load_task(broken)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(
        json.dumps({"id": "u", "instruction": "x", "evaluator": {"func": "compare_holograms"}})
    )
    with pytest.raises(TaskError, match="unsupported: metric compare_holograms"):
        prepare_task(unknown, local, cache)
    getter = {
        "func": "exact_match",
        "result": {"type": "vm_screen"},
        "expected": {"type": "rule", "rules": {}},
    }
    unknown.write_text(json.dumps({"id": "g", "instruction": "x", "evaluator": getter}))
    with pytest.raises(TaskError, match="unsupported: getter vm_screen"):
        prepare_task(unknown, local, cache)
    assert sorted(Path(local.home).iterdir()) == home_before  # nothing was set up


def test_home_paths_map_onto_the_sandbox_home():
    home_map = HomeMap("/tmp/work/home")
    assert (
        home_map.text("/home/user/a.xlsx and '/home/user' ~/b")
        == "/tmp/work/home/a.xlsx and '/tmp/work/home' ~/b"
    )
    assert home_map.text("/home/username/x /data/home/user/x") == "/home/username/x /data/home/user/x"
    assert home_map.apply({"cmd": ["cp", "/home/user/a", "x=/home/user/b"], "n": 1}) == {
        "cmd": ["cp", "/tmp/work/home/a", "x=/tmp/work/home/b"],
        "n": 1,
    }
    assert HomeMap("/home/user").identity


def test_instruction_given_to_the_agent_names_the_sandbox_home(tmp_path, cache, local):
    prepared = prepare_task(FIXTURES / "libreoffice_calc/sales-sheet-data.json", local, cache)
    assert prepared.instruction.startswith(f"In {local.home}/Sales.xlsx,")
    assert (Path(local.home) / "Sales.xlsx").is_file()
    shutil.rmtree(Path(local.home))


def test_a_task_run_alone_is_filed_where_eval_run_files_it(tmp_path):
    shipped = [task for suite in sorted(SHIPPED_SUITES.iterdir()) for task in discover(suite)]
    assert {task.domain for task in shipped} >= {"long"}
    for suite_task in shipped:  # `stateact run --task` and `stateact eval run` share one results folder
        assert standalone_domain(suite_task.path, suite_task.task) == suite_task.domain, suite_task.path
    raw = json.loads(shipped[0].path.read_text())
    for folder, domain in (("tasks", None), ("libreoffice_calc", "libreoffice_calc")):
        lone = tmp_path / folder / "lone.json"
        lone.parent.mkdir()
        lone.write_text(json.dumps({**raw, "related_apps": ["vlc"]}))
        assert standalone_domain(lone, load_task(lone)) == (domain or "vlc")
