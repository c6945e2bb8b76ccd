"""Model prices and context windows from the catalog."""

from __future__ import annotations

import pytest

from stateact.kernel.messages import Usage
from stateact.kernel.models.catalog import cost_usd, lookup


@pytest.mark.parametrize(
    ("model", "input_usd", "output_usd", "window"),
    [
        ("claude-opus-4-20250514", 15.0, 75.0, 200_000),
        ("claude-opus-4-1-20250805", 15.0, 75.0, 200_000),
        ("claude-opus-4-5-20251101", 5.0, 25.0, 200_000),
        ("claude-sonnet-4-5-20250929", 3.0, 15.0, 200_000),
        ("claude-opus-5-5", 4.0, 20.0, 1_000_000),
        ("claude-sonnet-5", 2.0, 10.0, 1_000_000),
        ("anthropic/claude-fable-5-1", 10.0, 50.0, 1_000_000),
        ("gpt-5.4-mini", 0.75, 4.5, 1_000_000),
        ("gpt-5-mini-2025-08-07", 0.25, 2.0, 400_000),
        ("gpt-4o-2024-08-06", 2.5, 10.0, 128_000),
    ],
)
def test_lookup_takes_the_longest_matching_prefix(model, input_usd, output_usd, window):
    info = lookup(model)
    assert (info.known, info.input_usd, info.output_usd, info.context_window) == (
        True,
        input_usd,
        output_usd,
        window,
    )


def test_cache_reads_and_writes_are_priced_per_vendor():
    assert lookup("claude-sonnet-4-6").cache_write_usd == pytest.approx(3.75)
    assert lookup("claude-sonnet-4-6").cache_read_usd == pytest.approx(0.3)
    assert lookup("claude-fable-5-1").cache_read_usd == pytest.approx(0.25)
    assert lookup("gpt-5.5").cache_read_usd == pytest.approx(0.5)
    assert lookup("gpt-4.1").cache_read_usd == pytest.approx(0.5)


def test_banded_model_bills_long_prompts_at_the_higher_rate():
    short = Usage(input_tokens=50_000, output_tokens=1_000)
    long = Usage(input_tokens=20_000, cache_read_tokens=90_000, output_tokens=1_000)
    assert cost_usd("claude-haiku-5-5", short) == pytest.approx((50_000 * 0.1 + 1_000 * 0.5) / 1e6)
    assert cost_usd("claude-haiku-5-5", long) == pytest.approx(
        5 * (20_000 * 0.1 + 90_000 * 0.01 + 1_000 * 0.5) / 1e6
    )


def test_unknown_model_costs_nothing_and_says_so():
    info = lookup("my-local-llama")
    assert not info.known and info.cost(Usage(input_tokens=10**6, output_tokens=10**6)) == 0.0
