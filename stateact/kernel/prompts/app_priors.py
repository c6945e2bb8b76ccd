"""App-state priors chosen per task: the applications a run needs get their prior in its first message.

Each prior is a file `sandbox/toolkit/bin/priors/<name>.md` whose first line is a heading that
doubles as its one-line summary. The files ship with the toolkit, so the agent reads any prior that
was left out of its prompt with `app-priors NAME` on local and VM sandboxes alike. A prior is
selected by the task's applications (OSWorld's `related_apps`) and by words naming the
application or one of its file types in the instruction or in the titles of the windows open at
the start.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stateact.kernel import settings
from stateact.kernel.prompts.loader import render_prompt
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.toolkit import TOOLKIT_BIN

PRIORS_DIR = TOOLKIT_BIN / "priors"
PRIORS_PROGRAM = "app-priors"


@dataclass(frozen=True)
class AppPrior:
    """A prior's name (its file stem), the task applications it serves and the words that call for it."""

    name: str
    task_apps: frozenset[str]
    words: re.Pattern[str]

    @property
    def path(self) -> Path:
        return PRIORS_DIR / f"{self.name}.md"

    def text(self) -> str:
        return render_prompt(self.path)

    def wanted(self, task_apps: set[str], texts: Iterable[str]) -> bool:
        return bool(self.task_apps & task_apps) or any(self.words.search(text) for text in texts)


def _words(names: str, extensions: str = "") -> re.Pattern[str]:
    """Whole words (`|`-separated alternatives, regex allowed) or file extensions, case-insensitive."""
    pattern = rf"\b(?:{names})\b"
    if extensions:
        pattern += rf"|\.(?:{extensions})\b"
    return re.compile(pattern, re.IGNORECASE)


APP_PRIORS: tuple[AppPrior, ...] = (
    AppPrior(
        "libreoffice",
        frozenset({"libreoffice_calc", "libreoffice_writer", "libreoffice_impress"}),
        _words(
            r"libre ?office|soffice|calc|writer|impress|spreadsheets?|workbooks?|worksheets?|"
            r"presentations?|slides?|slideshow|documents? in word|word documents?|excel|powerpoint",
            "xlsx|xlsm|xls|ods|csv|docx|doc|odt|rtf|pptx|ppt|odp",
        ),
    ),
    AppPrior(
        "chrome",
        frozenset({"chrome"}),
        _words(
            r"chrome|chromium|browsers?|bookmarks?|web ?sites?|web ?pages?|urls?|https?|www|"
            r"search engines?|cookies|tabs?|download(?:ed)? from"
        ),
    ),
    AppPrior(
        "thunderbird",
        frozenset({"thunderbird"}),
        _words(r"thunderbird|e-?mails?|mails?|inbox|mailbox|mbox|address book|contacts? list|signature"),
    ),
    AppPrior(
        "vscode",
        frozenset({"vs_code", "vscode"}),
        _words(r"vs ?code|visual studio code|code editor|extensions? in code"),
    ),
    AppPrior(
        "gnome",
        frozenset({"os", "gnome"}),
        _words(
            r"gnome|gsettings|dconf|ubuntu|wallpaper|desktop background|screen ?saver|screen lock|lock screen|"
            r"idle|dock|favou?rite apps?|autostart|default (?:application|app|browser)s?|notifications?|"
            r"night light|time ?zone|system settings"
        ),
    ),
    AppPrior(
        "vlc",
        frozenset({"vlc"}),
        _words(
            r"vlc|videos?|audio|media player|playlists?|music|songs?|movies?",
            "mp4|mkv|avi|mov|mp3|wav|flac|ogg",
        ),
    ),
    AppPrior(
        "gimp",
        frozenset({"gimp"}),
        _words(
            r"gimp|images?|photos?|pictures?|brightness|contrast|saturation|crop",
            "png|jpe?g|gif|bmp|tiff?|webp|xcf|svg",
        ),
    ),
)


def select_priors(task_apps: Iterable[str] = (), texts: Iterable[str] = ()) -> list[str]:
    """Names of the priors a run needs: named by its task applications or by words of `texts`."""
    apps = {app.lower() for app in task_apps}
    texts = list(texts)
    return [prior.name for prior in APP_PRIORS if prior.wanted(apps, texts)]


def render_priors(selected: Iterable[str] | None) -> str:
    """The selected priors in full (all of them when `selected` is None)."""
    chosen = {p.name for p in APP_PRIORS} if selected is None else set(selected)
    unknown = chosen - {p.name for p in APP_PRIORS}
    if unknown:
        raise ValueError(f"unknown app prior {', '.join(sorted(unknown))}")
    return "\n\n".join(p.text().rstrip() for p in APP_PRIORS if p.name in chosen)


def priors_index() -> str:
    """One line for the system prompt: the priors by name, and where the task's own are."""
    names = ", ".join(p.name for p in APP_PRIORS)
    return (
        f"- `{PRIORS_PROGRAM} NAME` prints where an application keeps its state ({names}); the priors of the "
        "applications this task seems to need are in your first message."
    )


def open_window_titles(sandbox: Sandbox) -> list[str]:
    """Titles of the windows open on the sandbox's display; none when it has no display or wmctrl."""
    try:
        result = sandbox.run("wmctrl -l", timeout=settings.PRIORS_WINDOW_LIST_TIMEOUT_S)
    except SandboxError:  # the priors are a convenience: an unreachable sandbox fails later, clearly
        return []
    if not result.ok:
        return []
    return [line.split(None, 3)[3] for line in result.stdout.splitlines() if len(line.split(None, 3)) == 4]


__all__ = ["APP_PRIORS", "AppPrior", "open_window_titles", "priors_index", "render_priors", "select_priors"]
