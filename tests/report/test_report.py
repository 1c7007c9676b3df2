"""``catalog report``: exact governance findings on the bundled example, checked against its
YAML and compiled SQL by reading them, in JSON and Markdown, and the HTML opened in a real
headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import chromium_or_skip

from catalog.cli.app import app
from catalog.query import BuildView
from catalog.report.governance import collect_report
from catalog.report.governance_html import report_html
from catalog.report.governance_render import report_dict, report_json, report_markdown

pytestmark = pytest.mark.neo4j

runner = CliRunner()
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _labels(cols) -> list[str]:
    return [c.label for c in cols]


def _env(neo4j_settings) -> dict[str, str]:
    password = neo4j_settings.password
    secret = password.get_secret_value() if hasattr(password, "get_secret_value") else (password or "")
    return {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user or "neo4j", "NEO4J_PASSWORD": secret}


# ---------------------------------------------------------------------------- the example, exactly
def test_example_report_content(build, graph, project_name, example):
    build(example, project_name)
    r = collect_report(BuildView(graph, project_name))

    # Coverage: 14 models and 1 snapshot, all resolved but the Python model customer_scores,
    # opaque, whose three columns are declared in YAML (resolved). Columns with no upstream column:
    # customers.order_count (count(*)) and rank_in_country (row_number()), orders.item_count
    # (count(*)), product_sales.source_system (a literal) and calculated_at (current_timestamp),
    # time_spine_daily.date_day (generate_series), and the snapshot's four dbt_* columns.
    t = r.coverage.totals
    assert (t.models, t.by_status) == (15, {"resolved": 14, "partial": 0, "unresolved": 0, "opaque": 1, "failed": 0})
    assert (t.columns, t.resolved, t.no_upstream, t.unresolved, t.untraced) == (103, 93, 10, 0, 0)
    assert (t.sources, t.seeds) == (5, 6)
    no_upstream = {m.name: m.no_upstream for m in r.coverage.models if m.no_upstream}
    assert no_upstream == {"customers": 2, "customers_snapshot": 4, "orders": 1, "product_sales": 2, "time_spine_daily": 1}
    assert [(g.status, g.reason, g.models) for g in r.coverage.reasons] == [
        ("opaque", "python model: no SQL to analyze; lineage as declared in YAML (meta.catalog_lineage)", ("customer_scores",))
    ]
    assert r.coverage.unresolved_columns == ()

    # PII: first_name, last_name and email are tagged in the source, stg_customers and the
    # snapshot; customers tags full_name and email. stg_customers trims/lowercases them
    # (derived); customers concatenates first and last name into full_name and passes email
    # through; the snapshot selects them as they are; customer_segments is `select *` over
    # customers and tags nothing.
    pii = {
        p.column.label: [(x.column.label, x.depth, x.types, x.tagged) for x in p.reaches] for p in r.pii.columns
    }
    full_name_from_source = [("derived", "derived"), ("derived", "derived", "passthrough")]
    assert pii == {
        "customers.email": [("customer_segments.email", 1, ("passthrough",), False)],
        "customers.full_name": [("customer_segments.full_name", 1, ("passthrough",), False)],
        "customers_snapshot.email": [],
        "customers_snapshot.first_name": [],
        "customers_snapshot.last_name": [],
        "shop.customers.email": [
            ("stg_customers.email", 1, ("derived",), True),
            ("customers.email", 2, ("derived", "passthrough"), True),
            ("customers_snapshot.email", 2, ("derived", "passthrough"), True),
            ("customer_segments.email", 3, ("derived", "passthrough", "passthrough"), False),
        ],
        **{
            f"shop.customers.{n}": [
                (f"stg_customers.{n}", 1, ("derived",), True),
                ("customers.full_name", 2, full_name_from_source[0], True),
                (f"customers_snapshot.{n}", 2, ("derived", "passthrough"), True),
                ("customer_segments.full_name", 3, full_name_from_source[1], False),
            ]
            for n in ("first_name", "last_name")
        },
        "stg_customers.email": [
            ("customers.email", 1, ("passthrough",), True),
            ("customers_snapshot.email", 1, ("passthrough",), True),
            ("customer_segments.email", 2, ("passthrough", "passthrough"), False),
        ],
        **{
            f"stg_customers.{n}": [
                ("customers.full_name", 1, ("derived",), True),
                (f"customers_snapshot.{n}", 1, ("passthrough",), True),
                ("customer_segments.full_name", 2, ("derived", "passthrough"), False),
            ]
            for n in ("first_name", "last_name")
        },
    }
    assert {p.column.label: p.tagged_by for p in r.pii.columns}["shop.customers.email"] == ("meta contains_pii", "tag pii")
    assert _labels(r.pii.untagged) == ["customer_segments.email", "customer_segments.full_name"]
    assert len(r.pii.reached) == 10

    # Undocumented: the marts are public; every column missing from _marts.yml (customer_scores
    # documents its three).
    un = r.undocumented
    assert (un.scope, un.public_models, un.models_in_scope, un.columns_in_scope) == ("public_models", 7, 7, 58)
    assert _labels(u.column for u in un.columns) == [
        "customer_orders_daily.last_ordered_at", "customer_orders_daily.order_count",
        *(f"customer_segments.{c}" for c in (
            "country_code", "country_name", "customer_id", "email", "first_order_id", "first_ordered_at", "full_name",
            "last_ordered_at", "lifetime_value", "order_count", "rank_in_country", "signup_date")),
        *(f"customers.{c}" for c in ("country_code", "first_ordered_at", "last_ordered_at", "order_count", "signup_date")),
        "order_events.amount", "order_events.customer_id", "order_events.order_id",
        "orders.order_date", "orders.ordered_at", "orders.status", "orders.total_quantity",
        "product_sales.product_id", "product_sales.product_name", "product_sales.product_type", "product_sales.units_sold",
    ]

    # Unused (catalog unused's answer): orders and product_sales read neither order_item_id nor
    # unit_price of the ephemeral model; nothing reads stg_payments.payment_id,
    # stg_products.is_active or the country_codes seed's region. Every column of orders is read
    # by the exposure sales_dashboard, which lists no meta.referenced_columns.
    assert {u.column.label: (u.dependents, u.reason) for u in r.unused} == {
        "country_codes.region": (1, "no reader"),
        "int_order_items_priced.order_item_id": (2, "no reader"),
        "int_order_items_priced.unit_price": (2, "no reader"),
        "stg_payments.payment_id": (2, "no reader"),
        "stg_products.is_active": (1, "no reader"),
    }
    assert _labels(u.column for u in r.unused)[:3] == [
        "country_codes.region", "int_order_items_priced.order_item_id", "int_order_items_priced.unit_price"]
    assert all(u.incomplete_dependents == () for u in r.unused)

    # Most depended-on: raw amount_cents reaches 12 columns in 7 models (stg_payments.amount, six
    # in orders and order_events, then customers, customer_orders_daily, customer_segments'
    # lifetime_value and segment, and customer_scores.value_per_order, declared from
    # customers.lifetime_value) with fan-out 1; stg_payments.amount the same 11 but itself; raw
    # ordered_at feeds stg_orders.ordered_at and order_date, then orders, order_events, customers,
    # customer_orders_daily and customer_segments: 11 columns in 6 models (fan-out 2, after 6).
    top = [(d.column.label, d.fanout, d.reach, d.models_reached, d.conditions) for d in r.depended_on[:5]]
    assert top == [
        ("shop.payments.amount_cents", 1, 12, 7, 0),
        ("stg_payments.amount", 6, 11, 6, 0),
        ("shop.orders.ordered_at", 2, 11, 6, 0),
        ("shop.order_items.quantity", 1, 8, 4, 0),
        ("stg_order_items.quantity", 2, 7, 3, 0),
    ]
    assert len(r.depended_on) == 10

    # Inheritable: bare copies of a documented column, through undocumented ones.
    inherit = {i.column.label: (i.description, i.source.label if i.source else None, i.hops) for i in r.inheritable}
    p1, p2 = ("passthrough",), ("passthrough", "passthrough")
    assert inherit == {
        "customer_segments.country_code": ("Two-letter ISO country code, upper case.", "stg_customers.country_code", p2),
        "customer_segments.country_name": ("Country, from the country_codes lookup.", "customers.country_name", p1),
        "customer_segments.customer_id": ("Primary key of the customer.", "customers.customer_id", p1),
        "customer_segments.email": ("E-mail address in lower case.", "customers.email", p1),
        "customer_segments.first_order_id": ("The customer's earliest order that was not cancelled.", "customers.first_order_id", p1),
        "customer_segments.full_name": ("First and last name.", "customers.full_name", p1),
        "customer_segments.lifetime_value": ("Sum paid over all orders that were not cancelled.", "customers.lifetime_value", p1),
        "customer_segments.rank_in_country": (
            "1 for the customer with the highest lifetime value in their country.", "customers.rank_in_country", p1),
        "customers.country_code": ("Two-letter ISO country code, upper case.", "stg_customers.country_code", p1),
        "customers_snapshot.country_code": ("Two-letter ISO country code, upper case.", "stg_customers.country_code", p1),
        "customers_snapshot.first_name": ("Given name, trimmed.", "stg_customers.first_name", p1),
        "customers_snapshot.last_name": ("Family name, trimmed.", "stg_customers.last_name", p1),
        "customers_snapshot.updated_at": ("Last time the customer record changed.", "shop.customers.updated_at", p2),
        "int_order_items_priced.order_item_id": ("Primary key of the order line.", "stg_order_items.order_item_id", p1),
        "int_order_items_priced.quantity": ("Units of the product on this line.", "stg_order_items.quantity", p1),
        # a union: stg_orders' branch is documented, stg_payments' order_id is not
        "order_events.customer_id": ("The customer who placed the order.", "stg_orders.customer_id", p1),
        "order_events.order_id": ("Primary key of the order.", "stg_orders.order_id", p1),
        "orders.order_date": ("Calendar day of ordered_at.", "stg_orders.order_date", p1),
        "orders.ordered_at": ("When the order was placed.", "stg_orders.ordered_at", p1),
        "orders.status": ("Lower-case status; 'unknown' when the till left it empty.", "stg_orders.status", p1),
        "stg_customers.updated_at": ("Last time the customer record changed.", "shop.customers.updated_at", p1),
    }

    # Pictures: the top columns, skipping those already drawn (stg_payments.amount is in #1).
    assert [p.focus.label for p in r.pictures] == ["shop.payments.amount_cents", "shop.orders.ordered_at", "shop.order_items.quantity"]
    amount = r.pictures[0]
    layers = {n.column.label: n.layer for n in amount.nodes if n.column}
    assert layers == {
        "shop.payments.amount_cents": 0,
        "stg_payments.amount": 1,
        "order_events.amount": 2, "orders.amount_paid": 2, "orders.bank_transfer_amount": 2,
        "orders.credit_card_amount": 2, "orders.gift_card_amount": 2, "orders.payment_status": 2,
        "customer_orders_daily.amount_paid": 3, "customers.lifetime_value": 3,
        "customer_scores.value_per_order": 4, "customer_segments.lifetime_value": 4, "customer_segments.segment": 4,
    }
    assert len(amount.edges) == 12 and not amount.truncated
    assert [(e.up.rsplit("/", 1)[1], e.down.rsplit("/", 1)[1]) for e in amount.edges if e.type == "declared"] == [
        ("model.coffee_shop.customers.lifetime_value", "model.coffee_shop.customer_scores.value_per_order")
    ]
    first = r.pictures[1]
    layers = {n.column.label: n.layer for n in first.nodes if n.column}
    assert layers == {
        "shop.orders.ordered_at": 0,
        "stg_orders.order_date": 1, "stg_orders.ordered_at": 1,
        "order_events.event_at": 2, "orders.order_date": 2, "orders.ordered_at": 2,
        "customer_orders_daily.last_ordered_at": 3, "customer_orders_daily.order_date": 3,
        "customers.first_ordered_at": 3, "customers.last_ordered_at": 3,
        "customer_segments.first_ordered_at": 4, "customer_segments.last_ordered_at": 4,
    }
    assert len(first.edges) == 11 and not first.truncated
    assert {e.type for e in first.edges} == {"derived", "passthrough", "renamed"}

    # Same build, same report: byte for byte.
    again = collect_report(BuildView(graph, project_name))
    assert report_html(again) == report_html(r) and report_markdown(again) == report_markdown(r)


# ---------------------------------------------------------------------------- statuses
def _break_models(target: Path) -> None:
    """A partial, a failed and an unresolved model, by editing their compiled SQL."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    nodes = manifest["nodes"]
    nodes["model.coffee_shop.product_sales"]["compiled_code"] = (
        'select i.product_id, mystery_col, coalesce(i.quantity, mystery_col) as units_sold\n'
        'from "coffee_shop"."main"."stg_order_items" as i\njoin "coffee_shop"."main"."mystery" as m on i.order_id = m.order_id'
    )
    nodes["model.coffee_shop.order_events"]["compiled_code"] = "select from where ((("
    nodes["model.coffee_shop.customer_orders_daily"]["compiled_code"] = 'delete from "coffee_shop"."main"."orders"'
    path.write_text(json.dumps(manifest))


def test_coverage_of_partial_failed_and_unresolved_models(build, graph, project_name, example, example_copy):
    good = build(example, project_name)
    _break_models(example_copy)
    build(example_copy, project_name)
    r = collect_report(BuildView(graph, project_name))

    t = r.coverage.totals
    assert t.by_status == {"resolved": 11, "partial": 1, "unresolved": 1, "opaque": 1, "failed": 1}
    rows = {m.name: (m.status, m.columns, m.resolved, m.no_upstream, m.unresolved, m.untraced) for m in r.coverage.models}
    # problems first: failed, unresolved, opaque (the Python model), partial
    assert [m.name for m in r.coverage.models[:4]] == ["order_events", "customer_orders_daily", "customer_scores", "product_sales"]
    assert rows["order_events"] == ("failed", 5, 0, 0, 5, 0)
    assert rows["customer_orders_daily"] == ("unresolved", 5, 0, 0, 5, 0)
    # product_id resolves; mystery_col comes from a relation dbt does not know (no edge: untraced),
    # and units_sold = coalesce(quantity, mystery_col) keeps an unproved edge from quantity
    assert rows["product_sales"] == ("partial", 3, 1, 0, 1, 1)
    assert [(g.status, g.reason, g.models) for g in r.coverage.reasons][1:] == [
        ("unresolved", "no SELECT statement in the compiled SQL", ("customer_orders_daily",)),
        ("opaque", "python model: no SQL to analyze; lineage as declared in YAML (meta.catalog_lineage)", ("customer_scores",)),
        ("partial", "relation coffee_shop.main.mystery is not a node of the dbt project", ("product_sales",)),
    ]
    assert r.coverage.reasons[0].status == "failed" and r.coverage.reasons[0].reason.startswith("cannot parse SQL")
    unresolved = [(u.column.label, u.kind) for u in r.coverage.unresolved_columns]
    assert unresolved == [
        *((f"customer_orders_daily.{c}", "no_edge") for c in ("amount_paid", "customer_id", "last_ordered_at", "order_count", "order_date")),
        *((f"order_events.{c}", "analysis_failed") for c in ("amount", "customer_id", "event_at", "event_type", "order_id")),
        ("product_sales.mystery_col", "no_edge"),
        ("product_sales.units_sold", "unproved_edge"),
    ]
    assert r.coverage.unresolved_columns[-1].expr == "COALESCE(i.quantity, mystery_col)"
    # what product_sales used of int_order_items_priced is partly unknown now: say so next to
    # each unused column
    unused = {u.column.label: u.incomplete_dependents for u in r.unused}
    assert unused["int_order_items_priced.unit_price"] == ("product_sales",)
    assert unused["stg_payments.payment_id"] == ("order_events",)

    # the unproved edge is drawn dashed in the picture around raw quantity
    quantity = next(p for p in r.pictures if p.focus.label == "shop.order_items.quantity")
    unproved = [e for e in quantity.edges if e.resolved is False]
    assert [(e.up.rsplit("/", 1)[1], e.down.rsplit("/", 1)[1]) for e in unproved] == [
        ("model.coffee_shop.stg_order_items.quantity", "model.coffee_shop.product_sales.units_sold")]
    assert 'stroke-dasharray="6 4" marker-end' in report_html(r)

    md = report_markdown(r)
    # the failed model keeps its last good lineage (carried over): its columns still count as unresolved
    assert re.search(r"^\| `order_events` \| model \| failed( \(carried over\))? \| 5 \| 0 \| 0 \| 5 \| 0 \| cannot parse SQL: ", md, re.M)
    assert "&lt;Token" in md  # the parser's message is not read as an HTML tag

    # the earlier build is still there, fully resolved
    before = collect_report(BuildView(graph, project_name, good.build_id))
    assert before.build.id == good.build_id
    assert before.coverage.totals.by_status == {"resolved": 14, "partial": 0, "unresolved": 0, "opaque": 1, "failed": 0}


def test_no_public_model_lists_every_model(build, graph, project_name, example_copy):
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    for node in manifest["nodes"].values():
        if node.get("resource_type") == "model":
            node["access"] = "protected"
            node.get("config", {})["access"] = "protected"
    path.write_text(json.dumps(manifest))
    build(example_copy, project_name)
    r = collect_report(BuildView(graph, project_name))
    un = r.undocumented
    assert (un.scope, un.public_models, un.models_in_scope) == ("all_models", 0, 14)
    labels = _labels(u.column for u in un.columns)
    # the 30 columns of the marts as before, plus those _intermediate.yml and _staging.yml leave
    # out (stg_orders documents all five); the snapshot is not a model
    assert len(labels) == 44 and labels == sorted(labels, key=lambda s: tuple(s.split(".")))
    assert [label for label in labels if label.startswith(("int_", "stg_"))] == [
        *(f"int_order_items_priced.{c}" for c in ("order_id", "order_item_id", "product_id", "product_name", "product_type", "quantity")),
        "stg_customers.signup_date", "stg_customers.updated_at",
        "stg_order_items.order_id", "stg_order_items.product_id",
        "stg_payments.order_id", "stg_payments.paid_at",
        "stg_products.product_name", "stg_products.product_type",
    ]
    assert "**The project has no public model**" in report_markdown(r)
    assert "The project has no public model" in report_html(r)


# ---------------------------------------------------------------------------- the command
def test_cli_json_and_markdown(build, graph, project_name, example, neo4j_settings, tmp_path, monkeypatch):
    build(example, project_name)
    env = _env(neo4j_settings)
    as_json = runner.invoke(app, ["report", "--project", project_name, "--format", "json"], env=env)
    assert as_json.exit_code == 0, as_json.stderr
    doc = json.loads(as_json.stdout)  # stdout is pure JSON; progress went to stderr
    assert "report_model_coverage" in as_json.stderr
    assert list(doc) == ["project", "build", "coverage", "pii", "undocumented", "unused", "depended_on", "inheritable",
                         "pictures", "tests", "notes"]
    assert doc == report_dict(collect_report(BuildView(graph, project_name)))
    data = collect_report(BuildView(graph, project_name))
    encoded = report_json(data)  # with orjson when installed
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "orjson", None)  # as without the fast extra: the json module
        plain = report_json(data)
    assert encoded.endswith("}\n") and plain.endswith("}\n") and json.loads(encoded) == json.loads(plain) == doc
    assert doc["project"] == project_name
    assert doc["coverage"]["totals"]["by_status"]["resolved"] == 14
    assert [d["column"]["label"] for d in doc["depended_on"][:2]] == ["shop.payments.amount_cents", "stg_payments.amount"]
    assert [c["label"] for c in doc["pii"]["untagged"]] == ["customer_segments.email", "customer_segments.full_name"]
    assert {"layer", "column", "focus"} <= set(doc["pictures"][0]["nodes"][0])

    md = runner.invoke(app, ["report", "--project", project_name, "-f", "md"], env=env)
    assert md.exit_code == 0, md.stderr
    text = md.stdout
    assert text.startswith(f"# Governance report: {project_name}, build {doc['build']['id']}\n")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## Lineage coverage", "## PII propagation", "## Undocumented columns", "## Unused columns",
                        "## Most depended-on columns", "## Inheritable descriptions", "## Test coverage", "## Lineage pictures"]
    assert "| `shop.customers.email` | meta contains_pii, tag pii | `customer_segments.email` | 3 | derived → passthrough → passthrough | transformed | **no** |" in text
    assert "| `orders.status` | Lower-case status; 'unknown' when the till left it empty. | `stg_orders.status` | passthrough |" in text
    assert "| `shop.orders.ordered_at` | 2 | 11 | 6 | 0 |  |  |" in text
    assert "- `shop.orders.ordered_at`: 12 columns, 11 edges" in text

    out = tmp_path / "report.md"
    to_file = runner.invoke(app, ["report", "--project", project_name, "-f", "md", "-o", str(out)], env=env)
    assert to_file.exit_code == 0 and to_file.stdout.strip() == str(out.resolve())
    assert out.read_text() == text

    capped = runner.invoke(app, ["report", "--project", project_name, "-f", "md", "--max-rows", "3"], env=env)
    assert "_… and 27 more rows (all of them in `--format json`)._" in capped.stdout  # 30 undocumented columns

    missing = runner.invoke(app, ["report", "--project", project_name, "--build", "999999999"], env=env)
    assert missing.exit_code == 1 and "has no build 999999999" in missing.stderr


def test_cli_json_is_written_as_read_and_is_the_text_of_the_whole_report(build, graph, project_name, example, neo4j_settings,
                                                                        tmp_path, monkeypatch):
    """The command streams the JSON (its long lists a batch at a time): the text is that of the
    report collected whole, byte for byte and key for key, with orjson and with the json module."""
    build(example, project_name)
    env = _env(neo4j_settings)
    whole = collect_report(BuildView(graph, project_name))
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setitem(sys.modules, "orjson", None)
            out = tmp_path / f"report_{fast}.json"
            done = runner.invoke(app, ["report", "--project", project_name, "-f", "json", "-o", str(out)], env=env)
            assert done.exit_code == 0, done.stderr
            assert out.read_text(encoding="utf-8") == report_json(whole)
            assert not list(tmp_path.glob(".*.part"))  # the file appears once whole
    assert '"unresolved_columns": []' in out.read_text()  # an empty streamed list


# ---------------------------------------------------------------------------- HTML in a browser
def _run_chromium(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=180, check=False,
    )


def test_html_is_self_contained_and_renders(build, project_name, example, neo4j_settings, tmp_path):
    chromium = chromium_or_skip()
    build(example, project_name)
    html_path = tmp_path / "catalog-report.html"
    result = runner.invoke(app, ["report", "--project", project_name, "-o", str(html_path)], env=_env(neo4j_settings))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == str(html_path.resolve())  # the path is printed
    html = html_path.read_text()

    # one file, nothing fetched: no external scripts, styles, images or fonts
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)
    assert "@import" not in html and not re.search(r"url\(\s*['\"]?(?:https?:)?//", html)
    assert html.count("<svg") == 3

    dom = _run_chromium(chromium, tmp_path / "profile", "--dump-dom", html_path.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = dom.stdout
    assert '<body class="js">' in page  # the inline script ran
    for section in ("summary", "coverage", "pii", "undocumented", "unused", "depended-on", "inheritable", "pictures"):
        assert f'<section id="{section}">' in page
    assert len(re.findall(r'<svg [^>]*class="lineage"', page)) == 3
    assert '<g class="node focus" data-column="shop.orders.ordered_at">' in page
    assert page.count('<g class="edge edge-') == 12 + 11 + 8
    assert "customer_segments.full_name" in page and '<span class="flag">no</span>' in page

    shot = tmp_path / "report.png"
    png = _run_chromium(chromium, tmp_path / "profile2", "--window-size=1400,6000", f"--screenshot={shot}", html_path.as_uri())
    assert png.returncode == 0, png.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a page with content, not a blank one
