"""The columns nothing reads (catalog/lineage/unused.py) on the bundled example analyzed in
memory: any other node a column feeds (a BI field, a column of another dbt project) reads it
like a consumer, and what feeds it only through unused columns is read again with it."""

from __future__ import annotations

from pathlib import Path

from catalog.analyze.dbt_tests import columns_tested
from catalog.analyze.project import analyze_project
from catalog.check import lineage_graph
from catalog.extract import load_project
from catalog.lineage.unused import END_MODEL, NO_READER, ONLY_UNUSED, Reader, ReadNode, readers_in_memory, unused_columns

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"


def _example() -> list[ReadNode]:
    project = load_project(EXAMPLE)
    lineages = analyze_project(project, jobs=1)
    return readers_in_memory(lineage_graph(project, lineages), columns_tested(project, lineages))


def _listed(nodes: list[ReadNode], end_models: bool = True) -> dict[str, str]:
    return {f"{m.model}.{c.column}": c.reason for m in unused_columns(nodes, end_models) for c in m.columns}


def _read_by(nodes: list[ReadNode], model: str, column: str, reader: Reader) -> list[ReadNode]:
    """``nodes`` with ``reader`` added to the readers of ``model.column``."""
    out = []
    for n in nodes:
        columns = tuple(c._replace(readers=(*c.readers, reader)) if (n.name, c.name) == (model, column) else c for c in n.columns)
        out.append(n._replace(columns=columns))
    return out


def test_a_bi_field_reads_a_column_and_what_feeds_it():
    nodes = _example()
    before = _listed(nodes)
    # customer_segments is an end model: its segment is read by nothing in the catalog, and
    # customers.lifetime_value only by end-model columns
    assert before["customer_segments.segment"] == END_MODEL
    assert before["customers.lifetime_value"] == ONLY_UNUSED
    # a chart's field reading segment (FEEDS to a BI field node, whatever its label)
    field = Reader("bifield", "example/lightdash/customer_segments_segment", "customer_segments_segment")
    after = _listed(_read_by(nodes, "customer_segments", "segment", field))
    # segment is read now, and the end model is no longer one: its other columns are unused
    # with no reader, and lifetime_value, which segment is computed from, is read again
    assert "customer_segments.segment" not in after
    assert after["customer_segments.email"] == NO_READER
    assert "customers.lifetime_value" not in after
    assert "customers.order_count" not in after  # segment is computed from it too
    assert after["customers.email"] == ONLY_UNUSED  # customer_segments.email, unused, reads it
    assert set(after) < set(before)


def test_a_column_of_another_project_reads_a_column():
    nodes = _example()
    assert _listed(nodes)["product_sales.revenue"] == END_MODEL
    consumer = Reader("column", "finance/model.finance.sales.revenue", "finance:sales.revenue")
    after = _listed(_read_by(nodes, "product_sales", "revenue", consumer))
    assert "product_sales.revenue" not in after
    assert after["product_sales.units_sold"] == NO_READER  # read by another project: not an end model
    assert _listed(_read_by(nodes, "product_sales", "revenue", consumer), end_models=False)["product_sales.units_sold"] == NO_READER
