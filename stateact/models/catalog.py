"""Known models: prices in dollars per million tokens and context windows.

A model is looked up by the longest catalog prefix of its name. Unknown models
cost nothing and get the default window; `lookup` says so through `known`.
"""

from __future__ import annotations

from dataclasses import dataclass

from stateact import settings
from stateact.messages import Usage


@dataclass(frozen=True)
class ModelInfo:
    input_usd: float
    output_usd: float
    cache_write_usd: float
    cache_read_usd: float
    context_window: int
    known: bool = True

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_usd
            + usage.output_tokens * self.output_usd
            + usage.cache_write_tokens * self.cache_write_usd
            + usage.cache_read_tokens * self.cache_read_usd
        ) / 1_000_000


def _anthropic(input_usd: float, output_usd: float, window: int = 200_000) -> ModelInfo:
    """Anthropic prices: a 5-minute cache write costs 1.25x input, a cache read 0.1x."""
    return ModelInfo(input_usd, output_usd, input_usd * 1.25, input_usd * 0.1, window)


def _openai(input_usd: float, output_usd: float, window: int) -> ModelInfo:
    """OpenAI prices: cached input at a quarter of the input price, no write surcharge."""
    return ModelInfo(input_usd, output_usd, input_usd, input_usd * 0.25, window)


CATALOG: dict[str, ModelInfo] = {
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4-0": _anthropic(15.0, 75.0),
    "claude-opus-4-2": _anthropic(15.0, 75.0),
    "claude-opus-4": _anthropic(5.0, 25.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0),
    "claude-haiku-4": _anthropic(1.0, 5.0),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    "gpt-4o-mini": _openai(0.15, 0.6, 128_000),
    "gpt-4o": _openai(2.5, 10.0, 128_000),
    "gpt-4.1-mini": _openai(0.4, 1.6, 1_000_000),
    "gpt-4.1": _openai(2.0, 8.0, 1_000_000),
    "gpt-5-mini": _openai(0.25, 2.0, 400_000),
    "gpt-5": _openai(1.25, 10.0, 400_000),
    "scripted": ModelInfo(0.0, 0.0, 0.0, 0.0, 200_000),
}

UNKNOWN = ModelInfo(0.0, 0.0, 0.0, 0.0, settings.DEFAULT_CONTEXT_WINDOW, known=False)


def lookup(model_name: str) -> ModelInfo:
    """The catalog entry whose key is the longest prefix of `model_name`."""
    name = model_name.lower().split("/")[-1]
    best = max((key for key in CATALOG if name.startswith(key)), key=len, default=None)
    return CATALOG[best] if best else UNKNOWN


def cost_usd(model_name: str, usage: Usage) -> float:
    return lookup(model_name).cost(usage)
