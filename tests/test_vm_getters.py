"""The desktop and application getters on a real local sandbox (Xvfb, openbox, xterm) and on an OSWorld VM
(the server double, or the real server at OSWORLD_SERVER_URL), and the date rules on fixed days."""

from __future__ import annotations

import base64
import io
import threading
import time
import zipfile
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from shlex import quote
from xml.etree import ElementTree
from zoneinfo import ZoneInfo

import openpyxl
import pytest
from PIL import Image
from pptx import Presentation

from stateact.evals import settings
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.getters import GetterContext, fetch
from stateact.evals.osworld.getters_time import resolve_relative_time
from stateact.evals.osworld.getters_vm import VIDEO_TYPES
from stateact.evals.osworld.setup import SetupContext, run_steps
from stateact.evals.osworld.task import Getter, Step, TaskError
from stateact.sandbox.base import SandboxUnsupported
from stateact.sandbox.local import LocalSandbox
from tests.support.osworld_vm_server import ACCESSIBILITY_NAMESPACES, vm_under_test

APP_FIXTURES = frozenset({"desktop", "vm"})


@pytest.fixture(scope="module")
def desktop(tmp_path_factory):
    box = LocalSandbox(tmp_path_factory.mktemp("desk") / "home", display=True)
    box.start()
    try:
        yield box
    finally:
        box.close()


@pytest.fixture
def context(desktop, tmp_path):
    return GetterContext(sandbox=desktop, cache=FileCache(tmp_path / "cache"), work_dir=tmp_path / "work")


def get(context: GetterContext, kind: str, **params):
    return fetch(Getter(type=kind, **params), context)


def wait_for(predicate, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


def test_window_and_screen_size_as_xdotool_measures_them(desktop, context):
    desktop.launch("xmessage -name SizeProbe -geometry 333x222+10+10 'a window to measure'")
    size = wait_for(lambda: get(context, "vm_window_size", app_class_name="sizeprobe"))
    geometry = desktop.run("xdotool search --classname SizeProbe getwindowgeometry --shell").stdout
    assert f"WIDTH={size['width']}" in geometry and f"HEIGHT={size['height']}" in geometry
    assert get(context, "vm_window_size", app_class_name="Xmessage") == size  # the class matches too
    assert get(context, "vm_window_size", app_class_name="no-such-app") is None
    assert get(context, "vm_screen_size") == {"width": 1280, "height": 800}


def test_directory_tree_is_recursive_and_none_for_a_file(desktop, context):
    desktop.write_file("~/tree/a.jpg", b"1")
    desktop.write_file("~/tree/sub/b.jpg", b"2")
    tree = get(context, "list_directory", path="~/tree")
    children = sorted(tree["children"], key=lambda node: node["name"])
    assert tree["type"] == "directory" and tree["name"] == "tree"
    assert children[0] == {"type": "file", "name": "a.jpg"}
    assert children[1] == {
        "type": "directory",
        "name": "sub",
        "children": [{"type": "file", "name": "b.jpg"}],
    }
    assert get(context, "list_directory", path="~/tree/a.jpg") is None


def test_wallpaper_follows_the_desktop_setting(desktop, context, monkeypatch):
    assert Path(get(context, "vm_wallpaper", dest="none.png")).read_bytes() == b""  # no setting: empty file
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    desktop.write_file("~/Pictures/red.png", buffer.getvalue())
    monkeypatch.setitem(desktop.env, "GSETTINGS_BACKEND", "keyfile")  # settings that persist, as dconf's
    uri = f"file://{desktop.home}/Pictures/red.png"
    assert desktop.run(f"gsettings set org.gnome.desktop.background picture-uri '{uri}'").ok
    assert Path(get(context, "vm_wallpaper", dest="wall.png")).read_bytes() == buffer.getvalue()


def test_accessibility_and_terminal_need_a_vm_on_a_local_sandbox(context):
    for kind in ("accessibility_tree", "vm_terminal_output"):
        with pytest.raises(SandboxUnsupported, match="needs a VM"):
            get(context, kind)


def test_command_error_and_cache_file_from_a_postconfig_step(desktop, context):
    assert get(context, "vm_command_error", command=["ls", "/no/such/folder"]).startswith("ls: ")
    context.work_dir.mkdir(parents=True)
    step = Step(type="execute", parameters={"command": ["echo", "listed"], "stdout": "echo.out"})
    run_steps([step], desktop, SetupContext(cache=context.cache, output_dir=context.work_dir))
    assert Path(get(context, "cache_file", path="echo.out")).read_text() == "listed\n"
    with pytest.raises(TaskError, match="no earlier step"):
        get(context, "cache_file", path="missing.out")


def test_last_row_of_a_workbook_as_text(desktop, context):
    book = openpyxl.Workbook()
    book.active.append(["Name", "Year"])
    book.active.append(["Ada", 1815])
    book.active.append(["Alan", 1912])
    book.save(Path(desktop.host_home) / "people.xlsx")
    params = {"path": "~/people.xlsx", "file_type": "xlsx", "file_content": "last_row"}
    assert get(context, "content_from_vm_file", **params) == ["Alan", "1912"]
    with pytest.raises(TaskError):
        get(context, "content_from_vm_file", **{**params, "file_type": "csv"})


def test_application_config_files(desktop, context):
    assert get(context, "gimp_config_file", file_name="gimprc", dest="gimprc") is None
    desktop.write_file("~/.config/GIMP/2.10/gimprc", b"")
    assert get(context, "gimp_config_file", file_name="gimprc", dest="gimprc") is None  # empty: None
    desktop.write_file("~/.config/GIMP/2.10/gimprc", b"(default-threshold 30)\n")
    assert (
        Path(get(context, "gimp_config_file", file_name="gimprc", dest="gimprc"))
        .read_bytes()
        .startswith(b"(")
    )
    with pytest.raises(FileNotFoundError):
        get(context, "vlc_config", dest="vlcrc")
    desktop.write_file("~/.config/vlc/vlcrc", b"qt-bgcone=0\n")
    assert Path(get(context, "vlc_config", dest="vlcrc")).read_text() == "qt-bgcone=0\n"


def test_default_video_player_is_the_most_common_association(desktop, context):
    for app in ("vlc", "mpv"):  # xdg-mime names only installed applications
        entry = f"[Desktop Entry]\nType=Application\nName={app}\nExec=xmessage %f\n"
        desktop.write_file(f"~/.local/share/applications/{app}.desktop", entry.encode())
    # vlc for all but one type, mpv for that one (the system's default player, Totem where installed,
    # answers none of them)
    (first, *rest) = VIDEO_TYPES
    lines = [f"video/{first}=mpv.desktop", *(f"video/{name}=vlc.desktop" for name in rest)]
    desktop.write_file(
        "~/.config/mimeapps.list", ("[Default Applications]\n" + "\n".join(lines) + "\n").encode()
    )
    assert get(context, "default_video_player") == "vlc.desktop\n"


class _VLCStatus(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        expected = "Basic " + base64.b64encode(b":password").decode()
        ok = self.headers.get("Authorization") == expected and self.path == "/requests/status.xml"
        body = b"<root><state>playing</state></root>" if ok else b"denied"
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_vlc_status_is_read_with_its_password(context, monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VLCStatus)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(settings, "VLC_HTTP_PORT", server.server_address[1])
        path = get(context, "vlc_playing_info", dest="status.xml")
        assert Path(path).read_bytes() == b"<root><state>playing</state></root>"
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(TaskError, match="did not answer"):  # nothing listens any more
        get(context, "vlc_playing_info", dest="status.xml")


def test_vscode_command_is_typed_into_the_focused_window(desktop, context):
    """xterm running `cat` stands in for VS Code: the palette keys go to it, the command's name and Enter
    reach cat, which writes the file the getter then fetches."""
    desktop.launch("xterm -name PaletteProbe -e sh -c 'cat > ~/palette.txt'")
    wait_for(lambda: desktop.run("xdotool search --classname PaletteProbe").stdout.strip())
    desktop.run("xdotool search --classname PaletteProbe windowactivate --sync")
    wait_for(lambda: desktop.exists("~/palette.txt"))
    params = {"vscode_extension_command": "OpenProject", "path": "~/palette.txt", "dest": "out.txt"}
    assert Path(get(context, "vscode_config", **params)).read_text().endswith("OpenProject\n")


def _deck_with_media(path: Path, background: bool) -> None:
    """A .pptx whose first slide has an audio relationship and, if `background`, a picture background."""
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(path)
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    rels = parts["ppt/slides/_rels/slide1.xml.rels"].decode()
    audio = (
        '<Relationship Id="rId90" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/audio" Target="../media/media1.wav"/>'
    )
    image = (
        '<Relationship Id="rId91" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/image" Target="file:///tmp/linked-background.png"/>'
    )
    parts["ppt/slides/_rels/slide1.xml.rels"] = rels.replace(
        "</Relationships>", audio + image + "</Relationships>"
    ).encode()
    parts["ppt/media/media1.wav"] = b"RIFF-audio"
    if background:
        slide = parts["ppt/slides/slide1.xml"].decode()
        fill = '<p:bg><p:bgPr><a:blipFill><a:blip r:embed="rId91"/></a:blipFill></p:bgPr></p:bg>'
        parts["ppt/slides/slide1.xml"] = slide.replace("<p:cSld>", "<p:cSld>" + fill, 1).encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)


def test_slide_audio_is_extracted_and_a_linked_background_fetched(desktop, context):
    _deck_with_media(Path(desktop.host_home) / "deck.pptx", background=True)
    _deck_with_media(Path(desktop.host_home) / "plain.pptx", background=False)
    desktop.write_file("/tmp/linked-background.png", b"PNG-bytes")
    audio = get(context, "audio_in_slide", ppt_file_path="~/deck.pptx", slide_index=0, dest="a.wav")
    assert Path(audio).read_bytes() == b"RIFF-audio" and audio.endswith("ppt/media/media1.wav")
    picture = get(
        context, "background_image_in_slide", ppt_file_path="~/deck.pptx", slide_index=0, dest="bg.png"
    )
    assert Path(picture).read_bytes() == b"PNG-bytes"
    assert (
        get(context, "background_image_in_slide", ppt_file_path="~/plain.pptx", slide_index=0, dest="x")
        is None
    )
    assert get(context, "audio_in_slide", ppt_file_path="~/deck.pptx", slide_index=4, dest="x") is None


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    """An OSWorld VM: the server double over a local desktop, or the real server at OSWORLD_SERVER_URL."""
    with vm_under_test(tmp_path_factory.mktemp("vm") / "home") as parts:
        yield parts[0]


@pytest.fixture
def vm_context(vm, tmp_path):
    return GetterContext(sandbox=vm, cache=FileCache(tmp_path / "cache"), work_dir=tmp_path / "work")


def test_vm_window_and_screen_size_as_xdotool_measures_them(vm, vm_context):
    vm.launch("xmessage -name VMProbe -geometry 300x200+20+20 'a window to measure'")
    try:
        size = wait_for(lambda: get(vm_context, "vm_window_size", app_class_name="vmprobe"))
        geometry = vm.run("xdotool search --classname VMProbe getwindowgeometry --shell").stdout
        assert f"WIDTH={size['width']}" in geometry and f"HEIGHT={size['height']}" in geometry
        assert get(vm_context, "vm_window_size", app_class_name="XMESSAGE") == size
        assert get(vm_context, "vm_window_size", app_class_name="absent") is None
    finally:
        vm.run("xdotool search --classname VMProbe windowkill")
    width, height = vm.run("xdotool getdisplaygeometry").stdout.split()
    assert get(vm_context, "vm_screen_size") == {"width": int(width), "height": int(height)}


def test_vm_directory_tree_expands_the_home_and_is_none_for_a_file(vm, vm_context):
    vm.run("rm -rf ~/tree-probe")  # a real VM keeps its files between runs
    vm.write_file("~/tree-probe/sub/f.txt", b"x")
    assert get(vm_context, "list_directory", path="~/tree-probe") == {
        "type": "directory",
        "name": "tree-probe",
        "children": [{"type": "directory", "name": "sub", "children": [{"type": "file", "name": "f.txt"}]}],
    }
    assert get(vm_context, "list_directory", path=f"{vm.home}/tree-probe/sub/f.txt") is None


def test_vm_wallpaper_follows_the_desktop_setting(vm, vm_context):
    key = "org.gnome.desktop.background picture-uri"
    before = vm.run(f"gsettings get {key}").stdout.strip()
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    vm.write_file("~/Pictures/red-probe.png", buffer.getvalue())
    try:
        assert vm.run(f"gsettings set {key} 'file://{vm.home}/Pictures/red-probe.png'").ok
        assert Path(get(vm_context, "vm_wallpaper", dest="wall.png")).read_bytes() == buffer.getvalue()
        assert vm.run(f"gsettings set {key} 'file:///no/such/wallpaper.png'").ok
        assert Path(get(vm_context, "vm_wallpaper", dest="none.png")).read_bytes() == b""
    finally:
        if before:
            vm.run(f"gsettings set {key} {before}")


def test_vm_accessibility_tree_names_the_windows_and_no_terminal_is_none(vm, vm_context):
    vm.launch("soffice --norestore --calc")
    title = "Untitled 1 - LibreOffice Calc"
    try:
        wait_for(lambda: title in vm.run("wmctrl -l").stdout, timeout=90)

        def named_nodes():
            tree = ElementTree.fromstring(get(vm_context, "accessibility_tree"))
            return tree.tag == "desktop-frame" and [node for node in tree.iter() if node.get("name") == title]

        node = wait_for(named_nodes, timeout=30)[0]
        assert node.get(f"{{{ACCESSIBILITY_NAMESPACES['st']}}}showing") == "true"
    finally:
        vm.run(
            f"wmctrl -c {quote(title)}; for i in $(seq 100); do wmctrl -l | grep -q Calc || break; sleep 0.1; done"
        )
    assert get(vm_context, "vm_terminal_output") is None


def test_vm_commands_and_a_postconfig_steps_file(vm, vm_context):
    assert get(vm_context, "vm_command_line", command=["printf", "%s", "~/x"]) == f"{vm.home}/x"
    assert get(vm_context, "vm_command_line", command="echo $0", shell=True) == "/bin/sh\n"
    assert get(vm_context, "vm_command_error", command=["ls", "/no/such/folder"]).startswith("ls: ")
    vm_context.work_dir.mkdir(parents=True)
    step = Step(type="execute", parameters={"command": ["echo", "listed"], "stdout": "echo.out"})
    run_steps([step], vm, SetupContext(cache=vm_context.cache, output_dir=vm_context.work_dir))
    assert Path(get(vm_context, "cache_file", path="echo.out")).read_text() == "listed\n"


def test_vm_application_files(vm, vm_context, tmp_path):
    vm.run("rm -rf ~/.config/GIMP/2.10/gimprc ~/.config/vlc/vlcrc")
    assert get(vm_context, "gimp_config_file", file_name="gimprc", dest="gimprc") is None
    vm.write_file("~/.config/GIMP/2.10/gimprc", b"(default-threshold 30)\n")
    gimprc = get(vm_context, "gimp_config_file", file_name="gimprc", dest="gimprc")
    assert Path(gimprc).read_bytes() == b"(default-threshold 30)\n"
    with pytest.raises(FileNotFoundError):
        get(vm_context, "vlc_config", dest="vlcrc")
    vm.write_file("~/.config/vlc/vlcrc", b"qt-bgcone=0\n")
    assert Path(get(vm_context, "vlc_config", dest="vlcrc")).read_text() == "qt-bgcone=0\n"
    book = openpyxl.Workbook()
    book.active.append(["Name", "Year"])
    book.active.append(["Alan", 1912])
    book.save(tmp_path / "people.xlsx")
    vm.write_file("~/people-probe.xlsx", (tmp_path / "people.xlsx").read_bytes())
    params = {"path": "~/people-probe.xlsx", "file_type": "xlsx", "file_content": "last_row"}
    assert get(vm_context, "content_from_vm_file", **params) == ["Alan", "1912"]


ZURICH = ZoneInfo("Europe/Zurich")


@pytest.mark.parametrize(
    ("today", "relative", "expected", "filled"),
    [
        (
            "2026-12-03",
            {"from": "5th next month"},
            {"time": "{DoW}, {Month} {DayD}, {Year}"},
            {"time": "Tue, Jan 5, 2027"},
        ),
        ("2026-07-08", {"from": "next Monday"}, {"time": "{Year}-{Month0D}-{Day0D}"}, {"time": "2026-07-13"}),
        ("2026-07-13", {"from": "next Monday"}, {"time": "{DoW} {DayD}"}, {"time": "Mon 20"}),
        ("2026-03-15", {"from": "this month"}, {"time": "{month}-weather"}, {"time": "march-weather"}),
        (
            "2026-10-01",
            {"from": "first monday four months later"},
            {"time": "{MonthFull} {Day0D}"},
            {"time": "February 01"},
        ),
        (
            "2026-07-11",
            {"from": "this Saturday", "to": "this Sunday"},
            {"from": "{DoW} {Day0D}", "to": "{DoW} {Day0D}"},
            {"from": "Sat 11", "to": "Sun 12"},
        ),
        (
            "2026-07-10",
            {"from": "next Friday", "to": "next Sunday"},
            {"from": "{DoW} {DayD}", "to": "{DoW} {DayD}"},
            {"from": "Fri 17", "to": "Sun 19"},
        ),
        (
            "2026-07-08",
            {"from": "next Monday split", "to": "next Friday split"},
            {
                "puDay": "{DayD}",
                "puMonth": "{MonthD}",
                "puYear": "{Year}",
                "doDay": "{Day0D}",
                "doMonth": "{Month0D}",
                "doYear": "{Year}",
            },
            {
                "puDay": "13",
                "puMonth": "7",
                "puYear": "2026",
                "doDay": "17",
                "doMonth": "07",
                "doYear": "2026",
            },
        ),
    ],
)
def test_relative_days(today, relative, expected, filled):
    now = datetime.fromisoformat(today).replace(hour=15, tzinfo=ZURICH)
    rules = {"relativeTime": relative, "expected": expected, "city": "Bern"}
    resolved = resolve_relative_time(rules, now)
    assert resolved["expected"] == filled and resolved["city"] == "Bern"
    assert rules["expected"] == expected  # the task's rules are left as they were


def test_relative_days_osworld_cannot_compute_are_errors():
    now = datetime(2026, 8, 3, tzinfo=ZURICH)
    with pytest.raises(TaskError, match="month 0"):  # (8 + 4) % 12
        resolve_relative_time(
            {"relativeTime": {"from": "first monday four months later"}, "expected": {"time": ""}}, now
        )
    with pytest.raises(TaskError, match="single day"):
        resolve_relative_time({"relativeTime": {"from": "this Saturday"}, "expected": {"time": ""}}, now)
    with pytest.raises(TaskError, match="unknown timezone"):
        fetch(
            Getter(
                type="rule_relativeTime",
                rules={
                    "timezone": "Mars/Olympus",
                    "relativeTime": {"from": "tomorrow"},
                    "expected": {"time": ""},
                },
            ),
            None,
        )
    assert fetch(Getter(type="time_diff_range", diff_range_in_minutes="60"), None) == "60"
