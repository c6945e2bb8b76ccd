"""Thunderbird profile checks: `prefs.js` preferences, `msgFilterRules.dat` filters, mail folders.

`check_thunderbird_prefs`: each `expect` preference (a `user_pref("key", json);`
line; the last line of a key counts) must match its value rule, and no
`unexpect` preference may match its rule. `check_thunderbird_filter`: every
`expect` record (field -> value) equals the fields of some filter, and no filter
has all the fields of an `unexpect` record. `check_thunderbird_folder` compares
mail folder files as desktop-env 1.0.2 does (see its docstring).
"""

from __future__ import annotations

import json
import re
from typing import Any

from stateact.evals.osworld.metrics.rules import MetricError, match_value_to_rule

_PREF = re.compile(r'user_pref\("((?:[^"]|\\")+)", (.+)\);')
_FILTER_FIELDS = ("name", "enabled", "type", "action", "actionValue", "condition")
_CONDITION = re.compile(r"\b(?:AND|OR) \([\w ]+,[\w ']+,(?:\"[\s\S]+\"|[^)]+)\)|\bALL\b")


def check_thunderbird_prefs(result: str | None, rule: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    expect, unexpect = rule.get("expect", {}), rule.get("unexpect", {})
    met = dict.fromkeys(expect, False)
    unexpected_found = False
    with open(result) as prefs:
        for line in prefs:
            found = _PREF.fullmatch(line.strip())
            if found is None:
                continue
            key, value = found.group(1), json.loads(found.group(2))
            if key in expect:
                met[key] = match_value_to_rule(value, expect[key])
            elif key in unexpect and not unexpected_found:
                unexpected_found = match_value_to_rule(value, unexpect[key])
    return float(all(met.values()) and not unexpected_found)


def _filters(path: str) -> list[dict[str, Any]]:
    """The filters of a `msgFilterRules.dat` that have a `condition` line. A value is the text
    between `field="` and the line's last two characters (`"` and the newline; a last line
    without a newline loses one more character, as in OSWorld), with `\\"` and `\\\\` unescaped; a
    condition is the list of its `AND (...)`, `OR (...)` and `ALL` terms."""
    filters: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    with open(path) as rules:
        for line in rules:
            field = next((f for f in _FILTER_FIELDS if line.startswith(f + "=")), None)
            if field is None:
                continue
            value = line[len(field) + 2 : -2].replace('\\"', '"').replace("\\\\", "\\")
            if field == "name":
                current = {}
            elif current is None:
                raise MetricError(f"{path}: a {field!r} line comes before the first filter's name")
            if field == "condition":
                current["condition"] = _CONDITION.findall(value)
                filters.append(current)
            else:
                current[field] = value
    return filters


def _matches(record: dict[str, Any], item: dict[str, Any]) -> bool:
    return all(key in item and item[key] == value for key, value in record.items())


def check_thunderbird_filter(result: str | None, rules: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    filters = _filters(result)
    expected_found = all(any(_matches(record, f) for f in filters) for record in rules.get("expect", []))
    unexpected_found = any(_matches(record, f) for f in filters for record in rules.get("unexpect", []))
    return float(expected_found and not unexpected_found)


def _folder_messages(path: str, remove_duplicate: bool) -> str:
    with open(path) as folder:
        pieces = folder.read().strip().split("FROM - ")
    kept = ["FROM - " for piece in pieces if not piece.strip()]
    return "\n".join(sorted(set(kept) if remove_duplicate else kept))


def check_thunderbird_folder(
    result: str | list[str | None] | None, reference: str | list[str], **options: Any
) -> float:
    """desktop-env 1.0.2's comparison, kept so scores stay comparable with OSWorld's: it splits each
    file on `FROM - ` and, its filter being inverted, keeps only the blank pieces, so a file reads
    as one `FROM - ` per blank piece (`remove_duplicate`, default on: at most one). Thunderbird's
    folders start messages with `From - `, so any two non-empty folders score 1 and a non-empty
    folder against an empty one 0. `ignore_status`, `ignore_keys` and `remove_deleted` act only on
    the pieces it drops and change nothing. A list of results pairs with a list of references."""
    if not isinstance(reference, list):
        result, reference = [result], [reference]
    remove_duplicate = options.get("remove_duplicate", True)
    for ours, theirs in zip(result, reference, strict=False):
        if ours is None:
            return 0.0
        if _folder_messages(ours, remove_duplicate) != _folder_messages(theirs, remove_duplicate):
            return 0.0
    return 1.0


METRICS = {
    "check_thunderbird_prefs": check_thunderbird_prefs,
    "check_thunderbird_filter": check_thunderbird_filter,
    "check_thunderbird_folder": check_thunderbird_folder,
}
