"""Column lineage of one model's SQL: parse once, walk sqlglot's scopes bottom-up, once.

Every output column gets its upstream columns (as dbt unique ids), its kind and whether it
was resolved. Columns used only to filter, join, group or order rows become conditions.

The walk does not call sqlglot's ``qualify``: it resolves each column reference itself
against the scope's sources (dbt relations with their catalog columns, CTEs, subqueries,
table functions), which is what makes one pass per model enough.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, ScopeType, build_scope

from catalog.analyze.packed import Packed, PackedColumn, unpack
from catalog.analyze.records import ColumnKind, ConditionClause, ModelLineage, ModelStatus
from catalog.analyze.relations import EPHEMERAL_PREFIX, RelationIndex

PASS = ColumnKind.PASSTHROUGH
RENAMED = ColumnKind.RENAMED
DERIVED = ColumnKind.DERIVED
SOURCE = ColumnKind.SOURCE
UNKNOWN = ColumnKind.UNKNOWN

SNAPSHOT_META_COLUMNS = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to", "dbt_is_deleted")

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
    open_source: "_Source | None" = None
    open_excluded: frozenset[str] = frozenset()


class _Source:
    """Something a scope selects from."""

    _names: list[str] | None = None
    _known: frozenset[str] | None = None

    @property
    def names(self) -> list[str] | None:
        """Its columns in order; None when they are not known."""
        return self._names

    @names.setter
    def names(self, names: list[str] | None) -> None:
        self._names = names
        self._known = frozenset(names) if names is not None else None

    def has(self, name: str) -> bool:
        return self._known is not None and name in self._known

    def get(self, name: str) -> Lin | None:  # pragma: no cover - interface
        raise NotImplementedError


class _Relation(_Source):
    def __init__(self, unique_id: str, names: list[str] | None, self_ref: bool = False):
        self.unique_id = unique_id
        self.names = names
        self.self_ref = self_ref
        self._cache: dict[str, Lin] = {}

    def get(self, name: str) -> Lin:
        lin = self._cache.get(name)
        if lin is None:
            lin = self._cache[name] = Lin(frozenset(((self.unique_id, name),)), PASS)
        return lin


class _Unknown(_Source):
    def __init__(self, reason: str):
        self.reason = reason

    def get(self, name: str) -> Lin:
        return Lin(frozenset(), UNKNOWN, False, self.reason)


class _Derived(_Source):
    """A CTE, subquery in FROM, VALUES list or table function, already analyzed."""

    def __init__(self, output: Output, names: list[str] | None = None, any_name: Lin | None = None):
        self.output = output
        self.names = names if names is not None else (None if output.opaque_reason else output.names)
        self._any = any_name

    def get(self, name: str) -> Lin | None:
        lin = self.output.cols.get(name)
        if lin is None and self._any is not None:
            return self._any
        if lin is None and self.output.opaque_reason:
            out = self.output
            if out.open_source is not None and name not in out.open_excluded:
                return out.open_source.get(name)
            return Lin(frozenset(), UNKNOWN, False, out.opaque_reason)
        return lin


def _lower(name: str) -> str:
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


class ModelAnalyzer:
    """Analyzes one model. Build one per model; call :meth:`run`."""

    def __init__(
        self,
        unique_id: str,
        sql: str,
        dialect: str,
        relations: RelationIndex,
        columns_of: ColumnsOf,
        output_names: list[str] | None = None,
        own_names: list[str] | None = None,
    ):
        self.unique_id = unique_id
        self.sql = sql
        self.dialect = dialect
        self.relations = relations
        self.columns_of = columns_of
        self.output_names = output_names  # the model's real columns (catalog.json), to name unnamed expressions
        # the model's columns as catalog.json, else YAML, declares them: what a ``select *`` over
        # a relation of unknown columns yields
        self.own_names = own_names if own_names is not None else output_names
        self.may_use_columns = "columns" in sql.lower()  # DuckDB's COLUMNS(...) star expression
        self.positional_params = dialect == "snowflake"  # $1 is the first column, not a bind parameter
        self.conditions: set[tuple[Ref, ConditionClause]] = set()
        self._memo: dict[int, Output] = {}
        self._in_progress: dict[int, Output | None] = {}
        self._recursive_base: dict[int, Output] = {}
        self._recursive_hits = 0  # how often a recursive CTE's reference to itself was read
        self._problems: list[str] = []

    # ----------------------------------------------------------------- entry point
    def run(self) -> ModelLineage:
        return unpack(self.run_packed())

    def run_packed(self) -> Packed:
        """The lineage in its plain-tuple form (see :mod:`catalog.analyze.packed`)."""
        try:
            statements = [s for s in sqlglot.parse(self.sql, read=self.dialect) if s is not None]
        except SqlglotError as e:
            return self._fail(ModelStatus.FAILED, f"cannot parse SQL: {_short(e)}")
        query = next((q for q in map(_query_of, reversed(statements)) if q is not None), None)
        if query is None:
            return self._fail(ModelStatus.UNRESOLVED, "no SELECT statement in the compiled SQL")
        query = self._drop_ephemeral_ctes(query)
        root = build_scope(query)
        if root is None:
            return self._fail(ModelStatus.UNRESOLVED, "no query scope in the compiled SQL")
        out = self.scope_output(root)
        return self._lineage(out)

    def _fail(self, status: ModelStatus, reason: str) -> Packed:
        cols: list[PackedColumn] = [(n, UNKNOWN.value, False, "", (), reason) for n in (self.output_names or [])]
        return (self.unique_id, status.value, reason, cols, [])

    def _drop_ephemeral_ctes(self, query: exp.Query) -> exp.Query:
        """``__dbt__cte__x`` CTEs stand for ephemeral model x: read them as that model's relation."""
        with_ = query.args.get("with_")
        if not with_:
            return query
        keep = [cte for cte in with_.expressions if not self._is_known_ephemeral(cte.alias_or_name)]
        if len(keep) == len(with_.expressions):
            return query
        if keep:
            with_.set("expressions", keep)
        else:
            query.set("with_", None)
        return query

    def _is_known_ephemeral(self, name: str) -> bool:
        return name.lower().startswith(EPHEMERAL_PREFIX) and self.relations.ephemeral(name) is not None

    # ----------------------------------------------------------------- results
    def _lineage(self, out: Output) -> Packed:
        if out.opaque_reason and out.open_source is not None and self.own_names:
            out = _named_by_own_columns(out, self.own_names)
        columns: list[PackedColumn] = []
        names = out.names
        if self.output_names and len(self.output_names) == len(names):
            # unnamed expressions get the name the warehouse gave them
            rename = {
                old: new
                for old, new in zip(names, self.output_names)
                if old != new and not _explicitly_named(out.exprs.get(old))
            }
        else:
            rename = {}
        this = self.unique_id
        unresolved: list[PackedColumn] = []
        for name in names:
            lin = out.cols[name]
            sources = lin.sources
            if any(uid == this for uid, _ in sources):  # {{ this }}: no self loop, a condition instead
                for ref in sources:
                    if ref[0] == this:
                        self.conditions.add((ref, ConditionClause.WHERE))
                sources = frozenset(r for r in sources if r[0] != this)
            col: PackedColumn = (
                rename.get(name, name),
                lin.kind.value,
                lin.resolved,
                self._expr_sql(lin.defined_by if lin.defined_by is not None else out.exprs.get(name)),
                tuple(sorted(sources)),
                None if lin.resolved else (lin.reason or "could not be resolved"),
            )
            columns.append(col)
            if not lin.resolved:
                unresolved.append(col)
        conditions = sorted((u, c, clause.value) for (u, c), clause in self.conditions)
        if out.opaque_reason:
            status, reason = ModelStatus.UNRESOLVED if not columns else ModelStatus.PARTIAL, out.opaque_reason
        elif not unresolved:
            status, reason = ModelStatus.RESOLVED, None
        elif len(unresolved) == len(columns):
            status, reason = ModelStatus.UNRESOLVED, unresolved[0][5]
        else:
            status = ModelStatus.PARTIAL
            reason = f"{len(unresolved)} of {len(columns)} columns unresolved: {unresolved[0][5]}"
        return (this, status.value, reason, columns, conditions)

    def _expr_sql(self, node: exp.Expression | str | None) -> str:
        if node is None:
            return ""
        if isinstance(node, str):
            return node
        if isinstance(node, exp.Alias):
            node = node.this
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            return ".".join(p.name for p in node.parts)
        try:
            return node.sql(dialect=self.dialect)
        except SqlglotError:
            return node.sql()

    # ----------------------------------------------------------------- scopes
    def scope_output(self, scope: Scope, parent: "_Context | None" = None) -> Output:
        key = id(scope)
        done = self._memo.get(key)
        if done is not None:
            return done
        recursive = self._recursive_reference(scope)
        if recursive is not None:
            return recursive
        if key in self._in_progress:  # a recursive CTE reading itself
            partial = self._in_progress[key]
            if partial is None:
                return Output([], {}, opaque_reason="recursive CTE read before its base case")
            return partial
        self._in_progress[key] = None
        try:
            if isinstance(scope.expression, exp.SetOperation):
                out = self._set_operation(scope, parent)
            elif isinstance(scope.expression, exp.Select):
                out = self._select(scope, parent)
            elif isinstance(scope.expression, exp.Values):
                out = self._values(scope)
            else:
                out = Output([], {}, opaque_reason=f"unsupported scope {type(scope.expression).__name__}")
        finally:
            self._in_progress.pop(key, None)
        out = _apply_alias_columns(scope, out)
        self._memo[key] = out
        return out

    def _recursive_reference(self, scope: Scope) -> Output | None:
        """sqlglot gives a recursive CTE's reference to itself a scope of the anchor alone."""
        if not self._recursive_base or not scope.is_cte:
            return None
        node = scope.expression.parent
        while isinstance(node, exp.SetOperation):
            base = self._recursive_base.get(id(node))
            if base is not None:
                self._recursive_hits += 1
                return base
            node = node.parent
        return None

    def _set_operation(self, scope: Scope, parent: "_Context | None") -> Output:
        branches = scope.set_operation_scopes
        left = self.scope_output(branches[0], parent)
        key = id(scope.expression)
        if scope.is_cte:  # a recursive CTE's own reference sees its base case first
            self._recursive_base[key] = _apply_alias_columns(scope, left)
        hits = self._recursive_hits
        out = self._combine(scope, left, [self.scope_output(b, parent) for b in branches[1:]])
        if scope.is_cte and self._recursive_hits > hits:
            # it reads itself: iterate until its columns' lineage stops growing
            for _ in range(RECURSION_LIMIT):
                self._recursive_base[key] = _apply_alias_columns(scope, out)
                for branch in branches[1:]:
                    for inner in branch.traverse():
                        self._memo.pop(id(inner), None)
                again = self._combine(scope, left, [self.scope_output(b, parent) for b in branches[1:]])
                if _same_lineage(again, out):
                    break
                out = again
            else:  # never seen in practice; say so rather than give a lineage that may lack edges
                reason = f"recursive CTE lineage did not settle after {RECURSION_LIMIT} passes"
                out.cols = {n: Lin(lin.sources, lin.kind, False, reason, lin.window_refs) for n, lin in out.cols.items()}
        # ORDER BY on the whole set operation refers to output names
        order = scope.expression.args.get("order")
        if order:
            for col in order.find_all(exp.Column):
                lin = out.cols.get(_lower(col.name))
                if lin:
                    self._add_conditions(lin, ConditionClause.ORDER_BY)
        return out

    def _combine(self, scope: Scope, left: Output, rest: list[Output]) -> Output:
        """Column i from column i of every branch (or by name for UNION BY NAME)."""
        outputs = [left, *rest]
        by_name = bool(scope.expression.args.get("by_name"))
        names = list(left.names)
        if by_name:
            for o in rest:
                names.extend(n for n in o.names if n not in names)
        cols: dict[str, Lin] = {}
        exprs: dict[str, exp.Expression | str] = {}
        for i, name in enumerate(names):
            parts: list[Lin] = []
            for o in outputs:
                other = name if by_name else (o.names[i] if i < len(o.names) else None)
                if other is not None and other in o.cols:
                    lin = o.cols[other]
                    if other != name and lin.kind == PASS:  # bare under another name: a rename
                        lin = Lin(lin.sources, RENAMED, lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
                    parts.append(lin)
            sources, resolved, reason = merge(parts)
            kinds = {p.kind for p in parts}
            if UNKNOWN in kinds:
                kind = UNKNOWN
            elif kinds <= {PASS}:
                kind = PASS
            elif kinds <= {PASS, RENAMED}:
                kind = RENAMED
            elif kinds == {SOURCE}:
                kind = SOURCE
            else:
                kind = DERIVED
            cols[name] = Lin(sources, kind, resolved, reason, merge_window_refs(parts))
            if name in left.exprs:
                exprs[name] = left.exprs[name]
        opaque = next((o.opaque_reason for o in outputs if o.opaque_reason), None)
        return Output(names, cols, exprs, opaque)

    def _values(self, scope: Scope) -> Output:
        values: exp.Values = scope.expression
        alias = values.args.get("alias")
        names = [_lower(c.name) for c in alias.columns] if alias and alias.columns else []
        if not names and values.expressions:
            first = values.expressions[0]
            width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
            names = [f"column{i + 1}" for i in range(width)]
        return Output(names, {n: Lin(frozenset(), SOURCE) for n in names})

    def _select(self, scope: Scope, parent: "_Context | None") -> Output:
        select: exp.Select = scope.expression
        ctx = _Context(self, scope, parent)
        ctx.collect_sources()
        out = ctx.projections()
        ctx.collect_conditions(out)
        return out

    # ----------------------------------------------------------------- helpers
    def relation_source(self, table: exp.Table) -> _Source:
        path = _file_read(table)
        uid = self.relations.lookup_path(path) if path is not None else None
        if uid is not None:  # a dbt-duckdb external source, read by its file
            return _Relation(uid, self.columns_of(uid))
        parts = tuple(_lower(p.name) for p in table.parts)
        if isinstance(table.this, exp.Func) or not parts:
            return _Unknown(f"table function {table.this.sql(dialect=self.dialect)[:60]}")
        uid = self.relations.lookup(parts)
        if uid is None:
            return _Unknown(f"relation {'.'.join(parts)} is not a node of the dbt project")
        if uid == self.unique_id:
            return _Relation(uid, self.columns_of(uid), self_ref=True)
        return _Relation(uid, self.columns_of(uid))

    def reads_external_source(self, table: exp.Table) -> bool:
        path = _file_read(table)
        return path is not None and self.relations.lookup_path(path) is not None

    def _add_conditions(self, lin: Lin, clause: ConditionClause) -> None:
        for ref in lin.influences:
            self.conditions.add((ref, clause))


_CONDITION_ARGS = (
    ("where", ConditionClause.WHERE),
    ("group", ConditionClause.GROUP_BY),
    ("having", ConditionClause.HAVING),
    ("qualify", ConditionClause.QUALIFY),
    ("order", ConditionClause.ORDER_BY),
)


class _Context:
    """Name resolution inside one SELECT scope."""

    def __init__(self, analyzer: ModelAnalyzer, scope: Scope, parent: "_Context | None"):
        self.a = analyzer
        self.scope = scope
        self.select: exp.Select = scope.expression
        self.parent = parent
        self.sources: dict[str, _Source] = {}  # alias (lower) -> source, in FROM/JOIN order
        self.star_sources: list[str] = []  # aliases that contribute to SELECT *
        self.using: dict[str, Lin] = {}  # merged USING / NATURAL keys
        self.aliases: dict[str, Lin] = {}  # projection aliases seen so far
        self.subquery_scopes = {id(s.expression): s for s in scope.subquery_scopes}
        named = self.select.args.get("windows")  # WINDOW w AS (...)
        self.windows: dict[str, exp.Window] = {_lower(w.name): w for w in named} if named else {}
        self.outputs: Output | None = None

    # --------------------------------------------------------------- sources
    def collect_sources(self) -> None:
        child_scopes: dict[str, Scope] = {}
        for name, src in self.scope.sources.items():
            if isinstance(src, Scope):
                child_scopes[_lower(name)] = src
        from_ = self.select.args.get("from_")
        items: list[tuple[exp.Expression, exp.Join | None]] = []
        if from_ is not None:
            items.append((from_.this, None))
        for join in self.select.args.get("joins") or []:
            items.append((join.this, join))
        for lateral in self.select.args.get("laterals") or []:
            items.append((lateral, None))
        for node, join in items:
            self._add_source(node, join, child_scopes)

    def _add_source(self, node: exp.Expression, join: exp.Join | None, child_scopes: dict[str, Scope]) -> None:
        alias = _lower(node.alias_or_name)
        lateral_query = _lateral_query(node)
        if lateral_query is not None and alias in child_scopes:  # LATERAL (SELECT ...): sees earlier relations
            inner = next((s for s in child_scopes[alias].subquery_scopes if s.expression is lateral_query), None)
            if inner is None:
                source: _Source = _Unknown("lateral subquery could not be analyzed")
            else:
                source = _Derived(_rename_by_alias(self.a.scope_output(inner, self), node.args.get("alias")))
        elif isinstance(node, exp.Table) and self.a.reads_external_source(node):
            source = self._aliased_columns(self.a.relation_source(node), node)
            alias = alias if not isinstance(node.this, exp.Func) else (_lower(node.alias) or f"__file_{len(self.sources)}")
        elif isinstance(node, (exp.Unnest, exp.Lateral, exp.TableFromRows)) or (
            isinstance(node, exp.Table) and isinstance(node.this, exp.Func)
        ):
            source = self._function_source(node)
            alias = alias or f"__udtf_{len(self.sources)}"
        elif alias in child_scopes:  # CTE, subquery in FROM, VALUES list
            source = _Derived(self.a.scope_output(child_scopes[alias], self))
        elif isinstance(node, exp.Table):
            source = self._aliased_columns(self.a.relation_source(node), node)
        else:
            source = _Unknown(f"unsupported FROM item {node.sql(dialect=self.a.dialect)[:60]}")
        for pivot in node.args.get("pivots") or []:
            source = self._pivot_source(source, pivot)
            pivot_alias = pivot.args.get("alias")
            if isinstance(source, _Derived) and isinstance(pivot_alias, exp.TableAlias) and pivot_alias.columns:
                source = _Derived(_rename_by_alias(source.output, pivot_alias))  # PIVOT (...) AS p (c1, c2, ...)
            alias = _lower(pivot.alias) or alias
        self.sources[alias] = source
        kind = (join.args.get("kind") or "").upper() if join is not None else ""
        if kind not in ("SEMI", "ANTI"):
            self.star_sources.append(alias)
        if join is not None:
            self._join_keys(join, alias)

    @staticmethod
    def _aliased_columns(source: _Source, table: exp.Table) -> _Source:
        """``FROM t AS x (a, b)``: the alias list renames the relation's columns by position."""
        alias = table.args.get("alias")
        if not isinstance(alias, exp.TableAlias) or not alias.columns:
            return source
        if source.names is None:
            return _Unknown(f"column alias list over {table.name!r}, whose columns are unknown")
        cols = {n: lin for n in source.names if (lin := source.get(n)) is not None}
        return _Derived(_rename_by_alias(Output(list(cols), cols), alias))

    def _function_source(self, node: exp.Expression) -> _Source:
        """UNNEST, LATERAL FLATTEN, table functions: their columns derive from the arguments."""
        args = node
        if isinstance(node, (exp.Lateral, exp.TableFromRows)):
            args = node.this
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Func):
            args = node.this
        refs = [self.resolve(c) for c in _columns_in(args)]
        sources, resolved, reason = merge(refs)
        # generate_series(1, 3), unnest([1, 2]): no upstream column, like a literal
        lin = Lin(sources, DERIVED if sources else (SOURCE if resolved else UNKNOWN), resolved, reason)
        alias = node.args.get("alias")
        names = [_lower(c.name) for c in alias.columns] if isinstance(alias, exp.TableAlias) and alias.columns else None
        if names is None and isinstance(node, exp.Unnest) and isinstance(alias, exp.TableAlias) and alias.name:
            names = [_lower(alias.name)]  # BigQuery: UNNEST(arr) AS x names the element column
        offset = node.args.get("offset") if isinstance(node, exp.Unnest) else None
        if isinstance(offset, exp.Expression) and offset.name and names is not None:
            names = [*names, _lower(offset.name)]  # WITH OFFSET AS pos
        source = _Derived(Output(names or [], {n: lin for n in (names or [])}), any_name=lin)
        source.names = names  # None: unknown, and any column read from it is the function's value
        return source

    def _pivot_source(self, base: _Source, pivot: exp.Pivot) -> _Source:
        """The relation a PIVOT or UNPIVOT makes of ``base``, when its columns can be known."""
        what = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT"
        if base.names is None:
            return _Unknown(f"{what} over a relation whose columns are unknown")
        fields = pivot.args.get("fields") or []
        if len(fields) != 1 or not isinstance(fields[0], exp.In):
            return _Unknown(f"{what} with {len(fields)} FOR columns is not resolved")
        field = fields[0]
        values = [v.this if isinstance(v, exp.PivotAlias) else v for v in field.expressions]
        if not values or any(isinstance(v, (exp.PivotAny, exp.Query, exp.Subquery)) for v in values):
            return _Unknown(f"{what} over values known only from the data (ANY or a subquery)")

        def lin_of(node: exp.Expression) -> Lin:
            refs = [base.get(_lower(c.name)) for c in node.find_all(exp.Column)]
            sources, resolved, reason = merge(r for r in refs if r is not None)
            return Lin(sources, DERIVED, resolved, reason, merge_window_refs(r for r in refs if r is not None))

        names: list[str] = []
        cols: dict[str, Lin] = {}

        def add(name: str, lin: Lin) -> None:
            if name not in cols:
                names.append(name)
            cols[name] = lin

        if not pivot.args.get("unpivot"):
            aggs = [a.this if isinstance(a, exp.Alias) else a for a in pivot.expressions]
            out_cols = [_lower(c.name) for c in pivot.args.get("columns") or []]
            if not aggs or len(out_cols) != len(values) * len(aggs):
                return _Unknown("PIVOT output columns could not be named")
            used = {_lower(c.name) for a in aggs for c in a.find_all(exp.Column)} | {_lower(field.this.name)}
            for n in base.names:
                if n not in used:  # the implicit GROUP BY
                    lin = base.get(n)
                    if lin is not None:
                        add(n, lin)
                        self.a._add_conditions(lin, ConditionClause.GROUP_BY)
            key = lin_of(field.this)
            agg_lins = [lin_of(a) for a in aggs]
            for i, name in enumerate(out_cols):
                agg = agg_lins[i % len(aggs)]  # value-major: v1_agg1, v1_agg2, v2_agg1, ...
                sources, resolved, reason = merge((agg, key))
                add(name, Lin(sources, DERIVED, resolved, reason))
            return _Derived(Output(names, cols))

        value_names = [
            _lower(v.name) for e in pivot.expressions for v in (e.expressions if isinstance(e, exp.Tuple) else [e])
        ]
        if isinstance(field.this, exp.Tuple):
            return _Unknown("UNPIVOT with several name columns is not resolved")
        groups = [list(v.expressions) if isinstance(v, exp.Tuple) else [v] for v in values]
        if not value_names or any(len(g) != len(value_names) for g in groups):
            return _Unknown("UNPIVOT value and name columns do not line up")
        unpivoted = {_lower(c.name) for g in groups for c in g for c in c.find_all(exp.Column)}
        for n in base.names:
            if n not in unpivoted:
                lin = base.get(n)
                if lin is not None:
                    add(n, lin)
        add(_lower(field.this.name), Lin(frozenset(), SOURCE))  # the unpivoted columns' names
        for i, name in enumerate(value_names):
            sources, resolved, reason = merge(lin_of(g[i]) for g in groups)
            # like a UNION ALL of one bare column per branch: renamed if all are bare
            bare = [base.get(_lower(g[i].name)) if isinstance(g[i], exp.Column) else None for g in groups]
            kind = RENAMED if all(b is not None and b.kind in (PASS, RENAMED) for b in bare) else DERIVED
            add(name, Lin(sources, kind, resolved, reason))
        return _Derived(Output(names, cols))

    def _join_keys(self, join: exp.Join, alias: str) -> None:
        using = join.args.get("using")
        keys: list[str] = []
        if using:
            keys = [_lower(u.name) for u in using]
        elif (join.args.get("method") or "").upper() == "NATURAL" or join.args.get("natural"):
            right = self.sources[alias]
            right_names = set(right.names or [])
            for other_alias in self.star_sources[:-1]:
                for n in self.sources[other_alias].names or []:
                    if n in right_names and n not in keys:
                        keys.append(n)
        right = self.sources[alias]
        others = [src for a, src in self.sources.items() if a != alias]
        for key in keys:
            if key in self.using:  # a USING chain: the key merged so far
                left: list[Lin | None] = [self.using[key]]
            else:
                left = [src.get(key) for src in others if src.has(key)]
                if not left:
                    unknown = [src for src in others if src.names is None]
                    if len(unknown) == 1:  # the only relation that can have it
                        left = [unknown[0].get(key)]
                    else:
                        left = [Lin(frozenset(), UNKNOWN, False, f"which relation's {key!r} USING joins is unknown")]
            lins = [p for p in (*left, right.get(key)) if p is not None]
            sources, resolved, reason = merge(lins)
            merged = Lin(sources, PASS, resolved, reason)
            self.using[key] = merged
            self.a._add_conditions(merged, ConditionClause.JOIN)

    # --------------------------------------------------------------- resolution
    def resolve(self, col: exp.Column, allow_alias: bool = True) -> Lin:
        if isinstance(col.this, exp.Parameter):  # t.$1
            return self._positional(col.this, col.table.lower())
        name = col.name.lower()
        table = col.table.lower()
        if table:
            # qualifiers, outermost first: [catalog,] [db,] table
            chain = [_lower(p.name) for p in (col.args.get("catalog"), col.args.get("db")) if p] + [table]
            if table in self.sources and (len(chain) == 1 or chain[0] not in self.sources):
                return self._from_source(self.sources[table], name, col)
            head = chain[0]
            if head in self.sources:  # alias.struct_col.field
                return _field_access(self._from_source(self.sources[head], chain[1], col))
            if self.parent is not None and self.parent.sees_alias(table):
                return self.parent.resolve(col, allow_alias=False)
            found = self._find_unqualified(head)
            if found is not None:  # struct_col.field
                return _field_access(found)
            if self.parent is not None:
                return self.parent.resolve(col, allow_alias=False)
            return Lin(frozenset(), UNKNOWN, False, f"unknown table alias {col.table!r} for column {col.name!r}")
        if name in self.using:
            return self.using[name]
        found = self._find_unqualified(name)
        if found is not None:
            return found
        if allow_alias and name in self.aliases:
            return self.aliases[name]
        if self.parent is not None:
            outer = self.parent.resolve(col, allow_alias=False)
            if outer.resolved or self._all_unknown_sources():
                return outer
        return self._unresolved_unqualified(name)

    def _positional_source(self, param: exp.Parameter, table: str) -> tuple[_Source | None, int]:
        index = param.this
        if not (isinstance(index, exp.Literal) and not index.is_string and index.name.isdigit()):
            return None, 0
        if table:
            return self.sources.get(table), int(index.name)
        only = list(self.sources.values())
        return (only[0] if len(only) == 1 else None), int(index.name)

    def _positional_name(self, param: exp.Parameter, table: str) -> str:
        source, n = self._positional_source(param, table)
        names = source.names if source is not None else None
        return names[n - 1] if names and 1 <= n <= len(names) else ""

    def _positional(self, param: exp.Parameter, table: str) -> Lin:
        """Snowflake's ``$n`` / ``t.$n``: the relation's n-th column, when its columns are known."""
        name = self._positional_name(param, table)
        if name:
            source, _ = self._positional_source(param, table)
            lin = source.get(name) if source is not None else None
            if lin is not None:
                return lin
        text = param.sql(dialect=self.a.dialect)
        return Lin(frozenset(), UNKNOWN, False, f"positional column {text} cannot be told")

    def sees_alias(self, alias: str) -> bool:
        """Whether ``alias`` names a relation here or in an enclosing query."""
        ctx: _Context | None = self
        while ctx is not None:
            if alias in ctx.sources:
                return True
            ctx = ctx.parent
        return False

    def _all_unknown_sources(self) -> bool:
        return all(isinstance(s, _Unknown) for s in self.sources.values())

    def _from_source(self, source: _Source, name: str, col: exp.Column) -> Lin:
        lin = source.get(name)
        if lin is None:
            return Lin(frozenset(), UNKNOWN, False, f"column {col.sql()} not found in its relation")
        return lin

    def _find_unqualified(self, name: str) -> Lin | None:
        if len(self.sources) == 1:  # the common case, made quick
            (only,) = self.sources.values()
            if only.has(name):
                return only.get(name)
            if only.names is None:
                if self.parent is not None and self.parent.has_known(name):
                    return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: this query's relation or the outer query's")
                return only.get(name)
            return None
        holders = [src for src in self.sources.values() if src.has(name)]
        if len(holders) == 1:
            return holders[0].get(name)
        if len(holders) > 1:
            return Lin(frozenset(), UNKNOWN, False, f"column {name!r} is ambiguous: several relations have it")
        unknown = [s for s in self.sources.values() if s.names is None or isinstance(s, _Unknown)]
        if len(unknown) == 1:
            # the only relation whose columns are unknown, and no other has it: it is that one's,
            # unless an enclosing query has such a column too (a correlated reference)
            if self.parent is not None and self.parent.has_known(name):
                return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: this query's relation or the outer query's")
            return unknown[0].get(name)
        return None

    def has_known(self, name: str) -> bool:
        """Whether a relation here or in an enclosing query is known to have the column."""
        ctx: _Context | None = self
        while ctx is not None:
            if name in ctx.using or any(src.has(name) for src in ctx.sources.values()):
                return True
            ctx = ctx.parent
        return False

    def _unresolved_unqualified(self, name: str) -> Lin:
        unknown = [s for s in self.sources.values() if s.names is None or isinstance(s, _Unknown)]
        if unknown:
            return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: its relation's columns are unknown")
        return Lin(frozenset(), UNKNOWN, False, f"column {name!r} not found in any relation of the query")

    # --------------------------------------------------------------- projections
    def projections(self) -> Output:
        names: list[str] = []
        cols: dict[str, Lin] = {}
        exprs: dict[str, exp.Expression] = {}
        opaque: str | None = None
        unexpanded: list[tuple[_Source, frozenset[str]]] = []
        for i, proj in enumerate(self.select.expressions):
            star = _star_of(proj)
            if star is not None:
                reason = self._expand_star(proj, star, names, cols, exprs, unexpanded)
                opaque = opaque or reason
                continue
            if isinstance(proj, _PATTERN_STARS) or (self.a.may_use_columns and proj.find(exp.Columns)):
                keep = _column_filter(proj)  # DuckDB: COLUMNS('regex'), * LIKE 'pattern'
                if keep is None:
                    opaque = opaque or f"{proj.sql(dialect=self.a.dialect)[:80]}: column list not expanded"
                    unexpanded.append((_Unknown("COLUMNS(...) not expanded"), frozenset()))
                else:
                    reason = self._expand_star(proj, exp.Star(), names, cols, exprs, unexpanded, keep)
                    opaque = opaque or reason
                continue
            name = _lower(proj.alias if isinstance(proj, exp.Alias) else proj.output_name) or f"_col_{i}"
            lin = self.classify(proj, name)
            if name not in cols:
                names.append(name)
            cols[name] = lin
            exprs[name] = proj
            if isinstance(proj, exp.Alias):
                self.aliases[name] = lin
        self.outputs = Output(names, cols, exprs, opaque)
        if opaque and len(unexpanded) == 1:
            self.outputs.open_source, self.outputs.open_excluded = unexpanded[0]
        return self.outputs

    def _expand_star(
        self,
        proj: exp.Expression,
        star: exp.Star,
        names: list[str],
        cols: dict[str, Lin],
        exprs: dict[str, exp.Expression],
        unexpanded: list[tuple[_Source, frozenset[str]]],
        keep: Callable[[str], bool] | None = None,
    ) -> str | None:
        """Add the star's columns (those ``keep`` accepts); returns why it could not be
        (fully) expanded, if so.

        Relations whose columns are unknown go to ``unexpanded`` (with the excluded names).
        """
        table = _lower(proj.table) if isinstance(proj, exp.Column) and proj.table else ""
        problem: str | None = None
        if isinstance(proj, exp.Dot) or (table and table not in self.sources):
            text = proj.sql(dialect=self.a.dialect)
            struct = isinstance(proj, exp.Dot) or self._find_unqualified(table) is not None
            problem = f"{text}: {'the fields of a struct column are not known' if struct else 'unknown relation'}"
        elif self.select.args.get("match"):
            problem = "select * with MATCH_RECOGNIZE: its output columns are not resolved"
        if problem:
            unexpanded.append((_Unknown(problem), frozenset()))
            return problem
        aliases = [table] if table else list(self.star_sources)
        excluded = {_lower(c.name) for c in star.args.get("except_") or []}
        replaced = {_lower(r.alias_or_name): r for r in star.args.get("replace") or []}
        renamed = {_lower(r.this.name): _lower(r.alias) for r in star.args.get("rename") or [] if isinstance(r, exp.Alias)}
        seen_using: set[str] = set()
        for alias in aliases:
            source = self.sources[alias]
            if source.names is None:
                reason = getattr(source, "reason", None) or f"columns of {alias!r} are unknown"
                problem = problem or f"select * over {alias!r} cannot be expanded: {reason}"
                if replaced or renamed or keep is not None:  # names of its output are not the relation's own
                    source = _Unknown(problem)
                unexpanded.append((source, frozenset(excluded)))
                continue
            if keep is not None:
                excluded = excluded | {n for n in source.names if not keep(n)}
            if not (excluded or replaced or renamed or (self.using and not table)):
                # the common case: every column as it is
                get = source.get
                prefix = f"{alias}." if table else ""
                for n in source.names:
                    lin = get(n)
                    if n not in cols:
                        names.append(n)
                        exprs[n] = prefix + n
                    elif n not in exprs:
                        exprs[n] = prefix + n
                    cols[n] = lin if lin is not None else Lin(frozenset(), UNKNOWN, False, f"column {n!r} missing")
                continue
            for n in source.names:
                if n in excluded:
                    continue
                if not table and n in self.using:
                    if n in seen_using:
                        continue
                    seen_using.add(n)
                    lin = self.using[n]
                elif n in replaced:
                    lin = self.classify(replaced[n], n)
                    exprs[n] = replaced[n]
                else:
                    lin = source.get(n) or Lin(frozenset(), UNKNOWN, False, f"column {n!r} missing")
                out_name = renamed.get(n, n)
                if out_name != n:
                    lin = Lin(lin.sources, inherit(lin.kind, False), lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
                if out_name not in cols:
                    names.append(out_name)
                cols[out_name] = lin
                exprs.setdefault(out_name, f"{alias}.{n}" if table else n)
        return problem

    def classify(self, proj: exp.Expression, name: str) -> Lin:
        inner = proj.this if isinstance(proj, exp.Alias) else proj
        while isinstance(inner, exp.Paren):
            inner = inner.this
        bare_param = isinstance(inner, exp.Parameter) and self.a.positional_params
        if bare_param or (isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star)):
            if bare_param:
                lin = self._positional(inner, "")
                inner_name = self._positional_name(inner, "")
            else:
                lin = self.resolve(inner)
                if isinstance(inner.this, exp.Parameter):
                    inner_name = self._positional_name(inner.this, inner.table.lower())
                else:
                    inner_name = inner.name.lower()
            if not lin.resolved and not lin.sources:
                return Lin(frozenset(), UNKNOWN, False, lin.reason)
            kind = lin.kind
            if kind != PASS or inner_name == name:
                return lin  # same kind: Lin is immutable, share it
            return Lin(lin.sources, RENAMED, lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
        return self._expression(inner)

    def _expression(self, node: exp.Expression) -> Lin:
        parts: list[Lin] = []
        window_refs: set[Ref] = set()
        has_agg = False
        for sub, clause in _walk_value(node, self.windows):
            if isinstance(sub, exp.Column):
                if isinstance(sub.this, exp.Star):
                    continue
                lin = self.resolve(sub)
                if clause is None:
                    parts.append(lin)
                else:
                    self.a._add_conditions(lin, clause)
                    window_refs |= lin.influences
            elif isinstance(sub, exp.Exists):
                has_agg = True  # EXISTS (...) counts the subquery's rows, like count(*) > 0
            elif isinstance(sub, (exp.AggFunc, exp.Window)):
                # count(*), row_number(): computed from the rows themselves. An aggregate of
                # columns is derived only through what those columns carry (sum of a constant
                # is still a constant), as synth_dbt's conventions have it.
                function = sub.this if isinstance(sub, exp.Window) else sub
                if not any(not isinstance(c.this, exp.Star) for c in function.find_all(exp.Column)):
                    has_agg = True
            elif isinstance(sub, exp.Parameter) and self.a.positional_params and isinstance(sub.parent, exp.Expression):
                if not isinstance(sub.parent, exp.Column):  # Snowflake $1: the first column
                    lin = self._positional(sub, "")
                    if clause is None:
                        parts.append(lin)
                    else:
                        self.a._add_conditions(lin, clause)
                        window_refs |= lin.influences
            elif isinstance(sub, exp.Query):
                lin = self._subquery_value(sub)
                if clause is None:
                    parts.append(lin)
                    has_agg = has_agg or lin.kind == DERIVED
                else:
                    self.a._add_conditions(lin, clause)
        sources, resolved, reason = merge(parts)
        refs = frozenset(window_refs) | merge_window_refs(parts)
        if parts and not resolved and not sources:
            return Lin(sources, UNKNOWN, False, reason, refs, node)
        if sources or has_agg or refs or any(p.kind == DERIVED for p in parts):
            # a wrapped aggregate of its own (coalesce(w.wins, 0) over count(*)) stays derived
            return Lin(sources, DERIVED, resolved, reason, refs, node)
        return Lin(sources, SOURCE if resolved else UNKNOWN, resolved, reason, refs, node)

    def _subquery_value(self, query: exp.Query) -> Lin:
        scope = self.subquery_scopes.get(id(query))
        if scope is None and isinstance(query, exp.Subquery):
            scope = self.subquery_scopes.get(id(query.this))
        if scope is None:
            return Lin(frozenset(), UNKNOWN, False, "subquery could not be analyzed")
        out = self.a.scope_output(scope, self)
        sources, resolved, reason = merge(out.cols.values())
        if sources or any(lin.kind == DERIVED for lin in out.cols.values()):
            kind = DERIVED  # a subquery's value is computed, e.g. (select count(*) ...)
        else:
            kind = SOURCE if resolved else UNKNOWN
        return Lin(sources, kind, resolved, reason)

    # --------------------------------------------------------------- conditions
    def collect_conditions(self, out: Output) -> None:
        for join in self.select.args.get("joins") or []:
            on = join.args.get("on")
            if on is not None:
                self._condition_refs(on, ConditionClause.JOIN, out)
            match = join.args.get("match_condition")
            if match is not None:
                self._condition_refs(match, ConditionClause.JOIN, out)
        for arg, clause in _CONDITION_ARGS:
            node = self.select.args.get(arg)
            if node is None:
                continue
            if arg == "group" and node.args.get("all"):
                for name in out.names:
                    proj = out.exprs.get(name)
                    if isinstance(proj, str) or (proj is not None and not proj.find(exp.AggFunc)):
                        self.a._add_conditions(out.cols[name], clause)
            self._condition_refs(node, clause, out)
        distinct = self.select.args.get("distinct")
        if distinct is not None and distinct.args.get("on") is not None:  # DISTINCT ON keys group the rows
            self._condition_refs(distinct.args["on"], ConditionClause.GROUP_BY, out)

    def _condition_refs(self, node: exp.Expression, clause: ConditionClause, out: Output) -> None:
        ordinal_ok = clause in (ConditionClause.GROUP_BY, ConditionClause.ORDER_BY)
        if ordinal_ok:
            for item in _ordinal_items(node):
                idx = int(item.name) - 1
                if 0 <= idx < len(out.names):
                    self.a._add_conditions(out.cols[out.names[idx]], clause)
        by_output: set[int] = set()
        if clause == ConditionClause.ORDER_BY and isinstance(node, exp.Order):
            # ORDER BY <name> means the output column of that name before an input column
            for item in node.expressions:
                col = item.this if isinstance(item, exp.Ordered) else item
                if isinstance(col, exp.Column) and not col.table and col.name.lower() in out.cols:
                    self.a._add_conditions(out.cols[col.name.lower()], clause)
                    by_output.add(id(col))
        for sub, _ in _walk_value(node, self.windows):
            if isinstance(sub, exp.Column) and not isinstance(sub.this, exp.Star):
                if id(sub) not in by_output:
                    self.a._add_conditions(self.resolve(sub, allow_alias=True), clause)
            elif isinstance(sub, exp.Query):
                self.a._add_conditions(self._subquery_value(sub), clause)
            elif isinstance(sub, exp.Parameter) and self.a.positional_params and not isinstance(sub.parent, exp.Column):
                self.a._add_conditions(self._positional(sub, ""), clause)


RECURSION_LIMIT = 20  # passes over a recursive CTE's recursive part


def _same_lineage(a: Output, b: Output) -> bool:
    if a.names != b.names:
        return False
    for name in a.names:
        x, y = a.cols[name], b.cols[name]
        if (x.sources, x.kind, x.resolved, x.window_refs) != (y.sources, y.kind, y.resolved, y.window_refs):
            return False
    return True


def _apply_alias_columns(scope: Scope, out: Output) -> Output:
    """``cte (a, b) AS (...)`` and ``(...) AS t (a, b)`` rename the outputs by position."""
    holder = scope.expression.parent
    alias = holder.args.get("alias") if isinstance(holder, (exp.CTE, exp.Subquery)) else None
    return _rename_by_alias(out, alias)


def _rename_by_alias(out: Output, alias: exp.Expression | None) -> Output:
    """Rename the first outputs to a table alias's column list; the rest keep their names."""
    if not isinstance(alias, exp.TableAlias) or not alias.columns:
        return out
    new_names = [_lower(c.name) for c in alias.columns]
    new_names += out.names[len(new_names) :]
    names: list[str] = []
    cols: dict[str, Lin] = {}
    exprs: dict[str, exp.Expression | str] = {}
    for old, new in zip(out.names, new_names):
        lin = out.cols[old]
        if old != new:
            lin = Lin(lin.sources, inherit(lin.kind, False), lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
        names.append(new)
        cols[new] = lin
        if old in out.exprs:
            exprs[new] = out.exprs[old]
    return Output(names, cols, exprs, out.opaque_reason, out.open_source, out.open_excluded)


def _named_by_own_columns(out: Output, own: list[str]) -> Output:
    """A ``select *`` over one relation of unknown columns: the model's own columns (from
    catalog.json or YAML) that no other part of the SELECT gives are that relation's, passed
    through. Only when every name the SQL gives is among the model's columns."""
    if not set(out.names) <= set(own) or any(n in out.open_excluded for n in own if n not in out.cols):
        return out
    source = out.open_source
    assert source is not None
    cols: dict[str, Lin] = {}
    exprs: dict[str, exp.Expression | str] = dict(out.exprs)
    for name in own:
        lin = out.cols.get(name)
        if lin is None:
            lin = source.get(name)
            if lin is None:
                return out
            exprs[name] = name
        cols[name] = lin
    return Output(list(own), cols, exprs)


def _file_read(table: exp.Table) -> str | None:
    """The file a FROM item reads: ``'data/x.csv'`` or ``read_parquet('s3://...')``."""
    this = table.this
    if isinstance(this, exp.Func):
        first = next((a for a in this.iter_expressions() if isinstance(a, exp.Literal) and a.is_string), None)
        return first.name if first is not None else None
    if isinstance(this, exp.Identifier) and this.quoted and not table.args.get("db") and ("/" in this.name or "." in this.name):
        return this.name
    return None


def _query_of(statement: exp.Expression) -> exp.Query | None:
    """The SELECT of a statement: itself, or the one of CREATE ... AS / INSERT ... SELECT."""
    if isinstance(statement, (exp.Create, exp.Insert)):
        statement = statement.expression
    while isinstance(statement, exp.Subquery) and not statement.alias:  # (SELECT ...)
        statement = statement.this
    return statement if isinstance(statement, exp.Query) else None


def _lateral_query(node: exp.Expression) -> exp.Query | None:
    """The SELECT of ``LATERAL (SELECT ...)``, else None."""
    if not isinstance(node, exp.Lateral):
        return None
    inner = node.this
    while isinstance(inner, exp.Subquery):
        inner = inner.this
    return inner if isinstance(inner, exp.Query) else None


def _explicitly_named(node: exp.Expression | str | None) -> bool:
    """An alias, a bare column or a star-expanded column: its name is not the warehouse's choice."""
    return node is None or isinstance(node, (str, exp.Alias, exp.Column, exp.Dot))


def _field_access(base: Lin) -> Lin:
    kind = UNKNOWN if base.kind == UNKNOWN else (DERIVED if base.sources or base.kind == DERIVED else base.kind)
    return Lin(base.sources, kind, base.resolved, base.reason)


_PATTERN_STARS = (exp.Columns, exp.Like, exp.ILike, exp.Glob, exp.SimilarTo)


def _column_filter(proj: exp.Expression) -> Callable[[str], bool] | None:
    """Which columns DuckDB's ``COLUMNS(...)`` or ``* LIKE/ILIKE/GLOB/SIMILAR TO`` selects,
    when that can be told from the SQL and the projection is the bare selection."""
    if isinstance(proj, exp.Columns) and not proj.args.get("unpack"):
        arg = proj.this
        if isinstance(arg, exp.Star):
            return lambda name: True
        if isinstance(arg, exp.Literal) and arg.is_string:
            try:
                pattern = re.compile(arg.this, re.IGNORECASE)
            except re.error:
                return None
            return lambda name: pattern.search(name) is not None
        if isinstance(arg, exp.Array) and all(isinstance(e, exp.Literal) for e in arg.expressions):
            wanted = {e.name.lower() for e in arg.expressions}
            return lambda name: name in wanted
        return None
    if isinstance(proj, (exp.Like, exp.ILike, exp.Glob, exp.SimilarTo)) and isinstance(proj.this, exp.Star):
        pat = proj.expression
        if not (isinstance(pat, exp.Literal) and pat.is_string):
            return None
        text = pat.this
        if isinstance(proj, exp.Glob):
            rx = fnmatch.translate(text)
        elif isinstance(proj, exp.SimilarTo):
            rx = f"(?:{text})\\Z"
        else:
            rx = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in text) + "\\Z"
        try:
            compiled = re.compile(rx, re.IGNORECASE | re.DOTALL)
        except re.error:
            return None
        return lambda name: compiled.match(name) is not None
    return None


def _star_of(proj: exp.Expression) -> exp.Star | None:
    if isinstance(proj, exp.Star):
        return proj
    if isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star):
        return proj.this
    if isinstance(proj, exp.Dot) and isinstance(proj.expression, exp.Star):  # (struct_col).*
        return proj.expression
    return None


def _ordinal_items(node: exp.Expression) -> Iterator[exp.Literal]:
    items: list[exp.Expression] = []
    if isinstance(node, exp.Group):
        items = list(node.expressions)
    elif isinstance(node, exp.Order):
        items = [o.this if isinstance(o, exp.Ordered) else o for o in node.expressions]
    for item in items:
        if isinstance(item, exp.Literal) and not item.is_string and item.name.isdigit():
            yield item


def _columns_in(node: exp.Expression) -> Iterator[exp.Column]:
    for sub, clause in _walk_value(node):
        if isinstance(sub, exp.Column) and clause is None and not isinstance(sub.this, exp.Star):
            yield sub


def _walk_value(
    node: exp.Expression, windows: dict[str, exp.Window] | None = None
) -> Iterator[tuple[exp.Expression, ConditionClause | None]]:
    """Walk an expression without entering subqueries (yielded whole) and telling window
    PARTITION BY / ORDER BY parts apart (yielded with the ``window`` clause). ``windows``
    are the query's named windows, for ``OVER w``."""
    stack: list[tuple[exp.Expression, ConditionClause | None]] = [(node, None)]
    bound: set[int] = set()  # ids of columns that are a comprehension's own variable
    while stack:
        cur, clause = stack.pop()
        if bound and id(cur) in bound:
            continue
        yield cur, clause
        if isinstance(cur, exp.Query):
            continue
        if isinstance(cur, exp.Comprehension):  # [x * 2 FOR x IN items IF x > 0]
            var = _lower(cur.expression.name) if cur.expression is not None else ""
            for key in ("this", "condition"):
                part = cur.args.get(key)
                if isinstance(part, exp.Expression):
                    bound.update(id(c) for c in part.find_all(exp.Column) if not c.table and _lower(c.name) == var)
        if isinstance(cur, exp.Window):
            ref = cur.args.get("alias")
            seen: set[str] = set()
            while windows and ref is not None and _lower(ref.name) not in seen:  # OVER w, w AS (w0 ...)
                seen.add(_lower(ref.name))
                named = windows.get(_lower(ref.name))
                if named is None:
                    break
                for key in ("partition_by", "order"):
                    value = named.args.get(key)
                    for child in value if isinstance(value, list) else [value]:
                        if isinstance(child, exp.Expression):
                            stack.append((child, ConditionClause.WINDOW))
                ref = named.args.get("alias")
            for key, value in cur.args.items():
                if value is None:
                    continue
                child_clause = ConditionClause.WINDOW if key in ("partition_by", "order") else clause
                for child in value if isinstance(value, list) else [value]:
                    if isinstance(child, exp.Expression):
                        stack.append((child, child_clause))
            continue
        for child in cur.iter_expressions():
            stack.append((child, clause))


def _short(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else type(e).__name__
