"""Each tool's answer as JSON data, from a :mod:`catalog.mcp.stored` source.

Impact and trace are the CLI's answers (:class:`~catalog.query.BuildView` over a stored build,
the same walk over :class:`~catalog.mcp.view.ProjectView` in memory), written by the report
layer's :func:`~catalog.report.answers.answer_dict`. Every list is one page
(:func:`catalog.mcp.pages.page`): ``total``, ``truncated`` and ``next_cursor`` say what is left.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from catalog.mcp.pages import BadArgument, check_limit, cursor_offset, page, question
from catalog.memory import paused_gc
from catalog.query import Answer
from catalog.report.answers import answer_dict, answer_selector
from catalog.store.keys import unscoped_key

DIRECTIONS = ("upstream", "downstream", "both")
FAIL_ON = ("breaking", "partial", "never")
TESTED_KINDS = ("model", "snapshot", "seed", "source")  # the nodes the report's test coverage counts


def _where(project: str, build_id: int | None) -> dict[str, Any]:
    return {"project": project, "build": build_id}


def search(src: Any, query: str, kinds: list[str] | None, limit: int, cursor: str | None, project: str | None, build: int | None) -> dict[str, Any]:
    from catalog.mcp.view import SEARCH_KINDS

    unknown = sorted(set(kinds or ()) - set(SEARCH_KINDS))
    if unknown:
        raise BadArgument(f"unknown kind {', '.join(map(repr, unknown))}: give some of {', '.join(SEARCH_KINDS)}")
    upto = check_limit(limit) + cursor_offset(cursor)  # the pages up to this one: what a stored build's search reads
    with paused_gc():  # a hundred thousand small tuples at 20,000 models in memory, no cycles
        index = src.search_index(project, build, query, kinds, upto)
        ranked = index.ranked(query, kinds)
    asked = question("search", index.project, query, sorted(kinds or ()))
    shown, bounds = page(ranked, limit, cursor, index.build_id, asked, total=len(ranked) + index.unread)
    return {**_where(index.project, index.build_id), "query": query, **bounds, "results": [index.hit(found) for found in shown]}


def column_lineage(
    src: Any, column: str, direction: str, depth: int | None, conditions: bool, limit: int, cursor: str | None,
    project: str | None, build: int | None,
) -> dict[str, Any]:  # fmt: skip
    if direction not in DIRECTIONS:
        raise BadArgument(f"direction {direction!r}: give upstream, downstream or both")
    _check_depth(depth)
    view, start = src.column(project, build, column, direction, depth, conditions)
    found = view.lineage(start, direction, depth)
    p = view.project
    shown, bounds = page(found, limit, cursor, view.build_id, question("column_lineage", p, start.key, direction, depth, conditions))
    nodes, edges = [], []
    for col, distance, side, near in shown:
        nodes.append({
            "column": unscoped_key(col.id.key, p), "model": col.id.model, "name": col.id.name, "unique_id": col.id.unique_id,
            "direction": side, "distance": distance, "type": col.kind, "expr": col.expr,
        })  # fmt: skip
        edges += [{"from": unscoped_key(e.up, p), "to": unscoped_key(e.down, p), "type": e.type, "expr": e.expr} for e in near]
    out: dict[str, Any] = {**_where(p, view.build_id), "column": unscoped_key(start.key, p), "direction": direction, "depth": depth,
                           **bounds, "nodes": nodes, "edges": edges}  # fmt: skip
    if conditions:
        keys = [start.key] + [col.id.key for col, *_ in shown]
        out["conditions"] = [
            {"column": unscoped_key(c.column, p), "model": c.model, "unique_id": c.unique_id, "clause": c.clause}
            for c in view._condition_uses(keys)
        ]
    return out


def _check_depth(depth: int | None) -> None:
    if depth is not None and depth < 1:
        raise BadArgument(f"depth {depth}: give 1 or more, or leave it out for any depth")


def _hits(answer: Answer, kind: str) -> list[dict[str, Any]]:
    data = answer_dict(answer, kind)
    hits = [{"kind": c["kind"], **{k: v for k, v in c.items() if k != "kind"}} for c in data.get("consumers", ())]
    return hits + [{"kind": "column", **c} for c in data["columns"]]


def impact(
    src: Any, columns: list[str], depth: int | None, conditions: bool, limit: int, cursor: str | None, project: str | None, build: int | None
) -> dict[str, Any]:
    if not columns:
        raise BadArgument("name at least one column as MODEL.COLUMN")
    _check_depth(depth)
    answer = src.asker(project, build).impact(columns, max_depth=depth, with_conditions=conditions)
    counts = {"models": len(answer.models()), "columns": len(answer.columns)}
    for kind in ("metric", "exposure", "saved_query", "semantic_model", "bi_field", "chart", "dashboard"):
        hit = sum(1 for c in answer.consumers if c.kind == kind)
        if hit or kind not in ("bi_field", "chart", "dashboard"):  # BI counts only where a build has BI fields hit
            counts[f"{kind}s" if kind != "saved_query" else "saved_queries"] = hit
    hits = _hits(answer, "impact")
    if conditions:
        counts["conditions"] = len(answer.conditions)
        hits += [{"kind": "condition", **c} for c in answer_dict(answer, "impact")["conditions"]]
    shown, bounds = page(hits, limit, cursor, answer.build_id or None, question("impact", answer.project, [c.key for c in answer.asked], depth, conditions))
    return {
        **_where(answer.project, answer.build_id or None),
        "columns_asked": [c.label for c in answer.asked],
        "summary": {**counts, "selector": answer_selector(answer)},
        **bounds,
        "hits": shown,
    }


def trace(src: Any, column: str, depth: int | None, limit: int, cursor: str | None, project: str | None, build: int | None) -> dict[str, Any]:
    _check_depth(depth)
    answer = src.asker(project, build).trace([column], max_depth=depth)
    data = answer_dict(answer, "trace")
    roots = [c for c in data["columns"] if c["resource_type"] in ("source", "seed")]
    shown, bounds = page(data["columns"], limit, cursor, answer.build_id or None, question("trace", answer.project, [c.key for c in answer.asked], depth))
    return {
        **_where(answer.project, answer.build_id or None),
        "asked": data["columns_asked"][0],
        "summary": {"columns": len(data["columns"]), "models": len(data["models"]), "sources_and_seeds": len(roots)},
        **bounds,
        "columns": shown,
    }


def path(src: Any, start: str, end: str, project: str | None, build: int | None) -> dict[str, Any]:
    asker = src.asker(project, build)
    target = asker.resolve(end)
    answer = asker.impact([start], with_conditions=True)
    p = answer.project
    data = answer_dict(answer, "impact")
    by_key = {r.column.key: r for r in answer.columns}
    value = by_key.get(target.key)
    out: dict[str, Any] = {**_where(p, answer.build_id or None), "from": answer.asked[0].label, "to": target.label}
    out["value_path"] = next((c["path"] for c in data["columns"] if c["column"] == unscoped_key(target.key, p)), None) if value else None
    condition = None
    for c in answer.conditions:  # the shortest way to a column that filters, joins or groups the target's model
        if c.unique_id != target.unique_id:
            continue
        hops = [] if c.column == answer.asked[0].key else [
            {"from": unscoped_key(h.from_key, p), "to": unscoped_key(h.to_key, p), "type": h.type, "expr": h.expr} for h in by_key[c.column].hops
        ]  # fmt: skip
        if condition is None or len(hops) < len(condition["path"]):
            condition = {"column": unscoped_key(c.column, p), "clause": c.clause, "model": c.model, "path": hops}
    out["condition_path"] = condition
    out["why_none"] = None
    if value is None and condition is None:
        back = asker.impact([end])
        reverse = any(r.column.key == answer.asked[0].key for r in back.columns)
        out["why_none"] = (
            f"{target.label} is upstream of {answer.asked[0].label}, not downstream: ask path the other way round"
            if reverse
            else f"{target.label} is not downstream of {answer.asked[0].label}: no value reaches it and no column it reaches "
            f"filters, joins or groups {target.model}"
        )
    return out


def model(src: Any, name: str, limit: int, cursor: str | None, project: str | None, build: int | None) -> dict[str, Any]:
    view, node = src.node(project, build, name)
    cols = []
    for key in node.columns:
        c = view.columns[key]
        cols.append({
            "name": c.id.name, "data_type": c.data_type, "description": c.description, "pii": c.pii,
            "type": c.kind, "expr": c.expr, "resolved": c.resolved, "reason": c.reason,
            "tests": [{"name": t.name, "unique_id": t.unique_id, "kind": t.kind, "test": t.test} for t in view.tests.get(key, ())],
        })  # fmt: skip
    shown, bounds = page(cols, limit, cursor, view.build_id, question("model", view.project, node.unique_id))
    coverage = {"tested": sum(1 for c in cols if c["tests"]), "columns": len(cols)} if node.kind in TESTED_KINDS else None

    def named(side: str, uids: set[str]) -> dict[str, Any]:
        """The first ``limit`` parents or children, and how many there are."""
        listed = [{"kind": view.nodes[u].kind, "name": view.nodes[u].name, "unique_id": u} for u in sorted(uids)]
        return {side: listed[:limit], f"{side}_total": len(listed), f"{side}_truncated": len(listed) > limit}

    return {
        **_where(view.project, view.build_id),
        "kind": node.kind, "name": node.name, "unique_id": node.unique_id, "materialized": node.materialized or None,
        "description": node.description, "status": node.status or None, "reason": node.reason or None,
        **named("parents", view.parents.get(node.unique_id, set())), **named("children", view.children.get(node.unique_id, set())),
        "test_coverage": coverage, **bounds, "columns": shown,
    }  # fmt: skip


def projects(src: Any, limit: int, cursor: str | None) -> dict[str, Any]:
    from catalog.history import BuildInfo

    graph = src.graph()
    rows = graph.read("read/list_projects")
    newest = max((r["active_build_id"] or 0 for r in rows), default=0)
    shown, bounds = page(rows, limit, cursor, newest or None, question("projects"))
    out = []
    for r in shown:
        active = graph.find_active_build(r["name"])
        info = BuildInfo.from_row(active) if active else None
        out.append({"project": r["name"], "active_build": r["active_build_id"], "models": info.models_total if info else None,
                    "built_at": info.finished_at if info else None})  # fmt: skip
    return {**bounds, "projects": out}


def builds(src: Any, project: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
    from catalog.history import list_builds

    name = src.project_name(project)
    rows = [b.model_dump() for b in list_builds(src.graph(), name)]
    shown, bounds = page(rows, limit, cursor, rows[0]["id"] if rows else None, question("builds", name))
    return {"project": name, **bounds, "builds": shown}


def diff(src: Any, a: int | None, b: int | None, project: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
    from catalog.history import diff_builds

    name = src.project_name(project)
    d = diff_builds(src.graph(), name, a, b)
    changes = [{"what": "edge", **e.model_dump()} for e in d.edges]
    changes += [{"what": "status", **s.model_dump()} for s in d.statuses]
    changes += [{"what": "column", **c.model_dump()} for c in d.columns]
    shown, bounds = page(changes, limit, cursor, d.to_build, question("diff", name, d.from_build, d.to_build))
    return {"project": name, "from_build": d.from_build, "to_build": d.to_build, "summary": d.counts(), **bounds, "changes": shown}


def history(src: Any, column: str, upstream: bool, since: str | None, limit: int, cursor: str | None, project: str | None) -> dict[str, Any]:
    from catalog.column_history import node_history

    h = node_history(src.graph(), src.project_name(project), column, since=since, upstream=upstream)
    data = h.model_dump()
    asked = question("history", h.project, h.key, upstream, since)
    shown, bounds = page(data.pop("rows"), limit, cursor, h.read_at, asked)
    return {**data, **bounds, "rows": shown}


def cypher(src: Any, query: str, params: dict[str, Any] | None, limit: int, cursor: str | None, timeout: float | None) -> dict[str, Any]:
    from catalog.mcp.limits import check_params, check_query, within
    from catalog.mcp.pages import check_limit, cursor_at, offset_of

    check_limit(limit)
    check_query(query)
    check_params(params)
    asked = question("cypher", query, params or {})
    start = offset_of(cursor, None, asked)
    graph = src.graph()
    seconds = timeout if timeout is not None else graph.timeout
    answer = within(seconds, lambda: graph.read_any(query, params or {}, start, limit, seconds))
    end = start + len(answer.rows)
    return {
        "columns": answer.columns, "total": answer.total, "total_counted": answer.total is not None, "limit": limit,
        "truncated": answer.more, "next_cursor": cursor_at(end, None, asked) if answer.more else None, "rows": _plain(answer.rows),
    }  # fmt: skip


def _plain(value: Any) -> Any:
    """Neo4j's values as JSON: temporal and spatial values as their text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def check_change(src: Any, base_target: str, target: str, fail_on: str, limit: int, cursor: str | None) -> dict[str, Any]:
    from catalog.check_change import check_change as checked_change

    if fail_on not in FAIL_ON:
        raise BadArgument(f"fail_on {fail_on!r}: give breaking, partial or never")
    checked = checked_change(Path(target), state=base_target, jobs=src.jobs)
    data = checked.report.to_dict()
    findings = data.pop("findings", [])
    shown, bounds = page(findings, limit, cursor, None, question("check_change", base_target, target, fail_on))
    warnings = [w.model_dump(mode="json") for w in (*checked.base_warnings, *checked.current_warnings)]
    failing = checked.report.failing(fail_on)  # type: ignore[arg-type]
    return {**data, "fail_on": fail_on, "fails": bool(failing), "warnings": warnings, **bounds, "findings": shown}


def unused(src: Any, models: list[str] | None, end_models: bool, limit: int, cursor: str | None, project: str | None, build: int | None) -> dict[str, Any]:
    """``catalog unused``'s answer, one column a row, paged."""
    from catalog.report.unused import notes
    from catalog.unused_columns import find_unused

    found = find_unused(src.whole_build(project, build), models, end_models)
    rows = [{"model": m.model, "unique_id": m.unique_id, "resource_type": m.resource_type, "end_model": m.end_model,
             "incomplete_dependents": list(m.incomplete_dependents), **c.model_dump()}
            for m in found.models for c in m.columns]  # fmt: skip
    shown, bounds = page(rows, limit, cursor, found.build, question("unused", found.project, list(found.asked), end_models))
    return {**_where(found.project, found.build), "end_models": end_models, "asked": list(found.asked), "counts": found.counts(),
            "notes": notes(found), **bounds, "columns": shown}  # fmt: skip


def graph_schema() -> str:
    return resources.files("catalog.mcp").joinpath("graph_schema.md").read_text(encoding="utf-8")

