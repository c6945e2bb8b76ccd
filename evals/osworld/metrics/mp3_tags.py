"""`check_mp3_meta`: an MP3 file's ID3 tags (read with mutagen's EasyID3) against value rules."""

from __future__ import annotations

from typing import Any

from mutagen.easyid3 import EasyID3

from stateact.evals.osworld.metrics.rules import match_value_to_rule


def check_mp3_meta(result: str | None, meta: dict[str, dict[str, Any]]) -> float:
    """1 when every tag (EasyID3 names: `title`, `artist`, ...; several values joined with commas,
    a missing tag is "") matches its rule; rules after the first failing one are not evaluated.
    A file without an ID3 tag raises, as in OSWorld."""
    if result is None:
        return 0.0
    tags = EasyID3(result)
    return float(all(match_value_to_rule(",".join(tags.get(key, [])), rule) for key, rule in meta.items()))


METRICS = {"check_mp3_meta": check_mp3_meta}
