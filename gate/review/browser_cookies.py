"""The cookies of the sandbox's Chromium profiles, read-only: the session the agent and the web subagent
signed in with, for the gate's `read_page`.

    cookies = sandbox_cookies(sandbox)            # every profile's cookies, decrypted
    header = cookie_header(cookies, "http://127.0.0.1:8080/orders")   # "session=..." or ""

The profiles are the web subagent's (`/tmp/.stateact-web-*`, subagents/sandbox_browser.py) and the desktop
browsers' (`~/.config/chromium`, `~/.config/google-chrome`). Their cookie databases are read through
`Sandbox.read_file` (as the sandbox's processes see them: a link the agent planted cannot reach a host
file) and opened in memory, so the profile is never written. Chromium encrypts values with a fixed key when
no keyring holds one ("v10"), which is the case in the sandbox; a value encrypted with a keyring's key is
skipped. Chromium writes cookies to its profile up to 30 s after they were set (its commit interval),
so a session begun in the last seconds before the gate ran may not be there yet.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from stateact.sandbox.base import Sandbox, SandboxError

PROFILE_FOLDERS = "/tmp/.stateact-web-* ~/.config/chromium ~/.config/google-chrome"
"""The sandbox's Chromium profiles (shell patterns, expanded in the sandbox)."""
COOKIE_FILES = ("Default/Cookies", "Default/Network/Cookies")
"""Where a profile keeps its cookie database (older and newer Chromium)."""
CHROMIUM_EPOCH_OFFSET_S = 11_644_473_600
"""Seconds from 1601-01-01 (Chromium's cookie times) to 1970-01-01."""
HOST_HASH_VERSION = 24
"""From this cookie database version on, a decrypted value starts with the SHA-256 of its host."""


@dataclass(frozen=True)
class Cookie:
    host: str
    """Chromium's host key: `example.com` (that host only) or `.example.com` (it and its subdomains)."""
    name: str
    value: str
    path: str
    secure: bool
    http_only: bool
    expires: float | None
    """Unix time, or None for a session cookie."""

    def matches(self, url: str) -> bool:
        parts = urlsplit(url)
        host, path = (parts.hostname or "").lower(), parts.path or "/"
        if self.secure and parts.scheme != "https":
            return False
        if self.expires is not None and self.expires < time.time():
            return False
        domain = self.host.lstrip(".").lower()
        in_domain = host == domain or (self.host.startswith(".") and host.endswith("." + domain))
        return in_domain and (path == self.path or path.startswith(self.path.rstrip("/") + "/"))


def cookie_header(cookies: list[Cookie], url: str) -> str:
    """The Cookie header a browser holding `cookies` sends with a request for `url` ('' for none)."""
    found = sorted((c for c in cookies if c.matches(url)), key=lambda c: -len(c.path))
    return "; ".join(f"{c.name}={c.value}" for c in found)


def sandbox_cookies(sandbox: Sandbox) -> list[Cookie]:
    """The cookies of every Chromium profile in the sandbox (none when there is no profile)."""
    cookies: list[Cookie] = []
    for path in _cookie_databases(sandbox):
        try:
            cookies += read_cookie_database(sandbox.read_file(path))
        except (OSError, SandboxError, sqlite3.DatabaseError):
            continue  # gone, unreadable, or not a cookie database
    return cookies


def _cookie_databases(sandbox: Sandbox) -> list[str]:
    files = " ".join(f'"$profile/{name}"' for name in COOKIE_FILES)
    listing = sandbox.run(
        f'for profile in {PROFILE_FOLDERS}; do for f in {files}; do [ -f "$f" ] && echo "$f"; done; done; true',
        timeout=10,
    )
    return [line for line in listing.stdout.splitlines() if line.startswith("/")]


def read_cookie_database(data: bytes) -> list[Cookie]:
    """The cookies of a Chromium cookie database given as bytes (opened in memory, never on disk)."""
    database = sqlite3.connect(":memory:")
    try:
        database.deserialize(data)
        version = int(dict(database.execute("SELECT key, value FROM meta").fetchall()).get("version", 0))
        rows = database.execute(
            "SELECT host_key, name, value, encrypted_value, path, is_secure, is_httponly, expires_utc, "
            "has_expires FROM cookies"
        ).fetchall()
    finally:
        database.close()
    cookies = []
    for host, name, value, encrypted, path, secure, http_only, expires_utc, has_expires in rows:
        if encrypted:
            value = _decrypt(bytes(encrypted), host, version)
            if value is None:
                continue
        expires = expires_utc / 1e6 - CHROMIUM_EPOCH_OFFSET_S if has_expires and expires_utc else None
        cookies.append(Cookie(host, name, value, path or "/", bool(secure), bool(http_only), expires))
    return cookies


def _decrypt(encrypted: bytes, host: str, version: int) -> str | None:
    """The value of a "v10" cookie (Chromium's fixed key on Linux without a keyring), or None."""
    if not encrypted.startswith(b"v10") or (len(encrypted) - 3) % 16:
        return None
    decryptor = Cipher(algorithms.AES(_FIXED_KEY), modes.CBC(b" " * 16)).decryptor()
    plain = decryptor.update(encrypted[3:]) + decryptor.finalize()
    padding = plain[-1] if plain else 0
    if not 1 <= padding <= 16 or plain[-padding:] != bytes([padding]) * padding:
        return None
    plain = plain[:-padding]
    if version >= HOST_HASH_VERSION:
        if plain[:32] != hashlib.sha256(host.encode()).digest():
            return None
        plain = plain[32:]
    try:
        return plain.decode()
    except UnicodeDecodeError:
        return None


_FIXED_KEY = PBKDF2HMAC(algorithm=hashes.SHA1(), length=16, salt=b"saltysalt", iterations=1).derive(
    b"peanuts"
)
"""Chromium's key for cookie values on Linux when no keyring holds one."""
