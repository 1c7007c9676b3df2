"""The columns of a BI tool's own SQL (a LookML derived table, a Lightdash SQL chart, a Metabase native card), each with
the dbt columns it reads: the SQL analyzed like a model's, its tables matched to the project's
relations."""

from __future__ import annotations

from catalog.analyze.project import ProjectColumns, analyze_node
from catalog.analyze.records import ColumnKind, ModelStatus
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtNode, DbtProject

Sources = dict[str, tuple[tuple[str, str], ...]]  # output column -> (node unique id, column) it reads


def sql_columns(project: DbtProject, relations: RelationIndex, name: str, sql: str) -> tuple[Sources, str]:
    """Each output column of ``sql`` with the columns it reads, and why it could not be analyzed ("" when it was)."""
    columns, problem = sql_lineage(project, relations, name, sql)
    return {c: reads for c, (reads, _, _) in columns.items()}, problem


def sql_lineage(project: DbtProject, relations: RelationIndex, name: str, sql: str) -> tuple[dict[str, tuple[tuple[tuple[str, str], ...], str, bool]], str]:
    """:func:`sql_columns`, with each output column's expression and whether it is an upstream
    column unchanged (passthrough or renamed)."""
    node = DbtNode(unique_id=f"bi_sql.{name}", resource_type="model", package_name="bi", name=name, sql=sql, sql_origin="compiled")
    lin = analyze_node(node, project.dialect, relations, ProjectColumns(project))
    if lin.status == ModelStatus.FAILED:
        return {}, lin.reason or "not analyzed"
    copies = (ColumnKind.PASSTHROUGH, ColumnKind.RENAMED)
    return {c.name: (tuple((s.unique_id, s.column) for s in c.sources), c.expr, c.kind in copies) for c in lin.columns}, ""
