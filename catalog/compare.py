"""Comparison of two dbt targets of one project (an old one, as with dbt's ``--state``, and the
current one), model by model and column by column: what ``catalog prune --state`` starts its
closure from and what ``catalog check`` classifies.

A column counts as changed when it is added, when the definition of its value changed
(its expression through every CTE and subquery, its upstream columns, its lineage type or
its data type in catalog.json), and every column of a model counts as changed when what
decides the model's rows changed (FROM, JOIN, WHERE, GROUP BY, HAVING, QUALIFY, DISTINCT,
LIMIT, set operations, in any CTE or subquery the model reads). A model whose SQL changed
but whose output columns are all identical (reformatting, comments, renamed aliases or
CTEs) changes nothing downstream.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from catalog.analyze.project import analyze_project, analyzed_columns
from catalog.analyze.relations import EPHEMERAL_PREFIX
from catalog.artifacts import seed_checksums
from catalog.analyze.records import ModelLineage, ModelStatus, column_key
from catalog.extract import DbtNode, DbtProject


class ColumnChange(BaseModel, frozen=True):
    """What ``--state`` found changed in a model (``column`` is ``*`` for its rows)."""

    column: str
    change: Literal["added", "removed", "modified", "rows", "new"]
    detail: str = ""
    # modified: what changed, among expression, lineage (upstream columns, lineage type,
    # resolution) and data_type
    aspects: tuple[str, ...] = ()
    clauses: tuple[ClauseChange, ...] = ()  # rows: the conditions whose SQL changed


class ClauseChange(BaseModel, frozen=True):
    """A condition of a model's SQL that changed: ``WHERE: `status = 1` -> `status IN (1, 2)```."""

    clause: str  # WHERE, HAVING, QUALIFY, GROUP BY, JOIN <relation> ON
    scope: str = ""  # the CTE or subquery it is in; "" for the model's own SELECT
    before: str | None = None  # its SQL (normalized names); None: added
    after: str | None = None  # None: removed

    def text(self) -> str:
        where = f" in {self.scope}" if self.scope else ""
        before, after = (f"`{t}`" if t is not None else "none" for t in (self.before, self.after))
        return f"{self.clause}{where}: {before} -> {after}"


class StateDiff(BaseModel):
    """Per model of the current project, what changed since the old target."""

    changes: dict[str, tuple[ColumnChange, ...]]  # unique id -> changes (models, snapshots, seeds, sources)
    start_keys: tuple[str, ...]  # column ids of the current project that changed
    new_models: tuple[str, ...]
    removed_models: tuple[str, ...]
    opaque_models: tuple[str, ...]  # changed, but with no known columns to follow
    unaffected_models: tuple[str, ...]  # SQL changed, output columns identical


def diff_state(
    old: DbtProject, old_lineages: dict[str, ModelLineage], new: DbtProject, new_lineages: dict[str, ModelLineage]
) -> StateDiff:
    changes: dict[str, list[ColumnChange]] = {}
    start: set[str] = set()
    new_models: list[str] = []
    opaque: list[str] = []
    unaffected: list[str] = []
    old_seeds = _seed_checksums(old)
    new_seeds = _seed_checksums(new) if old_seeds else {}  # a seed changed is one in both
    for uid in sorted(new.nodes):
        node = new.nodes[uid]
        before = old.nodes.get(uid)
        if node.resource_type in ("model", "snapshot"):
            lin = new_lineages.get(uid)
            if before == node and lin is not None and lin is old_lineages.get(uid):
                continue  # the same record and the base's own lineage (analyze_states): nothing changed
            names = [c.name for c in lin.columns] if lin else []
            if before is None or before.resource_type not in ("model", "snapshot"):
                new_models.append(uid)
                changes[uid] = [ColumnChange(column="*", change="new", detail=f"new {node.resource_type}")]
                start.update(column_key(uid, n) for n in names)
                if not names:
                    opaque.append(uid)
                continue
            found, rows = _model_changes(before, old_lineages.get(uid), node, lin, new.dialect)
            if rows:
                start.update(column_key(uid, n) for n in names)
            else:
                start.update(column_key(uid, c.column) for c in found if c.change in ("added", "modified"))
            if found:
                changes[uid] = found
                if not names and (rows or any(c.change != "removed" for c in found)):
                    opaque.append(uid)
            elif _sql_changed(before, node, new.dialect):
                unaffected.append(uid)
        elif node.resource_type in ("seed", "source") and before is not None:
            found = _relation_changes(before, node, new.dialect)
            if uid in new_seeds and uid in old_seeds and new_seeds[uid] != old_seeds[uid]:
                found.append(ColumnChange(column="*", change="rows", detail="seed file changed"))
                start.update(column_key(uid, c.key_name(new.dialect)) for c in node.columns)
            if found:
                changes[uid] = found
                start.update(column_key(uid, c.column) for c in found if c.change in ("added", "modified"))
    removed = sorted(
        uid
        for uid, n in old.nodes.items()
        if n.resource_type in ("model", "snapshot", "seed") and uid not in new.nodes
    )
    return StateDiff(
        changes={k: tuple(v) for k, v in changes.items()},
        start_keys=tuple(sorted(start)),
        new_models=tuple(new_models),
        removed_models=tuple(removed),
        opaque_models=tuple(sorted(opaque)),
        unaffected_models=tuple(sorted(unaffected)),
    )


def sharing_nodes(old: DbtProject, new: DbtProject) -> DbtProject:
    """``old`` with ``new``'s node objects where the records are equal: one copy of each node
    the change leaves as it was, instead of one per version."""
    nodes = {uid: same if (same := new.nodes.get(uid)) is not None and same == node else node for uid, node in old.nodes.items()}
    return old.model_copy(update={"nodes": nodes})


def analyze_states(
    old: DbtProject,
    new: DbtProject,
    jobs: int | None = None,
    base: dict[str, ModelLineage] | None = None,
    cache: bool = False,
    stored: Callable[[], dict[str, ModelLineage] | None] | None = None,
) -> tuple[dict[str, ModelLineage], dict[str, ModelLineage]]:
    """The lineages of both versions of a project, for :func:`prune_state` and ``check``.

    The base is analyzed once, in full, unless its lineages are given (``base``) or, with
    ``cache``, kept from an earlier run on the same base (:mod:`catalog.state_cache`), or else
    ``stored()`` gives them (the analysis a stored build kept of the base; None when it cannot
    stand for this analyzer's), then kept in the cache. The
    change is analyzed only where its lineage can differ from the base's
    (the failed ones, and :func:`~catalog.builds.fingerprints.lineage_changes`): the other
    models have the base's lineage. Models whose
    SQL changed also get, on both sides, the definitions of their columns and rows, from the
    analysis's own parse."""
    from catalog.builds.fingerprints import fingerprints, lineage_changes
    from catalog.state_cache import cache_key, read_cached, write_cached

    changed = sql_changed_models(old, new)
    before = fingerprints(old, meta=False) if cache and base is None else None  # the cache's key
    key = cache_key(old, before) if before is not None else None
    if key is not None:
        base = read_cached(key)
    if base is None and stored is not None and (base := stored()) is not None and key is not None:
        write_cached(key, base)
    if base is None:
        old_lineages = analyze_project(old, jobs=jobs, fingerprints=changed)
        if key is not None:
            write_cached(key, old_lineages)
    else:  # the SQL-changed models again, for their definitions; the failed ones, as the analysis makes them
        models = _analyzed_uids(old)
        again = {uid for uid in models if uid in changed or uid not in base or base[uid].status == ModelStatus.FAILED}
        known = analyzed_columns({uid: lin for uid, lin in base.items() if uid not in again})
        redone = analyze_project(old, jobs=jobs, only=again, known_columns=known, fingerprints=changed) if again else {}
        old_lineages = dict(sorted(({uid: base[uid] for uid in models if uid in base} | redone).items()))
    failed = {uid for uid in _analyzed_uids(new) if uid not in old_lineages or old_lineages[uid].status == ModelStatus.FAILED}
    redo = failed | lineage_changes(old, new, before=before)
    kept = {uid: old_lineages[uid] for uid in _analyzed_uids(new) if uid not in redo}
    redone = analyze_project(new, jobs=jobs, only=redo, known_columns=analyzed_columns(kept), fingerprints=changed) if redo else {}
    return old_lineages, dict(sorted((kept | redone).items()))


def _analyzed_uids(project: DbtProject) -> set[str]:
    """The nodes the analysis gives a lineage: models and snapshots."""
    return {n.unique_id for n in project.models()}


def sql_changed_models(old: DbtProject, new: DbtProject) -> set[str]:
    """Models and snapshots in both projects whose SQL text differs (whitespace aside)."""
    return {
        uid
        for uid, node in new.nodes.items()
        if node.resource_type in ("model", "snapshot")
        and (before := old.nodes.get(uid)) is not None
        and before.resource_type in ("model", "snapshot")
        and _sql_changed(before, node, new.dialect)
    }


def _seed_checksums(project: DbtProject) -> dict[str, str]:
    """The manifest's checksum of each seed file (the extracted records do not keep it)."""
    if not any(n.resource_type == "seed" for n in project.nodes.values()):
        return {}
    if project.manifest_sha256:  # the manifest it was read from: read once for all the comparisons of a check
        return dict(_manifest_seed_checksums(project.target_dir, project.manifest_sha256))
    return _read_seed_checksums(project.target_dir)


@functools.lru_cache(maxsize=4)
def _manifest_seed_checksums(target_dir: str, manifest_sha256: str) -> dict[str, str]:
    return _read_seed_checksums(target_dir)


def _read_seed_checksums(target_dir: str) -> dict[str, str]:
    try:
        return seed_checksums(Path(target_dir) / "manifest.json")
    except (OSError, ValueError, AttributeError):
        return {}


def _sql_changed(before: DbtNode, node: DbtNode, dialect: str) -> bool:
    """Whether a model's own SQL changed (whitespace aside): the ephemeral models dbt inlines
    as ``__dbt__cte__`` CTEs are models of their own, compared as such."""
    if before.sql == node.sql:
        return False
    a, b = _sql_text(before.sql), _sql_text(node.sql)
    if a == b:
        return False
    if EPHEMERAL_PREFIX not in a.lower() and EPHEMERAL_PREFIX not in b.lower():
        return True
    return _without_ephemeral_ctes(before.sql or "", dialect) != _without_ephemeral_ctes(node.sql or "", dialect)


def _sql_text(sql: str | None) -> str:
    return " ".join((sql or "").split())


def _without_ephemeral_ctes(sql: str, dialect: str) -> list[str] | str:
    """The SQL's tokens without the ``__dbt__cte__x as (...)`` CTEs (comments aside), or its
    text when it does not tokenize."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except (SqlglotError, ValueError):
        return _sql_text(sql)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text.lower().startswith(EPHEMERAL_PREFIX) and tokens[i + 1 : i + 2] and tokens[i + 1].token_type == TokenType.ALIAS:
            depth, j = 0, i + 2
            while j < len(tokens):
                depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[j].token_type, 0)
                if depth == 0:
                    break
                j += 1
            i = j + 1
            if i < len(tokens) and tokens[i].token_type == TokenType.COMMA:
                i += 1
            continue
        out.append(f"{t.token_type.name}:{t.text}")
        i += 1
    return out


def _model_changes(
    before: DbtNode,
    old_lin: ModelLineage | None,
    node: DbtNode,
    new_lin: ModelLineage | None,
    dialect: str,
) -> tuple[list[ColumnChange], bool]:
    """The changes of one model, and whether its rows changed (then all columns change)."""
    old_cols = {c.name: c for c in old_lin.columns} if old_lin else {}
    new_cols = {c.name: c for c in new_lin.columns} if new_lin else {}
    found: list[ColumnChange] = []
    for name in sorted(set(new_cols) - set(old_cols)):
        found.append(ColumnChange(column=name, change="added"))
    for name in sorted(set(old_cols) - set(new_cols)):
        found.append(ColumnChange(column=name, change="removed"))

    sql_changed = _sql_changed(before, node, dialect)
    definitions_old = definitions_new = None
    problem = ""
    if sql_changed:  # the analysis made them from its own parse (see sql_changed_models)
        definitions_old = old_lin.definitions if old_lin else None
        definitions_new = new_lin.definitions if new_lin else None
        problem = (new_lin.definitions_problem if new_lin else None) or (old_lin.definitions_problem if old_lin else None) or ""
    failed = any(lin is not None and lin.status == ModelStatus.FAILED for lin in (old_lin, new_lin))
    if sql_changed and (problem or failed or definitions_old is None or definitions_new is None):
        why = problem or "the analysis failed"
        return found + [ColumnChange(column="*", change="rows", detail=f"SQL changed and could not be compared: {why}")], True

    old_types, new_types = before.catalog_types(dialect), node.catalog_types(dialect)
    for name in sorted(set(old_cols) & set(new_cols)):
        a, b = old_cols[name], new_cols[name]
        what = []
        aspects: dict[str, None] = {}
        # with the SQL unchanged, the expression is too (a column read from a missing one
        # has its name for expression): what changed is its lineage
        if definitions_old is not None and definitions_new is not None:
            if definitions_old.columns.get(name) != definitions_new.columns.get(name):
                what.append(f"expression {a.expr!r} -> {b.expr!r}" if a.expr != b.expr else "expression (in a CTE or subquery)")
                aspects["expression"] = None
        if sorted(s.key for s in a.sources) != sorted(s.key for s in b.sources):
            gone = sorted({s.key for s in a.sources} - {s.key for s in b.sources})
            came = sorted({s.key for s in b.sources} - {s.key for s in a.sources})
            what.append("sources" + (f" -{', -'.join(gone)}" if gone else "") + (f" +{', +'.join(came)}" if came else ""))
            aspects["lineage"] = None
        if a.kind != b.kind:
            what.append(f"type {a.kind.value} -> {b.kind.value}")
            aspects["lineage"] = None
        if a.resolved != b.resolved:
            what.append(f"resolved {a.resolved} -> {b.resolved}" + (f" ({b.reason})" if b.reason else ""))
            aspects["lineage"] = None
        if name in old_types and name in new_types and old_types[name] != new_types[name]:
            what.append(f"data type {old_types[name] or '?'} -> {new_types[name] or '?'}")
            aspects["data_type"] = None
        if what:
            found.append(ColumnChange(column=name, change="modified", detail="; ".join(what), aspects=tuple(aspects)))

    old_conds = {(c.column.key, c.clause.value) for c in old_lin.conditions} if old_lin else set()
    new_conds = {(c.column.key, c.clause.value) for c in new_lin.conditions} if new_lin else set()
    both = definitions_old is not None and definitions_new is not None
    clauses = clause_changes(definitions_old.clauses, definitions_new.clauses) if both else ()  # type: ignore[union-attr]
    rows_why = []
    if old_conds != new_conds:
        rows_why += [f"-{clause} {key}" for key, clause in sorted(old_conds - new_conds)]
        rows_why += [f"+{clause} {key}" for key, clause in sorted(new_conds - old_conds)]
        rows_why = ["conditions " + ", ".join(rows_why)]
    elif both and definitions_old.rows != definitions_new.rows:  # type: ignore[union-attr]
        # the same columns: say which condition changed, as written
        rows_why = ["; ".join(c.text() for c in clauses) or "FROM / JOIN / WHERE / GROUP BY / HAVING / QUALIFY / DISTINCT / LIMIT changed"]
    if rows_why:
        found.append(ColumnChange(column="*", change="rows", detail=rows_why[0], clauses=clauses))
    return found, bool(rows_why)


def clause_changes(old: tuple[tuple[str, str, str], ...], new: tuple[tuple[str, str, str], ...]) -> tuple[ClauseChange, ...]:
    """The conditions (:attr:`Definitions.clauses`) whose SQL differs, matched by the CTE or
    subquery they are in, their clause and their order there."""

    def keyed(clauses: tuple[tuple[str, str, str], ...]) -> dict[tuple[str, str, int], str]:
        seen: dict[tuple[str, str], int] = {}
        out = {}
        for scope, clause, sql in clauses:
            n = seen[(scope, clause)] = seen.get((scope, clause), 0) + 1
            out[(scope, clause, n)] = sql
        return out

    a, b = keyed(old), keyed(new)
    order = list(b) + [k for k in a if k not in b]
    return tuple(ClauseChange(clause=k[1], scope=k[0], before=a.get(k), after=b.get(k)) for k in order if a.get(k) != b.get(k))


def _relation_changes(before: DbtNode, node: DbtNode, dialect: str) -> list[ColumnChange]:
    """Seeds and sources: columns added, removed or retyped, when both catalogs know them."""
    old_types, new_types = before.catalog_types(dialect), node.catalog_types(dialect)
    if not old_types or not new_types:
        return []
    found = [ColumnChange(column=n, change="added") for n in sorted(set(new_types) - set(old_types))]
    found += [ColumnChange(column=n, change="removed") for n in sorted(set(old_types) - set(new_types))]
    found += [
        ColumnChange(column=n, change="modified", detail=f"data type {old_types[n]} -> {new_types[n]}", aspects=("data_type",))
        for n in sorted(set(old_types) & set(new_types))
        if old_types[n] != new_types[n]
    ]
    return found
