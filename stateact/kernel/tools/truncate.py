"""Shortening long tool output while keeping its beginning and end."""

from __future__ import annotations


def middle_truncate(text: str, cap: int, where: str) -> str:
    """Keep about `cap` characters (head and tail, cut at line ends when near), noting the cut and `where`."""
    if len(text) <= cap:
        return text
    half = cap // 2
    head, tail = text[:half], text[len(text) - half :]
    head_cut, tail_cut = head.rfind("\n"), tail.find("\n")
    if head_cut > half * 0.8:
        head = head[: head_cut + 1]
    if 0 <= tail_cut < half * 0.2:
        tail = tail[tail_cut + 1 :]
    cut = len(text) - len(head) - len(tail)
    separator = "" if head.endswith("\n") else "\n"
    return f"{head}{separator}[... {cut} characters cut from the middle; {where} ...]\n{tail}"
