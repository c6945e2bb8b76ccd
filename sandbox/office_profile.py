"""The LibreOffice user profile of a sandbox home, set up like the OSWorld VM image's.

A fresh LibreOffice profile shows "Tip of the Day" and stops ctrl+s on an .xlsx at the "Keep
current format" question, so a task's postconfig ctrl+s would never save. Every LibreOffice started
with the sandbox's HOME (a setup `open` step, the agent's own `soffice`, the office toolkit) uses
`$HOME/.config/libreoffice/4/user`; writing the settings there once, before anything runs, covers
them all. The settings are in libreoffice_profile.xcu next to this module.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PROFILE_SETTINGS = Path(__file__).with_name("libreoffice_profile.xcu")
"""The settings file (LibreOffice's `registrymodifications.xcu` format)."""
PROFILE_USER_DIR = Path(".config/libreoffice/4/user")
"""LibreOffice's default user profile folder, relative to HOME (when XDG_CONFIG_HOME is not set)."""
SETTINGS_NAME = "registrymodifications.xcu"


def install_office_profile(home: Path) -> bool:
    """Give `home` the profile settings unless its LibreOffice profile already has settings of its own.

    Returns whether the file was written; an existing profile is left as it is.
    """
    target = home / PROFILE_USER_DIR / SETTINGS_NAME
    if target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PROFILE_SETTINGS, target)
    return True
