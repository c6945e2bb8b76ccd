"""How often a screenshot loop's request loses its cached prefix: one-at-a-time vs chunked stripping.

Builds a GUI history step by step (each step a `computer` call answered with a distinct 1366x768
screenshot), shapes every request as the loop does (the role's view processors, then the step
note after the cache breakpoint) and counts the requests that do not start with the whole stable
part of the request before them. "before" keeps the newest screenshots and strips one at every
step (the GUI loop's former image window); "after" is the screenshot loop's context pipeline,
which strips them a chunk at a time. Also prints the cacheable-prefix share (per request, the share
of its tokens identical to the previous request's leading blocks, averaged).

Run: python benchmarks/gui_cache_prefix.py [--steps 40]. The last line is key=value pairs.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.kernel.context.cache_prefix import prefix_breaks, request_blocks, shared_prefix_tokens  # noqa: E402
from stateact.kernel.context.processors import CapOutputs, Processor, StripImages, run_processors  # noqa: E402
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock  # noqa: E402
from stateact.kernel.models.base import ModelRequest  # noqa: E402
from stateact.subagents import settings  # noqa: E402
from stateact.subagents.screen_loop import load_prompt, screen_processors  # noqa: E402

SCREEN = (1366, 768)


def screenshot(step: int) -> ImageBlock:
    buffer = io.BytesIO()
    Image.new("RGB", SCREEN, (step * 7 % 256, 90, 160)).save(buffer, format="PNG")
    return ImageBlock.from_bytes(buffer.getvalue())


def requests(processors: list[Processor], steps: int) -> list[ModelRequest]:
    """The requests of a `steps`-step screenshot loop whose view is shaped by `processors`."""
    system = load_prompt("gui")
    history = [Message(role="user", content=[TextBlock(text="Your subgoal: fill the form"), screenshot(0)])]
    out = []
    for step in range(1, steps + 1):
        view = run_processors(processors, history)
        last = Message(role="user", content=[*view[-1].content, TextBlock(text=f"Step {step} of {steps}.")])
        out.append(ModelRequest(system=system, messages=[*view[:-1], last], tools=[], injected_blocks=1))
        call = ToolUseBlock(
            id=f"t{step}", name="computer", input={"action": "left_click", "coordinate": [step, 9]}
        )
        result = ToolResultBlock(
            tool_use_id=call.id, content=[TextBlock(text="Done. The screen now:"), screenshot(step)]
        )
        history += [Message(role="assistant", content=[call]), Message(role="user", content=[result])]
    return out


def cacheable_share(sent: list[ModelRequest]) -> float:
    tokens = counter()
    shares = []
    for previous, current in zip(sent, sent[1:], strict=False):
        blocks = request_blocks(current, tokens)
        shares.append(
            shared_prefix_tokens(request_blocks(previous, tokens), blocks) / sum(s for _, s in blocks)
        )
    return sum(shares) / max(len(shares), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    keep = settings.GUI_KEEP_SCREENSHOTS
    figures = {}
    for name, processors in (
        ("before", [CapOutputs(), StripImages(keep=keep, chunk=1)]),
        ("after", screen_processors()),
    ):
        sent = requests(processors, args.steps)
        figures[name] = (prefix_breaks(sent), cacheable_share(sent))
        print(
            f"{name}: {figures[name][0]} prefix breaks in {args.steps} steps; cacheable share {figures[name][1]:.3f}"
        )
    print(
        f"steps={args.steps} keep={keep} chunk={settings.GUI_SCREENSHOT_STRIP_CHUNK} "
        f"breaks_before={figures['before'][0]} breaks_after={figures['after'][0]} "
        f"share_before={figures['before'][1]:.3f} share_after={figures['after'][1]:.3f}"
    )


if __name__ == "__main__":
    main()
