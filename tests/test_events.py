"""Typed events: every kind round-trips through the run log; logs written before the types read,
show and resume; unknown kinds, torn lines and malformed fields are handled."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest

from stateact.app.resume import load_run_state
from stateact.gate.events import GateVerdict
from stateact.kernel.events import (
    EVENT_TYPES,
    Event,
    EventLogError,
    MessageEvent,
    Response,
    RunStart,
    ToolCall,
    ToolResultEvent,
    read_events,
    register_event,
)
from stateact.kernel.messages import Message, TextBlock, Usage
from stateact.kernel.runlog import RunLog

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
OLD_LOG = FIXTURES / "run_before_typed_events.jsonl"
"""A finished run's log as the harness wrote it before events were typed (scripted quickstart)."""
OLD_RUN = FIXTURES / "run_before_typed_events"
"""The same run cut after its sixth main turn, as a kill leaves it (no result.json)."""
TODO = "# Todo\n\n- [ ] buy milk\n- [x] call Bob\n"
"""What the six turns before the stop left in ~/notes/todo.md."""


def sample(annotation: Any, seed: int) -> Any:
    """A value of a field's type that differs from every default."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)), seed)
    if origin is list:
        return [sample(args[0], seed)]
    if origin is dict:
        return {f"key{seed}": sample(args[1], seed)}
    if annotation is Message:
        return Message(role="assistant", content=[TextBlock(text=f"said {seed}")])
    if annotation is Usage:
        return Usage(input_tokens=seed, output_tokens=seed + 1)
    if annotation is bool:
        return True
    if annotation in (int, float):
        return annotation(seed + 7)
    return f"value {seed}"


def full_event(model: type[Event]) -> Event:
    """An event of `model` with every field set."""
    values = {
        name: sample(field.annotation, index)
        for index, (name, field) in enumerate(model.model_fields.items())
        if name not in ("seq", "t", "kind")
    }
    return model(**values)


def test_every_kind_round_trips_through_the_log(tmp_path):
    log = RunLog(tmp_path)
    written = [log.emit(full_event(model)) for model in EVENT_TYPES.values()]
    log.close()

    read = list(read_events(log.events_path))
    assert len(EVENT_TYPES) >= 35
    assert [type(e) for e in read] == list(EVENT_TYPES.values())
    assert read == written
    assert [e.seq for e in read] == list(range(1, len(written) + 1))
    lines = [json.loads(line) for line in log.events_path.read_text().splitlines()]
    assert all(list(line)[:4] == ["seq", "t", "kind", "scope"] for line in lines)  # the format on disk


def test_a_log_written_before_the_types_reads_whole():
    raw = [json.loads(line) for line in OLD_LOG.read_text().splitlines()]
    events = list(read_events(OLD_LOG))

    assert len(events) == len(raw) == 86
    assert all(type(e) is EVENT_TYPES[r["kind"]] for e, r in zip(events, raw, strict=True))
    for event, record in zip(events, raw, strict=True):  # nothing lost or changed
        dumped = event.model_dump(mode="json")
        assert {k: dumped[k] for k in record} == record
    responses = [e for e in events if isinstance(e, Response)]
    assert [e.role for e in responses] == ["main"] * 9 + ["gate"] * 2
    assert sum(e.usage.input_tokens for e in responses) > 0
    (verdict,) = [e for e in events if isinstance(e, GateVerdict)]
    assert verdict.passed is True and verdict.scope == "gate#1"


def resume_env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "300", "PYTHONPATH": str(REPO)}


@pytest.mark.slow
def test_a_run_stopped_before_the_types_shows_and_resumes(tmp_path):
    run_dir, home = tmp_path / "runs" / OLD_RUN.name, tmp_path / "home"
    shutil.copytree(OLD_RUN, run_dir)
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.md").write_text(TODO)
    config = json.loads((run_dir / "config.json").read_text())
    config.update(workdir=str(home), runs_root=str(run_dir.parent))
    (run_dir / "config.json").write_text(json.dumps(config))
    old_lines = (run_dir / "events.jsonl").read_text().splitlines()
    with (run_dir / "events.jsonl").open("a") as handle:
        handle.write('{"seq": 18, "t": 1796090686.0, "kind": "requ')  # the write the kill tore

    state = load_run_state(run_dir)
    assert state.main_turns == 6 and [m.role for m in state.history] == ["user", "assistant"] * 6 + ["user"]
    assert state.completed_responses["main"] == 6
    shown = subprocess.run(
        [sys.executable, "-m", "stateact", "show", str(run_dir)],
        cwd=REPO, env=resume_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert (
        "mkdir -p ~/notes" in shown.stdout and "gate_baseline" in shown.stdout and "call Bob" in shown.stdout
    )

    resumed = subprocess.run(
        [sys.executable, "-m", "stateact", "resume", str(run_dir)],
        cwd=REPO, env=resume_env(), capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    assert lines[: len(old_lines)] == old_lines  # the old lines stay as written; the torn one is cut
    events = list(read_events(run_dir / "events.jsonl"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.id for e in events if isinstance(e, ToolCall) and e.scope == "main"] == [
        f"toolu_s{n:04d}_0" for n in range(1, 10)
    ]  # the script went on at its seventh turn: the scripted model resumed as any model does
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["gate_passed"], result["turns"]) == ("finished", True, 9)


def test_an_unknown_kind_reads_as_a_generic_event_with_its_fields(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [
        {"seq": 1, "t": 1.0, "kind": "from_a_newer_version", "scope": "main", "detail": {"a": [1]}},
        {"seq": 2, "t": 2.0, "kind": "tool_result", "scope": "web#1", "id": "c1", "added_later": 3},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    unknown, known = read_events(path)
    assert type(unknown) is Event and unknown.kind == "from_a_newer_version"
    assert unknown.details() == {"detail": {"a": [1]}}
    assert isinstance(known, ToolResultEvent) and known.id == "c1" and known.details()["added_later"] == 3
    assert unknown.model_dump(mode="json") == lines[0]


def test_a_kind_is_registered_once_by_a_model_of_its_own():
    class Twin(Event):
        kind: Literal["gate_verdict"] = "gate_verdict"

    class Kindless(Event):
        pass

    with pytest.raises(
        ValueError, match="event kind 'gate_verdict' is stateact.gate.events.GateVerdict's already"
    ):
        register_event(Twin)
    with pytest.raises(ValueError, match="Kindless has no `kind` of its own"):
        register_event(Kindless)
    assert EVENT_TYPES["gate_verdict"] is GateVerdict and register_event(GateVerdict) is GateVerdict


def kinds_after(statement: str) -> list[str]:
    """The registered kinds of a fresh interpreter after `statement`."""
    code = f"{statement}\nfrom stateact.kernel.events import EVENT_TYPES\nprint(' '.join(EVENT_TYPES))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=resume_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_roles_register_their_kinds_and_the_application_imports_every_role():
    kernel = kinds_after("import stateact.kernel.events")
    application = kinds_after("import stateact.app")
    roles = set(application) - set(kernel)
    assert "tool_call" in kernel and not any(kind.startswith(("gate_", "gui_", "web_")) for kind in kernel)
    assert roles == {kind for kind in EVENT_TYPES if kind.startswith(("gate_", "gui_", "web_"))}
    assert len(roles) == 17 and {"gate_verdict", "gui_report", "web_page_saved"} <= roles
    assert {json.loads(line)["kind"] for line in OLD_LOG.read_text().splitlines()} <= set(application)


def test_a_torn_line_is_skipped_on_reading_and_cut_before_appending(tmp_path):
    log = RunLog(tmp_path)
    log.emit(RunStart(instruction="task"))
    log.close()
    with log.events_path.open("a") as handle:
        handle.write('{"seq": 2, "t": 3.5, "kind": "tool_ca')
    assert [e.kind for e in read_events(log.events_path)] == ["run_start"]

    again = RunLog(tmp_path)
    again.emit(ToolCall(id="c1", name="bash"))
    again.close()
    assert [(e.seq, e.kind) for e in read_events(log.events_path)] == [(1, "run_start"), (2, "tool_call")]


def test_a_line_not_json_before_the_last_is_damage_naming_the_line(tmp_path):
    path = tmp_path / "events.jsonl"
    good = {"seq": 1, "t": 1.0, "kind": "run_start", "scope": "main", "instruction": "x"}
    path.write_text(json.dumps(good) + '\n{"seq": 2, "t"\n\n' + json.dumps({**good, "seq": 3}) + "\n")

    with pytest.raises(EventLogError, match=rf"{path} line 2 is not JSON; the log is damaged"):
        list(read_events(path))
    seen: list[int] = []
    assert [e.seq for e in read_events(path, on_damaged=seen.append)] == [1, 3]
    assert seen == [2]
    assert [e.seq for e in read_events(path, lenient=True)] == [1, 3]


def test_a_malformed_field_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "events.jsonl"
    good = {"seq": 1, "t": 1.0, "kind": "run_start", "scope": "main", "instruction": "x"}
    bad = {"seq": 2, "t": 2.0, "kind": "tool_result", "scope": "main", "id": "c1", "is_error": "maybe"}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")

    with pytest.raises(EventLogError) as raised:
        list(read_events(path))
    assert str(raised.value).startswith(f"{path} line 3: bad `tool_result` event: field `is_error`:")
    (path.parent / "other.jsonl").write_text("[1, 2]\n")
    with pytest.raises(EventLogError, match=r"other.jsonl line 1: not an event"):
        list(read_events(path.parent / "other.jsonl"))


def test_lenient_reading_repairs_fields_for_reports(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [
        "[1, 2]",
        json.dumps({"kind": "tool_result", "scope": "main", "id": 7, "text": {"odd": True}, "is_error": "x"}),
        json.dumps({"kind": "message", "scope": "main", "message": "hello"}),
    ]
    path.write_text("\n".join(lines) + "\n")

    result, message = read_events(path, lenient=True)
    assert isinstance(result, ToolResultEvent)
    assert (result.id, result.text, result.is_error) == ("7", "{'odd': True}", False)
    assert type(message) is Event and not isinstance(message, MessageEvent) and message.kind == "message"


def test_every_field_gets_a_sample_other_than_its_default():
    """The round trip above sets every field of every kind."""
    for model in EVENT_TYPES.values():
        event = full_event(model)
        for name, field in model.model_fields.items():
            if name not in ("seq", "t", "kind", "scope"):
                assert getattr(event, name) != field.get_default(call_default_factory=True), (model, name)


@pytest.mark.slow
def test_show_and_resume_name_the_malformed_line(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(OLD_RUN, run_dir)
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    broken = json.loads(lines[5])
    broken["usage"] = "many"
    lines[5] = json.dumps(broken)
    (run_dir / "events.jsonl").write_text("\n".join(lines) + "\n")

    for command in ("show", "resume"):
        done = subprocess.run(
            [sys.executable, "-m", "stateact", command, str(run_dir)],
            cwd=REPO, env=resume_env(), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        output = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 2, output
        assert "events.jsonl line 6: bad `response` event: field `usage`" in output
