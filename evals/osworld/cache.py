"""The download cache: the files task files download (`download` steps, `cloud_file` getters).

A URL resolves to the first file that exists of:

1. `<cache>/by-url/<sha256(url)[:16]>`, then the same with any file name after
   it (`<cache>/by-url/<hash>/<anything>`): exact, for URLs whose names collide;
2. `<cache>/<name>`, where `<name>` is the URL path's last segment, URL-decoded
   (query and fragment ignored): `https://host/a/b/Sales%20Q1.xlsx` -> `Sales Q1.xlsx`;
3. `<cache>/<name of the destination>`, the file name the task gives the download.

When none exists, an http(s) URL is downloaded (httpx, `settings.DOWNLOAD_TIMEOUT_S`)
into `<cache>/by-url/<hash>/<name>` (the URL's file name, else the destination's),
so the next lookup finds it at step 1. `url_key(url)` prints the hash for a URL. A
file that is neither cached nor downloadable raises CacheMiss (DownloadError when
the download failed), whose message names the URL, why the download failed, and
every path that was tried.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

import httpx

from stateact.evals import settings

DOWNLOAD_SCHEMES = ("http", "https")
FALLBACK_FILE_NAME = "download"
"""The cached file's name when neither the URL nor the destination gives one."""


class CacheMiss(FileNotFoundError):
    """No cached file for a URL, and none could be downloaded."""


class DownloadError(CacheMiss):
    """The URL was not cached and its download failed (HTTP status, network error)."""


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def url_file_name(url: str) -> str:
    return unquote(Path(urlparse(url).path).name)


class FileCache:
    """Resolves URLs to files under `root`, downloading the ones it does not hold."""

    def __init__(self, root: Path, timeout_s: float = settings.DOWNLOAD_TIMEOUT_S) -> None:
        self.root = Path(root)
        self.timeout_s = timeout_s

    def candidates(self, url: str, dest_name: str = "") -> list[Path]:
        keyed = self.root / "by-url" / url_key(url)
        found = [keyed]
        if keyed.is_dir():
            found.extend(sorted(p for p in keyed.iterdir() if p.is_file()))
        for name in (url_file_name(url), Path(dest_name).name):
            if name and self.root / name not in found:
                found.append(self.root / name)
        return found

    def cached(self, url: str, dest_name: str = "") -> Path | None:
        """The cached file for `url`, or None (nothing is downloaded)."""
        return next((path for path in self.candidates(url, dest_name) if path.is_file()), None)

    def resolve(self, url: str, dest_name: str = "") -> Path:
        found = self.cached(url, dest_name)
        if found is not None:
            return found
        tried = self.candidates(url, dest_name)
        listing = "\n  ".join(str(p) for p in tried)
        if urlparse(url).scheme not in DOWNLOAD_SCHEMES:
            raise CacheMiss(
                f"no cached file for {url} (not an http(s) URL, so not downloaded). Tried:\n  {listing}"
            )
        try:
            return self.download(url, dest_name)
        except DownloadError as exc:
            raise DownloadError(f"no cached file for {url}; {exc}. Tried:\n  {listing}") from exc

    def download(self, url: str, dest_name: str = "") -> Path:
        """Fetch `url` into `<root>/by-url/<hash>/<name>` (written whole, then renamed into place)."""
        name = url_file_name(url) or Path(dest_name).name or FALLBACK_FILE_NAME
        target = self.root / "by-url" / url_key(url) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
        try:
            with (
                os.fdopen(handle, "wb") as out,
                httpx.stream("GET", url, follow_redirects=True, timeout=self.timeout_s) as response,
            ):
                if response.status_code >= 400:
                    raise DownloadError(f"download of {url} failed: HTTP {response.status_code}")
                for chunk in response.iter_bytes():
                    out.write(chunk)
            os.replace(partial, target)
        except httpx.HTTPError as exc:
            raise DownloadError(f"download of {url} failed: {type(exc).__name__}: {exc}") from exc
        finally:
            Path(partial).unlink(missing_ok=True)
        return target

    def read(self, url: str, dest_name: str = "") -> bytes:
        return self.resolve(url, dest_name).read_bytes()
