"""Whole-project analysis: bad models never stop the others, every model says why it has no
lineage, nothing outside the analyzer is changed, and each model is parsed exactly once."""

from __future__ import annotations

import copy

import pytest
from sqlglot.dialects.dialect import Dialect

from catalog.analyze import project as project_mod
from catalog.analyze.model import ModelAnalyzer
from catalog.analyze.project import ProjectColumns, analyze_project
from catalog.analyze.records import ColumnKind, ModelStatus
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtColumn, DbtNode, DbtProject


def node(uid: str, sql: str | None = None, columns: tuple[str, ...] = (), **kw) -> DbtNode:
    name = uid.rsplit(".", 1)[-1]
    resource_type = kw.pop("resource_type", uid.split(".", 1)[0])
    return DbtNode(
        unique_id=uid,
        resource_type=resource_type,
        package_name="p",
        name=name,
        relation_name=kw.pop("relation_name", f'"db"."main"."{name}"'),
        materialized=kw.pop("materialized", "table"),
        sql=sql,
        sql_origin="compiled" if sql else None,
        columns=tuple(DbtColumn(name=c, in_catalog=True) for c in columns),
        depends_on=tuple(kw.pop("depends_on", ())),
        **kw,
    )


def make_project(nodes: list[DbtNode]) -> DbtProject:
    return DbtProject(
        name="p",
        target_dir="/nonexistent",
        adapter_type="duckdb",
        dialect="duckdb",
        dbt_version=None,
        manifest_sha256="",
        catalog_sha256=None,
        nodes={n.unique_id: n for n in nodes},
    )


def messy_project() -> DbtProject:
    src = "source.p.raw.orders"
    return make_project(
        [
            node(src, columns=("id", "amount"), relation_name='"db"."raw"."orders"'),
            node("model.p.good", 'select id, amount * 2 as doubled from "db"."raw"."orders"', ("id", "doubled"), depends_on=[src]),
            node("model.p.broken", "select id,, from ((( where", depends_on=[src]),  # not built: not in the catalog
            node("model.p.after_broken", 'select * from "db"."main"."broken"', depends_on=["model.p.broken"]),
            node("model.p.py", None, ("a",), language="python"),
            node("model.p.no_sql", None, ("a",)),
            node("model.p.not_select", "create table x (a int)", ("a",)),
            node("model.p.outside", "select a from somewhere_else.t", ("a",)),
            node("model.p.downstream", 'select id from "db"."main"."good"', ("id",), depends_on=["model.p.good"]),
            node(
                "snapshot.p.snap",
                'select * from "db"."main"."good"',
                ("id", "doubled", "dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to"),
                depends_on=["model.p.good"],
                relation_name='"db"."snapshots"."snap"',
            ),
        ]
    )


def test_bad_models_never_stop_the_others() -> None:
    result = analyze_project(messy_project(), jobs=1)
    assert result["model.p.good"].status == ModelStatus.RESOLVED
    assert result["model.p.downstream"].status == ModelStatus.RESOLVED
    assert [s.key for s in result["model.p.downstream"].column("id").sources] == ["model.p.good.id"]
    assert result["model.p.broken"].status == ModelStatus.FAILED
    assert "cannot parse" in result["model.p.broken"].reason
    assert result["model.p.py"].status == ModelStatus.OPAQUE
    assert "python" in result["model.p.py"].reason
    assert result["model.p.no_sql"].status == ModelStatus.UNRESOLVED
    assert result["model.p.not_select"].status == ModelStatus.UNRESOLVED
    assert result["model.p.outside"].status == ModelStatus.UNRESOLVED
    assert "not a node" in result["model.p.outside"].reason
    # select * over a model that failed and is not in the catalog: no columns known, says why
    assert result["model.p.after_broken"].status == ModelStatus.UNRESOLVED
    assert "cannot be expanded" in result["model.p.after_broken"].reason


def test_every_model_without_lineage_says_why() -> None:
    result = analyze_project(messy_project(), jobs=1)
    assert set(result) == {n.unique_id for n in messy_project().models()}
    for uid, lineage in result.items():
        if lineage.status != ModelStatus.RESOLVED:
            assert lineage.reason, uid
            for col in lineage.columns:
                if not col.resolved:
                    assert col.reason, (uid, col.name)
                    assert col.kind == ColumnKind.UNKNOWN or col.sources, (uid, col.name)


def test_an_analysis_that_raises_is_failed_and_the_rest_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ModelAnalyzer.run_packed

    def run_packed(self: ModelAnalyzer):
        if self.unique_id == "model.p.good":
            raise RuntimeError("boom")
        return real(self)

    monkeypatch.setattr(ModelAnalyzer, "run_packed", run_packed)
    result = analyze_project(messy_project(), jobs=1)
    assert result["model.p.good"].status == ModelStatus.FAILED
    assert "RuntimeError: boom" in result["model.p.good"].reason
    assert [c.name for c in result["model.p.good"].columns] == ["id", "doubled"]  # catalog names kept
    assert result["model.p.downstream"].status == ModelStatus.RESOLVED


def test_parallel_and_serial_analysis_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    serial = analyze_project(messy_project(), jobs=1)
    monkeypatch.setattr(project_mod, "PARALLEL_MIN_MODELS", 0)
    parallel = analyze_project(messy_project(), jobs=2)
    assert parallel == serial


def test_snapshot_meta_columns_are_source() -> None:
    snap = analyze_project(messy_project(), jobs=1)["snapshot.p.snap"]
    assert snap.status == ModelStatus.RESOLVED
    for name in ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to"):
        col = snap.column(name)
        assert col is not None and col.kind == ColumnKind.SOURCE and col.sources == () and col.resolved
    assert snap.column("doubled").kind == ColumnKind.PASSTHROUGH
    assert [s.key for s in snap.column("doubled").sources] == ["model.p.good.doubled"]


def test_the_analyzer_changes_nothing_it_is_given() -> None:
    project = messy_project()
    before = copy.deepcopy(project.model_dump())
    relations = RelationIndex.for_project(project)
    columns = ProjectColumns(project)
    rel_state = copy.deepcopy(vars(relations))
    # what the analysis adds (its columns) and names worked out on first use aside
    own = ("_analyzed", "_named")
    col_state = copy.deepcopy({k: v for k, v in vars(columns).items() if k not in own})

    def served() -> dict[str, tuple]:
        return {uid: (columns.catalog(uid), columns.declared(uid), columns.all_known(uid)) for uid in project.nodes}

    names_before = copy.deepcopy(served())
    sql = project.nodes["model.p.good"].sql
    first = ModelAnalyzer("model.p.good", sql, "duckdb", relations, columns, ["id", "doubled"]).run()
    second = ModelAnalyzer("model.p.good", sql, "duckdb", relations, columns, ["id", "doubled"]).run()
    assert first == second
    analyze_project(project, jobs=1)
    assert project.model_dump() == before
    assert vars(relations) == rel_state
    assert {k: v for k, v in vars(columns).items() if k not in own} == col_state
    assert served() == names_before


def test_each_model_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = Dialect.parse

    def counting(self, sql: str, **opts):
        calls.append(sql)
        return real(self, sql, **opts)

    monkeypatch.setattr(Dialect, "parse", counting)
    project = messy_project()
    analyze_project(project, jobs=1)
    with_sql = [n.sql for n in project.models() if n.sql and n.language == "sql"]
    assert sorted(calls) == sorted(with_sql)


def test_packed_records_equal_validated_ones() -> None:
    from catalog.analyze.packed import pack, unpack
    from catalog.analyze.records import ColumnLineage, ColumnRef, Condition, ConditionClause, ModelLineage

    ref = ColumnRef(unique_id="model.p.a", column="x")
    built = ModelLineage(
        unique_id="model.p.b",
        status=ModelStatus.PARTIAL,
        reason="1 of 2 columns unresolved: why",
        columns=(
            ColumnLineage(name="x", kind=ColumnKind.PASSTHROUGH, resolved=True, expr="x", sources=(ref,)),
            ColumnLineage(name="y", kind=ColumnKind.UNKNOWN, resolved=False, expr="", reason="why"),
        ),
        conditions=(Condition(column=ref, clause=ConditionClause.WHERE),),
    )
    again = unpack(pack(built))
    assert again == built
    assert again.model_dump() == built.model_dump()
    assert again.model_fields_set == built.model_fields_set
    assert hash(again.columns[0].sources[0]) == hash(ref)
    assert again.model_copy(update={"reason": None}).reason is None


def test_packed_records_share_what_no_copy_changes() -> None:
    """Records made from packed form share one set of their fields (a large lineage's memory):
    a copy with an update has its own, and a record refuses a new value."""
    from pydantic import ValidationError

    from catalog.analyze.packed import unpack

    columns = [("x", "passthrough", True, "x", [("model.p.a", "x")], ""), ("y", "derived", True, "x + 1", [("model.p.a", "x")], "")]
    lineage = unpack(("model.p.b", "resolved", "", columns, [], None, None))
    x, y = lineage.columns
    assert x.model_fields_set is y.model_fields_set
    fields = set(x.model_fields_set)
    renamed = x.model_copy(update={"name": "z"})
    assert renamed.name == "z" and x.name == "x"
    assert x.model_fields_set == y.model_fields_set == fields
    with pytest.raises(ValidationError):
        x.name = "w"  # type: ignore[misc]
    assert y.model_fields_set == fields and y == lineage.columns[1]
