"""The explorer's data holds the BI fields, charts and dashboards of a project read with its
BI folders (the Lightdash jaffle shop, read where it stands in ../shared/bi): a model column
into the fields that read it, a field into the charts that show it, a chart into its dashboard."""

from __future__ import annotations

from pathlib import Path

from catalog.analyze.project import analyze_project
from catalog.bi.sources import read_bi
from catalog.export.openlineage import export_input
from catalog.extract import load_project
from catalog.report.explorer import explorer_data, read_columns

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bi"


def test_bi_nodes_and_their_uses(shared_dir: Path) -> None:
    root = shared_dir / "bi" / "lightdash-jaffle-shop" / "dbt"
    project = read_bi(load_project(root), root, [root / "charts", FIXTURES / "lightdash_dashboard"])
    d = explorer_data(export_input(project, analyze_project(project, jobs=1), consumers=True))
    uids = [n[2] for n in d["nodes"]]
    kinds = {n[2]: n[0] for n in d["nodes"]}
    assert kinds["chart.lightdash.regional-sales-total-row-total-demo"] == "chart"
    assert kinds["dashboard.lightdash.sales-overview"] == "dashboard"
    assert kinds["bi_field.lightdash.regional_sales_total_revenue"] == "bi_field"
    keys = read_columns(d)["key"]
    uses = {(keys[d["uses"][i]], uids[d["uses"][i + 1]], d["use_types"][d["uses"][i + 2]]) for i in range(0, len(d["uses"]), 3)}
    assert ("model.jaffle_shop.regional_sales.revenue", "bi_field.lightdash.regional_sales_total_revenue", "derived") in uses
    node_uses = {(uids[d["node_uses"][i]], uids[d["node_uses"][i + 1]], d["use_types"][d["node_uses"][i + 2]]) for i in range(0, len(d["node_uses"]), 3)}
    assert ("bi_field.lightdash.regional_sales_total_revenue", "chart.lightdash.regional-sales-total-row-total-demo", "shows") in node_uses
    assert ("chart.lightdash.regional-sales-total-row-total-demo", "dashboard.lightdash.sales-overview", "holds") in node_uses
