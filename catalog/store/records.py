"""The records a build read, kept so that a change can be compared with a build and a build
exported as its artifacts are.

Every model, seed, snapshot and source is stored as the typed record extraction made of it
(:class:`catalog.extract.DbtNode`: SQL, columns, types, documentation, config), as JSON on a
versioned ``(:Project)-[:RECORDS {since, until, record, sha256}]->(:Model)``; consumers keep
theirs on ``DEFINES`` (:mod:`catalog.store.consumers`), and so do tests. :func:`load_build_project` makes the
project of a build back from them, so ``catalog check PATH`` compares PATH with the active
build exactly as ``--state`` compares it with the target folder that build was made from, and
``catalog export`` and ``catalog explore`` of a build read its nodes as the artifacts give them.
:func:`load_build_lineages` reads the analysis's lineage a build stored, as the analysis makes
its records.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import operator
from collections.abc import Collection
from typing import Any

from catalog.analyze.packed import RefCache, unpack
from catalog.analyze.records import ModelLineage, column_key
from catalog.bi_records import BIChart, BIDashboard, BIField
from catalog.errors import NotFound
from catalog.extract import DbtColumn, DbtExposure, DbtMetric, DbtNode, DbtProject, DbtSavedQuery, DbtSemanticModel, DbtTest
from catalog.store.graph import Graph, batched
from catalog.store.keys import model_node_key, scoped_key
from catalog.store.versioned import changes

RECORDS_AT_ONCE = 2_000  # nodes whose records a build holds as JSON text at a time
CONSUMER_RECORDS: dict[str, Any] = {
    "semantic_model": ("semantic_models", DbtSemanticModel),
    "metric": ("metrics", DbtMetric),
    "exposure": ("exposures", DbtExposure),
    "saved_query": ("saved_queries", DbtSavedQuery),
    "test": ("tests", DbtTest),  # with the columns it reads (catalog.analyze.dbt_tests.with_columns)
    "unit_test": ("tests", DbtTest),
    "bi_field": ("bi_fields", BIField),
    "chart": ("charts", BIChart),
    "dashboard": ("dashboards", BIDashboard),
}


def node_records(project: DbtProject) -> dict[str, str]:
    """Each node's record as stored: the JSON of its :class:`DbtNode`, by unique id."""
    return {uid: node.model_dump_json() for uid, node in project.nodes.items()}


_COLUMN_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(DbtColumn)))


def node_digests(project: DbtProject) -> dict[str, str]:
    """Each node's digest, by unique id: of every field its record holds, made in about half the
    time of the record's JSON, so that a build makes the JSON only of the nodes whose digest is
    not the one stored (:func:`write_records`)."""
    return {uid: _digest(node) for uid, node in project.nodes.items()}


def _digest(node: DbtNode) -> str:
    fields = dict(node.__dict__)
    fields["columns"] = [_COLUMN_FIELDS(c) for c in node.columns]
    fields["contract"] = node.contract.model_dump_json() if node.contract is not None else None
    try:  # version 0: the same bytes for equal values, whichever objects hold them
        form = marshal.dumps((tuple(fields), tuple(fields.values())), 0)
    except ValueError:  # a value marshal does not write
        form = node.model_dump_json().encode()
    return hashlib.sha256(form).hexdigest()


def _record_sha(position: int | None, digest: str) -> str:
    return hashlib.sha256(f"{position}:{digest}".encode()).hexdigest()


def open_records(graph: Graph, project: str) -> dict[str, dict[str, Any]]:
    """The open records of ``project``'s nodes (those of its latest build), by model key:
    id, key, sha256, position."""
    return {r["key"]: r for r in graph.read("read/list_node_records", project=project)}


def same_records(project: DbtProject, digests: dict[str, str], current: dict[str, dict[str, Any]]) -> set[str]:
    """The unique ids of the nodes whose record is the one stored open, wherever they now
    stand in the manifest (``digests``: :func:`node_digests`)."""
    same: set[str] = set()
    for uid, digest in digests.items():
        r = current.get(model_node_key(project.name, uid))
        if r is not None and r["sha256"] == _record_sha(r["position"], digest):
            same.add(uid)
    return same


def write_records(
    graph: Graph,
    project: DbtProject,
    build_id: int,
    digests: dict[str, str] | None = None,
    current: dict[str, dict[str, Any]] | None = None,
) -> int:
    """Store the records of ``project``'s nodes for build ``build_id`` (only those that changed).
    ``digests`` (:func:`node_digests`) and ``current`` (:func:`open_records`): when the
    caller has them already."""
    digests = node_digests(project) if digests is None else digests
    desired: dict[str, tuple[str, int, str]] = {}
    for position, (uid, digest) in enumerate(digests.items()):
        desired[model_node_key(project.name, uid)] = (uid, position, _record_sha(position, digest))
    current = open_records(graph, project.name) if current is None else current
    diff = changes({k: v[2] for k, v in desired.items()}, {k: (r["id"], r["sha256"]) for k, r in current.items()})
    graph.close_relationships(build_id, diff.close)
    written = 0
    for keys in batched(diff.create, RECORDS_AT_ONCE):  # a large project's records are never all text at once
        rows = [
            {"key": k, "record": project.nodes[desired[k][0]].model_dump_json(), "position": desired[k][1], "sha256": desired[k][2]}
            for k in keys
        ]
        written += graph.write_batches("write/create_node_records", rows, project=project.name, build_id=build_id)
    return written


def load_build_project(
    graph: Graph, name: str, build: dict[str, Any], unique_ids: list[str] | None = None, like: DbtProject | None = None,
) -> DbtProject:  # fmt: skip
    """The project as build ``build`` (a Build node's properties) read it; with ``unique_ids``,
    of those dbt nodes only, with every consumer and the tests of those nodes' columns.
    ``like``: a project whose nodes stand for the build's where their record is the one the
    build kept (the same digest, :func:`node_digests`): only the records of the others are
    read, and the nodes alike are ``like``'s own objects."""
    nodes: dict[str, DbtNode] = {}
    consumers: dict[str, dict[str, Any]] = {field: {} for field, _ in CONSUMER_RECORDS.values()}
    kept: list[tuple[int, str, DbtNode]] = []  # (position, unique id, node) of like's nodes the build read as they are
    if like is None:
        rows = graph.stream_values("read/list_build_records", project=name, build_id=build["id"], unique_ids=unique_ids)
    else:
        differ: list[str] = []
        for r in graph.read("read/list_build_record_digests", project=name, build_id=build["id"]):
            node = like.nodes.get(r["unique_id"])
            if node is not None and r["sha256"] == _record_sha(r["position"], _digest(node)):
                kept.append((r["position"] or 0, r["unique_id"], node))
            else:
                differ.append(r["unique_id"])
        rows = graph.stream_values("read/list_build_records_of", project=name, build_id=build["id"], unique_ids=differ)
    read: list[tuple[int, int, str, Any]] = []  # (position, order of arrival, kind, record): each JSON let go once read
    for n, (kind, record, position) in enumerate(rows):
        if record is not None and (kind == "node" or kind in CONSUMER_RECORDS):
            cls = DbtNode if kind == "node" else CONSUMER_RECORDS[kind][1]
            read.append((position or 0, n, kind, cls.model_validate_json(record)))
    read += [(position, -1, "node", node) for position, _, node in kept]
    for _, _, kind, rec in sorted(read, key=operator.itemgetter(0, 1)):  # relations are matched in the manifest's order
        if kind == "node":
            nodes[rec.unique_id] = rec
        else:
            consumers[CONSUMER_RECORDS[kind][0]][rec.unique_id] = rec
    if not nodes and unique_ids is None:
        raise NotFound(
            f"build {build['id']} of {name!r} holds no records of what it read (it was made by an older catalog): "
            "run `catalog build` again (`catalog check` can also compare with a target folder, --state)"
        )
    return DbtProject(
        name=name,
        target_dir="",
        adapter_type=build.get("adapter_type") or build.get("dialect") or "",
        dialect=build.get("dialect") or "",
        dbt_version=None,
        generated_at=build.get("generated_at"),
        manifest_sha256=build.get("manifest_sha256") or "",
        catalog_sha256=build.get("catalog_sha256"),
        masking_functions=tuple(build.get("masking_functions") or ()),
        nodes=nodes,
        **consumers,
    )


def load_build_lineages(
    graph: Graph, project: str, build_id: int, unique_ids: list[str] | None = None, columns: Collection[str] | None = None
) -> dict[str, ModelLineage]:
    """The analysis's ``ModelLineage`` of each analyzed model of build ``build_id`` (with
    ``unique_ids``, of those only; with ``columns``, column keys, of those columns only), read
    model by model (``list_build_model_lineage``) and made as the analysis makes them
    (:func:`unpack`, one ``ColumnRef`` per column): a large build's rows are never all in
    memory at once."""
    refs: RefCache = {}
    lineages: dict[str, ModelLineage] = {}
    keys = None if columns is None else [scoped_key(key, project) for key in columns]
    rows = graph.stream_values("read/list_build_model_lineage", project=project, build_id=build_id, unique_ids=unique_ids, column_keys=keys)
    for uid, resource_type, status, reason, found, conditions in rows:
        if resource_type not in ("model", "snapshot") or not status:
            continue
        found = found if columns is None else [c for c in found if column_key(uid, c[0]) in columns]
        found.sort(key=lambda c: (c[5] is None, c[5] or 0))  # by position (stable: then by key)
        packed = (
            uid, status, reason,
            [(name, kind, bool(resolved), expr or "", sorted(map(tuple, sources)), why)
             for name, kind, expr, resolved, why, _position, sources in found],
            sorted(conditions),
            None, None,
        )  # fmt: skip
        lineages[uid] = unpack(packed, refs)
    return lineages
