"""Generated SQL of any width and deep nesting: a long UNION ALL chain is one left-deep tree
in sqlglot, and SQL nested deeper than ``MAX_NESTING`` parentheses is refused with its reason."""

from __future__ import annotations

import pytest
from sqlcases import MODEL_UID, Case, build_project, run_case

from catalog.analyze.model import MAX_NESTING, ModelAnalyzer
from catalog.analyze.packed import unpack
from catalog.analyze.project import ProjectColumns
from catalog.analyze.relations import RelationIndex


def _union_all(width: int) -> Case:
    sql = "\nunion all\n".join(f"select id, amount * {i} as amount, 'b{i}' as tag from t{i}" for i in range(width))
    schema = {f"t{i}": ["id", "amount"] for i in range(width)}
    return Case(file="generated", line=1, title=f"union all of {width}", sql=sql, schema=schema)


def _nested(depth: int) -> Case:
    """``depth`` derived tables, one inside the other: ``depth`` levels of parentheses."""
    sql = "select id, v from " + "(select id, v from " * (depth - 1) + "(select id, amount + 1 as v from t0) as s" + ") as s" * (depth - 1)
    return Case(file="generated", line=1, title=f"nested {depth}", sql=sql, schema={"t0": ["id", "amount"]})


def _with_definitions(case: Case):
    project = build_project(case)
    analyzer = ModelAnalyzer(
        MODEL_UID, case.sql, case.dialect, RelationIndex.for_project(project), ProjectColumns(project), table_columns=lambda uid: None
    )
    packed = analyzer.run_packed()
    return unpack(packed), packed[5]


@pytest.mark.parametrize("width", [500, 2000])
def test_union_all_of_any_width(width: int) -> None:
    """Exact edges, and the ``prune --state`` fingerprints, which follow the same chain."""
    lineage, found = _with_definitions(_union_all(width))
    assert lineage.status.value == "resolved", lineage.reason
    got = {c.name: (c.kind.value, c.resolved, sorted((s.unique_id, s.column) for s in c.sources)) for c in lineage.columns}
    assert got == {
        "id": ("passthrough", True, sorted((f"t{i}", "id") for i in range(width))),
        "amount": ("derived", True, sorted((f"t{i}", "amount") for i in range(width))),
        "tag": ("source", True, []),
    }
    assert found is not None and set(found.columns) == {"id", "amount", "tag"}
    if width == 500:  # the fingerprints still tell every branch apart
        _, fewer = _with_definitions(_union_all(width - 1))
        assert fewer is not None and fewer.rows != found.rows and fewer.columns["amount"] != found.columns["amount"]
        assert fewer.columns["id"] != found.columns["id"]


def test_nesting_at_the_documented_depth_is_analyzed() -> None:
    lineage, found = _with_definitions(_nested(MAX_NESTING))
    assert lineage.status.value == "resolved", lineage.reason
    got = {c.name: (c.kind.value, sorted((s.unique_id, s.column) for s in c.sources)) for c in lineage.columns}
    assert got == {"id": ("passthrough", [("t0", "id")]), "v": ("derived", [("t0", "amount")])}
    assert found is not None


@pytest.mark.parametrize(
    "sql",
    [
        _nested(MAX_NESTING + 1).sql,
        "select " + "(" * (MAX_NESTING + 1) + "id" + ")" * (MAX_NESTING + 1) + " as x from t0",
        "select id from t0 where " + "coalesce(" * (MAX_NESTING + 1) + "id" + ", 0)" * (MAX_NESTING + 1) + " > 1",
    ],
    ids=["derived tables", "parentheses", "function calls"],
)
def test_one_level_past_the_documented_depth_gives_its_reason(sql: str) -> None:
    case = Case(file="generated", line=1, title="too deep", sql=sql, schema={"t0": ["id", "amount"]}, output=["id", "v"])
    lineage = run_case(case)
    assert lineage.status.value == "unresolved"
    assert lineage.reason == f"SQL nested {MAX_NESTING + 1} parentheses deep: at most {MAX_NESTING} levels are analyzed"
    assert [(c.name, c.kind.value, c.resolved) for c in lineage.columns] == [("id", "unknown", False), ("v", "unknown", False)]
