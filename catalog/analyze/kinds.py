"""What the analyzer knows of one column as it walks a model: its input columns and its kind
(passthrough, renamed, derived, source, unknown), and how kinds combine and are inherited."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

from sqlglot import exp

from catalog.analyze.records import ColumnKind
from catalog.idents import namer

PASS = ColumnKind.PASSTHROUGH
RENAMED = ColumnKind.RENAMED
DERIVED = ColumnKind.DERIVED
SOURCE = ColumnKind.SOURCE
UNKNOWN = ColumnKind.UNKNOWN

# Columns known for a relation: ordered names (see catalog.idents), or None when unknown.
ColumnsOf = Callable[[str], "list[str] | None"]

Ref = tuple[str, str]  # (unique_id, column name as catalog.idents writes it)

# The column name an identifier (or a column, an alias, a bare string) means in the dialect.
ColumnNamer = Callable[["exp.Expression | str | None"], str]


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


class ColumnSource(Protocol):
    """Anything that gives the lineage of a column by its name (a FROM item)."""

    def get(self, name: str) -> "Lin | None": ...


@dataclass
class Output:
    """What a scope produces: ordered column names and their lineage."""

    names: list[str]
    cols: dict[str, Lin]
    exprs: dict[str, exp.Expression | str] = field(default_factory=dict)  # str: a star-expanded column
    opaque_reason: str | None = None  # set when the column list itself is unknown
    # with an opaque column list: the one relation a ``select *`` could not expand, and the
    # names its star excluded; any other name read from this output comes from it
    open_source: ColumnSource | None = None
    open_excluded: frozenset[str] = frozenset()
    renamed: frozenset[str] = frozenset()  # names the warehouse gave duplicate names (Selected)


class Selected:
    """The columns a SELECT gives, in order, as its items and stars add them.

    A name given twice is one column with the later lineage, unless ``dedupe`` (DuckDB, which
    names the later column ``name_1``, ``name_2``, ...: the first suffix no column has taken)
    or the warehouse's catalog lists the later one as ``name_2`` (``name_3``, ...: Snowflake's
    view of one column selected twice): ``listed`` is the catalog's names of the columns."""

    __slots__ = ("names", "cols", "exprs", "dedupe", "listed", "renamed", "twice")

    def __init__(self, dedupe: bool, listed: Iterable[str] = ()):
        self.names: list[str] = []
        self.cols: dict[str, Lin] = {}
        self.exprs: dict[str, exp.Expression | str] = {}
        self.dedupe = dedupe
        self.listed = frozenset(listed)
        self.renamed: set[str] = set()  # names the warehouse gave duplicates
        self.twice: list[tuple[str, exp.Expression | str, exp.Expression | str]] = []  # (name, first, second)

    def add(self, name: str, lin: Lin, expr: exp.Expression | str, explicit: bool = False) -> str:
        """Add a column; returns its name. ``explicit``: a SELECT item, whose expression is kept
        over a star's for a name given twice."""
        cols = self.cols
        if name not in cols:
            self.names.append(name)
            cols[name] = lin
            self.exprs[name] = expr
            return name
        if self.dedupe:
            n = 1
            while f"{name}_{n}" in cols:
                n += 1
            new = f"{name}_{n}"
        else:
            new = self.listed_name(name)
            if new is None:
                self.twice.append((name, self.exprs[name], expr))
                cols[name] = lin
                if explicit:
                    self.exprs[name] = expr
                return name
        if lin.kind == PASS:  # a bare column under the warehouse's new name
            lin = Lin(lin.sources, RENAMED, lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
        self.renamed.add(new)
        return self.add(new, lin, expr)

    def listed_name(self, name: str) -> str | None:
        """The catalog's name for a second column named ``name``: the first ``name_2``,
        ``name_3``, ... not taken yet, when the catalog lists it."""
        if not self.listed:
            return None
        n = 2
        while f"{name}_{n}" in self.cols:
            n += 1
        return f"{name}_{n}" if f"{name}_{n}" in self.listed else None

    def keeps_both(self, name: str) -> bool:
        """A second column named ``name`` is a column of its own (not the first one replaced)."""
        return self.dedupe or self.listed_name(name) is not None


def lower(name: str) -> str:
    """A relation, alias, CTE or window name, compared lower case (column names are not:
    see :func:`column_namer`)."""
    return name.lower()


def column_namer(dialect: str | None) -> ColumnNamer:
    """How the analyzer names columns in ``dialect``: quoted identifiers keep their case where
    the dialect says so, unquoted ones fold (:mod:`catalog.idents`)."""
    name = namer(dialect)

    def of(node: exp.Expression | str | None) -> str:
        if node is None:
            return ""
        if isinstance(node, str):
            return name(node, False)
        if isinstance(node, exp.Column):
            node = node.this
        elif isinstance(node, exp.Alias):
            node = node.args.get("alias")
            if node is None:
                return ""
        if isinstance(node, exp.Identifier):
            return name(node.this, bool(node.quoted))
        return name(node.name, False)

    return of


def output_identifier(proj: exp.Expression) -> exp.Expression | str:
    """What names a projection's output column: its alias, its column's identifier, a struct
    field's, else sqlglot's output name."""
    while isinstance(proj, exp.Cast):  # x::int is named x
        proj = proj.this
    if isinstance(proj, exp.Alias):
        return proj.args.get("alias") or ""
    if isinstance(proj, exp.Column):
        return proj.this
    if isinstance(proj, exp.Dot) and isinstance(proj.expression, exp.Identifier):
        return proj.expression
    return proj.output_name


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
