"""Tool input schemas without pydantic's generated boilerplate, so every request's fixed cost is what the
model needs: the same calls validate, in fewer tokens.

    compact_schema(Model.model_json_schema())

Removed or rewritten: `title` keys (a property's title repeats its name), `default: null` and a
`default` equal to the field's `const`, the `null` branch of an optional field's `anyOf` (omitting the
field is how the model says none), `$defs` (each `$ref` replaced by its definition: tool schemas are not
recursive), a discriminator (each `oneOf` branch's `const` tag says it, and is required there, as
pydantic requires it), `anyOf` branches of plain types merged into one `type` list.
"""

from __future__ import annotations

from typing import Any

NULL = {"type": "null"}


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (a pydantic JSON schema) with its boilerplate removed; ValueError for a recursive `$ref`."""
    definitions = schema.get("$defs", {})
    body = {key: value for key, value in schema.items() if key != "$defs"}
    compacted: dict[str, Any] = _compact(body, definitions, ())
    return compacted


def _compact(node: Any, definitions: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_compact(item, definitions, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/$defs/")
        if name in seen:
            raise ValueError(f"recursive schema definition {name!r}: tool schemas must not nest themselves")
        return _compact({**definitions[name], **_without(node, "$ref")}, definitions, (*seen, name))
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":  # property names are data here, never keywords
            out[key] = {name: _compact(child, definitions, seen) for name, child in value.items()}
        elif key == "title" or (key == "default" and (value is None or value == node.get("const"))):
            continue
        elif key == "discriminator":  # each branch's `const` tag says it; the tag becomes required there
            tag = value["propertyName"]
            out["oneOf"] = [
                _tag_required(branch, tag) for branch in _compact(node["oneOf"], definitions, seen)
            ]
        elif key == "oneOf" and "discriminator" in node:
            continue
        else:
            out[key] = _compact(value, definitions, seen)
    return _simplified_any_of(out)


def _simplified_any_of(node: dict[str, Any]) -> dict[str, Any]:
    """An `anyOf` without its `null` branch; one left is merged in, plain types become a `type` list."""
    branches = node.get("anyOf")
    if branches is None:
        return node
    kept = [branch for branch in branches if branch != NULL]
    rest = _without(node, "anyOf")
    if len(kept) == 1:
        return {**kept[0], **rest}
    if all(set(branch) == {"type"} for branch in kept):
        return {"type": [branch["type"] for branch in kept], **rest}
    return {"anyOf": kept, **rest}


def _tag_required(branch: dict[str, Any], tag: str) -> dict[str, Any]:
    required = branch.get("required", [])
    return {**branch, "required": required if tag in required else [tag, *required]}


def _without(node: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k != key}
