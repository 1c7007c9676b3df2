"""What the analyzer knows of one column as it walks a model: its input columns and its kind
(passthrough, renamed, derived, source, unknown), and how kinds combine and are inherited."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from sqlglot import exp

from catalog.analyze.records import ColumnKind

if TYPE_CHECKING:
    from catalog.analyze.names import Source

PASS = ColumnKind.PASSTHROUGH
RENAMED = ColumnKind.RENAMED
DERIVED = ColumnKind.DERIVED
SOURCE = ColumnKind.SOURCE
UNKNOWN = ColumnKind.UNKNOWN

# Columns known for a relation: ordered lower-case names, or None when unknown.
ColumnsOf = Callable[[str], "list[str] | None"]

Ref = tuple[str, str]  # (unique_id, lower-case column)


class Lin:
    """Lineage of one column inside the model: its input columns and its kind so far.

    Treated as immutable; a plain slotted class because the analyzer makes hundreds of
    thousands of them on large projects.
    """

    __slots__ = ("sources", "kind", "resolved", "reason", "window_refs", "defined_by")

    def __init__(
        self,
        sources: frozenset[Ref],
        kind: ColumnKind,
        resolved: bool = True,
        reason: str | None = None,
        window_refs: frozenset[Ref] = frozenset(),
        defined_by: exp.Expression | None = None,
    ):
        self.sources = sources
        self.kind = kind
        self.resolved = resolved
        self.reason = reason
        self.window_refs = window_refs  # PARTITION BY / ORDER BY columns of its windows
        # the expression that computes the value, in whichever scope it is computed: the
        # final SELECT may only pass through a column a CTE computed
        self.defined_by = defined_by

    @property
    def influences(self) -> frozenset[Ref]:
        """Every input column a filter on this column depends on."""
        return self.sources | self.window_refs if self.window_refs else self.sources


@dataclass
class Output:
    """What a scope produces: ordered column names and their lineage."""

    names: list[str]
    cols: dict[str, Lin]
    exprs: dict[str, exp.Expression | str] = field(default_factory=dict)  # str: a star-expanded column
    opaque_reason: str | None = None  # set when the column list itself is unknown
    # with an opaque column list: the one relation a ``select *`` could not expand, and the
    # names its star excluded; any other name read from this output comes from it
    open_source: Source | None = None
    open_excluded: frozenset[str] = frozenset()


def lower(name: str) -> str:
    return name.lower()


def inherit(kind: ColumnKind, same_name: bool) -> ColumnKind:
    """Kind of a bare reference to a column of kind ``kind`` (seed 000's inheritance)."""
    if same_name or kind != PASS:
        return kind
    return RENAMED


def merge(lins: Iterable[Lin]) -> tuple[frozenset[Ref], bool, str | None]:
    sources: set[Ref] = set()
    resolved = True
    reason = None
    for lin in lins:
        sources |= lin.sources
        if not lin.resolved:
            resolved = False
            reason = reason or lin.reason
    return frozenset(sources), resolved, reason


def merge_window_refs(lins: Iterable[Lin]) -> frozenset[Ref]:
    refs: set[Ref] = set()
    for lin in lins:
        refs |= lin.window_refs
    return frozenset(refs)


def field_access(base: Lin) -> Lin:
    kind = UNKNOWN if base.kind == UNKNOWN else (DERIVED if base.sources or base.kind == DERIVED else base.kind)
    return Lin(base.sources, kind, base.resolved, base.reason)


def same_lineage(a: Output, b: Output) -> bool:
    if a.names != b.names:
        return False
    for name in a.names:
        x, y = a.cols[name], b.cols[name]
        if (x.sources, x.kind, x.resolved, x.window_refs) != (y.sources, y.kind, y.resolved, y.window_refs):
            return False
    return True
