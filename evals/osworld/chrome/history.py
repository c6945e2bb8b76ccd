"""Chrome's browsing history as OSWorld's `update_browse_history` setup writes it.

The step starts from OSWorld's empty History database (a file of its download cache) and adds one
`urls` row and one `visits` row per visit, timed `visit_time_from_now_in_seconds` before now, then
puts it where Chrome keeps it.
"""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

EMPTY_HISTORY_URL = (
    "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/chrome/"
    "44ee5668-ecd5-4366-a6ce-c1c9b8d4e938/history_empty.sqlite?download=true"
)
"""Where OSWorld takes its empty History database from (the download cache holds it by this URL)."""
EMPTY_HISTORY_NAME = "history_empty.sqlite"
"""Its file name in the download cache."""
HISTORY_PATH = "~/.config/google-chrome/Default/History"
CHROME_EPOCH = datetime(1601, 1, 1)
"""Chrome counts time in microseconds from here."""
LINK_TRANSITION = 805306368
"""The `transition` OSWorld records for each visit (a link, chain start and end)."""


def chrome_time(moment: datetime) -> int:
    """`moment` in Chrome's microseconds since 1601 (a naive local time, as OSWorld computes it)."""
    return int((moment - CHROME_EPOCH).total_seconds() * 1_000_000)


def with_visits(database: bytes, visits: list[dict[str, Any]], now: datetime | None = None) -> bytes:
    """The History database `database` with `visits` (`url`, `title`, `visit_time_from_now_in_seconds`)
    added."""
    now = now or datetime.now()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "History"
        path.write_bytes(database)
        with closing(sqlite3.connect(path)) as connection:
            for visit in visits:
                when = chrome_time(now - timedelta(seconds=visit["visit_time_from_now_in_seconds"]))
                row = connection.execute(
                    "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) "
                    "VALUES (?, ?, 1, 0, ?, 0)",
                    (visit["url"], visit["title"], when),
                )
                connection.execute(
                    "INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) "
                    "VALUES (?, ?, 0, ?, 0, 0)",
                    (row.lastrowid, when, LINK_TRANSITION),
                )
            connection.commit()
        return path.read_bytes()
