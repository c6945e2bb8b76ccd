"""Dollars of recorded plays under Anthropic's prompt cache, per role and harness: pixel over stateact.

A play is a relay folder of a real played run (`NNNN-SCOPE.request.json` and `.reply.json|.txt`),
kept in benchmarks/plays/ in a compact form (`--derive DIR`: every image becomes its size and a
digest). Each play is priced three ways:

    recorded   the requests as the play sent them (the GUI loops then answered every action of a
               batch with a screenshot and stripped them a few images at a time)
    every      the screenshot loops' requests rebuilt by today's loop: the recorded replies fed to
               the real screen loop (its tools, processors and step notes) over a stand-in screen,
               with `batch_screenshots = "every"`
    last       the same with the default `batch_screenshots = "last"` (one screenshot per batch)

The other scopes (stateact's main agent and gate) are sent as recorded. Every wire body comes from
the Anthropic provider's `to_wire` (its cache breakpoints) and is billed by `PromptCache` at the
prices of PRICED_AS. The ratio sums the plays whose GUI role acts with `computer` calls (a play
with a native action format, e.g. a self-hosted UI-TARS, is priced as shown but left out of it).
The last line is `pixel_over_stateact=X` for `last`.

Run: python benchmarks/cost_ratio.py [--plays benchmarks/plays]
     python benchmarks/cost_ratio.py --derive /tmp/recorded-plays/NAME --harness pixel [--gui-settings '{...}']
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import io
import json
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, PngImagePlugin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import stateact.app  # noqa: E402, F401  (registers every role: the GUI role's settings are checked against them)
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.loop import Budget  # noqa: E402
from stateact.kernel.messages import ImageBlock, Message, ToolSpec  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.models.anthropic_provider import to_wire  # noqa: E402
from stateact.kernel.models.base import ModelProvider, ModelRequest, ModelResponse  # noqa: E402
from stateact.kernel.models.catalog import lookup  # noqa: E402
from stateact.kernel.models.prompt_cache import PromptCache  # noqa: E402
from stateact.kernel.models.relay_reply import parse_reply  # noqa: E402
from stateact.kernel.models.scripted import offline_response, prompt_tokens  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.sandbox.base import CommandResult, Sandbox, Shell  # noqa: E402
from stateact.subagents.screen_loop import build_screen_loop  # noqa: E402
from stateact.subagents.screen_settings import ScreenSettings  # noqa: E402

PLAYS = Path(__file__).resolve().parent / "plays"
PRICED_AS = "claude-sonnet-4-6"
"""The catalog model whose prices bill every play ($3 in, $15 out per million; writes 1.25x, reads 0.1x)."""
BEHAVIOURS = ("recorded", "every", "last")
SCREEN_LOOPS = {"pixel": ("main", "pixel"), "gui": ("gui", "gui")}
"""Scope kind -> (role, prompt) of the screenshot loops a play holds: pixel's main agent, the GUI subagent."""


# -- compact plays ---------------------------------------------------------------------------------------
def _compact(value):
    """A request's JSON with every image's data replaced by its digest and size."""
    if isinstance(value, list):
        return [_compact(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "image" and value.get("data"):
        with Image.open(io.BytesIO(ImageBlock(data=value["data"]).to_bytes())) as image:
            size = list(image.size)
        return {
            "type": "image",
            "digest": hashlib.sha256(value["data"].encode()).hexdigest()[:16],
            "size": size,
        }
    return {key: _compact(v) for key, v in value.items()}


def derive(folder: Path, harness: str, gui_settings: dict, screen: list[int]) -> dict:
    """The compact form of a relay folder: per request its stem, scope, role, request and reply."""
    records = []
    for request_file in sorted(folder.glob("*.request.json")):
        stem = request_file.name.removesuffix(".request.json")
        kind = "json" if (folder / f"{stem}.reply.json").exists() else "txt"
        request = json.loads(request_file.read_text(encoding="utf-8"))
        records.append(
            {
                "stem": stem,
                "reply_kind": kind,
                "reply": (folder / f"{stem}.reply.{kind}").read_text(encoding="utf-8"),
                "request": _compact(request),
            }
        )
    play = {"play": folder.name, "harness": harness, "screen": screen, "gui_settings": gui_settings}
    return {**play, "requests": records}


@functools.lru_cache(maxsize=512)
def _png(size: tuple[int, int], digest: str) -> str:
    """A stand-in image of `size` whose bytes differ with `digest`, as base64."""
    info = PngImagePlugin.PngInfo()
    info.add_text("digest", digest)
    buffer = io.BytesIO()
    Image.new("RGB", size, tuple(bytes.fromhex(digest[:6]))).save(buffer, format="PNG", pnginfo=info)
    return ImageBlock.from_bytes(buffer.getvalue()).data


def _expand(value):
    if isinstance(value, list):
        return [_expand(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "image" and "digest" in value:
        return {
            "type": "image",
            "media_type": "image/png",
            "data": _png(tuple(value["size"]), value["digest"]),
        }
    return {key: _expand(v) for key, v in value.items()}


@dataclass
class Recorded:
    """One recorded request and the reply it got."""

    stem: str
    scope: str
    role: str
    request: ModelRequest
    reply_kind: str
    reply: str
    loop_kind: str
    """`pixel` or `gui` for a request of a screenshot loop, else ''."""


def load(path: Path) -> tuple[dict, list[Recorded]]:
    play = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for record in play["requests"]:
        data = _expand(record["request"])
        request = ModelRequest(
            system=data["system"],
            messages=[Message.model_validate(m) for m in data["messages"]],
            tools=[ToolSpec.model_validate(t) for t in data["tools"]],
            max_tokens=data["max_tokens"],
            injected_blocks=data["injected_blocks"],
            scope=data["scope"],
        )
        role = data["role"]
        kind = "gui" if role == "gui" else "pixel" if play["harness"] == "pixel" and role == "main" else ""
        out.append(
            Recorded(
                record["stem"], data["scope"], role, request, record["reply_kind"], record["reply"], kind
            )
        )
    return play, out


# -- replaying the screenshot loops ---------------------------------------------------------------------
class ReplayScreen(Sandbox):
    """A stand-in display for a replay: every action succeeds and every screenshot is a new image."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.shots = 0

    def start(self) -> None:
        return None

    def close(self) -> None:
        return None

    def screenshot(self) -> bytes:
        self.shots += 1
        digest = hashlib.sha256(f"shot {self.shots}".encode()).hexdigest()
        return ImageBlock(data=_png(self.size, digest)).to_bytes()

    def screen_size(self) -> tuple[int, int]:
        return self.size

    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        return CommandResult(returncode=0, stdout="")

    def _no_shell(self, *_args, **_kwargs):
        raise RuntimeError("a replayed screen loop acts only through run_python and screenshot")

    run = read_file = write_file = launch = _no_shell

    def open_shell(self, scratch_dir: Path) -> Shell:
        return self._no_shell(scratch_dir)


class ReplayModel(ModelProvider):
    """Answers each request with the next recorded reply, and keeps the requests it was sent."""

    def __init__(self, replies: list[Recorded]) -> None:
        self.name = PRICED_AS
        self.spec = "replay"
        self.options = ScreenSettings()
        self.replies = list(replies)
        self.sent: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelResponse:
        if len(self.sent) == len(self.replies):
            raise RuntimeError(f"the replay asked for a request past the {len(self.replies)} recorded")
        reply = self.replies[len(self.sent)]
        self.sent.append(request)
        content = parse_reply(reply.reply, reply.reply_kind, request.tools, f"toolu_{reply.stem}")
        return offline_response(content, prompt_tokens(request), self.name)


def replay_scope(
    records: list[Recorded], kind: str, settings: ScreenSettings, screen_size: tuple[int, int]
) -> list[ModelRequest]:
    """The requests today's screen loop sends for a recorded scope's replies."""
    role, prompt = SCREEN_LOOPS[kind]
    opening = records[0].request.messages[0]
    screen = ReplayScreen(screen_size)
    model = ReplayModel(records)
    with tempfile.TemporaryDirectory() as run_dir:
        log = RunLog(Path(run_dir))
        try:
            context = RunContext(
                run_dir=Path(run_dir),
                task="replay",
                sandbox=screen,
                log=log,
                meter=Meter(),
                models=RoleModels(main="scripted:unused.json", settings={role: settings}),
                _providers={role: model},
            )
            loop = build_screen_loop(
                context,
                scope=records[0].scope,
                role=role,
                prompt=prompt,
                budget=Budget(max_turns=len(records)),
            )
            task = opening.content[0].text.rsplit("\n\n", 1)[0]
            loop.run(task)
        finally:
            log.close()
    return model.sent


def requests_for(records: list[Recorded], behaviour: str, play: dict) -> list[tuple[Recorded, ModelRequest]]:
    """Every request of a play, in order, with each screenshot loop's rebuilt for `behaviour`."""
    if behaviour == "recorded":
        return [(r, r.request) for r in records]
    scopes: dict[str, list[Recorded]] = defaultdict(list)
    for record in records:
        if record.loop_kind:
            scopes[record.scope].append(record)
    rebuilt: dict[str, list[ModelRequest]] = {}
    for scope, scoped in scopes.items():
        kind = scoped[0].loop_kind
        options = dict(play["gui_settings"]) if kind == "gui" else {}
        settings = ScreenSettings.model_validate({**options, "batch_screenshots": behaviour})
        rebuilt[scope] = replay_scope(scoped, kind, settings, tuple(play["screen"]))
    out = []
    for record in records:
        out.append((record, rebuilt[record.scope].pop(0) if record.scope in rebuilt else record.request))
    return out


# -- pricing --------------------------------------------------------------------------------------------
def output_tokens(record: Recorded) -> int:
    content = parse_reply(record.reply, record.reply_kind, record.request.tools, "toolu")
    tokens = counter()
    return sum(tokens.block(block) for block in content)


def price(sent: list[tuple[Recorded, ModelRequest]]) -> dict[str, float]:
    """Dollars per role of a play's requests sent in order to one prompt cache."""
    cache = PromptCache()
    info = lookup(PRICED_AS)
    dollars: dict[str, float] = defaultdict(float)
    for record, request in sent:
        usage = cache.send(to_wire(request, PRICED_AS), output_tokens(record))
        dollars[record.role] += info.cost(usage)
    return dict(dollars)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=Path, default=PLAYS)
    parser.add_argument("--derive", type=Path, help="a relay folder to store as a compact play")
    parser.add_argument("--harness", choices=("stateact", "pixel"), help="with --derive: whose play it is")
    parser.add_argument("--gui-settings", default="{}", help="with --derive: the GUI role's settings, JSON")
    parser.add_argument("--screen", default="1280x800", help="with --derive: the display's size, WxH")
    args = parser.parse_args()
    if args.derive:
        if not args.harness:
            parser.error("--derive needs --harness")
        screen = [int(n) for n in args.screen.split("x")]
        play = derive(args.derive, args.harness, json.loads(args.gui_settings), screen)
        target = args.plays / f"{args.derive.name}.json"
        target.write_text(json.dumps(play, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {target} ({len(play['requests'])} requests)")
        return
    inner = lookup(PRICED_AS)
    print(
        f"priced as {PRICED_AS}: input ${inner.input_usd}/M, cache write ${inner.cache_write_usd}/M, "
        f"cache read ${inner.cache_read_usd}/M, output ${inner.output_usd}/M"
    )
    totals: dict[str, dict[str, float]] = {b: defaultdict(float) for b in BEHAVIOURS}
    for path in sorted(args.plays.glob("*.json")):
        play, records = load(path)
        for behaviour in BEHAVIOURS:
            sent = requests_for(records, behaviour, play)
            dollars = price(sent)
            roles = " ".join(f"{role}=${usd:.4f}" for role, usd in sorted(dollars.items()))
            print(
                f"{play['play']} [{play['harness']}] {behaviour}: {len(sent)} requests, {roles}, total=${sum(dollars.values()):.4f}"
            )
            if play["gui_settings"].get("action_format", "tools") == "tools":
                totals[behaviour][play["harness"]] += sum(dollars.values())
    for behaviour in BEHAVIOURS:
        pixel, stateact = totals[behaviour]["pixel"], totals[behaviour]["stateact"]
        ratio = pixel / stateact if stateact else float("nan")
        print(f"{behaviour}: pixel=${pixel:.4f} stateact=${stateact:.4f} pixel_over_stateact={ratio:.2f}")
    print(f"pixel_over_stateact={totals['last']['pixel'] / totals['last']['stateact']:.2f}")


if __name__ == "__main__":
    main()
