"""Sandbox specs and the backends that build them: `local`, `osworld://HOST:PORT`.

    spec = parse_spec("osworld://10.0.0.5:5000")  # SandboxError for a spec no backend takes
    sandbox = make_sandbox(spec, SandboxOptions(workdir=Path("home")))

Each backend module registers itself (`register(Backend(...))` at its end); `BACKEND_MODULES` names
the modules, imported on first use. A new backend is its module plus its line there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.caps import DEFAULT_CAPS, DiskCaps
from stateact.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from stateact.sandbox.settings import DEFAULT_ISOLATION, DEFAULT_NETWORK

BACKEND_MODULES = ("stateact.sandbox.local", "stateact.sandbox.osworld")
"""The modules that register a backend, in the order the error for an unknown spec names them."""
SCHEME_SEPARATOR = "://"


@dataclass(frozen=True)
class SandboxOptions:
    """What a run asks of its sandbox besides the spec; each backend takes what applies to it."""

    workdir: Path
    """The home folder of a sandbox on this machine."""
    display: bool = False
    """Start a private X display (a sandbox on this machine)."""
    isolation: str | None = DEFAULT_ISOLATION
    """How a sandbox on this machine is isolated (sandbox/isolation.py)."""
    hidden: tuple[Path, ...] = ()
    """Host folders an isolated sandbox must not see."""
    network: str = DEFAULT_NETWORK
    """An isolated sandbox's network: `own` (a namespace of its own) or `host` (sandbox/netns.py)."""
    limits: SandboxLimits = DEFAULT_LIMITS
    """What a sandbox on this machine may use: processes at once, memory (sandbox/cgroups.py)."""
    disk: DiskCaps = DEFAULT_CAPS
    """The disk caps of an isolated sandbox's home and /tmp (sandbox/mounts.py)."""
    cdp_url: str | None = None
    """A running Chrome's DevTools endpoint the web subagent attaches to (`Sandbox.web_browser_url`)."""


@dataclass(frozen=True)
class SandboxSpec:
    """A spec a backend accepted: its scheme, the text as given, and what the backend read from it."""

    scheme: str
    text: str
    address: str = ""
    """The backend's reading of the text (an OSWorld VM's http://HOST:PORT); empty when it takes none."""

    @property
    def backend(self) -> Backend:
        return _registry()[self.scheme]

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Backend:
    """One kind of sandbox, chosen by the scheme its specs start with (`local` is a spec on its own)."""

    scheme: str
    usage: str
    """How its spec is written, as the error for an unknown spec shows it (`local`, `osworld://HOST:PORT`)."""
    read: Callable[[str], str]
    """The spec's text -> its address (SandboxError when the text is not a spec of this backend)."""
    build: Callable[[SandboxSpec, SandboxOptions], Sandbox]
    """A new, unstarted sandbox."""
    on_this_machine: bool = False
    """Whether its sandboxes run on this machine (then the options' isolation applies to them)."""


_BACKENDS: dict[str, Backend] = {}


def register(backend: Backend) -> None:
    """Make `backend` the one for specs of its scheme."""
    _BACKENDS[backend.scheme] = backend


def _registry() -> dict[str, Backend]:
    for module in BACKEND_MODULES:
        importlib.import_module(module)
    return _BACKENDS


def parse_spec(text: str) -> SandboxSpec:
    """The spec `text` names; SandboxError naming the specs there are when no backend takes it."""
    backends = _registry()
    scheme = text.partition(SCHEME_SEPARATOR)[0]
    backend = backends.get(scheme)
    if backend is None:
        usages = " or ".join(f"`{known.usage}`" for known in backends.values())
        raise SandboxError(f"unknown sandbox {text!r}: use {usages}")
    return SandboxSpec(scheme, text, backend.read(text))


def make_sandbox(spec: SandboxSpec | str, options: SandboxOptions) -> Sandbox:
    """A new, unstarted sandbox of `spec` (parsed here when given as text) made with `options`."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    sandbox = spec.backend.build(spec, options)
    sandbox.web_browser_url = options.cdp_url
    return sandbox
