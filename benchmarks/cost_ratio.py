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
The last line is `pixel_over_stateact=X` for `last`. A replay does not wait for the stand-in screen: the
screen tools' settle and `wait` sleeps are skipped, so the script's time is its own work.

`--price ROLE=MODEL` (repeatable) bills one role at another catalog model's prices, e.g. `gate=claude-haiku-4`,
to show what running that role on a cheaper model would save (the same requests and replies: what the
cheaper model would catch or miss is not measured here).

Run: python benchmarks/cost_ratio.py [--plays benchmarks/plays] [--price gate=claude-haiku-4]
     python benchmarks/cost_ratio.py --derive /tmp/recorded-plays/NAME --harness pixel [--gui-settings '{...}']
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import io
import json
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from PIL import Image, PngImagePlugin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import stateact.app  # noqa: E402, F401  (registers every role: the GUI role's settings are checked against them)
from stateact.app.harness import build_main_loop  # noqa: E402
from stateact.app.variants import VARIANTS  # noqa: E402
from stateact.gate.review import FinishGate  # noqa: E402
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.loop import Budget  # noqa: E402
from stateact.kernel.messages import (  # noqa: E402
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.models.anthropic_provider import to_wire  # noqa: E402
from stateact.kernel.models.base import ModelProvider, ModelRequest, ModelResponse  # noqa: E402
from stateact.kernel.models.catalog import lookup  # noqa: E402
from stateact.kernel.models.prompt_cache import PromptCache, wire_blocks  # noqa: E402
from stateact.kernel.models.relay_reply import parse_reply  # noqa: E402
from stateact.kernel.models.scripted import offline_response, prompt_tokens  # noqa: E402
from stateact.kernel.prompts import main_opening, render_main_prompt  # noqa: E402
from stateact.kernel.prompts.app_priors import select_priors  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.sandbox.base import CommandResult, Sandbox, Shell  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.subagents import gui_tools  # noqa: E402
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
            with mock.patch.object(gui_tools.time, "sleep"):  # nothing to settle on a stand-in screen
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


# -- today's preambles ----------------------------------------------------------------------------------
HOME_LINE = re.compile(r"The machine's home folder is `[^`]+`\.[^\n]*")
"""The gate's home and start line, in its system prompt as recorded; today it opens the first message."""
MAIN_HOME = re.compile(r"home folder is `([^`]+)`")


@dataclass
class TodaysPreambles:
    """Each role's tool specs (by name) as the tree builds them now, and the gate's system prompt."""

    tools: dict[str, dict[str, ToolSpec]]
    gate_system: dict[frozenset[str], str]


def todays_preambles() -> TodaysPreambles:
    """The main agent's and the gate's tools as today's harness builds them, on a local sandbox."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        sandbox = LocalSandbox(root / "home")
        sandbox.start()
        log = RunLog(root / "run")
        try:
            context = RunContext(
                run_dir=root / "run",
                task="replay",
                sandbox=sandbox,
                log=log,
                meter=Meter(),
                models=RoleModels(main="scripted:quickstart"),  # builds the tools; sends no request
            )
            loop = build_main_loop(context, VARIANTS["stateact"], Budget(max_turns=1))
            loop.close_tools()
            gate = FinishGate(context)
            gate_tools = gate._tools()
            for tool in gate_tools:
                tool.close()
            tools = {
                "main": {tool.name: tool.spec() for tool in loop.tools.values()},
                "gate": {tool.name: tool.spec() for tool in gate_tools},
            }
            names = frozenset(tools["gate"])
            return TodaysPreambles(tools, {names: gate._system_prompt(set(names))})
        finally:
            log.close()
            sandbox.close()


def with_todays_preamble(record: Recorded, request: ModelRequest, today: TodaysPreambles) -> ModelRequest:
    """A main or gate request with today's system prompt and tool schemas (the tools it had), and what
    is task-specific moved from its system prompt to the start of its first message."""
    if record.role not in today.tools:
        return request
    specs = today.tools[record.role]
    tools = [specs.get(spec.name, spec) for spec in request.tools]
    names = {spec.name for spec in request.tools}
    if record.role == "main":
        home = MAIN_HOME.search(request.system)
        task = request.messages[0].text()
        opening = main_opening(home.group(1) if home else "/home/user", select_priors((), [task]))
        system = render_main_prompt(names)
    else:
        found = HOME_LINE.search(request.system)
        opening = found.group(0) if found else ""
        system = today.gate_system.get(frozenset(names)) or HOME_LINE.sub("", request.system)
    first = request.messages[0]
    opened = Message(role="user", content=[TextBlock(text=opening), *first.content])
    return dataclasses.replace(request, system=system, tools=tools, messages=[opened, *request.messages[1:]])


# -- pricing --------------------------------------------------------------------------------------------
KINDS = ("write", "read", "input", "output")


def output_tokens(record: Recorded) -> int:
    content = parse_reply(record.reply, record.reply_kind, record.request.tools, "toolu")
    tokens = counter()
    return sum(tokens.block(block) for block in content)


def by_kind(usage: Usage, model: str = PRICED_AS) -> dict[str, float]:
    """Dollars of a usage per kind at `model`'s prices: cache writes, cache reads, input at full price, output."""
    info = lookup(model)
    return {
        "write": usage.cache_write_tokens * info.cache_write_usd / 1e6,
        "read": usage.cache_read_tokens * info.cache_read_usd / 1e6,
        "input": usage.input_tokens * info.input_usd / 1e6,
        "output": usage.output_tokens * info.output_usd / 1e6,
    }


def price(
    sent: list[tuple[Recorded, ModelRequest]],
    cache: PromptCache | None = None,
    billed_as: dict[str, str] | None = None,
) -> dict[str, float]:
    """Dollars per role of a play's requests sent in order to one prompt cache (a new one by default)."""
    return {role: sum(kinds.values()) for role, kinds in price_kinds(sent, cache, billed_as).items()}


def price_kinds(
    sent: list[tuple[Recorded, ModelRequest]],
    cache: PromptCache | None = None,
    billed_as: dict[str, str] | None = None,
) -> dict[str, dict[str, float]]:
    """Dollars per role and kind of a play's requests sent in order to `cache`; `billed_as` maps a role to
    the catalog model whose prices bill it (PRICED_AS for the others)."""
    billed_as = billed_as or {}
    cache = cache or PromptCache()
    dollars: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(KINDS, 0.0))
    for record, request in sent:
        usage = cache.send(to_wire(request, PRICED_AS), output_tokens(record))
        for kind, usd in by_kind(usage, billed_as.get(record.role, PRICED_AS)).items():
            dollars[record.role][kind] += usd
    return dict(dollars)


# -- the naive pixel loop -------------------------------------------------------------------------------
STRIPPED = "[older screenshot removed]"


def single_action_turns(messages: list[Message]) -> list[Message]:
    """A history whose assistant turns call several tools, as one call per turn: each call and its result
    (a screenshot after every action) become a turn of their own; the reply's text goes with the first."""
    out: list[Message] = []
    pending: list[ToolUseBlock] = []
    for message in messages:
        if message.role == "assistant" and message.tool_uses():
            text = [block for block in message.content if not isinstance(block, ToolUseBlock)]
            pending = message.tool_uses()
            out.append(Message(role="assistant", content=[*text, pending[0]]))
        elif pending:
            results = {result.tool_use_id: result for result in message.tool_results()}
            for index, call in enumerate(pending):
                if index:
                    out.append(Message(role="assistant", content=[call]))
                out.append(Message(role="user", content=[results[call.id]]))
            pending = []
        else:
            out.append(message)
    return out


def keep_last_images(messages: list[Message], keep: int) -> list[Message]:
    """`messages` with every image but the last `keep` replaced by a short note."""
    seen = 0
    out: list[Message] = []
    for message in reversed(messages):
        blocks = []
        for block in reversed(message.content):
            if isinstance(block, ToolResultBlock):
                inner = []
                for part in reversed(block.content):
                    seen += isinstance(part, ImageBlock)
                    stripped = isinstance(part, ImageBlock) and seen > keep
                    inner.insert(0, TextBlock(text=STRIPPED) if stripped else part)
                block = block.model_copy(update={"content": inner})
            elif isinstance(block, ImageBlock):
                seen += 1
                block = TextBlock(text=STRIPPED) if seen > keep else block
            blocks.insert(0, block)
        out.insert(0, message.model_copy(update={"content": blocks}))
    return out


def naive_dollars(play: dict, records: list[Recorded], keep: int) -> float:
    """Dollars of a pixel play as a naive loop plays it: one action per request, the last `keep`
    screenshots, no prompt cache (every token at the input price); the same actions and replies."""
    sent = requests_for(records, "every", play)
    record, last = sent[-1]
    final = parse_reply(record.reply, record.reply_kind, last.tools, f"toolu_{record.stem}")
    history = single_action_turns([*last.messages, Message(role="assistant", content=final)])
    tokens = counter()
    usage = Usage()
    for end, message in enumerate(history):
        if message.role != "assistant":
            continue
        request = dataclasses.replace(last, messages=keep_last_images(history[:end], keep), injected_blocks=0)
        wire = to_wire(request, PRICED_AS)
        prompt = sum(size for _, size, _ in wire_blocks(wire, tokens))
        usage += Usage(input_tokens=prompt, output_tokens=sum(tokens.block(b) for b in message.content))
    return lookup(PRICED_AS).cost(usage)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=Path, default=PLAYS)
    parser.add_argument("--derive", type=Path, help="a relay folder to store as a compact play")
    parser.add_argument("--harness", choices=("stateact", "pixel"), help="with --derive: whose play it is")
    parser.add_argument("--gui-settings", default="{}", help="with --derive: the GUI role's settings, JSON")
    parser.add_argument("--screen", default="1280x800", help="with --derive: the display's size, WxH")
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="also bill stateact's ROLE at MODEL's catalog prices (a what-if table and figures)",
    )
    args = parser.parse_args()
    billed_as = dict(item.split("=", 1) for item in args.price)
    for role, model in billed_as.items():
        if not lookup(model).known:
            parser.error(f"--price {role}={model}: no such model in the catalog")
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
    today = todays_preambles()
    stateact: dict[str, list[list[tuple[Recorded, ModelRequest]]]] = {"before": [], "after": []}
    per_task: dict[str, dict[str, list[tuple[Recorded, ModelRequest]]]] = defaultdict(dict)
    naive: dict[int, float] = defaultdict(float)
    for path in sorted(args.plays.glob("*.json")):
        play, records = load(path)
        counted = play["gui_settings"].get("action_format", "tools") == "tools"
        for behaviour in BEHAVIOURS:
            sent = requests_for(records, behaviour, play)
            dollars = price(sent)
            roles = " ".join(f"{role}=${usd:.4f}" for role, usd in sorted(dollars.items()))
            print(
                f"{play['play']} [{play['harness']}] {behaviour}: {len(sent)} requests, {roles}, total=${sum(dollars.values()):.4f}"
            )
            if counted:
                totals[behaviour][play["harness"]] += sum(dollars.values())
            if counted and behaviour == "last" and play["harness"] == "stateact":
                stateact["before"].append(sent)
                stateact["after"].append([(r, with_todays_preamble(r, q, today)) for r, q in sent])
                per_task[play["play"].removesuffix("-stateact")]["stateact"] = stateact["after"][-1]
            if counted and behaviour == "last" and play["harness"] == "pixel":
                per_task[play["play"].removesuffix("-pixel")]["pixel"] = sent
        if counted and play["harness"] == "pixel":
            for keep in NAIVE_KEEPS:
                naive[keep] += naive_dollars(play, records, keep)
    for behaviour in BEHAVIOURS:
        pixel, ours = totals[behaviour]["pixel"], totals[behaviour]["stateact"]
        ratio = pixel / ours if ours else float("nan")
        print(f"{behaviour}: pixel=${pixel:.4f} stateact=${ours:.4f} pixel_over_stateact={ratio:.2f}")
    for task, pair in sorted(per_task.items()):
        if len(pair) == 2:
            ours, theirs = (sum(price(pair[h]).values()) for h in ("stateact", "pixel"))
            print(f"{task}: pixel=${theirs:.4f} stateact=${ours:.4f} pixel_over_stateact={theirs / ours:.2f}")
    labels = {"before": {}, "after": {}} | ({"what-if": billed_as} if billed_as else {})
    tables = {
        (label, mode): cost_table(stateact["after" if label == "what-if" else label], mode == "suite", prices)
        for label, prices in labels.items()
        for mode in ("per-play", "suite")
    }
    for (label, mode), table in tables.items():
        billed = ", ".join(f"{role} billed as {model}" for role, model in labels[label].items())
        print_table(f"stateact {label} ({mode} cache{', ' + billed if billed else ''})", table)
    pixel = totals["last"]["pixel"]
    figures = {}
    for label in labels:
        for mode in ("per-play", "suite"):
            total = sum(sum(kinds.values()) for kinds in tables[label, mode].values())
            gate = sum(tables[label, mode].get("gate", {}).values())
            key = f"{label.replace('-', '_')}_{mode.replace('-', '_')}"
            figures[f"stateact_{key}"] = f"{total:.4f}"
            figures[f"pixel_over_stateact_{key}"] = f"{pixel / total:.2f}"
            for keep in NAIVE_KEEPS:
                figures[f"naive{keep}_over_stateact_{key}"] = f"{naive[keep] / total:.2f}"
            figures[f"gate_share_{key}"] = f"{gate / total:.3f}"
    print(" ".join(f"{key}={value}" for key, value in figures.items()))
    headline = sum(sum(kinds.values()) for kinds in tables["after", "per-play"].values())
    print(f"pixel_over_stateact={pixel / headline:.2f}")
    for keep in NAIVE_KEEPS:
        print(f"naive{keep}_over_stateact={naive[keep] / headline:.2f}")


NAIVE_KEEPS = (3, 10)
"""How many of the latest screenshots the naive pixel loop keeps."""


def cost_table(
    plays: list[list[tuple[Recorded, ModelRequest]]], suite: bool, billed_as: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Dollars per role and kind of the plays: each with a cache of its own, or one after another
    through one cache (an evaluation suite's account; the 5-minute lifetime is not modelled)."""
    shared = PromptCache() if suite else None
    table: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(KINDS, 0.0))
    for sent in plays:
        for role, kinds in price_kinds(sent, shared, billed_as).items():
            for kind, usd in kinds.items():
                table[role][kind] += usd
    return dict(table)


def print_table(title: str, table: dict[str, dict[str, float]]) -> None:
    total = sum(sum(kinds.values()) for kinds in table.values())
    print(f"\n{title}: ${total:.4f}")
    print(f"{'role':<6} " + " ".join(f"{kind:>8}" for kind in KINDS) + f" {'total':>8} {'share':>6}")
    for role in sorted(table):
        kinds = table[role]
        cells = " ".join(f"{kinds[kind]:>8.4f}" for kind in KINDS)
        print(f"{role:<6} {cells} {sum(kinds.values()):>8.4f} {sum(kinds.values()) / total:>6.1%}")
    shares = " ".join(f"{sum(t[kind] for t in table.values()) / total:>8.1%}" for kind in KINDS)
    print(f"{'share':<6} {shares}")


if __name__ == "__main__":
    main()
