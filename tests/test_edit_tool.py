"""EditTool on real files through a LocalSandbox: every command and every error."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateact.kernel import settings
from stateact.kernel.tools.edit import EditTool
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context


@pytest.fixture
def context(tmp_path: Path):
    with run_context(tmp_path) as context:
        yield context


@pytest.fixture
def editor(context) -> EditTool:
    return EditTool(context)


@pytest.fixture
def home(context) -> Path:
    return Path(context.sandbox.home)


def error_text(tool: EditTool, **arguments) -> str:
    result = invoke(tool, **arguments)
    assert result.is_error, result.text
    return result.text


# -- view ------------------------------------------------------------------------
def test_view_file_with_line_numbers_and_ranges(editor: EditTool, home: Path) -> None:
    target = home / "notes.txt"
    target.write_text("alpha\nbeta\ngamma\ndelta\n")
    assert invoke(editor, command="view", path=str(target)).text == (
        "     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tdelta"
    )
    assert (
        invoke(editor, command="view", path=str(target), view_range=[2, 3]).text
        == "     2\tbeta\n     3\tgamma"
    )
    assert (
        invoke(editor, command="view", path=str(target), view_range=[3, -1]).text
        == "     3\tgamma\n     4\tdelta"
    )
    assert invoke(editor, command="view", path=str(target), view_range=[4, 99]).text == "     4\tdelta"


def test_view_range_errors(editor: EditTool, home: Path) -> None:
    target = home / "notes.txt"
    target.write_text("one\ntwo\n")
    assert "outside the file's lines 1-2" in error_text(
        editor, command="view", path=str(target), view_range=[5, 6]
    )
    assert "outside" in error_text(editor, command="view", path=str(target), view_range=[0, 1])
    assert "before its start" in error_text(editor, command="view", path=str(target), view_range=[2, 1])
    assert "view_range" in error_text(editor, command="view", path=str(target), view_range=[1])


def test_view_empty_file(editor: EditTool, home: Path) -> None:
    (home / "empty.txt").write_text("")
    assert invoke(editor, command="view", path=str(home / "empty.txt")).text.endswith("is empty.")


def test_long_view_is_cut_with_a_hint(editor: EditTool, home: Path) -> None:
    target = home / "long.txt"
    target.write_text("".join(f"line number {n} with some padding text\n" for n in range(1, 2001)))
    text = invoke(editor, command="view", path=str(target)).text
    assert len(text) <= settings.EDITOR_VIEW_CAP_CHARS + 200
    last_shown = int(text.split("\n")[-2].split("\t")[0])
    assert f"[view cut after line {last_shown} of 2000: use view_range [{last_shown + 1}, 2000]" in text
    single = home / "one_line.json"
    single.write_text("x" * (settings.EDITOR_VIEW_CAP_CHARS * 2))
    assert "alone is longer than" in invoke(editor, command="view", path=str(single)).text


def test_view_directory_two_levels_without_hidden(editor: EditTool, home: Path) -> None:
    (home / "docs" / "deep" / "deeper").mkdir(parents=True)
    (home / "docs" / "report.docx").write_bytes(b"PK")
    (home / "docs" / "deep" / "deeper" / "too_deep.txt").write_text("x")
    (home / ".hidden").mkdir()
    (home / ".hidden" / "secret.txt").write_text("x")
    (home / "docs" / ".dotfile").write_text("x")
    text = invoke(editor, command="view", path=str(home)).text
    lines = text.splitlines()
    assert lines[0].startswith(str(home))
    assert lines[1:] == ["docs/", "docs/deep/", "docs/report.docx"]
    assert "view_range" in error_text(editor, command="view", path=str(home), view_range=[1, 2])


def test_view_refuses_binary_and_non_utf8(editor: EditTool, home: Path) -> None:
    (home / "data.bin").write_bytes(b"\x00\x01\x02 not an image")
    assert "binary file" in error_text(editor, command="view", path=str(home / "data.bin"))
    (home / "latin1.txt").write_bytes("café".encode("latin-1"))
    assert "not UTF-8 text" in error_text(editor, command="view", path=str(home / "latin1.txt"))


def test_paths_must_be_absolute_and_exist(editor: EditTool, home: Path) -> None:
    text = error_text(editor, command="view", path="notes.txt")
    assert "must be absolute" in text and f"`{home / 'notes.txt'}`" in text
    assert f"`{home / '.config' / 'app.ini'}`" in error_text(editor, command="view", path="~/.config/app.ini")
    assert f"`{home / 'a.txt'}`" in error_text(editor, command="view", path="./a.txt")
    assert "does not exist" in error_text(editor, command="view", path=str(home / "missing.txt"))
    assert "does not exist" in error_text(editor, command="str_replace", path=str(home / "m"), old_str="a")


# -- create ------------------------------------------------------------------------
def test_create_makes_parents_and_refuses_to_overwrite(editor: EditTool, home: Path) -> None:
    target = home / "new" / "dir" / "script.py"
    result = invoke(editor, command="create", path=str(target), file_text="print('hi')\n")
    assert not result.is_error and "Created" in result.text
    assert target.read_text() == "print('hi')\n"
    text = error_text(editor, command="create", path=str(target), file_text="other")
    assert "already exists" in text
    assert target.read_text() == "print('hi')\n"
    assert "already exists" in error_text(editor, command="create", path=str(home), file_text="x")
    assert "file_text" in error_text(editor, command="create", path=str(home / "b.txt"))


# -- str_replace ------------------------------------------------------------------------
def test_str_replace_exactly_once(editor: EditTool, home: Path) -> None:
    target = home / "config.ini"
    target.write_text("[main]\nname = old\nsize = 3\n")
    result = invoke(
        editor, command="str_replace", path=str(target), old_str="name = old", new_str="name = new"
    )
    assert not result.is_error
    assert target.read_text() == "[main]\nname = new\nsize = 3\n"
    assert "     2\tname = new" in result.text
    invoke(editor, command="str_replace", path=str(target), old_str="size = 3\n")
    assert target.read_text() == "[main]\nname = new\n"


def test_str_replace_errors(editor: EditTool, home: Path) -> None:
    target = home / "dup.txt"
    original = "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"
    target.write_text(original)
    several = error_text(editor, command="str_replace", path=str(target), old_str="x = 1", new_str="x = 9")
    assert "matches 3 times" in several and "lines 1, 3, 5" in several
    missing = error_text(editor, command="str_replace", path=str(target), old_str="y  = 2", new_str="y")
    assert "not found" in missing and "whitespace" in missing
    assert "non-empty" in error_text(editor, command="str_replace", path=str(target), old_str="")
    assert "non-empty" in error_text(editor, command="str_replace", path=str(target))
    assert "same" in error_text(editor, command="str_replace", path=str(target), old_str="y", new_str="y")
    assert target.read_text() == original


def test_crlf_files_keep_their_line_ends(editor: EditTool, home: Path) -> None:
    target = home / "windows.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    assert invoke(editor, command="view", path=str(target)).text == "     1\tone\n     2\ttwo"
    invoke(editor, command="str_replace", path=str(target), old_str="one\ntwo", new_str="one\nTWO")
    assert target.read_bytes() == b"one\r\nTWO\r\n"
    mixed = home / "mixed.txt"
    mixed.write_bytes(b"a\r\nb\nc\n")
    invoke(editor, command="str_replace", path=str(mixed), old_str="b\n", new_str="B\n")
    assert mixed.read_bytes() == b"a\r\nB\nc\n"


# -- insert ------------------------------------------------------------------------------
def test_insert_at_top_middle_and_end(editor: EditTool, home: Path) -> None:
    target = home / "list.txt"
    target.write_text("b\nd\n")
    invoke(editor, command="insert", path=str(target), insert_line=0, new_str="a")
    invoke(editor, command="insert", path=str(target), insert_line=2, new_str="c\n")
    result = invoke(editor, command="insert", path=str(target), insert_line=4, new_str="e\nf")
    assert target.read_text() == "a\nb\nc\nd\ne\nf\n"
    assert "     5\te\n     6\tf" in result.text


def test_insert_errors(editor: EditTool, home: Path) -> None:
    target = home / "list.txt"
    target.write_text("a\nb\n")
    assert "beyond the end" in error_text(
        editor, command="insert", path=str(target), insert_line=3, new_str="x"
    )
    assert "insert_line" in error_text(editor, command="insert", path=str(target), new_str="x")
    assert "new_str" in error_text(editor, command="insert", path=str(target), insert_line=1)
    assert "nothing to insert" in error_text(
        editor, command="insert", path=str(target), insert_line=1, new_str=""
    )
    assert "insert_line" in error_text(
        editor, command="insert", path=str(target), insert_line=-1, new_str="x"
    )
    assert target.read_text() == "a\nb\n"


# -- undo ------------------------------------------------------------------------------
def test_undo_steps_back_through_edits_and_creation(editor: EditTool, home: Path) -> None:
    target = home / "u.txt"
    invoke(editor, command="create", path=str(target), file_text="v1\n")
    invoke(editor, command="str_replace", path=str(target), old_str="v1", new_str="v2")
    invoke(editor, command="insert", path=str(target), insert_line=1, new_str="v3")
    assert target.read_text() == "v2\nv3\n"
    assert "2 more undo step" in invoke(editor, command="undo_edit", path=str(target)).text
    assert target.read_text() == "v2\n"
    invoke(editor, command="undo_edit", path=str(target))
    assert target.read_text() == "v1\n"
    assert "removed" in invoke(editor, command="undo_edit", path=str(target)).text
    assert not target.exists()
    assert "No edits" in error_text(editor, command="undo_edit", path=str(target))


def test_undo_history_is_bounded(editor: EditTool, home: Path) -> None:
    target = home / "counter.txt"
    target.write_text("0\n")
    for n in range(settings.EDITOR_UNDO_DEPTH + 3):
        invoke(editor, command="str_replace", path=str(target), old_str=f"{n}\n", new_str=f"{n + 1}\n")
    for _ in range(settings.EDITOR_UNDO_DEPTH):
        assert not invoke(editor, command="undo_edit", path=str(target)).is_error
    assert target.read_text() == "3\n"
    assert "No edits" in error_text(editor, command="undo_edit", path=str(target))


# -- read-only variant and bad arguments ----------------------------------------------------
def test_read_only_variant_offers_only_view(context, home: Path) -> None:
    viewer = EditTool(context, read_only=True)
    schema = viewer.spec().input_schema
    assert set(schema["properties"]) == {"command", "path", "view_range"}
    assert schema["properties"]["command"].get("enum", [schema["properties"]["command"].get("const")]) == [
        "view"
    ]
    (home / "a.txt").write_text("keep\n")
    assert invoke(viewer, command="view", path=str(home / "a.txt")).text == "     1\tkeep"
    refused = error_text(viewer, command="create", path=str(home / "b.txt"), file_text="x")
    assert "command" in refused
    assert not (home / "b.txt").exists()
    assert "read-only" in viewer.description


def test_bad_arguments_are_errors(editor: EditTool) -> None:
    assert "command" in error_text(editor, command="delete", path="/tmp/x")
    assert "path" in error_text(editor, command="view")
