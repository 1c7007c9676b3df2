"""``catalog export --format openlineage``: events valid against the OpenLineage spec, exact
column lineage for the example, and the same events sent to an HTTP endpoint."""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from typer.testing import CliRunner

from catalog.cli.app import app
from edits import edit_sql, hash_customer_email

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop"
SPEC_DIR = Path(__file__).parent / "openlineage_spec"
OWN_FACET = REPO / "catalog" / "export" / "ExposureJobFacet.json"  # the exposure's custom facet
runner = CliRunner()


# --------------------------------------------------------------------------- the spec


def _registry() -> Registry:
    resources = []
    for path in [*sorted(SPEC_DIR.glob("*.json")), OWN_FACET]:
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()
EVENT_SCHEMA = REGISTRY.contents("https://openlineage.io/spec/2-0-2/OpenLineage.json")


def _validate(schema: dict[str, Any], instance: Any) -> list[str]:
    validator = Draft202012Validator(schema, registry=REGISTRY, format_checker=FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


def _facets(event: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield from event["run"].get("facets", {}).items()
    yield from event["job"].get("facets", {}).items()
    for dataset in event["inputs"] + event["outputs"]:
        yield from dataset.get("facets", {}).items()


def assert_valid(event: dict[str, Any]) -> None:
    """The event against OpenLineage.json, and every facet against the schema its _schemaURL names."""
    errors = _validate(EVENT_SCHEMA, event)
    datetime.fromisoformat(event["eventTime"].replace("Z", "+00:00"))  # format: date-time (unchecked by jsonschema)
    for name, facet in _facets(event):
        resource = facet["_schemaURL"].split("#")[0]
        assert resource in REGISTRY, f"facet {name}: no vendored schema for {resource}"
        errors += [f"facet {name}: {e}" for e in _validate({"$ref": facet["_schemaURL"]}, facet)]
    assert not errors, (event["job"]["name"], errors)


# --------------------------------------------------------------------------- helpers


def export(*args: str):
    result = runner.invoke(app, ["export", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def example_events() -> dict[str, dict[str, Any]]:
    return {e["job"]["name"]: e for e in export(str(EXAMPLE), "--format", "openlineage")}


NS = "duckdb://coffee_shop.duckdb"


def _input(table: str, field: str, *transformations: tuple[str, str, str]) -> dict[str, Any]:
    name = table if "." in table else f"coffee_shop.main.{table}"
    return {
        "namespace": NS,
        "name": name,
        "field": field,
        "transformations": [{"type": t, "subtype": s, "description": d} for t, s, d in transformations],
    }


def _direct(subtype: str, expr: str, *inputs: tuple[str, str]) -> dict[str, Any]:
    return {"inputFields": [_input(t, f, ("DIRECT", subtype, expr)) for t, f in inputs]}


def _indirect(table: str, field: str, *clauses: tuple[str, str]) -> dict[str, Any]:
    return _input(table, field, *(("INDIRECT", sub, clause) for sub, clause in clauses))


def _identity(expr: str, table: str, field: str) -> dict[str, Any]:
    return _direct("IDENTITY", expr, (table, field))


def _facet(event: dict[str, Any]) -> dict[str, Any]:
    facet = dict(event["outputs"][0]["facets"]["columnLineage"])
    del facet["_producer"], facet["_schemaURL"]
    return facet


# --------------------------------------------------------------------------- the example


def test_every_event_of_the_example_is_valid(example_events):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    jobs = {
        uid
        for uid, n in manifest["nodes"].items()
        if n["resource_type"] in ("model", "snapshot") and n["config"]["materialized"] != "ephemeral"
    }
    jobs |= set(manifest["exposures"])  # and one per exposure, reading its models
    assert set(example_events) == jobs  # one job per model; the ephemeral one is folded in
    for event in example_events.values():
        assert_valid(event)
        assert event["eventType"] == "COMPLETE"
        assert event["eventTime"] == manifest["metadata"]["generated_at"]
        assert event["job"]["namespace"] == "coffee_shop"


def test_events_are_the_same_on_every_run(example_events):
    again = {e["job"]["name"]: e for e in export(str(EXAMPLE))}
    assert again == example_events
    run_ids = {e["run"]["runId"] for e in again.values()}
    assert len(run_ids) == len(again)


def test_orders_column_lineage_is_exact(example_events):
    # orders.sql: CTEs over stg_orders, the ephemeral int_order_items_priced (stg_order_items
    # joined to stg_products on product_id, line_total = quantity * price) and stg_payments,
    # both grouped by order_id and left-joined on order_id. Subtypes are decided on the final
    # expression: amount_paid = coalesce(total_paid, 0) is a TRANSFORMATION, the sums AGGREGATION.
    event = example_events["model.coffee_shop.orders"]
    card = "SUM(CASE WHEN payment_method = '{}' THEN amount ELSE 0 END)"
    by_method = {
        f"{m}_amount": _direct(
            "AGGREGATION", card.format(m), ("stg_payments", "amount"), ("stg_payments", "payment_method")
        )
        for m in ("bank_transfer", "credit_card", "gift_card")
    }
    case = (
        "CASE WHEN status = 'returned' THEN 'refunded' WHEN amount_paid >= items_amount THEN 'paid' "
        "ELSE 'unpaid' END"
    )
    assert _facet(event) == {
        "fields": {
            "amount_paid": _direct("TRANSFORMATION", "COALESCE(order_payments.total_paid, 0)", ("stg_payments", "amount")),
            **by_method,
            "customer_id": _identity("customer_id", "stg_orders", "customer_id"),
            "item_count": {"inputFields": []},  # count(*): no upstream column
            "items_amount": _direct(
                "AGGREGATION", "SUM(line_total)", ("stg_order_items", "quantity"), ("stg_products", "price")
            ),
            "order_date": _identity("order_date", "stg_orders", "order_date"),
            "order_id": _identity("order_id", "stg_orders", "order_id"),
            "ordered_at": _identity("ordered_at", "stg_orders", "ordered_at"),
            "payment_status": _direct(
                "TRANSFORMATION",
                case,
                ("stg_order_items", "quantity"),
                ("stg_orders", "status"),
                ("stg_payments", "amount"),
                ("stg_products", "price"),
            ),
            "status": _identity("status", "stg_orders", "status"),
            "total_quantity": _direct("AGGREGATION", "SUM(quantity)", ("stg_order_items", "quantity")),
        },
        "dataset": [
            _indirect("stg_order_items", "order_id", ("GROUP_BY", "group_by"), ("JOIN", "join")),
            _indirect("stg_order_items", "product_id", ("JOIN", "join")),  # the ephemeral model's join
            _indirect("stg_orders", "order_id", ("JOIN", "join")),
            _indirect("stg_payments", "order_id", ("GROUP_BY", "group_by"), ("JOIN", "join")),
            _indirect("stg_products", "product_id", ("JOIN", "join")),
        ],
    }
    names = [d["name"] for d in event["inputs"]]
    assert names == [f"coffee_shop.main.{t}" for t in ("stg_order_items", "stg_orders", "stg_payments", "stg_products")]
    assert event["outputs"][0]["name"] == "coffee_shop.main.orders"
    assert "extractionError" not in event["run"].get("facets", {})


def test_customers_column_lineage_is_exact(example_events):
    # customers.sql: stg_customers left-joined to the country_codes seed on country_code and to
    # two CTEs over orders filtered on status (one grouped by customer_id, one with
    # first_value over customer_id / ordered_at), ranked by row_number over country_code.
    event = example_events["model.coffee_shop.customers"]
    window = ("WINDOW", "window")
    join = ("JOIN", "join")
    assert _facet(event) == {
        "fields": {
            "country_code": _identity("customers.country_code", "stg_customers", "country_code"),
            "country_name": _identity("countries.country_name", "country_codes", "country_name"),
            "customer_id": _identity("customers.customer_id", "stg_customers", "customer_id"),
            "email": _identity("customers.email", "stg_customers", "email"),
            "first_order_id": _direct(
                "AGGREGATION",
                "FIRST_VALUE(order_id) OVER (PARTITION BY customer_id ORDER BY ordered_at)",
                ("orders", "order_id"),
            ),
            "first_ordered_at": _direct("AGGREGATION", "MIN(ordered_at)", ("orders", "ordered_at")),
            "full_name": _direct(
                "TRANSFORMATION",
                "customers.first_name || ' ' || customers.last_name",
                ("stg_customers", "first_name"),
                ("stg_customers", "last_name"),
            ),
            "last_ordered_at": _direct("AGGREGATION", "MAX(ordered_at)", ("orders", "ordered_at")),
            "lifetime_value": _direct(
                "TRANSFORMATION", "COALESCE(customer_orders.lifetime_value, 0)", ("orders", "amount_paid")
            ),
            "order_count": {"inputFields": []},
            "rank_in_country": {"inputFields": []},
            "signup_date": _identity("customers.signup_date", "stg_customers", "signup_date"),
        },
        "dataset": [
            _indirect("orders", "amount_paid", window),
            _indirect("orders", "customer_id", ("GROUP_BY", "group_by"), join, window),
            _indirect("orders", "ordered_at", window),
            _indirect("orders", "status", ("FILTER", "where")),
            _indirect("stg_customers", "country_code", join, window),
            _indirect("stg_customers", "customer_id", join, window),
            _indirect("country_codes", "country_code", join),
        ],
    }


def test_incremental_model_reads_itself_and_filters_on_its_own_column(example_events):
    event = example_events["model.coffee_shop.customer_orders_daily"]
    dataset = _facet(event)["dataset"]
    assert _indirect("customer_orders_daily", "order_date", ("FILTER", "where")) in dataset
    assert "coffee_shop.main.customer_orders_daily" in [d["name"] for d in event["inputs"]]


def test_python_model_has_the_lineage_its_yaml_declares(example_events):
    # _marts.yml: customer_id <- customers.customer_id, value_per_order <- lifetime_value and
    # order_count, is_loyal <- order_count; no SQL, so no dataset-level (INDIRECT) inputs
    event = example_events["model.coffee_shop.customer_scores"]
    declared = "declared in YAML"
    assert _facet(event) == {
        "fields": {
            "customer_id": _direct("TRANSFORMATION", declared, ("customers", "customer_id")),
            "value_per_order": _direct(
                "TRANSFORMATION", declared, ("customers", "lifetime_value"), ("customers", "order_count")
            ),
            "is_loyal": _direct("TRANSFORMATION", declared, ("customers", "order_count")),
        }
    }
    assert [d["name"] for d in event["inputs"]] == ["coffee_shop.main.customers"]


def test_schema_facet_has_the_catalog_types(example_events):
    # every column of orders in catalog.json's order, with its type there and its description
    # in the manifest (none for ordered_at, order_date, status and total_quantity)
    fields = example_events["model.coffee_shop.orders"]["outputs"][0]["facets"]["schema"]["fields"]
    described = {
        "order_id": "Primary key of the order.",
        "customer_id": "The customer who placed the order.",
        "item_count": "Number of order lines.",
        "items_amount": "Sum of the line totals in euros.",
        "credit_card_amount": "Amount paid by credit card.",
        "gift_card_amount": "Amount paid by gift card.",
        "bank_transfer_amount": "Amount paid by bank transfer.",
        "amount_paid": "Total of all successful payments, 0 when none.",
        "payment_status": "refunded, paid or unpaid.",
    }
    types = [
        ("order_id", "INTEGER"), ("customer_id", "INTEGER"), ("ordered_at", "TIMESTAMP"), ("order_date", "DATE"),
        ("status", "VARCHAR"), ("item_count", "BIGINT"), ("total_quantity", "HUGEINT"), ("items_amount", "DOUBLE"),
        ("credit_card_amount", "DOUBLE"), ("gift_card_amount", "DOUBLE"), ("bank_transfer_amount", "DOUBLE"),
        ("amount_paid", "DOUBLE"), ("payment_status", "VARCHAR"),
    ]  # fmt: skip
    assert fields == [
        {"name": name, "type": kind, **({"description": described[name]} if name in described else {}), "ordinal_position": i}
        for i, (name, kind) in enumerate(types, start=1)
    ]


def test_namespaces_and_file_output(tmp_path):
    out = tmp_path / "events.ndjson"
    result = runner.invoke(
        app,
        ["export", str(EXAMPLE), "-o", str(out), "--namespace", "dbt-prod", "--dataset-namespace", "duckdb:///srv/shop.duckdb"],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "15 OpenLineage events written to" in result.stderr
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(events) == 15
    assert {e["job"]["namespace"] for e in events} == {"dbt-prod"}
    namespaces = {d["namespace"] for e in events for d in e["inputs"] + e["outputs"]}
    assert namespaces == {"duckdb:///srv/shop.duckdb"}
    lineage_ns = {
        f["namespace"]
        for e in events
        for o in e["outputs"]  # an exposure's job writes no dataset
        for f in o["facets"].get("columnLineage", {}).get("dataset", [])
    }
    assert lineage_ns == {"duckdb:///srv/shop.duckdb"}


def test_unwritable_output_is_one_error_line(tmp_path):
    result = runner.invoke(app, ["export", str(EXAMPLE), "-o", str(tmp_path / "no" / "such" / "file.json")])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: {tmp_path / 'no' / 'such' / 'file.json'}: No such file or directory"]
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- a real project


@pytest.mark.corpus
def test_snowflake_corpus_project_is_valid(shared_dir):
    target = shared_dir / "corpus" / "flipside-thorchain"
    result = runner.invoke(app, ["export", str(target)])
    assert result.exit_code == 0, result.output
    assert "the account is not in dbt's artifacts" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(events) > 100
    for event in events:
        assert_valid(event)
    datasets = [d for e in events for d in e["inputs"] + e["outputs"]]
    assert {d["namespace"] for d in datasets} == {"snowflake://unknown"}
    assert all(d["name"].count(".") == 2 for d in datasets)  # database.schema.table
    with_lineage = [e for e in events if "columnLineage" in e["outputs"][0].get("facets", {})]
    assert len(with_lineage) > len(events) // 2


# --------------------------------------------------------------------------- --url


class _Recorder(BaseHTTPRequestHandler):
    received: list[tuple[str, str | None, dict[str, Any]]] = []  # path, Authorization header, event

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/api/v1/lineage":
            self.send_response(404)
        else:
            self.received.append((self.path, self.headers.get("Authorization"), json.loads(body)))
            self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def lineage_server() -> Iterator[tuple[str, list[tuple[str, str | None, dict[str, Any]]]]]:
    """A local OpenLineage endpoint: its URL, and what it received (path, Authorization header, event)."""
    received: list[tuple[str, str | None, dict[str, Any]]] = []
    handler = type("Recorder", (_Recorder,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def test_url_sends_the_same_events_as_the_file(lineage_server, example_events):
    url, received = lineage_server
    result = runner.invoke(app, ["export", str(EXAMPLE), "--url", url])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"15 OpenLineage events sent to {url}" in result.stderr
    assert {(path, auth) for path, auth, _ in received} == {("/api/v1/lineage", None)}  # no --api-key: no header
    assert sorted((e for _, _, e in received), key=lambda e: e["job"]["name"]) == [
        example_events[name] for name in sorted(example_events)
    ]


def test_refused_connection_is_one_error_line_naming_the_url():
    with socket.socket() as s:  # bound, never listening: connections to it are refused
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
        result = runner.invoke(app, ["export", str(EXAMPLE), "--url", dead])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        f"Error: cannot send OpenLineage events to {dead}/api/v1/lineage: connection refused (0 of 15 events sent)"
    ]
    assert "Traceback" not in result.output


def test_http_error_names_the_status(lineage_server):
    url, received = lineage_server
    result = runner.invoke(app, ["export", str(EXAMPLE), "--url", url, "--endpoint", "api/v1/nowhere"])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: {url}/api/v1/nowhere answered HTTP 404 (0 of 15 events sent)"
    )
    assert received == []


def test_an_exposure_is_a_job_reading_its_models_with_its_precision(example_events):
    # sales_dashboard depends on ref('orders') and the metric revenue, lists no referenced_columns
    event = example_events["exposure.coffee_shop.sales_dashboard"]
    assert_valid(event)
    assert event["job"]["namespace"] == "coffee_shop"
    assert event["job"]["facets"]["jobType"]["jobType"] == "EXPOSURE"
    facet = {k: v for k, v in event["job"]["facets"]["dbtColumnCatalog_exposure"].items() if not k.startswith("_")}
    assert facet == {
        "precision": "model",
        "type": "dashboard",
        "url": "https://bi.example.com/dashboards/sales",
        "owner": "Sales analytics",
        "maturity": "high",
        "description": "Daily revenue and orders per customer.",
    }
    assert [(d["namespace"], d["name"]) for d in event["inputs"]] == [("duckdb://coffee_shop.duckdb", "coffee_shop.main.orders")]
    assert event["outputs"] == []


def test_a_hashed_or_masked_column_says_masking(tmp_path):
    # md5 is a masking function of its own; mask_email is the project's, named in dbt_project.yml
    project = tmp_path / "coffee_shop"
    shutil.copytree(EXAMPLE, project)
    hash_customer_email(project / "target")
    edit_sql(project / "target", "model.coffee_shop.customers",
             "customers.first_name || ' ' || customers.last_name", "mask_email(customers.first_name || ' ' || customers.last_name)")  # fmt: skip
    yml = project / "dbt_project.yml"
    yml.write_text(yml.read_text() + "\nvars:\n  catalog_masking_functions: [mask_email]\n")
    event = next(e for e in export(str(project / "target"), "--format", "openlineage") if e["job"]["name"] == "model.coffee_shop.customers")
    assert_valid(event)
    fields = _facet(event)["fields"]

    def masked(field: str, subtype: str, expr: str, *inputs: tuple[str, str]) -> dict[str, Any]:
        return {"inputFields": [_input(t, f, ("DIRECT", subtype, expr)) | {"transformations": [
            {"type": "DIRECT", "subtype": subtype, "description": expr, "masking": True}]} for t, f in inputs]}  # fmt: skip

    assert fields["email"] == masked("email", "TRANSFORMATION", "MD5(customers.email)", ("stg_customers", "email"))
    assert fields["full_name"] == masked(
        "full_name", "TRANSFORMATION", "MASK_EMAIL(customers.first_name || ' ' || customers.last_name)",
        ("stg_customers", "first_name"), ("stg_customers", "last_name"),
    )  # fmt: skip
    # nothing else is marked
    assert [f for f, v in fields.items() if any("masking" in t for i in v["inputFields"] for t in i["transformations"])] == ["email", "full_name"]
