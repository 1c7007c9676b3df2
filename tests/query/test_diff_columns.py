"""``catalog diff`` sees columns: added and removed, types, documentation, tags and PII."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.history import diff_builds
from catalog.report.history import diff_markdown, diff_table
from edits import drop_catalog_column, edit_catalog_type, edit_manifest, edit_sql
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j

STG_ORDERS = "model.coffee_shop.stg_orders"
STG_PAYMENTS = "model.coffee_shop.stg_payments"


def _edit(target):
    # a column with no upstream (nothing in the edges shows it), and one dropped
    edit_sql(target, STG_ORDERS, "as status\n", "as status,\n    1 as flag\n")
    edit_sql(target, STG_PAYMENTS, "    lower(payment_method) as payment_method,\n", "")
    drop_catalog_column(target, STG_PAYMENTS, "payment_method")
    edit_catalog_type(target, STG_ORDERS, "order_date", "TIMESTAMP")

    def docs(manifest):
        cols = manifest["nodes"][STG_ORDERS]["columns"]
        cols["status"]["description"] = "The order's status, lower case."
        cols["customer_id"]["tags"] = ["pii"]
        del manifest["nodes"][STG_PAYMENTS]["columns"]["payment_method"]  # and from its YAML

    edit_manifest(target, docs)


def test_diff_lists_column_changes(build, project_name, example_copy, graph, neo4j_settings):
    first = build(example_copy, project_name)
    _edit(example_copy)
    second = build(example_copy, project_name)
    d = diff_builds(graph, project_name)
    assert (d.from_build, d.to_build) == (first.build_id, second.build_id)
    assert [(c.change, c.unique_id, c.column, c.aspects) for c in d.columns] == [
        ("changed", STG_ORDERS, "customer_id", ["tags", "pii"]),
        ("added", STG_ORDERS, "flag", []),
        ("changed", STG_ORDERS, "order_date", ["data_type"]),
        ("changed", STG_ORDERS, "status", ["description"]),
        ("removed", STG_PAYMENTS, "payment_method", []),
    ]
    order_date = d.columns[2]
    assert (order_date.before["data_type"], order_date.after["data_type"]) == ("DATE", "TIMESTAMP")
    assert d.counts()["columns_added"] == 1 and d.counts()["columns_removed"] == 1 and d.counts()["columns_changed"] == 3

    md = diff_markdown(d)
    assert "1 columns added, 1 removed, 3 changed." in md
    assert "| added | `model.coffee_shop.stg_orders.flag` |" in md
    assert "| changed | `model.coffee_shop.stg_orders.order_date` | data_type | `data_type=DATE` | `data_type=TIMESTAMP` |" in md
    assert diff_table(d).row_count == len(d.edges) + len(d.statuses) + len(d.columns)

    done = CliRunner().invoke(app, ["diff", "--project", project_name, "--json"], env=neo4j_env(neo4j_settings))
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(c["change"], c["column"]) for c in data["columns"]] == [(c.change, c.column) for c in d.columns]
