"""How much of a request a provider's prompt cache can serve: its prefix shared with the previous request.

A request is seen as a sequence of blocks (system prompt, tool definitions, then
every content block with its message position and role); the cacheable part is
the leading run of blocks identical to the previous request's. A request's live injections (the
plan, notes) come after its cache breakpoint and are not expected to stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from stateact.kernel.context.token_counter import TokenCounter, counter
from stateact.kernel.models.base import ModelRequest


def request_blocks(request: ModelRequest, tokens: TokenCounter) -> list[tuple[str, int]]:
    """(identity key, token count) of every block of a request, in wire order."""
    blocks = [(f"system:{request.system}", tokens.text(request.system))]
    blocks += [(f"tool:{t.model_dump_json()}", tokens.text(t.model_dump_json())) for t in request.tools]
    for index, message in enumerate(request.messages):
        for block in message.content:
            key = f"{index}:{message.role}:{block.model_dump_json()}"
            blocks.append((key, tokens.block(block)))
    return blocks


def shared_prefix_tokens(previous: list[tuple[str, int]], current: list[tuple[str, int]]) -> int:
    """Tokens of the leading blocks of `current` identical to those of `previous`."""
    shared = 0
    for (key_a, _), (key_b, size) in zip(previous, current, strict=False):
        if key_a != key_b:
            break
        shared += size
    return shared


def stable_blocks(request: ModelRequest, tokens: TokenCounter) -> list[tuple[str, int]]:
    """The blocks of a request up to its cache breakpoint: all but the trailing live injections."""
    blocks = request_blocks(request, tokens)
    return blocks[: len(blocks) - request.injected_blocks]


def prefix_breaks(requests: Sequence[ModelRequest], tokens: TokenCounter | None = None) -> int:
    """How many requests do not start with the whole stable part of the request before them
    (so the provider's prompt cache misses part of what it held)."""
    tokens = tokens or counter()
    breaks = 0
    for previous, current in zip(requests, requests[1:], strict=False):
        stable = stable_blocks(previous, tokens)
        if shared_prefix_tokens(stable, request_blocks(current, tokens)) < sum(size for _, size in stable):
            breaks += 1
    return breaks


__all__ = ["prefix_breaks", "request_blocks", "shared_prefix_tokens", "stable_blocks"]
