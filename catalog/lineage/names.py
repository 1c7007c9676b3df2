"""Column names as users type them (``orders.amount``, ``model.shop.orders."ID"``), resolved to
one column with suggestions for typos. One resolver for every way in: a stored build
(:class:`catalog.query.BuildView`) and a project analyzed in memory
(:class:`catalog.lineage.records.LineageGraph`)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Mapping
from typing import TypeVar

from catalog.errors import Ambiguous, NotFound
from catalog.idents import column_name
from catalog.store.keys import quote_column, split_quoted_column

T = TypeVar("T")

# (model name or unique id, lower case; column name as the dialect names it) -> the columns
NameIndex = Mapping[tuple[str, str], Collection[T]]


def column_splits(text: str, dialect: str | None = None) -> list[tuple[str, str]]:
    """The (model, column) a user's column name may mean, most likely first. The model part
    is compared lower-case; the column is named as SQL of the project's dialect names it
    (:mod:`catalog.idents`): in double quotes it keeps its case where the dialect says so
    (``orders."ID"`` in Postgres), unquoted it folds. Without quotes a column may hold dots
    (``orders.a.b``): the longest model part that names a model wins."""
    text = text.strip()
    quoted = split_quoted_column(text)
    if quoted is not None:
        return [(quoted[0].lower(), column_name(quoted[1], dialect, quoted=True))] if quoted[0] else []
    splits: list[tuple[str, str]] = []
    end = len(text)
    while (dot := text.rfind(".", 0, end)) > 0:
        if dot + 1 < len(text):
            splits.append((text[:dot].lower(), column_name(text[dot + 1 :], dialect)))
        end = dot
    return splits


def require_splits(text: str, dialect: str | None) -> list[tuple[str, str]]:
    splits = column_splits(text, dialect)
    if not splits:
        raise NotFound(f"{text!r}: name a column as MODEL.COLUMN (for example orders.amount)")
    return splits


def resolve_column(
    text: str,
    dialect: str | None,
    index: Callable[[], NameIndex[T]],
    key: Callable[[T], str],
    label: Callable[[T], str],
    where: str,
    hits: Collection[T] = (),
) -> T:
    """The one column ``text`` names. ``index`` gives every column by its name forms (called
    only when ``hits``, the columns a faster lookup found, are none); ``label`` names a
    column unambiguously (``model.shop.orders.amount``); ``where`` ends the message of a
    miss (``in project 'shop' (build 3)``)."""
    splits = require_splits(text, dialect)
    if not hits:
        by_form = index()
        hits = next((by_form[s] for s in splits if s in by_form), ())
    unique = {key(c): c for c in hits}
    if len(unique) == 1:
        return next(iter(unique.values()))
    if unique:
        names = ", ".join(sorted(label(c) for c in unique.values()))
        raise Ambiguous(f"{text!r} is ambiguous; name one of: {names}")
    labels = {f"{model}.{quote_column(name)}": (model, name) for model, name in index()}
    raise NotFound(f"no column {text!r} {where}{suggest(text, labels, dialect)}")


def suggest(text: str, labels: dict[str, tuple[str, str]], dialect: str | None = None) -> str:
    """``; did you mean ...?`` with the closest of ``labels`` (names as users type them,
    mapped to their (model, column)), written so that they work when pasted back."""
    by_lower: dict[str, str] = {}
    for label in labels:
        by_lower.setdefault(label.lower(), label)
    close = difflib.get_close_matches(text.strip().lower(), list(by_lower), n=5, cutoff=0.6)
    if close:
        return f"; did you mean {', '.join(by_lower[c] for c in close)}?"
    splits = column_splits(text, dialect)
    model = splits[0][0] if splits else ""
    cols = sorted({quote_column(name) for m, name in labels.values() if m == model})
    return f"; {model} has: {', '.join(cols[:20])}" if cols else ""
