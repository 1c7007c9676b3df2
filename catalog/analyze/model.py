"""Column lineage of one model's SQL: parse once, walk sqlglot's scopes bottom-up, once.

Every output column gets its upstream columns (as dbt unique ids), its kind and whether it
was resolved. Columns used only to filter, join, group or order rows become conditions.

The walk does not call sqlglot's ``qualify``: it resolves each column reference itself
against the scope's sources (dbt relations with their catalog columns, CTEs, subqueries,
table functions), which is what makes one pass per model enough. The rules live by concern:

- ``kinds.py``: a column's lineage so far and how kinds combine and are inherited;
- ``context.py``: what the parts share: the model, its dialect's rules, the conditions found;
- ``names.py``: what a SELECT reads from and which relation a column reference means;
- ``stars.py``: ``select *`` and its variants, column alias lists;
- ``setops.py``: UNION and friends, recursive CTEs, VALUES, PIVOT / UNPIVOT;
- ``conditions.py``: condition lineage (WHERE, JOIN, GROUP BY, windows, ...);
- here: the entry point, the walk over the scopes, one SELECT's items and expressions, and
  the model's result.

Each part is an object or a function handed what it reads (a ``ModelContext``, a SELECT's
``Names``); none of them knows the analyzer.

Over 600 lines on purpose: the walk over the scopes and one SELECT's items are one recursion
(a subquery's result is a source of the SELECT around it); the rules it calls live apart, above.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Token, TokenType
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, build_scope

from catalog.analyze.conditions import Conditions, walk_value
from catalog.analyze.context import JSON_ARROW_DIALECTS, ModelContext
from catalog.analyze.fingerprint import TableColumns, definitions
from catalog.analyze.kinds import (
    DERIVED,
    PASS,
    RENAMED,
    SOURCE,
    UNKNOWN,
    ColumnsOf,
    Lin,
    Output,
    Ref,
    Selected,
    lower,
    merge,
    merge_window_refs,
    output_identifier,
)
from catalog.analyze.names import FromItem, Names, QueryItem, RelationItem, UnknownItem
from catalog.analyze.packed import Packed, PackedColumn, unpack
from catalog.analyze.records import ConditionClause, ModelLineage, ModelStatus
from catalog.analyze.relations import EPHEMERAL_PREFIX, RelationIndex
from catalog.analyze.setops import SetOperations, pivot_item, values_output
from catalog.analyze.stars import (
    PATTERN_STARS,
    aliased_columns,
    apply_alias_columns,
    column_filter,
    expand_star,
    named_by_own_columns,
    rename_by_alias,
    star_of,
)

# How deeply a model's SQL may nest parentheses (subqueries, function calls, expressions) and
# still be analyzed; deeper SQL is refused with that reason before it is parsed. Parsing and
# walking such SQL recurses a few dozen frames a level, in sqlglot and here, so the analysis
# runs with Python's recursion limit raised to what this depth needs (and set back after).
MAX_NESTING = 1000
_FRAMES_PER_LEVEL = 25
_RECURSION_LIMIT = 2_000 + MAX_NESTING * _FRAMES_PER_LEVEL


@contextmanager
def _room_for_nesting() -> Iterator[None]:
    old = sys.getrecursionlimit()
    if old >= _RECURSION_LIMIT:
        yield
        return
    sys.setrecursionlimit(_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _deepest(tokens: list[Token]) -> int:
    """How deeply the tokens nest parentheses."""
    depth = deepest = 0
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
            if depth > deepest:
                deepest = depth
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
    return deepest


SNAPSHOT_META_COLUMNS = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to", "dbt_is_deleted")


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
        table_columns: TableColumns | None = None,
        creates_relation: bool = True,
    ):
        self.unique_id = unique_id
        self.sql = sql
        self.dialect = dialect
        self.ctx = ModelContext(unique_id, dialect)
        self.col = self.ctx.col  # the column name an identifier means here
        self.relations = relations
        self.columns_of = columns_of
        self.output_names = output_names  # the model's real columns (catalog.json), to name unnamed expressions
        # the model's columns as catalog.json, else YAML, declares them: what a ``select *`` over
        # a relation of unknown columns yields
        self.own_names = own_names if own_names is not None else output_names
        # given: also make the definitions of the model's columns and rows (for ``prune --state``)
        self.table_columns = table_columns
        self.may_use_columns = "columns" in sql.lower()  # DuckDB's COLUMNS(...) star expression
        # a table or view (not an ephemeral model's CTE) is made of the SELECT's output
        self.creates_relation = creates_relation
        self._refusal: str | None = None  # why the warehouse refuses the model's output names
        self.memo: dict[int, Output] = {}  # id(scope) -> its output
        self._in_progress: dict[int, Output | None] = {}
        self.set_operations = SetOperations(self.ctx, self)

    # ----------------------------------------------------------------- entry point

    def run(self) -> ModelLineage:
        return unpack(self.run_packed())

    def run_packed(self) -> Packed:
        """The lineage in its plain-tuple form (see :mod:`catalog.analyze.packed`)."""
        with _room_for_nesting():
            try:
                return self._run_packed()
            except RecursionError:  # a shape deeper in sqlglot or here than its parentheses say
                return self._fail(ModelStatus.UNRESOLVED, f"SQL too deeply nested to analyze (at most {MAX_NESTING} levels)")

    def _run_packed(self) -> Packed:
        try:
            tokens = None
            if self.sql.count("(") > MAX_NESTING:  # only then can it be too deep: measure it
                tokens = Dialect.get_or_raise(self.dialect).tokenize(self.sql)
                depth = _deepest(tokens)
                if depth > MAX_NESTING:
                    reason = f"SQL nested {depth} parentheses deep: at most {MAX_NESTING} levels are analyzed"
                    return self._fail(ModelStatus.UNRESOLVED, reason)
            if tokens is None:
                parsed = sqlglot.parse(self.sql, read=self.dialect)
            else:
                parsed = Dialect.get_or_raise(self.dialect).parser().parse(tokens, self.sql)
            statements = [s for s in parsed if s is not None]
        except SqlglotError as e:
            return self._fail(ModelStatus.FAILED, f"cannot parse SQL: {_short(e)}")
        query = next((q for q in map(_query_of, reversed(statements)) if q is not None), None)
        if query is None:
            return self._fail(ModelStatus.UNRESOLVED, "no SELECT statement in the compiled SQL")
        query = self._drop_ephemeral_ctes(query)
        if self.dialect in JSON_ARROW_DIALECTS and "->" in self.sql:
            _json_arrows(query, self.dialect)
        root = build_scope(query)
        if root is None:
            return self._fail(ModelStatus.UNRESOLVED, "no query scope in the compiled SQL")
        out = self.scope_output(root)
        if self._refusal is not None and self.creates_relation and self.output_names is None:
            return self._fail(ModelStatus.FAILED, self._refusal)  # catalog.json would say it was made
        packed = self._lineage(out)
        if self.table_columns is None:
            return packed
        names = [c[0] for c in packed[3]]
        found, problem = definitions(query, names, self.dialect, self.relations, self.table_columns)
        return (*packed[:5], found, problem)

    def _fail(self, status: ModelStatus, reason: str) -> Packed:
        cols: list[PackedColumn] = [(n, UNKNOWN.value, False, "", (), reason) for n in (self.output_names or [])]
        return (self.unique_id, status.value, reason, cols, [], None, reason if self.table_columns is not None else None)

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

    def refuse_duplicate(self, name: str, first: exp.Expression | str, second: exp.Expression | str) -> None:
        """The model's SELECT gives ``name`` twice: a warehouse of ``REFUSING_DIALECTS`` refuses it."""
        if self.ctx.refuses_duplicates and self._refusal is None:
            spellings = [_spelling(p, self.dialect) for p in (first, second)]
            if spellings[0] == spellings[1]:  # two items of one alias: show the items
                spellings = [p if isinstance(p, str) else p.sql(dialect=self.dialect)[:40] for p in (first, second)]
            spelled = ", ".join(spellings)
            self._refusal = f"{self.dialect} refuses a table or view with two columns named {name!r} ({spelled})"

    def _is_known_ephemeral(self, name: str) -> bool:
        return name.lower().startswith(EPHEMERAL_PREFIX) and self.relations.ephemeral(name) is not None

    # ----------------------------------------------------------------- results

    def _lineage(self, out: Output) -> Packed:
        if out.opaque_reason and out.open_source is not None and self.own_names:
            out = named_by_own_columns(out, self.own_names)
        columns: list[PackedColumn] = []
        names = out.names
        if self.output_names and len(self.output_names) == len(names):
            # unnamed expressions get the name the warehouse gave them
            rename = {
                old: new
                for old, new in zip(names, self.output_names)
                if old != new and (old in out.renamed or not _explicitly_named(out.exprs.get(old)))
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
                        self.ctx.conditions.add((ref, ConditionClause.WHERE))
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
        conditions = sorted((u, c, clause.value) for (u, c), clause in self.ctx.conditions)
        if out.opaque_reason:
            status, reason = ModelStatus.UNRESOLVED if not columns else ModelStatus.PARTIAL, out.opaque_reason
        elif not unresolved:
            status, reason = ModelStatus.RESOLVED, None
        elif len(unresolved) == len(columns):
            status, reason = ModelStatus.UNRESOLVED, unresolved[0][5]
        else:
            status = ModelStatus.PARTIAL
            reason = f"{len(unresolved)} of {len(columns)} columns unresolved: {unresolved[0][5]}"
        return (this, status.value, reason, columns, conditions, None, None)

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

    def scope_output(self, scope: Scope, parent: Names | None = None) -> Output:
        """What a scope gives (worked out once): ``parent`` is the names of the SELECT it is
        read in, for correlated references."""
        key = id(scope)
        done = self.memo.get(key)
        if done is not None:
            return done
        recursive = self.set_operations.recursive_reference(scope)
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
                out = self.set_operations.output(scope, parent)
            elif isinstance(scope.expression, exp.Select):
                out = self._select(scope, parent)
            elif isinstance(scope.expression, exp.Values):
                out = values_output(scope, self.col)
            else:
                out = Output([], {}, opaque_reason=f"unsupported scope {type(scope.expression).__name__}")
        finally:
            self._in_progress.pop(key, None)
        out = apply_alias_columns(scope, out, self.col)
        self.memo[key] = out
        return out

    def _select(self, scope: Scope, parent: Names | None) -> Output:
        select = SelectScope(self, scope, parent)
        select.read_from_items()
        out = select.items()
        select.conditions.collect(out)
        return out

    # ----------------------------------------------------------------- helpers

    def relation_item(self, table: exp.Table) -> FromItem:
        path = _file_read(table)
        uid = self.relations.lookup_path(path) if path is not None else None
        if uid is not None:  # a dbt-duckdb external source, read by its file
            return RelationItem(uid, self.columns_of(uid))
        parts = tuple(lower(p.name) for p in table.parts)
        if isinstance(table.this, exp.Func) or not parts:
            return UnknownItem(f"table function {table.this.sql(dialect=self.dialect)[:60]}")
        uid = self.relations.lookup(parts)
        if uid is None:
            return UnknownItem(f"relation {'.'.join(parts)} is not a node of the dbt project")
        if uid == self.unique_id:
            return RelationItem(uid, self.columns_of(uid), self_ref=True)
        return RelationItem(uid, self.columns_of(uid), exact=self.relations.is_ephemeral(uid))

    def reads_external_source(self, table: exp.Table) -> bool:
        path = _file_read(table)
        return path is not None and self.relations.lookup_path(path) is not None


class SelectScope:
    """One SELECT of the model: the items it reads from, its own items and expressions. What
    its names mean is its ``names``; its conditions, its ``conditions``."""

    def __init__(self, analyzer: ModelAnalyzer, scope: Scope, parent: Names | None):
        self.analyzer = analyzer
        self.ctx = analyzer.ctx
        self.col = analyzer.col
        self.scope = scope
        self.select: exp.Select = scope.expression
        self.names = Names(analyzer.ctx, parent)
        self.subquery_scopes = {id(s.expression): s for s in scope.subquery_scopes}
        named = self.select.args.get("windows")  # WINDOW w AS (...)
        self.windows: dict[str, exp.Window] = {lower(w.name): w for w in named} if named else {}
        self.conditions = Conditions(self.names, self.select, self.windows, self.subquery_value)
        self.qualify: dict[str, tuple[str, frozenset[str]]] = {}  # see qualified_names

    # --------------------------------------------------------------- FROM and JOIN items

    def read_from_items(self) -> None:
        child_scopes: dict[str, Scope] = {}
        for name, src in self.scope.sources.items():
            if isinstance(src, Scope):
                child_scopes[lower(name)] = src
        from_ = self.select.args.get("from_")
        items: list[tuple[exp.Expression, exp.Join | None]] = []
        if from_ is not None:
            items.append((from_.this, None))
        for join in self.select.args.get("joins") or []:
            items.append((join.this, join))
        for lateral in self.select.args.get("laterals") or []:
            items.append((lateral, None))
        for node, join in items:
            self._add_item(node, join, child_scopes)

    def _add_item(self, node: exp.Expression, join: exp.Join | None, child_scopes: dict[str, Scope]) -> None:
        alias = lower(node.alias_or_name)
        lateral_query = _lateral_query(node)
        if lateral_query is not None and alias in child_scopes:  # LATERAL (SELECT ...): sees earlier relations
            inner = next((s for s in child_scopes[alias].subquery_scopes if s.expression is lateral_query), None)
            if inner is None:
                item: FromItem = UnknownItem("lateral subquery could not be analyzed")
            else:
                item = QueryItem(rename_by_alias(self.analyzer.scope_output(inner, self.names), node.args.get("alias"), self.col))
        elif isinstance(node, exp.Table) and self.analyzer.reads_external_source(node):
            item = aliased_columns(self.analyzer.relation_item(node), node, self.col)
            alias = alias if not isinstance(node.this, exp.Func) else (lower(node.alias) or f"__file_{len(self.names.items)}")
        elif isinstance(node, (exp.Unnest, exp.Lateral, exp.TableFromRows)) or (
            isinstance(node, exp.Table) and isinstance(node.this, exp.Func)
        ):
            item = self._function_item(node)
            alias = alias or f"__udtf_{len(self.names.items)}"
        elif alias in child_scopes:  # CTE, subquery in FROM, VALUES list
            item = QueryItem(self.analyzer.scope_output(child_scopes[alias], self.names))
        elif isinstance(node, exp.Table):
            item = aliased_columns(self.analyzer.relation_item(node), node, self.col)
        else:
            item = UnknownItem(f"unsupported FROM item {node.sql(dialect=self.ctx.dialect)[:60]}")
        for pivot in node.args.get("pivots") or []:
            item = pivot_item(item, pivot, self.ctx)
            pivot_alias = pivot.args.get("alias")
            if isinstance(item, QueryItem) and isinstance(pivot_alias, exp.TableAlias) and pivot_alias.columns:
                item = QueryItem(rename_by_alias(item.output, pivot_alias, self.col))  # PIVOT (...) AS p (c1, c2, ...)
            alias = lower(pivot.alias) or alias
        self.names.add(alias, item, join)

    def _function_item(self, node: exp.Expression) -> FromItem:
        """UNNEST, LATERAL FLATTEN, table functions: their columns derive from the arguments."""
        args = node
        if isinstance(node, (exp.Lateral, exp.TableFromRows)):
            args = node.this
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Func):
            args = node.this
        # computed from what the arguments read, scalar subqueries included
        # (generate_series((select min(d) from t), current_date)); generate_series(1, 3),
        # unnest([1, 2]): no upstream column, like a literal
        value = self._expression(args)
        lin = Lin(value.sources, value.kind, value.resolved, value.reason)
        alias = node.args.get("alias")
        col = self.col
        names = [col(c) for c in alias.columns] if isinstance(alias, exp.TableAlias) and alias.columns else None
        if names is None and isinstance(alias, exp.TableAlias) and alias.name and (
            isinstance(node, exp.Unnest) or (self.ctx.names_function_column and _one_column(node, args))
        ):
            names = [col(alias.this)]  # UNNEST(arr) AS x, generate_series(a, b) AS x: the column x
        offset = node.args.get("offset") if isinstance(node, exp.Unnest) else None
        if isinstance(offset, exp.Expression) and offset.name and names is not None:
            names = [*names, col(offset)]  # WITH OFFSET AS pos
        item = QueryItem(Output(names or [], {n: lin for n in (names or [])}), any_name=lin)
        item.names = names  # None: unknown, and any column read from it is the function's value
        return item

    def qualified_names(self) -> dict[str, tuple[str, frozenset[str]]]:
        """ClickHouse's names for columns of joined relations: ``{alias: (alias as written, the
        names its columns get as ``alias.name``)}``, empty in other dialects.

        As ClickHouse 26.9 creates the table (checked with chDB): over two relations, a column of
        the right one whose name the left one has; over three or more, every column whose name
        two of them have; and any column read by reference or star whose name is also the
        alias of a SELECT item. Relations of unknown columns take part only through the alias
        rule."""
        if not self.ctx.qualifies:
            return {}
        spelled: dict[str, str] = {}
        from_ = self.select.args.get("from_")
        for node in [from_.this if from_ else None, *(j.this for j in self.select.args.get("joins") or [])]:
            if isinstance(node, exp.Expression) and node.alias_or_name:
                spelled.setdefault(lower(node.alias_or_name), node.alias_or_name)
        col = self.col
        item_aliases = {col(p.args.get("alias")) for p in self.select.expressions if isinstance(p, exp.Alias)}
        known = {a: set(self.names.items[a].names or ()) for a in self.names.star_items}
        ambiguous: dict[str, set[str]] = {a: set() for a in known}
        if len(known) == 2:
            left, right = known
            ambiguous[right] = known[left] & known[right]
        elif len(known) > 2:
            seen: dict[str, int] = {}
            for names in known.values():
                for n in names:
                    seen[n] = seen.get(n, 0) + 1
            ambiguous = {a: {n for n in names if seen[n] > 1} for a, names in known.items()}
        return {a: (spelled.get(a, a), frozenset(ambiguous[a] | (known[a] & item_aliases) if known[a] else item_aliases)) for a in known}

    # --------------------------------------------------------------- its own items

    def items(self) -> Output:
        """The SELECT's output: its items in order, stars expanded."""
        top = self.scope.parent is None  # the model's own output
        selected = Selected(self.ctx.dedupes, (self.analyzer.output_names or ()) if top else ())
        cols = selected.cols
        self.qualify = self.qualified_names()
        opaque: str | None = None
        unexpanded: list[tuple[FromItem, frozenset[str]]] = []
        for i, proj in enumerate(self.select.expressions):
            star = star_of(proj)
            if star is not None:
                reason = expand_star(self.names, self.select, proj, star, selected, unexpanded, self.classify, self.qualify)
                opaque = opaque or reason
                continue
            if isinstance(proj, PATTERN_STARS) or (self.analyzer.may_use_columns and proj.find(exp.Columns)):
                keep = column_filter(proj, self.col)  # DuckDB: COLUMNS('regex'), * LIKE 'pattern'
                if keep is None:
                    opaque = opaque or f"{proj.sql(dialect=self.ctx.dialect)[:80]}: column list not expanded"
                    unexpanded.append((UnknownItem("COLUMNS(...) not expanded"), frozenset()))
                else:
                    reason = expand_star(self.names, self.select, proj, exp.Star(), selected, unexpanded, self.classify, self.qualify, keep)
                    opaque = opaque or reason
                continue
            name = self.col(output_identifier(proj)) or f"_col_{i}"
            if self.qualify and isinstance(proj, exp.Column) and proj.table:
                spelling, names = self.qualify.get(lower(proj.table), ("", frozenset()))
                if name in names:
                    name = f"{spelling}.{name}"  # ClickHouse: r.elo
            lin = self.classify(proj, name)
            before = cols.get(name)
            if before is not None and top and not selected.keeps_both(name):  # the model's output, named twice
                first = selected.exprs[name]
                if isinstance(first, exp.Expression) and (before.sources, before.kind, before.resolved) != (lin.sources, lin.kind, lin.resolved):
                    lin = self._named_twice(name, first, proj)  # two lineages for one column
            selected.add(name, lin, proj, explicit=True)
            if isinstance(proj, exp.Alias):
                self.names.aliases[name] = lin
        if top and selected.twice:
            self.analyzer.refuse_duplicate(*selected.twice[0])
        out = Output(selected.names, cols, selected.exprs, opaque, renamed=frozenset(selected.renamed))
        if opaque and len(unexpanded) == 1:
            out.open_source, out.open_excluded = unexpanded[0]
        return out

    def _named_twice(self, name: str, first: exp.Expression, second: exp.Expression) -> Lin:
        """Two output columns of the model with one name (``"ID"`` and ``id``, or ``a.id`` and
        ``b.id``): one column here, so neither lineage is given for it rather than a wrong one."""
        spelled = ", ".join(_spelling(p, self.ctx.dialect) for p in (first, second))
        return Lin(frozenset(), UNKNOWN, False, f"two output columns are named {name!r} ({spelled}): whose lineage is whose cannot be told")

    def classify(self, proj: exp.Expression, name: str) -> Lin:
        inner = proj.this if isinstance(proj, exp.Alias) else proj
        while isinstance(inner, exp.Paren):
            inner = inner.this
        bare_param = isinstance(inner, exp.Parameter) and self.ctx.positional_params
        if bare_param or (isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star)):
            names = self.names
            if bare_param:
                lin = names.positional(inner, "")
                inner_name = names.positional_name(inner, "")
            else:
                lin = names.resolve(inner)
                if isinstance(inner.this, exp.Parameter):
                    inner_name = names.positional_name(inner.this, inner.table.lower())
                else:
                    inner_name = self.col(inner.this)
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
        for sub, clause in walk_value(node, self.windows):
            if isinstance(sub, exp.Column):
                if isinstance(sub.this, exp.Star):
                    continue
                lin = self.names.resolve(sub)
                if clause is None:
                    parts.append(lin)
                else:
                    self.ctx.add_conditions(lin, clause)
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
            elif isinstance(sub, exp.Parameter) and self.ctx.positional_params and isinstance(sub.parent, exp.Expression):
                if not isinstance(sub.parent, exp.Column):  # Snowflake $1: the first column
                    lin = self.names.positional(sub, "")
                    if clause is None:
                        parts.append(lin)
                    else:
                        self.ctx.add_conditions(lin, clause)
                        window_refs |= lin.influences
            elif isinstance(sub, exp.Query):
                lin = self.subquery_value(sub)
                if clause is None:
                    parts.append(lin)
                    has_agg = has_agg or lin.kind == DERIVED
                else:
                    self.ctx.add_conditions(lin, clause)
        sources, resolved, reason = merge(parts)
        refs = frozenset(window_refs) | merge_window_refs(parts)
        if parts and not resolved and not sources:
            return Lin(sources, UNKNOWN, False, reason, refs, node)
        if sources or has_agg or refs or any(p.kind == DERIVED for p in parts):
            # a wrapped aggregate of its own (coalesce(w.wins, 0) over count(*)) stays derived
            return Lin(sources, DERIVED, resolved, reason, refs, node)
        return Lin(sources, SOURCE if resolved else UNKNOWN, resolved, reason, refs, node)

    def subquery_value(self, query: exp.Query) -> Lin:
        """The value of a subquery in an expression: computed from what its output reads."""
        scope = self.subquery_scopes.get(id(query))
        if scope is None and isinstance(query, exp.Subquery):
            scope = self.subquery_scopes.get(id(query.this))
        if scope is None:
            return Lin(frozenset(), UNKNOWN, False, "subquery could not be analyzed")
        out = self.analyzer.scope_output(scope, self.names)
        sources, resolved, reason = merge(out.cols.values())
        if sources or any(lin.kind == DERIVED for lin in out.cols.values()):
            kind = DERIVED  # a subquery's value is computed, e.g. (select count(*) ...)
        else:
            kind = SOURCE if resolved else UNKNOWN
        return Lin(sources, kind, resolved, reason)


def _spelling(proj: exp.Expression | str, dialect: str) -> str:
    """How a projection's name is written: ``"ID"``, ``id``, ``a.id`` (of ``a.*``)."""
    if isinstance(proj, str):
        return proj
    ident = proj.args.get("alias") if isinstance(proj, exp.Alias) else None
    if isinstance(ident, exp.Identifier):
        return ident.sql(dialect=dialect)
    return proj.sql(dialect=dialect)[:40]


def _file_read(table: exp.Table) -> str | None:
    """The file a FROM item reads: ``'data/x.csv'`` or ``read_parquet('s3://...')``."""
    this = table.this
    if isinstance(this, exp.Func):
        first = next((a for a in this.iter_expressions() if isinstance(a, exp.Literal) and a.is_string), None)
        return first.name if first is not None else None
    if isinstance(this, exp.Identifier) and this.quoted and not table.args.get("db") and ("/" in this.name or "." in this.name):
        return this.name
    return None


# functions whose lambda argument is a lambda in a dialect of JSON arrows too (DuckDB's list_transform)
_HIGHER_ORDER = (exp.Transform, exp.ArrayFilter, exp.ArrayAll, exp.ArrayAny, exp.Reduce, exp.ArraySort)


def _json_arrows(query: exp.Query, dialect: str) -> None:
    """``f(col -> 'key', ...)``: sqlglot reads a function's argument ``col -> 'key'`` as a lambda
    of parameter ``col`` returning ``'key'``. In a dialect where ``->`` extracts JSON, such a
    "lambda" that never reads its parameter and starts with a literal is that extraction: put the
    column back (``col -> 'a' ->> 'b'``, ``col -> 'k' = 'v'`` included)."""
    for lam in list(query.find_all(exp.Lambda)):
        params = lam.expressions
        if len(params) != 1 or not isinstance(params[0], exp.Identifier) or isinstance(lam.parent, _HIGHER_ORDER):
            continue
        param = params[0]
        name = param.name.lower()
        if any(i.name.lower() == name for i in lam.this.find_all(exp.Identifier)):
            continue  # x -> x + 1: a lambda
        first = lam.this
        while not isinstance(first, exp.Literal) and isinstance(first.args.get("this"), exp.Expression):
            first = first.args["this"]
        if not isinstance(first, exp.Literal):
            continue
        try:
            extract = sqlglot.parse_one(f"{param.sql(dialect=dialect)} -> {first.sql(dialect=dialect)}", read=dialect)
        except SqlglotError:
            continue
        body = lam.this
        if first is body:
            lam.replace(extract)
        else:
            first.replace(extract)
            lam.replace(body)


# set-returning functions of one column (Postgres, DuckDB), besides UNNEST
_ONE_COLUMN_FUNCTIONS = (exp.GenerateSeries, exp.ExplodingGenerateSeries)
_ONE_COLUMN_NAMES = frozenset(
    {"generate_series", "range", "generate_subscripts", "regexp_split_to_table", "string_to_table", "json_object_keys", "jsonb_object_keys", "regexp_matches"}
)


def _one_column(node: exp.Expression, func: exp.Expression) -> bool:
    """Whether FROM item ``node``, ``[LATERAL] func(...) AS x``, is a function of one column
    (which ``x`` then names), with no ``WITH ORDINALITY``."""
    if node.args.get("ordinality") or func.args.get("offset"):
        return False
    if isinstance(func, exp.Anonymous):
        return func.name.lower() in _ONE_COLUMN_NAMES
    if isinstance(func, exp.Unnest):
        return len(func.expressions) == 1  # unnest(a, b): a column of each
    return isinstance(func, _ONE_COLUMN_FUNCTIONS)


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


def _short(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else type(e).__name__
