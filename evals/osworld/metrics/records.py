"""Checks on structured data: keys of a JSON or YAML file (`check_json`, `check_json_settings`,
`check_json_keybindings`), a JSON object (`check_direct_json_object`), CSV rows (`check_csv`), an
SQLite query (`run_sqlite3`) and elements of an accessibility tree (`check_accessibility_tree`)."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.etree
import yaml
from lxml.cssselect import CSSSelector

from stateact.evals.osworld.metrics.rules import (
    MetricUnsupported,
    check_method,
    match_value_to_rule,
    similarity,
)

_MISSING = object()


def _walk(data: Any, keys: list[Any]) -> Any:
    """`data[k1][k2]...`, or _MISSING when a key is absent or a value cannot be indexed."""
    for key in keys:
        try:
            data = data[key]
        except (KeyError, TypeError):
            return _MISSING
    return data


def _load_json_or_yaml(path: str, is_yaml: bool) -> Any:
    """The parsed file, or _MISSING when it cannot be read or parsed (or is an empty YAML file)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = yaml.safe_load(text) if is_yaml else json.loads(text)
    except (OSError, ValueError, yaml.YAMLError):
        return _MISSING
    return _MISSING if is_yaml and data is None else data


def check_json(result: str | None, rules: dict[str, Any], is_yaml: bool = False) -> float:
    """1 when every `expect` rule (`key` path, `method`, `ref`) matches the file's value and no
    `unexpect` rule does. An unreadable or unparsable file, a missing `expect` key, or a rule
    that raises scores 0; a missing `unexpect` key is matched as None."""
    if result is None:
        return 0.0
    expect, unexpect = rules.get("expect", []), rules.get("unexpect", [])
    for rule in [*expect, *unexpect]:
        check_method(rule.get("method"))
    data = _load_json_or_yaml(result, is_yaml)
    if data is _MISSING:
        return 0.0
    passed = True
    try:
        for rule in expect:
            value = _walk(data, rule["key"])
            if value is _MISSING:
                return 0.0
            passed = passed and match_value_to_rule(value, rule)
        for rule in unexpect:
            value = _walk(data, rule["key"])
            passed = passed and not match_value_to_rule(None if value is _MISSING else value, rule)
    except MetricUnsupported:
        raise
    except Exception:  # a rule that cannot be applied to the value (IndexError, TypeError): 0
        return 0.0
    return float(passed)


def check_direct_json_object(result: Any, rules: dict[str, Any]) -> float:
    """1 when the object (a dict, or text parsed as JSON after `'` becomes `"`) holds the
    `expected` values. With `expect_in_result`, a list value passes when one of its items is in
    (or equals) the result's value and a text value when it is a substring of it. An expected
    value `__EVALUATION_FAILED__` scores 0. Text that is not JSON raises, as in OSWorld; any
    other error scores 0 (so does `ignore_list_order`, which OSWorld reads as a key of
    `expected` and then fails to sort)."""
    if isinstance(result, str):
        result = json.loads(result.strip().replace("'", '"'))
    if result is None:
        return 0.0
    try:
        if any(value == "__EVALUATION_FAILED__" for value in (rules.get("expected") or {}).values()):
            return 0.0
        expected = rules["expected"]
        check = _contains if rules.get("expect_in_result", False) else _equals
        return float(all(check(key, value, expected, result) for key, value in expected.items()))
    except Exception:
        return 0.0


def _equals(key: str, value: Any, expected: dict[str, Any], result: dict[str, Any]) -> bool:
    actual = result.get(key)
    if expected.get("ignore_list_order", False):
        return sorted(value) == sorted(actual)
    return value == actual


def _contains(key: str, value: Any, expected: dict[str, Any], result: dict[str, Any]) -> bool:
    actual = result.get(key)
    if isinstance(value, list):
        if isinstance(actual, list):
            return any(item in actual for item in value)
        return isinstance(actual, str) and actual in value
    if isinstance(value, str):
        return value in actual
    return False


def check_json_settings(result: str | None, expected: dict[str, Any]) -> float:
    """1 when the JSON file holds every key of `expected["expected"]` with an equal value; a file
    that is not JSON (e.g. VS Code's JSON with comments) scores 0."""
    if not result:
        return 0.0
    try:
        data = json.loads(Path(result).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0.0
    return float(all(key in data and data[key] == value for key, value in expected["expected"].items()))


def check_json_keybindings(result: str | None, expected: dict[str, Any]) -> float:
    """1 when the JSON list (read whole, else after its first line, e.g. a comment) contains
    `expected["expected"]`; anything else scores 0."""
    try:
        text = Path(result).read_text(encoding="utf-8")  # type: ignore[arg-type]
    except (OSError, TypeError, ValueError):
        return 0.0
    for candidate in (text, text.partition("\n")[2]):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, list):
            return float(expected["expected"] in data)
    return 0.0


def check_csv(result: str | None, rules: dict[str, list[dict[str, str]]]) -> float:
    """1 when each `expect` pattern (column -> value) matches some row and no `unexpect` pattern
    matches any row. A missing file raises, as in OSWorld."""
    if result is None:
        return 0.0
    with Path(result).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expect, unexpect = rules.get("expect", []), rules.get("unexpect", [])
    found = all(any(_row_matches(pattern, row) for row in rows) for pattern in expect)
    avoided = not any(_row_matches(pattern, row) for pattern in unexpect for row in rows)
    return float(found and avoided)


def _row_matches(pattern: dict[str, str], row: dict[str, Any]) -> bool:
    return all(key in row and row[key] == value for key, value in pattern.items())


def run_sqlite3(result: str | None, rules: dict[str, Any]) -> float:
    """The first column of the first row of `rules["sql"]` run on the database, as a float (NULL
    is 0). No file, a failing query or no row raises, as in OSWorld."""
    if result is None or not Path(result).is_file():
        raise FileNotFoundError(f"no database file {result!r}")
    connection = sqlite3.connect(result)
    try:
        row = connection.execute(rules["sql"]).fetchone()
    finally:
        connection.close()
    if row is None:
        raise ValueError("the query returned no row")
    return float(row[0] or 0)


ACCESSIBILITY_NAMESPACES: dict[str, dict[str, str]] = {
    osname: {
        prefix: f"https://accessibility.{osname}.example.org/ns/{path}"
        for prefix, path in {
            "st": "state",
            "attr": "attributes",
            "cp": "component",
            "doc": "document",
            "txt": "text",
            "val": "value",
            "act": "action",
            **extra,
        }.items()
    }
    for osname, extra in {
        "ubuntu": {"docattr": "document/attributes"},
        "windows": {"docattr": "document/attributes", "class": "class"},
        "macos": {"role": "role"},
    }.items()
}
"""The namespace prefixes of OSWorld's accessibility-tree XML, per `osname`."""


def check_accessibility_options(options: dict[str, Any]) -> None:
    osname = options.get("osname", "ubuntu")
    if osname not in ACCESSIBILITY_NAMESPACES:
        raise MetricUnsupported(f"unsupported osname {osname!r} ({', '.join(ACCESSIBILITY_NAMESPACES)})")


def check_accessibility_tree(result: str, rules: list[dict[str, Any]], osname: str = "ubuntu") -> float:
    """The product over `rules` of each rule's best element score: an element is found by `xpath`
    (preferred) or by CSS `selectors` (joined with ", "); none found scores 0. With `text`, an
    element scores 1 when its text equals it (`exact: true`) or the similarity ratio (`exact:
    false`; an empty text scores 0); without, 1."""
    check_accessibility_options({"osname": osname})
    namespaces = ACCESSIBILITY_NAMESPACES[osname]
    tree = lxml.etree.fromstring(result)
    total = 1.0
    for rule in rules:
        if "xpath" in rule:
            elements = tree.xpath(rule["xpath"], namespaces=namespaces)
        elif "selectors" in rule:
            elements = CSSSelector(", ".join(rule["selectors"]), namespaces=namespaces)(tree)
        else:
            raise ValueError("an accessibility-tree rule needs `xpath` or `selectors`")
        if not elements:
            return 0.0
        if "text" in rule:
            score = _exact_text if rule["exact"] else _similar_text
            total *= max(score(rule["text"], element.text or None) for element in elements)
    return float(total)


def _exact_text(wanted: str, text: str | None) -> float:
    return float(wanted == text)


def _similar_text(wanted: str | None, text: str | None) -> float:
    return 0.0 if wanted is None or text is None else similarity(wanted, text)


METRICS: dict[str, Callable[..., float]] = {
    "check_json": check_json,
    "check_direct_json_object": check_direct_json_object,
    "check_json_settings": check_json_settings,
    "check_json_keybindings": check_json_keybindings,
    "check_csv": check_csv,
    "run_sqlite3": run_sqlite3,
    "check_accessibility_tree": check_accessibility_tree,
}

OPTION_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "check_accessibility_tree": check_accessibility_options,
}
