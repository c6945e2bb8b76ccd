"""The differential corpus of Impress, desktop, Thunderbird, archive, HTML and MP3 metrics.

Same shape as `cases.py` and, like it, runs under our environment and under
OSWorld's (`osworld_scores.py cases_slides ...`), so it needs only the standard
library and python-pptx / python-docx. Every file is generated here: decks,
LibreOffice registry files, accessibility trees, Thunderbird profiles, EPUB, zip
and tar archives, HTML, and MP3 files (ID3 tags and MPEG frames written byte by
byte). A case's `result` / `expected` that names a built file becomes its path;
any other value is passed as it is. A case without `expected` calls the metric
with `result` only; `options` are keyword arguments.
"""

from __future__ import annotations

import io
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docx import Document
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.oxml import parse_xml
from pptx.util import Inches

try:
    from .corpus_calls import Case, call_case
except ImportError:  # imported by bare name, this folder on sys.path (osworld_scores.py)
    from corpus_calls import Case, call_case

call = call_case
"""A case run through a metric table: the result, its expected value when it has one, the options."""
_BUILDERS: dict[str, Callable[[Path], None]] = {}


def _file(name: str, builder: Callable[[Path], None]) -> None:
    _BUILDERS[name] = builder


def _text(name: str, content: str) -> None:
    _file(name, lambda path: path.write_text(content, encoding="utf-8"))


# -- presentations ------------------------------------------------------------------------------
def _png(rgb: tuple[int, int, int], size: int = 4) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


_RED_PNG, _GREEN_PNG = _png((255, 0, 0)), _png((0, 255, 0))
_SLIDE_W, _SLIDE_H = 9144000, 6858000


def _picture_deck(path: Path, pictures: list[tuple[bytes, int, int, int, int]], slides: int = 1) -> None:
    """A deck whose first slide holds `pictures` (image, left, top, width, height in EMU)."""
    deck = Presentation()
    for _ in range(slides):
        deck.slides.add_slide(deck.slide_layouts[6])
    for image, left, top, width, height in pictures:
        deck.slides[0].shapes.add_picture(io.BytesIO(image), left, top, width, height)
    deck.save(path)


_SMALL = (Inches(2), Inches(2), Inches(3), Inches(2))
_FULL = (0, 0, _SLIDE_W, _SLIDE_H)
_file("pic_original.pptx", lambda p: _picture_deck(p, [(_RED_PNG, *_SMALL)]))
_file("pic_stretched.pptx", lambda p: _picture_deck(p, [(_RED_PNG, *_FULL)]))
_file(
    "pic_nearly.pptx",
    lambda p: _picture_deck(
        p, [(_RED_PNG, Inches(0.2), Inches(0.2), _SLIDE_W - Inches(0.4), _SLIDE_H - Inches(0.4))]
    ),
)
_file("pic_shifted.pptx", lambda p: _picture_deck(p, [(_RED_PNG, Inches(1), 0, _SLIDE_W, _SLIDE_H)]))
_file("pic_other_image.pptx", lambda p: _picture_deck(p, [(_GREEN_PNG, *_FULL)]))
_file("pic_none.pptx", lambda p: _picture_deck(p, []))
_file("pic_no_slides.pptx", lambda p: _picture_deck(p, [], slides=0))
_file("pic_two_copies.pptx", lambda p: _picture_deck(p, [(_RED_PNG, *_FULL), (_RED_PNG, *_SMALL)]))
_file("pic_two_copies_last.pptx", lambda p: _picture_deck(p, [(_RED_PNG, *_SMALL), (_RED_PNG, *_FULL)]))


def _sized_deck(path: Path, width: int, height: int) -> None:
    deck = Presentation()
    deck.slide_width, deck.slide_height = width, height
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(path)


_file("portrait.pptx", lambda p: _sized_deck(p, Inches(7.5), Inches(10)))
_file("landscape.pptx", lambda p: _sized_deck(p, Inches(10), Inches(7.5)))
_file("square.pptx", lambda p: _sized_deck(p, Inches(8), Inches(8)))


def _background_deck(path: Path, slides: list[Any], master: Any = None) -> None:
    """One slide per entry: an (r, g, b) solid fill, "theme" (a theme colour), "gradient", or None
    (no background of its own); `master` is the master's solid colour."""
    deck = Presentation()
    if master is not None:
        deck.slide_master.background.fill.solid()
        deck.slide_master.background.fill.fore_color.rgb = RGBColor(*master)
    for background in slides:
        fill = deck.slides.add_slide(deck.slide_layouts[6]).background.fill
        if background == "gradient":
            fill.gradient()
        elif background is not None:
            fill.solid()
            if background == "theme":
                fill.fore_color.theme_color = MSO_THEME_COLOR.ACCENT_1
            else:
                fill.fore_color.rgb = RGBColor(*background)
    deck.save(path)


_file("bg_blue.pptx", lambda p: _background_deck(p, [(0, 0, 255), (0, 0, 255)]))
_file("bg_red.pptx", lambda p: _background_deck(p, [(255, 0, 0)]))
_file("bg_mixed.pptx", lambda p: _background_deck(p, [(0, 0, 255), (0, 0, 200), (255, 255, 0)]))
_file("bg_master_blue.pptx", lambda p: _background_deck(p, [None, None], master=(0, 0, 255)))
_file("bg_none.pptx", lambda p: _background_deck(p, [None]))
_file("bg_theme.pptx", lambda p: _background_deck(p, ["theme", (0, 0, 255)]))
_file("bg_gradient.pptx", lambda p: _background_deck(p, ["gradient"]))
_file("bg_no_slides.pptx", lambda p: _background_deck(p, []))

_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_TRANSITIONS = {
    "dissolve": f'<p:transition xmlns:p="{_P}" spd="med"><p:dissolve/></p:transition>',
    "fade": f'<p:transition xmlns:p="{_P}"><p:fade/></p:transition>',
    "choice": (
        f'<mc:AlternateContent xmlns:mc="{_MC}" xmlns:p="{_P}" xmlns:p14="{_P14}">'
        '<mc:Choice Requires="p14"><p:transition p14:dur="2000"><p14:prism/></p:transition></mc:Choice>'
        "<mc:Fallback><p:transition><p:dissolve/></p:transition></mc:Fallback></mc:AlternateContent>"
    ),
}


def _transition_deck(path: Path, kinds: list[str | None]) -> None:
    deck = Presentation()
    for kind in kinds:
        slide = deck.slides.add_slide(deck.slide_layouts[6])
        if kind is not None:
            slide._element.append(parse_xml(_TRANSITIONS[kind]))
    deck.save(path)


_file("tr_dissolve.pptx", lambda p: _transition_deck(p, ["dissolve", None]))
_file("tr_fade.pptx", lambda p: _transition_deck(p, ["fade"]))
_file("tr_none.pptx", lambda p: _transition_deck(p, [None]))
_file("tr_second.pptx", lambda p: _transition_deck(p, [None, "dissolve"]))
_file("tr_choice.pptx", lambda p: _transition_deck(p, ["choice"]))


def _master_colours(path: Path, colours: list[str | None], gradient_last: bool = False) -> None:
    """Solid RGB text colours (hex; None: an `srgbClr` without a value) on the master's first
    placeholders in order; `gradient_last` adds a gradient fill (its colours are not solid) after."""
    deck = Presentation()
    placeholders = list(deck.slide_master.placeholders)
    for placeholder, colour in zip(placeholders, colours, strict=False):
        placeholder.text_frame.paragraphs[0].font.color.rgb = RGBColor.from_string(colour or "000000")
    if gradient_last:
        placeholders[len(colours)].fill.gradient()
    deck.save(path)
    if None in colours:
        _rewrite_member(
            path, "ppt/slideMasters/slideMaster1.xml", '<a:srgbClr val="000000"/>', "<a:srgbClr/>"
        )


def _rewrite_member(path: Path, member: str, old: str, new: str) -> None:
    with zipfile.ZipFile(path) as archive:
        data = {name: archive.read(name) for name in archive.namelist()}
    data[member] = data[member].decode().replace(old, new).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in data.items():
            archive.writestr(name, content)


_file("num_red.pptx", lambda p: _master_colours(p, ["FF0000", "333333"]))
_file("num_dark_red.pptx", lambda p: _master_colours(p, ["C00000", "333333"]))
_file("num_blue.pptx", lambda p: _master_colours(p, ["0000FF", "333333"]))
_file("num_green.pptx", lambda p: _master_colours(p, ["00FF00", "FF0000"]))
_file("num_black.pptx", lambda p: _master_colours(p, ["101010", "FF0000"]))
_file("num_one_colour.pptx", lambda p: _master_colours(p, ["FF0000"]))
_file("num_gradient.pptx", lambda p: _master_colours(p, ["FF0000", "333333"], gradient_last=True))
_file("num_no_value.pptx", lambda p: _master_colours(p, [None, "FF0000"]))

# -- LibreOffice registry, accessibility trees --------------------------------------------------
_XCU_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
    'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
)


def _xcu(*items: tuple[str, str, str | None]) -> str:
    """A registrymodifications.xcu of (path, property, value) items; a None value has no text."""
    lines = [
        f'<item oor:path="{path}"><prop oor:name="{prop}" oor:op="fuse">'
        + ("<value/>" if value is None else f"<value>{value}</value>")
        + "</prop></item>\n"
        for path, prop, value in items
    ]
    return _XCU_HEAD + "".join(lines) + "</oor:items>\n"


_START, _SAVE = "/org.openoffice.Office.Impress/Misc/Start", "/org.openoffice.Office.Common/Save/Document"
_OTHER = ("/org.openoffice.Office.Common/Misc", "FirstRun", "false")
_text("presenter_off.xcu", _xcu(_OTHER, (_START, "EnablePresenterScreen", "false")))
_text("presenter_on.xcu", _xcu((_START, "EnablePresenterScreen", "true")))
_text("presenter_unset.xcu", _xcu(_OTHER))
_text("presenter_empty.xcu", _xcu((_START, "EnablePresenterScreen", None)))
_text(
    "presenter_twice.xcu",
    _xcu((_START, "EnablePresenterScreen", "true"), (_START, "EnablePresenterScreen", "FALSE")),
)
_text("broken.xcu", _XCU_HEAD + "<item oor:path=")
_text("autosave_3.xcu", _xcu(_OTHER, (_SAVE, "AutoSaveTimeIntervall", "3")))
_text("autosave_10.xcu", _xcu((_SAVE, "AutoSaveTimeIntervall", "10")))
_text(
    "autosave_last.xcu", _xcu((_SAVE, "AutoSaveTimeIntervall", "10"), (_SAVE, "AutoSaveTimeIntervall", "3"))
)
_text("autosave_word.xcu", _xcu((_SAVE, "AutoSaveTimeIntervall", "three")))
_text("autosave_other_prop.xcu", _xcu((_SAVE, "AutoSave", "true")))


def _tree(*frames: tuple[str, str]) -> str:
    inner = "".join(f'<{tag} name="{name}" st:showing="true"/>' for tag, name in frames)
    return (
        '<desktop-frame xmlns:st="uri:deskat:state.at-spi.gnome.org"><application name="soffice">'
        f'<frame name="deck.pptx - LibreOffice Impress"><panel name="">{inner}</panel></frame>'
        "</application></desktop-frame>"
    )


_TREE_PANEL = _tree(("document-frame", "Slides View"), ("document-frame", "Presentation"))
_TREE_NO_PANEL = _tree(("document-frame", "Presentation"))
_TREE_OTHER_TAG = _tree(("panel", "Slides View"))

# -- Thunderbird --------------------------------------------------------------------------------
_text(
    "prefs.js",
    "// Mozilla User Preferences\n\n"
    'user_pref("mail.identity.id1.auto_quote", false);\n'
    'user_pref("mail.identity.id1.htmlSigText", "Anonym\\nXYZ Lab");\n'
    'user_pref("extensions.activeThemeID", "thunderbird-compact-dark@mozilla.org");\n'
    'user_pref("mail.server.default.applyIncomingFilters", true);\n'
    'user_pref("mail.imap.use_status_for_biff", false);\n'
    'user_pref("mail.server.default.autosync_offline_stores", true);\n'
    'user_pref("mail.quoted\\"key", 3);\n'
    'user_pref("mail.identity.id1.auto_quote", true);\n',
)
_text("prefs_bad_value.js", 'user_pref("mail.identity.id1.auto_quote", False);\n')
_FILTERS = (
    'version="9"\nlogging="no"\n'
    'name="Promotions"\nenabled="yes"\ntype="17"\naction="Move to folder"\n'
    'actionValue="mailbox://nobody@Local%20Folders/Promotions"\ncondition="AND (subject,contains,discount)"\n'
    'name="Quoted"\nenabled="no"\ntype="17"\naction="Mark read"\n'
    'condition="OR (subject,contains,\\"a \\\\ b\\") OR (from,is,x@y.z)"\n'
    'name="No condition"\nenabled="yes"\ntype="17"\naction="Delete"\n'
    'name="Forward"\nenabled="yes"\ntype="17"\naction="Forward"\nactionValue="anonym-x2024@gmail.com"\n'
    'condition="ALL"\n'
)
_text("filters.dat", _FILTERS)
_text("filters_no_final_newline.dat", _FILTERS.rstrip("\n"))
_text("filters_orphan.dat", 'enabled="yes"\nname="A"\ncondition="ALL"\n')
_MAIL = "From - Mon Jan 29 10:00:00 2024\nX-Mozilla-Status: 0001\nSubject: {0}\n\n{0} body\n\n"
_text("inbox_a", _MAIL.format("Invoice") + _MAIL.format("Receipt"))
_text("inbox_b", _MAIL.format("Hello"))
_text("inbox_empty", "")
_text("inbox_upper", "FROM - one\n\nFROM - \nFROM - two\n")
_text("inbox_upper_twice", "FROM - \nFROM - one\nFROM - \nFROM - two\n")

# -- archives, EPUB, HTML ----------------------------------------------------------------------


def _zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def _deck_bytes(title: str) -> bytes:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = title
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _docx_bytes(text: str) -> bytes:
    document = Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


_CSV_A, _CSV_B = {"a.csv": b"x,y\n1,2\n", "b.csv": b"k\n3\n"}, {"a.csv": b"x,y\n1,2\n", "b.csv": b"k\n4\n"}
_file("csvs.zip", lambda p: _zip(p, _CSV_A))
_file("csvs_same.zip", lambda p: _zip(p, _CSV_A))
_file("csvs_half.zip", lambda p: _zip(p, _CSV_B))
_file("csvs_renamed.zip", lambda p: _zip(p, {"a.csv": _CSV_A["a.csv"], "c.csv": _CSV_A["b.csv"]}))
_file(
    "csvs_nested.zip", lambda p: _zip(p, {f"data/{k}": v for k, v in _CSV_A.items()} | {"readme.txt": b"hi"})
)
_file("csvs_nested_gold.zip", lambda p: _zip(p, {f"data/{k}": v for k, v in _CSV_A.items()}))
_file("empty.zip", lambda p: _zip(p, {}))
_file("decks.tar.gz", lambda p: _tar(p, {"one.pptx": _deck_bytes("Plan"), "two.pptx": _deck_bytes("Goals")}))
_file(
    "decks_gold.tar.gz", lambda p: _tar(p, {"one.pptx": _deck_bytes("Plan"), "two.pptx": _deck_bytes("Aims")})
)
_file("docs.zip", lambda p: _zip(p, {"memo.docx": _docx_bytes("Dear  team")}))
_file("docs_gold.zip", lambda p: _zip(p, {"memo.docx": _docx_bytes("Dear team")}))
_text("not_an_archive.zip", "plain text")

_OPF = (
    '<?xml version="1.0"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="2.0">\n'
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n<dc:title>Pass Through</dc:title>\n'
    '<dc:identifier id="uid">{uid}</dc:identifier>\n</metadata>\n</package>\n'
)
_NCX = (
    '<?xml version="1.0"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/">\n<navMap>\n'
    '<navPoint id="n{uid}" playOrder="1">\n<navLabel><text>{chapter}</text></navLabel>\n</navPoint>\n'
    "</navMap>\n</ncx>\n"
)
_CHAPTER = "<html>\r\n<head><title>{0}</title></head>\n<body><h1>{0}</h1>\n<p>It was late.</p><p>{1}</p></body></html>"


def _epub(path: Path, uid: str, chapter: str, last: str, extra: dict[str, str] | None = None) -> None:
    members = {
        "mimetype": "application/epub+zip",
        "content.opf": _OPF.format(uid=uid),
        "toc.ncx": _NCX.format(uid=uid, chapter=chapter),
        "chapter1.html": _CHAPTER.format(chapter, last),
        "style.css": "p { margin: 0 }",
        **(extra or {}),
    }
    _zip(path, {name: text.encode() for name, text in members.items()})


_file("book_gold.epub", lambda p: _epub(p, "111", "Chapter One", "The end."))
_file("book_new_ids.epub", lambda p: _epub(p, "222", "Chapter One", "The end."))
_file("book_changed.epub", lambda p: _epub(p, "111", "Chapter 1", "The end!"))
_file(
    "book_extra_part.epub", lambda p: _epub(p, "111", "Chapter One", "The end.", {"notes.html": "<p>n</p>"})
)
_file(
    "book_in_folder.epub",
    lambda p: _epub(p, "111", "Chapter One", "The end.", {"OEBPS/ch2.html": "<p>x</p>"}),
)
_file("book_empty_page.epub", lambda p: _epub(p, "111", "Chapter One", "The end.", {"blank.html": "\n"}))
_text("book_not_zip.epub", "not a book")

_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>Survey</title></head>\n<body>\n<table>\n"
    '<tr><td class="{cls}" sdnum="{sdnum}">{value}</td><td>2021</td></tr>\n</table>\n</body></html>\n'
)
_text("page_gold.html", _PAGE.format(cls="num", sdnum="1033;0;0.00", value="12.50"))
_text("page_same.html", _PAGE.format(cls="num", sdnum="1033;0;0.00", value="12.50"))
_text("page_sdnum.html", _PAGE.format(cls="num", sdnum="1033;0;General", value="12.50"))
_text("page_class.html", _PAGE.format(cls="cell", sdnum="1033;0;0.00", value="12.50"))
_text("page_value.html", _PAGE.format(cls="num", sdnum="1033;0;0.00", value="12.5"))
_text(
    "page_spacing.html",
    _PAGE.format(cls="num", sdnum="1033;0;0.00", value="12.50").replace("<table>\n", "<table>\n\n"),
)

# -- MP3 -----------------------------------------------------------------------------------------
_MPEG_FRAME = b"\xff\xfb\x90\x64" + bytes(413)
"""One MPEG-1 Layer III frame: 128 kbit/s, 44.1 kHz, 417 bytes, silent."""


def _syncsafe(size: int) -> bytes:
    return bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))


def _mp3(path: Path, tags: dict[str, list[str]] | None, version: int = 3) -> None:
    """ID3v2.`version` text frames (v2.3: Latin-1, v2.4: UTF-8 with null-separated values), then
    three MPEG frames; `tags` None writes no tag."""
    frames = b""
    for frame_id, values in (tags or {}).items():
        if version == 3:
            body = b"\x00" + "/".join(values).encode("latin-1")
            frames += frame_id.encode() + struct.pack(">I", len(body)) + b"\x00\x00" + body
        else:
            body = b"\x03" + "\x00".join(values).encode()
            frames += frame_id.encode() + _syncsafe(len(body)) + b"\x00\x00" + body
    header = b"ID3" + bytes((version, 0, 0)) + _syncsafe(len(frames)) if tags is not None else b""
    path.write_bytes(header + frames + _MPEG_FRAME * 3)


_file("song.mp3", lambda p: _mp3(p, {"TIT2": ["Missing You"], "TPE1": ["Cheng Xiang"]}))
_file("song_v24.mp3", lambda p: _mp3(p, {"TIT2": ["Nights in Shanghai"], "TPE1": ["Zhou Xuan", "Li"]}, 4))
_file("song_untagged.mp3", lambda p: _mp3(p, None))
_file("song_title_only.mp3", lambda p: _mp3(p, {"TIT2": ["Red Daughter"]}))


# -- cases --------------------------------------------------------------------------------------
def _case(func: str, result: Any, expected: Any = ..., **options: Any) -> Case:
    case: Case = {"func": func, "result": result, "options": options}
    if expected is not ...:
        case["expected"] = expected
    return case


_TIMEDATECTL = (
    "               Local time: Thu 2024-01-25 12:56:06 {abbr}\n"
    "           Universal time: Thu 2024-01-25 12:56:06 UTC\n"
    "                 RTC time: Thu 2024-01-25 12:56:05\n"
    "                Time zone: {zone}\n"
    "System clock synchronized: yes\n"
)
_JPGS = ["emnlp2023.jpg", "hk_group_photo.jpg"]


def _listing(*names: str) -> dict[str, Any]:
    return {"name": "cpjpg", "type": "directory", "children": [{"name": n, "type": "file"} for n in names]}


def _shortcut(name: str, end: str = "\n") -> dict[str, str]:
    content = f"[Desktop Entry]\nVersion=1.0\nName={name}{end}Exec=/opt/google/chrome/chrome --app=https://play2048.co/\n"
    return {"/home/user/Desktop/game.desktop": content}


def _pref(method: str, ref: Any) -> dict[str, Any]:
    return {"method": method, "ref": ref}


_PROMO = {
    "enabled": "yes",
    "action": "Move to folder",
    "actionValue": "mailbox://nobody@Local%20Folders/Promotions",
    "condition": ["AND (subject,contains,discount)"],
}
_FORWARD = {
    "enabled": "yes",
    "action": "Forward",
    "actionValue": "anonym-x2024@gmail.com",
    "condition": ["ALL"],
}
_SONG = {"title": _pref("eq", "Missing You"), "artist": _pref("eq", "Cheng Xiang")}

CASES: dict[str, Case] = {
    # check_image_stretch_and_center
    "stretch-full": _case("check_image_stretch_and_center", "pic_stretched.pptx", "pic_original.pptx"),
    "stretch-within-half-inch": _case(
        "check_image_stretch_and_center", "pic_nearly.pptx", "pic_original.pptx"
    ),
    "stretch-unchanged": _case("check_image_stretch_and_center", "pic_original.pptx", "pic_original.pptx"),
    "stretch-off-centre": _case("check_image_stretch_and_center", "pic_shifted.pptx", "pic_original.pptx"),
    "stretch-other-image": _case(
        "check_image_stretch_and_center", "pic_other_image.pptx", "pic_original.pptx"
    ),
    "stretch-no-original-picture": _case(
        "check_image_stretch_and_center", "pic_stretched.pptx", "pic_none.pptx"
    ),
    "stretch-last-copy-counts": _case(
        "check_image_stretch_and_center", "pic_two_copies.pptx", "pic_original.pptx"
    ),
    "stretch-last-copy-full": _case(
        "check_image_stretch_and_center", "pic_two_copies_last.pptx", "pic_original.pptx"
    ),
    "stretch-no-slides": _case("check_image_stretch_and_center", "pic_no_slides.pptx", "pic_original.pptx"),
    # check_slide_orientation_Portrait
    "portrait-yes": _case("check_slide_orientation_Portrait", "portrait.pptx"),
    "portrait-landscape": _case("check_slide_orientation_Portrait", "landscape.pptx"),
    "portrait-square": _case("check_slide_orientation_Portrait", "square.pptx"),
    "portrait-not-a-deck": _case("check_slide_orientation_Portrait", "broken.xcu"),
    # evaluate_presentation_fill_to_rgb_distance
    "fill-exact": _case("evaluate_presentation_fill_to_rgb_distance", "bg_blue.pptx", {"rgb": [0, 0, 255]}),
    "fill-far": _case("evaluate_presentation_fill_to_rgb_distance", "bg_red.pptx", {"rgb": [0, 0, 255]}),
    "fill-mixed": _case("evaluate_presentation_fill_to_rgb_distance", "bg_mixed.pptx", {"rgb": [0, 0, 255]}),
    "fill-original-unchanged": _case(
        "evaluate_presentation_fill_to_rgb_distance",
        "bg_mixed.pptx",
        {"rgb": [0, 0, 255], "original_rgb": [0, 0, 200]},
    ),
    "fill-from-master": _case(
        "evaluate_presentation_fill_to_rgb_distance", "bg_master_blue.pptx", {"rgb": [0, 0, 255]}
    ),
    "fill-none": _case("evaluate_presentation_fill_to_rgb_distance", "bg_none.pptx", {"rgb": [0, 0, 255]}),
    "fill-theme-colour": _case(
        "evaluate_presentation_fill_to_rgb_distance", "bg_theme.pptx", {"rgb": [0, 0, 255]}
    ),
    "fill-gradient": _case(
        "evaluate_presentation_fill_to_rgb_distance", "bg_gradient.pptx", {"rgb": [0, 0, 255]}
    ),
    "fill-no-slides": _case(
        "evaluate_presentation_fill_to_rgb_distance", "bg_no_slides.pptx", {"rgb": [0, 0, 255]}
    ),
    "fill-no-rgb-rule": _case("evaluate_presentation_fill_to_rgb_distance", "bg_blue.pptx", {}),
    # check_transition
    "transition-dissolve": _case(
        "check_transition", "tr_dissolve.pptx", {"slide_idx": 0, "transition_type": "dissolve"}
    ),
    "transition-fade": _case(
        "check_transition", "tr_fade.pptx", {"slide_idx": 0, "transition_type": "dissolve"}
    ),
    "transition-fade-asked": _case(
        "check_transition", "tr_fade.pptx", {"slide_idx": 0, "transition_type": "fade"}
    ),
    "transition-none": _case(
        "check_transition", "tr_none.pptx", {"slide_idx": 0, "transition_type": "dissolve"}
    ),
    "transition-second-slide": _case(
        "check_transition", "tr_second.pptx", {"slide_idx": 1, "transition_type": "dissolve"}
    ),
    "transition-missing-slide": _case(
        "check_transition", "tr_dissolve.pptx", {"slide_idx": 5, "transition_type": "dissolve"}
    ),
    "transition-choice-first": _case(
        "check_transition", "tr_choice.pptx", {"slide_idx": 0, "transition_type": "dissolve"}
    ),
    "transition-not-a-zip": _case(
        "check_transition", "broken.xcu", {"slide_idx": 0, "transition_type": "dissolve"}
    ),
    # check_page_number_colors
    "number-red": _case("check_page_number_colors", "num_red.pptx", {"color": "red"}),
    "number-dark-red": _case("check_page_number_colors", "num_dark_red.pptx", {"color": "red"}),
    "number-dark-red-as-black": _case("check_page_number_colors", "num_dark_red.pptx", {"color": "black"}),
    "number-blue": _case("check_page_number_colors", "num_blue.pptx", {"color": "blue"}),
    "number-green": _case("check_page_number_colors", "num_green.pptx", {"color": "green"}),
    "number-black": _case("check_page_number_colors", "num_black.pptx", {"color": "black"}),
    "number-red-asked-blue": _case("check_page_number_colors", "num_red.pptx", {"color": "blue"}),
    "number-other-name": _case("check_page_number_colors", "num_blue.pptx", {"color": "purple"}),
    "number-one-colour": _case("check_page_number_colors", "num_one_colour.pptx", {"color": "red"}),
    "number-gradient-not-counted": _case("check_page_number_colors", "num_gradient.pptx", {"color": "red"}),
    "number-no-value": _case("check_page_number_colors", "num_no_value.pptx", {"color": "red"}),
    # check_presenter_console_disable
    "presenter-off": _case("check_presenter_console_disable", "presenter_off.xcu"),
    "presenter-on": _case("check_presenter_console_disable", "presenter_on.xcu"),
    "presenter-unset": _case("check_presenter_console_disable", "presenter_unset.xcu"),
    "presenter-empty-value": _case("check_presenter_console_disable", "presenter_empty.xcu"),
    "presenter-first-counts": _case("check_presenter_console_disable", "presenter_twice.xcu"),
    "presenter-broken": _case("check_presenter_console_disable", "broken.xcu"),
    "presenter-none": _case("check_presenter_console_disable", None),
    # check_auto_saving_time
    "autosave-match": _case("check_auto_saving_time", "autosave_3.xcu", {"minutes": 3}),
    "autosave-other": _case("check_auto_saving_time", "autosave_10.xcu", {"minutes": 3}),
    "autosave-last-item": _case("check_auto_saving_time", "autosave_last.xcu", {"minutes": 3}),
    "autosave-unset": _case("check_auto_saving_time", "autosave_other_prop.xcu", {"minutes": 3}),
    "autosave-not-a-number": _case("check_auto_saving_time", "autosave_word.xcu", {"minutes": 3}),
    "autosave-broken": _case("check_auto_saving_time", "broken.xcu", {"minutes": 3}),
    # check_left_panel
    "panel-shown": _case("check_left_panel", _TREE_PANEL),
    "panel-hidden": _case("check_left_panel", _TREE_NO_PANEL),
    "panel-other-tag": _case("check_left_panel", _TREE_OTHER_TAG),
    "panel-not-xml": _case("check_left_panel", "<desktop-frame"),
    # check_gnome_favorite_apps
    "favorites-same": _case(
        "check_gnome_favorite_apps",
        "['google-chrome.desktop', 'thunderbird.desktop']\n",
        {"expected": ["google-chrome.desktop", "thunderbird.desktop"]},
    ),
    "favorites-reordered": _case(
        "check_gnome_favorite_apps",
        "['thunderbird.desktop', 'google-chrome.desktop']",
        {"expected": ["google-chrome.desktop", "thunderbird.desktop"]},
    ),
    "favorites-extra": _case(
        "check_gnome_favorite_apps",
        "['thunderbird.desktop', 'google-chrome.desktop', 'vim.desktop']",
        {"expected": ["google-chrome.desktop", "thunderbird.desktop"]},
    ),
    "favorites-duplicate": _case(
        "check_gnome_favorite_apps",
        "['thunderbird.desktop', 'thunderbird.desktop', 'vim.desktop']",
        {"expected": ["vim.desktop", "thunderbird.desktop", "vim.desktop"]},
    ),
    "favorites-empty-gvariant": _case("check_gnome_favorite_apps", "@as []", {"expected": []}),
    # is_utc_0
    "utc-etc": _case("is_utc_0", _TIMEDATECTL.format(abbr="UTC", zone="Etc/UTC (UTC, +0000)")),
    "utc-wet": _case("is_utc_0", _TIMEDATECTL.format(abbr="WET", zone="Atlantic/Faroe (WET, +0000)")),
    "utc-cet": _case("is_utc_0", _TIMEDATECTL.format(abbr="CET", zone="Europe/Paris (CET, +0100)")),
    "utc-short-output": _case("is_utc_0", "Local time: now\n"),
    # check_text_enlarged
    "text-enlarged": _case("check_text_enlarged", "1.25\n"),
    "text-normal": _case("check_text_enlarged", "1.0"),
    "text-smaller": _case("check_text_enlarged", "0.8"),
    "text-not-a-number": _case("check_text_enlarged", "error: no such key"),
    # check_moved_jpgs
    "jpgs-moved": _case("check_moved_jpgs", _listing(*reversed(_JPGS)), {"expected": _JPGS}),
    "jpgs-missing": _case("check_moved_jpgs", _listing(_JPGS[0]), {"expected": _JPGS}),
    "jpgs-extra": _case("check_moved_jpgs", _listing(*_JPGS, "notes.txt"), {"expected": _JPGS}),
    "jpgs-empty": _case("check_moved_jpgs", _listing(), {"expected": []}),
    # is_in_vm_clickboard (result: the rule, expected: the clipboard text)
    "clipboard-text": _case(
        "is_in_vm_clickboard", {"expected": "/home/user/Data3/secret.docx"}, "/home/user/Data3/secret.docx\n"
    ),
    "clipboard-list": _case("is_in_vm_clickboard", {"expected": ["None", "Data"]}, "None of the Data\n"),
    "clipboard-list-missing": _case(
        "is_in_vm_clickboard", {"expected": ["None", "All"]}, "None of the Data\n"
    ),
    "clipboard-other": _case("is_in_vm_clickboard", {"expected": "secret.docx"}, ""),
    "clipboard-empty-list": _case("is_in_vm_clickboard", {"expected": []}, ""),
    # is_shortcut_on_desktop
    "shortcut-name": _case(
        "is_shortcut_on_desktop",
        _shortcut("Play Puzzle Game 2048"),
        {"type": "name", "name": "Play Puzzle Game 2048"},
    ),
    "shortcut-name-prefix": _case(
        "is_shortcut_on_desktop",
        _shortcut("Play Puzzle Game 2048 Now"),
        {"type": "name", "name": "Play Puzzle Game 2048"},
    ),
    "shortcut-exec": _case(
        "is_shortcut_on_desktop",
        _shortcut("2048"),
        {"type": "exec", "exec": "/opt/google/chrome/chrome --app=https://play2048.co/"},
    ),
    "shortcut-none": _case("is_shortcut_on_desktop", {}, {"type": "name", "name": "2048"}),
    "shortcut-url-type": _case(
        "is_shortcut_on_desktop", _shortcut("2048"), {"type": "url", "url": "https://play2048.co/"}
    ),
    # check_thunderbird_prefs
    "prefs-last-line-counts": _case(
        "check_thunderbird_prefs",
        "prefs.js",
        {"expect": {"mail.identity.id1.auto_quote": _pref("eq", False)}},
    ),
    "prefs-true": _case(
        "check_thunderbird_prefs", "prefs.js", {"expect": {"mail.identity.id1.auto_quote": _pref("eq", True)}}
    ),
    "prefs-re-dotall": _case(
        "check_thunderbird_prefs",
        "prefs.js",
        {"expect": {"mail.identity.id1.htmlSigText": _pref("re.S", "Anonym.+XYZ Lab")}},
    ),
    "prefs-re-no-dotall": _case(
        "check_thunderbird_prefs",
        "prefs.js",
        {"expect": {"mail.identity.id1.htmlSigText": _pref("re", "Anonym.+XYZ Lab")}},
    ),
    "prefs-re-theme": _case(
        "check_thunderbird_prefs", "prefs.js", {"expect": {"extensions.activeThemeID": _pref("re", "dark")}}
    ),
    "prefs-unexpect-clear": _case(
        "check_thunderbird_prefs",
        "prefs.js",
        {
            "expect": {
                "mail.server.default.applyIncomingFilters": _pref("eq", True),
                "mail.imap.use_status_for_biff": _pref("eq", False),
            },
            "unexpect": {"mail.server.default.autosync_offline_stores": _pref("eq", False)},
        },
    ),
    "prefs-unexpect-found": _case(
        "check_thunderbird_prefs",
        "prefs.js",
        {"unexpect": {"mail.server.default.autosync_offline_stores": _pref("eq", True)}},
    ),
    "prefs-missing-key": _case(
        "check_thunderbird_prefs", "prefs.js", {"expect": {"mail.absent": _pref("eq", 1)}}
    ),
    "prefs-quoted-key": _case(
        "check_thunderbird_prefs", "prefs.js", {"expect": {'mail.quoted\\"key': _pref("ge", 3)}}
    ),
    "prefs-not-json": _case("check_thunderbird_prefs", "prefs_bad_value.js", {"expect": {}}),
    "prefs-none": _case("check_thunderbird_prefs", None, {"expect": {}}),
    # check_thunderbird_filter
    "filter-promotions": _case("check_thunderbird_filter", "filters.dat", {"expect": [_PROMO]}),
    "filter-forward-all": _case("check_thunderbird_filter", "filters.dat", {"expect": [_FORWARD, _PROMO]}),
    "filter-disabled": _case(
        "check_thunderbird_filter", "filters.dat", {"expect": [{**_PROMO, "enabled": "no"}]}
    ),
    "filter-quoted-condition": _case(
        "check_thunderbird_filter",
        "filters.dat",
        {
            "expect": [
                {"name": "Quoted", "condition": ['OR (subject,contains,"a \\ b")', "OR (from,is,x@y.z)"]}
            ]
        },
    ),
    "filter-no-condition-ignored": _case(
        "check_thunderbird_filter", "filters.dat", {"expect": [{"name": "No condition"}]}
    ),
    "filter-unexpect": _case(
        "check_thunderbird_filter", "filters.dat", {"expect": [_PROMO], "unexpect": [{"enabled": "no"}]}
    ),
    "filter-last-line-cut": _case(
        "check_thunderbird_filter", "filters_no_final_newline.dat", {"expect": [_FORWARD]}
    ),
    "filter-orphan-field": _case("check_thunderbird_filter", "filters_orphan.dat", {"expect": []}),
    "filter-none": _case("check_thunderbird_filter", None, {"expect": []}),
    # check_thunderbird_folder
    "folder-different-mail": _case("check_thunderbird_folder", "inbox_a", "inbox_b"),
    "folder-empty-result": _case("check_thunderbird_folder", "inbox_empty", "inbox_a"),
    "folder-both-empty": _case("check_thunderbird_folder", "inbox_empty", "inbox_empty"),
    "folder-upper-dedup": _case("check_thunderbird_folder", "inbox_upper", "inbox_upper_twice"),
    "folder-upper-counted": _case(
        "check_thunderbird_folder", "inbox_upper", "inbox_upper_twice", remove_duplicate=False
    ),
    "folder-options-inert": _case(
        "check_thunderbird_folder",
        "inbox_a",
        "inbox_b",
        ignore_status=True,
        ignore_keys=True,
        remove_deleted=False,
    ),
    "folder-lists": _case("check_thunderbird_folder", ["inbox_a", "inbox_empty"], ["inbox_b", "inbox_a"]),
    "folder-list-missing": _case("check_thunderbird_folder", [None, "inbox_a"], ["inbox_a", "inbox_a"]),
    # check_mp3_meta
    "mp3-match": _case("check_mp3_meta", "song.mp3", _SONG),
    "mp3-wrong-artist": _case("check_mp3_meta", "song.mp3", {**_SONG, "artist": _pref("eq", "Han Baoyi")}),
    "mp3-v24-multiple-artists": _case(
        "check_mp3_meta", "song_v24.mp3", {"artist": _pref("eq", "Zhou Xuan,Li")}
    ),
    "mp3-re": _case("check_mp3_meta", "song_v24.mp3", {"title": _pref("re", "^Nights")}),
    "mp3-missing-tag-empty": _case("check_mp3_meta", "song_title_only.mp3", {"artist": _pref("eq", "")}),
    "mp3-untagged": _case("check_mp3_meta", "song_untagged.mp3", _SONG),
    "mp3-none": _case("check_mp3_meta", None, _SONG),
    # compare_epub
    "epub-new-identifiers": _case("compare_epub", "book_new_ids.epub", "book_gold.epub"),
    "epub-changed": _case("compare_epub", "book_changed.epub", "book_gold.epub"),
    "epub-extra-part": _case("compare_epub", "book_extra_part.epub", "book_gold.epub"),
    "epub-fewer-parts": _case("compare_epub", "book_gold.epub", "book_extra_part.epub"),
    "epub-not-a-zip": _case("compare_epub", "book_not_zip.epub", "book_gold.epub"),
    "epub-html-in-folder": _case("compare_epub", "book_in_folder.epub", "book_gold.epub"),
    "epub-empty-page": _case("compare_epub", "book_empty_page.epub", "book_gold.epub"),
    "epub-none": _case("compare_epub", None, "book_gold.epub"),
    # compare_archive
    "archive-csv-same": _case("compare_archive", "csvs_same.zip", "csvs.zip", file_type="csv"),
    "archive-csv-half": _case("compare_archive", "csvs_half.zip", "csvs.zip", file_type="csv"),
    "archive-csv-renamed": _case("compare_archive", "csvs_renamed.zip", "csvs.zip", file_type="csv"),
    "archive-file-path": _case(
        "compare_archive", "csvs_nested.zip", "csvs_nested_gold.zip", file_type="csv", file_path="data"
    ),
    "archive-top-differs": _case(
        "compare_archive", "csvs_nested.zip", "csvs_nested_gold.zip", file_type="csv"
    ),
    "archive-tar-ppt": _case("compare_archive", "decks.tar.gz", "decks_gold.tar.gz", file_type="ppt"),
    "archive-tar-ppt-options": _case(
        "compare_archive",
        "decks.tar.gz",
        "decks_gold.tar.gz",
        file_type="ppt",
        examine_text=False,
        examine_bullets=False,
    ),
    "archive-docx": _case("compare_archive", "docs.zip", "docs_gold.zip", file_type="docx"),
    "archive-docx-options": _case(
        "compare_archive", "docs.zip", "docs_gold.zip", file_type="docx", ignore_blanks=False
    ),
    "archive-empty": _case("compare_archive", "empty.zip", "empty.zip", file_type="csv"),
    "archive-not-an-archive": _case("compare_archive", "not_an_archive.zip", "csvs.zip", file_type="csv"),
    "archive-none": _case("compare_archive", None, "csvs.zip", file_type="csv"),
    # compare_htmls
    "html-same": _case("compare_htmls", "page_same.html", "page_gold.html"),
    "html-sdnum": _case("compare_htmls", "page_sdnum.html", "page_gold.html"),
    "html-sdnum-ignored": _case("compare_htmls", "page_sdnum.html", "page_gold.html", ignore_sdnum=True),
    "html-class-with-sdnum-ignored": _case(
        "compare_htmls", "page_class.html", "page_gold.html", ignore_sdnum=True
    ),
    "html-value": _case("compare_htmls", "page_value.html", "page_gold.html"),
    "html-spacing": _case("compare_htmls", "page_spacing.html", "page_gold.html"),
}
"""Every case by id."""


def build(folder: Path) -> dict[str, Case]:
    """Write every corpus file into `folder`; return the cases with built file names made paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, builder in _BUILDERS.items():
        builder(folder / name)

    def resolve(value: Any) -> Any:
        if isinstance(value, list):
            return [resolve(item) for item in value]
        return str(folder / value) if isinstance(value, str) and value in _BUILDERS else value

    resolved = {}
    for case_id, case in CASES.items():
        resolved[case_id] = {**case, "result": resolve(case["result"])}
        if "expected" in case:
            resolved[case_id]["expected"] = resolve(case["expected"])
    return resolved
