"""The settings OSWorld's VM image has in the user's home that tasks and checkers depend on, given to a local
sandbox's home before a task's setup (a file already there is kept, so a task's own settings win).

- VLC (`~/.config/vlc/vlcrc`): the HTTP interface on with the password `password`, which the
  `vlc_playing_info` getter reads, and the first-run privacy question answered.
- The default video player (`~/.config/mimeapps.list`): Totem (GNOME Videos), the image's, so that the
  `default_video_player` getter does not answer VLC only because VLC is the one player installed here.
"""

from __future__ import annotations

from stateact.evals import settings
from stateact.evals.osworld.getters_vm import VIDEO_TYPES, VLC_CONFIG, VLC_PASSWORD
from stateact.sandbox.base import Sandbox

DEFAULT_VIDEO_PLAYER = "org.gnome.Totem.desktop"
"""The desktop file the VM image opens video types with."""
VLC_SETTINGS = f"""[qt]
qt-privacy-ask=0
[core]
extraintf=http
http-port={settings.VLC_HTTP_PORT}
[lua]
http-password={VLC_PASSWORD}
"""
MIMEAPPS_LIST = "~/.config/mimeapps.list"
HOME_FILES: dict[str, str] = {
    VLC_CONFIG: VLC_SETTINGS,
    MIMEAPPS_LIST: "[Default Applications]\n"
    + "".join(f"video/{name}={DEFAULT_VIDEO_PLAYER}\n" for name in VIDEO_TYPES),
}
"""Each file of the home the image configures, and its text."""


def give_home_settings(sandbox: Sandbox) -> list[str]:
    """Write each of HOME_FILES that `sandbox` does not have yet; the paths written."""
    written = [path for path in HOME_FILES if not sandbox.exists(path)]
    for path in written:
        sandbox.write_file(path, HOME_FILES[path].encode())
    return written
