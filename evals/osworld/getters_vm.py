"""Getters that read the desktop and its applications' state, with OSWorld's semantics.

- `accessibility_tree`, `vm_terminal_output`: the AT-SPI tree, the active terminal's text (a sandbox
  without AT-SPI raises SandboxUnsupported: the task needs a VM).
- `vm_screen_size`, `vm_window_size` (`app_class_name`): `{width, height}`; a window that is not there
  gives None.
- `vm_wallpaper` (`dest`): the wallpaper file; an empty file when none is set.
- `list_directory` (`path`): `{type, name, children}`, recursively; None when it is not a folder.
- `vm_command_error` (`command`): the command's standard error.
- `cache_file` (`path`): a file an earlier step wrote to the scoring folder (a postconfig command's
  `stdout`); it must exist.
- `content_from_vm_file` (`path`, `file_type: xlsx`, `file_content: last_row`): the last row's cells as text.
- `gimp_config_file` (`file_name`, `dest`): GIMP 2.10's settings file; None when missing or empty.
- `vlc_config` (`dest`): VLC's vlcrc. `vlc_playing_info` (`dest`): VLC's HTTP status page, fetched
  inside the sandbox.
- `vscode_config` (`vscode_extension_command`, `path`, `dest`): runs the command through VS Code's
  palette, then fetches `path`.
- `audio_in_slide`, `background_image_in_slide` (`ppt_file_path`, `slide_index`, `dest`): the slide's
  first audio, or its background picture, taken out of the .pptx (or fetched when it is linked).
- `default_video_player`: the .desktop file most video types open with (`xdg-mime`), or `unknown`.
"""

from __future__ import annotations

import base64
import posixpath
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from stateact.evals import settings
from stateact.evals.osworld.setup import step_command
from stateact.evals.osworld.task import TaskError

if TYPE_CHECKING:
    from stateact.evals.osworld.getter_context import GetterContext

GIMP_CONFIG_DIR = "~/.config/GIMP/2.10"
VLC_CONFIG = "~/.config/vlc/vlcrc"
VLC_PASSWORD = "password"
"""The password (with no user name) of VLC's HTTP interface in OSWorld's VMs."""
PALETTE_SETTLE_S = 1.0
"""How long VS Code gets to run a palette command before its output file is read (as OSWorld waits)."""
VIDEO_TYPES = [
    "3gp",
    "3gpp",
    "3gpp2",
    "avi",
    "divx",
    "dv",
    "fli",
    "flv",
    "mp2t",
    "mp4",
    "mp4v-es",
    "mpeg",
    "mpeg-system",
    "msvideo",
    "ogg",
    "quicktime",
    "vnd.divx",
    "vnd.mpegurl",
    "vnd.rn-realvideo",
    "webm",
    "x-anim",
    "x-avi",
    "x-flc",
    "x-fli",
    "x-flv",
    "x-m4v",
    "x-matroska",
    "x-mpeg",
    "x-mpeg-system",
    "x-mpeg2",
    "x-ms-asf",
    "x-ms-asf-plugin",
    "x-ms-asx",
    "x-ms-wm",
    "x-ms-wmv",
    "x-ms-wmx",
    "x-ms-wvx",
    "x-msvideo",
    "x-nsv",
    "x-ogm",
    "x-ogm+ogg",
    "x-theora",
    "x-theora+ogg",
]
"""The `video/*` types whose default application is counted. OSWorld's list names every type but
`x-ogm+ogg` twice, which weighs the vote; `_VIDEO_TYPE_WEIGHT` keeps that."""
_VIDEO_TYPE_WEIGHT = {name: 1 if name == "x-ogm+ogg" else 2 for name in VIDEO_TYPES}

_PRESENTATION = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_DRAWING = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"


def fetch_vm_file(context: GetterContext, path: str, dest: str | Path) -> str | None:
    """Copy the sandbox file `path` to `dest` in the scoring folder; its local path, None when missing."""
    try:
        data = context.sandbox.read_file(path)
    except FileNotFoundError:
        return None
    return save(context, dest, data)


def save(context: GetterContext, dest: str | Path, data: bytes) -> str:
    """Write `data` to `dest` in the scoring folder; its local path."""
    target = context.work_dir / dest
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return str(target)


def _size(size: tuple[int, int] | None) -> dict[str, int] | None:
    return None if size is None else {"width": size[0], "height": size[1]}


def _accessibility_tree(params: dict, context: GetterContext) -> str:
    return context.sandbox.accessibility_tree()


def _terminal_output(params: dict, context: GetterContext) -> str | None:
    return context.sandbox.terminal_output()


def _screen_size(params: dict, context: GetterContext) -> dict[str, int] | None:
    return _size(context.sandbox.screen_size())


def _window_size(params: dict, context: GetterContext) -> dict[str, int] | None:
    return _size(context.sandbox.window_size(params["app_class_name"]))


def _wallpaper(params: dict, context: GetterContext) -> str:
    return save(context, params["dest"], context.sandbox.wallpaper() or b"")


def _list_directory(params: dict, context: GetterContext) -> dict | None:
    return context.sandbox.directory_tree(params["path"])


def _command_error(params: dict, context: GetterContext) -> str:
    return context.sandbox.run(
        step_command(params, context.sandbox), timeout=settings.GETTER_COMMAND_TIMEOUT_S
    ).stderr


def _cache_file(params: dict, context: GetterContext) -> str:
    path = context.work_dir / params["path"]
    if not path.exists():
        raise TaskError(f"cache_file: no {params['path']!r} in the scoring folder (no earlier step wrote it)")
    return str(path)


def _content_from_vm_file(params: dict, context: GetterContext) -> list[str]:
    import pandas as pd

    kind, content = params["file_type"], params["file_content"]
    if (kind, content) != ("xlsx", "last_row"):
        raise TaskError(
            f"content_from_vm_file: only file_type xlsx with file_content last_row, not {kind}/{content}"
        )
    local = fetch_vm_file(context, params["path"], Path(params["path"]).name)
    if local is None:
        raise FileNotFoundError(params["path"])
    return pd.read_excel(local).iloc[-1].astype(str).tolist()


def _gimp_config_file(params: dict, context: GetterContext) -> str | None:
    try:
        data = context.sandbox.read_file(f"{GIMP_CONFIG_DIR}/{params['file_name']}")
    except FileNotFoundError:
        return None
    return save(context, params["dest"], data) if data else None


def _vlc_config(params: dict, context: GetterContext) -> str:
    return save(context, params["dest"], context.sandbox.read_file(VLC_CONFIG))


_VLC_STATUS_CODE = f"""
import base64, urllib.error, urllib.request
request = urllib.request.Request("http://localhost:%d/requests/status.xml")
request.add_header("Authorization", "Basic " + base64.b64encode(b":" + {VLC_PASSWORD.encode()!r}).decode())
try:
    body = urllib.request.urlopen(request, timeout=10).read()
except urllib.error.HTTPError as exc:
    print("HTTP", exc.code)
else:
    print("OK", base64.b64encode(body).decode())
"""


def _vlc_playing_info(params: dict, context: GetterContext) -> str | None:
    """VLC's status page, read from inside the sandbox (where VLC listens); None when it answers an error."""
    code = _VLC_STATUS_CODE % settings.VLC_HTTP_PORT
    result = context.sandbox.run_python(code, timeout=settings.GETTER_COMMAND_TIMEOUT_S)
    answer = result.stdout.strip().split()
    if not result.ok or len(answer) != 2:
        raise TaskError(
            f"vlc_playing_info: VLC's HTTP interface did not answer: {result.output.strip()[-500:]}"
        )
    if answer[0] != "OK":
        return None
    return save(context, params["dest"], base64.b64decode(answer[1]))


def _vscode_config(params: dict, context: GetterContext) -> str | None:
    command = str(params["vscode_extension_command"])
    for action in ("hotkey('ctrl', 'shift', 'p')", f"typewrite({command!r})", "press('enter')"):
        context.sandbox.run_python(f"import pyautogui; pyautogui.FAILSAFE = False; pyautogui.{action}")
    time.sleep(PALETTE_SETTLE_S)
    return fetch_vm_file(context, params["path"], params["dest"])


def _slide_part(
    params: dict, context: GetterContext, pick: Callable[[zipfile.ZipFile, int], str | None]
) -> str | None:
    """The slide's media file that `pick` names in the .pptx: extracted next to the fetched deck when it
    is inside it (`../media/...`), fetched to `dest` when it is linked (`file://...`); None when none."""
    deck = params["ppt_file_path"]
    local = fetch_vm_file(context, deck, posixpath.basename(deck))
    if local is None:
        raise FileNotFoundError(deck)
    with zipfile.ZipFile(local) as archive:
        target = pick(archive, int(params["slide_index"]) + 1)
        if target is None:
            return None
        if target.startswith(".."):
            member = posixpath.normpath(posixpath.join("ppt/slides", target))
            return archive.extract(member, Path(local).parent)
    if not target.startswith("file://"):
        raise TaskError(f"slide media target {target!r} is neither in the deck (../) nor a file:// link")
    return fetch_vm_file(context, target[len("file://") :], params["dest"])


def _relationships(archive: zipfile.ZipFile, slide: int) -> list[ElementTree.Element]:
    name = f"ppt/slides/_rels/slide{slide}.xml.rels"
    if name not in archive.namelist():
        return []
    return ElementTree.fromstring(archive.read(name)).findall(_RELATIONSHIP)


def _first_audio(archive: zipfile.ZipFile, slide: int) -> str | None:
    return next(
        (rel.get("Target") for rel in _relationships(archive, slide) if "audio" in rel.get("Type", "")), None
    )


def _background_image(archive: zipfile.ZipFile, slide: int) -> str | None:
    """The picture the slide's first picture-filled background (`p:bgPr`) shows."""
    name = f"ppt/slides/slide{slide}.xml"
    if name not in archive.namelist():
        return None
    root = ElementTree.fromstring(archive.read(name))
    blips = (
        blip
        for background in root.iter(f"{_PRESENTATION}bgPr")
        for blip in background.iter(f"{_DRAWING}blip")
    )
    image_id = next((blip.get(_EMBED) for blip in blips if blip.get(_EMBED) is not None), None)
    if image_id is None:
        return None
    return next(
        (
            rel.get("Target")
            for rel in _relationships(archive, slide)
            if "image" in rel.get("Type", "") and rel.get("Id") == image_id
        ),
        None,
    )


def _audio_in_slide(params: dict, context: GetterContext) -> str | None:
    return _slide_part(params, context, _first_audio)


def _background_image_in_slide(params: dict, context: GetterContext) -> str | None:
    return _slide_part(params, context, _background_image)


def _default_video_player(params: dict, context: GetterContext) -> str:
    """Each type's `xdg-mime query default` output (newline kept, as OSWorld counts it); the most
    common non-empty one, the first seen on a tie."""
    queries = "; ".join(f"xdg-mime query default video/{name}; printf '\\0'" for name in VIDEO_TYPES)
    answers = context.sandbox.run(queries, timeout=settings.GETTER_COMMAND_TIMEOUT_S).stdout.split("\0")
    votes: Counter[str] = Counter()
    for name, answer in zip(VIDEO_TYPES, answers, strict=False):
        if answer:
            votes[answer] += _VIDEO_TYPE_WEIGHT[name]
    return votes.most_common(1)[0][0] if votes else "unknown"


VM_GETTERS: dict[str, Callable[[dict, GetterContext], Any]] = {
    "accessibility_tree": _accessibility_tree,
    "vm_terminal_output": _terminal_output,
    "vm_screen_size": _screen_size,
    "vm_window_size": _window_size,
    "vm_wallpaper": _wallpaper,
    "list_directory": _list_directory,
    "vm_command_error": _command_error,
    "cache_file": _cache_file,
    "content_from_vm_file": _content_from_vm_file,
    "gimp_config_file": _gimp_config_file,
    "vlc_config": _vlc_config,
    "vlc_playing_info": _vlc_playing_info,
    "vscode_config": _vscode_config,
    "audio_in_slide": _audio_in_slide,
    "background_image_in_slide": _background_image_in_slide,
    "default_video_player": _default_video_player,
}
