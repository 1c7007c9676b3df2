"""Per dbt node, what its lineage depends on and what its documentation is: the hashes that
decide whether a build reuses a model's stored lineage or analyzes it again."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import sqlglot
from pydantic import BaseModel

from catalog import __version__
from catalog.analyze.project import topological_models
from catalog.builds.rows import model_props
from catalog.extract import DbtNode, DbtProject, key_names, lineage_declaration

ANALYZER_VERSION = "5"  # bump when the analyzer's output changes for the same input


# The code that hashes nodes: a build keeps the active build's fingerprints only when that
# build was hashed by the same code (an edit here, to what a node's properties are, or to how
# columns are named, rehashes all once)
def _hashing_code() -> str:
    here = Path(__file__).parent
    try:
        code = b"".join((here / f).read_bytes() for f in ("fingerprints.py", "rows.py", "../idents.py"))
    except OSError:  # not installed as files: the version alone tells builds apart
        code = __version__.encode()
    return hashlib.sha256(code).hexdigest()[:16]


HASHING_CODE = _hashing_code()


def digest(*parts: Any) -> str:
    """A digest of plain values (str, int, None, bool, tuples and lists of them); repr is
    deterministic for those and several times faster than JSON."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class Fingerprint(BaseModel, frozen=True):
    lineage_hash: str
    sql_hash: str | None
    meta_hash: str


class ColumnDigests:
    """Each node's column digests, (of its catalog.json columns or None, of all its column
    names), by node object: kept across the :func:`fingerprints` of two sides of a comparison,
    which share the objects of the nodes alike, so that those are digested once."""

    def __init__(self) -> None:
        self._of: dict[int, tuple[DbtNode, str | None, str]] = {}  # id -> (the node, kept alive so its id is its own, digests)

    def of(self, node: DbtNode, dialect: str | None) -> tuple[str | None, str]:
        found = self._of.get(id(node))
        if found is None or found[0] is not node:
            names = key_names(node.columns, dialect)
            real = [(name, c.data_type) for name, c in zip(names, node.columns) if c.in_catalog]
            found = self._of[id(node)] = (node, digest(real) if real else None, digest(names))
        return found[1], found[2]


def fingerprints(
    project: DbtProject, known: dict[str, Fingerprint] | None = None, meta: bool = True, columns: ColumnDigests | None = None
) -> dict[str, Fingerprint]:
    """Per dbt node: what its lineage depends on, and what its documentation is.

    ``known``: fingerprints computed before (by the same catalog, analyzer, sqlglot and
    dialect) of nodes whose record (:func:`catalog.store.records.node_digests` tells) is the same
    now. A node keeps its known fingerprint when each node it depends on hands it what it did
    then: its known fingerprint (kept, or computed again to the same lineage hash), or, its
    record the same, what its record alone says (catalog.json's columns, a foreign node's
    producer); the others are computed. The result is the same either way; ``known`` only saves
    hashing what did not change. ``meta=False``: the lineage and SQL hashes only (``meta_hash``
    left empty), for a comparison of lineages. ``columns``: the column digests made before, of
    the same dialect's nodes (see :class:`ColumnDigests`).
    """
    known = known or {}
    columns = ColumnDigests() if columns is None else columns
    out: dict[str, Fingerprint] = {}
    # each node's real columns (catalog.json) and all its columns, digested once (and only
    # for the nodes whose fingerprint is computed, or read by one that is): a model's hash
    # names its upstream nodes' digests, not their column lists again for every reader
    catalog_cols: dict[str, str | None] = {}
    all_cols: dict[str, str] = {}

    def digest_columns(uid: str) -> None:
        if uid not in all_cols:
            catalog_cols[uid], all_cols[uid] = columns.of(project.nodes[uid], project.dialect)

    # the project's masking functions decide the columns' masked flags: a new list, new hashes
    base = (ANALYZER_VERSION, sqlglot.__version__, project.dialect) + ((project.masking_functions,) if project.masking_functions else ())
    for node in project.nodes.values():
        if node.resource_type in ("source", "seed"):
            uid = node.unique_id
            if uid in known:
                out[uid] = known[uid]
                continue
            digest_columns(uid)
            out[uid] = Fingerprint(lineage_hash=digest(base, catalog_cols[uid], all_cols[uid]), sql_hash=None, meta_hash=meta_hash(node) if meta else "")
    kept = set(out) & set(known)

    def hands_on_record(dep: str) -> bool:  # a reader's hash names dep's record, not its lineage hash (below)
        node = project.nodes.get(dep)
        return dep in known and (node is None or node.upstream_key is not None or any(c.in_catalog for c in node.columns))

    for node in topological_models(project):
        uid = node.unique_id
        if uid in known and all(dep in kept or hands_on_record(dep) for dep in node.depends_on):
            out[uid] = known[uid]
            kept.add(uid)
            continue
        sql_hash = digest(node.sql, node.language)
        upstream = []
        for dep in sorted(node.depends_on):
            if dep in project.nodes:
                digest_columns(dep)
            producer = project.nodes[dep].upstream_key if dep in project.nodes else None
            if producer is not None:  # dbt Mesh: fed by that producer's columns
                upstream.append((dep, catalog_cols[dep], producer))
            elif catalog_cols.get(dep):
                upstream.append((dep, catalog_cols[dep]))
            elif dep in out:
                upstream.append((dep, out[dep].lineage_hash))
            elif dep in project.nodes:
                upstream.append((dep, all_cols[dep]))
        digest_columns(uid)
        # a model without SQL has the lineage its YAML declares
        declared = () if node.language == "sql" else (repr(lineage_declaration(node)),)
        lineage_hash = digest(base, sql_hash, upstream, catalog_cols[uid], node.resource_type, *declared)
        if node.upstream_key is not None:  # a foreign node: which producer build it is read from
            lineage_hash = digest(lineage_hash, node.upstream_key, node.upstream_build)
        out[uid] = Fingerprint(lineage_hash=lineage_hash, sql_hash=sql_hash, meta_hash=meta_hash(node) if meta else "")
        if uid in known and known[uid].lineage_hash == lineage_hash:
            kept.add(uid)  # its readers read the same of it
    return out


def meta_hash(node: DbtNode) -> str:
    """What the graph shows of a node besides its lineage: types, docs, tags, meta."""
    model = sorted((k, repr(v)) for k, v in model_props(node).items())
    columns = [
        (c.name, c.data_type, c.description, c.tags, repr(sorted(c.meta.items())) if c.meta else "[]", c.declared, c.in_catalog)
        for c in node.columns
    ]
    return digest(model, columns)
