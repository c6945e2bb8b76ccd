"""VLC metrics: its HTTP status page (is it playing the right thing) and its vlcrc settings."""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import urlparse
from xml.etree import ElementTree

from stateact.evals.osworld.metrics.rules import MetricError

_FILE_FIELDS = ("filename", "title", "uri", "location", "name")
_URL_FIELDS = ("url", "URI", "location", "title", "filename")
_STREAM_FIELDS = ("Codec", "Type", "Language")


def _first_info(status: ElementTree.Element, fields: list[tuple[str, str]]) -> str | None:
    """The first non-empty `information/category[@name=C]/info[@name=N]` text of `fields` (C, N)."""
    for category, name in fields:
        element = status.find(f'information/category[@name="{category}"]/info[@name="{name}"]')
        if element is not None and element.text:
            return element.text
    return None


def _url_matches(found: str, url: str) -> bool:
    """The status names the URL, or its file name (as VLC shows streams), or a URL on its host whose
    path contains the expected path."""
    if url in found or found.endswith(url):
        return True
    expected = urlparse(url)
    if found == posixpath.basename(expected.path):
        return True
    if "://" in found:
        actual = urlparse(found)
        return expected.netloc == actual.netloc and expected.path in actual.path
    return False


def is_vlc_playing(result: str, rule: dict[str, Any]) -> float:
    """VLC's status is `playing` and its media is the rule's: `file_name` (the name, or the end of the
    path) or `url`."""
    with open(result, "rb") as handle:
        status = ElementTree.fromstring(handle.read().decode("utf-8"))
    if status.find("state").text != "playing":
        return 0.0
    if rule["type"] == "file_name":
        found = _first_info(status, [("meta", name) for name in _FILE_FIELDS])
        name = rule["file_name"]
        return float(found is not None and (posixpath.basename(found) == name or found.endswith(name)))
    if rule["type"] == "url":
        fields = [("meta", name) for name in _URL_FIELDS] + [("Stream 0", name) for name in _STREAM_FIELDS]
        found = _first_info(status, fields)
        return float(found is not None and _url_matches(found, rule["url"]))
    return 0.0


def _read(path: str) -> list[str]:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8").split("\n")


def _last_setting(lines: list[str], marker: str, default: str) -> str:
    """The value after the last `=` of the last line containing `marker` (commented lines too, as
    OSWorld reads them), else `default`."""
    value = default
    for line in lines:
        if marker in line:
            value = line.split("=")[-1].strip()
    return value


def is_vlc_recordings_folder(result: str, rule: dict[str, Any]) -> float:
    """The first uncommented `input-record-path` line's value is the rule's `recording_file_path`."""
    for line in _read(result):
        if line.startswith("#") or not line.strip():
            continue
        if "input-record-path" in line:
            return float(line.split("=")[-1].strip() == rule["recording_file_path"])
    return 0.0


def is_vlc_fullscreen(window: dict[str, int] | None, screen: dict[str, int] | None) -> float:
    """VLC's window has the screen's size."""
    if window is None or screen is None:
        return 0.0
    return float(window["width"] == screen["width"] and window["height"] == screen["height"])


def _setting_check(key: str, rule_key: str, default: str):
    def check(result: str, rule: dict[str, Any]) -> float:
        return float(_last_setting(_read(result), f"{key}=", default) == str(rule[rule_key]))

    check.__doc__ = f"vlcrc's `{key}` (default {default}) is the rule's `{rule_key}`."
    return check


def check_qt_slider_colours(result: str, rule: dict[str, Any]) -> float:
    """`qt-slider-colours` (semicolon-separated RGB triples) equals the rule's (`match`), or every
    colour has all three values under 100 (`blackish`)."""
    colours = _last_setting(_read(result), "qt-slider-colours", "153;210;153;20;210;20;255;199;15;245;39;29")
    if rule["type"] == "match":
        return float(colours == rule["expected_qt_slider_colours"])
    if rule["type"] == "blackish":
        try:
            values = [int(value) for value in colours.split(";")]
        except ValueError:
            return 0.0
        return float(all(value < 100 for value in values[: len(values) // 3 * 3]))
    raise MetricError(f"check_qt_slider_colours: unknown rule type {rule['type']!r} (match, blackish)")


def check_global_key_play_pause(result: str, rule: dict[str, Any]) -> float:
    """Whether a global play/pause key is set (`1`) or not (`0`), as the rule expects."""
    is_set = "1" if _last_setting(_read(result), "global-key-play-pause=", "") else "0"
    return float(is_set == str(rule["expected_global_key_play_pause"]))


METRICS = {
    "is_vlc_playing": is_vlc_playing,
    "is_vlc_recordings_folder": is_vlc_recordings_folder,
    "is_vlc_fullscreen": is_vlc_fullscreen,
    "check_qt_bgcone": _setting_check("qt-bgcone", "expected_qt_bgcone", "1"),
    "check_qt_max_volume": _setting_check("qt-max-volume", "expected_qt_max_volume", "125"),
    "check_qt_minimal_view": _setting_check("qt-minimal-view", "expected_qt_minimal_view", "0"),
    "check_one_instance_when_started_from_file": _setting_check(
        "one-instance-when-started-from-file", "expected_one_instance_when_started_from_file", "1"
    ),
    "check_qt_slider_colours": check_qt_slider_colours,
    "check_global_key_play_pause": check_global_key_play_pause,
}
