"""Anthropic's prompt cache as a price model: the usage each of a run's wire bodies (`to_wire`) is billed.

    cache = PromptCache()
    usage = cache.send(to_wire(request, model), output_tokens=120)
    dollars = lookup(model).cost(usage)

A wire body is a sequence of blocks in the API's order: the tools, the system prompt, then every
message's content blocks; `cache_control` marks the breakpoints. A request reads from the cache the
longest prefix an earlier request wrote that ends at one of its breakpoints or at one of the
LOOKBACK_BLOCKS blocks before one; it writes the rest up to its last breakpoint (billed at the cache
write price), and pays the input price for what follows. Each request then holds every breakpoint
prefix of at least MIN_CACHED_TOKENS. Entries never expire (the 5-minute lifetime is not modelled).
Text counts with the offline tokenizer (`stateact.kernel.context.token_counter`), images w x h / 750, the
API's computer-use tool COMPUTER_TOOL_TOKENS.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from stateact.kernel.context.token_counter import (
    BLOCK_OVERHEAD,
    MESSAGE_OVERHEAD,
    TokenCounter,
    counter,
    image_tokens,
)
from stateact.kernel.messages import ImageBlock, Usage

LOOKBACK_BLOCKS = 20
"""How many blocks before a breakpoint the API looks back for a cached prefix."""
MIN_CACHED_TOKENS = 1024
"""The shortest prefix the API caches (Sonnet and Opus models)."""
COMPUTER_TOOL_TOKENS = 735
"""Input tokens the API adds for the definition of its versioned computer-use tool (`computer_...`),
per Anthropic's computer-use pricing; its few wire keys alone would count as a dozen."""


def wire_blocks(wire: dict[str, Any], tokens: TokenCounter | None = None) -> list[tuple[str, int, bool]]:
    """(identity of the prefix ending here, tokens, is a breakpoint) of every block of a wire body."""
    tokens = tokens or counter()
    items: list[tuple[dict[str, Any], int]] = [
        (tool, tokens.text(_plain_json(tool)) + _native_tokens(tool)) for tool in wire.get("tools", [])
    ]
    items += [(block, tokens.text(block["text"])) for block in wire.get("system", [])]
    for message in wire["messages"]:
        for position, block in enumerate(message["content"]):
            extra = MESSAGE_OVERHEAD if position == 0 else 0
            items.append(
                ({"role": message["role"], "first": position == 0, **block}, extra + _tokens(block, tokens))
            )
    out = []
    chain = hashlib.sha256()
    for block, size in items:
        chain.update(_plain_json(block).encode())
        out.append((chain.hexdigest(), size, "cache_control" in block))
    return out


def _native_tokens(tool: dict[str, Any]) -> int:
    return COMPUTER_TOOL_TOKENS if str(tool.get("type", "")).startswith("computer_") else 0


def _plain_json(block: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)


def _tokens(block: dict[str, Any], tokens: TokenCounter) -> int:
    """The tokens of one message content block on the wire."""
    kind = block["type"]
    if kind == "text":
        return BLOCK_OVERHEAD + tokens.text(block["text"])
    if kind == "image":
        source = block["source"]
        return BLOCK_OVERHEAD + image_tokens(ImageBlock(media_type=source["media_type"], data=source["data"]))
    if kind == "tool_use":
        return BLOCK_OVERHEAD + tokens.text(block["name"] + json.dumps(block["input"]))
    if kind == "tool_result":
        return BLOCK_OVERHEAD + sum(_tokens(inner, tokens) for inner in block["content"])
    if kind == "thinking":
        return BLOCK_OVERHEAD + tokens.text(block["thinking"])
    return BLOCK_OVERHEAD + tokens.text(json.dumps(block))


class PromptCache:
    """The cache of one account: what each request it is sent reads, writes and pays in full."""

    def __init__(self, tokens: TokenCounter | None = None, min_cached: int = MIN_CACHED_TOKENS) -> None:
        self.tokens = tokens or counter()
        self.min_cached = min_cached
        self.held: set[str] = set()
        """Identities of the prefixes written so far."""

    def send(self, wire: dict[str, Any], output_tokens: int = 0) -> Usage:
        """The usage of one request, whose prefixes are then held."""
        blocks = wire_blocks(wire, self.tokens)
        ends = []
        total = 0
        for _, size, _ in blocks:
            total += size
            ends.append(total)
        breakpoints = [i for i, (_, _, marked) in enumerate(blocks) if marked]
        read_to = -1
        for point in breakpoints:
            for index in range(point, max(point - LOOKBACK_BLOCKS, 0) - 1, -1):
                if blocks[index][0] in self.held:
                    read_to = max(read_to, index)
                    break
        read = ends[read_to] if read_to >= 0 else 0
        cached = [point for point in breakpoints if ends[point] >= self.min_cached]
        write = ends[cached[-1]] - read if cached and cached[-1] > read_to else 0
        self.held.update(blocks[point][0] for point in cached)
        return Usage(
            input_tokens=total - read - write,
            output_tokens=output_tokens,
            cache_read_tokens=read,
            cache_write_tokens=write,
        )


__all__ = ["COMPUTER_TOOL_TOKENS", "LOOKBACK_BLOCKS", "MIN_CACHED_TOKENS", "PromptCache", "wire_blocks"]
