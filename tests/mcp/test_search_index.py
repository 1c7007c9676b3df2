"""The search index answers exactly as matching every label one by one does: same names, same
order, on real projects (jaffle-shop, tuva's 307 models), for exact names, prefixes, parts,
substrings, letters with gaps, kinds and queries that match nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from catalog.mcp.stored import InMemory
from catalog.mcp.view import SEARCH_KINDS, _rank

pytestmark = pytest.mark.corpus


def one_by_one(view: Any, query: str, kinds: list[str] | None) -> list[tuple[str, str]]:
    """The search as a plain loop over every label: the reference."""
    q = query.strip().lower()
    if not q:
        return []
    wanted = set(kinds or SEARCH_KINDS)
    in_order = re.compile(".*?".join(map(re.escape, q)), re.DOTALL)
    labels = view._search_index()
    ranked = sorted((_rank(label, q), len(label), label, kind, ident) for label, kind, ident in labels if kind in wanted and in_order.search(label))
    return [(kind, ident) for _, _, _, kind, ident in ranked]


def indexed(view: Any, query: str, kinds: list[str] | None) -> list[tuple[str, str]]:
    return [(hit["kind"], hit["unique_id"] if hit["kind"] != "column" else f"{hit['unique_id']}.{hit['column']}") for hit in view.search(query, kinds)]


@pytest.fixture(scope="module", params=["jaffle-shop", "tuva"])
def view(request, shared_dir) -> Any:
    return InMemory(shared_dir / "corpus" / request.param / "target", jobs=1).view(None, None)


def queries(view: Any) -> list[str]:
    labels = [label for label, _, _ in view._search_index()]
    picked = labels[:: max(1, len(labels) // 40)]
    out = ["order", "id", "ord_id", "zzzqqq", "  Customers  ", "_", ".", "a.b", "x" * 300]
    for label in picked:
        out += [label, label[:4], label[len(label) // 2 :], label[::3], label.split(".")[-1]]
    return out


def test_search_answers_as_matching_label_by_label(view):
    asked = queries(view)
    hits = 0
    for q in asked:
        for kinds in (None, ["column"], ["model", "source"]):
            want = one_by_one(view, q, kinds)
            assert indexed(view, q, kinds) == [(k, view.columns[i].id.unique_id + "." + view.columns[i].id.name if k == "column" else i) for k, i in want], (q, kinds)
            hits += len(want)
    assert hits > 1000  # the queries do match: the comparison is not of empty lists
    assert view.search("zzzqqq", None) == [] and view.search("   ", None) == []
