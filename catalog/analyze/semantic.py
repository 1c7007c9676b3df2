"""The consumers of a project's models: semantic models, metrics, exposures and saved queries.

A semantic model's entities, dimensions and measures are columns: each ``expr`` is SQL over
the columns of the model the semantic model reads, analyzed by the model analyzer as if it
were ``select <expr> as <name> from <model>``, so a measure gets column edges exactly like a
model column. Metrics read their measures (simple, cumulative, conversion) or their input
metrics (ratio, derived); saved queries read their metrics; an exposure reads the columns its
``meta.referenced_columns`` lists, else every column of the models, sources and seeds it depends
on, and the metrics it names. Consumers are keyed by
their unique id (``metric.shop.order_total``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from catalog.analyze.project import ProjectColumns, analyze_node
from catalog.analyze.records import ModelLineage, ModelStatus, column_key
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtExposure, DbtNode, DbtProject, DbtSemanticModel, measure_owners

# (upstream key, consumer key, type, expr): what :class:`catalog.lineage.records.LineageGraph` takes
ConsumerEdge = tuple[str, str, str, str]


def semantic_lineage(
    project: DbtProject, analyzed: Mapping[str, Sequence[str]]
) -> tuple[dict[str, ModelLineage], list[ConsumerEdge]]:
    """The lineage of every semantic model (keyed by its unique id) and the edges to metrics,
    saved queries and exposures. ``analyzed``: the column names of the models analyzed
    (:func:`~catalog.analyze.records.column_names`)."""
    semantic: dict[str, ModelLineage] = {}
    if project.semantic_models:
        relations = RelationIndex.for_project(project)
        columns = ProjectColumns(project)
        columns.update_analyzed({uid: list(names) for uid, names in analyzed.items()})
        for uid, sm in sorted(project.semantic_models.items()):
            lin = _analyze(project, sm, relations, columns)
            if lin is not None:
                semantic[uid] = lin
    return semantic, consumer_edges(project, analyzed)


def _analyze(project: DbtProject, sm: DbtSemanticModel, relations: RelationIndex, columns: ProjectColumns) -> ModelLineage | None:
    model = project.nodes.get(sm.model or "")
    if model is None or not model.relation_name or not sm.elements:
        return None
    seen: dict[str, str] = {}
    for e in sm.elements:
        seen.setdefault(e.name, e.expr)
    whole = _node(sm, model, list(seen.items()), project.dialect)
    lin = analyze_node(whole, project.dialect, relations, columns)
    if lin.status != ModelStatus.FAILED:
        return lin
    # one bad expression must not hide the others: analyze them one by one
    parts = [analyze_node(_node(sm, model, [item], project.dialect), project.dialect, relations, columns) for item in seen.items()]
    cols = tuple(c for p in parts for c in p.columns)
    conds = tuple(sorted({c for p in parts for c in p.conditions}, key=lambda c: (c.column.key, c.clause.value)))
    failed = [p.reason for p in parts if p.status == ModelStatus.FAILED]
    return ModelLineage(
        unique_id=sm.unique_id,
        status=ModelStatus.PARTIAL if failed else ModelStatus.RESOLVED,
        reason=failed[0] if failed else None,
        columns=cols,
        conditions=conds,
    )


def _node(sm: DbtSemanticModel, model: DbtNode, items: list[tuple[str, str]], dialect: str) -> DbtNode:
    select = ",\n  ".join(f"{expr} as {exp.to_identifier(name, quoted=True).sql(dialect)}" for name, expr in items)
    return DbtNode(
        unique_id=sm.unique_id,
        resource_type="model",
        package_name=sm.unique_id.split(".")[1],
        name=sm.name,
        sql=f"select\n  {select}\nfrom {model.relation_name}",
        sql_origin="compiled",
        depends_on=(model.unique_id,),
    )


def consumer_edges(project: DbtProject, analyzed: Mapping[str, Sequence[str]]) -> list[ConsumerEdge]:
    edges: list[ConsumerEdge] = []
    owners = measure_owners(project)
    for uid, metric in sorted(project.metrics.items()):
        for name in metric.measures:
            sm = project.semantic_models[owners[name]]
            e = sm.element(name)
            edges.append((column_key(sm.unique_id, name), uid, "measure", f"{e.agg}({e.expr})" if e and e.agg else name))
        for up in metric.metrics:
            if up in project.metrics:
                edges.append((up, uid, "metric", metric.expr or metric.type or ""))
    for uid, sq in sorted(project.saved_queries.items()):
        for up in sq.depends_on:
            if up in project.metrics:
                edges.append((up, uid, "metric", ""))
    for uid, ex in sorted(project.exposures.items()):
        for up in ex.depends_on:
            if up in project.metrics:
                edges.append((up, uid, "metric", ""))
                continue
            node = project.nodes.get(up)
            if node is None:
                continue
            names = list(analyzed.get(up) or ()) or [c.key_name(project.dialect) for c in node.columns]
            edges += [(column_key(up, n), uid, "exposure", "") for n in exposure_columns(ex, up, names)]
    return edges


def exposure_columns(exposure: DbtExposure, up: str, names: list[str]) -> list[str]:
    """The columns of node ``up`` (whose columns are ``names``, [] when unknown) that the exposure
    reads: those its ``referenced_columns`` name, else every one."""
    if not exposure.referenced_columns:
        return names
    wanted = {r.name for r in exposure.referenced_columns if r.node == up or (r.node is None and r.written_node is None)}
    return [n for n in names if n in wanted] if names else sorted(wanted)


def semantic_changes(old: DbtProject, new: DbtProject) -> list[tuple[str, str, tuple[str, ...], str]]:
    """(unique id, element or metric name, kinds, detail) for every semantic-model element and
    metric added, removed or changed between two versions of a project."""
    out: list[tuple[str, str, tuple[str, ...], str]] = []
    for uid in sorted(set(old.semantic_models) | set(new.semantic_models)):
        a, b = old.semantic_models.get(uid), new.semantic_models.get(uid)
        if a is None or b is None:
            continue  # a whole semantic model added or removed: its metrics say it
        before = {e.name: e for e in a.elements}
        after = {e.name: e for e in b.elements}
        for name in sorted(set(before) | set(after)):
            x, y = before.get(name), after.get(name)
            if x is None:
                out.append((uid, name, ("added",), f"new {y.kind}"))
            elif y is None:
                out.append((uid, name, ("removed",), f"{x.kind} removed"))
            elif (x.expr, x.agg) != (y.expr, y.agg):
                out.append((uid, name, ("expression",), f"{x.kind} expr {x.expr!r} -> {y.expr!r}" + (f", agg {x.agg} -> {y.agg}" if x.agg != y.agg else "")))
            elif x.description != y.description:
                out.append((uid, name, ("documentation",), f"{x.kind} description"))
    for uid in sorted(set(old.metrics) | set(new.metrics)):
        a, b = old.metrics.get(uid), new.metrics.get(uid)
        if a is None:
            out.append((uid, b.name, ("added",), f"new {b.type or ''} metric".replace("  ", " ")))
        elif b is None:
            out.append((uid, a.name, ("removed",), "metric removed"))
        elif a.definition != b.definition:
            out.append((uid, b.name, ("expression",), "type, inputs, expression or filter changed"))
        elif (a.description, a.label) != (b.description, b.label):
            out.append((uid, b.name, ("documentation",), "description or label"))
    return out
