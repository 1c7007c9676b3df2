"""What a reader of build N sees belongs to build N: node properties (docs, tags, PII flags,
types, materialization) as much as edges. Each test compares the whole view of a build, as
every read query of cypher/read returns it, before and after another build runs, fails or
is killed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from catalog.builds import Builder
from catalog.history import list_builds
from catalog.query import BuildView
from catalog.report.governance import collect_report
from catalog.report.governance_render import report_dict
from catalog.store import cypher
from edits import edit_sql

pytestmark = pytest.mark.neo4j

STG_PAYMENTS = "model.coffee_shop.stg_payments"
STG_ORDERS = "model.coffee_shop.stg_orders"
CUSTOMERS = "source.coffee_shop.shop.customers"

# queries about build records (whose status moves on when a later build becomes active), not a build's content
BUILD_RECORDS = {
    "read/find_active_build", "read/find_build", "read/list_builds", "read/find_project", "read/list_projects", "read/find_upstream_build",
}  # fmt: skip
VIEW_VALUES = {"limit": 100_000, "public_only": False}


def view(graph, project: str, build_id: int) -> dict[str, list[dict[str, Any]]]:
    """Every read query that answers for one build, run for ``build_id``: its whole view."""
    out = {}
    for name in cypher.names("read/"):
        params = set(cypher.describe(name).parameters)
        if name in BUILD_RECORDS or "build_id" not in params or not params <= {"project", "build_id", *VIEW_VALUES}:
            continue
        values = {"project": project, "build_id": build_id, **VIEW_VALUES}
        out[name] = graph.read(name, **{p: values[p] for p in params})
    assert {"read/list_model_properties", "read/list_column_properties", "read/list_build_edges"} <= set(out)
    assert out["read/list_build_edges"] and out["read/list_column_properties"]
    return out


def edit_docs(target: Path) -> None:
    """Change what a build shows besides lineage: a model's description, tags and
    materialization, a column's documentation and PII tag, a source column's description,
    and a column's type in catalog.json."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    pay = manifest["nodes"][STG_PAYMENTS]
    pay["description"] = "Payments, edited."
    pay["tags"] = ["finance"]
    pay["config"]["materialized"] = "table"
    pay["columns"]["payment_method"]["description"] = "How it was paid, edited."
    pay["columns"]["payment_method"]["tags"] = ["pii"]
    manifest["sources"][CUSTOMERS]["columns"]["email"]["description"] = "Email, edited."
    path.write_text(json.dumps(manifest))
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    catalog["nodes"][STG_PAYMENTS]["columns"]["amount"]["type"] = "DECIMAL(12, 2)"
    path.write_text(json.dumps(catalog))


def edit_everything(target: Path) -> None:
    edit_docs(target)
    edit_sql(target, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "amount_cents as amount")


def active_ids(graph, project: str) -> list[int]:
    return [b.id for b in list_builds(graph, project) if b.status == "active"]


def model_props(graph, project: str, build_id: int | None, uid: str) -> dict[str, Any]:
    rows = graph.read("read/list_model_properties", project=project, build_id=build_id)
    return next(r for r in rows if r["unique_id"] == uid)


def column_props(graph, project: str, build_id: int | None, uid: str) -> dict[str, dict[str, Any]]:
    rows = graph.read("read/list_column_properties", project=project, build_id=build_id)
    return {r["name"]: r for r in rows if r["unique_id"] == uid}


def test_a_later_build_leaves_the_view_of_an_earlier_one_as_it_was(build, project_name, example_copy, graph):
    first = build(example_copy, project_name)
    before = view(graph, project_name, first.build_id)
    report_before = report_dict(collect_report(BuildView(graph, project_name, first.build_id)))
    edit_docs(example_copy)
    second = build(example_copy, project_name)
    assert second.edges.written == second.edges.closed == 0  # docs and a type: no lineage change
    assert view(graph, project_name, first.build_id) == before
    report_after = report_dict(collect_report(BuildView(graph, project_name, first.build_id)))
    report_before["build"].pop("status"), report_after["build"].pop("status")  # active, then superseded
    assert report_after == report_before

    # the new build shows the new properties, the old one the old
    old, new = (model_props(graph, project_name, b, STG_PAYMENTS) for b in (first.build_id, None))
    assert (old["description"], old["tags"], old["materialized"]) == ("Successful payments only, amounts in euros.", [], "view")
    assert (new["description"], new["tags"], new["materialized"]) == ("Payments, edited.", ["finance"], "table")
    old_cols, new_cols = (column_props(graph, project_name, b, STG_PAYMENTS) for b in (first.build_id, None))
    assert (old_cols["payment_method"]["pii"], new_cols["payment_method"]["pii"]) == (False, True)
    assert (old_cols["amount"]["data_type"], new_cols["amount"]["data_type"]) == ("DOUBLE", "DECIMAL(12, 2)")
    email = {b: column_props(graph, project_name, b, CUSTOMERS)["email"]["description"] for b in (first.build_id, None)}
    assert email[None] == "Email, edited." and email[first.build_id] != email[None]
    report_new = report_dict(collect_report(BuildView(graph, project_name)))
    assert "stg_payments.payment_method" in json.dumps(report_new["pii"]) and report_new != report_after

    # the same artifacts again: a no-change build, with the same view
    third = build(example_copy, project_name)
    assert third.relationships_written == third.relationships_closed == 0
    assert view(graph, project_name, third.build_id) == view(graph, project_name, second.build_id)


FAULTS = ["start", "compare", "analyze", "close", "relationships", "store"]


@pytest.mark.parametrize("stage", FAULTS)
def test_a_failed_build_changes_nothing_readers_see(build, project_name, example_copy, graph, stage):
    first = build(example_copy, project_name)
    before = view(graph, project_name, first.build_id)
    edit_everything(example_copy)
    with pytest.raises(RuntimeError, match="injected"):
        Builder(graph, example_copy, project_name=project_name, jobs=1, fail_after=stage).run()
    assert active_ids(graph, project_name) == [first.build_id]
    assert view(graph, project_name, first.build_id) == before
    after = build(example_copy, project_name)
    assert after.status == "active" and view(graph, project_name, after.build_id) != before
    assert model_props(graph, project_name, None, STG_PAYMENTS)["description"] == "Payments, edited."
    assert view(graph, project_name, first.build_id) == before


@pytest.mark.parametrize("stage", ["close", "relationships", "store"])
def test_a_killed_build_changes_nothing_readers_see(build, project_name, example_copy, graph, neo4j_settings, stage):
    first = build(example_copy, project_name)
    before = view(graph, project_name, first.build_id)
    edit_everything(example_copy)
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user,
        "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
        "CATALOG_FAULT_AFTER": f"kill:{stage}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "catalog.cli.app", "build", str(example_copy), "--project", project_name, "--jobs", "1"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -9, done.stderr
    assert active_ids(graph, project_name) == [first.build_id]
    assert view(graph, project_name, first.build_id) == before
    after = build(example_copy, project_name)  # cleans up the dead build first
    assert after.status == "active"
    assert view(graph, project_name, first.build_id) == before
    assert column_props(graph, project_name, None, STG_PAYMENTS)["payment_method"]["pii"] is True


def test_a_model_turned_ephemeral_loses_its_warehouse_types(build, project_name, example_copy, graph):
    first = build(example_copy, project_name)
    assert column_props(graph, project_name, None, STG_PAYMENTS)["amount"]["data_type"] == "DOUBLE"
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["nodes"][STG_PAYMENTS]["config"]["materialized"] = "ephemeral"
    path.write_text(json.dumps(manifest))
    path = example_copy / "catalog.json"
    catalog = json.loads(path.read_text())
    del catalog["nodes"][STG_PAYMENTS]  # an ephemeral model is no table
    path.write_text(json.dumps(catalog))
    for full in (False, True):
        build(example_copy, project_name, full=full)
        cols = column_props(graph, project_name, None, STG_PAYMENTS)
        assert [(c["name"], c["position"], c["data_type"], c["in_catalog"]) for c in cols.values()] == [
            ("payment_id", 0, None, False), ("order_id", 1, None, False), ("payment_method", 2, None, False),
            ("amount", 3, None, False), ("paid_at", 4, None, False),
        ]  # fmt: skip
        assert cols["payment_id"]["description"] == "Primary key of the payment."  # declared in YAML, still there
        assert model_props(graph, project_name, None, STG_PAYMENTS)["materialized"] == "ephemeral"
    assert column_props(graph, project_name, first.build_id, STG_PAYMENTS)["amount"]["data_type"] == "DOUBLE"
