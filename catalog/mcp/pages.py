"""Bounded answers: every list an agent gets is one page of at most ``limit`` items, with the
``total``, whether it was ``truncated``, and the ``next_cursor`` to ask for the rest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catalog.errors import CatalogError

DEFAULT_LIMIT = 200
MAX_LIMIT = 2000


class BadArgument(CatalogError):
    """A tool's argument is out of range or malformed."""


def check_limit(limit: int) -> int:
    if limit < 1 or limit > MAX_LIMIT:
        raise BadArgument(f"limit {limit} is out of range: give 1 to {MAX_LIMIT}")
    return limit


def offset_of(cursor: str | None) -> int:
    """The position a ``next_cursor`` of an earlier answer points at (None: the start)."""
    if cursor is None or cursor == "":
        return 0
    if not cursor.isdigit():
        raise BadArgument(f"cursor {cursor!r} is not one this server gave: pass the next_cursor of the previous answer")
    return int(cursor)


def page(items: Sequence[Any], limit: int, cursor: str | None) -> tuple[list[Any], dict[str, Any]]:
    """The items of this page and the bounds to report with them."""
    check_limit(limit)
    start = offset_of(cursor)
    end = start + limit
    shown = list(items[start:end])
    more = end < len(items)
    return shown, {"total": len(items), "limit": limit, "truncated": more, "next_cursor": str(end) if more else None}
