"""Checking a suite's tasks without running an agent (`stateact eval check`), and the pre-flight of a run.

    checks = check_suite(Path("evaluation_examples"), cache_dir)
    checks[0].scorable, checks[0].local, checks[0].unsupported, checks[0].lacks
    summary_line(checks)                 # scorable=N/M local=K/M

Per task: whether the file loads; the setup step types (`config`, `postconfig`),
getter types and metric functions it names, and which of them are not supported
here (the live tables: `evals.osworld.setup.STEP_HANDLERS`, `evals.osworld.getters.GETTERS`,
`evals.osworld.metrics.find_metric` — ours, or OSWorld's own through `--osworld-python` — and `check_metric_options` for rules and options);
whether every file it downloads or expects is cached or its URL answers (each
URL probed once per check, with a short timeout); and what it needs of the
machine (sudo, a GNOME session, network, applications), judged for a local
sandbox by evals/osworld/local_machine.py. A task is scorable when every part is
supported, and local when it is scorable, its files can be had, and a local
sandbox here gives all it needs.

`preflight` is the check a run makes before any sandbox starts or model is
called: an unsupported part, or a file to download or an expected file that
is neither cached nor downloadable, fails the task (evals/running/failures.py).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

from stateact.evals import settings
from stateact.evals.osworld import chrome
from stateact.evals.osworld.cache import DOWNLOAD_SCHEMES, FileCache
from stateact.evals.osworld.local_machine import (
    APP_PREFIX,
    APP_PROGRAMS,
    NEED_GNOME,
    NEED_PULSEAUDIO,
    NEED_SUDO,
    NEED_SYSTEMD,
    NEED_VM,
    local_gap,
)
from stateact.evals.osworld.needs import vm_need
from stateact.evals.osworld.setup import STEP_FILES, command_text
from stateact.evals.osworld.support import task_steps, unique, unsupported_message, unsupported_parts
from stateact.evals.osworld.task import Getter, Step, Task
from stateact.evals.running.failures import SCORING, SETUP, TaskFailure
from stateact.evals.running.suite import SuiteTask, discover

NEED_NETWORK = "network"
PREFLIGHT = "pre-flight check"

RELATED_APPS: dict[str, str | None] = {
    "chrome": "chrome",
    "browser": "chrome",
    "libreoffice": "libreoffice",
    "libreoffice calc": "libreoffice",
    "libreoffice writer": "libreoffice",
    "libreoffice impress": "libreoffice",
    "calc": "libreoffice",
    "writer": "libreoffice",
    "impress": "libreoffice",
    "vscode": "vs code",
    "vs code": "vs code",
    "ubuntu media player": "vlc",
    "os": None,
    "pdf": None,
    "image": None,
}
"""`related_apps` names (lower case, `_` as space) and the application each stands for (None: no app)."""
GNOME_TOOLS = frozenset({"gsettings", "dconf", "gio", "update-desktop-database", "gnome-extensions"})
"""Programs that need the VM image's GNOME session."""
SERVICE_TOOLS = {
    NEED_SYSTEMD: frozenset(
        {"timedatectl", "systemctl", "hostnamectl", "localectl", "loginctl", "journalctl"}
    ),
    NEED_PULSEAUDIO: frozenset({"pactl", "pacmd", "pulseaudio"}),
}
"""Programs that talk to a service of a whole machine (its systemd, its sound server), by the need."""
GETTER_APPS = {"default_video_player": "totem"}
"""Applications a getter's answer depends on: `default_video_player` answers the VM image's default player,
Totem, until the task changes it (evals/osworld/vm_image.py)."""
_PROGRAM_APPS = {program: app for app, programs in APP_PROGRAMS.items() for program in programs}
_URL = re.compile(r"https?://[^\s'\"<>]+")
_SUDO = re.compile(r"(?<![\w-])sudo(?![\w-])")
_PACKAGE_INSTALL = re.compile(r"\b(pip3?|apt(-get)?)\s+install\b")
_CONDA_INSTALL = re.compile(r"\b(conda|mamba)\s+(install|create|env\s+create)\b")
_LOOPBACK_HOSTS = ("localhost",)
GETTER_ROLES = ("result", "expected")


@dataclass(frozen=True)
class FileNeed:
    """A file a task takes from a URL: a `download` step's, another step's fixed file (`STEP_FILES`), or a
    `cloud_file` getter's."""

    role: str
    """The setup step's type (`download`, ...), or `result` / `expected` (the getter's side)."""
    url: str
    dest: str


@dataclass
class TaskCheck:
    """One task's row of `stateact eval check`."""

    domain: str
    task_id: str
    path: str
    problem: str = ""
    """Why the file cannot be read ('' when it loads)."""
    steps: list[str] = field(default_factory=list)
    getters: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    """The parts not supported here: `metric NAME`, `getter TYPE`, `setup step TYPE`, `NAME options: why`."""
    unreachable: list[str] = field(default_factory=list)
    """`ROLE URL: why` for each file that is neither cached nor answering."""
    needs: list[str] = field(default_factory=list)
    """`sudo`, `gnome`, `network`, `app:NAME`."""
    lacks: list[str] = field(default_factory=list)
    """The needs a local sandbox on this machine cannot provide, each with why."""

    @property
    def loads(self) -> bool:
        return not self.problem

    @property
    def scorable(self) -> bool:
        return self.loads and not self.unsupported

    @property
    def local(self) -> bool:
        return self.scorable and not self.unreachable and not self.lacks

    @property
    def status(self) -> str:
        if not self.loads:
            return "unreadable"
        return "local" if self.local else "scorable" if self.scorable else "unscorable"

    def row(self) -> dict[str, Any]:
        """The row for JSON and CSV."""
        return {
            "domain": self.domain,
            "task_id": self.task_id,
            "status": self.status,
            "loads": self.loads,
            "scorable": self.scorable,
            "local": self.local,
            "problem": self.problem,
            "steps": self.steps,
            "getters": self.getters,
            "metrics": self.metrics,
            "unsupported": self.unsupported,
            "unreachable": self.unreachable,
            "needs": self.needs,
            "lacks": self.lacks,
            "path": self.path,
        }

    def line(self) -> str:
        """The row as one line of text."""
        details = [self.problem] if self.problem else []
        for label, items in (
            ("unsupported", self.unsupported),
            ("unreachable", self.unreachable),
            ("needs", self.needs),
            ("lacks", self.lacks),
        ):
            if items:
                details.append(f"{label}: {', '.join(items)}")
        return f"{self.status:<10} {self.domain}/{self.task_id}  {'; '.join(details)}".rstrip()


class UrlProbe:
    """Whether files can be had: from the cache, or a URL that answers (each URL asked once; once a host
    cannot be connected to, its other URLs get the same answer without asking)."""

    def __init__(self, cache: FileCache, timeout_s: float = settings.URL_PROBE_TIMEOUT_S) -> None:
        self.cache = cache
        self._client = httpx.Client(follow_redirects=True, timeout=timeout_s)
        self._answers: dict[str, str] = {}
        self._unreachable_hosts: dict[str, str] = {}

    def __enter__(self) -> UrlProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def file_problem(self, need: FileNeed) -> str:
        """'' when the file is cached or its URL answers, else why not."""
        if self.cache.cached(need.url, need.dest) is not None:
            return ""
        return self.url_problem(need.url)

    def url_problem(self, url: str) -> str:
        """'' when `url` answers with a status below 400, else why not (asked once per probe)."""
        if url not in self._answers:
            self._answers[url] = self._ask(url)
        return self._answers[url]

    def ask_all(self, urls: list[str]) -> None:
        """Ask every URL not asked yet, several at a time (a check then reads the answers)."""
        todo = [url for url in dict.fromkeys(urls) if url not in self._answers]
        first = list({urlparse(url).hostname: url for url in reversed(todo)}.values())
        with ThreadPoolExecutor(max_workers=settings.URL_PROBE_WORKERS) as pool:
            for batch in (first, [url for url in todo if url not in first]):  # a host's first URL first
                self._answers.update(zip(batch, pool.map(self._ask, batch), strict=True))

    def _ask(self, url: str) -> str:
        parsed = urlparse(url)
        if parsed.scheme not in DOWNLOAD_SCHEMES:
            return "not cached, and not an http(s) URL"
        if parsed.hostname in self._unreachable_hosts:  # a host that could not be reached is not asked again
            return self._unreachable_hosts[parsed.hostname]
        try:
            with self._client.stream("GET", url) as response:
                return f"HTTP {response.status_code}" if response.status_code >= 400 else ""
        except httpx.ConnectError as exc:
            problem = f"{type(exc).__name__}: {exc}".splitlines()[0]
            self._unreachable_hosts[parsed.hostname or ""] = problem
            return problem
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}".splitlines()[0]


def file_needs(task: Task) -> list[FileNeed]:
    """Every file `task` downloads (`download` steps, the fixed files of other steps) or takes from a URL
    (`cloud_file` getters)."""
    needs = [
        FileNeed("download", str(item.get("url", "")), str(item.get("path", "")))
        for step in task_steps(task)
        if step.type == "download"
        for item in step.parameters.get("files", [])
        if isinstance(item, dict)
    ]
    needs += [
        FileNeed(s.type, url, name) for s in task_steps(task) for url, name in STEP_FILES.get(s.type, ())
    ]
    evaluator = task.evaluator
    for role in GETTER_ROLES:
        value = getattr(evaluator, role)
        for getter in value if isinstance(value, list) else [value]:
            if isinstance(getter, Getter) and getter.type == "cloud_file":
                needs += _cloud_files(role, getter.params())
    return list(dict.fromkeys(needs))


def machine_needs(task: Task) -> list[str]:
    """What `task` needs of the machine: `sudo`, `gnome`, `systemd`, `pulseaudio`, `network`, `app:NAME`
    (see the module doc)."""
    commands = [text for text in (_command(p) for p in _command_params(task)) if text]
    needs: list[str] = []
    if any(_SUDO.search(text) for text in commands):
        needs.append(NEED_SUDO)
    programs = [Path(word).name for text in commands for word in re.findall(r"[\w./+-]+", text)]
    if GNOME_TOOLS.intersection(programs):
        needs.append(NEED_GNOME)
    needs += [need for need, tools in SERVICE_TOOLS.items() if tools.intersection(programs)]
    if runtime_urls(task):
        needs.append(NEED_NETWORK)
    apps = [_related_app(name) for name in task.related_apps if isinstance(name, str)]
    apps += [_PROGRAM_APPS.get(_first_program(step)) for step in task_steps(task) if step.type == "launch"]
    if any(step.type == "chrome_open_tabs" for step in task_steps(task)):
        apps.append("chrome")
    apps += [GETTER_APPS.get(getter.type) for getter in task.evaluator.getters()]
    needs += [f"{APP_PREFIX}{app}" for app in unique(a for a in apps if a)]
    return needs


def runtime_urls(task: Task) -> list[str]:
    """The URLs off this machine that the task's setup or getters reach from the sandbox (a package
    install reaches the package index, a website getter its site); downloads are not among them (the host's cache fetches those)."""
    texts = [_command(params) for params in _command_params(task)]
    texts += [str(url) for s in task_steps(task) if s.type == "chrome_open_tabs" for url in _urls_to_open(s)]
    texts += [url for g in task.evaluator.getters() for url in chrome.web_addresses(g.type, g.params())]
    urls = [url for text in texts for url in _URL.findall(text) if not _is_loopback(url)]
    if any(_PACKAGE_INSTALL.search(text) for text in texts):
        urls.append(settings.PACKAGE_INDEX_URL)
    if any(_CONDA_INSTALL.search(text) for text in texts):
        urls.append(settings.CONDA_CHANNEL_URL)
    return unique(urls)


def local_gaps(task: Task, cache: FileCache) -> list[str]:
    """What a local sandbox on this machine lacks for `task`: a known application (`APP_PROGRAMS`) that is
    not installed, a site it reaches at run time that does not answer (the check's `lacks`, without the
    file probes; an application the check does not know, such as a task's own, is not judged)."""
    needs = [
        n for n in machine_needs(task) if not n.startswith(APP_PREFIX) or n[len(APP_PREFIX) :] in APP_PROGRAMS
    ]
    with UrlProbe(cache) as probe:
        if NEED_NETWORK in needs:
            probe.ask_all(runtime_urls(task))
        return _gaps(task, needs, probe)


def _gaps(task: Task, needs: list[str], probe: UrlProbe) -> list[str]:
    """Why a local sandbox here cannot give each of `needs` (network judged by the probe's answers)."""
    gaps = [_network_gap(task, probe) if need == NEED_NETWORK else local_gap(need) for need in needs]
    return [gap for gap in gaps if gap]


def check_task(entry: SuiteTask, probe: UrlProbe) -> TaskCheck:
    """One task's row; never raises for what the task file says."""
    check = TaskCheck(entry.domain, entry.id, str(entry.path), problem=entry.problem)
    task = entry.task
    if task is None:
        return check
    check.steps = unique(step.type for step in task_steps(task))
    check.getters = unique(getter.type for getter in task.evaluator.getters())
    check.metrics = unique(task.evaluator.funcs())
    check.unsupported = unsupported_parts(task)
    for need in file_needs(task):
        if problem := probe.file_problem(need):
            check.unreachable.append(f"{need.role} {need.url}: {problem}")
    check.needs = machine_needs(task)
    check.lacks += _gaps(task, check.needs, probe)
    if vm := vm_need(task):
        check.needs.append(NEED_VM)
        check.lacks.append(vm)
    return check


def check_suite(suite: Path, cache_dir: Path, only: list[str] | None = None) -> list[TaskCheck]:
    """Every task's row, in the suite's order (one URL probe for the whole suite)."""
    entries = discover(suite, only)
    tasks = [entry.task for entry in entries if entry.task is not None]
    with UrlProbe(FileCache(cache_dir)) as probe:
        files = [need for task in tasks for need in file_needs(task)]
        probe.ask_all([n.url for n in files if probe.cache.cached(n.url, n.dest) is None])
        probe.ask_all([url for task in tasks for url in runtime_urls(task)])
        return [check_task(entry, probe) for entry in entries]


def summary_line(checks: list[TaskCheck]) -> str:
    total = len(checks)
    scorable = sum(check.scorable for check in checks)
    local = sum(check.local for check in checks)
    return f"scorable={scorable}/{total} local={local}/{total}"


def preflight(task: Task, cache: FileCache) -> TaskFailure | None:
    """Why `task` cannot run and be scored here, found before any sandbox or model work (None: it can).
    Files to download and expected files are fetched into the cache, so setup and scoring find them."""
    unsupported = unsupported_parts(task)
    if unsupported:
        return TaskFailure(SETUP, PREFLIGHT, unsupported_message(task, unsupported))
    for need in file_needs(task):
        try:
            cache.resolve(need.url, need.dest)
        except FileNotFoundError as exc:
            stage = SCORING if need.role in GETTER_ROLES else SETUP
            return TaskFailure(stage, f"{PREFLIGHT}: {need.role} file {Path(need.dest).name}", str(exc))
    return None


def _network_gap(task: Task, probe: UrlProbe) -> str:
    for url in runtime_urls(task):
        if problem := probe.url_problem(url):
            return f"{NEED_NETWORK}: {url} does not answer ({problem})"
    return ""


def _command_params(task: Task) -> list[dict[str, Any]]:
    """The parameters of every step and getter that runs a command."""
    params = [step.parameters for step in task_steps(task) if "command" in step.parameters]
    params += [getter.params() for getter in task.evaluator.getters() if "command" in getter.params()]
    return params


def _command(params: dict[str, Any]) -> str:
    command = params.get("command")
    return command_text(command) if isinstance(command, str | list) else ""


def _first_program(step: Step) -> str:
    command = step.parameters.get("command")
    words = command.split() if isinstance(command, str) else command if isinstance(command, list) else []
    return Path(str(words[0])).name if words else ""


def _urls_to_open(step: Step) -> list[Any]:
    urls = step.parameters.get("urls_to_open", [])
    return urls if isinstance(urls, list) else []


def _related_app(name: str) -> str | None:
    key = name.lower().replace("_", " ").strip()
    return RELATED_APPS.get(key, key)


def _is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in _LOOPBACK_HOSTS or host.startswith("127.") or host == "::1"


def _cloud_files(role: str, params: dict[str, Any]) -> list[FileNeed]:
    paths, dests = params.get("path"), params.get("dest")
    if params.get("multi") and isinstance(paths, list):
        dests = dests if isinstance(dests, list) else [""] * len(paths)
        return [FileNeed(role, str(p), str(d)) for p, d in zip(paths, dests, strict=False)]
    return [FileNeed(role, str(paths or ""), str(dests or Path(str(paths or "")).name))]
