"""Metabase read from the API JSON that gouline/dbt-metabase recorded from a real Metabase over its
jaffle_shop sandbox (tests/fixtures/bi/metabase, metabase_mbql5; the sandbox's manifest in
metabase_sandbox; see SOURCE.md): each field of the dashboard's cards checked by hand against
the models' SQL, both query formats (legacy MBQL and MBQL 5) giving the same fields, and bad
input one error naming the file or an unresolved field with its reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.analyze.records import column_names
from catalog.bi.link import Linked, bi_edges
from catalog.bi.sources import read_bi
from catalog.errors import ArtifactError
from catalog.extract import load_project

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bi"
SANDBOX = FIXTURES / "metabase_sandbox"
F = "bi_field.metabase."
C = "chart.metabase."
ORDERS = "model.sandbox.orders."
CUSTOMERS = "model.sandbox.customers."
# orders (Metabase table 10, public.orders) and customers (12, public.customers): each Metabase
# field id of the metadata with its column, read from database/2/metadata.json by hand
ORDER_FIELDS = {84: "order_id", 79: "customer_id", 82: "order_date", 78: "status", 83: "amount",
                81: "credit_card_amount", 76: "coupon_amount", 77: "bank_transfer_amount", 80: "gift_card_amount"}  # fmt: skip
CUSTOMER_FIELDS = {94: "customer_id", 91: "first_name", 90: "last_name", 95: "first_order", 92: "most_recent_order",
                   89: "number_of_orders", 93: "customer_lifetime_value"}  # fmt: skip


def linked_of(folders: list[Path]):
    project = read_bi(load_project(SANDBOX), SANDBOX, folders)
    lineages = analyze_project(project, jobs=1)
    return project, Linked(project, column_names(lineages)), bi_edges(project, column_names(lineages))


@pytest.fixture(scope="module")
def linked():
    return linked_of([FIXTURES / "metabase"])


def into(edges, down: str) -> set[tuple[str, str]]:
    return {(up, typ) for up, d, typ, _ in edges if d == down}


def orders_and_customers() -> dict[str, set[tuple[str, str]]]:
    """Card 27, `Orders + Customers`: orders joined to customers with all their fields; each
    field is its column, as it is (orders.sql and customers.sql select them by name)."""
    out = {F + str(i): {(ORDERS + c, "passthrough")} for i, c in ORDER_FIELDS.items()}
    return out | {F + str(i): {(CUSTOMERS + c, "passthrough")} for i, c in CUSTOMER_FIELDS.items()}


def test_a_query_card_shows_the_fields_of_its_table_and_its_join(linked) -> None:
    project, links, edges = linked
    chart = project.charts[C + "27"]
    assert (chart.tool_id, chart.name, chart.kind, chart.line) == ("27", "Orders + Customers", "question", 1)
    assert chart.file.endswith("metabase/card/27.json")
    expected = orders_and_customers()
    assert dict(chart.shows) == {uid: "column" for uid in expected}
    assert {uid: into(edges, uid) for uid in expected} == expected
    amount = project.bi_fields[F + "83"]
    assert (amount.tool, amount.tool_id, amount.name, amount.table, amount.node) == ("metabase", "83", "amount", "public.orders", "model.sandbox.orders")
    assert links.status(F + "83") == ("resolved", None)


def test_a_card_on_a_card_shows_the_same_fields(linked) -> None:
    """Card 28 is card 27 (`card__27`) filtered on status (field 78): the same sixteen fields."""
    project, _, _ = linked
    assert dict(project.charts[C + "28"].shows) == dict(project.charts[C + "27"].shows)
    assert F + "78" in dict(project.charts[C + "28"].shows)


def test_a_native_card_reads_the_columns_of_its_sql(linked) -> None:
    """Card 32: `with completed_orders as (select * from Orders where status = 'completed')
    select * from completed_orders`: orders' nine columns, unchanged. Card 29: `select count(*)
    from STG_payments ... where o.status = 'returned'`: its one column, named `count` as Metabase
    recorded it, reads no column's values: unresolved with that reason."""
    project, links, edges = linked
    chart = project.charts[C + "32"]
    assert (chart.kind, chart.name) == ("native_question", "Completed Orders CTE SQL")
    assert dict(chart.shows) == {F + f"32.{c}": "column" for c in ORDER_FIELDS.values()}
    for column in ORDER_FIELDS.values():
        assert into(edges, F + f"32.{column}") == {(ORDERS + column, "passthrough")}
    count = project.bi_fields[F + "29.count"]
    assert (count.tool_id, count.kind, count.line) == ("count", "sql_column", 75)  # the line of its "query"
    assert dict(project.charts[C + "29"].shows) == {F + "29.count": "column"}
    assert links.status(F + "29.count") == ("unresolved", "count reads no column")


def test_the_dashboard_holds_its_three_cards(linked) -> None:
    project, _, edges = linked
    board = project.dashboards["dashboard.metabase.2"]
    assert (board.tool_id, board.name, board.holds, board.shows) == ("2", "The Dashboard", (C + "27", C + "28", C + "29"), ())
    assert {(up, down) for up, down, typ, _ in edges if typ == "holds"} == {(C + i, "dashboard.metabase.2") for i in ("27", "28", "29")}


def test_mbql5_cards_give_the_same_fields(linked, tmp_path: Path) -> None:
    """The same cards recorded from a Metabase whose API writes MBQL 5 (stages, source-card),
    with the same metadata."""
    shutil.copytree(FIXTURES / "metabase_mbql5", tmp_path / "mb5")
    shutil.copytree(FIXTURES / "metabase" / "database", tmp_path / "mb5" / "database")
    project, _, edges = linked_of([tmp_path / "mb5"])
    legacy, _, legacy_edges = linked
    for card in ("27", "28", "29"):
        assert project.charts[C + card].shows == legacy.charts[C + card].shows
        for uid, _ in project.charts[C + card].shows:
            assert into(edges, uid) == into(legacy_edges, uid)
    assert into(edges, F + "83") == {(ORDERS + "amount", "passthrough")}


def write(folder: Path, name: str, doc: object) -> None:
    (folder / name).write_text(json.dumps(doc, indent=4))


def test_unknown_tables_and_missing_columns_are_unresolved_with_their_reason(tmp_path: Path) -> None:
    """A card on a table the metadata does not have, a field (added to orders' metadata) naming a
    column orders does not have, card 33 on a table renamed to one no dbt node is, a dashboard
    filter mapped to status, and a dashcard of a card no file defines."""
    folder = tmp_path / "mb"
    shutil.copytree(FIXTURES / "metabase" / "database", folder / "database")
    meta_path = folder / "database" / "2" / "metadata.json"
    meta = json.loads(meta_path.read_text())
    orders = next(t for t in meta["tables"] if t["name"] == "orders")
    orders["fields"].append({"id": 500, "name": "discount_code", "table_id": orders["id"]})
    next(t for t in meta["tables"] if t["name"] == "transactions")["name"] = "old_transactions"
    meta_path.write_text(json.dumps(meta))
    shutil.copy(FIXTURES / "metabase" / "card" / "33.json", folder / "33.json")
    write(folder, "nowhere.json", {"id": 40, "name": "Nowhere", "dataset_query": {"database": 2, "type": "query", "query": {"source-table": 999}}})
    discount = {"database": 2, "type": "query", "query": {"source-table": orders["id"], "fields": [["field", 500, None]]}}
    write(folder, "discount.json", {"id": 41, "name": "Discounts", "dataset_query": discount})
    write(folder, "board.json", {"id": 7, "name": "Board", "dashcards": [
        {"id": 1, "card_id": 41, "parameter_mappings": [{"parameter_id": "p", "card_id": 41, "target": ["dimension", ["field", 78, None]]}]},
        {"id": 2, "card_id": 99},
    ]})  # fmt: skip
    project, links, edges = linked_of([folder])
    assert links.status(F + "40.table 999") == (
        "unresolved", "card 40: source table id 999 is in no Metabase metadata (database/ID/metadata.json) of the BI folders",
    )  # fmt: skip
    assert dict(project.charts[C + "41"].shows) == {F + "500": "column"}
    assert links.status(F + "500") == ("unresolved", "column orders.discount_code is not in the model (neither in its SQL nor in the warehouse)")
    assert into(edges, F + "500") == set()
    board = project.dashboards["dashboard.metabase.7"]
    assert board.holds == (C + "41", C + "99")
    assert board.shows == ((F + "78", "filter"),)
    assert into(edges, F + "78") == {(ORDERS + "status", "passthrough")}
    assert project.charts[C + "99"].reason == "no card file of the BI folders defines card 99"
    assert dict(project.charts[C + "33"].shows) == {F + str(i): "column" for i in (111, 112, 113, 114)}
    assert links.status(F + "114") == ("unresolved", "Metabase table public.old_transactions (id 18) is no model, seed, snapshot or source of the project")


def test_an_aggregation_is_a_field_of_its_card(tmp_path: Path) -> None:
    """A question written for this test in the shape of card 27's API JSON: the sum of orders'
    amount (field 83) by status (78), filtered on order_date (82)."""
    folder = tmp_path / "mb"
    shutil.copytree(FIXTURES / "metabase" / "database", folder / "database")
    query = {"source-table": 10, "aggregation": [["sum", ["field", 83, None]]], "breakout": [["field", 78, None]],
             "filter": [">", ["field", 82, None], "2018-01-01"]}  # fmt: skip
    result = [{"name": "status", "field_ref": ["field", 78, None]}, {"name": "sum", "field_ref": ["aggregation", 0]}]
    write(folder, "50.json", {"id": 50, "name": "Amount by status", "dataset_query": {"database": 2, "type": "query", "query": query}, "result_metadata": result})
    project, links, edges = linked_of([folder])
    assert dict(project.charts[C + "50"].shows) == {F + "78": "column", F + "50.sum": "column", F + "83": "metric", F + "82": "filter"}
    assert into(edges, F + "50.sum") == {(ORDERS + "amount", "derived")}
    assert (project.bi_fields[F + "50.sum"].tool_id, project.bi_fields[F + "50.sum"].kind) == ("sum", "aggregation")
    assert into(edges, F + "82") == {(ORDERS + "order_date", "passthrough")}


def test_a_native_cards_variables_and_field_filter(tmp_path: Path) -> None:
    """Written for this test: `{{status}}` a field filter on orders.status (field 78), the optional
    clause kept, the variable `{{since}}` read as NULL."""
    folder = tmp_path / "mb"
    shutil.copytree(FIXTURES / "metabase" / "database", folder / "database")
    sql = "select customer_id, sum(amount) as total from orders where {{status}} [[and order_date > {{since}}]] group by 1"
    tags = {"status": {"type": "dimension", "dimension": ["field", 78, None]}, "since": {"type": "date"}}
    write(folder, "60.json", {"id": 60, "name": "Totals", "dataset_query": {"database": 2, "type": "native", "native": {"query": sql, "template-tags": tags}}})
    project, _, edges = linked_of([folder])
    assert dict(project.charts[C + "60"].shows) == {F + "60.customer_id": "column", F + "60.total": "column", F + "78": "filter"}
    assert into(edges, F + "60.customer_id") == {(ORDERS + "customer_id", "passthrough")}
    assert into(edges, F + "60.total") == {(ORDERS + "amount", "derived")}


def test_broken_json_is_one_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "27.json").write_text('{"id": 27, "dataset_query": {\n  "type": "query",\n}')
    with pytest.raises(ArtifactError, match=r"27\.json: line 3: not valid JSON"):
        read_bi(load_project(SANDBOX), SANDBOX, [tmp_path])
