"""How a count is written in a message: with its noun in the number the count takes ("1 line", "3 lines")."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural unless the count is one (``plural``: where adding "s" is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
