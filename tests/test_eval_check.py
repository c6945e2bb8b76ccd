"""`stateact eval check` and the pre-flight check of a run, on an OSWorld-layout suite of our own tasks."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.app.exit_codes import ExitCode
from stateact.evals import settings
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.chrome.history import EMPTY_HISTORY_NAME, EMPTY_HISTORY_URL
from stateact.evals.osworld.local_machine import SUDO
from stateact.evals.osworld.task import load_task
from stateact.evals.running.check import FileNeed, check_suite, file_needs, preflight, runtime_urls
from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.results import ERROR_FILE, RESULT_FILE
from stateact.evals.running.suite_runner import run_suite
from tests.support.file_server import served_files
from tests.test_eval_errors import run_task_command
from tests.test_eval_runner import run_cli

REPO = Path(__file__).resolve().parent.parent
GONE = "/gold/gone.csv"
RULES = {
    "func": "exact_match",
    "result": {"type": "rule", "rules": "a"},
    "expected": {"type": "rule", "rules": {"expected": "a"}},
}


def tasks(gone_url: str) -> dict[str, dict]:
    """Task files by id (each in the `os` domain): every corner case the check must take."""
    csv_gold = {
        "func": "compare_csv",
        "result": {"type": "vm_file", "path": "/home/user/out.csv", "dest": "out.csv"},
        "expected": {"type": "cloud_file", "path": gone_url, "dest": "gold.csv"},
    }
    sudo = [{"type": "execute", "parameters": {"command": "echo password | sudo -S true", "shell": True}}]
    install = [
        {
            "type": "execute",
            "parameters": {"command": "echo password | sudo -S apt-get install -y zsh", "shell": True},
        }
    ]
    return {
        "listed-source": {
            "source": ["https://example.org/a", "https://example.org/b"],
            "snapshot": {"name": "base"},
            "proxy": "yes",
            "possibility_of_env_change": 3,
            "evaluator": RULES,
        },
        "empty-func": {"evaluator": {"func": "", "result": {}, "expected": {}}},
        "malformed": {"evaluator": "evaluation_dir"},
        "made-up-metric": {
            "evaluator": {
                "func": ["compare_holograms", "exact_match"],
                "result": [{"type": "hologram_state", "dest": "state"}, {"type": "rule", "rules": 1}],
                "expected": [None, {}],
            }
        },
        "gold-gone": {"evaluator": csv_gold},
        "needs-sudo": {"config": sudo, "related_apps": ["os"], "evaluator": csv_gold},
        "needs-vm": {"config": install, "evaluator": RULES},
    }


@pytest.fixture
def server():
    with served_files({}) as running:
        yield running


@pytest.fixture
def suite(tmp_path, server) -> Path:
    root = tmp_path / "evaluation_examples"
    folder = root / "examples" / "os"
    folder.mkdir(parents=True)
    files = tasks(server.url(GONE))
    for task_id, fields in files.items():
        task = {"id": task_id, "instruction": "Do the task.", "config": [], **fields}
        (folder / f"{task_id}.json").write_text(json.dumps(task))
    (root / "test_all.json").write_text(json.dumps({"os": list(files)}))
    return root


def check_command(*args: str) -> subprocess.CompletedProcess:
    """`stateact eval check ARGS`, its output and errors apart."""
    command = [sys.executable, "-m", "stateact", "eval", "check", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_check_prints_a_row_per_task_and_the_counts(suite, server, tmp_path):
    done = check_command(str(suite), "--cache", str(tmp_path / "cache"), "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["task_id"]: row for row in map(json.loads, done.stdout.splitlines())}  # data only
    assert done.stderr.strip() == "scorable=4/7 local=1/7"
    assert {task: row["status"] for task, row in rows.items()} == {
        "listed-source": "local",
        "empty-func": "unscorable",
        "malformed": "unreadable",
        "made-up-metric": "unscorable",
        "gold-gone": "scorable",
        "needs-sudo": "scorable",
        "needs-vm": "scorable",
    }
    assert rows["malformed"]["problem"].endswith(
        "is not an OSWorld task: evaluator: Input should be a valid dictionary or instance of Evaluator"
    )
    assert rows["empty-func"]["unsupported"] == [
        "no metric (`func` is empty; OSWorld cannot set such a task up either)"
    ]
    assert rows["made-up-metric"]["unsupported"] == ["metric compare_holograms", "getter hologram_state"]
    [unreachable] = rows["gold-gone"]["unreachable"]
    assert unreachable == f"expected {server.url(GONE)}: HTTP 404"
    assert rows["needs-sudo"]["unreachable"] == [unreachable]
    assert server.requests[GONE] == 1  # one probe for the two tasks
    assert rows["needs-sudo"]["needs"] == ["sudo"]
    assert rows["needs-sudo"]["lacks"] == ([] if SUDO else ["sudo: the local sandbox's user cannot run sudo"])
    assert rows["needs-vm"]["needs"] == ["sudo", "network", "vm"]
    assert rows["needs-vm"]["lacks"][-1].startswith("needs a VM: the setup runs `sudo apt-get`")


@pytest.mark.slow
def test_csv_is_data_only_and_a_task_is_named_as_the_rows_name_it(suite, tmp_path):
    done = check_command(str(suite), "--cache", str(tmp_path), "--csv", "--task-id", "os/made-up-metric")
    assert done.returncode == 0, done.stderr
    [row] = list(csv.DictReader(io.StringIO(done.stdout)))
    assert (row["domain"], row["task_id"], row["status"]) == ("os", "made-up-metric", "unscorable")
    assert done.stderr.strip() == "scorable=0/1 local=0/1"


@pytest.mark.slow
def test_an_id_two_domains_use_is_refused_with_both_choices(tmp_path):
    root = tmp_path / "evaluation_examples"
    for domain in ("chrome", "thunderbird"):
        (root / "examples" / domain).mkdir(parents=True)
        task = {"id": "shared-id", "instruction": "Do it.", "config": [], "evaluator": RULES}
        (root / "examples" / domain / "shared-id.json").write_text(json.dumps(task))
    (root / "test_all.json").write_text(json.dumps({"chrome": ["shared-id"], "thunderbird": ["shared-id"]}))
    refused = check_command(str(root), "--cache", str(tmp_path), "--task-id", "shared-id")
    assert refused.returncode == 2 and refused.stdout == ""
    said = " ".join(refused.stderr.split())
    assert "task id shared-id is used in several domains" in said
    assert "give chrome/shared-id or thunderbird/shared-id" in said
    chosen = check_command(
        str(root), "--cache", str(tmp_path), "--json", "--task-id", "thunderbird/shared-id"
    )
    assert [json.loads(line)["domain"] for line in chosen.stdout.splitlines()] == ["thunderbird"]
    unknown = check_command(str(root), "--cache", str(tmp_path), "--task-id", "vlc/shared-id")
    assert unknown.returncode == 2 and "no task vlc/shared-id" in unknown.stderr


def test_check_text_rows_end_with_the_counts(suite, tmp_path):
    code, output = run_cli(
        "eval", "check", str(suite), "--task-id", "made-up-metric", "--cache", str(tmp_path)
    )
    assert code == 0, output
    assert (
        output
        == "unscorable os/made-up-metric unsupported: metric compare_holograms, getter hologram_state scorable=0/1 local=0/1"
    )


def test_a_suite_runs_past_an_unreadable_task_and_fails_unscorable_ones_before_the_agent(suite, tmp_path):
    script = tmp_path / "finish.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}]))
    results = tmp_path / "results"
    options = SuiteOptions(
        suite, ("bash-only",), f"scripted:{script}", results, tmp_path / "cache", display=False
    )
    outcomes = {o.job.task.id: o for o in run_suite(options)}
    assert outcomes["listed-source"].score == 1.0 and not outcomes["listed-source"].error
    for task_id in ("malformed", "empty-func", "made-up-metric", "gold-gone", "needs-sudo"):
        folder = outcomes[task_id].result_dir
        record = json.loads((folder / ERROR_FILE).read_text())
        assert not (folder / RESULT_FILE).exists() and not (folder / "run").exists(), task_id  # no agent ran
        assert "\n" not in record["error"] or task_id.startswith(("gold", "needs")), record["error"]
    malformed = json.loads((outcomes["malformed"].result_dir / ERROR_FILE).read_text())
    assert (malformed["stage"], malformed["what"]) == ("setup", "task file")
    gone = json.loads((outcomes["gold-gone"].result_dir / ERROR_FILE).read_text())
    assert (gone["stage"], gone["what"]) == ("scoring", "pre-flight check: expected file gold.csv")
    only = run_suite(
        SuiteOptions(
            suite,
            ("bash-only",),
            f"scripted:{script}",
            tmp_path / "only",
            tmp_path / "cache",
            display=False,
            only=("made-up-metric",),
        )
    )
    assert [o.job.task.id for o in only] == ["made-up-metric"] and "compare_holograms" in only[0].error


@pytest.mark.slow
def test_run_task_fails_an_unscorable_task_with_exit_3_before_the_model(suite, tmp_path):
    task = suite / "examples" / "os" / "made-up-metric.json"
    (tmp_path / "never-played.json").write_text("[]")  # a model call would end the run in error
    done = run_task_command(tmp_path, task, f"scripted:{tmp_path / 'never-played.json'}")
    assert done.returncode == ExitCode.ERROR == 3, done.stdout + done.stderr
    assert "pre-flight check" in done.stdout and "metric compare_holograms" in done.stdout
    assert not (tmp_path / "runs").exists() and not (tmp_path / "home").exists()  # no sandbox, no model


def test_website_getters_are_scorable_and_need_their_site(tmp_path):
    scholar = "https://scholar.invalid/citations?user=1"
    website = {
        "type": "info_from_website",
        "url": scholar,
        "infos": [{"selector": "#name"}],
        "backups": ["A"],
    }
    recreation = {"type": "gotoRecreationPage_and_get_html_content", "selector": "class", "class": "day"}
    root = tmp_path / "evaluation_examples"
    folder = root / "examples" / "chrome"
    folder.mkdir(parents=True)
    for task_id, expected in (("website", website), ("recreation", recreation)):
        evaluator = {"func": "exact_match", "result": {"type": "rule", "rules": "a"}, "expected": expected}
        task = {"id": task_id, "instruction": "Look it up.", "config": [], "evaluator": evaluator}
        (folder / f"{task_id}.json").write_text(json.dumps(task))
    rows = {check.task_id: check for check in check_suite(root, tmp_path / "cache")}
    assert rows["website"].scorable and rows["recreation"].scorable
    assert rows["website"].needs == ["network"] == rows["recreation"].needs
    assert rows["website"].lacks[0].startswith(f"network: {scholar} does not answer")
    assert rows["recreation"].lacks[0].startswith("network: https://www.recreation.gov/ does not answer")


def test_what_a_local_sandbox_lacks_is_named_systemd_sound_and_conda(tmp_path):
    commands = {
        "clock": "timedatectl set-timezone UTC",
        "sound": "pactl set-sink-volume @DEFAULT_SINK@ 50%",
        "conda": "conda create -y -n work python=3.11",
    }
    folder = tmp_path / "suite" / "os"
    folder.mkdir(parents=True)
    for task_id, command in commands.items():
        step = {"type": "execute", "parameters": {"command": command, "shell": True}}
        task = {"id": task_id, "instruction": "Do it.", "config": [step], "evaluator": RULES}
        (folder / f"{task_id}.json").write_text(json.dumps(task))
    rows = {check.task_id: check for check in check_suite(tmp_path / "suite", tmp_path / "cache")}
    assert not any(check.local for check in rows.values())
    assert rows["clock"].needs == ["systemd"]
    assert rows["clock"].lacks[0].startswith("systemd: the local sandbox runs no systemd")
    assert rows["sound"].needs == ["pulseaudio"] and rows["sound"].lacks[0].startswith("pulseaudio: ")
    assert "network" in rows["conda"].needs  # judged by asking the channel, which may answer elsewhere
    assert runtime_urls(load_task(folder / "conda.json")) == [settings.CONDA_CHANNEL_URL]


def test_a_fixed_file_a_setup_step_takes_is_checked_and_fetched_like_a_download(tmp_path):
    """A step that takes a file of its own from the cache (`update_browse_history`'s empty History) is one of the
    task's files: the check probes it, so a task is not local when it cannot be had, and the pre-flight fetches it."""
    visits = [{"url": "https://news.invalid/", "title": "News", "visit_time_from_now_in_seconds": 60}]
    step = {"type": "update_browse_history", "parameters": {"history": visits}}
    folder = tmp_path / "suite" / "chrome"
    folder.mkdir(parents=True)
    path = folder / "visits.json"
    path.write_text(
        json.dumps({"id": "visits", "instruction": "Clear it.", "config": [step], "evaluator": RULES})
    )
    assert file_needs(load_task(path)) == [
        FileNeed("update_browse_history", EMPTY_HISTORY_URL, EMPTY_HISTORY_NAME)
    ]
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / EMPTY_HISTORY_NAME).write_bytes(b"SQLite format 3\0")
    [row] = check_suite(tmp_path / "suite", cache)
    assert row.local and not row.unreachable
    assert preflight(load_task(path), FileCache(cache)) is None


def test_the_default_video_player_getter_needs_the_images_default_player(tmp_path):
    """`default_video_player` answers the VM image's default (Totem) until the task changes it: without Totem, a
    task asking for VLC would find VLC, the one player installed, and score without any work."""
    evaluator = {
        "func": "check_include_exclude",
        "result": {"type": "default_video_player"},
        "expected": {"type": "rule", "rules": {"include": ["vlc.desktop"]}},
    }
    folder = tmp_path / "suite" / "multi_apps"
    folder.mkdir(parents=True)
    (folder / "player.json").write_text(
        json.dumps({"id": "player", "instruction": "Use VLC.", "evaluator": evaluator})
    )
    [row] = check_suite(tmp_path / "suite", tmp_path / "cache")
    assert row.needs == ["app:totem"]
