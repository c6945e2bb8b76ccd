"""Known models, the one table of them: prices in dollars per million tokens, context windows and
capabilities (the native computer-use tool).

A model is looked up by the longest catalog prefix of its name. Unknown models
cost nothing, get the default window and no native tool; `lookup` says so through `known`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stateact.kernel import settings
from stateact.kernel.messages import Usage


@dataclass(frozen=True)
class NativeComputerTool:
    """Anthropic's computer-use tool of a model: its tool type, the beta flag it needs, and whether it
    has the zoom action."""

    type: str
    beta: str
    zoom: bool = False


COMPUTER_2025_01 = NativeComputerTool("computer_20250124", "computer-use-2025-01-24")
COMPUTER_2025_11 = NativeComputerTool("computer_20251124", "computer-use-2025-11-24", zoom=True)


@dataclass(frozen=True)
class ModelInfo:
    """Dollars per million tokens of each kind, the context window and the native computer tool.

    A model priced in bands (`long_prompt_tokens`) bills a call whose prompt is longer
    than that many tokens at `long_prompt_factor` times every rate. A model without
    `computer_tool` gets the GUI's computer tool as a plain function tool.
    """

    input_usd: float
    output_usd: float
    cache_write_usd: float
    cache_read_usd: float
    context_window: int
    known: bool = True
    long_prompt_tokens: int | None = None
    long_prompt_factor: float = 1.0
    computer_tool: NativeComputerTool | None = None

    def cost(self, usage: Usage) -> float:
        """The dollars of one call's usage."""
        dollars = (
            usage.input_tokens * self.input_usd
            + usage.output_tokens * self.output_usd
            + usage.cache_write_tokens * self.cache_write_usd
            + usage.cache_read_tokens * self.cache_read_usd
        ) / 1_000_000
        if self.long_prompt_tokens is not None and usage.prompt_tokens > self.long_prompt_tokens:
            dollars *= self.long_prompt_factor
        return dollars


def _anthropic(
    input_usd: float, output_usd: float, window: int = 200_000, read_fraction: float = 0.1, **extra: Any
) -> ModelInfo:
    """Anthropic prices: a 5-minute cache write costs 1.25x input, a cache read `read_fraction` of it."""
    return ModelInfo(input_usd, output_usd, input_usd * 1.25, input_usd * read_fraction, window, **extra)


def _openai(input_usd: float, output_usd: float, window: int, cached_fraction: float) -> ModelInfo:
    """OpenAI prices: cached input at `cached_fraction` of the input price, no write surcharge."""
    return ModelInfo(input_usd, output_usd, input_usd, input_usd * cached_fraction, window)


MILLION = 1_000_000

CATALOG: dict[str, ModelInfo] = {
    # Anthropic, as published in 2026 (longest prefix wins: claude-opus-4-5 is priced as claude-opus-4).
    "claude-fable-5": _anthropic(10.0, 50.0, MILLION, computer_tool=COMPUTER_2025_11),
    "claude-fable-5-1": _anthropic(10.0, 50.0, MILLION, read_fraction=0.025, computer_tool=COMPUTER_2025_11),
    "claude-mythos-5": _anthropic(10.0, 50.0, MILLION, computer_tool=COMPUTER_2025_11),
    "claude-mythos-5-1": _anthropic(10.0, 50.0, MILLION, read_fraction=0.025, computer_tool=COMPUTER_2025_11),
    "claude-opus-5": _anthropic(5.0, 25.0, MILLION, computer_tool=COMPUTER_2025_11),
    "claude-opus-5-5": _anthropic(4.0, 20.0, MILLION, computer_tool=COMPUTER_2025_11),
    "claude-sonnet-5": _anthropic(2.0, 10.0, MILLION, computer_tool=COMPUTER_2025_11),
    "claude-sonnet-5-5": _anthropic(2.0, 10.0, MILLION, read_fraction=0.05, computer_tool=COMPUTER_2025_11),
    "claude-haiku-5-5": _anthropic(
        0.1, 0.5, MILLION, long_prompt_tokens=100_000, long_prompt_factor=5.0, computer_tool=COMPUTER_2025_11
    ),
    "claude-opus-4": _anthropic(5.0, 25.0, computer_tool=COMPUTER_2025_11),
    "claude-opus-4-0": _anthropic(15.0, 75.0, computer_tool=COMPUTER_2025_01),
    "claude-opus-4-1": _anthropic(15.0, 75.0, computer_tool=COMPUTER_2025_01),
    "claude-opus-4-2025": _anthropic(15.0, 75.0, computer_tool=COMPUTER_2025_01),
    "claude-sonnet-4": _anthropic(3.0, 15.0, computer_tool=COMPUTER_2025_01),
    "claude-sonnet-4-6": _anthropic(3.0, 15.0, computer_tool=COMPUTER_2025_11),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0, computer_tool=COMPUTER_2025_01),
    "claude-haiku-4": _anthropic(1.0, 5.0, computer_tool=COMPUTER_2025_01),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    # OpenAI, as published in 2026.
    "gpt-5.5": _openai(5.0, 30.0, MILLION, 0.1),
    "gpt-5.5-pro": _openai(30.0, 180.0, MILLION, 1.0),
    "gpt-5.4": _openai(2.5, 15.0, MILLION, 0.1),
    "gpt-5.4-mini": _openai(0.75, 4.5, MILLION, 0.1),
    "gpt-5.4-nano": _openai(0.2, 1.25, MILLION, 0.1),
    "gpt-5.4-pro": _openai(30.0, 180.0, MILLION, 1.0),
    "gpt-5": _openai(1.25, 10.0, 400_000, 0.1),
    "gpt-5-mini": _openai(0.25, 2.0, 400_000, 0.1),
    "gpt-5-nano": _openai(0.05, 0.4, 400_000, 0.1),
    "gpt-4.1": _openai(2.0, 8.0, MILLION, 0.25),
    "gpt-4.1-mini": _openai(0.4, 1.6, MILLION, 0.25),
    "gpt-4o": _openai(2.5, 10.0, 128_000, 0.5),
    "gpt-4o-mini": _openai(0.15, 0.6, 128_000, 0.5),
    "scripted": ModelInfo(0.0, 0.0, 0.0, 0.0, 200_000),
    "relay": ModelInfo(0.0, 0.0, 0.0, 0.0, 200_000),
}

UNKNOWN = ModelInfo(0.0, 0.0, 0.0, 0.0, settings.DEFAULT_CONTEXT_WINDOW, known=False)


def lookup(model_name: str) -> ModelInfo:
    """The catalog entry whose key is the longest prefix of `model_name`."""
    name = model_name.lower().split("/")[-1]
    best = max((key for key in CATALOG if name.startswith(key)), key=len, default=None)
    return CATALOG[best] if best else UNKNOWN


def cost_usd(model_name: str, usage: Usage) -> float:
    return lookup(model_name).cost(usage)
