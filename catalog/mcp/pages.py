"""Bounded answers: every list an agent gets is one page of at most ``limit`` items, with the
``total``, whether it was ``truncated``, and the ``next_cursor`` to ask for the rest.

A cursor names its place, the build the page was read from and a digest of the question
(the tool and its arguments but ``limit`` and ``cursor``): given back with another build (a
new build became active in between) or another question, it is refused, never read from the
wrong answer."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from catalog.errors import CatalogError

DEFAULT_LIMIT = 200
MAX_LIMIT = 2000
_CURSOR = re.compile(r"(\d+)\.(\d+|-)\.([0-9a-f]{12})")


class BadArgument(CatalogError):
    """A tool's argument is out of range or malformed."""


def check_limit(limit: int) -> int:
    if limit < 1 or limit > MAX_LIMIT:
        raise BadArgument(f"limit {limit} is out of range: give 1 to {MAX_LIMIT}")
    return limit


def question(*asked: Any) -> str:
    """The digest of a question: the tool and the arguments that make its answer."""
    return hashlib.sha256(json.dumps(asked, sort_keys=True, default=str).encode()).hexdigest()[:12]


def cursor_at(offset: int, build: int | None, asked: str) -> str:
    return f"{offset}.{build if build is not None else '-'}.{asked}"


def offset_of(cursor: str | None, build: int | None = None, asked: str = "") -> int:
    """The position a ``next_cursor`` of an earlier answer points at (None: the start), when it
    was given for this ``build`` and question (``asked``, see :func:`question`)."""
    if cursor is None or cursor == "":
        return 0
    found = _CURSOR.fullmatch(cursor)
    if found is None:
        shown = cursor if len(cursor) <= 40 else cursor[:40] + "..."
        raise BadArgument(f"cursor {shown!r} is not one this server gave: pass the next_cursor of the previous answer, or none to start again")
    offset, given, digest = found.groups()
    now = str(build) if build is not None else "-"
    if given != now:
        raise BadArgument(f"cursor {cursor!r} is a page of build {given}, this answer is build {now}'s: start again without cursor")
    if digest != asked:
        raise BadArgument(f"cursor {cursor!r} is a page of another question: start again without cursor (a cursor goes with the arguments it was given for)")
    return int(offset)


def cursor_offset(cursor: str | None) -> int:
    """The position ``cursor`` names, unchecked (0 when it names none): how far an answer must
    be read before :func:`page` checks the cursor against it."""
    found = _CURSOR.fullmatch(cursor or "")
    return int(found.group(1)) if found is not None else 0


def page(
    items: Sequence[Any], limit: int, cursor: str | None, build: int | None = None, asked: str = "", total: int | None = None,
) -> tuple[list[Any], dict[str, Any]]:  # fmt: skip
    """The items of this page and the bounds to report with them; ``build`` and ``asked``
    (:func:`question`) tie the cursors to this answer. ``total``: how many items the answer
    has when ``items`` holds only its beginning, up to this page's end at least."""
    check_limit(limit)
    start = offset_of(cursor, build, asked)
    end = start + limit
    shown = list(items[start:end])
    total = len(items) if total is None else total
    more = end < total
    return shown, {"total": total, "limit": limit, "truncated": more, "next_cursor": cursor_at(end, build, asked) if more else None}
