"""check_python_file_by_test_suite runs a task's test function in a child process, in a copy of
the scoring folder, within a time limit; unimplemented options of the general metrics are refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from stateact.evals import settings
from stateact.evals.osworld.metrics import METRICS, MetricUnsupported, check_metric_options

check_suite = METRICS["check_python_file_by_test_suite"]


def test_the_test_runs_in_a_copy_of_its_folder(tmp_path):
    (tmp_path / "game.py").write_text("SCORE = 3\n")
    test_file = tmp_path / "test_suite.py"
    test_file.write_text(
        "from pathlib import Path\nimport game\n\n"
        "def test():\n    Path('written.txt').write_text('x')\n    return game.SCORE == 3\n"
    )
    assert check_suite([str(tmp_path / "game.py")], str(test_file)) == 1.0
    assert not (tmp_path / "written.txt").exists()


def test_result_files_kept_elsewhere_are_importable(tmp_path):
    (tmp_path / "agent").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "agent" / "tetris_board.py").write_text("ROWS = 20\n")
    test_file = tmp_path / "gold" / "test_suite.py"
    test_file.write_text("import tetris_board\n\ndef test():\n    return tetris_board.ROWS / 40\n")
    assert check_suite([str(tmp_path / "agent" / "tetris_board.py"), None], str(test_file)) == 0.5


@pytest.mark.slow
def test_a_test_past_the_time_limit_scores_0_and_its_processes_end(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "TEST_SUITE_TIMEOUT_S", 1.0)
    marker = tmp_path / "pid"
    test_file = tmp_path / "test_suite.py"
    test_file.write_text(
        "import subprocess, time\n\ndef test():\n"
        f"    child = subprocess.Popen(['sleep', '60'])\n    open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "    time.sleep(60)\n    return True\n"
    )
    started = time.monotonic()
    assert check_suite([], str(test_file)) == 0.0
    assert time.monotonic() - started < 15
    pid = int(marker.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    ("name", "options"),
    [("literal_match", {"type": "dict"}), ("check_accessibility_tree", {"osname": "plan9"})],
)
def test_unimplemented_options_are_refused_before_scoring(name, options):
    with pytest.raises(MetricUnsupported):
        check_metric_options(name, options)
    check_metric_options(name, {})
