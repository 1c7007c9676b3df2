"""Condition lineage: the columns that filter, join, group or order a model's rows (WHERE,
JOIN ON / USING, GROUP BY, HAVING, QUALIFY, ORDER BY, window PARTITION BY / ORDER BY), kept
apart from the value lineage, and the walk of an expression that tells the two apart."""

from __future__ import annotations

from typing import Callable, Iterator

from sqlglot import exp

from catalog.analyze.kinds import Lin, Output, lower
from catalog.analyze.names import Names
from catalog.analyze.records import ConditionClause

# The value of a subquery inside the SELECT (``SelectScope.subquery_value``).
SubqueryValue = Callable[[exp.Query], Lin]

CONDITION_ARGS = (
    ("where", ConditionClause.WHERE),
    ("group", ConditionClause.GROUP_BY),
    ("having", ConditionClause.HAVING),
    ("qualify", ConditionClause.QUALIFY),
    ("order", ConditionClause.ORDER_BY),
)


class Conditions:
    """The conditions of one SELECT: its columns that join, filter, group or order the rows."""

    def __init__(self, names: Names, select: exp.Select, windows: dict[str, exp.Window], subquery_value: SubqueryValue):
        self.names = names
        self.ctx = names.ctx
        self.select = select
        self.windows = windows  # WINDOW w AS (...), by name
        self.subquery_value = subquery_value

    def collect(self, out: Output) -> None:
        """Add the SELECT's conditions to the model's; ``out`` is its output (for ordinals,
        GROUP BY ALL and ORDER BY of an output name)."""
        for join in self.select.args.get("joins") or []:
            on = join.args.get("on")
            if on is not None:
                self._condition_refs(on, ConditionClause.JOIN, out)
            match = join.args.get("match_condition")
            if match is not None:
                self._condition_refs(match, ConditionClause.JOIN, out)
        for arg, clause in CONDITION_ARGS:
            node = self.select.args.get(arg)
            if node is None:
                continue
            if arg == "group" and node.args.get("all"):
                for name in out.names:
                    proj = out.exprs.get(name)
                    if isinstance(proj, str) or (proj is not None and not proj.find(exp.AggFunc)):
                        self.ctx.add_conditions(out.cols[name], clause)
            self._condition_refs(node, clause, out)
        distinct = self.select.args.get("distinct")
        if distinct is not None and distinct.args.get("on") is not None:  # DISTINCT ON keys group the rows
            self._condition_refs(distinct.args["on"], ConditionClause.GROUP_BY, out)

    def _condition_refs(self, node: exp.Expression, clause: ConditionClause, out: Output) -> None:
        ordinal_ok = clause in (ConditionClause.GROUP_BY, ConditionClause.ORDER_BY)
        if ordinal_ok:
            for item in ordinal_items(node):
                idx = int(item.name) - 1
                if 0 <= idx < len(out.names):
                    self.ctx.add_conditions(out.cols[out.names[idx]], clause)
        by_output: set[int] = set()
        if clause == ConditionClause.ORDER_BY and isinstance(node, exp.Order):
            # ORDER BY <name> means the output column of that name before an input column
            for item in node.expressions:
                col = item.this if isinstance(item, exp.Ordered) else item
                if isinstance(col, exp.Column) and not col.table and self.ctx.col(col) in out.cols:
                    self.ctx.add_conditions(out.cols[self.ctx.col(col)], clause)
                    by_output.add(id(col))
        for sub, _ in walk_value(node, self.windows):
            if isinstance(sub, exp.Column) and not isinstance(sub.this, exp.Star):
                if id(sub) not in by_output:
                    self.ctx.add_conditions(self.names.resolve(sub, allow_alias=True), clause)
            elif isinstance(sub, exp.Query):
                self.ctx.add_conditions(self.subquery_value(sub), clause)
            elif isinstance(sub, exp.Parameter) and self.ctx.positional_params and not isinstance(sub.parent, exp.Column):
                self.ctx.add_conditions(self.names.positional(sub, ""), clause)


def ordinal_items(node: exp.Expression) -> Iterator[exp.Literal]:
    items: list[exp.Expression] = []
    if isinstance(node, exp.Group):
        items = list(node.expressions)
    elif isinstance(node, exp.Order):
        items = [o.this if isinstance(o, exp.Ordered) else o for o in node.expressions]
    for item in items:
        if isinstance(item, exp.Literal) and not item.is_string and item.name.isdigit():
            yield item


def walk_value(
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
            var = lower(cur.expression.name) if cur.expression is not None else ""
            for key in ("this", "condition"):
                part = cur.args.get(key)
                if isinstance(part, exp.Expression):
                    bound.update(id(c) for c in part.find_all(exp.Column) if not c.table and lower(c.name) == var)
        if isinstance(cur, exp.Window):
            ref = cur.args.get("alias")
            seen: set[str] = set()
            while windows and ref is not None and lower(ref.name) not in seen:  # OVER w, w AS (w0 ...)
                seen.add(lower(ref.name))
                named = windows.get(lower(ref.name))
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
