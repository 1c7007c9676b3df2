"""The consumers of a build in Neo4j: semantic models, metrics, exposures and saved queries.

Nodes hold their identity only (``key``, ``project``, ``unique_id``, ``name``,
``resource_type``), under the labels ``SemanticModel``, ``Metric``, ``Exposure`` and
``SavedQuery``. Everything else is versioned like the rest of the graph (``since``/``until``):

- ``(:Project)-[:DEFINES]->(consumer)``: the consumer in a build, with its properties then;
- ``(:SemanticModel)-[:HAS]->(:Column)``: its entities, dimensions and measures (kind, type,
  expr, agg);
- ``(:Test)-[:TESTS]->(:Column)``: a data test or unit test reads that column
  (:mod:`catalog.analyze.dbt_tests`); the test itself is DEFINED like a consumer, with its record;
- ``(:Column|:Metric)-[:INPUT_OF {type, expr}]->(:Column|:Metric|:Exposure|:SavedQuery)``: a
  model column into an entity, dimension or measure (type and expr as the analysis of its
  ``expr`` found them, like a FEEDS edge), a measure into a metric, a metric into a metric, a
  saved query or an exposure, a model column into an exposure. Kept apart from ``FEEDS`` so
  that model-level answers (reports, column impact) stay about models.
- BI (:mod:`catalog.bi`): ``(:Column)-[:FEEDS {type, expr}]->(:BIField)``, the columns a field
  reads; ``(:Chart)-[:SHOWS {role}]->(:BIField)``, ``(:Dashboard)-[:HOLDS]->(:Chart)`` and
  ``(:Dashboard)-[:SHOWS {role: filter}]->(:BIField)``; each BI node DEFINED with its tool, the
  tool's id, file, line and, for a field, ``status`` (``resolved``, ``unresolved``) and ``reason``.

A build compares the open relationships with the ones it wants, closes those that changed or
went and creates the new ones (:mod:`catalog.store.versioned`), so an unchanged consumer keeps
its relationships.
"""

from __future__ import annotations

import json
from typing import Any

from catalog.analyze.records import ColumnRef, ModelLineage
from catalog.analyze.semantic import ConsumerEdge
from catalog.analyze.dbt_tests import with_columns
from catalog.extract import DbtProject
from catalog.store.graph import Graph
from catalog.store.keys import column_node_key, model_node_key
from catalog.store.versioned import changes

LABELS = {
    "semantic_model": "SemanticModel", "metric": "Metric", "exposure": "Exposure", "saved_query": "SavedQuery", "test": "Test", "unit_test": "Test",
    "bi_field": "BIField", "chart": "Chart", "dashboard": "Dashboard",
}  # fmt: skip
Tested = dict[str, tuple[ColumnRef, ...]]  # test unique id -> the columns it reads
BIStatus = dict[str, tuple[str, str | None]]  # BI field unique id -> (resolved | unresolved, reason)


def write_consumers(
    graph: Graph,
    project: DbtProject,
    semantic: dict[str, ModelLineage],
    edges: list[ConsumerEdge],
    build_id: int,
    tested: Tested | None = None,
    bi_status: BIStatus | None = None,
) -> dict[str, int]:
    """Write the consumers and tests of ``project`` for build ``build_id`` (``tested``: the
    columns of each test, :func:`catalog.analyze.dbt_tests.columns_tested`; ``bi_status``: each
    BI field's status and reason, :class:`catalog.bi.link.Linked`); the counts written and closed."""
    name = project.name
    desired = _desired(project, semantic, edges) | _desired_tests(project, tested or {}) | _desired_bi(project, bi_status or {})
    current: dict[tuple, dict[str, Any]] = {}
    for r in graph.read("read/list_consumer_relationships", project=name):
        props = {k: v for k, v in (r["props"] or {}).items() if k not in ("since", "until")}
        current[(r["kind"], r["a"], r["b"])] = {"id": r["id"], "props": props}
    diff = changes({k: _stored(v) for k, v in desired.items()}, {k: (c["id"], c["props"]) for k, c in current.items()})
    to_close = diff.close
    to_create = {k: desired[k] for k in diff.create}
    nodes = [
        {"label": LABELS[uid.split(".", 1)[0]], "node": {"key": model_node_key(name, uid), "project": name, "unique_id": uid, "name": n, "resource_type": uid.split(".", 1)[0]}}
        for uid, n in _consumer_names(project).items()
    ]
    nodes += [
        {"label": LABELS[uid.split(".", 1)[0]], "node": {"key": model_node_key(name, uid), "project": name, "unique_id": uid, "name": x.name,
                                                         "resource_type": uid.split(".", 1)[0], "tool": x.tool, "tool_id": x.tool_id}}
        for table in (project.bi_fields, project.charts, project.dashboards)
        for uid, x in table.items()
    ]  # fmt: skip
    columns = [
        {"node": {"key": k[2], "project": name, "unique_id": v["_uid"], "model_name": v["_model_name"], "name": v["_name"]}}
        for k, v in to_create.items()
        if k[0] == "has"
    ]
    graph.write_batches("write/merge_consumers", nodes)
    graph.write_batches("write/merge_columns", columns)
    closed = graph.close_relationships(build_id, to_close)
    rows: dict[str, list[dict[str, Any]]] = {"defines": [], "has": [], "input_of": [], "tests": [], "bi_feeds": [], "bi_links": []}
    for (kind, a, b), props in to_create.items():
        if kind == "defines":
            rows[kind].append({"key": a, "props": props})
        elif kind == "tests":
            rows[kind].append({"test": a, "column": b})
        elif kind == "has":
            rows[kind].append({"model": a, "column": b, "props": _stored(props)})
        elif kind in ("shows", "holds"):
            rows["bi_links"].append({"kind": kind, "up": a, "down": b, "role": props.get("role")})
        else:
            rows[kind].append({"up": a, "down": b, **props})
    written = graph.write_batches("write/create_defines", rows["defines"], project=name, build_id=build_id)
    written += graph.write_batches("write/create_semantic_columns", rows["has"], build_id=build_id)
    written += graph.write_batches("write/create_inputs", rows["input_of"], build_id=build_id)
    written += graph.write_batches("write/create_tests", rows["tests"], build_id=build_id)
    written += graph.write_batches("write/create_bi_feeds", rows["bi_feeds"], build_id=build_id)
    written += graph.write_batches("write/create_bi_links", rows["bi_links"], build_id=build_id)
    return {"consumers": len(nodes), "consumer_relationships_written": written, "consumer_relationships_closed": closed}


def _consumer_names(project: DbtProject) -> dict[str, str]:
    out: dict[str, str] = {}
    for table in (project.semantic_models, project.metrics, project.exposures, project.saved_queries, project.tests):
        out.update({uid: c.name for uid, c in table.items()})
    return out


def _desired(project: DbtProject, semantic: dict[str, ModelLineage], edges: list[ConsumerEdge]) -> dict[tuple, dict[str, Any]]:
    name = project.name
    mkey = lambda uid: model_node_key(name, uid)  # noqa: E731
    out: dict[tuple, dict[str, Any]] = {}
    for uid, sm in project.semantic_models.items():
        out[("defines", mkey(uid), None)] = _clean({"description": sm.description, "model": sm.model, "record": sm.model_dump_json()})
        for i, e in enumerate(sm.elements):
            key = column_node_key(name, uid, e.name)
            props = {"kind": e.kind, "type": e.type, "expr": e.expr, "agg": e.agg, "description": e.description, "position": i}
            # _-prefixed: the column node's identity, not stored on HAS (and compared with nothing)
            out[("has", mkey(uid), key)] = _clean(props) | {"_uid": uid, "_model_name": f"semantic_model:{sm.name}", "_name": e.name}
    for uid, m in project.metrics.items():
        out[("defines", mkey(uid), None)] = _clean(
            {"type": m.type, "label": m.label, "description": m.description, "expr": m.expr, "definition": m.definition, "record": m.model_dump_json()}
        )
    for uid, x in project.exposures.items():
        out[("defines", mkey(uid), None)] = _clean(
            {
                "type": x.type, "label": x.label, "url": x.url, "maturity": x.maturity, "owner": x.owner,
                "description": x.description, "precision": x.precision, "record": x.model_dump_json(),
            }  # fmt: skip
        )
    for uid, q in project.saved_queries.items():
        out[("defines", mkey(uid), None)] = _clean({"description": q.description, "record": q.model_dump_json()})
    for uid, lin in semantic.items():  # model column -> entity, dimension or measure, as analyzed
        for c in lin.columns:
            down = column_node_key(name, uid, c.name)
            for src in c.sources:
                out[("input_of", column_node_key(name, src.unique_id, src.column), down)] = _clean({"type": c.kind.value, "expr": c.expr})
    for up, down, typ, expr in edges:  # a column id or a metric's unique id: keyed alike
        kind = down.split(".", 1)[0]
        if kind == "bi_field":  # a column a BI field reads
            out[("bi_feeds", mkey(up), mkey(down))] = _clean({"type": typ, "expr": expr})
        elif kind in ("chart", "dashboard"):  # stored the other way: the chart SHOWS the field, the dashboard HOLDS the chart
            out[(typ, mkey(down), mkey(up))] = _clean({"role": expr})
        else:
            out[("input_of", mkey(up), mkey(down))] = _clean({"type": typ, "expr": expr})
    return out


def _desired_bi(project: DbtProject, status: BIStatus) -> dict[tuple, dict[str, Any]]:
    """Each BI field, chart and dashboard DEFINED with its tool, id, file, line (a field: its
    kind, table, SQL, status and reason) and its record."""
    out: dict[tuple, dict[str, Any]] = {}
    for uid, f in project.bi_fields.items():
        state, reason = status.get(uid, ("unresolved", "not linked"))
        props = {"tool": f.tool, "tool_id": f.tool_id, "label": f.label, "kind": f.kind, "table": f.table, "model": f.node,
                 "expr": f.sql, "file": f.file, "line": f.line, "status": state, "reason": reason}  # fmt: skip
        out[("defines", model_node_key(project.name, uid), None)] = _clean(props | {"record": f.model_dump_json()})
    for table in (project.charts, project.dashboards):
        for uid, c in table.items():
            props = {"tool": c.tool, "tool_id": c.tool_id, "label": c.name, "file": c.file, "line": c.line, "record": c.model_dump_json()}
            if getattr(c, "reason", ""):  # a chart a dashboard names that no file defines
                props |= {"status": "unresolved", "reason": c.reason}
            out[("defines", model_node_key(project.name, uid), None)] = _clean(props | {"kind": getattr(c, "kind", "dashboard")})
    return out


def _desired_tests(project: DbtProject, tested: Tested) -> dict[tuple, dict[str, Any]]:
    """Each test DEFINED with its record (its columns read, :func:`with_columns`), and a TESTS
    relationship to each of its columns."""
    out: dict[tuple, dict[str, Any]] = {}
    for uid, test in project.tests.items():
        refs = tested.get(uid, ())
        key = model_node_key(project.name, uid)
        record = with_columns(test, refs).model_dump_json()
        out[("defines", key, None)] = _clean({"kind": test.kind, "test": test.test, "model": test.model, "record": record})
        for r in refs:
            out[("tests", key, column_node_key(project.name, r.unique_id, r.column))] = {}
    return out


def _stored(props: dict[str, Any]) -> dict[str, Any]:
    """What is stored on the relationship (``_``-prefixed keys are the column node's identity)."""
    return {k: v for k, v in props.items() if not k.startswith("_")}


def _clean(props: dict[str, Any]) -> dict[str, Any]:
    """Neo4j stores no nulls or maps: drop empty values, JSON-encode the rest that is not plain."""
    return {k: (v if isinstance(v, (str, int, float, bool)) else json.dumps(v)) for k, v in props.items() if v not in (None, "")}
