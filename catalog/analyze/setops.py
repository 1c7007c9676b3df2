"""Set operations (UNION / INTERSECT / EXCEPT, BY NAME, recursive CTEs), VALUES lists and
PIVOT / UNPIVOT: relations whose columns come from several branches or from the data's shape."""

from __future__ import annotations

from typing import Container, Protocol

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from catalog.analyze.kinds import (
    DERIVED,
    PASS,
    RENAMED,
    SOURCE,
    UNKNOWN,
    ColumnNamer,
    Lin,
    Output,
    merge,
    merge_window_refs,
    same_lineage,
)
from catalog.analyze.context import ModelContext
from catalog.analyze.names import FromItem, Names, QueryItem, UnknownItem
from catalog.analyze.records import ConditionClause
from catalog.analyze.stars import apply_alias_columns

RECURSION_LIMIT = 20  # passes over a recursive CTE's recursive part


class ScopeWalk(Protocol):
    """The walk over a model's scopes (``ModelAnalyzer``): each scope's output, worked out once."""

    memo: dict[int, Output]  # id(scope) -> its output

    def scope_output(self, scope: Scope, parent: Names | None = None) -> Output: ...


class SetOperations:
    """Scopes made of branches: UNION / INTERSECT / EXCEPT and recursive CTEs of one model."""

    def __init__(self, ctx: ModelContext, walk: ScopeWalk):
        self.ctx = ctx
        self.walk = walk
        self.col: ColumnNamer = ctx.col
        self.recursive_base: dict[int, Output] = {}  # a recursive CTE's output so far
        self.recursive_hits = 0  # how often a recursive CTE's reference to itself was read

    def recursive_reference(self, scope: Scope) -> Output | None:
        """sqlglot gives a recursive CTE's reference to itself a scope of the anchor alone."""
        if not self.recursive_base or not scope.is_cte:
            return None
        node = scope.expression.parent
        while isinstance(node, exp.SetOperation):
            base = self.recursive_base.get(id(node))
            if base is not None:
                self.recursive_hits += 1
                return base
            node = node.parent
        return None

    def output(self, scope: Scope, parent: Names | None) -> Output:
        branches = scope.set_operation_scopes
        # a long chain (a UNION b UNION c ...) is a left-deep tree: its inner set operations
        # are analyzed from the innermost out, so no recursion follows the chain
        for inner in reversed(left_chain(branches[0], self.walk.memo)):
            self.walk.scope_output(inner, parent)
        left = self.walk.scope_output(branches[0], parent)
        key = id(scope.expression)
        if scope.is_cte:  # a recursive CTE's own reference sees its base case first
            self.recursive_base[key] = apply_alias_columns(scope, left, self.col)
        hits = self.recursive_hits
        out = self._combine(scope, left, [self.walk.scope_output(b, parent) for b in branches[1:]])
        if scope.is_cte and self.recursive_hits > hits:
            # it reads itself: iterate until its columns' lineage stops growing
            for _ in range(RECURSION_LIMIT):
                self.recursive_base[key] = apply_alias_columns(scope, out, self.col)
                for branch in branches[1:]:
                    for inner in branch.traverse():
                        self.walk.memo.pop(id(inner), None)
                again = self._combine(scope, left, [self.walk.scope_output(b, parent) for b in branches[1:]])
                if same_lineage(again, out):
                    break
                out = again
            else:  # never seen in practice; say so rather than give a lineage that may lack edges
                reason = f"recursive CTE lineage did not settle after {RECURSION_LIMIT} passes"
                out.cols = {n: Lin(lin.sources, lin.kind, False, reason, lin.window_refs) for n, lin in out.cols.items()}
        # ORDER BY on the whole set operation refers to output names
        order = scope.expression.args.get("order")
        if order:
            for col in order.find_all(exp.Column):
                lin = out.cols.get(self.col(col))
                if lin:
                    self.ctx.add_conditions(lin, ConditionClause.ORDER_BY)
        return out

    def _combine(self, scope: Scope, left: Output, rest: list[Output]) -> Output:
        """Column i from column i of every branch (or by name for UNION BY NAME)."""
        outputs = [left, *rest]
        by_name = bool(scope.expression.args.get("by_name"))
        # a branch that is ``select *`` over one relation of unknown columns gives the names
        # the other branches give, as that relation's columns
        open_ = {id(o) for o in outputs if _star_over_unknown(o)}
        named = next((o for o in outputs if id(o) not in open_), None) if open_ else None
        names = list(left.names if named is None or id(left) not in open_ else named.names)
        if by_name:
            for o in rest:
                names.extend(n for n in o.names if n not in names)
        cols: dict[str, Lin] = {}
        exprs: dict[str, exp.Expression | str] = {}
        for i, name in enumerate(names):
            parts: list[Lin] = []
            for o in outputs:
                other = name if by_name else (o.names[i] if i < len(o.names) else None)
                if named is not None and id(o) in open_:
                    if name not in o.open_excluded and o.open_source is not None:
                        parts.append(o.open_source.get(name) or Lin(frozenset(), UNKNOWN, False, o.opaque_reason))
                elif other is not None and other in o.cols:
                    lin = o.cols[other]
                    if other != name and lin.kind == PASS:  # bare under another name: a rename
                        lin = Lin(lin.sources, RENAMED, lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
                    parts.append(lin)
            sources, resolved, reason = merge(parts)
            # a branch computing the value over columns of unknown origin still computes it
            kinds = {DERIVED if computed_unknown(p) else p.kind for p in parts}
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
        opaque = next((o.opaque_reason for o in outputs if o.opaque_reason and (named is None or id(o) not in open_)), None)
        return Output(names, cols, exprs, opaque, renamed=left.renamed)


def values_output(scope: Scope, col: ColumnNamer) -> Output:
    """A VALUES list: its columns are literals, named by its alias list or column1, column2, ..."""
    values: exp.Values = scope.expression
    alias = values.args.get("alias")
    names = [col(c) for c in alias.columns] if alias and alias.columns else []
    if not names and values.expressions:
        first = values.expressions[0]
        width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
        names = [f"column{i + 1}" for i in range(width)]
    return Output(names, {n: Lin(frozenset(), SOURCE) for n in names})


def _star_over_unknown(out: Output) -> bool:
    """A branch that is ``select *`` (nothing else) over one relation whose columns are unknown."""
    return bool(out.opaque_reason) and out.open_source is not None and not out.names


def computed_unknown(lin: Lin) -> bool:
    """An expression (``md5(x)``, not a bare column) over columns whose origin is unknown."""
    return lin.kind == UNKNOWN and lin.defined_by is not None and not isinstance(lin.defined_by, exp.Column)


def left_chain(scope: Scope, done: Container[int] = ()) -> list[Scope]:
    """``scope`` and its first branches, outermost first, while they are set operations not
    in ``done`` (ids of scopes already worked out): sqlglot parses ``a UNION b UNION c`` as
    ``(a UNION b) UNION c``, so a chain of n branches is n - 1 levels deep on its left."""
    chain: list[Scope] = []
    while isinstance(scope.expression, exp.SetOperation) and id(scope) not in done and scope.set_operation_scopes:
        chain.append(scope)
        scope = scope.set_operation_scopes[0]
    return chain


def pivot_item(base: FromItem, pivot: exp.Pivot, ctx: ModelContext) -> FromItem:
    """The relation a PIVOT or UNPIVOT makes of ``base``, when its columns can be known."""
    what = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT"
    if base.names is None:
        return UnknownItem(f"{what} over a relation whose columns are unknown")
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In):
        return UnknownItem(f"{what} with {len(fields)} FOR columns is not resolved")
    field = fields[0]
    values = [v.this if isinstance(v, exp.PivotAlias) else v for v in field.expressions]
    if not values or any(isinstance(v, (exp.PivotAny, exp.Query, exp.Subquery)) for v in values):
        return UnknownItem(f"{what} over values known only from the data (ANY or a subquery)")

    def lin_of(node: exp.Expression) -> Lin:
        refs = [base.get(ctx.col(c)) for c in node.find_all(exp.Column)]
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
        out_cols = [ctx.col(c) for c in pivot.args.get("columns") or []]
        if not aggs or len(out_cols) != len(values) * len(aggs):
            return UnknownItem("PIVOT output columns could not be named")
        used = {ctx.col(c) for a in aggs for c in a.find_all(exp.Column)} | {ctx.col(field.this)}
        for n in base.names:
            if n not in used:  # the implicit GROUP BY
                lin = base.get(n)
                if lin is not None:
                    add(n, lin)
                    ctx.add_conditions(lin, ConditionClause.GROUP_BY)
        key = lin_of(field.this)
        agg_lins = [lin_of(a) for a in aggs]
        for i, name in enumerate(out_cols):
            agg = agg_lins[i % len(aggs)]  # value-major: v1_agg1, v1_agg2, v2_agg1, ...
            sources, resolved, reason = merge((agg, key))
            add(name, Lin(sources, DERIVED, resolved, reason))
        return QueryItem(Output(names, cols))

    value_names = [
        ctx.col(v) for e in pivot.expressions for v in (e.expressions if isinstance(e, exp.Tuple) else [e])
    ]
    if isinstance(field.this, exp.Tuple):
        return UnknownItem("UNPIVOT with several name columns is not resolved")
    groups = [list(v.expressions) if isinstance(v, exp.Tuple) else [v] for v in values]
    if not value_names or any(len(g) != len(value_names) for g in groups):
        return UnknownItem("UNPIVOT value and name columns do not line up")
    unpivoted = {ctx.col(c) for g in groups for c in g for c in c.find_all(exp.Column)}
    for n in base.names:
        if n not in unpivoted:
            lin = base.get(n)
            if lin is not None:
                add(n, lin)
    add(ctx.col(field.this), Lin(frozenset(), SOURCE))  # the unpivoted columns' names
    for i, name in enumerate(value_names):
        sources, resolved, reason = merge(lin_of(g[i]) for g in groups)
        # like a UNION ALL of one bare column per branch: renamed if all are bare
        bare = [base.get(ctx.col(g[i])) if isinstance(g[i], exp.Column) else None for g in groups]
        kind = RENAMED if all(b is not None and b.kind in (PASS, RENAMED) for b in bare) else DERIVED
        add(name, Lin(sources, kind, resolved, reason))
    return QueryItem(Output(names, cols))
