"""``catalog impact`` and ``catalog trace`` end to end, against a real Neo4j: ``--depth N``,
``--build ID`` of an older build, and traces that start from an exposure or a saved query,
with the exact rows each prints (``--json``: column, depth, effect or kind, via, path)."""

from __future__ import annotations

import pytest

from run_cli import answer

pytestmark = pytest.mark.neo4j


def short(key: str) -> str:
    """A column or consumer key as a user reads it: ``orders.order_id``, ``exposure:sales_dashboard``."""
    kind, _, rest = key.partition(".")
    rest = rest.removeprefix("coffee_shop.")
    return rest if kind in ("model", "snapshot", "source") else f"{kind}:{rest}"


def path(hops: list[dict]) -> str:
    return short(hops[0]["from"]) + "".join(f" -[{h['type']}]-> {short(h['to'])}" for h in hops) if hops else ""


def rows(doc: dict) -> list[tuple]:
    """Each column of an impact or trace answer: (column, depth, effect or kind, via, path)."""
    return [(short(c["column"]), c["depth"], c.get("effect", c.get("resource_type")), c["via"], path(c["path"])) for c in doc["columns"]]


def consumers(doc: dict) -> list[tuple]:
    return [(c["kind"], c["name"], c["depth"], c.get("precision"), path(c["path"])) for c in doc["consumers"]]


@pytest.fixture
def ask(coffee_shop_builds, neo4j_env):
    def run(*args: str) -> dict:
        return answer(neo4j_env, *args, "--project", coffee_shop_builds.project, "--json")

    return run


ORDER_ID = "stg_orders.order_id"
ORDER_ID_DEPTH_1 = [
    ("order_events.order_id", 1, "passthrough", ORDER_ID, "stg_orders.order_id -[passthrough]-> order_events.order_id"),
    ("orders.order_id", 1, "passthrough", ORDER_ID, "stg_orders.order_id -[passthrough]-> orders.order_id"),
]
ORDER_ID_CONSUMERS = [
    ("exposure", "sales_dashboard", 2, "model", "stg_orders.order_id -[passthrough]-> orders.order_id -[exposure]-> exposure:sales_dashboard"),
    ("semantic_model", "orders.order_id", 2, None,
     "stg_orders.order_id -[passthrough]-> orders.order_id -[passthrough]-> semantic_model:orders.order_id"),
]  # fmt: skip


def test_impact_depth_1_stops_at_the_first_edge(ask, coffee_shop_builds):
    one = ask("impact", ORDER_ID, "--depth", "1")
    assert (one["build_id"], one["columns_asked"], one["models"]) == (
        coffee_shop_builds.second, [ORDER_ID], ["model.coffee_shop.order_events", "model.coffee_shop.orders"]
    )  # fmt: skip
    assert rows(one) == ORDER_ID_DEPTH_1
    # the consumers of orders.order_id are one edge further: not within --depth 1, within 2
    assert consumers(one) == []
    assert consumers(ask("impact", ORDER_ID, "--depth", "2")) == ORDER_ID_CONSUMERS

    every = ask("impact", ORDER_ID)
    assert rows(every) == [
        ("customer_orders_daily.order_count", 2, "needs review", ORDER_ID,
         "stg_orders.order_id -[passthrough]-> orders.order_id -[derived]-> customer_orders_daily.order_count"),
        ("customer_segments.first_order_id", 3, "needs review", ORDER_ID,
         "stg_orders.order_id -[passthrough]-> orders.order_id -[derived]-> customers.first_order_id -[passthrough]-> customer_segments.first_order_id"),
        ("customers.first_order_id", 2, "needs review", ORDER_ID,
         "stg_orders.order_id -[passthrough]-> orders.order_id -[derived]-> customers.first_order_id"),
        *ORDER_ID_DEPTH_1,
    ]  # fmt: skip
    assert consumers(every) == ORDER_ID_CONSUMERS
    assert ask("impact", ORDER_ID, "--depth", "3") == every  # the longest path has 3 edges


LIFETIME = "customers.lifetime_value"


def test_trace_depth_1_stops_at_the_first_edge(ask):
    one = ask("trace", LIFETIME, "--depth", "1")
    assert rows(one) == [("orders.amount_paid", 1, "model", LIFETIME, "orders.amount_paid -[derived]-> customers.lifetime_value")]
    every = ask("trace", LIFETIME)
    assert rows(every) == [
        ("orders.amount_paid", 1, "model", LIFETIME, "orders.amount_paid -[derived]-> customers.lifetime_value"),
        ("shop.payments.amount_cents", 3, "source", LIFETIME,
         "shop.payments.amount_cents -[derived]-> stg_payments.amount -[derived]-> orders.amount_paid -[derived]-> customers.lifetime_value"),
        ("stg_payments.amount", 2, "model", LIFETIME, "stg_payments.amount -[derived]-> orders.amount_paid -[derived]-> customers.lifetime_value"),
    ]  # fmt: skip
    assert rows(ask("trace", LIFETIME, "--depth", "2")) == [r for r in rows(every) if r[1] <= 2]


EMAIL = "stg_customers.email"


def _email_impact(first_hop: str, effect: str) -> list[tuple]:
    return [
        ("customer_segments.email", 2, effect, EMAIL,
         f"stg_customers.email -[{first_hop}]-> customers.email -[passthrough]-> customer_segments.email"),
        ("customers.email", 1, effect, EMAIL, f"stg_customers.email -[{first_hop}]-> customers.email"),
        ("customers_snapshot.email", 1, "passthrough", EMAIL, "stg_customers.email -[passthrough]-> customers_snapshot.email"),
    ]  # fmt: skip


def test_impact_of_an_older_build_answers_as_that_build(ask, coffee_shop_builds):
    before = ask("impact", EMAIL, "--build", str(coffee_shop_builds.first))
    assert before["build_id"] == coffee_shop_builds.first
    assert rows(before) == _email_impact("passthrough", "passthrough")
    now = ask("impact", EMAIL)
    assert now["build_id"] == coffee_shop_builds.second
    assert rows(now) == _email_impact("derived", "needs review")  # md5(customers.email) in the second
    assert ask("impact", EMAIL, "--build", str(coffee_shop_builds.second)) == now


def test_trace_of_an_older_build_answers_as_that_build(ask, coffee_shop_builds):
    def email_trace(build: int) -> list[tuple]:
        doc = ask("trace", "customer_segments.email", "--build", str(build))
        assert doc["build_id"] == build
        return [(r[0], r[1], r[2], [h["expr"] for h in c["path"]]) for r, c in zip(rows(doc), doc["columns"])]

    via_customers = ["customers.email", "email"]
    assert email_trace(coffee_shop_builds.first) == [
        ("customers.email", 1, "model", ["email"]),
        ("shop.customers.email", 3, "source", ["LOWER(TRIM(email))", *via_customers]),
        ("stg_customers.email", 2, "model", via_customers),
    ]
    hashed = ["MD5(customers.email)", "email"]
    assert email_trace(coffee_shop_builds.second) == [
        ("customers.email", 1, "model", ["email"]),
        ("shop.customers.email", 3, "source", ["LOWER(TRIM(email))", *hashed]),
        ("stg_customers.email", 2, "model", hashed),
    ]


def test_trace_an_exposure_back_to_sources(ask):
    doc = ask("trace", "exposure:sales_dashboard")
    assert doc["columns_asked"] == ["exposure.sales_dashboard"]
    to = " -[exposure]-> exposure:sales_dashboard"
    orders = ["amount_paid", "bank_transfer_amount", "credit_card_amount", "customer_id", "gift_card_amount", "item_count",
              "items_amount", "order_date", "order_id", "ordered_at", "payment_status", "status", "total_quantity"]  # fmt: skip
    # the exposure reads every column of orders (model precision) and the metric revenue; of
    # equally short paths, the one with pass-throughs nearest the source (walks.py's one rule)
    assert rows(doc) == [
        ("int_order_items_priced.line_total", 2, "model", "sales_dashboard", "int_order_items_priced.line_total -[derived]-> orders.items_amount" + to),
        ("int_order_items_priced.quantity", 2, "model", "sales_dashboard", "int_order_items_priced.quantity -[derived]-> orders.total_quantity" + to),
        *[(f"orders.{c}", 1, "model", "sales_dashboard", f"orders.{c}" + to) for c in orders],
        ("semantic_model:orders.amount_paid", 2, None, "sales_dashboard",
         "semantic_model:orders.amount_paid -[measure]-> metric:revenue -[metric]-> exposure:sales_dashboard"),
        ("shop.order_items.quantity", 4, "source", "sales_dashboard",
         "shop.order_items.quantity -[passthrough]-> stg_order_items.quantity -[passthrough]-> int_order_items_priced.quantity -[derived]-> orders.total_quantity" + to),
        ("shop.orders.customer_id", 3, "source", "sales_dashboard", "shop.orders.customer_id -[passthrough]-> stg_orders.customer_id -[passthrough]-> orders.customer_id" + to),
        ("shop.orders.id", 3, "source", "sales_dashboard", "shop.orders.id -[renamed]-> stg_orders.order_id -[passthrough]-> orders.order_id" + to),
        ("shop.orders.ordered_at", 3, "source", "sales_dashboard", "shop.orders.ordered_at -[derived]-> stg_orders.order_date -[passthrough]-> orders.order_date" + to),
        ("shop.orders.status", 3, "source", "sales_dashboard", "shop.orders.status -[derived]-> stg_orders.status -[passthrough]-> orders.status" + to),
        ("shop.payments.amount_cents", 3, "source", "sales_dashboard",
         "shop.payments.amount_cents -[derived]-> stg_payments.amount -[derived]-> orders.amount_paid" + to),
        ("shop.payments.payment_method", 3, "source", "sales_dashboard",
         "shop.payments.payment_method -[derived]-> stg_payments.payment_method -[derived]-> orders.bank_transfer_amount" + to),
        ("shop.products.price_cents", 4, "source", "sales_dashboard",
         "shop.products.price_cents -[derived]-> stg_products.price -[derived]-> int_order_items_priced.line_total -[derived]-> orders.items_amount" + to),
        ("stg_order_items.quantity", 3, "model", "sales_dashboard",
         "stg_order_items.quantity -[passthrough]-> int_order_items_priced.quantity -[derived]-> orders.total_quantity" + to),
        ("stg_orders.customer_id", 2, "model", "sales_dashboard", "stg_orders.customer_id -[passthrough]-> orders.customer_id" + to),
        ("stg_orders.order_date", 2, "model", "sales_dashboard", "stg_orders.order_date -[passthrough]-> orders.order_date" + to),
        ("stg_orders.order_id", 2, "model", "sales_dashboard", "stg_orders.order_id -[passthrough]-> orders.order_id" + to),
        ("stg_orders.ordered_at", 2, "model", "sales_dashboard", "stg_orders.ordered_at -[passthrough]-> orders.ordered_at" + to),
        ("stg_orders.status", 2, "model", "sales_dashboard", "stg_orders.status -[passthrough]-> orders.status" + to),
        ("stg_payments.amount", 2, "model", "sales_dashboard", "stg_payments.amount -[derived]-> orders.amount_paid" + to),
        ("stg_payments.payment_method", 2, "model", "sales_dashboard", "stg_payments.payment_method -[derived]-> orders.bank_transfer_amount" + to),
        ("stg_products.price", 3, "model", "sales_dashboard",
         "stg_products.price -[derived]-> int_order_items_priced.line_total -[derived]-> orders.items_amount" + to),
    ]  # fmt: skip


def test_trace_a_saved_query_back_to_sources(ask):
    doc = ask("trace", "saved_query:daily_revenue")
    assert doc["columns_asked"] == ["saved_query.daily_revenue"]
    to = " -[measure]-> metric:revenue -[metric]-> saved_query:daily_revenue"
    assert rows(doc) == [
        ("orders.amount_paid", 3, "model", "daily_revenue", "orders.amount_paid -[passthrough]-> semantic_model:orders.amount_paid" + to),
        ("semantic_model:orders.amount_paid", 2, None, "daily_revenue", "semantic_model:orders.amount_paid" + to),
        ("shop.payments.amount_cents", 5, "source", "daily_revenue",
         "shop.payments.amount_cents -[derived]-> stg_payments.amount -[derived]-> orders.amount_paid -[passthrough]-> semantic_model:orders.amount_paid" + to),
        ("stg_payments.amount", 4, "model", "daily_revenue",
         "stg_payments.amount -[derived]-> orders.amount_paid -[passthrough]-> semantic_model:orders.amount_paid" + to),
    ]  # fmt: skip


def test_trace_of_a_consumer_stops_at_the_depth_asked(ask):
    every = rows(ask("trace", "saved_query:daily_revenue"))
    for depth in (1, 2, 3):
        assert rows(ask("trace", "saved_query:daily_revenue", "--depth", str(depth))) == [r for r in every if r[1] <= depth]
    assert [r[0] for r in every if r[1] <= 2] == ["semantic_model:orders.amount_paid"]
