"""How much of a request a provider's prompt cache can serve: its prefix shared with the previous request.

A request is seen as a sequence of blocks (system prompt, tool definitions, then
every content block with its message position and role); the cacheable part is
the leading run of blocks identical to the previous request's.
"""

from __future__ import annotations

from stateact.models.base import ModelRequest
from stateact.tokens import TokenCounter


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


__all__ = ["request_blocks", "shared_prefix_tokens"]
