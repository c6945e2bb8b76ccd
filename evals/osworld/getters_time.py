"""Getters of rules that depend on the date: `rule_relativeTime` and `time_diff_range`, as OSWorld has them.

`rule_relativeTime` (`rules: {relativeTime: {from, to?}, expected: {...}, timezone?}`) turns relative
day names ("next Monday", "10th next month", ...) into days counted from today in `timezone` (when the
rules name none, the machine's own zone: OSWorld asks a web service for the zone of its public address),
and fills the day into the `expected` formats: `expected.time` for a single day, `expected.from` and
`expected.to` for a range (`puDay/puMonth/puYear` for "next Monday split", `doDay/doMonth/doYear` for
"next Friday split"). A format's placeholders ({DoW}, {Month}, {MonthFull}, {month}, {DayD}, {Day0D},
{MonthD}, {Month0D}, {Year}) are each replaced once. Day names OSWorld does not compute in that
position raise TaskError.
"""

from __future__ import annotations

import calendar
import copy
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from stateact.evals.osworld.task import TaskError

if TYPE_CHECKING:
    from stateact.evals.osworld.getter_context import GetterContext

DayRule = Callable[[datetime, datetime | None, str], datetime]
"""(now, the range's first day or None, the range's first name) -> the day."""

_DAYS_AHEAD = {"tomorrow": 1}
"""Names that are a fixed number of days from now, in any position."""


def _ahead(days: int) -> DayRule:
    return lambda now, first, first_name: now + timedelta(days=days)


def _weekday_after(weekday: int, on_the_day: int) -> DayRule:
    """The next `weekday` (0 = Monday): later this week while today is before it, `on_the_day` days on
    when today is that day, else in the next week."""

    def rule(now: datetime, first: datetime | None, first_name: str) -> datetime:
        day = now.weekday()
        if day < weekday:
            return now + timedelta(days=weekday - day)
        return now + timedelta(days=on_the_day if day == weekday else 7 - day + weekday)

    return rule


def _next_month_day(day: int) -> DayRule:
    def rule(now: datetime, first: datetime | None, first_name: str) -> datetime:
        year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
        return datetime(year, month, day, tzinfo=now.tzinfo)

    return rule


def _first_monday_later(months: int, new_year_from: int) -> DayRule:
    """The first Monday of the month `months` on, with OSWorld's arithmetic: the month is
    `(month + months) % 12` and the year turns from month `new_year_from` (so it has no month 0)."""

    def rule(now: datetime, first: datetime | None, first_name: str) -> datetime:
        month = (now.month + months) % 12
        if month == 0:
            raise TaskError(f"rule_relativeTime: OSWorld's rule gives month 0 for {now:%B} + {months} months")
        start = datetime(now.year + (now.month >= new_year_from), month, 1, tzinfo=now.tzinfo)
        return start + timedelta(days=(7 - start.weekday()) % 7)

    return rule


def _next_monday(now: datetime, first: datetime | None, first_name: str) -> datetime:
    return now + timedelta(days=7 - now.weekday())


def _next_week(weekday: int) -> DayRule:
    return lambda now, first, first_name: now + timedelta(days=7 - now.weekday() + weekday)


def _same_week_or(weekday: int, firsts: tuple[str, ...], alone: DayRule) -> DayRule:
    """`weekday` of the range's first day's week when the first day is one of `firsts`, else `alone`."""

    def rule(now: datetime, first: datetime | None, first_name: str) -> datetime:
        if first is not None and first_name in firsts:
            return first + timedelta(days=weekday - first.weekday())
        return alone(now, first, first_name)

    return rule


_SINGLE: dict[str, DayRule] = {
    "5th next month": _next_month_day(5),
    "10th next month": _next_month_day(10),
    "this month": _ahead(0),
    "next Monday": _next_monday,
    "first monday four months later": _first_monday_later(4, 9),
    "first monday eight months later": _first_monday_later(8, 5),
}
_FROM: dict[str, DayRule] = {
    "this Saturday": lambda now, first, first_name: now + timedelta(days=5 - now.weekday()),
    "10th next month": _next_month_day(10),
    "next Monday": _next_monday,
    "next Monday split": _next_monday,
    "next Friday": _weekday_after(4, 7),
    "next Saturday": _weekday_after(5, 7),
    "next week Friday": _next_week(4),
    "next week Saturday": _next_week(5),
    "next week Sunday": _next_week(6),
}
_MONDAYS = ("next Monday", "next Monday split")
_TO: dict[str, DayRule] = {
    "this Sunday": lambda now, first, first_name: now + timedelta(days=6 - now.weekday()),
    "11th next month": _next_month_day(11),
    "next Friday": _same_week_or(4, _MONDAYS, _weekday_after(4, 7)),
    "next Friday split": _same_week_or(4, _MONDAYS, _weekday_after(4, 7)),
    "next Sunday": _same_week_or(6, ("next Friday", "next Saturday"), _weekday_after(6, 7)),
    "next week Sunday": _same_week_or(6, ("next week Friday", "next week Saturday"), _next_week(6)),
}


def _day(
    name: str,
    position: str,
    rules: dict[str, DayRule],
    now: datetime,
    first: datetime | None = None,
    first_name: str = "",
) -> datetime:
    if name in _DAYS_AHEAD:
        return now + timedelta(days=_DAYS_AHEAD[name])
    if name not in rules:
        raise TaskError(f"rule_relativeTime: {name!r} is not a day OSWorld computes as {position}")
    return rules[name](now, first, first_name)


def format_day(template: str, day: datetime) -> str:
    """`template` with each placeholder's first occurrence replaced by `day`'s part."""
    parts = {
        "{DoW}": calendar.day_abbr[day.weekday()],
        "{Month}": calendar.month_abbr[day.month],
        "{DayD}": str(day.day),
        "{Year}": str(day.year),
        "{Month0D}": f"{day.month:02d}",
        "{month}": calendar.month_name[day.month].lower(),
        "{MonthFull}": calendar.month_name[day.month],
        "{Day0D}": f"{day.day:02d}",
        "{MonthD}": str(day.month),
    }
    for placeholder, value in parts.items():
        template = template.replace(placeholder, value, 1)
    return template


def resolve_relative_time(rules: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A copy of `rules` with the `expected` formats filled in for the relative days, counted from `now`."""
    resolved = copy.deepcopy(rules)
    relative, expected = resolved["relativeTime"], resolved["expected"]
    start = relative["from"]
    if "to" not in relative:
        expected["time"] = format_day(expected["time"], _day(start, "a single day", _SINGLE, now))
        return resolved
    first = _day(start, "a range's start", _FROM, now)
    last = _day(relative["to"], "a range's end", _TO, now, first, start)
    for day, key, is_split, split_keys in (
        (first, "from", start == "next Monday split", ("puDay", "puMonth", "puYear")),
        (last, "to", relative["to"] == "next Friday split", ("doDay", "doMonth", "doYear")),
    ):
        for name in split_keys if is_split else (key,):
            expected[name] = format_day(expected[name], day)
    return resolved


def _zone(rules: dict[str, Any]) -> tzinfo:
    name = rules.get("timezone")
    if name is None:
        return datetime.now().astimezone().tzinfo
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TaskError(f"rule_relativeTime: unknown timezone {name!r}") from exc


def _rule_relative_time(params: dict, context: GetterContext) -> dict[str, Any]:
    rules = params["rules"]
    return resolve_relative_time(rules, datetime.now(_zone(rules)))


def _time_diff_range(params: dict, context: GetterContext) -> Any:
    return params.get("diff_range_in_minutes")


TIME_GETTERS = {"rule_relativeTime": _rule_relative_time, "time_diff_range": _time_diff_range}
