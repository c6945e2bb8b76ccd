"""PromptMarker: finished commands, partial output held back at a possible marker start, draining."""

from sandbox.bash_session import clean_terminal_text
from sandbox.prompt_marker import PromptMarker


def test_marker_split_across_reads_is_not_returned_as_output():
    marker = PromptMarker()
    marker.feed("line one\r\n" + marker.marker[:5])
    assert marker.finished(clean_terminal_text) is None
    assert marker.partial(clean_terminal_text) == "line one\n"
    marker.feed(marker.marker[5:] + "7__/srv/data__END\r\nnext")
    done = marker.finished(clean_terminal_text)
    assert (done.output, done.exit_code, done.cwd) == ("", 7, "/srv/data")
    assert marker.drain(clean_terminal_text) == "next"


def test_text_that_only_looks_like_a_marker_is_output():
    marker = PromptMarker()
    marker.feed("__SA_not_ours__0__/__END\n__S")
    assert marker.finished(clean_terminal_text) is None
    assert marker.partial(clean_terminal_text) == "__SA_not_ours__0__/__END\n"  # "__S" may start a marker
    assert marker.drain(clean_terminal_text) == "__S"
    assert "PROMPT_COMMAND=" in marker.prompt_command and marker.marker in marker.prompt_command
