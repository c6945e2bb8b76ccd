"""What an isolated sandbox holds of an OSWorld VM image besides the installed system.

The user `user` (passwd and group entries for the id the sandbox's processes run as), the hostname in
/etc/hostname, the home's folders with `~/.config/user-dirs.dirs`, a `sudo` that takes the image's
password (`IMAGE_BIN`, sandbox/image_bin/sudo), a session D-Bus with dconf (settings persist in
`~/.config/dconf/user`) seeded with the image's settings that differ from GNOME's defaults, and the
image's Ctrl+Alt+T, which opens a terminal window titled `Terminal` (xterm, bound in openbox's rc.xml).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stateact.sandbox.settings import IMAGE_FOLDERS, SANDBOX_HOME, SANDBOX_HOSTNAME, SANDBOX_USER

IMAGE_BIN = Path(__file__).parent / "image_bin"
"""Programs of the image the host system lacks or cannot honour inside (sudo)."""
OPENBOX_RC = Path("/etc/xdg/openbox/rc.xml")
TERMINAL_KEY = (
    '<keybind key="C-A-t"><action name="Execute"><command>xterm -T Terminal</command></action></keybind>'
)


@dataclass(frozen=True)
class ImageFiles:
    """Generated files of one sandbox, each bound read-only over its system path inside."""

    binds: tuple[tuple[Path, str], ...]


def write_image_files(folder: Path, uid: int, gid: int) -> ImageFiles:
    """/etc/passwd, /etc/group and /etc/hostname for a sandbox whose processes run as `uid`:`gid`,
    written into `folder`: the host's entries, with `user` (home /home/user) in place of any that had
    the name or the id."""
    folder.mkdir(parents=True, exist_ok=True)
    passwd = _entries(
        "/etc/passwd", uid, f"{SANDBOX_USER}:x:{uid}:{gid}:{SANDBOX_USER},,,:{SANDBOX_HOME}:/bin/bash"
    )
    group = _entries("/etc/group", gid, f"{SANDBOX_USER}:x:{gid}:")
    files = {"passwd": passwd, "group": group, "hostname": f"{SANDBOX_HOSTNAME}\n"}
    for name, text in files.items():
        (folder / name).write_text(text)
    return ImageFiles(tuple((folder / name, f"/etc/{name}") for name in files))


def _entries(path: str, own_id: int, entry: str) -> str:
    """The lines of a passwd-style file without those named `user` or numbered `own_id`, then `entry`."""
    kept = []
    for line in Path(path).read_text().splitlines():
        fields = line.split(":")
        if len(fields) > 2 and (fields[0] == SANDBOX_USER or fields[2] == str(own_id)):
            continue
        kept.append(line)
    return "\n".join([*kept, entry]) + "\n"


def make_home_folders(home: Path) -> None:
    """The image's folders in `home` and the `user-dirs.dirs` that names them (kept when present)."""
    for name in IMAGE_FOLDERS:
        (home / name).mkdir(exist_ok=True)
    dirs = home / ".config" / "user-dirs.dirs"
    if not dirs.exists():
        dirs.parent.mkdir(parents=True, exist_ok=True)
        names = {"Public": "PUBLICSHARE", "Downloads": "DOWNLOAD"}  # xdg-user-dirs' keys
        dirs.write_text("".join(f'XDG_{names.get(n, n.upper())}_DIR="$HOME/{n}"\n' for n in IMAGE_FOLDERS))


def bind_terminal_key(home: Path) -> None:
    """Openbox's configuration in `home` with Ctrl+Alt+T opening a terminal, as on the image (kept when
    the home has one; nothing when openbox's own configuration is not installed)."""
    target = home / ".config" / "openbox" / "rc.xml"
    if target.exists() or not OPENBOX_RC.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(OPENBOX_RC.read_text().replace("<keyboard>", f"<keyboard>\n  {TERMINAL_KEY}", 1))
