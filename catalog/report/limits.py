"""How much a governance report, an impact or a trace lists by default, and the cut itself
(kept apart so the CLI reads them cheaply)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

T = TypeVar("T")

DEFAULT_TOP = 10  # most depended-on columns
DEFAULT_MAX_ROWS = 500  # rows per list in html and md
EXPR_CHARS = 500  # of an expression shown in a table (JSON and the graph keep it whole)
MD_CHARS = 60_000  # of Markdown meant for a pull request: GitHub refuses a comment or body over 65,536 characters
DEFAULT_ANSWER_ROWS = 100  # columns of an impact or trace table (a terminal's worth; rich lays out 500 rows in a second)


def capped(rows: Sequence[T], max_rows: int) -> tuple[Sequence[T], int]:
    """The rows to show and how many are left out (``max_rows`` 0: all)."""
    if max_rows <= 0 or len(rows) <= max_rows:
        return rows, 0
    return rows[:max_rows], len(rows) - max_rows


def cut(value: str, chars: int = EXPR_CHARS) -> str:
    """``value`` whole when short, else its start and its full length: a generated expression
    of megabytes stays whole in the graph and in JSON, but a table shows its first lines."""
    return value if len(value) <= chars else f"{value[:chars]}… ({len(value):,} characters)"


class TableRows(Sequence[Sequence[Any]]):
    """The rows of a table, each made from its item by ``row`` only when read: a table of a
    million items that shows 500 (:func:`capped`) formats 500."""

    def __init__(self, items: Sequence[T], row: Callable[[T], Sequence[Any]]):
        self.items, self.row = items, row

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, at: int) -> Sequence[Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[Sequence[Any]]: ...
    def __getitem__(self, at: int | slice) -> Sequence[Any] | list[Sequence[Any]]:
        if isinstance(at, slice):
            return [self.row(item) for item in self.items[at]]
        return self.row(self.items[at])

    def __iter__(self) -> Iterator[Sequence[Any]]:
        return map(self.row, self.items)
