"""The editor's `view` of images and PDFs in a real bubblewrap sandbox: the picture comes back as an image
block (sniffed from the bytes, scaled to the model's limits), a PDF gives its text with layout and one page
as a picture, and both survive the Anthropic and OpenAI wire formats through the real SDKs."""

from __future__ import annotations

import base64
import io
import json
import resource
import subprocess
import zlib
from collections.abc import Iterator

import pytest
from docx import Document
from PIL import Image

from stateact.kernel import confined as confined_module
from stateact.kernel import settings
from stateact.kernel.confined import confined
from stateact.kernel.context.processors import StripImages
from stateact.kernel.context.token_counter import counter
from stateact.kernel.images import fit_size
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.messages import ImageBlock, Message, ToolResultBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models.anthropic_provider import AnthropicProvider
from stateact.kernel.models.openai_provider import OpenAIProvider
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import ToolResult
from stateact.kernel.tools.edit import EditTool
from stateact.kernel.tools.finish import FinishTool
from stateact.kernel.tools.pdf_view import PdfError, pdf_look
from tests.support.documents import deflated, deflated_pdf, encoded, png_of, scanned_letter, text_pdf
from tests.support.forged import forged_answer
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context
from tests.support.wire_servers import anthropic_reply, openai_reply

EDITOR = EditTool.name


@pytest.fixture(scope="module")
def context(tmp_path_factory) -> Iterator[RunContext]:
    with run_context(tmp_path_factory.mktemp("looks"), isolation="bwrap") as context:
        yield context


@pytest.fixture(scope="module")
def editor(context) -> EditTool:
    return EditTool(context)


def put(context: RunContext, name: str, data: bytes) -> str:
    """`data` written into the sandbox's home as `name`, through the sandbox; its sandbox path."""
    path = f"{context.sandbox.home}/{name}"
    context.sandbox.write_file(path, data)
    return path


def shown(result: ToolResult) -> tuple[ImageBlock, Image.Image]:
    """The one image block of a result, and the picture it carries."""
    assert not result.is_error, result.text
    images = [b for b in result.blocks() if isinstance(b, ImageBlock)]
    assert len(images) == 1, result.text
    return images[0], Image.open(io.BytesIO(images[0].to_bytes()))


# -- images -------------------------------------------------------------------------------------------------
def test_png_and_jpeg_come_back_as_image_blocks_of_their_size(context, editor) -> None:
    chart = Image.new("RGBA", (320, 200), (255, 255, 255, 0))
    chart.paste((200, 30, 30, 255), (20, 40, 60, 190))
    png = put(context, "chart.png", encoded(chart, "PNG"))
    jpeg = put(context, "letter.jpg", encoded(scanned_letter((640, 905)), "JPEG"))

    block, picture = shown(result := invoke(editor, command="view", path=png))
    assert (block.media_type, picture.size, picture.mode) == ("image/png", (320, 200), "RGBA")
    assert result.text == f"{png}: PNG image, 320x200 pixels."
    block, picture = shown(invoke(editor, command="view", path=jpeg))
    assert (block.media_type, picture.format, picture.size) == ("image/jpeg", "JPEG", (640, 905))


def test_the_type_is_sniffed_from_the_bytes_not_the_name(context, editor) -> None:
    disguised = put(context, "scan.dat", encoded(scanned_letter((400, 300)), "JPEG"))
    text_named_png = put(context, "notes.png", b"BM is a text file, not a bitmap\n")

    block, picture = shown(invoke(editor, command="view", path=disguised))
    assert (block.media_type, picture.size) == ("image/jpeg", (400, 300))
    result = invoke(editor, command="view", path=text_named_png)
    assert (result.images, result.text) == ((), "     1\tBM is a text file, not a bitmap")


def test_a_large_scan_is_scaled_to_the_models_limits(context, editor) -> None:
    scan = put(context, "big-scan.jpg", encoded(scanned_letter((2480, 3508)), "JPEG"))

    block, picture = shown(result := invoke(editor, command="view", path=scan))
    width, height = picture.size
    assert max(width, height) <= settings.MODEL_IMAGE_MAX_EDGE
    assert width * height <= settings.MODEL_IMAGE_MAX_PIXELS
    assert abs(width / height - 2480 / 3508) < 0.01
    assert f"2480x3508 pixels, shown at {width}x{height}" in result.text
    assert counter().block(block) < 1600  # what it costs the model, not a 3508-pixel page


@pytest.mark.parametrize("kind", ["GIF", "WEBP", "BMP", "TIFF"])
def test_other_formats_are_converted_for_the_provider(context, editor, kind) -> None:
    path = put(context, f"picture.{kind.lower()}", encoded(scanned_letter((300, 200)), kind))

    block, picture = shown(result := invoke(editor, command="view", path=path))
    assert (block.media_type, picture.format, picture.size) == ("image/png", "PNG", (300, 200))
    assert result.text.startswith(f"{path}: {kind} image")


def test_an_animation_shows_its_first_frame(context, editor) -> None:
    frames = [Image.new("RGB", (60, 40), color) for color in ("red", "green", "blue")]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:])
    path = put(context, "spinner.gif", buffer.getvalue())

    _, picture = shown(result := invoke(editor, command="view", path=path))
    assert picture.convert("RGB").getpixel((5, 5)) == (255, 0, 0)
    assert "frame 1 of 3" in result.text


def test_broken_and_oversized_images_are_clear_errors(context, editor) -> None:
    broken = put(context, "broken.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    fields = b"IHDR" + (9_000).to_bytes(4, "big") * 2 + b"\x08\x02\x00\x00\x00"  # no pixel data at all
    header = b"\x00\x00\x00\r" + fields + zlib.crc32(fields).to_bytes(4, "big")
    end = b"\x00\x00\x00\x00IEND" + zlib.crc32(b"IEND").to_bytes(4, "big")
    huge = put(context, "huge.png", b"\x89PNG\r\n\x1a\n" + header + end)

    assert "could not be decoded" in invoke(editor, command="view", path=broken).text
    result = invoke(editor, command="view", path=huge)
    assert result.is_error and "9000x9000 pixels is more than" in result.text
    assert (
        "view_range applies to text files and PDF pages"
        in invoke(
            editor,
            command="view",
            path=put(context, "dot.png", encoded(Image.new("RGB", (4, 4)), "PNG")),
            view_range=[1, 2],
        ).text
    )


def test_old_file_pictures_leave_the_context_like_screenshots(context, editor) -> None:
    path = put(context, "photo.png", encoded(scanned_letter((200, 150)), "PNG"))
    messages = [
        Message(
            role="user",
            content=[
                ToolResultBlock(
                    tool_use_id=f"t{n}", content=invoke(editor, command="view", path=path).blocks()
                )
            ],
        )
        for n in range(8)
    ]

    view = StripImages(keep=3, chunk=4)(messages)

    assert [len(m.images()) for m in view] == [0, 0, 0, 0, 1, 1, 1, 1]


# -- PDFs ---------------------------------------------------------------------------------------------------
def test_pdf_gives_its_text_with_layout_and_a_page_as_a_picture(context, editor) -> None:
    quote = put(
        context, "quote.pdf", text_pdf([["Quote No. 1187", "Total: 2,400 USD"], ["Valid until 30 June"]])
    )

    whole = invoke(editor, command="view", path=quote)
    assert whole.images == () and not whole.is_error
    assert "--- page 1 of 2 ---\n          Quote No. 1187\n          Total: 2,400 USD" in whole.text
    assert "--- page 2 of 2 ---\n          Valid until 30 June" in whole.text
    second = invoke(editor, command="view", path=quote, view_range=[2, 2])
    assert "Valid until" in second.text and "Quote No." not in second.text
    _, picture = shown(second)
    assert max(picture.size) <= settings.MODEL_IMAGE_MAX_EDGE
    assert abs(picture.size[0] / picture.size[1] - 612 / 792) < 0.01
    assert invoke(editor, command="view", path=quote, view_range=[1, -1]).images == ()
    assert "outside the PDF's pages 1-2" in invoke(editor, command="view", path=quote, view_range=[3, 3]).text


def test_a_scanned_pdf_says_it_has_no_text_and_shows_the_page(context, editor) -> None:
    scan = put(context, "scan.pdf", encoded(scanned_letter(), "PDF"))

    whole = invoke(editor, command="view", path=scan)  # one call: no second look needed for a scan
    assert "(no text on this page: a scan or a picture)" in whole.text
    assert "[page 1 shown as a picture" in whole.text
    _, picture = shown(whole)
    assert picture.convert("L").getextrema()[0] < 64  # the page's dark text is there
    _, again = shown(invoke(editor, command="view", path=scan, view_range=[1, 1]))
    assert again.size == picture.size


def test_a_long_scan_shows_its_first_pages_as_pictures_and_names_the_rest(context, editor) -> None:
    pages = [scanned_letter(size=(620, 877), text=f"Page {n} of the contract") for n in range(1, 6)]
    buffer = io.BytesIO()
    pages[0].save(buffer, format="PDF", save_all=True, append_images=pages[1:])
    scan = put(context, "contract.pdf", buffer.getvalue())

    whole = invoke(editor, command="view", path=scan)
    shown_pages = settings.EDITOR_PDF_SCAN_PICTURES
    assert len(whole.images) == shown_pages
    assert [f"[page {n} shown as a picture" in whole.text for n in range(1, 6)] == [
        n <= shown_pages for n in range(1, 6)
    ]
    rest = ", ".join(str(n) for n in range(shown_pages + 1, 6))
    assert f"[pages {rest} have no text either: view_range [N, N] shows page N as a picture]" in whole.text
    later = invoke(editor, command="view", path=scan, view_range=[4, 5])  # a range shows its own scans
    assert len(later.images) == 2 and "no text either" not in later.text


def test_a_broken_pdf_is_a_clear_error(context, editor) -> None:
    path = put(context, "broken.pdf", b"%PDF-1.7\nnot really a pdf\n")

    result = invoke(editor, command="view", path=path)
    assert result.is_error and "the PDF could not be read" in result.text


@pytest.mark.apps
def test_a_libreoffice_pdf_gives_its_text(context, editor, tmp_path) -> None:
    document = Document()
    document.add_heading("Service record", level=1)
    document.add_paragraph("Boiler serviced on 12 March 2024 by Hanna Berg.")
    document.save(tmp_path / "record.docx")
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path}/profile",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path),
            str(tmp_path / "record.docx"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    path = put(context, "record.pdf", (tmp_path / "record.pdf").read_bytes())

    text = " ".join(invoke(editor, command="view", path=path).text.split())  # a heading's letters sit wider
    assert "Service record" in text and "Boiler serviced on 12 March 2024 by Hanna Berg." in text


# -- hostile files: read in a limited child, the harness untouched ------------------------------------------
def harness_memory_mb() -> int:
    """The test process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def assert_views_go_on(context: RunContext, editor: EditTool) -> None:
    path = put(context, "after.pdf", text_pdf([["Still readable"]]))
    assert "Still readable" in invoke(editor, command="view", path=path).text


def test_a_pdf_decompression_bomb_is_stopped_by_the_memory_limit(context, editor, monkeypatch) -> None:
    bomb = put(context, "bomb.pdf", deflated_pdf(deflated(b" ", 100)))  # 100 KB, 230 MB to read
    monkeypatch.setattr(settings, "EDITOR_LOOK_MEMORY_MB", 160)
    before = harness_memory_mb()

    result = invoke(editor, command="view", path=bomb)

    assert result.is_error, result.text
    assert f"the PDF could not be read within {settings.EDITOR_LOOK_TIMEOUT_S:g} s / 160 MB" in result.text
    assert "it needed more memory" in result.text
    assert harness_memory_mb() - before < 100
    assert_views_go_on(context, editor)


def test_a_page_twenty_miles_wide_is_stopped_by_the_memory_limit(context, editor, monkeypatch) -> None:
    huge = text_pdf([["hello"]]).replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 90000000 90000000]")
    path = put(context, "huge-page.pdf", huge)  # its text laid out as on the page: a grid of 10^14 spaces
    monkeypatch.setattr(settings, "EDITOR_LOOK_MEMORY_MB", 256)

    for view_range in (None, [1, 1]):
        result = invoke(editor, command="view", path=path, view_range=view_range)
        assert result.is_error and "/ 256 MB: it needed more memory" in result.text
    assert_views_go_on(context, editor)


def test_a_pdf_view_reads_at_most_its_page_cap(context, editor) -> None:
    pages = settings.EDITOR_PDF_MAX_PAGES_PER_VIEW + 10
    path = put(context, "long.pdf", text_pdf([[f"Page {n}"] for n in range(1, pages + 1)]))

    text = invoke(editor, command="view", path=path).text

    last = settings.EDITOR_PDF_MAX_PAGES_PER_VIEW
    assert f"Page {last}\n" in text and f"Page {last + 1}" not in text
    assert text.endswith(
        f"[view cut after page {last} of {pages}: use view_range [{last + 1}, {pages}] for the rest]"
    )


@pytest.mark.slow
def test_a_pdf_of_a_million_operators_is_stopped_at_the_timeout(context, editor, monkeypatch) -> None:
    flood = put(
        context, "flood.pdf", deflated_pdf(deflated(b"0 0 m 1 1 l S\n", 14))
    )  # ~88 s and 3 GB to read
    monkeypatch.setattr(settings, "EDITOR_LOOK_TIMEOUT_S", 1.5)

    result = invoke(editor, command="view", path=flood)

    assert (
        result.is_error
        and "could not be read within 1.5 s" in result.text
        and "it took longer" in result.text
    )
    assert_views_go_on(context, editor)


@pytest.mark.slow
def test_a_pdf_reader_is_stopped_at_its_cpu_limit(context, editor, monkeypatch) -> None:
    flood = put(context, "nested.pdf", deflated_pdf(deflated(b"[", 5)))  # 5 million nested arrays: ~12 s
    monkeypatch.setattr(settings, "EDITOR_LOOK_CPU_S", 1)

    result = invoke(editor, command="view", path=flood)

    assert result.is_error and "it used more CPU time" in result.text
    assert_views_go_on(context, editor)


def test_an_image_bomb_under_the_pixel_cap_is_stopped_by_the_memory_limit(
    context, editor, monkeypatch
) -> None:
    side = 8_900  # 79 million pixels: under the pixel cap, 320 MB once decoded, 306 KB as a file
    assert side * side < settings.EDITOR_IMAGE_MAX_SOURCE_PIXELS
    bomb = put(context, "bomb.png", png_of((side, side), deflated(b"\x00", 305)))
    monkeypatch.setattr(settings, "EDITOR_LOOK_MEMORY_MB", 256)
    before = harness_memory_mb()

    result = invoke(editor, command="view", path=bomb)

    assert result.is_error and "the image could not be read within" in result.text
    assert "/ 256 MB: it needed more memory" in result.text
    assert harness_memory_mb() - before < 100
    assert_views_go_on(context, editor)


@pytest.mark.slow
def test_the_largest_image_the_pixel_cap_allows_fits_the_memory_limit(context, editor) -> None:
    side = 8_900
    path = put(context, "largest.png", png_of((side, side), deflated(b"\x00", 305)))

    _, picture = shown(invoke(editor, command="view", path=path))

    assert picture.size == fit_size((side, side))


def test_a_dead_reading_worker_is_replaced(context, editor) -> None:
    assert_views_go_on(context, editor)
    worker = confined_module._worker_for(confined_module.READERS)._process
    assert worker is not None
    worker.kill()  # as the kernel's OOM killer would
    worker.wait()

    assert_views_go_on(context, editor)
    assert confined_module._worker_for(confined_module.READERS)._process is not worker


def test_a_reader_failure_and_a_forged_answer_are_clear_errors(tmp_path) -> None:
    with pytest.raises(PdfError, match="the PDF could not be read: TypeError"):
        confined(pdf_look, "not bytes", 1, 1, error=PdfError, what="the PDF")
    marker = tmp_path / "ran"
    with pytest.raises(PdfError, match="its reader's answer could not be read"):
        confined(forged_answer, str(marker), error=PdfError, what="the PDF")
    assert not marker.exists()


# -- on the wire --------------------------------------------------------------------------------------------
def editor_loop(context: RunContext, model, run_log) -> AgentLoop:
    spec = LoopSpec("main", [EditTool(context), FinishTool(context)], "Test agent.", Budget(max_turns=4))
    return AgentLoop(spec, model=model, log=run_log, meter=Meter())


def test_anthropic_wire_carries_the_viewed_jpeg(context, anthropic_server, run_log) -> None:
    photo = encoded(scanned_letter((500, 700)), "JPEG")
    path = put(context, "wire.jpg", photo)
    server = anthropic_server(
        anthropic_reply(tool_calls=[(EDITOR, {"command": "view", "path": path})]),
        anthropic_reply(tool_calls=[("finish", {"summary": "read it"})]),
    )

    editor_loop(context, AnthropicProvider("claude-sonnet-5-5", server.base_url), run_log).run(
        "Read the scan."
    )

    result = server.requests[1]["messages"][2]["content"][0]
    image = result["content"][1]
    assert (result["type"], image["source"]["media_type"]) == ("tool_result", "image/jpeg")
    assert base64.b64decode(image["source"]["data"]) == photo


def test_openai_wire_carries_the_pdf_page_picture(context, openai_server, run_log) -> None:
    path = put(context, "wire.pdf", text_pdf([["Invoice 77"]]))
    server = openai_server(
        openai_reply(tool_calls=[(EDITOR, {"command": "view", "path": path, "view_range": [1, 1]})]),
        openai_reply(tool_calls=[("finish", {"summary": "read it"})]),
    )

    editor_loop(context, OpenAIProvider("gpt-4o", server.base_url), run_log).run("Read the PDF.")

    messages = server.requests[1]["messages"]
    assert "Invoice 77" in messages[3]["content"]
    url = messages[4]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).format == "PNG"
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])["view_range"] == [1, 1]
