"""Column-level exposures: ``meta.referenced_columns`` (or ``config.meta``'s) feed an exposure
from exactly the columns it lists; without it, every column of its models (no Neo4j).

examples/mesh/finance: the exposure customer_dashboard depends on customer_revenue and lists
`email` and `revenue`; board_report depends on monthly_revenue (revenue_month, revenue) and
revenue_by_country (country_code, revenue) and lists none. customer_revenue's compiled SQL:
`c.email` (pass-through), `sum(o.amount) as revenue`, `count(*) as order_count`;
revenue_by_country sums customer_revenue.revenue.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.analyze.records import column_names
from catalog.analyze.semantic import consumer_edges
from catalog.cli.app import app
from catalog.extract import input_warnings, load_project
from edits import edit_manifest, edit_sql
from test_check import check, summary

FINANCE = Path(__file__).resolve().parents[2] / "examples" / "mesh" / "finance" / "target"
REVENUE = "model.finance.customer_revenue"
DASHBOARD = "exposure.finance.customer_dashboard"
BOARD = "exposure.finance.board_report"


def exposure_inputs(target: Path) -> dict[str, list[str]]:
    project = load_project(target)
    out: dict[str, list[str]] = {}
    for up, down, kind, _ in consumer_edges(project, column_names(analyze_project(project, jobs=1))):
        if kind == "exposure":
            out.setdefault(down, []).append(up)
    return {k: sorted(v) for k, v in out.items()}


def copy(tmp_path: Path) -> Path:
    dst = tmp_path / "target"
    shutil.copytree(FINANCE, dst)
    return dst


def test_referenced_columns_feed_the_exposure_alone():
    project = load_project(FINANCE)
    assert {e.name: e.precision for e in project.exposures.values()} == {"customer_dashboard": "column", "board_report": "model"}
    assert [(r.node, r.name, r.data_type) for r in project.exposures[DASHBOARD].referenced_columns] == [
        (REVENUE, "email", "varchar"),
        (REVENUE, "revenue", None),
    ]
    assert exposure_inputs(FINANCE) == {
        DASHBOARD: [f"{REVENUE}.email", f"{REVENUE}.revenue"],
        BOARD: [
            "model.finance.monthly_revenue.revenue",
            "model.finance.monthly_revenue.revenue_month",
            "model.finance.revenue_by_country.country_code",
            "model.finance.revenue_by_country.revenue",
        ],
    }
    assert input_warnings(project) == []


def test_config_meta_with_nodes_and_an_unknown_column_is_a_warning(tmp_path):
    target = copy(tmp_path)

    def change(manifest) -> None:
        board = manifest["exposures"][BOARD]
        board["config"]["meta"] = {"referenced_columns": [
            {"column_name": "Revenue", "node": "ref('monthly_revenue')"},
            {"column_name": "country_code", "node": 'ref("finance", "revenue_by_country")'},
            {"column_name": "margin", "node": "ref('revenue_by_country')"},
            {"column_name": "revenue", "node": "ref('orders')"},
        ]}  # fmt: skip

    edit_manifest(target, change)
    project = load_project(target)
    assert project.exposures[BOARD].precision == "column"
    assert exposure_inputs(target)[BOARD] == ["model.finance.monthly_revenue.revenue", "model.finance.revenue_by_country.country_code"]
    [warning] = input_warnings(project)
    assert warning.code == "unknown_referenced_column"
    assert warning.models == (BOARD,)
    assert warning.message.startswith("exposure board_report: meta.referenced_columns names revenue_by_country.margin, ref('orders').revenue, ")
    runner = CliRunner()
    done = runner.invoke(app, ["lineage", str(target), "--json"])
    assert done.exit_code == 0, done.output
    assert [w["code"] for w in json.loads(done.stdout)["warnings"]] == ["unknown_referenced_column"]
    assert "Warning: exposure board_report: meta.referenced_columns names revenue_by_country.margin" in done.stderr


def test_without_a_node_the_one_model_or_any_model_with_the_column(tmp_path):
    target = copy(tmp_path)

    def change(manifest) -> None:
        manifest["exposures"][BOARD]["meta"] = {"referenced_columns": [{"column_name": "revenue"}]}

    edit_manifest(target, change)
    # the exposure reads two models: `revenue` of each of them that has it
    assert exposure_inputs(target)[BOARD] == ["model.finance.monthly_revenue.revenue", "model.finance.revenue_by_country.revenue"]


def test_check_hits_a_column_level_exposure_only_through_its_columns(tmp_path):
    target = copy(tmp_path)
    edit_sql(target, REVENUE, "count(*) as order_count", "count(o.amount) as order_count")
    edit_sql(target, REVENUE, "sum(o.amount) as revenue", "sum(o.amount) * 100 as revenue")
    report = check(FINANCE, target)
    assert summary(report) == [
        ("partial", "customer_revenue", "order_count", ("expression", "lineage"), [], [], [], []),
        ("partial", "customer_revenue", "revenue", ("expression",), ["revenue_by_country"], [], ["board_report", "customer_dashboard"], []),
    ]
    assert report.to_dict()["exposure_precision"] == {"board_report": "model", "customer_dashboard": "column"}
    from catalog.report.check_md import check_markdown

    assert "Exposures hit: `board_report` (model-level), `customer_dashboard` (column-level)" in check_markdown(report, "breaking")


def test_the_explorer_shows_each_exposure_precision_and_only_its_columns():
    from catalog.export.openlineage import export_input
    from catalog.report.explorer import explorer_data, read_columns

    project = load_project(FINANCE)
    data = explorer_data(export_input(project, analyze_project(project, jobs=1), consumers=True))
    rows = {n[2]: n for n in data["nodes"]}
    assert rows[DASHBOARD][5] == "dashboard, column-level"
    assert rows[BOARD][5] == "analysis, model-level"
    uses, cols = data["uses"], read_columns(data)
    into_dashboard = [
        f'{data["nodes"][cols["node"][uses[i]]][1]}.{cols["name"][uses[i]]}'
        for i in range(0, len(uses), 3)
        if uses[i + 1] == data["nodes"].index(rows[DASHBOARD])
    ]
    assert sorted(into_dashboard) == ["customer_revenue.email", "customer_revenue.revenue"]
