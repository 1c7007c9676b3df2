"""``catalog report --history N``: the figures of the last builds, each as that build's own
report gives them, in JSON, Markdown and HTML (with the chart)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from test_docs import commented_copy, edit_manifest

from catalog.cli.app import app
from catalog.query import BuildView
from catalog.report.governance import collect_report

pytestmark = pytest.mark.neo4j
runner = CliRunner()


def _second_build_edits(m):
    """Two more documented columns, and customers.email hashed (and untagged)."""
    m["nodes"]["model.coffee_shop.stg_customers"]["columns"]["updated_at"] = {
        "name": "updated_at", "description": "When the till last changed the customer.", "meta": {}, "tags": []}
    m["nodes"]["model.coffee_shop.orders"]["columns"]["status"] = {
        "name": "status", "description": "The order's status.", "meta": {}, "tags": []}
    node = m["nodes"]["model.coffee_shop.customers"]
    node["compiled_code"] = node["compiled_code"].replace("    customers.email,\n", "    md5(customers.email) as email,\n")
    node["columns"]["email"].update(tags=[], meta={}, config={"tags": [], "meta": {}})


def test_history_of_two_builds(build, graph, project_name, neo4j_env, tmp_path):
    shop = commented_copy(tmp_path / "coffee_shop")
    first = build(shop, project_name).build_id
    edit_manifest(shop, _second_build_edits)
    second = build(shop, project_name).build_id
    reports = {b: collect_report(BuildView(graph, project_name, b)) for b in (first, second)}

    r = runner.invoke(app, ["report", "--project", project_name, "-f", "json", "--history", "5"], env=neo4j_env)
    assert r.exit_code == 0, r.stderr
    history = json.loads(r.stdout)["history"]
    assert [h["build"] for h in history] == [first, second]
    for h in history:
        rep = reports[h["build"]]
        t = rep.coverage.totals
        assert (h["models"], h["columns"], h["resolved"]) == (t.models, t.columns, t.resolved + t.no_upstream) == (15, 103, 103)
        assert h["pii_reached"] == len(rep.pii.reached) - len(rep.pii.masked)
        assert h["pii_untagged"] == len(rep.pii.untagged)
        assert h["tested"] == sum(m.tested for m in rep.tests.models if m.resource_type in ("model", "snapshot"))
    a, b = history
    assert b["documented"] - a["documented"] == 2  # stg_customers.updated_at and orders.status
    assert (a["pii_untagged"], b["pii_untagged"]) == (2, 1)  # customer_segments.email now copies a hash
    assert b["pii_reached"] < a["pii_reached"]

    # up to an older build: only it; without --history the JSON has no such section
    older = json.loads(runner.invoke(app, ["report", "--project", project_name, "--build", str(first), "-f", "json",
                                           "--history", "5"], env=neo4j_env).stdout)
    assert [h["build"] for h in older["history"]] == [first]
    plain = json.loads(runner.invoke(app, ["report", "--project", project_name, "-f", "json"], env=neo4j_env).stdout)
    assert "history" not in plain and "history" not in plain["notes"]

    md = runner.invoke(app, ["report", "--project", project_name, "-f", "md", "--history", "2"], env=neo4j_env).stdout
    assert "## Trends" in md
    assert f"| {second} | " in md
    assert f"| {b['documented']} of 103 ({b['documented_pct']}%) | {b['tested']} of 103 ({b['tested_pct']}%) | {b['pii_reached']} | 1 |" in md
    page = tmp_path / "report.html"
    html = runner.invoke(app, ["report", "--project", project_name, "-o", str(page), "--history", "2"], env=neo4j_env)
    assert html.exit_code == 0, html.stderr
    text = page.read_text()
    assert '<section id="history">' in text and '<svg class="lineage trends"' in text
    assert text.count("<polyline ") == 3 and f"build {second}: documented {b['documented_pct']}%" in text
