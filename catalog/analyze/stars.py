"""Stars and column alias lists: ``select *`` (with EXCLUDE / REPLACE / RENAME, DuckDB's
COLUMNS(...) and ``* LIKE``), ``t.*``, ``FROM t AS x (a, b)``, ``(...) AS s (a, b)``, and a
star over a relation of unknown columns named by the model's own columns."""

from __future__ import annotations

import fnmatch
import re
from typing import Callable

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from catalog.analyze.kinds import UNKNOWN, ColumnNamer, Lin, Output, Selected, inherit, lower, output_identifier
from catalog.analyze.names import FromItem, Names, QueryItem, UnknownItem

# How a SELECT item is classified (``SelectScope.classify``): for ``* REPLACE (expr AS name)``.
Classify = Callable[[exp.Expression, str], Lin]
# ClickHouse's names of ambiguous joined columns: {alias: (alias as written, qualified names)}
Qualified = dict[str, tuple[str, frozenset[str]]]


def expand_star(
    names: Names,
    select: exp.Select,
    proj: exp.Expression,
    star: exp.Star,
    selected: Selected,
    unexpanded: list[tuple[FromItem, frozenset[str]]],
    classify: Classify,
    qualify: Qualified,
    keep: Callable[[str], bool] | None = None,
) -> str | None:
    """Add the star's columns (those ``keep`` accepts) to ``selected``; returns why it could
    not be (fully) expanded, if so.

    Items whose columns are unknown go to ``unexpanded`` (with the excluded names).
    """
    table = lower(proj.table) if isinstance(proj, exp.Column) and proj.table else ""
    problem: str | None = None
    if isinstance(proj, exp.Dot) or (table and table not in names.items):
        text = proj.sql(dialect=names.ctx.dialect)
        struct = isinstance(proj, exp.Dot) or names.find_unqualified(table) is not None
        problem = f"{text}: {'the fields of a struct column are not known' if struct else 'unknown relation'}"
    elif select.args.get("match"):
        problem = "select * with MATCH_RECOGNIZE: its output columns are not resolved"
    if problem:
        unexpanded.append((UnknownItem(problem), frozenset()))
        return problem
    aliases = [table] if table else list(names.star_items)
    col = names.col
    excluded = {col(c) for c in star.args.get("except_") or []}
    replaced = {col(output_identifier(r)): r for r in star.args.get("replace") or []}
    renamed = {col(r.this): col(r) for r in star.args.get("rename") or [] if isinstance(r, exp.Alias)}
    seen_using: set[str] = set()
    for alias in aliases:
        source = names.items[alias]
        if source.names is None:
            reason = getattr(source, "reason", None) or f"columns of {alias!r} are unknown"
            problem = problem or f"select * over {alias!r} cannot be expanded: {reason}"
            if replaced or renamed or keep is not None:  # names of its output are not the relation's own
                source = UnknownItem(problem)
            unexpanded.append((source, frozenset(excluded)))
            continue
        if keep is not None:
            excluded = excluded | {n for n in source.names if not keep(n)}
        named = renamed
        spelling, qualified = qualify.get(alias, ("", frozenset()))
        if qualified:  # ClickHouse: an ambiguous column is named alias.column
            named = {**{n: f"{spelling}.{n}" for n in source.names if n in qualified}, **renamed}
        if not (excluded or replaced or named or (names.using and not table)):
            # the common case: every column as it is
            get = source.get
            add = selected.add
            prefix = f"{alias}." if table else ""
            for n in source.names:
                lin = get(n)
                add(n, lin if lin is not None else Lin(frozenset(), UNKNOWN, False, f"column {n!r} missing"), prefix + n)
            continue
        for n in source.names:
            if n in excluded:
                continue
            if not table and n in names.using:
                if n in seen_using:
                    continue
                seen_using.add(n)
                lin = names.using[n]
            elif n in replaced:
                lin = classify(replaced[n], n)
            else:
                lin = source.get(n) or Lin(frozenset(), UNKNOWN, False, f"column {n!r} missing")
            out_name = named.get(n, n)
            if out_name != n:
                lin = Lin(lin.sources, inherit(lin.kind, False), lin.resolved, lin.reason, lin.window_refs, lin.defined_by)
            selected.add(out_name, lin, replaced[n] if n in replaced else f"{alias}.{n}" if table else n, n in replaced)
    return problem


def aliased_columns(item: FromItem, table: exp.Table, col: ColumnNamer) -> FromItem:
    """``FROM t AS x (a, b)``: the alias list renames the relation's columns by position."""
    alias = table.args.get("alias")
    if not isinstance(alias, exp.TableAlias) or not alias.columns:
        return item
    if item.names is None:
        return UnknownItem(f"column alias list over {table.name!r}, whose columns are unknown")
    cols = {n: lin for n in item.names if (lin := item.get(n)) is not None}
    return QueryItem(rename_by_alias(Output(list(cols), cols), alias, col))


def apply_alias_columns(scope: Scope, out: Output, col: ColumnNamer) -> Output:
    """``cte (a, b) AS (...)`` and ``(...) AS t (a, b)`` rename the outputs by position."""
    holder = scope.expression.parent
    alias = holder.args.get("alias") if isinstance(holder, (exp.CTE, exp.Subquery)) else None
    return rename_by_alias(out, alias, col)


def rename_by_alias(out: Output, alias: exp.Expression | None, col: ColumnNamer) -> Output:
    """Rename the first outputs to a table alias's column list; the rest keep their names."""
    if not isinstance(alias, exp.TableAlias) or not alias.columns:
        return out
    new_names = [col(c) for c in alias.columns]
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


def named_by_own_columns(out: Output, own: list[str]) -> Output:
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


PATTERN_STARS = (exp.Columns, exp.Like, exp.ILike, exp.Glob, exp.SimilarTo)


def column_filter(proj: exp.Expression, col: ColumnNamer) -> Callable[[str], bool] | None:
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
            wanted = {col(e.name) for e in arg.expressions}
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


def star_of(proj: exp.Expression) -> exp.Star | None:
    if isinstance(proj, exp.Star):
        return proj
    if isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star):
        return proj.this
    if isinstance(proj, exp.Dot) and isinstance(proj.expression, exp.Star):  # (struct_col).*
        return proj.expression
    return None
