"""Screenshot cost per GUI step: capture, scale and encode, at 1280x800 and 1920x1080.

Starts a private Xvfb for each size with a text-filled window (so PNG encoding
sees realistic content), then times `sandbox.screenshot()` and the scaling to
the model's size. Prints one line per size and a last line of key=value pairs:
median milliseconds, and prompt tokens per screenshot by the w*h/750 rule
before and after scaling.

    python benchmarks/screenshot.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.subagents.scaler import Scaler, image_tokens  # noqa: E402

SIZES = ((1280, 800), (1920, 1080))
BUSY_WINDOW = """
import tkinter as tk
root = tk.Tk()
root.geometry("{w}x{h}+0+0")
text = tk.Text(root, font=("DejaVu Sans Mono", 10))
text.pack(fill="both", expand=True)
for row in range(400):
    text.insert("end", " | ".join(f"cell {{row}}:{{col}} = {{row * col * 1.5:.2f}}" for col in range(12)) + "\\n")
root.after(0, lambda: open({ready!r}, "w").close())
root.mainloop()
"""


def measure(size: tuple[int, int], rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        sandbox = LocalSandbox(Path(home), display=True, size=size)
        sandbox.start()
        try:
            ready = Path(home) / "ready"
            script = BUSY_WINDOW.format(w=size[0], h=size[1], ready=str(ready))
            sandbox.launch(f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}")
            deadline = time.monotonic() + 30
            while not ready.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1.0)
            scaler = Scaler.for_screen(sandbox.screen_size())
            capture_ms, scale_ms, sizes = [], [], []
            for _ in range(rounds):
                started = time.perf_counter()
                png = sandbox.screenshot()
                captured = time.perf_counter()
                scaled = scaler.scale_png(png)
                done = time.perf_counter()
                capture_ms.append((captured - started) * 1000)
                scale_ms.append((done - captured) * 1000)
                sizes.append(len(scaled))
        finally:
            sandbox.close()
    return {
        "capture_ms": statistics.median(capture_ms),
        "scale_ms": statistics.median(scale_ms),
        "step_ms": statistics.median(c + s for c, s in zip(capture_ms, scale_ms, strict=True)),
        "tokens_before": image_tokens(size),
        "tokens_after": image_tokens(scaler.model),
        "model_w": scaler.model[0],
        "model_h": scaler.model[1],
        "png_kb": statistics.median(sizes) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    summary = []
    for size in SIZES:
        result = measure(size, args.rounds)
        name = f"{size[0]}x{size[1]}"
        print(
            f"{name}: capture {result['capture_ms']:.1f} ms + scale/encode {result['scale_ms']:.1f} ms "
            f"= {result['step_ms']:.1f} ms per step (median of {args.rounds}); shown at "
            f"{result['model_w']}x{result['model_h']}, {result['png_kb']:.0f} KB; tokens "
            f"{result['tokens_before']} -> {result['tokens_after']}"
        )
        summary += [
            f"step_ms_{name}={result['step_ms']:.1f}",
            f"capture_ms_{name}={result['capture_ms']:.1f}",
            f"scale_ms_{name}={result['scale_ms']:.1f}",
            f"tokens_before_{name}={result['tokens_before']}",
            f"tokens_after_{name}={result['tokens_after']}",
        ]
    print(" ".join(summary))


if __name__ == "__main__":
    main()
