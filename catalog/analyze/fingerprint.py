"""Fingerprints of a model's SQL: per output column, a hash of the definition of its value
(its expression, with every column read from a CTE or subquery replaced by that column's own
definition, down to the model's input relations), and a hash of what decides its rows.

Two versions of a model compare equal here when only formatting, comments, table aliases or
CTE names differ. ``prune --state`` asks the analyzer for them (``analyze_project(
fingerprints=...)``), which makes them from the tree it parsed: no model is parsed twice.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.scope import Scope, build_scope

from catalog.analyze.kinds import column_namer
from catalog.analyze.records import Definitions
from catalog.analyze.relations import RelationIndex
from catalog.analyze.setops import left_chain
from catalog.idents import typed

TableColumns = Callable[[str], "set[str] | None"]  # a relation's known column names, or None


def definitions(
    query: exp.Query, names: list[str], dialect: str, relations: RelationIndex, table_columns: TableColumns
) -> tuple[Definitions | None, str | None]:
    """The definitions of a model's output columns ``names`` and of its rows, from the query
    the analyzer parsed (and is done with: identifiers are normalized in place), or why not."""
    try:
        return _ModelFingerprint(dialect, relations, table_columns).run(query, names), None
    except (SqlglotError, RecursionError, ValueError) as e:
        return None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _h(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:20]


class _ModelFingerprint:
    """Walks one model's scopes once: per output column the definition of its value (its
    expression, with every column read from a CTE or subquery replaced by that column's own
    definition, down to the model's input relations), and the definition of its rows."""

    def __init__(self, dialect: str, relations: RelationIndex, table_columns: TableColumns):
        self.dialect = dialect
        self.col = column_namer(dialect)  # names as the analysis gives them (catalog.idents)
        self.relations = relations
        self.table_columns = table_columns
        self._d: dict[tuple[int, str], str] = {}
        self._r: dict[int, str] = {}
        self._v: dict[int, dict[int, str]] = {}  # index -> scope -> value of a set operation's column
        self._n: dict[int, tuple[list[str], bool]] = {}
        self._p: dict[int, list[tuple[str, str | exp.Expression]] | None] = {}
        self._busy: set[tuple] = set()

    def run(self, query: exp.Query, names: list[str]) -> Definitions:
        clauses = self._clauses(query)
        query = normalize_identifiers(query, dialect=self.dialect)
        root = build_scope(query)
        if root is None:
            raise ValueError("no query scope")
        return Definitions(rows=self.rows(root), columns={n: self.value(typed(n), root) for n in names}, clauses=clauses)

    def _clauses(self, query: exp.Query) -> tuple[tuple[str, str, str], ...]:
        """The conditions of every SELECT as written: what a reader is told when the rows'
        definition changed."""
        out = []
        for e in query.find_all(exp.Select):
            holder = e.parent
            where = holder.alias_or_name if isinstance(holder, (exp.CTE, exp.Subquery)) else ""
            for join in e.args.get("joins") or []:
                if join.args.get("on") is not None:
                    out.append((where, f"JOIN {join.this.alias_or_name} ON", self._sql(join.args["on"])))
            for arg, clause in (("where", "WHERE"), ("group", "GROUP BY"), ("having", "HAVING"), ("qualify", "QUALIFY")):
                node = e.args.get(arg)
                if node is not None:
                    out.append((where, clause, self._sql(node).removeprefix("GROUP BY ") if arg == "group" else self._sql(node.this)))
        return tuple(out)

    def _sql(self, node: exp.Expression) -> str:
        try:
            return node.sql(dialect=self.dialect, comments=False)
        except SqlglotError:
            return node.sql(comments=False)

    # ------------------------------------------------------------------ outputs of a scope
    @staticmethod
    def _projections(scope: Scope) -> list[exp.Expression]:
        return list(scope.expression.expressions) if isinstance(scope.expression, exp.Select) else []

    def _names(self, scope: Scope) -> tuple[list[str], bool]:
        """Output names of a scope, and whether a star makes the list incomplete."""
        known = self._n.get(id(scope))
        if known is not None:
            return known
        e = scope.expression
        if isinstance(e, exp.SetOperation):  # the first branch's names
            first = self._first_branch(scope)
            known = self._n[id(scope)] = ([], True) if first is scope else self._names(first)
            return known
        if not isinstance(e, exp.Select):
            return [], True
        names, star = [], False
        for p in e.expressions:
            if _is_star(p):
                star = True
            else:
                names.append(self._own_name(p))
        self._n[id(scope)] = (names, star)
        return names, star

    @staticmethod
    def _first_branch(scope: Scope) -> Scope:
        """The first branch of a set operation, down a chain without recursion."""
        while isinstance(scope.expression, exp.SetOperation) and scope.set_operation_scopes:
            scope = scope.set_operation_scopes[0]
        return scope

    def _positions(self, scope: Scope) -> list[tuple[str, str | exp.Expression]] | None:
        """A SELECT's outputs in order: (name, its projection), a plain star expanded to
        (name, what it reads) over CTEs and subqueries of known columns; None when a star's
        columns are not known (``select *, 'x' as run`` in a UNION branch reads as its columns)."""
        key = id(scope)
        if key in self._p:
            return self._p[key]
        out: list[tuple[str, str | exp.Expression]] | None = [] if isinstance(scope.expression, exp.Select) else None
        for p in self._projections(scope):
            if out is None:
                break
            if not _is_star(p):
                out.append((self._own_name(p), p))
                continue
            star = p.this if isinstance(p, exp.Column) else p
            table = p.table if isinstance(p, exp.Column) else ""
            sources = [scope.sources.get(table)] if table else [s for _, s in scope.selected_sources.values()]
            if any(star.args.values()) or not all(isinstance(s, Scope) and not self._names(s)[1] for s in sources):
                out = None
                continue
            out += [(n, self._source_token(s, n)) for s in sources for n in self._names(s)[0]]
        self._p[key] = out
        return out

    def _may_have(self, source: Any, name: str) -> bool:
        if isinstance(source, Scope):
            names, star = self._names(source)
            return name in names or star
        if isinstance(source, exp.Table):
            uid = self._table_uid(source)
            cols = self.table_columns(uid) if uid else None
            return cols is None or name in cols
        return True

    def _has(self, source: Any, name: str) -> bool:
        """Whether a relation surely has the column: then a projection reading the name reads
        that column, not another projection's alias (as the analysis resolves it)."""
        if isinstance(source, exp.Table):
            uid = self._table_uid(source)
            cols = self.table_columns(uid) if uid else None
            return cols is not None and name in cols
        if not isinstance(source, Scope) or not isinstance(source.expression, exp.Select):
            return False
        names, _ = self._names(source)
        if name in names:
            return True
        for p in self._projections(source):
            star = p.this if isinstance(p, exp.Column) else p
            if not _is_star(p) or any(star.args.values()):  # EXCLUDE, REPLACE, RENAME: not followed
                continue
            table = p.table if isinstance(p, exp.Column) else ""
            inner = [source.sources.get(table)] if table else [s for _, s in source.selected_sources.values()]
            if any(self._has(s, name) for s in inner):
                return True
        return False

    # ------------------------------------------------------------------ value of a column
    def value(self, name: str, scope: Scope) -> str:
        key = (id(scope), name)
        if key in self._d:
            return self._d[key]
        if key in self._busy:
            return _h("recursive", name)
        self._busy.add(key)
        try:
            e = scope.expression
            if isinstance(e, exp.SetOperation):
                names = [n for n, _ in self._positions(self._first_branch(scope)) or ()]
                out = self._value_at(names.index(name), scope) if name in names else _h("all", self.whole(scope))
            elif isinstance(e, exp.Select):
                out = self._select_value(name, scope)
            else:
                out = _h("opaque", self.whole(scope))
        finally:
            self._busy.discard(key)
        self._d[key] = out
        return out

    def _select_value(self, name: str, scope: Scope) -> str:
        """A bare column passed through under its own name (``x``, ``t.x`` or a star) reads
        the same whichever way it is written; anything else is its canonical expression."""
        projections = self._projections(scope)
        for p in projections:
            if not _is_star(p) and self._own_name(p) == name:
                inner = _unalias(p)
                if isinstance(inner, exp.Column) and self.col(inner) == name:
                    return _h("pass", self._column_token(inner, scope, own=name))
                return _h("col", self.canon(inner, scope, own=name), self._windows(scope))
        tokens: set[str] = set()
        modifiers = []
        for p in projections:
            if not _is_star(p):
                continue
            star = p.this if isinstance(p, exp.Column) else p
            args = {k: v for k, v in star.args.items() if v}
            replaced = {self._own_name(r): r for r in args.pop("replace", [])}
            renamed = {self._own_name(r): _unalias(r) for r in args.pop("rename", [])}
            excluded = {self.col(c) for c in args.pop("except_", []) if isinstance(c, exp.Column)}
            if name in replaced:  # * REPLACE (expr AS name)
                return _h("col", self.canon(_unalias(replaced[name]), scope, own=name), self._windows(scope))
            source_name = self.col(renamed[name]) if name in renamed and isinstance(renamed[name], exp.Column) else name
            if source_name in excluded or (name not in renamed and name in {self.col(r) for r in renamed.values() if isinstance(r, exp.Column)}):
                continue  # * EXCLUDE (name), or renamed away by * RENAME
            table = p.table if isinstance(p, exp.Column) else ""
            sources = {table: scope.sources.get(table)} if table else {a: s for a, (_, s) in scope.selected_sources.items()}
            for src in sources.values():
                if self._may_have(src, source_name):
                    tokens.add(self._source_token(src, source_name))
            if args:  # a star modifier not understood here: keep all of it
                modifiers.append(self.canon(p, scope))
        if not tokens:
            return _h("unknown", name)
        return _h("pass", "|".join(sorted(tokens)), *modifiers)

    def _source_token(self, src: Any, name: str) -> str:
        if isinstance(src, Scope):
            return "d:" + self.value(name, src)
        if isinstance(src, exp.Table):
            return f"c:{self._table_id(src)}.{name}"
        return "x:" + name

    def _value_at(self, index: int, scope: Scope) -> str:
        e = scope.expression
        if isinstance(e, exp.SetOperation):
            # a chain of set operations, from its innermost one out: no recursion follows it
            done = self._v.setdefault(index, {})
            chain = left_chain(scope, done)
            below = done.get(id(chain[-1].set_operation_scopes[0])) if chain else None
            for s in reversed(chain):
                branches = s.set_operation_scopes
                values = [below if i == 0 and below is not None else self._value_at(index, b) for i, b in enumerate(branches)]
                below = done[id(s)] = _h("setop", *values)
            return done[id(scope)]
        positions = self._positions(scope)
        if positions is None or index >= len(positions):
            return _h("all", self.whole(scope))
        name, p = positions[index]
        if isinstance(p, str):  # a column a star passes on
            return _h("pass", p)
        return _h("col", self.canon(_unalias(p), scope, own=name), self._windows(scope))

    def _windows(self, scope: Scope) -> str:
        windows = scope.expression.args.get("windows") if isinstance(scope.expression, exp.Select) else None
        return "|".join(self.canon(w, scope) for w in windows) if windows else ""

    # ------------------------------------------------------------------ rows of a scope
    def rows(self, scope: Scope) -> str:
        key = id(scope)
        if key in self._r:
            return self._r[key]
        if isinstance(scope.expression, exp.SetOperation):  # a chain: its inner set operations first
            for inner in reversed(left_chain(scope, self._r)[1:]):
                self.rows(inner)
        if ("rows", key) in self._busy:
            return _h("recursive rows")
        self._busy.add(("rows", key))
        try:
            out = self._rows(scope)
        finally:
            self._busy.discard(("rows", key))
        self._r[key] = out
        return out

    def _rows(self, scope: Scope) -> str:
        e = scope.expression
        limited = any(e.args.get(k) for k in ("limit", "offset", "fetch"))
        skip = {"expressions", "with_", "windows"} | (set() if limited else {"order"})
        if isinstance(e, exp.SetOperation):
            skip |= {"this", "expression"}  # the branches: their own rows below
        parts = [type(e).__name__]
        for arg, value in sorted(e.args.items()):
            if arg in skip or value is None or value is False or value == []:
                continue
            if arg == "group" and isinstance(e, exp.Select):
                parts.append("group:" + self._group_keys(value, scope))
                continue
            if arg == "distinct" and isinstance(e, exp.Select) and not value.args.get("on"):
                parts.append("distinct:" + ",".join(self.value(n, scope) for n in self._names(scope)[0]))
                parts.append(",".join(self.canon(p, scope) for p in self._projections(scope) if _is_star(p)))
                continue
            if isinstance(value, list):
                parts.append(f"{arg}:" + "|".join(self.canon(v, scope) if isinstance(v, exp.Expression) else str(v) for v in value))
            elif isinstance(value, exp.Expression):
                parts.append(f"{arg}:" + self.canon(value, scope))
            else:
                parts.append(f"{arg}:{value}")
        if isinstance(e, exp.Select):
            parts += sorted(f"source:{self.rows(src)}" for _, src in scope.selected_sources.values() if isinstance(src, Scope))
        elif isinstance(e, exp.SetOperation):
            branches = scope.set_operation_scopes
            parts += [f"branch:{self.rows(b)}" for b in branches]
            if e.args.get("distinct"):
                parts += [f"distinct:{self.whole(b)}" for b in branches]
        return _h(*parts)

    def _group_keys(self, group: exp.Group, scope: Scope) -> str:
        """GROUP BY keys; ``GROUP BY 1`` and ``GROUP BY col`` naming a bare projection read the
        same, and ``GROUP BY ALL`` groups by every projection without an aggregate."""
        projections = self._projections(scope)
        by_name = {self._own_name(p): p for p in projections if not _is_star(p)}
        keys = []
        for g in group.expressions:
            p = None
            if isinstance(g, exp.Literal) and g.is_int and 0 < int(g.this) <= len(projections):
                p = projections[int(g.this) - 1]
            elif isinstance(g, exp.Column) and not g.table and self.col(g) in by_name:
                cand = by_name[self.col(g)]
                if isinstance(_unalias(cand), exp.Column) and self.col(_unalias(cand)) == self.col(g):
                    p = cand
            if p is not None and not _is_star(p):
                keys.append(self.canon(_unalias(p), scope, own=self._own_name(p)))
            else:
                keys.append(self.canon(g, scope))
        for arg, value in sorted(group.args.items()):
            if arg == "expressions" or not value:
                continue
            if arg == "all":
                keys.append("all:" + ",".join(self.value(n, scope) for n, p in by_name.items() if not _aggregates(p)))
            else:
                keys.append(f"{arg}:" + "|".join(self.canon(v, scope) for v in (value if isinstance(value, list) else [value])))
        return ",".join(keys)

    def whole(self, scope: Scope) -> str:
        """Rows and every column of a scope."""
        names, star = self._names(scope)
        parts = [self.rows(scope)] + [self.value(n, scope) for n in names]
        if star and isinstance(scope.expression, exp.Select):
            parts += [self.canon(p, scope) for p in self._projections(scope) if _is_star(p)]
        return _h("whole", *parts)

    # ------------------------------------------------------------------ canonical text
    def canon(self, node: exp.Expression, scope: Scope, own: str | None = None) -> str:
        """The SQL of ``node`` with column references replaced by their definitions, tables by
        unique ids and nested queries by their definitions: stable across formatting, comments,
        table aliases and CTE names. ``own``: the projection's own name (not a lateral alias)."""
        children = {}
        for child in scope.subquery_scopes + scope.derived_table_scopes + scope.udtf_scopes:
            children[id(child.expression)] = child
        replace: list[tuple[exp.Expression, str]] = []

        def nested(e: exp.Expression) -> bool:  # a nested query: it becomes one token, unread
            return e is not node and (id(e) in children or (isinstance(e, exp.Subquery) and id(e.this) in children))

        # the walk stops at nested queries, so SQL nested n levels deep costs n walks, not n²
        for orig in node.walk(prune=nested):
            if isinstance(orig, exp.Subquery) and id(orig.this) in children:
                sub = children[id(orig.this)]
                replace.append((orig, ("r:" + self.rows(sub)) if sub.is_derived_table else ("q:" + self.whole(sub))))
            elif isinstance(orig, (exp.Select, exp.SetOperation)) and id(orig) in children and orig is not node:
                replace.append((orig, "q:" + self.whole(children[id(orig)])))
            elif isinstance(orig, exp.Column) and not isinstance(orig.this, exp.Star):
                if orig.find_ancestor(exp.Select, exp.SetOperation) is scope.expression:
                    replace.append((orig, self._column_token(orig, scope, own)))
            elif isinstance(orig, exp.Table) and orig.find_ancestor(exp.Select, exp.SetOperation) is scope.expression:
                src = scope.sources.get(orig.alias_or_name)
                if isinstance(src, Scope):
                    replace.append((orig, "r:" + self.rows(src)))
                elif not isinstance(orig.this, exp.Func):
                    replace.append((orig, "t:" + self._table_id(orig)))
        for orig, token in replace:
            if orig is node:
                return token
        # the tokens stand in for their nodes while the SQL is written, then the nodes go back:
        # no copy of the node, whose nested queries may be large
        swapped: list[tuple[exp.Expression, exp.Expression]] = []
        try:
            for orig, token in replace:
                if orig.parent is not None:
                    var = exp.Var(this=token)
                    orig.replace(var)
                    swapped.append((orig, var))
            try:
                return node.sql(dialect=self.dialect, comments=False)
            except SqlglotError:
                return node.sql(comments=False)
        finally:
            for orig, var in reversed(swapped):
                var.replace(orig)

    def _own_name(self, p: exp.Expression) -> str:
        """A projection's output name: its alias, its column's, else sqlglot's."""
        return self.col(p if isinstance(p, (exp.Alias, exp.Column)) else p.alias_or_name)

    def _column_token(self, col: exp.Column, scope: Scope, own: str | None) -> str:
        name = self.col(col)
        table = col.table
        if table:
            src = scope.sources.get(table)
            if isinstance(src, (Scope, exp.Table)):
                return self._source_token(src, name)
            return "x:" + ".".join(p.name.lower() for p in col.parts)
        sources = [src for _, src in scope.selected_sources.values()]
        cands = [self._source_token(src, name) for src in sources if self._may_have(src, name)]
        names, _ = self._names(scope)
        if name in names and name != own and isinstance(scope.expression, exp.Select):
            # a projection's alias, read in a clause, or in a projection when no relation has the name
            if own is None or not any(self._has(src, name) for src in sources):
                cands.append("a:" + self.value(name, scope))
        return "|".join(sorted(set(cands))) if cands else "x:" + name

    def _table_uid(self, table: exp.Table) -> str | None:
        parts = tuple(p.lower() for p in (table.catalog, table.db, table.name) if p)
        return self.relations.lookup(parts)

    def _table_id(self, table: exp.Table) -> str:
        uid = self._table_uid(table)
        if uid:
            return uid
        return ".".join(p.lower() for p in (table.catalog, table.db, table.name) if p) or table.sql(dialect=self.dialect)


def _is_star(p: exp.Expression) -> bool:
    return isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))


def _unalias(p: exp.Expression) -> exp.Expression:
    return p.this if isinstance(p, exp.Alias) else p


def _aggregates(p: exp.Expression) -> bool:
    return p.find(exp.AggFunc) is not None
