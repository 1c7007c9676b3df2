"""Python models: ``opaque``, with the column lineage their YAML declares
(``meta: {catalog: {lineage: {column: [parent.column, ...]}}}``), checked against the model's
real parents; and models the warehouse would not create as a relation (ephemeral ones) are
not refused for a name given twice."""

from __future__ import annotations

from test_project_analysis import make_project, node

from catalog.analyze.project import analyze_project
from catalog.analyze.records import ColumnKind, ModelStatus
from catalog.extract import DbtColumn, input_warnings

SRC = "source.p.raw.payments"
ORDERS = "model.p.orders"
CUSTOMERS = "model.p.customers"


def python_model(lineage: object, depends_on: tuple[str, ...] = (ORDERS, SRC), columns: tuple[str, ...] = (), nested: bool = False) -> object:
    meta = {} if lineage is None else {"catalog": {"lineage": lineage}} if nested else {"catalog_lineage": lineage}
    return node("model.p.scores", None, columns, language="python", depends_on=depends_on, meta=meta)


def project_with(model):
    return make_project(
        [
            node(SRC, columns=("order_id", "amount"), relation_name='"db"."raw"."payments"', source_name="raw"),
            node(ORDERS, "select 1 as order_id, 2 as customer_id", ("order_id", "customer_id")),
            node(CUSTOMERS, "select 1 as customer_id", ("customer_id",)),
            model,
        ]
    )


def test_declared_lineage_is_stored_as_declared_edges_of_an_opaque_model() -> None:
    lineage = {"order_id": ["orders.order_id"], "paid": ["raw.payments.amount", "orders.order_id"]}
    model = python_model(lineage, columns=("order_id", "paid", "note"))
    result = analyze_project(project_with(model), jobs=1)["model.p.scores"]
    assert result.status == ModelStatus.OPAQUE
    assert result.reason == "python model: no SQL to analyze; lineage as declared in YAML (meta.catalog_lineage)"
    got = {c.name: (c.kind, c.resolved, [s.key for s in c.sources]) for c in result.columns}
    assert got == {
        "order_id": (ColumnKind.DECLARED, True, ["model.p.orders.order_id"]),
        "paid": (ColumnKind.DECLARED, True, ["model.p.orders.order_id", "source.p.raw.payments.amount"]),
        "note": (ColumnKind.UNKNOWN, False, []),
    }
    assert result.column("note").reason == "python model: no SQL to analyze; no lineage declared for this column"
    assert [w.code for w in input_warnings(project_with(model))] == ["no_catalog"]


def test_the_nested_form_declares_the_same_lineage() -> None:
    """``meta: {catalog: {lineage: ...}}`` (the first documented form) reads as ``catalog_lineage``."""
    lineage = {"order_id": ["orders.order_id"], "paid": ["raw.payments.amount"]}
    flat, nested = (
        analyze_project(project_with(python_model(lineage, columns=("order_id", "paid"), nested=n)), jobs=1)["model.p.scores"]
        for n in (False, True)
    )
    assert [(c.name, c.kind, [s.key for s in c.sources]) for c in nested.columns] == [
        ("order_id", ColumnKind.DECLARED, ["model.p.orders.order_id"]),
        ("paid", ColumnKind.DECLARED, ["source.p.raw.payments.amount"]),
    ]
    assert nested.model_dump() == flat.model_dump()


def test_declared_columns_the_model_does_not_list_are_its_columns_too() -> None:
    result = analyze_project(project_with(python_model({"Score": "orders.customer_id"})), jobs=1)["model.p.scores"]
    assert [(c.name, c.kind, [s.key for s in c.sources]) for c in result.columns] == [
        ("score", ColumnKind.DECLARED, ["model.p.orders.customer_id"])
    ]


def test_what_the_parents_contradict_is_left_out_and_warned() -> None:
    lineage = {
        "a": ["customers.customer_id", "orders.nope", "nowhere.x", "orders.order_id"],
        "b": "no_dot",
    }
    project = project_with(python_model(lineage))
    result = analyze_project(project, jobs=1)["model.p.scores"]
    assert [(c.name, [s.key for s in c.sources]) for c in result.columns] == [("a", ["model.p.orders.order_id"]), ("b", [])]
    (warning,) = [w for w in input_warnings(project) if w.code == "declared_lineage"]
    assert warning.models == ("model.p.scores",)
    assert warning.message == (
        "python model scores (model.p.scores): a: customers is not a parent of the model (ref it in the model); "
        "a: orders has no column 'nope'; a: nowhere names no model, seed, snapshot or source; "
        "b: 'no_dot' is not `parent.column`; parent raw.payments feeds no declared column"
    )


def test_a_python_model_without_declared_lineage_is_opaque_and_warned() -> None:
    project = project_with(python_model(None, columns=("x",)))
    result = analyze_project(project, jobs=1)["model.p.scores"]
    assert (result.status, [(c.name, c.kind, c.resolved) for c in result.columns]) == (
        ModelStatus.OPAQUE,
        [("x", ColumnKind.UNKNOWN, False)],
    )
    assert "its lineage can be declared in YAML (meta.catalog_lineage)" in result.reason
    (warning,) = [w for w in input_warnings(project) if w.code == "declared_lineage"]
    assert "declares no lineage (meta.catalog_lineage)" in warning.message


def test_a_lineage_that_is_not_a_mapping_is_warned() -> None:
    project = project_with(python_model(["orders.order_id"], columns=("x",)))
    assert analyze_project(project, jobs=1)["model.p.scores"].column("x").kind == ColumnKind.UNKNOWN
    (warning,) = [w for w in input_warnings(project) if w.code == "declared_lineage"]
    assert warning.message.endswith("meta.catalog_lineage must map each column to a list of `parent.column`")


def test_a_name_twice_is_refused_for_a_table_but_not_for_an_ephemeral_model() -> None:
    sql = 'select a.id, b.id from "db"."main"."orders" a join "db"."main"."customers" b on a.id = b.id'
    nodes = [
        node(ORDERS, "select 1 as id", ("id",)),
        node(CUSTOMERS, "select 1 as id", ("id",)),
        node("model.p.table", sql, depends_on=(ORDERS, CUSTOMERS)),
        node("model.p.eph", sql, depends_on=(ORDERS, CUSTOMERS), materialized="ephemeral", relation_name=None),
    ]
    project = make_project(nodes).model_copy(update={"dialect": "postgres", "adapter_type": "postgres"})
    result = analyze_project(project, jobs=1)
    assert result["model.p.table"].status == ModelStatus.FAILED
    assert result["model.p.table"].reason == "postgres refuses a table or view with two columns named 'id' (a.id, b.id)"
    assert result["model.p.eph"].status == ModelStatus.UNRESOLVED
    assert result["model.p.eph"].column("id").reason.startswith("two output columns are named 'id'")


def test_a_parent_documented_in_yaml_only_is_not_taken_to_lack_a_column() -> None:
    documented = node(ORDERS, "select 1 as order_id, 2 as customer_id").model_copy(
        update={"columns": (DbtColumn(name="order_id", declared=True),)}
    )
    model = python_model({"x": ["orders.customer_id"]}, depends_on=(ORDERS,))
    project = make_project([documented, model])
    result = analyze_project(project, jobs=1)["model.p.scores"]
    assert [(c.name, [s.key for s in c.sources]) for c in result.columns] == [("x", ["model.p.orders.customer_id"])]
    assert [w.code for w in input_warnings(project)] == ["no_catalog"]
