"""The local file cache that stands in for the URLs task files download from.

Task files download their inputs (`download` steps, `cloud_file` getters) from
URLs that are unreachable here. A cache folder holds those files instead. A URL
resolves to the first file that exists of:

1. `<cache>/by-url/<sha256(url)[:16]>`, then the same with any file name after
   it (`<cache>/by-url/<hash>/<anything>`): exact, for URLs whose names collide;
2. `<cache>/<name>`, where `<name>` is the URL path's last segment, URL-decoded
   (query and fragment ignored): `https://host/a/b/Sales%20Q1.xlsx` -> `Sales Q1.xlsx`;
3. `<cache>/<name of the destination>`, the file name the task gives the download.

`url_key(url)` prints the hash for a URL. A missing file raises CacheMiss, whose
message names the URL and every path that was tried.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import unquote, urlparse


class CacheMiss(FileNotFoundError):
    """No cached file for a URL."""


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def url_file_name(url: str) -> str:
    return unquote(Path(urlparse(url).path).name)


class FileCache:
    """Resolves URLs to files under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def candidates(self, url: str, dest_name: str = "") -> list[Path]:
        keyed = self.root / "by-url" / url_key(url)
        found = [keyed]
        if keyed.is_dir():
            found.extend(sorted(p for p in keyed.iterdir() if p.is_file()))
        for name in (url_file_name(url), Path(dest_name).name):
            if name and self.root / name not in found:
                found.append(self.root / name)
        return found

    def resolve(self, url: str, dest_name: str = "") -> Path:
        tried = self.candidates(url, dest_name)
        for path in tried:
            if path.is_file():
                return path
        listing = "\n  ".join(str(p) for p in tried)
        raise CacheMiss(
            f"no cached file for {url} (the URL is not fetched; put the file in the cache). Tried:\n  {listing}"
        )

    def read(self, url: str, dest_name: str = "") -> bytes:
        return self.resolve(url, dest_name).read_bytes()
