"""The report's any-depth sections computed in memory (catalog/report/reach.py) against the
any-depth Cypher they replace, on a real corpus project and a synthetic one in a real Neo4j:
reach and models reached of every column, every PII column's reach with depths, and the
nearest documented columns of every undocumented column. Where several shortest paths exist,
each side may name a different one: both must be shortest paths of the same length. On the same
builds, test coverage (also counted in memory) and the JSON report written as it is made."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from catalog.query import BuildView
from catalog.report.governance import ALL_ROWS, _details, _walked_rows, collect_report, inheritable_rows, report_parts
from catalog.report.governance_render import report_json, write_report_json
from catalog.report.reach import COPY_TYPES, BuildLineage

pytestmark = [pytest.mark.neo4j, pytest.mark.corpus]


def _synth(shared_dir: Path, tmp_path: Path, models: int, seed: int) -> Path:
    out = tmp_path / "synth"
    cmd = [sys.executable, str(shared_dir / "tools" / "synth_dbt.py"), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return out / "target"


def _path_types(walked: BuildLineage, start: str, end: str, depth: int, backward: bool = False) -> set[tuple[str, ...]]:
    """The hop types of every path of ``depth`` hops from ``start`` to ``end`` (in path order;
    ``backward``: along copying edges upstream, intermediates undocumented, types from ``end`` down)."""
    ways: dict[int, set[tuple[str, ...]]] = {walked.index[start]: {()}}
    into: dict[int, list[tuple[int, str]]] = {}
    if backward:
        for u, (outs, kinds) in enumerate(zip(walked.out, walked.out_types)):
            for d, k in zip(outs, kinds):
                if k in COPY_TYPES:
                    into.setdefault(d, []).append((u, k))
    for step in range(depth):
        nxt: dict[int, set[tuple[str, ...]]] = {}
        for node, seqs in ways.items():
            if backward and step and walked.documented[node]:
                continue
            edges = into.get(node, []) if backward else list(zip(walked.out[node], walked.out_types[node]))
            for other, kind in edges:
                nxt.setdefault(other, set()).update(((kind,) + s) if backward else (s + (kind,)) for s in seqs)
        ways = nxt
    return ways.get(walked.index[end], set())


def _compare(graph, name: str) -> None:
    catalog = BuildView(graph, name)
    params = {"project": name, "build_id": catalog.build_id}
    whole = graph.read_values("read/report_build_columns", **params, skip=0, limit=ALL_ROWS)
    walked = BuildLineage(whole)
    # the report reads the build in parts side by side: any split gives the same rows
    for split in (0, 1, len(whole) // 2, len(whole)):
        first = graph.read_values("read/report_build_columns", **params, skip=0, limit=split)
        rest = graph.read_values("read/report_build_columns", **params, skip=split, limit=ALL_ROWS)
        assert first + rest == whole and len(first) == split

    # reach, models reached and fan-out of every column with a downstream edge
    old = graph.read("read/report_most_depended_on", **params, limit=1_000_000)
    assert old, f"{name}: no column with a downstream edge"
    new = walked.most_reaching(len(old) + 10)
    assert [(r["key"], r["fanout"], r["reach"], r["models_reached"]) for r in old] == [tuple(r) for r in new]
    top = walked.most_reaching(30)
    assert [tuple(r) for r in top] == [tuple(r) for r in new[:30]]  # the bounded search finds the same top

    rows = _walked_rows(walked, 30, lambda keys: _details(graph, params, keys))
    old_top = graph.read("read/report_most_depended_on", **params, limit=30)
    assert rows["depended_on"] == old_top

    # PII: every column reached, at the same depth, along a shortest path
    old_pii = graph.read("read/report_pii_propagation", **params)
    new_pii = {r["key"]: r for r in rows["pii"]}
    assert sorted(new_pii) == sorted(r["key"] for r in old_pii)
    ties = 0
    for r in old_pii:
        mine = new_pii[r["key"]]
        assert {k: v for k, v in mine.items() if k != "reaches"} == {k: v for k, v in r.items() if k != "reaches"}
        theirs = {d["key"]: d for d in r["reaches"]}
        ours = {d["key"]: d for d in mine["reaches"]}
        assert sorted(ours) == sorted(theirs)
        for key, d in theirs.items():
            o = ours[key]
            assert {k: v for k, v in o.items() if k != "types"} == {k: v for k, v in d.items() if k != "types"}
            if o["types"] != d["types"]:
                ties += 1
                assert {tuple(o["types"]), tuple(d["types"])} <= _path_types(walked, r["key"], key, d["depth"])

    # inheritable descriptions: the nearest documented columns of every undocumented column
    nearest: dict[str, list[dict]] = {}
    for r in graph.read("read/report_inheritable_descriptions", **params):
        near = nearest.setdefault(r["key"], [])
        if not near or r["distance"] < near[0]["distance"]:
            near[:] = [r]
        elif r["distance"] == near[0]["distance"]:
            near.append(r)
    ours_inh: dict[str, list[dict]] = {}
    for r in inheritable_rows(walked):
        ours_inh.setdefault(r["key"], []).append(r)
    assert sorted(ours_inh) == sorted(nearest)
    for key, theirs_rows in nearest.items():
        by_from = {r["from_key"]: r for r in ours_inh[key]}
        assert sorted(by_from) == sorted(r["from_key"] for r in theirs_rows)
        for t in theirs_rows:
            o = by_from[t["from_key"]]
            assert {k: v for k, v in o.items() if k != "types"} == {k: v for k, v in t.items() if k != "types"}
            if o["types"] != t["types"]:
                ties += 1
                paths = _path_types(walked, key, t["from_key"], t["distance"], backward=True)
                assert {tuple(o["types"]), tuple(t["types"])} <= paths
    print(f"{name}: {len(old)} columns ranked, {len(old_pii)} PII columns, {len(nearest)} inheritable; {ties} equally short alternatives")


@pytest.mark.parametrize("corpus", ["jaffle-shop", "tuva"])
def test_in_memory_sections_equal_the_any_depth_cypher_on_a_corpus_project(build, graph, project_name, shared_dir, corpus):
    build(shared_dir / "corpus" / corpus / "target", project_name)
    _compare(graph, project_name)
    _compare_tests_and_json(graph, project_name)


def test_in_memory_sections_equal_the_any_depth_cypher_on_a_synth_project(build, graph, project_name, shared_dir, tmp_path):
    build(_synth(shared_dir, tmp_path, 250, 5), project_name)
    _compare(graph, project_name)
    _compare_tests_and_json(graph, project_name)


def test_example_report_equals_the_any_depth_cypher(build, graph, project_name, example):
    build(example, project_name)
    _compare(graph, project_name)
    _compare_tests_and_json(graph, project_name)


def _compare_tests_and_json(graph, name: str) -> None:
    """Test coverage, counted in memory over the build's columns and ``list_build_tests``,
    against the columns ``list_column_properties`` lists; and the JSON report written as its
    long lists are made (as plain JSON, without their records) against the collected report's
    records dumped, byte for byte."""
    catalog = BuildView(graph, name)
    params = {"project": name, "build_id": catalog.build_id}
    report = collect_report(catalog)
    columns: dict[str, set[str]] = defaultdict(set)
    for r in graph.read("read/list_column_properties", **params):  # the read unpacks its one row
        columns[r["unique_id"]].add(r["key"])
    read = {k for t in graph.read("read/list_build_tests", **params) for k in t["columns"]}
    expected = {uid: (len(keys), len(keys & read)) for uid, keys in columns.items()}
    assert {m.unique_id: (m.columns, m.tested) for m in report.tests.models} == expected
    assert report.tests.tested == sum(t for _, t in expected.values()) > 0

    out = io.StringIO()
    with report_parts(catalog) as parts:
        write_report_json(out, parts)
    assert out.getvalue() == report_json(report)
    doc = json.loads(out.getvalue())
    assert doc["undocumented"]["columns"] and doc["inheritable"] and doc["unused"]
