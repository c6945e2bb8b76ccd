"""A video of a sandbox's X display: ffmpeg's x11grab, written as a fragmented MP4.

The video is written in fragments, so the file is playable at every moment: a clean stop (`q` on
ffmpeg's input) finishes the last fragment, and a killed harness leaves a file that plays up to the
last whole fragment. ffmpeg carries the sandbox's tag, so a dead harness's recorder is removed with
its sandbox's other leftovers (sandbox/leftovers.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from stateact.sandbox import settings
from stateact.sandbox.base import Sandbox, SandboxError, SandboxUnsupported
from stateact.sandbox.processes import TAG_VARIABLE

FRAGMENT_S = 1
"""Seconds of video per MP4 fragment: what a killed recorder can lose at most."""


def ffmpeg_argv(
    display: str, size: tuple[int, int], path: Path, fps: int = settings.RECORDING_FPS
) -> list[str]:
    """The ffmpeg command that records `display` (`:N`, `size` pixels) into the MP4 file `path`."""
    return [
        "ffmpeg",
        "-hide_banner",
        "-loglevel",
        "error",
        "-f",
        "x11grab",
        "-draw_mouse",
        "1",
        "-framerate",
        str(fps),
        "-video_size",
        f"{size[0]}x{size[1]}",
        "-i",
        display,
        "-vf",
        "scale=trunc(iw/2)*2:trunc(ih/2)*2",  # H.264's 4:2:0 needs even sides
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-g",
        str(fps * FRAGMENT_S),
        "-movflags",
        "+frag_keyframe+empty_moov+default_base_moof",
        "-y",
        str(path),
    ]


class ScreenRecording:
    """ffmpeg recording one display into one file, from `start` until `stop`."""

    def __init__(self, display: str, size: tuple[int, int], path: Path, tag: str | None = None) -> None:
        self.display, self.size, self.path, self.tag = display, size, Path(path), tag
        self._proc: subprocess.Popen | None = None

    def start(self) -> ScreenRecording:
        """Start ffmpeg; raises SandboxError when it is not installed or exits at once."""
        if shutil.which("ffmpeg") is None:
            raise SandboxError("ffmpeg is not installed; run the set-up command from README.md")
        env = {**os.environ, "DISPLAY": self.display}
        if self.tag:
            env[TAG_VARIABLE] = self.tag
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._proc = subprocess.Popen(
            ffmpeg_argv(self.display, self.size, self.path),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,  # a few lines at most: -loglevel error
            env=env,
            start_new_session=True,
        )
        return self

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def stop(self) -> str:
        """Finish the video (ffmpeg is killed if it does not end in time); returns what ffmpeg reported
        when it failed, else ''. Safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is None:
            return ""
        try:
            _, errors = proc.communicate(b"q", timeout=settings.RECORDING_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, errors = proc.communicate()
        detail = errors.decode(errors="replace").strip()[-500:]
        return "" if proc.returncode == 0 else f"ffmpeg ended with code {proc.returncode}: {detail}"


def record_display(sandbox: Sandbox, path: Path) -> ScreenRecording:
    """Start a video of `sandbox`'s display into `path`; raises SandboxUnsupported when its screen is
    not an X display on this machine, SandboxError when ffmpeg cannot start."""
    if not sandbox.display:
        raise SandboxUnsupported(f"{type(sandbox).__name__} has no display on this machine to record")
    return ScreenRecording(sandbox.display, sandbox.screen_size(), path, sandbox.tag).start()
