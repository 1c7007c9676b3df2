"""``catalog docs`` on a versioned model (dbt 1.5+): each version's inherited description and
PII tag go where dbt reads that version's column, and no other version's docs change.

The fixture is the bundled example plus ``tests/docs/versioned/``: ``dim_customers`` in two
versions over ``customers`` and their YAML; ``manifest_nodes.json`` holds the four nodes
(two versions, their ``unique`` tests) of the manifest that dbt-core 1.11.16 with dbt-duckdb
1.11.1 wrote for that copy (``dbt compile -s dim_customers``), merged into the example's.

What each version's columns inherit, read off the SQL: ``id`` (both, ``customer_id as id``)
and ``email`` (both, PII) the same text; ``full_name`` is v2's only (v1 excludes it);
``value`` disagrees (v1 ``lifetime_value``, v2 ``rank_in_country``); ``legacy_id`` is
declared in v1's own list; ``country`` is v2's only while v1 would read a top-level entry.
dbt parse of the written file gives v1 and v2 exactly these descriptions and tags, and keeps
the ``unique`` test of both versions' ``id``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_docs import _docs, edit_manifest

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "coffee_shop"
VERSIONED = HERE / "versioned"
YML = "models/marts/_dim_customers.yml"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    dst = tmp_path / "coffee_shop"
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("*.duckdb", "logs", ".user.yml"))
    shutil.copytree(VERSIONED / "models", dst / "models", dirs_exist_ok=True)
    nodes = json.loads((VERSIONED / "manifest_nodes.json").read_text())["nodes"]
    edit_manifest(dst, lambda manifest: manifest["nodes"].update(nodes))
    return dst


BOTH = """\
--- a/models/marts/_dim_customers.yml
+++ b/models/marts/_dim_customers.yml
@@ -6,10 +6,17 @@
     latest_version: 2
     columns:
       - name: id
+        description: Primary key of the customer.
         data_tests:
           - unique
       - name: email
+        description: E-mail address in lower case.
+        config:
+          tags: [pii]
       - name: full_name
+        description: First and last name.
+        config:
+          tags: [pii]
       - name: value
         data_type: double
     versions:
@@ -18,4 +25,14 @@
           - include: all
             exclude: [full_name]
           - name: legacy_id
+            description: Primary key of the customer.
+          - name: value
+            description: Sum paid over all orders that were not cancelled.
+            data_type: double
       - v: 2
+        columns:
+          - name: value
+            description: 1 for the customer with the highest lifetime value in their country.
+            data_type: double
+          - name: country
+            description: Country, from the country_codes lookup.
"""

# v2 is not written, so whatever v1 shares with it goes into v1's own list, as a copy of the
# top-level entry (its test kept)
ONLY_V1 = """\
--- a/models/marts/_dim_customers.yml
+++ b/models/marts/_dim_customers.yml
@@ -18,4 +18,16 @@
           - include: all
             exclude: [full_name]
           - name: legacy_id
+            description: Primary key of the customer.
+          - name: id
+            description: Primary key of the customer.
+            data_tests:
+              - unique
+          - name: email
+            description: E-mail address in lower case.
+            config:
+              tags: [pii]
+          - name: value
+            description: Sum paid over all orders that were not cancelled.
+            data_type: double
       - v: 2
"""


def test_each_version_written_where_dbt_reads_it(shop: Path) -> None:
    r = _docs(str(shop), "--pii", "--select", "dim_customers")
    assert r.exit_code == 0, r.output
    assert r.stdout == BOTH
    assert r.stderr == "9 columns, 1 YAML file would change\n"


@pytest.mark.parametrize("selector", ["dim_customers.v1", "dim_customers_v1"])
def test_one_version_selected_changes_no_other(shop: Path, selector: str) -> None:
    r = _docs(str(shop), "--pii", "--select", selector)
    assert r.exit_code == 0, r.output
    assert r.stdout == ONLY_V1


def test_json_names_versions_and_their_own_entries(shop: Path) -> None:
    r = _docs(str(shop), "--pii", "--select", "dim_customers", "--json")
    assert r.exit_code == 0, r.output
    got = [(c["column"]["unique_id"].rsplit(".", 1)[1], c["column"]["name"], c["version"], c["version_entry"])
           for c in json.loads(r.stdout)["changes"]]  # fmt: skip
    assert sorted(got) == [
        ("v1", "email", "1", []), ("v1", "id", "1", []), ("v1", "legacy_id", "1", ["description"]),
        ("v1", "value", "1", ["description"]),
        ("v2", "country", "2", ["description"]), ("v2", "email", "2", []), ("v2", "full_name", "2", []),
        ("v2", "id", "2", []), ("v2", "value", "2", ["description"]),
    ]  # fmt: skip


def test_write_then_check_then_nothing(shop: Path) -> None:
    assert _docs(str(shop), "--pii", "--write").exit_code == 0
    written = (shop / YML).read_text()
    before = (VERSIONED / YML).read_text()
    assert written.startswith(before[: before.index("      - name: id\n")])
    # what dbt-core 1.11.16 parses from the written file, version by version (its unique tests kept)
    assert resolved(shop / YML) == {
        "v1": {"id": (KEY, []), "email": (MAIL, ["pii"]), "value": ("Sum paid over all orders that were not cancelled.", []),
               "legacy_id": (KEY, [])},
        "v2": {"id": (KEY, []), "email": (MAIL, ["pii"]), "full_name": (NAME, ["pii"]),
               "value": ("1 for the customer with the highest lifetime value in their country.", []),
               "country": ("Country, from the country_codes lookup.", [])},
    }  # fmt: skip
    r = _docs(str(shop), "--pii", "--check")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "Nothing to change.\n")
    r = _docs(str(shop), "--pii", "--write")
    assert (r.exit_code, r.stderr) == (0, "Nothing to change.\n")
    assert (shop / YML).read_text() == written


def test_a_version_the_yaml_lacks_is_an_error(shop: Path) -> None:
    path = shop / YML
    path.write_text(path.read_text().replace("      - v: 2\n", "      - v: 3\n"))
    r = _docs(str(shop), "--select", "dim_customers.v2")
    assert r.exit_code == 2
    assert r.stderr == "Error: model dim_customers: the YAML has no version v: 2 (run dbt parse again)\n"



def resolved(path: Path) -> dict[str, dict[str, tuple[str, list[str]]]]:
    """Each version's columns (description, tags) as dbt resolves them from the YAML file: the
    top-level entries it includes (all, or include's names, minus exclude), its own entries in
    their place."""
    from ruamel.yaml import YAML

    model = YAML(typ="safe").load(path.read_text())["models"][0]
    top = {c["name"]: c for c in model.get("columns") or []}
    out = {}
    for v in model["versions"]:
        rule = next((c for c in v.get("columns") or [] if "include" in c), {"include": "all"})
        own = {c["name"]: c for c in v.get("columns") or [] if "name" in c}
        names = [n for n in top if (rule["include"] in ("all", "*") or n in rule["include"]) and n not in rule.get("exclude", [])]
        cols = {n: top[n] for n in names if n not in own} | own
        out[f"v{v['v']}"] = {n: (c.get("description", ""), (c.get("config") or {}).get("tags", [])) for n, c in cols.items()}
    return out


KEY, MAIL, NAME = "Primary key of the customer.", "E-mail address in lower case.", "First and last name."


def test_an_include_list_reads_only_its_names_from_the_top_level(shop: Path) -> None:
    # v1 includes only id and value from the top level: its email is its own, and country,
    # which only v2 then reads from the top level, goes there; what dbt-core 1.11.16 parses
    # from the written file, version by version
    path = shop / YML
    text = path.read_text()
    assert text.count("          - include: all\n            exclude: [full_name]\n") == 1
    path.write_text(text.replace("          - include: all\n            exclude: [full_name]\n", "          - include: [id, value]\n"))
    r = _docs(str(shop), "--pii", "--select", "dim_customers", "--write")
    assert r.exit_code == 0, r.output
    assert resolved(path) == {
        "v1": {"id": (KEY, []), "value": ("Sum paid over all orders that were not cancelled.", []), "legacy_id": (KEY, []),
               "email": (MAIL, ["pii"])},
        "v2": {"id": (KEY, []), "email": (MAIL, ["pii"]), "full_name": (NAME, ["pii"]),
               "value": ("1 for the customer with the highest lifetime value in their country.", []),
               "country": ("Country, from the country_codes lookup.", [])},
    }  # fmt: skip
    assert "      - name: country\n        description: Country, from the country_codes lookup.\n    versions:\n" in path.read_text()


def test_a_conflict_names_the_version(shop: Path) -> None:
    # v2's value becomes a union of customers.rank_in_country and v1's value, which is given a
    # text of its own: the two disagree, and both the column and a candidate are versioned
    def union_v1(m):
        v1, v2 = m["nodes"]["model.coffee_shop.dim_customers.v1"], m["nodes"]["model.coffee_shop.dim_customers.v2"]
        v1["columns"]["value"] = {"name": "value", "description": "Lifetime value.", "meta": {}, "tags": []}
        v2["compiled_code"] += '\nunion all\nselect id, email, null as full_name, value, null as country\nfrom "coffee_shop"."main"."dim_customers_v1"'
        v2["depends_on"]["nodes"].append("model.coffee_shop.dim_customers.v1")

    edit_manifest(shop, union_v1)
    r = _docs(str(shop), "--select", "dim_customers.v2", "--json")
    assert r.exit_code == 0, r.output
    [conflict] = json.loads(r.stdout)["conflicts"]
    assert (conflict["column"]["unique_id"], conflict["column"]["name"], conflict["version"]) == (
        "model.coffee_shop.dim_customers.v2", "value", "2")
    assert r.stderr.splitlines()[0] == (
        "dim_customers.v2.value: not written, its nearest documented columns disagree: "
        "customers.rank_in_country: '1 for the customer with the highest lifetime value in their country.'; "
        "dim_customers.v1.value: 'Lifetime value.'"
    )


@pytest.mark.parametrize(
    ("selector", "picked"),
    [("version:latest", ["model.coffee_shop.dim_customers.v2"]), ("version:old", ["model.coffee_shop.dim_customers.v1"]),
     ("version:prerelease", []), ("dim_customers,version:latest", ["model.coffee_shop.dim_customers.v2"]),
     ("+dim_customers.v1,version:none", ["model.coffee_shop.customers", "model.coffee_shop.int_order_items_priced",
                                         "model.coffee_shop.orders", "model.coffee_shop.stg_customers", "model.coffee_shop.stg_order_items",
                                         "model.coffee_shop.stg_orders", "model.coffee_shop.stg_payments",
                                         "model.coffee_shop.stg_products", "seed.coffee_shop.country_codes"])],
)
def test_the_version_method_and_intersections(shop: Path, selector: str, picked: list[str]) -> None:
    from catalog.artifacts import load_manifest
    from catalog.docs.plan import latest_versions, model_versions, select_models
    from catalog.extract import load_project

    raw = [*load_manifest(shop / "target" / "manifest.json")[0].nodes.values()]
    versions, latest = model_versions(raw, "coffee_shop"), latest_versions(raw, "coffee_shop")
    assert latest == {"model.coffee_shop.dim_customers.v1": "2", "model.coffee_shop.dim_customers.v2": "2"}
    assert sorted(select_models(load_project(shop / "target").nodes, [selector], versions, latest)) == picked


def test_version_latest_writes_the_latest_version_only(shop: Path) -> None:
    latest = _docs(str(shop), "--pii", "--select", "version:latest", "--json")
    v2 = _docs(str(shop), "--pii", "--select", "dim_customers.v2", "--json")
    assert latest.exit_code == 0, latest.output
    assert latest.stdout == v2.stdout
    assert {c["version"] for c in json.loads(latest.stdout)["changes"]} == {"2"}
    wrong = _docs(str(shop), "--select", "version:newest")
    assert (wrong.exit_code, wrong.stderr) == (2, "Error: --select version:newest: dbt's version: method takes latest, prerelease, old, none\n")
