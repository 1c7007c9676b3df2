"""BI fields, charts and dashboards stored with a build (catalog build --bi, catalog.yml) from
Lightdash's jaffle shop (../shared/bi, read where it stands): impact reaches the dashboard with
each hit's kind, tool and the tool's own id, trace starts from a chart, check calls a removed
column a chart shows breaking; bad BI input changes nothing stored (the whole view compared)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from run_cli import answer, one_error, run
from test_build_views import view

pytestmark = pytest.mark.neo4j

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bi"
GRAND_TOTAL = "regional-sales-total-row-total-demo._of_grand_total"


@pytest.fixture
def jaffle(shared_dir: Path, tmp_path: Path) -> Path:
    """A copy of the example (its folder is read-only): the dbt project with its charts folder."""
    dst = tmp_path / "dbt"
    shutil.copytree(shared_dir / "bi" / "lightdash-jaffle-shop" / "dbt", dst)
    return dst


def drop_column(project: Path, model: str, column: str, line: str) -> None:
    """``model`` no longer selects ``column``: ``line`` out of its compiled SQL, the column out of
    the manifest's columns and catalog.json's (when there is one)."""
    path = project / "target" / "manifest.json"
    manifest = json.loads(path.read_text())
    node = manifest["nodes"][model]
    node["compiled_code"] = node["compiled_code"].replace(line, "")
    node["columns"].pop(column)
    path.write_text(json.dumps(manifest))
    path = project / "target" / "catalog.json"
    if path.is_file():
        catalog = json.loads(path.read_text())
        catalog["nodes"][model]["columns"].pop(column)
        path.write_text(json.dumps(catalog))


def test_impact_trace_and_check_reach_fields_charts_and_dashboards(jaffle: Path, project_name: str, neo4j_env, graph) -> None:
    (jaffle / "catalog.yml").write_text("bi:\n  - charts\n")
    built = answer(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(FIXTURES / "lightdash_dashboard"), "--json")
    hits = answer(neo4j_env, "impact", "regional_sales.revenue", "--project", project_name, "--json")["consumers"]
    got = {(h["kind"], h["tool"], h["tool_id"], h["depth"]) for h in hits}
    assert got == {
        ("bi_field", "lightdash", "regional_sales_revenue", 1),
        ("bi_field", "lightdash", "regional_sales_total_revenue", 1),
        ("bi_field", "lightdash", "regional_sales_avg_revenue", 1),
        ("bi_field", "lightdash", "_of_grand_total", 1),
        ("bi_field", "lightdash", "_of_monthly_total", 1),
        ("chart", "lightdash", "regional-sales-total-row-total-demo", 2),
        ("dashboard", "lightdash", "sales-overview", 3),
    }
    board = next(h for h in hits if h["kind"] == "dashboard")
    assert [p["type"] for p in board["path"]] == ["derived", "shows", "holds"]
    assert (board["file"], board["line"]) == (str(FIXTURES / "lightdash_dashboard" / "sales.yml"), 1)

    traced = answer(neo4j_env, "trace", "chart:pre-aggregate-custom-sql-dimension", "--project", project_name, "--json")
    direct = {f"model.jaffle_shop.orders.{c}" for c in ("order_date", "amount", "status")}
    assert {c["column"] for c in traced["columns"] if c["depth"] == 2} == direct  # column -> field -> chart

    report = answer(neo4j_env, "report", "--project", project_name, "--format", "json")["bi"]
    assert (report["charts"], report["dashboards"], report["by_tool"]) == (2, 1, {"lightdash": report["fields"]})
    assert {
        "tool": "lightdash", "tool_id": "orders_order_amount_plus_average_customer_age", "kind": "metric", "file": "models/orders.yml",
        "line": 110, "reason": "column customers.age is not in the model (neither in its SQL nor in the warehouse)",
    } in report["unresolved"]  # fmt: skip

    pruned = answer(neo4j_env, "prune", "-c", "regional_sales.revenue", "--project", project_name, "--json")
    assert {(b["kind"], b["tool_id"]) for b in pruned["bi"]} == {(kind, tool_id) for kind, _, tool_id, _ in got}

    before = view(graph, project_name, built["build_id"])
    drop_column(jaffle, "model.jaffle_shop.regional_sales", "revenue", "        revenue,\n")
    checked = run(neo4j_env, "check", str(jaffle), "--project", project_name, "--json")
    finding = next(f for f in json.loads(checked.stdout)["findings"] if f["column"] == "revenue")
    assert finding["severity"] == "breaking"
    assert finding["charts_hit"] == ["regional-sales-total-row-total-demo"]
    assert finding["dashboards_hit"] == ["sales-overview"]
    assert view(graph, project_name, built["build_id"]) == before


def test_bad_bi_input_is_one_error_and_changes_nothing_stored(jaffle: Path, project_name: str, neo4j_env, graph, tmp_path: Path) -> None:
    first = answer(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(jaffle / "charts"), "--json")
    before = view(graph, project_name, first["build_id"])
    assert any(r["tool_id"] == "orders_total_order_amount" for r in before["read/list_build_bi"])
    broken = one_error(run(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(FIXTURES / "broken_yaml")))
    assert "broken.yml: line 6: not valid YAML" in broken
    (jaffle / "catalog.yml").write_text("bi: charts\n")
    assert "catalog.yml: bi: must be a list of folders" in one_error(run(neo4j_env, "build", str(jaffle), "--project", project_name))
    (jaffle / "catalog.yml").unlink()
    missing = one_error(run(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(tmp_path / "nowhere")))
    assert "nowhere: no such BI folder" in missing
    assert view(graph, project_name, first["build_id"]) == before
    # the same inputs: a no-change build; a chart edited: a new build, the first one's view unchanged
    again = answer(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(jaffle / "charts"), "--json")
    assert again["relationships_written"] == again["relationships_closed"] == 0
    chart = jaffle / "charts" / "regional-sales-total-row-total-demo.yml"
    chart.write_text(chart.read_text().replace("    - regional_sales_region\n  metrics:", "  metrics:"))
    third = answer(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(jaffle / "charts"), "--json")
    assert third["build_id"] > again["build_id"]
    shows = lambda v: next(r for r in v["read/list_build_bi"] if r["tool_id"] == "regional-sales-total-row-total-demo")["reads"]  # noqa: E731
    assert any(r["key"].endswith("regional_sales_region") for r in shows(view(graph, project_name, again["build_id"])))
    assert not any(r["key"].endswith("regional_sales_region") for r in shows(view(graph, project_name, third["build_id"])))
    assert view(graph, project_name, first["build_id"]) == before


def test_lookml_impact_reaches_its_dashboard_with_lookml_ids(shared_dir: Path, project_name: str, neo4j_env) -> None:
    """The LookML project written against the jaffle-shop corpus project (read where it stands):
    stg_orders.order_total reaches orders.total_revenue (sum(${order_total})), the three charts
    showing it or the derived table's total, the dashboard, and customers.average_lifetime_spend
    (customers.lifetime_spend is sum(orders.order_total) in customers.sql)."""
    jaffle = shared_dir / "corpus" / "jaffle-shop"
    answer(neo4j_env, "build", str(jaffle), "--project", project_name, "--bi", str(FIXTURES / "lookml_jaffle"), "--json")
    hits = answer(neo4j_env, "impact", "stg_orders.order_total", "--project", project_name, "--json")["consumers"]
    looker = {(h["kind"], h["tool_id"]) for h in hits if h.get("tool") == "looker"}
    assert looker == {
        ("bi_field", "orders.order_total"), ("bi_field", "orders.total_revenue"), ("bi_field", "orders.food_revenue"),
        ("bi_field", "orders.margin"), ("bi_field", "location_revenue.total_revenue"), ("bi_field", "share"),
        ("bi_field", "customers.average_lifetime_spend"),
        ("chart", "sales.revenue_by_month"), ("chart", "sales.revenue_by_store"), ("chart", "sales.location_revenue"),
        ("dashboard", "sales"),
    }  # fmt: skip


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A copy of dbt-metabase's sandbox target (tests/fixtures/bi/metabase_sandbox; check edits its manifest)."""
    return Path(shutil.copytree(FIXTURES / "metabase_sandbox", tmp_path / "sandbox"))


def test_metabase_impact_reaches_its_cards_and_dashboard_with_metabase_ids(sandbox: Path, project_name: str, neo4j_env, graph, tmp_path: Path) -> None:
    """dbt-metabase's recorded Metabase over its sandbox: orders.status is Metabase field 78, a
    column of cards 27 and 28 (orders joined to customers, and that filtered on status), and the
    native card 32's `status` (`select * from Orders where ...`); the dashboard holds 27 and 28.
    A removed status is breaking for those cards; bad input changes nothing stored."""
    metabase = FIXTURES / "metabase"
    built = answer(neo4j_env, "build", str(sandbox), "--project", project_name, "--bi", str(metabase), "--json")
    hits = answer(neo4j_env, "impact", "orders.status", "--project", project_name, "--json")["consumers"]
    got = {(h["kind"], h["tool"], h["tool_id"], h["depth"]) for h in hits if h.get("tool")}
    assert got == {
        ("bi_field", "metabase", "78", 1), ("bi_field", "metabase", "status", 1),
        ("chart", "metabase", "27", 2), ("chart", "metabase", "28", 2), ("chart", "metabase", "32", 2),
        ("dashboard", "metabase", "2", 3),
    }  # fmt: skip
    board = next(h for h in hits if h["kind"] == "dashboard")
    assert [p["type"] for p in board["path"]] == ["passthrough", "shows", "holds"]
    assert (board["file"], board["line"]) == (str(metabase / "dashboard" / "2.json"), 1)
    report = answer(neo4j_env, "report", "--project", project_name, "--format", "json")["bi"]
    assert (report["charts"], report["dashboards"], report["by_tool"]) == (7, 1, {"metabase": report["fields"]})

    before = view(graph, project_name, built["build_id"])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "27.json").write_text('{"id": 27,\n "dataset_query": }\n')
    assert "27.json: line 2: not valid JSON" in one_error(run(neo4j_env, "build", str(sandbox), "--project", project_name, "--bi", str(broken)))
    assert view(graph, project_name, built["build_id"]) == before

    drop_column(sandbox, "model.sandbox.orders", "status", "        orders.status,\n")
    checked = run(neo4j_env, "check", str(sandbox), "--project", project_name, "--json")
    finding = next(f for f in json.loads(checked.stdout)["findings"] if f["column"] == "status")
    assert finding["severity"] == "breaking"
    assert (finding["charts_hit"], finding["dashboards_hit"]) == (["27", "28", "32"], ["2"])
    assert view(graph, project_name, built["build_id"]) == before

    # a card on a table no metadata has: built, its field unresolved with its reason
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    card = {"id": 40, "name": "Nowhere", "dataset_query": {"database": 2, "type": "query", "query": {"source-table": 999}}}
    (nowhere / "40.json").write_text(json.dumps(card))
    answer(neo4j_env, "build", str(sandbox), "--project", project_name, "--bi", str(nowhere), "--json")
    unresolved = answer(neo4j_env, "report", "--project", project_name, "--format", "json")["bi"]["unresolved"]
    assert [(u["tool_id"], u["reason"]) for u in unresolved] == [
        ("table 999", "card 40: source table id 999 is in no Metabase metadata (database/ID/metadata.json) of the BI folders"),
    ]
    assert view(graph, project_name, built["build_id"]) == before
