"""The report's sections walked in memory over the build's column graph
(:class:`catalog.lineage.graph.ColumnGraph`, read once with ``report_build_columns``): the most
depended-on columns, PII and where its values flow, the descriptions an undocumented column
could inherit, and test coverage with the untested columns that matter. The walks are
:mod:`catalog.lineage`'s; here they become the rows and records of the report.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from catalog.extract import PII_META_KEYS, PII_TAGS  # the rule that sets Column.pii
from catalog.lineage import graph as column_graph
from catalog.lineage.graph import ColumnGraph, Nearest
from catalog import walks
from catalog.walks import COPY_TYPES
from catalog.report.governance_model import (
    DbtTestCoverage,
    DependedOn,
    Inheritable,
    ModelTests,
    UntestedColumn,
    col_record,
    col_json,
    other_project,
)


# ---------------------------------------------------------------------------- most depended on, PII
def walked_rows(
    walked: ColumnGraph, limit: int, details: Callable[[list[str]], dict[str, list[Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """The rows ``report_most_depended_on`` and ``report_pii_propagation`` return, computed
    over the build's edges in memory (those of ``report_inheritable_descriptions``:
    :func:`inheritable_rows`)."""
    ranked = column_graph.most_reaching(walked, limit)
    pii_keys = walked.pii_columns()
    pii_reach = {k: column_graph.downstream(walked, k) for k in pii_keys}
    unmasked = {k: column_graph.unmasked_reach(walked, k) for k in pii_keys}
    # names and flags of the build's columns came with the edges; the few rows that show more
    # (conditions, tags, meta), and columns fed from outside the build if any, are read here
    wanted = {r.key for r in ranked} | set(pii_keys)
    wanted.update(d.key for reaches in pii_reach.values() for d in reaches if walked.names[walked.index[d.key]] is None)
    info = details(sorted(wanted))

    def reached(key: str) -> dict[str, Any]:
        i = walked.index[key]
        names = walked.names[i]
        if names is None:
            return {"key": key, "unique_id": info[key][1], "model": info[key][2], "column": info[key][3], "pii": info[key][6]}
        return {"key": key, "unique_id": names[0], "model": names[1], "column": names[2], "pii": walked.pii[i]}

    depended_on = [
        {"key": r.key, "unique_id": info[r.key][4], "model": info[r.key][2], "column": info[r.key][3],
         "description": info[r.key][5], "pii": info[r.key][6], "fanout": r.fanout, "reach": r.reach,
         "models_reached": r.models_reached, "conditions": info[r.key][9]}
        for r in ranked
    ]
    pii = [
        {"key": k, "unique_id": info[k][4], "model": info[k][2], "column": info[k][3], "tags": info[k][7], "meta": info[k][8],
         "reaches": [reached(d.key) | {"depth": d.depth, "types": list(d.types), "masked": d.key not in unmasked[k]} for d in reaches]}
        for k, reaches in pii_reach.items()
    ]
    return {"depended_on": depended_on, "pii": pii}


def tagged_by(tags: list[str] | None, meta: str | None) -> tuple[str, ...]:
    found = [f"tag {t}" for t in (tags or []) if str(t).lower() in PII_TAGS]
    try:
        meta_dict = json.loads(meta) if meta else {}
    except ValueError:
        meta_dict = {}
    if isinstance(meta_dict, dict):
        found += [f"meta {k}" for k, v in meta_dict.items() if str(k).lower() in PII_META_KEYS and v]
    return tuple(sorted(found)) or ("pii",)


def pii_section(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields of :class:`Pii` from the rows of ``report_pii_propagation``, as their JSON, the
    PII columns made as they are read."""
    reached: dict[str, tuple[dict[str, Any], bool]] = {}  # key -> (Col's JSON, tagged PII)
    unmasked: set[str] = set()
    for r in rows:
        for d in r["reaches"]:
            if d["key"] not in reached:
                reached[d["key"]] = (col_json(d["model"], d["unique_id"], d["column"], other_project(d["key"], r["key"])), bool(d["pii"]))
            if not d.get("masked"):
                unmasked.add(d["key"])
    order = sorted(reached.items(), key=lambda kv: (kv[1][0]["model"], kv[1][0]["name"], kv[1][0]["unique_id"]))
    return {
        "columns": (pii_column(r, reached) for r in sorted(rows, key=lambda r: (r["model"] or r["unique_id"], r["column"], r["unique_id"]))),
        "reached": tuple(c for _, (c, _) in order),
        "untagged": tuple(c for k, (c, tagged) in order if not tagged and k in unmasked),
        "masked": tuple(c for k, (c, _) in order if k not in unmasked),
    }


def pii_column(r: dict[str, Any], reached: dict[str, tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    """A :class:`PiiColumn`'s JSON, its reaches :class:`PiiReach`'s."""
    reaches = []
    for d in r["reaches"]:
        masked, types = bool(d.get("masked")), list(d["types"])
        effect = "masked" if masked else "copied" if all(t in COPY_TYPES for t in types) else "transformed"
        reaches.append({"column": reached[d["key"]][0], "depth": d["depth"], "types": types, "tagged": bool(d["pii"]),
                        "masked": masked, "effect": effect})
    reaches.sort(key=lambda x: (x["depth"], x["column"]["model"], x["column"]["name"], x["column"]["unique_id"]))
    return {"column": col_json(r["model"], r["unique_id"], r["column"]), "tagged_by": list(tagged_by(r["tags"], r["meta"])),
            "reaches": reaches}


def depended_on_record(r: dict[str, Any]) -> DependedOn:
    return DependedOn(
        key=r["key"], column=col_record(r["model"], r["unique_id"], r["column"]), description=r["description"] or None,
        pii=bool(r["pii"]), fanout=r["fanout"], reach=r["reach"], models_reached=r["models_reached"],
        conditions=r["conditions"],
    )


# ---------------------------------------------------------------------------- inheritable descriptions
def inheritable_descriptions(walked: ColumnGraph) -> tuple[Inheritable, ...]:
    """What each undocumented model and snapshot column of ``walked`` could inherit, as the
    report's records (``catalog docs`` reads them)."""
    return tuple(Inheritable.model_validate(i) for i in inheritable_stream(walked))


def inheritable_stream(walked: ColumnGraph, found: dict[str, list[Nearest]] | None = None) -> Iterator[dict[str, Any]]:
    """:func:`inheritable_descriptions` in the report's order (by model, column and unique id),
    each :class:`Inheritable`'s JSON made as it is read: per column, its nearest candidates and
    the description they agree on (None when they disagree). ``found``: ``column_graph.inheritable(walked)``,
    when made already (it is emptied as the records are made)."""
    found = column_graph.inheritable(walked) if found is None else found
    index, names, unique_ids, descriptions = walked.index, walked.names, walked.unique_id, walked.description

    def named(key: str) -> tuple[str, str, str, str]:
        i = index[key]
        _, model, column = names[i]  # type: ignore[misc]
        unique_id = unique_ids[i] or ""
        return (model or unique_id, column, unique_id, key)

    def candidate(n: Nearest) -> dict[str, Any]:
        u = index[n.key]
        from_unique_id, from_model, from_column = names[u]  # type: ignore[misc]
        return {"column": col_json(from_model, from_unique_id, from_column), "description": (descriptions[u] or "").strip(),
                "hops": list(n.types)}  # fmt: skip

    for model, column, unique_id, key in sorted(map(named, found)):
        near = found.pop(key)  # let each answer go once written
        if len(near) == 1:  # most columns: one candidate
            candidates = [candidate(near[0])]
        else:
            nearest = min(n.distance for n in near)
            best = []
            for n in near:
                if n.distance == nearest:
                    _, from_model, from_column = names[index[n.key]]  # type: ignore[misc]
                    best.append((from_model or "", from_column, n.key, n))
            candidates = [candidate(n) for *_, n in sorted(best)]
        first = candidates[0]
        agreed = all(c["description"] == first["description"] for c in candidates)
        yield {
            "column": col_json(model, unique_id, column),
            "description": first["description"] if agreed else None,
            "source": first["column"] if agreed else None,
            "hops": first["hops"] if agreed else [],
            "candidates": candidates,
            "conflict": not agreed,
        }


def inheritable_rows(walked: ColumnGraph) -> list[dict[str, Any]]:
    """The rows ``report_inheritable_descriptions`` returns, computed in memory."""
    rows = []
    for k, near in column_graph.inheritable(walked).items():
        i = walked.index[k]
        _, model, column = walked.names[i]  # type: ignore[misc]
        for n in near:
            u = walked.index[n.key]
            from_unique_id, from_model, from_column = walked.names[u]  # type: ignore[misc]
            rows.append(
                {"key": k, "unique_id": walked.unique_id[i], "model": model, "column": column, "from_key": n.key,
                 "from_unique_id": from_unique_id, "from_model": from_model, "from_column": from_column,
                 "description": walked.description[u], "distance": n.distance, "types": list(n.types)}
            )
    return rows


# ---------------------------------------------------------------------------- tests
class Tested(NamedTuple):
    """Per node its test counts, and the columns that matter later."""

    models: list[ModelTests]
    untested: list[int]  # the columns no test reads (numbers of ColumnGraph)
    protected: dict[str, str]  # column key -> its public or contracted model


def tested_columns(model_rows: list[dict[str, Any]], test_rows: list[dict[str, Any]], walked: ColumnGraph) -> Tested:
    """Which columns of each node a test reads: the nodes are ``report_model_coverage``'s rows,
    their columns those of the build in ``walked``, the tests ``list_build_tests``'s, each with
    the columns it reads."""
    read = {key for t in test_rows for key in t["columns"]}
    by_node: dict[str | None, list[int]] = defaultdict(list)
    for i, (unique_id, in_build) in enumerate(zip(walked.unique_id, walked.in_build)):
        if in_build:
            by_node[unique_id].append(i)
    folded = Tested([], [], {})
    keys = walked.keys
    for r in model_rows:
        columns = by_node.get(r["unique_id"])
        if not columns:
            continue
        untested = [i for i in columns if keys[i] not in read]
        folded.models.append(ModelTests(unique_id=r["unique_id"], name=r["name"], resource_type=r["resource_type"],
                                        columns=len(columns), tested=len(columns) - len(untested)))  # fmt: skip
        folded.untested.extend(untested)
        if r["resource_type"] == "model" and (r["access"] == "public" or r["contract"]):
            folded.protected.update((keys[i], r["name"]) for i in columns)
    return folded


def dbt_test_coverage(
    folded: Tested, test_rows: list[dict[str, Any]], input_rows: list[dict[str, Any]], walked: ColumnGraph
) -> DbtTestCoverage:
    """From :func:`_tested`, ``list_build_tests`` and ``report_consumer_inputs``, with the
    build's FEEDS walked in memory for what each untested column reaches."""
    models, protected, untested = folded.models, folded.protected, folded.untested
    models.sort(key=lambda m: (m.tested_pct, m.name, m.unique_id))
    inputs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in input_rows:
        inputs[r["up"]].append((r["down"], f"{r['kind']}:{r['name']}"))
    rows: list[UntestedColumn] = []
    feeding = walked.feeding(set(protected) | set(inputs))
    for i in untested:
        key = walked.keys[i]
        if key not in protected and key not in inputs and i not in feeding:
            continue  # feeds nothing that matters: its reach is not walked
        reach = {walked.keys[d] for d in column_graph.reach_set(walked, i)}
        guarded_models = sorted({protected[k] for k in reach | {key} if k in protected})
        consumers = sorted(consumers_fed(reach | {key}, inputs))
        if guarded_models or consumers:
            unique_id, model, column = walked.names[i]  # type: ignore[misc]
            rows.append(UntestedColumn(column=col_record(model, unique_id, column), downstream_columns=len(reach), protected_models=tuple(guarded_models),
                                       consumers=tuple(consumers)))  # fmt: skip
    rows.sort(key=lambda u: (-u.downstream_columns, -len(u.consumers), u.column.model, u.column.name, u.column.unique_id))
    by_kind = {k: 0 for k in ("generic", "singular", "unit")}
    for t in test_rows:
        by_kind[t["kind"]] = by_kind.get(t["kind"], 0) + 1
    return DbtTestCoverage(
        tests=len(test_rows), by_kind=by_kind, columns=sum(m.columns for m in models), tested=sum(m.tested for m in models),
        models=tuple(models), untested=tuple(rows),
    )  # fmt: skip


def consumers_fed(keys: set[str], inputs: dict[str, list[tuple[str, str]]]) -> set[str]:
    """kind:name of everything INPUT_OF edges reach from ``keys``, at any depth."""
    inputs_of = {up: [down for down, _ in edges] for up, edges in inputs.items()}
    fed = keys | walks.reached([k for k in keys if k in inputs], lambda k: inputs_of.get(k, ()))
    return {label for k in fed for _, label in inputs.get(k, ())}
