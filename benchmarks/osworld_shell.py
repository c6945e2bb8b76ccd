"""Latency of the OSWorld VM backend over the local VM server double: one-shot commands and the relay shell.

    python benchmarks/osworld_shell.py [repeats]

Prints one line per figure, then a last line of key=value pairs (milliseconds, MB/s).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.sandbox.osworld import OSWorldSandbox  # noqa: E402
from tests.support.osworld_vm_server import VMServer  # noqa: E402


def median_ms(action, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _paired_medians_ms(first, second, repeats: int) -> tuple[float, float]:
    """Medians of two actions sampled alternately, so a change in the machine's load hits both alike."""
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for action, taken in zip((first, second), samples, strict=True):
            started = time.perf_counter()
            action()
            taken.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples[0]), statistics.median(samples[1])


def main(repeats: int = 20) -> None:
    with tempfile.TemporaryDirectory() as work:
        local = LocalSandbox(Path(work) / "home")
        local.start()
        server = VMServer(local).start()
        vm = OSWorldSandbox(server.url)
        try:
            vm.start()
            shell = vm.open_shell(Path(work) / "scratch")
            one_shot, shell_cmd = _paired_medians_ms(
                lambda: vm.run("true"), lambda: shell.run("true"), repeats
            )
            payload = b"x" * (1 << 20)
            file_rt = median_ms(lambda: vm.read_file(vm.write_file("~/blob", payload) or "~/blob"), 5)
            started = time.perf_counter()
            out = shell.run("head -c 8000000 /dev/zero | tr '\\0' y", timeout=120)
            mb_s = len(out.output) / 1e6 / (time.perf_counter() - started)
            shell.close()
        finally:
            vm.close()
            server.stop()
            local.close()
    print(f"one-shot /execute command: {one_shot:.1f} ms (median of {repeats})")
    print(f"relay shell command round trip: {shell_cmd:.1f} ms (median of {repeats})")
    print(f"shell / one-shot: {shell_cmd / one_shot:.2f}x")
    print(f"1 MB file write + read: {file_rt:.1f} ms")
    print(f"relay shell output throughput: {mb_s:.1f} MB/s")
    print(
        f"execute_ms={one_shot:.1f} shell_ms={shell_cmd:.1f} ratio={shell_cmd / one_shot:.2f} file_1mb_ms={file_rt:.1f} shell_mb_s={mb_s:.1f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
