"""Getters that read Chrome's profile files in the sandbox (`~/.config/google-chrome`), as OSWorld does.

Preferences (`Default/Preferences`) and Local State are JSON; History and Cookies are SQLite files,
copied to the scoring folder (`dest`) and queried there. A file that is missing or unreadable gives
OSWorld's fallback value for that getter (note: OSWorld's fallback for several yes/no settings is the
string "Google"), so the metric scores what OSWorld's would.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import PurePosixPath
from typing import Any

from stateact.sandbox.base import SandboxError

PROFILE = "~/.config/google-chrome"
PREFERENCES = f"{PROFILE}/Default/Preferences"
LOCAL_STATE = f"{PROFILE}/Local State"
DEFAULT_FONT_SIZES = {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13}
"""What Chrome uses when Preferences set no font sizes (OSWorld's value then)."""
_UNREADABLE = (OSError, SandboxError, ValueError, KeyError, TypeError, AttributeError, sqlite3.Error)


def _yes_no(value: Any) -> str:
    return "true" if value else "false"


def _json_setting(path: str, read: Callable[[dict], Any], fallback: Any) -> Callable[[dict, Any], Any]:
    def getter(params: dict, context: Any) -> Any:
        try:
            return read(json.loads(context.sandbox.read_file(path)))
        except _UNREADABLE:
            return fallback

    return getter


def _startup_page(preferences: dict) -> str:
    """`true` when Chrome opens the New Tab page at start (no `session`, or `restore_on_startup` 5)."""
    return (
        "true"
        if "session" not in preferences
        else _yes_no(preferences["session"].get("restore_on_startup") == 5)
    )


def _extension_settings(preferences: dict) -> list[dict]:
    return list(preferences.get("extensions", {}).get("settings", {}).values())


def bookmarks(params: dict, context: Any) -> Any:
    """The Bookmarks file's `roots` ([] when there is no file or it is empty)."""
    try:
        content = context.sandbox.read_file(f"{PROFILE}/Default/Bookmarks")
    except FileNotFoundError:
        return []
    return json.loads(content).get("roots", {}) if content else []


def _sqlite_rows(file: str, query: str) -> Callable[[dict, Any], list[tuple] | None]:
    def getter(params: dict, context: Any) -> list[tuple] | None:
        target = context.work_dir / params["dest"]
        try:
            data = context.sandbox.read_file(f"{PROFILE}/Default/{file}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            with closing(sqlite3.connect(target)) as connection:
                return connection.execute(query).fetchall()
        except _UNREADABLE:
            return None

    return getter


def shortcuts_on_desktop(params: dict, context: Any) -> dict[str, str]:
    """Every `.desktop` file of `~/Desktop`: its name -> its text."""
    listing = context.sandbox.run("ls -A ~/Desktop", timeout=30)
    names = [name for name in listing.stdout.splitlines() if name.endswith(".desktop")] if listing.ok else []
    return {
        name: context.sandbox.read_file(str(PurePosixPath("~/Desktop") / name)).decode("utf-8")
        for name in names
    }


GETTERS: dict[str, Callable[[dict, Any], Any]] = {
    "bookmarks": bookmarks,
    "history": _sqlite_rows("History", "SELECT url, title, last_visit_time FROM urls"),
    "cookie_data": _sqlite_rows("Cookies", "SELECT * FROM cookies"),
    "default_search_engine": _json_setting(
        PREFERENCES,
        lambda p: (
            p.get("default_search_provider_data", {}).get("template_url_data", {}).get("short_name", "Google")
        ),
        "Google",
    ),
    "profile_name": _json_setting(PREFERENCES, lambda p: p.get("profile", {}).get("name"), None),
    "chrome_font_size": _json_setting(
        PREFERENCES,
        lambda p: p.get("webkit", {}).get("webprefs", DEFAULT_FONT_SIZES),
        {"default_fixed_font_size": 13, "default_font_size": 16},
    ),
    "enable_do_not_track": _json_setting(
        PREFERENCES, lambda p: _yes_no(p.get("enable_do_not_track")), "false"
    ),
    "enable_enhanced_safety_browsing": _json_setting(
        PREFERENCES, lambda p: _yes_no(p.get("safebrowsing", {}).get("enhanced")), "Google"
    ),
    "new_startup_page": _json_setting(PREFERENCES, _startup_page, "Google"),
    "data_delete_automacally": _json_setting(
        PREFERENCES,
        lambda p: _yes_no(p["profile"].get("default_content_setting_values") is not None),
        "Google",
    ),
    "find_unpacked_extension_path": _json_setting(
        PREFERENCES, lambda p: [item["path"] for item in _extension_settings(p)], "Google"
    ),
    "find_installed_extension_name": _json_setting(
        PREFERENCES, lambda p: [item["manifest"]["name"] for item in _extension_settings(p)], "Google"
    ),
    "enabled_experiments": _json_setting(
        LOCAL_STATE, lambda s: s.get("browser", {}).get("enabled_labs_experiments", []), []
    ),
    "shortcuts_on_desktop": shortcuts_on_desktop,
}
"""Profile getters by OSWorld's getter type."""
