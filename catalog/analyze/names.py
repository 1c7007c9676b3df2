"""Name resolution: what a SELECT reads from (dbt relations, CTEs, subqueries, table
functions) and which of them a column reference means. Qualified names go to their relation;
an unqualified name goes to the one relation that has it, or to the one relation of unknown
columns when no other could; USING keys merge both sides. Nothing is guessed.

A name may also be an alias the same SELECT defined earlier (a lateral column alias), as the
warehouse reads it: in the dialects of ``LATERAL_ALIAS_DIALECTS`` (catalog.analyze.context) a
column of a relation wins over the alias where the relation is known to have one (the alias
where ``ALIAS_FIRST_DIALECTS``),
and the alias is what the name means where no relation is known to have it, also over
relations whose columns are unknown (a file, an undocumented source, ``select *`` of them)."""

from __future__ import annotations

from sqlglot import exp

from catalog.analyze.context import ModelContext
from catalog.analyze.kinds import PASS, UNKNOWN, Lin, Output, field_access, lower, merge
from catalog.analyze.records import ConditionClause


class FromItem:
    """Something a SELECT reads from (a FROM or JOIN item)."""

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


class RelationItem(FromItem):
    """A dbt relation (model, source, seed, snapshot) and its known columns."""

    def __init__(self, unique_id: str, names: list[str] | None, self_ref: bool = False, exact: bool = False):
        self.unique_id = unique_id
        self.names = names
        self.self_ref = self_ref
        self.exact = exact  # its names are all it has (an ephemeral model, as analyzed): no other is read
        self._cache: dict[str, Lin] = {}

    def get(self, name: str) -> Lin | None:
        if self.exact and self._known is not None and name not in self._known:
            return None
        lin = self._cache.get(name)
        if lin is None:
            lin = self._cache[name] = Lin(frozenset(((self.unique_id, name),)), PASS)
        return lin


class UnknownItem(FromItem):
    """A FROM item whose columns cannot be told, with the reason."""

    def __init__(self, reason: str):
        self.reason = reason

    def get(self, name: str) -> Lin:
        return Lin(frozenset(), UNKNOWN, False, self.reason)


class QueryItem(FromItem):
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


class Names:
    """What the names of one SELECT mean: the items it reads from, its USING keys and the
    aliases of its items so far, inside the SELECTs that enclose it (``parent``)."""

    def __init__(self, ctx: ModelContext, parent: "Names | None"):
        self.ctx = ctx
        self.col = ctx.col
        self.parent = parent
        self.items: dict[str, FromItem] = {}  # alias (lower) -> item, in FROM/JOIN order
        self.star_items: list[str] = []  # aliases that contribute to SELECT *
        self.using: dict[str, Lin] = {}  # merged USING / NATURAL keys
        self.aliases: dict[str, Lin] = {}  # projection aliases seen so far

    def add(self, alias: str, item: FromItem, join: exp.Join | None) -> None:
        """A FROM or JOIN item read under ``alias``."""
        self.items[alias] = item
        kind = (join.args.get("kind") or "").upper() if join is not None else ""
        if kind not in ("SEMI", "ANTI"):
            self.star_items.append(alias)
        if join is not None:
            self._join_keys(join, alias)

    def _join_keys(self, join: exp.Join, alias: str) -> None:
        using = join.args.get("using")
        keys: list[str] = []
        if using:
            keys = [self.col(u) for u in using]
        elif (join.args.get("method") or "").upper() == "NATURAL" or join.args.get("natural"):
            right = self.items[alias]
            right_names = set(right.names or [])
            for other_alias in self.star_items[:-1]:
                for n in self.items[other_alias].names or []:
                    if n in right_names and n not in keys:
                        keys.append(n)
        right = self.items[alias]
        others = [src for a, src in self.items.items() if a != alias]
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
            self.ctx.add_conditions(merged, ConditionClause.JOIN)

    # --------------------------------------------------------------- resolution

    def resolve(self, col: exp.Column, allow_alias: bool = True) -> Lin:
        if isinstance(col.this, exp.Parameter):  # t.$1
            return self.positional(col.this, col.table.lower())
        name = self.col(col.this)
        table = col.table.lower()
        if table:
            # qualifiers, outermost first: [catalog,] [db,] table
            quals = [p for p in (col.args.get("catalog"), col.args.get("db"), col.args.get("table")) if p]
            chain = [lower(p.name) for p in quals]
            if table in self.items and (len(chain) == 1 or chain[0] not in self.items):
                return self._from_source(self.items[table], name, col)
            head = chain[0]
            if head in self.items:  # alias.struct_col.field
                return field_access(self._from_source(self.items[head], self.col(quals[1]), col))
            if self.parent is not None and self.parent.sees_alias(table):
                return self.parent.resolve(col, allow_alias=False)
            found = self.find_unqualified(self.col(quals[0]))
            if found is not None:  # struct_col.field
                return field_access(found)
            if self.parent is not None:
                return self.parent.resolve(col, allow_alias=False)
            return Lin(frozenset(), UNKNOWN, False, f"unknown table alias {col.table!r} for column {col.name!r}")
        alias = self.aliases.get(name) if allow_alias else None
        if alias is not None and self.ctx.aliases_first:
            return alias
        if name in self.using:
            return self.using[name]
        found = self.find_unqualified(name)
        if found is not None:
            if alias is not None and self.ctx.lateral_aliases and not self._known_here(name):
                return alias  # no relation here is known to have it: the alias is what the warehouse reads
            return found
        if alias is not None:
            return alias
        if self.parent is not None:
            outer = self.parent.resolve(col, allow_alias=False)
            if outer.resolved or self._all_items_unknown():
                return outer
        return self._unresolved_unqualified(name)

    def _positional_source(self, param: exp.Parameter, table: str) -> tuple[FromItem | None, int]:
        index = param.this
        if not (isinstance(index, exp.Literal) and not index.is_string and index.name.isdigit()):
            return None, 0
        if table:
            return self.items.get(table), int(index.name)
        only = list(self.items.values())
        return (only[0] if len(only) == 1 else None), int(index.name)

    def positional_name(self, param: exp.Parameter, table: str) -> str:
        source, n = self._positional_source(param, table)
        names = source.names if source is not None else None
        return names[n - 1] if names and 1 <= n <= len(names) else ""

    def positional(self, param: exp.Parameter, table: str) -> Lin:
        """Snowflake's ``$n`` / ``t.$n``: the relation's n-th column, when its columns are known."""
        name = self.positional_name(param, table)
        if name:
            source, _ = self._positional_source(param, table)
            lin = source.get(name) if source is not None else None
            if lin is not None:
                return lin
        text = param.sql(dialect=self.ctx.dialect)
        return Lin(frozenset(), UNKNOWN, False, f"positional column {text} cannot be told")

    def sees_alias(self, alias: str) -> bool:
        """Whether ``alias`` names a relation here or in an enclosing query."""
        names: Names | None = self
        while names is not None:
            if alias in names.items:
                return True
            names = names.parent
        return False

    def _all_items_unknown(self) -> bool:
        return all(isinstance(s, UnknownItem) for s in self.items.values())

    def _from_source(self, source: FromItem, name: str, col: exp.Column) -> Lin:
        lin = source.get(name)
        if lin is None:
            return Lin(frozenset(), UNKNOWN, False, f"column {col.sql()} not found in its relation")
        return lin

    def find_unqualified(self, name: str) -> Lin | None:
        if len(self.items) == 1:  # the common case, made quick
            (only,) = self.items.values()
            if only.has(name):
                return only.get(name)
            if only.names is None:
                if self.parent is not None and self.parent.has_known(name):
                    return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: this query's relation or the outer query's")
                return only.get(name)
            return None
        holders = [src for src in self.items.values() if src.has(name)]
        if len(holders) == 1:
            return holders[0].get(name)
        if len(holders) > 1:
            return same_either_way([h.get(name) for h in holders]) or Lin(
                frozenset(), UNKNOWN, False, f"column {name!r} is ambiguous: several relations have it"
            )
        unknown = [s for s in self.items.values() if s.names is None or isinstance(s, UnknownItem)]
        if len(unknown) == 1:
            # the only relation whose columns are unknown, and no other has it: it is that one's,
            # unless an enclosing query has such a column too (a correlated reference)
            if self.parent is not None and self.parent.has_known(name):
                return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: this query's relation or the outer query's")
            return unknown[0].get(name)
        return None

    def _known_here(self, name: str) -> bool:
        """Whether a relation of this SELECT is known to have the column."""
        return any(src.has(name) for src in self.items.values())

    def has_known(self, name: str) -> bool:
        """Whether a relation here or in an enclosing query is known to have the column."""
        names: Names | None = self
        while names is not None:
            if name in names.using or any(src.has(name) for src in names.items.values()):
                return True
            names = names.parent
        return False

    def _unresolved_unqualified(self, name: str) -> Lin:
        unknown = [s for s in self.items.values() if s.names is None or isinstance(s, UnknownItem)]
        if unknown:
            return Lin(frozenset(), UNKNOWN, False, f"column {name!r}: its relation's columns are unknown")
        return Lin(frozenset(), UNKNOWN, False, f"column {name!r} not found in any relation of the query")



def same_either_way(candidates: list[Lin | None]) -> Lin | None:
    """The lineage of an ambiguous name whose candidates all are the same upstream columns, of
    one kind: the answer is the same whichever the warehouse takes."""
    first = candidates[0]
    if first is None or not first.sources or not first.resolved:
        return None
    same = all(c is not None and c.resolved and c.sources == first.sources and c.kind == first.kind for c in candidates)
    return first if same else None
