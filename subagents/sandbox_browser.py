"""Chromium inside an isolated local sandbox, for the web subagent.

The browser is started through the sandbox's process launcher (`LocalSandbox.spawn`), so it lives in
the sandbox's namespaces: it sees the sandbox's files and network only (its home at /home/user, not the
checkout or the run folder; the sandbox's own loopback), shows in the sandbox's `ps -e`, and has the
sandbox's resource limits. Chromium picks a free port of the sandbox's loopback and writes it into
DevToolsActivePort in its profile folder, which lives in the sandbox's /tmp and goes with it;
Playwright attaches over CDP through the sandbox's relay to that port (`LocalSandbox.harness_url`).

Playwright tells an attached Chromium to save downloads in the harness's own temporary folder, which
the sandbox does not see; they are staged in the profile folder instead, then taken from there by the
name Playwright gives them (its download id). Every file of the profile is read and removed through the
sandbox (`LocalSandbox.read_file`, `run`), never on the host: the agent can plant links there.
Chromium's own output goes to a harness file outside the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import secrets
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from shlex import quote

from playwright.sync_api import Browser, CDPSession, Download

from stateact.sandbox.base import SandboxError
from stateact.sandbox.local import LocalSandbox
from stateact.subagents import settings

PROFILE_PREFIX = "/tmp/.stateact-web-"
"""Where, inside the sandbox, each Chromium's profile folder is made."""
LOG_QUOTE_CHARS = 1500
"""How much of that output an error about a Chromium that did not start quotes."""
STAGING_FOLDER = "stateact-downloads"
"""The folder of the profile where Chromium writes downloads before they are moved to ~/Downloads."""


class SandboxChromium:
    """One Chromium process in `sandbox`: `start` it, attach to `endpoint`, `stop` it."""

    def __init__(self, sandbox: LocalSandbox) -> None:
        self.sandbox = sandbox
        self.profile = PROFILE_PREFIX + secrets.token_hex(6)
        """The profile folder as the sandbox sees it."""
        self.endpoint = ""
        """Its DevTools URL once started."""
        self._process: subprocess.Popen | None = None
        self._downloads: CDPSession | None = None

    def start(self) -> str:
        """Launch Chromium headless in the sandbox and wait for its DevTools port; returns the endpoint."""
        width, height = settings.WEB_VIEWPORT
        with tempfile.TemporaryFile() as log:  # Chromium's messages, quoted when it fails to start
            self._process = self.sandbox.spawn(
                [
                    settings.WEB_CHROMIUM_PATH,
                    "--headless",
                    "--remote-debugging-address=127.0.0.1",
                    "--remote-debugging-port=0",
                    f"--user-data-dir={self.profile}",
                    f"--window-size={width},{height}",
                    *settings.WEB_CHROMIUM_ARGS,
                    "about:blank",
                ],
                log,
            )
            deadline = time.monotonic() + settings.WEB_BROWSER_START_TIMEOUT_S
            while not (port := self._listening_port()):
                code = self._process.poll()
                if code is not None or time.monotonic() > deadline:
                    log.seek(0)
                    said = log.read().decode(errors="replace")[-LOG_QUOTE_CHARS:].strip()
                    self.stop()
                    raise SandboxError(
                        (
                            f"Chromium in the sandbox exited with code {code} before it listened"
                            if code is not None
                            else f"Chromium in the sandbox did not listen within "
                            f"{settings.WEB_BROWSER_START_TIMEOUT_S:.0f} s"
                        )
                        + (f": {said}" if said else "")
                    )
                time.sleep(settings.WEB_BROWSER_POLL_S)
        self.endpoint = self.sandbox.harness_url(f"http://127.0.0.1:{port}")
        return self.endpoint

    def stage_downloads(self, browser: Browser) -> None:
        """Make the attached `browser` write downloads where the sandbox can (the session stays open: its
        setting would end with it)."""
        self._downloads = browser.new_browser_cdp_session()
        self._downloads.send(
            "Browser.setDownloadBehavior",
            {
                "behavior": "allowAndName",
                "downloadPath": f"{self.profile}/{STAGING_FOLDER}",
                "eventsEnabled": True,
            },
        )

    def take(self, download: Download) -> bytes:
        """The bytes of a finished download, removed from the staging folder; PlaywrightError when the
        download failed."""
        staged = f"{self.profile}/{STAGING_FOLDER}/{posixpath.basename(download.path())}"
        data = self.sandbox.read_file(staged)
        self.sandbox.run(f"rm -f -- {quote(staged)}")
        return data

    def _end_chromium(self) -> None:
        """SIGTERM to Chromium, which then shuts down with its helpers (the nsenter that started it forks
        it into the sandbox and passes no signal on; Chromium is its child)."""
        pid = self._process.pid
        with contextlib.suppress(OSError):
            for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(child), signal.SIGTERM)

    def stop(self) -> None:
        """End Chromium (SIGTERM, then SIGKILL) and remove its profile; safe to call twice."""
        self._downloads = None
        if self._process is not None:
            self._end_chromium()
            try:
                self._process.wait(timeout=settings.WEB_BROWSER_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
            self._process = None
        self.sandbox.run(f"rm -rf -- {quote(self.profile)}")
        self.endpoint = ""

    def _listening_port(self) -> str:
        """The DevTools port Chromium wrote into its profile's DevToolsActivePort (its first line), or ''
        while there is none."""
        with contextlib.suppress(OSError, SandboxError):
            port = self.sandbox.read_file(f"{self.profile}/DevToolsActivePort").decode(errors="replace")
            port = port.split("\n")[0].strip()
            return port if port.isdigit() else ""
        return ""
