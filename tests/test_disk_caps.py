"""The size text of `--disk-home` and `--disk-tmp`, and the command lines that take it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.exit_codes import ExitCode
from stateact.evals.cli import eval_app
from stateact.sandbox.caps import parse_size, size_text


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("10G", 10 * 2**30),
        ("512m", 512 * 2**20),
        ("1.5G", 3 * 2**29),
        ("4096", 4096),
        ("2GiB", 2 * 2**30),
        ("0", 0),
    ],
)
def test_sizes_are_read_in_binary_units(text, size):
    assert parse_size(text) == size
    assert parse_size(size_text(size)) == size


@pytest.mark.parametrize("text", ["", "ten", "-1G", "10X", "1e9"])
def test_a_bad_size_is_refused_naming_the_forms(text):
    with pytest.raises(ValueError, match="use a number with K, M, G or T"):
        parse_size(text)


@pytest.mark.parametrize(
    ("command", "args"),
    [(app, ["run", "x", "--model", "scripted:none.json"]), (eval_app, ["run", "no-such-suite"])],
)
def test_the_command_lines_refuse_a_bad_disk_cap_before_starting(tmp_path, monkeypatch, command, args):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "none.json").write_text("[]")  # a script that exists: only the bad cap is wrong
    result = CliRunner().invoke(command, [*args, "--disk-tmp", "lots"], env={"COLUMNS": "200"})
    assert result.exit_code == ExitCode.USAGE, result.output
    assert "--disk-home/--disk-tmp: not a size: 'lots'" in " ".join(result.output.split())
    assert not (tmp_path / "runs").exists()
