"""Model providers and model specs.

A spec names a provider and a model: `anthropic:MODEL`, `anthropic:MODEL@BASE_URL`,
`openai:MODEL@BASE_URL` (any OpenAI-compatible server), `scripted:PATH` (or the name of a
script shipped in `stateact/examples`, e.g. `scripted:quickstart`), `relay:DIR` (a person or
another agent answers through files in DIR).
"""

from __future__ import annotations

import os
from pathlib import Path

from stateact.kernel.models.base import ModelProvider, ProviderError
from stateact.kernel.models.role_settings import RoleSettings


def parse_spec(spec: str) -> tuple[str, str, str | None]:
    """Split a spec into (provider, model or path, base URL)."""
    provider, sep, rest = spec.partition(":")
    if not sep or not rest or provider not in ("anthropic", "openai", "scripted", "relay"):
        raise ValueError(
            f"bad model spec {spec!r}: use anthropic:MODEL, openai:MODEL@BASE_URL, scripted:PATH or relay:DIR"
        )
    if provider in ("scripted", "relay"):
        return provider, rest, None
    model, _, base_url = rest.partition("@")
    return provider, model, base_url or None


API_KEYS = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
}
"""Per vendor: the variable holding the API key, and the one naming another endpoint."""


def missing_api_key(spec: str) -> str | None:
    """The variable a spec needs and the environment lacks: a vendor's own API needs its key; another
    endpoint (`@BASE_URL` or the base-URL variable, e.g. a local OpenAI-compatible server) may not."""
    provider, _, base_url = parse_spec(spec)
    if provider not in API_KEYS:
        return None
    key, endpoint = API_KEYS[provider]
    if base_url or os.environ.get(endpoint) or os.environ.get(key):
        return None
    return key


def create_model(spec: str, role: str = "main", options: RoleSettings | None = None) -> ModelProvider:
    """Build the provider a spec names, with the role's settings; a scripted spec plays the turns the
    script holds for `role`, a relay names its requests after the scope (or else the role) that sends them."""
    model = _create(spec, role)
    if options is not None:
        model.options = options
    return model


def _create(spec: str, role: str) -> ModelProvider:
    provider, model, base_url = parse_spec(spec)
    if provider == "anthropic":
        from stateact.kernel.models.anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, base_url)
    if provider == "openai":
        from stateact.kernel.models.openai_provider import OpenAIProvider

        return OpenAIProvider(model, base_url)
    if provider == "relay":
        from stateact.kernel.models.relay import RelayProvider

        return RelayProvider(Path(model), role, spec=spec)
    from stateact.kernel.models.scripted import ScriptedProvider, load_script, script_path

    return ScriptedProvider(load_script(script_path(model), role), spec=spec, role=role)


__all__ = [
    "API_KEYS",
    "missing_api_key",
    "ModelProvider",
    "ProviderError",
    "RoleSettings",
    "create_model",
    "parse_spec",
]
