"""``catalog docs``: descriptions and PII tags written back into a copy of the bundled example,
whose YAML has comments, Jinja and a column entry of each kind added first.

The expected changes are read off the example's SQL and YAML (the same inheritance the
report's test lists, checked there hop by hop): e.g. customer_segments is ``select *, ...
from customers``, so each of its columns copies customers' column of its name; the snapshot
copies stg_customers' columns; stg_customers.updated_at passes the source's through.
"""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.docs.plan import plan_docs, select_models
from catalog.errors import ArtifactError
from catalog.masking import is_masked, masking_names, project_masking_functions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"
runner = CliRunner()

# comments, an inline comment, Jinja: (file, text, text with them)
ADDED = [
    ("models/staging/_staging.yml", "version: 2\n", "version: 2\n# Staging: one model per source table, renamed and typed.\n"),
    ("models/staging/_staging.yml", "        description: The customer who placed the order.\n",
     "        description: The customer who placed the order.  # as in orders\n"),
    ("models/marts/_marts.yml", "  - name: customer_segments\n", "  # every column of customers, and a segment\n  - name: customer_segments\n"),
    ("models/marts/_marts.yml", "        description: regular, occasional or prospect.\n",
     "        description: 'regular, occasional or prospect.' # see the SQL\n"),
    ("models/marts/_marts.yml", "        description: The customer.\n", "        description: \"{{ doc('daily_customer') }}\"\n"),
    ("snapshots/_snapshots.yml", "      - name: first_name\n", "      - name: first_name   # no description yet\n"),
]
DOC_BLOCK = "{% docs daily_customer %}\nThe customer.\n{% enddocs %}\n"


def commented_copy(dst: Path) -> Path:
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("*.duckdb", "logs", ".user.yml"))
    for rel, old, new in ADDED:
        path = dst / rel
        text = path.read_text()
        assert text.count(old) == 1, (rel, old)
        path.write_text(text.replace(old, new))
    (dst / "models" / "docs.md").write_text(DOC_BLOCK)
    return dst


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return commented_copy(tmp_path / "coffee_shop")


def _texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.yml")) if p.is_file() and "target" not in p.parts}


def edit_manifest(project: Path, edit) -> None:
    path = project / "target" / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


def _docs(*args: str):
    return runner.invoke(app, ["docs", *args])


EXPECTED_DIFF = """\
--- a/models/intermediate/_intermediate.yml
+++ b/models/intermediate/_intermediate.yml
@@ -8,3 +8,7 @@
         description: Price of one unit in euros.
       - name: line_total
         description: quantity * unit_price.
+      - name: order_item_id
+        description: Primary key of the order line.
+      - name: quantity
+        description: Units of the product on this line.
--- a/models/marts/_marts.yml
+++ b/models/marts/_marts.yml
@@ -25,6 +25,12 @@
         description: Total of all successful payments, 0 when none.
       - name: payment_status
         description: refunded, paid or unpaid.
+      - name: ordered_at
+        description: When the order was placed.
+      - name: order_date
+        description: Calendar day of ordered_at.
+      - name: status
+        description: Lower-case status; 'unknown' when the till left it empty.
 
   - name: customers
     description: One row per customer with order history and value.
@@ -54,6 +60,8 @@
         description: Sum paid over all orders that were not cancelled.
       - name: rank_in_country
         description: 1 for the customer with the highest lifetime value in their country.
+      - name: country_code
+        description: Two-letter ISO country code, upper case.
 
   - name: customer_scores
     description: Average value per order and a loyalty flag per customer (a Python model).
@@ -87,6 +95,22 @@
     columns:
       - name: segment
         description: 'regular, occasional or prospect.' # see the SQL
+      - name: customer_id
+        description: Primary key of the customer.
+      - name: full_name
+        description: First and last name.
+      - name: email
+        description: E-mail address in lower case.
+      - name: country_code
+        description: Two-letter ISO country code, upper case.
+      - name: country_name
+        description: Country, from the country_codes lookup.
+      - name: first_order_id
+        description: The customer's earliest order that was not cancelled.
+      - name: lifetime_value
+        description: Sum paid over all orders that were not cancelled.
+      - name: rank_in_country
+        description: 1 for the customer with the highest lifetime value in their country.
 
   - name: order_events
     description: Order placements and payments as one event stream.
@@ -95,6 +119,10 @@
         description: When the event happened.
       - name: event_type
         description: order_placed or payment_<method>.
+      - name: order_id
+        description: Primary key of the order.
+      - name: customer_id
+        description: The customer who placed the order.
 
   - name: product_sales
     description: Units sold and revenue per product, with load metadata.
--- a/models/staging/_staging.yml
+++ b/models/staging/_staging.yml
@@ -31,6 +31,8 @@
       - name: country_code
         description: Two-letter ISO country code, upper case.
       # signup_date and updated_at are left undocumented on purpose.
+      - name: updated_at
+        description: Last time the customer record changed.
 
   - name: stg_orders
     description: Orders with typed timestamps and a normalised status.
--- a/snapshots/_snapshots.yml
+++ b/snapshots/_snapshots.yml
@@ -7,11 +7,13 @@
       - name: customer_id
         description: The customer.
       - name: first_name   # no description yet
+        description: Given name, trimmed.
         config:
           meta:
             contains_pii: true
           tags: ["pii"]
       - name: last_name
+        description: Family name, trimmed.
         config:
           meta:
             contains_pii: true
@@ -22,3 +24,7 @@
           meta:
             contains_pii: true
           tags: ["pii"]
+      - name: country_code
+        description: Two-letter ISO country code, upper case.
+      - name: updated_at
+        description: Last time the customer record changed.
"""


def test_diff_write_check_and_idempotence(shop):
    before = _texts(shop)
    shown = _docs(str(shop))
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout == EXPECTED_DIFF
    assert "21 columns, 4 YAML files would change" in shown.stderr
    assert _texts(shop) == before  # --diff writes nothing

    assert _docs(str(shop), "--check").exit_code == 1
    written = _docs(str(shop), "--write")
    assert written.exit_code == 0, written.stderr
    assert (written.stdout, written.stderr) == ("", "21 columns written to 4 YAML files\n")
    after = _texts(shop)
    assert set(after) == set(before)  # no new file: every model has one
    for rel, text in before.items():
        # lines are only added: every other line, comments and Jinja among them, is there byte for byte, in order
        matcher = difflib.SequenceMatcher(None, text.splitlines(keepends=True), after[rel].splitlines(keepends=True), autojunk=False)
        assert {op for op, *_ in matcher.get_opcodes()} <= {"equal", "insert"}, rel
    assert "version: 2\n# Staging: one model per source table, renamed and typed.\n" in after["models/staging/_staging.yml"]
    assert "        description: \"{{ doc('daily_customer') }}\"\n" in after["models/marts/_marts.yml"]

    check = _docs(str(shop), "--check")
    assert (check.exit_code, check.stdout) == (0, "")
    assert "Nothing to change." in check.stderr
    again = _docs(str(shop), "--write")
    assert again.exit_code == 0 and _texts(shop) == after  # a second --write changes nothing


def test_a_crlf_file_keeps_its_line_ends(shop):
    crlf = ["models/marts/_marts.yml", "models/staging/_staging.yml"]
    for rel in crlf:
        (shop / rel).write_bytes((shop / rel).read_bytes().replace(b"\n", b"\r\n"))
    before = {rel: (shop / rel).read_bytes() for rel in crlf}
    shown = _docs(str(shop))
    assert shown.exit_code == 0, shown.stderr
    diff = shown.stdout_bytes.decode()  # as printed (``stdout`` reads CRLF as LF)
    assert diff.replace("\r\n", "\n") == EXPECTED_DIFF and "\r\n" in diff  # the same lines, with their CRLF
    assert _docs(str(shop), "--write").exit_code == 0
    sections = {part.split("\n", 1)[0]: part for part in diff.split("+++ b/")[1:]}
    for rel in crlf:
        after = (shop / rel).read_bytes()
        assert b"\n" not in after.replace(b"\r\n", b"")  # every line ends CRLF, the added ones too
        old, new = before[rel].split(b"\r\n"), after.split(b"\r\n")
        opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        assert {op for op, *_ in opcodes} == {"equal", "insert"}, rel  # byte for byte but the added lines
        inserted = [line for op, _, _, j1, j2 in opcodes if op == "insert" for line in new[j1:j2]]
        shown_added = [line[1:].encode() for line in sections[rel].split("\r\n") if line.startswith("+")]
        assert inserted == shown_added  # what --diff shows is what --write adds
    assert _docs(str(shop), "--check").exit_code == 0


def test_an_addition_among_lines_ruamel_yaml_lays_out_otherwise_is_refused(shop):
    # first_name's entry, indented as ruamel.yaml never writes it: where its description goes
    # among those lines cannot be told, so nothing is written, in no file
    rel = "snapshots/_snapshots.yml"
    old = '      - name: first_name   # no description yet\n        config:\n          meta:\n            contains_pii: true\n          tags: ["pii"]\n'
    new = '      -   name: first_name\n          config:\n            meta:\n              contains_pii: true\n            tags: [ "pii" ]\n'
    text = (shop / rel).read_text()
    assert text.count(old) == 1
    (shop / rel).write_text(text.replace(old, new))
    before = _texts(shop)
    r = _docs(str(shop), "--write")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("Error: ") and f"{rel}: cannot be edited without changing lines no edit touches" in r.stderr
    assert _texts(shop) == before


def test_pii_tags_and_no_docs(shop):
    r = _docs(str(shop), "--pii", "--no-docs")
    assert r.exit_code == 0, r.stderr
    # customers.full_name and email are tagged; customer_segments' `select *` passes both on untagged
    assert r.stdout == """\
--- a/models/marts/_marts.yml
+++ b/models/marts/_marts.yml
@@ -87,6 +87,12 @@
     columns:
       - name: segment
         description: 'regular, occasional or prospect.' # see the SQL
+      - name: full_name
+        config:
+          tags: [pii]
+      - name: email
+        config:
+          tags: [pii]
 
   - name: order_events
     description: Order placements and payments as one event stream.
"""
    both = _docs(str(shop), "--pii", "--json")
    doc = json.loads(both.stdout)
    tagged = {c["column"]["label"]: [f["label"] for f in c["pii_from"]] for c in doc["changes"] if c["pii_from"]}
    assert tagged == {
        "customer_segments.email": ["customers.email", "shop.customers.email", "stg_customers.email"],
        "customer_segments.full_name": ["customers.full_name", "shop.customers.first_name", "shop.customers.last_name",
                                        "stg_customers.first_name", "stg_customers.last_name"],
    }
    described = {c["column"]["label"]: c["description"] for c in doc["changes"]}
    assert described["customer_segments.email"] == "E-mail address in lower case."
    assert _docs(str(shop), "--no-docs").exit_code == 2


def test_an_existing_tag_list_gets_pii_added_not_replaced(shop):
    marts = shop / "models/marts/_marts.yml"
    marts.write_text(marts.read_text().replace(
        "      - name: segment\n", "      - name: email\n        tags: [contact]\n      - name: segment\n"))
    r = _docs(str(shop), "--pii", "--no-docs", "--write")
    assert r.exit_code == 0, r.stderr
    text = marts.read_text()
    assert "      - name: email\n        tags: [contact, pii]\n      - name: segment\n" in text
    assert "      - name: full_name\n        config:\n          tags: [pii]\n" in text  # the file's style: under config


def test_a_renamed_column_inherits_where_name_matching_would_not(shop):
    # stg_customers.customer_id is `id as customer_id` over the source: no upstream column is
    # named customer_id, but the renamed edge leads to shop.customers.id, documented
    staging = shop / "models/staging/_staging.yml"
    staging.write_text(staging.read_text().replace("        description: Primary key of the customer.\n", "", 1))

    def undocument(m):
        m["nodes"]["model.coffee_shop.stg_customers"]["columns"]["customer_id"]["description"] = ""

    edit_manifest(shop, undocument)
    r = _docs(str(shop), "--json", "--select", "stg_customers")
    doc = json.loads(r.stdout)
    assert [(c["column"]["label"], c["description"], c["source"]["label"], c["hops"]) for c in doc["changes"]] == [
        ("stg_customers.customer_id", "Primary key of the customer in the point-of-sale database.", "shop.customers.id", ["renamed"]),
        ("stg_customers.updated_at", "Last time the customer record changed.", "shop.customers.updated_at", ["passthrough"]),
    ]


def test_a_conflict_is_reported_not_resolved(shop):
    # order_events unions stg_orders (order_id documented) and stg_payments (order_id not): given
    # stg_payments.order_id a text of its own, the two nearest candidates disagree
    def document(m):
        m["nodes"]["model.coffee_shop.stg_payments"]["columns"]["order_id"] = {
            "name": "order_id", "description": "The order the payment settles.", "meta": {}, "tags": []}

    edit_manifest(shop, document)
    r = _docs(str(shop), "--json", "--select", "order_events")
    doc = json.loads(r.stdout)
    assert [c["column"]["label"] for c in doc["changes"]] == ["order_events.customer_id"]
    [conflict] = doc["conflicts"]
    assert conflict["column"]["label"] == "order_events.order_id" and conflict["description"] is None
    assert [(c["column"]["label"], c["description"]) for c in conflict["candidates"]] == [
        ("stg_orders.order_id", "Primary key of the order."), ("stg_payments.order_id", "The order the payment settles.")]
    assert "order_events.order_id: not written, its nearest documented columns disagree" in r.stderr
    shown = _docs(str(shop), "--select", "order_events")
    assert "+      - name: customer_id\n" in shown.stdout and "order_id" not in shown.stdout


@pytest.mark.parametrize(
    ("expression", "functions"),
    [("md5(customers.email) as email", ""), ("cast(sha256(customers.email) as varchar) as email", ""),
     ("mask_email(customers.email) as email", "vars:\n  catalog_masking_functions: [mask_email]\n")],
    ids=["md5", "cast-of-sha256", "project-function"],
)
def test_a_hashed_pii_column_is_masked(shop, expression, functions):
    def hash_email(m):
        node = m["nodes"]["model.coffee_shop.customers"]
        node["columns"]["email"].update(tags=[], meta={}, config={"tags": [], "meta": {}})  # a hash is not personal
        assert node["compiled_code"].count("    customers.email,\n") == 1
        node["compiled_code"] = node["compiled_code"].replace("    customers.email,\n", f"    {expression},\n")

    edit_manifest(shop, hash_email)
    if functions:
        (shop / "dbt_project.yml").write_text((shop / "dbt_project.yml").read_text() + functions)
    doc = json.loads(_docs(str(shop), "--pii", "--json").stdout)
    tagged = sorted(c["column"]["label"] for c in doc["changes"] if c["pii_from"])
    # customers.email and customer_segments.email (a copy of it) hold a hash: neither is tagged
    assert tagged == ["customer_segments.full_name"]


def test_masking_rule():
    names = masking_names(["mask_email"])
    assert is_masked("MD5(email)", "duckdb", names)
    assert is_masked("CAST(SHA2(email, 256) AS TEXT)", "snowflake", names)
    assert is_masked("FARM_FINGERPRINT(email)", "bigquery", names)
    assert is_masked("util.mask_email(email)", "duckdb", names)
    assert not is_masked("MD5(email) || name", "duckdb", names)  # the outermost function is the concatenation
    assert not is_masked("LOWER(MD5(email))", "duckdb", names)
    assert not is_masked("mask_email(email)", "duckdb", masking_names())
    assert not is_masked("email", "duckdb", names) and not is_masked("", "duckdb", names)


def test_project_masking_functions(tmp_path):
    assert project_masking_functions(tmp_path) == ()
    (tmp_path / "dbt_project.yml").write_text("name: shop\nvars:\n  shop:\n    catalog_masking_functions: [Mask_Email, tokenize]\n")
    assert project_masking_functions(tmp_path, "shop") == ("mask_email", "tokenize")
    (tmp_path / "dbt_project.yml").write_text("name: shop\nvars:\n  catalog_masking_functions: 3\n")
    with pytest.raises(ArtifactError) as err:
        project_masking_functions(tmp_path, "shop")
    assert str(err.value) == f"{tmp_path / 'dbt_project.yml'}: vars.catalog_masking_functions must be a list of function names, not 3"


def test_select_graph_operators():
    from catalog.extract import load_project

    nodes = load_project(EXAMPLE).nodes
    names = lambda ids: sorted(nodes[u].name for u in ids)  # noqa: E731
    assert names(select_models(nodes, ["customers+"])) == ["customer_scores", "customer_segments", "customers"]
    assert names(select_models(nodes, ["1+customer_segments"])) == ["customer_segments", "customers"]
    assert names(select_models(nodes, ["+stg_customers"])) == ["customers", "stg_customers"]  # the source is named customers
    assert names(select_models(nodes, ["orders customers"])) == ["customers", "orders"]  # not the sources of these names


def test_a_model_without_yaml_gets_a_file_named_as_the_others(shop):
    (shop / "models/intermediate/_intermediate.yml").unlink()

    def unpatch(m):
        m["nodes"]["model.coffee_shop.int_order_items_priced"]["patch_path"] = None
        for c in m["nodes"]["model.coffee_shop.int_order_items_priced"]["columns"].values():
            c["description"] = ""  # unit_price (stg_products.price renamed) inherits now; line_total is computed

    edit_manifest(shop, unpatch)
    r = _docs(str(shop), "--write", "--select", "int_order_items_priced")
    assert r.exit_code == 0, r.stderr
    assert (shop / "models/intermediate/_intermediate.yml").read_text() == """\
version: 2

models:
  - name: int_order_items_priced
    columns:
      - name: order_item_id
        description: Primary key of the order line.
      - name: quantity
        description: Units of the product on this line.
      - name: unit_price
        description: Unit price in euros.
"""


def test_a_project_with_one_file_per_model_gets_one_more(shop):
    # the manifest says every model is documented in <model>.yml beside its SQL (the files
    # themselves are not read: only int_order_items_priced is selected, and it has none)
    def one_file_per_model(m):
        for node in m["nodes"].values():
            if node["resource_type"] == "model" and node.get("patch_path"):
                node["patch_path"] = f"coffee_shop://{node['original_file_path'].rsplit('/', 1)[0]}/{node['name']}.yml"
        m["nodes"]["model.coffee_shop.int_order_items_priced"]["patch_path"] = None

    edit_manifest(shop, one_file_per_model)
    r = _docs(str(shop), "--select", "int_order_items_priced")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["--- /dev/null", "+++ b/models/intermediate/int_order_items_priced.yml"]
    assert _docs(str(shop), "--select", "int_order_items_priced", "--write").exit_code == 0
    assert (shop / "models/intermediate/int_order_items_priced.yml").read_text().startswith(
        "version: 2\n\nmodels:\n  - name: int_order_items_priced\n    columns:\n")


def test_errors_are_one_line(shop, tmp_path):
    (shop / "models/marts/_marts.yml").write_text("models: [\n")
    r = _docs(str(shop))
    assert r.exit_code == 2 and r.stderr.startswith("Error: ") and "_marts.yml: not valid YAML" in r.stderr
    assert "Traceback" not in r.stderr
    missing = _docs(str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and missing.stderr.startswith("Error: ")
    assert _docs(str(shop), "--write", "--check").exit_code == 2
    assert "no model, snapshot or seed is named 'nope'" in _docs(str(shop), "--select", "nope+").stderr
