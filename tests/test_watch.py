"""The live view (`stateact watch`, `run --watch`) in a real Chromium, and the display's video of a task.

A scripted task run waits in its second step for a file the test writes, then opens a red xterm: the
page must show the new events and the new picture of the display. Each run keeps a playable video
(checked with ffprobe), also when it is stopped with Ctrl-C; `--no-record` keeps none.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import sync_playwright

from stateact.app.watch import ADDRESS_FILE, RunFolders, WatchServer
from stateact.kernel.events import RunStart, ToolCall, read_events
from stateact.kernel.runlog import RunLog
from stateact.sandbox.processes import tagged_pids
from stateact.subagents.settings import WEB_CHROMIUM_ARGS, WEB_CHROMIUM_PATH
from tests.test_osworld_tasks import FIXTURES

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "COLUMNS": "300"}
TASK = FIXTURES / "os" / "answer-any.json"
RED_XTERM = "nohup xterm -bg red -geometry 200x60+0+0 >/dev/null 2>&1 &"
WAITING_SCRIPT = [
    {"tool_calls": [{"name": "bash", "input": {"command": "echo ready"}}]},
    {
        "tool_calls": [
            {
                "name": "bash",
                "input": {
                    "command": f"until [ -e ~/go ]; do sleep 0.2; done; {RED_XTERM} sleep 2; echo shown"
                },
            }
        ]
    },
    {"delay": 2, "tool_calls": [{"name": "bash", "input": {"command": "printf 42 > ~/answer.txt"}}]},
    {"tool_calls": [{"name": "finish", "input": {"summary": "answer.txt holds 42"}}]},
]


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "stateact", *args],
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def task_run(tmp_path: Path, script: list[dict], *extra: str) -> tuple[subprocess.Popen, Path]:
    """`stateact run --task` of the answer task with `script` as the model; returns it and its home."""
    (tmp_path / "script.json").write_text(json.dumps(script))
    home = tmp_path / "home"
    proc = start(
        "run",
        "--task",
        str(TASK),
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--harness",
        "no-verify",
        "--workdir",
        str(home),
        "--runs-root",
        str(tmp_path / "runs"),
        "--results",
        str(tmp_path / "results"),
        "--cache",
        str(tmp_path / "cache"),
        *extra,
    )
    return proc, home


def read_line(proc: subprocess.Popen, pattern: str, timeout: float = 90) -> re.Match:
    """The first line of `proc`'s output that matches `pattern` (the lines before it are skipped)."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        if match := re.search(pattern, line):
            return match
    raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(seen)}")


def playable(video: Path) -> float:
    """The video's length in seconds, as ffprobe reads it after decoding every frame (0: unplayable)."""
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames"]
        + ["-show_entries", "format=duration", "-of", "json", str(video)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    info = json.loads(probe.stdout)
    (stream,) = info["streams"]
    assert stream["codec_name"] == "h264" and int(stream["nb_read_frames"]) > 0
    return float(info["format"]["duration"])


def red_share(png: bytes) -> float:
    """The share of pure-ish red pixels in a picture."""
    from io import BytesIO

    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB")).astype(int)
    red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    return float(((red > 200) & (green < 60) & (blue < 60)).mean())


def no_processes_of(run_dir: Path) -> None:
    tags = {e.sandbox_tag for e in read_events(run_dir / "events.jsonl") if isinstance(e, RunStart)}
    assert tags and all(not tagged_pids(tag) for tag in tags if tag)


@pytest.fixture
def stopped_at_end() -> Iterator[list[subprocess.Popen]]:
    """Processes a test starts, ended (and waited for) whatever happens."""
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.mark.apps
def test_watch_page_follows_a_running_task_and_its_display_then_the_task_keeps_a_video(
    tmp_path, stopped_at_end
):
    run, home = task_run(tmp_path, WAITING_SCRIPT)
    stopped_at_end.append(run)
    read_line(run, r"follow it live: stateact watch .*runs")
    read_line(run, r"display :\d+")
    watch = start("watch", str(tmp_path / "runs"))
    stopped_at_end.append(watch)
    url = read_line(watch, r"at (http://127\.0\.0\.1:\d+/)")[1]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=WEB_CHROMIUM_PATH, headless=True, args=list(WEB_CHROMIUM_ARGS)
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            problems: list[str] = []
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(url)
            page.wait_for_function(
                "document.querySelectorAll('#events .row.tool_call').length >= 1", timeout=60_000
            )
            page.wait_for_function(
                "Number(document.querySelector('#screen').dataset.frames) >= 1", timeout=60_000
            )
            assert "live" in page.inner_text("#state") and re.fullmatch(r":\d+", page.inner_text("#display"))
            before = page.locator("#events .row").count()
            first_screen = page.locator("#screen").screenshot()
            assert red_share(first_screen) < 0.05
            (home / "go").touch()  # the run goes on: a red xterm, then the step's result
            page.wait_for_function(
                "[...document.querySelectorAll('#events .row.tool_result')].some(r => r.textContent.includes('shown'))",
                timeout=60_000,
            )
            assert page.locator("#events .row").count() > before
            deadline = time.monotonic() + 30
            while red_share(page.locator("#screen").screenshot()) < 0.3:
                assert time.monotonic() < deadline, "the display's picture never showed the red xterm"
                time.sleep(0.5)
            assert not problems
        finally:
            browser.close()
    out, _ = run.communicate(timeout=240)
    assert run.returncode == 0, out
    assert "score 1" in out
    (result_txt,) = (tmp_path / "results").rglob("result.txt")
    video = result_txt.parent / "recording.mp4"
    assert playable(video) >= 2
    (run_dir,) = (folder for folder in (tmp_path / "runs").iterdir() if folder.is_dir())
    assert (run_dir / "recording.mp4").samefile(video)
    no_processes_of(run_dir)
    lines = [json.loads(line) for line in (result_txt.parent / "traj.jsonl").read_text().splitlines()]
    assert [line["action"]["tool"] for line in lines] == ["bash", "bash", "bash", "finish"]
    watch.send_signal(signal.SIGINT)
    watch.wait(timeout=30)
    assert watch.returncode == 0 and not (tmp_path / "runs" / ADDRESS_FILE).exists()


@pytest.mark.apps
def test_run_with_watch_serves_its_run_and_ctrl_c_leaves_a_playable_video(tmp_path, stopped_at_end):
    run, home = task_run(tmp_path, WAITING_SCRIPT, "--watch")
    stopped_at_end.append(run)
    url = read_line(run, r"watch it live: (http://127\.0\.0\.1:\d+/)")[1]
    read_line(run, r"display :\d+")
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert json.loads((run_dir / ADDRESS_FILE).read_text())["url"] == url
    deadline = time.monotonic() + 60
    while not any(isinstance(e, ToolCall) for e in read_events(run_dir / "events.jsonl")):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    (runs,) = httpx.get(url + "api/runs", timeout=10).json()
    assert runs["id"] == "." and runs["live"] and re.fullmatch(r":\d+", runs["display"])
    events = httpx.get(url + "api/events", params={"run": ".", "from": 0}, timeout=10).json()
    kinds = [row["kind"] for row in events["rows"]]
    assert kinds[0] == "run_start" and "tool_call" in kinds and events["live"]
    screen = httpx.get(url + "api/screen", params={"run": "."}, timeout=30)
    assert screen.status_code == 200 and screen.headers["content-type"] == "image/jpeg"
    time.sleep(2)  # a few seconds of video
    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=120)
    assert run.returncode == 130, out
    assert playable(run_dir / "recording.mp4") > 0
    no_processes_of(run_dir)
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, timeout=5)


@pytest.mark.apps
def test_no_record_keeps_no_video(tmp_path):
    script = [
        {"tool_calls": [{"name": "bash", "input": {"command": "printf 42 > ~/answer.txt"}}]},
        {"tool_calls": [{"name": "finish", "input": {"summary": "answer.txt holds 42"}}]},
    ]
    run, _ = task_run(tmp_path, script, "--no-record")
    out, _ = run.communicate(timeout=240)
    assert run.returncode == 0 and "score 1" in out, out
    assert not list(tmp_path.rglob("*.mp4"))


def test_a_log_is_read_in_whole_lines_from_where_the_page_stopped(tmp_path):
    run_dir = tmp_path / "results" / "task" / "run"
    log = RunLog(run_dir)
    log.emit(RunStart(instruction="x", display=":42"))
    log.emit(ToolCall(id="1", name="bash", input={"command": "ls"}))
    log.close()
    with (run_dir / "events.jsonl").open("a") as handle:
        handle.write('{"kind": "tool_res')  # a line still being written
    folders = RunFolders(tmp_path / "results")
    assert folders.runs() == [{"id": "task/run", "live": True, "display": ":42"}]
    first = folders.events("task/run", 0)
    assert [row["kind"] for row in first["rows"]] == ["run_start", "tool_call"]
    assert first["rows"][1]["title"] == "bash" and "ls" in first["rows"][1]["text"]
    assert folders.events("task/run", first["next"])["rows"] == []
    with (run_dir / "events.jsonl").open("a") as handle:
        handle.write('ult", "id": "1", "name": "bash", "text": "a.txt"}\n')
    (row,) = folders.events("task/run", first["next"])["rows"]
    assert row["kind"] == "tool_result" and row["text"] == "a.txt"
    (run_dir / "result.json").write_text("{}")
    assert not folders.runs()[0]["live"]
    for outside in ("..", "../..", "/etc", "task"):
        with pytest.raises(KeyError):
            folders.folder(outside)


def log_lines(run_dir: Path) -> int:
    return len((run_dir / "events.jsonl").read_text().splitlines())


@pytest.fixture
def chromium_page() -> Iterator:
    """A page of Debian's Chromium, 1280×800, that records the URLs it asks for (`page.asked`)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=WEB_CHROMIUM_PATH, headless=True, args=list(WEB_CHROMIUM_ARGS)
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.asked = []
            page.problems = []
            page.on("request", lambda request: page.asked.append(request.url))
            page.on("pageerror", lambda error: page.problems.append(str(error)))
            yield page
        finally:
            browser.close()


@pytest.mark.slow
def test_watch_of_an_ended_run_without_a_display_shows_its_end_and_no_display_pane(tmp_path, chromium_page):
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "stateact", "run", "Write ~/notes/todo.md with a checklist"]
        + ["--model", "scripted:quickstart", "--no-display", "--runs-root", str(runs)],
        cwd=tmp_path,
        env={**ENV, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (folder for folder in runs.iterdir() if folder.is_dir())
    page = chromium_page
    with WatchServer(runs) as server:
        page.goto(server.url)
        page.wait_for_selector("#end.shown", timeout=30_000)
        time.sleep(2.5)  # a few polls: none of them may ask for a screen
        page.screenshot(path=str(tmp_path / "watch-ended-no-display.png"))
        assert page.locator("#events .row").count() == log_lines(run_dir)
        assert page.locator("#events .row").last.get_attribute("class") == "row run_end"
        end = page.inner_text("#end")
        assert end.startswith("ended: finished · gate passed · $0.0000 · ") and " turns · " in end, end
        assert page.inner_text("#state") == "ended" and page.inner_text("#display") == "none"
        assert not page.locator("#screen-box").is_visible()
        assert not [url for url in page.asked if "/api/screen" in url]
        assert not page.problems


@pytest.mark.apps
def test_a_page_watching_a_run_with_watch_sees_its_end_and_keeps_its_last_frame(tmp_path, chromium_page):
    run, home = task_run(tmp_path, WAITING_SCRIPT, "--watch")
    try:
        url = read_line(run, r"watch it live: (http://127\.0\.0\.1:\d+/)")[1]
        page = chromium_page
        page.goto(url)
        page.wait_for_function(
            "Number(document.querySelector('#screen').dataset.frames) >= 1", timeout=60_000
        )
        (home / "go").touch()  # the run goes on to its end; the server stops with it
        out, _ = run.communicate(timeout=240)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, out
    (run_dir,) = (folder for folder in (tmp_path / "runs").iterdir() if folder.is_dir())
    page.wait_for_selector("#end.shown", timeout=10_000)
    page.screenshot(path=str(tmp_path / "watch-ended-with-display.png"))
    assert page.locator("#events .row").count() == log_lines(run_dir)
    assert page.locator("#events .row").last.get_attribute("class") == "row run_end"
    assert page.inner_text("#end").startswith("ended: finished")
    assert page.inner_text("#state") == "ended"
    pane, frame = page.locator("#screen-box").bounding_box(), page.locator("#screen").bounding_box()
    assert frame["height"] > 100 and frame["width"] == pytest.approx(pane["width"], abs=1)
    assert frame["y"] >= pane["y"] and frame["y"] + frame["height"] <= pane["y"] + pane["height"] + 1
    note = page.locator("#screen-note")
    assert note.inner_text().startswith("the run ended; its last frame")
    line = float(note.evaluate("n => parseFloat(getComputedStyle(n).lineHeight) || 20"))
    assert note.bounding_box()["height"] < 3 * line, "the caption wraps word by word"
    assert not page.problems
