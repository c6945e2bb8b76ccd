"""Signals during a run: SIGTERM stops a run the way Ctrl-C does, and clean-up is not cut short."""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (`timeout`, `docker stop`, a CI cancel): handled like Ctrl-C."""


def _stop(signum: int, frame: object) -> None:
    """The first stop signal: later ones are ignored, so they cannot cut the clean-up short."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if signum == signal.SIGTERM:
        raise Terminated(f"stopped by signal {signal.Signals(signum).name}")
    raise KeyboardInterrupt("stopped by the user")


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def stop_signals_as_interrupt() -> Iterator[None]:
    """Within the block, Ctrl-C raises KeyboardInterrupt and SIGTERM `Terminated`, once.

    After the first, both signals stay ignored until the process ends: the run is being stopped,
    cleaned up and reported. A block that ends normally restores the earlier handlers.
    """
    if not _in_main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    yield
    for sig, handler in previous.items():
        signal.signal(sig, handler)


@contextmanager
def shielded() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM are ignored, so a second one cannot abandon a clean-up."""
    if not _in_main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def interrupt_thread(ident: int) -> None:
    """Raise KeyboardInterrupt in the thread `ident` at its next Python instruction (a call blocked in C
    code sees it when the call returns): how a stop reaches runs on worker threads, which signals do not."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(KeyboardInterrupt))
