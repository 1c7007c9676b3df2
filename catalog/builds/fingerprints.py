"""Per dbt node, what its lineage depends on and what its documentation is: the hashes that
decide whether a build reuses a model's stored lineage or analyzes it again."""

from __future__ import annotations

import hashlib
from pathlib import Path
from collections.abc import Callable, Container, Iterator, Mapping
from typing import Any

import sqlglot
from pydantic import BaseModel

from catalog import __version__
from catalog.analyze.project import topological_models
from catalog.builds.rows import model_props
from catalog.extract import DbtNode, DbtProject, key_names, lineage_declaration
from catalog.walks import reached

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
    project: DbtProject, known: Mapping[str, Fingerprint] | None = None, meta: bool = True, columns: ColumnDigests | None = None
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
    return {uid: known[uid] if f is None else f for uid, f in _hashed(project, known, meta, columns).items()}


def lineage_changes(
    old: DbtProject, new: DbtProject, columns: ColumnDigests | None = None, before: Mapping[str, Fingerprint] | None = None
) -> set[str]:
    """The models and snapshots of ``new`` whose fingerprint's lineage part is not the one they
    have in ``old`` (or that ``old`` has not), and those whose record changed: what
    :func:`fingerprints` of ``old`` and of ``new`` (given ``old``'s of the nodes alike) tell
    apart. ``old``'s are computed only for the models whose fingerprint ``new`` computes again,
    and for what those read: below a change, not the whole project (``before``: ``old``'s
    fingerprints, when the caller made them all). Every model when the two differ in dialect
    or masking functions (which every hash names)."""
    if old.dialect != new.dialect or old.masking_functions != new.masking_functions:
        return {n.unique_id for n in new.models()}
    columns = ColumnDigests() if columns is None else columns
    before = _Lazy(old, columns) if before is None else before
    alike = {uid for uid, node in old.nodes.items() if node == new.nodes.get(uid)}
    after = _hashed(new, _Among(before, alike), False, columns, old.nodes)
    return {
        n.unique_id
        for n in new.models()
        if (f := after[n.unique_id]) is not None  # None: the known one kept, the record the same
        and (n.unique_id not in alike or before[n.unique_id].lineage_hash != f.lineage_hash)
    }


class _Hasher:
    """The hashes of one project's nodes, given what each node it reads hands on."""

    def __init__(self, project: DbtProject, meta: bool, columns: ColumnDigests | None):
        self.project, self.meta = project, meta
        self.columns = ColumnDigests() if columns is None else columns
        # the project's masking functions decide the columns' masked flags: a new list, new hashes
        self.base = (ANALYZER_VERSION, sqlglot.__version__, project.dialect) + ((project.masking_functions,) if project.masking_functions else ())

    def digests(self, uid: str) -> tuple[str | None, str]:
        """(its catalog.json columns' digest or None, its column names' digest) of a node:
        a model's hash names its upstream nodes' digests, not their column lists again."""
        return self.columns.of(self.project.nodes[uid], self.project.dialect)

    def hands_on_lineage(self, dep: str) -> bool:
        """Whether a reader of ``dep`` names its lineage hash (see :meth:`model`), not its record's columns."""
        node = self.project.nodes.get(dep)
        return node is not None and node.upstream_key is None and not self.digests(dep)[0]

    def leaf(self, node: DbtNode) -> Fingerprint:
        """A source's or a seed's."""
        real, names = self.digests(node.unique_id)
        return Fingerprint(lineage_hash=digest(self.base, real, names), sql_hash=None, meta_hash=meta_hash(node) if self.meta else "")

    def model(self, node: DbtNode, lineage_of: Callable[[str], str | None]) -> Fingerprint:
        """A model's or a snapshot's; ``lineage_of(dep)``: the lineage hash of a node it reads,
        None for one not hashed before it (not upstream of it in the project's order)."""
        nodes = self.project.nodes
        sql_hash = digest(node.sql, node.language)
        upstream = []
        for dep in sorted(node.depends_on):
            real, names = self.digests(dep) if dep in nodes else (None, "")
            producer = nodes[dep].upstream_key if dep in nodes else None
            if producer is not None:  # dbt Mesh: fed by that producer's columns
                upstream.append((dep, real, producer))
            elif real:
                upstream.append((dep, real))
            elif (lineage := lineage_of(dep)) is not None:
                upstream.append((dep, lineage))
            elif dep in nodes:
                upstream.append((dep, names))
        # a model without SQL has the lineage its YAML declares
        declared = () if node.language == "sql" else (repr(lineage_declaration(node)),)
        lineage_hash = digest(self.base, sql_hash, upstream, self.digests(node.unique_id)[0], node.resource_type, *declared)
        if node.upstream_key is not None:  # a foreign node: which producer build it is read from
            lineage_hash = digest(lineage_hash, node.upstream_key, node.upstream_build)
        return Fingerprint(lineage_hash=lineage_hash, sql_hash=sql_hash, meta_hash=meta_hash(node) if self.meta else "")


def _hashed(
    project: DbtProject, known: Mapping[str, Fingerprint], meta: bool, columns: ColumnDigests | None, known_nodes: Container[str] | None = None
) -> dict[str, Fingerprint | None]:
    """:func:`fingerprints`, in its order, with None for each known fingerprint kept (``known``
    is read only where a node is computed again, or reads one kept). ``known_nodes``: the
    nodes of the project ``known`` was computed for, when the caller has them; a node read
    that neither project has hands on nothing either time (a region's project leaves out
    what lies outside it)."""
    hasher = _Hasher(project, meta, columns)
    out: dict[str, Fingerprint | None] = {}
    for node in project.nodes.values():
        if node.resource_type in ("source", "seed"):
            out[node.unique_id] = None if node.unique_id in known else hasher.leaf(node)
    kept = {uid for uid, f in out.items() if f is None}

    def lineage_of(dep: str) -> str | None:
        if dep not in out:
            return None
        f = out[dep]
        return (known[dep] if f is None else f).lineage_hash

    for node in topological_models(project):
        uid = node.unique_id
        if uid in known and all(
            dep in kept or dep in known and not hasher.hands_on_lineage(dep) or known_nodes is not None and dep not in known_nodes and dep not in project.nodes
            for dep in node.depends_on
        ):
            out[uid] = None
            kept.add(uid)
            continue
        out[uid] = f = hasher.model(node, lineage_of)
        if uid in known and known[uid].lineage_hash == f.lineage_hash:
            kept.add(uid)  # its readers read the same of it
    return out


class _Lazy(Mapping[str, Fingerprint]):
    """:func:`fingerprints` of a project (lineage and SQL hashes), each computed when first
    asked for, with the ones it reads (each as the whole pass would have made it)."""

    def __init__(self, project: DbtProject, columns: ColumnDigests):
        self.project, self.hasher = project, _Hasher(project, False, columns)
        self.order = {n.unique_id: i for i, n in enumerate(topological_models(project))}  # models; sources and seeds come first
        self.made: dict[str, Fingerprint] = {}

    def _before(self, dep: str, uid: str) -> bool:
        """Whether ``dep`` is hashed before the model ``uid`` in the whole pass."""
        return dep in self.project.nodes and (dep not in self.order or self.order[dep] < self.order[uid])

    def __getitem__(self, uid: str) -> Fingerprint:
        if uid in self.made:
            return self.made[uid]
        if uid not in self.project.nodes:
            raise KeyError(uid)

        def lineages_read(u: str) -> list[str]:  # the nodes whose lineage hash u's names, not hashed yet
            deps = self.project.nodes[u].depends_on if u in self.order else ()
            return [dep for dep in deps if dep not in self.made and self._before(dep, u) and self.hasher.hands_on_lineage(dep)]

        needed = {uid} | reached([uid], lineages_read)
        for u in sorted(needed, key=lambda u: self.order.get(u, -1)):
            node = self.project.nodes[u]
            if u in self.order:
                self.made[u] = self.hasher.model(node, lambda dep, u=u: self[dep].lineage_hash if self._before(dep, u) else None)
            else:
                self.made[u] = self.hasher.leaf(node)
        return self.made[uid]

    def __contains__(self, uid: object) -> bool:
        return uid in self.project.nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self.project.nodes)

    def __len__(self) -> int:
        return len(self.project.nodes)


class _Among(Mapping[str, Fingerprint]):
    """The fingerprints of ``of`` for the nodes ``among`` only."""

    def __init__(self, of: Mapping[str, Fingerprint], among: set[str]):
        self.of, self.among = of, among

    def __getitem__(self, uid: str) -> Fingerprint:
        if uid not in self.among:
            raise KeyError(uid)
        return self.of[uid]

    def __contains__(self, uid: object) -> bool:
        return uid in self.among

    def __iter__(self) -> Iterator[str]:
        return iter(self.among)

    def __len__(self) -> int:
        return len(self.among)


def meta_hash(node: DbtNode) -> str:
    """What the graph shows of a node besides its lineage: types, docs, tags, meta."""
    model = sorted((k, repr(v)) for k, v in model_props(node).items())
    columns = [
        (c.name, c.data_type, c.description, c.tags, repr(sorted(c.meta.items())) if c.meta else "[]", c.declared, c.in_catalog)
        for c in node.columns
    ]
    return digest(model, columns)
