"""The report read from a real Neo4j on a real corpus project and a synthetic one: the build's
columns read in parts side by side give the rows of one read (the any-depth sections are then
walked in memory: tests/lineage), test coverage counted in memory over the build's columns, and
the JSON report written as it is made."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from catalog.query import BuildView
from catalog.report.governance import collect_report, report_parts
from catalog.report.governance_render import report_json, write_report_json
from catalog.store.report_reads import ALL_ROWS

pytestmark = [pytest.mark.neo4j, pytest.mark.corpus]


def _synth(shared_dir: Path, tmp_path: Path, models: int, seed: int) -> Path:
    out = tmp_path / "synth"
    cmd = [sys.executable, str(shared_dir / "tools" / "synth_dbt.py"), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return out / "target"


def _read_in_parts(graph, name: str) -> None:
    """The report reads the build's columns in parts side by side: any split gives the same rows."""
    catalog = BuildView(graph, name)
    params = {"project": name, "build_id": catalog.build_id}
    whole = graph.read_values("read/report_build_columns", **params, skip=0, limit=ALL_ROWS)
    assert whole
    for split in (0, 1, len(whole) // 2, len(whole)):
        first = graph.read_values("read/report_build_columns", **params, skip=0, limit=split)
        rest = graph.read_values("read/report_build_columns", **params, skip=split, limit=ALL_ROWS)
        assert first + rest == whole and len(first) == split


@pytest.mark.parametrize("corpus", ["jaffle-shop", "tuva"])
def test_report_of_a_corpus_project(build, graph, project_name, shared_dir, corpus):
    build(shared_dir / "corpus" / corpus / "target", project_name)
    _read_in_parts(graph, project_name)
    _compare_tests_and_json(graph, project_name)


def test_report_of_a_synth_project(build, graph, project_name, shared_dir, tmp_path):
    build(_synth(shared_dir, tmp_path, 250, 5), project_name)
    _read_in_parts(graph, project_name)
    _compare_tests_and_json(graph, project_name)


def test_report_of_the_example(build, graph, project_name, example):
    build(example, project_name)
    _read_in_parts(graph, project_name)
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
