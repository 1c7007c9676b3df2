"""The suggestions of a mistyped column name of a stored build, which read the build's column
names and then the labels of the few that may be suggested (``StoredNames``), against those of
every label of the build (``suggest``, itself difflib's, see tests/lineage/test_names.py).

Each build keeps its names on a node of its own (``write/create_build_names``): they are
those of that build, made as it becomes active, and go with it; a build stored before builds
kept them is read as before, from every column name of the project."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.builds import Builder
from catalog.errors import NotFound
from catalog.history import collect_garbage, forget_project
from catalog.lineage.names import suggest, suggest_read
from catalog import query as query_module
from catalog.query import StoredNames
from catalog.store import cypher
from catalog.store import graph as graph_module
from catalog.store.keys import quote_column

from edits import edit_manifest, edit_sql

pytestmark = pytest.mark.neo4j

ORDERS = "model.coffee_shop.orders"
RAW_ORDERS = "source.jaffle_shop.ecom.raw_orders"
TWICE = ("    amount_paid,\n    case", "    amount_paid,\n    amount_paid as amount_paid_twice,\n    case")


def _typos(labels: list[str], count: int, seed: int) -> list[str]:
    """``count`` labels, each with one letter replaced and one added."""
    rng = random.Random(seed)
    words = []
    for label in rng.sample(labels, count):
        i, j = rng.randrange(len(label)), rng.randrange(len(label))
        words.append(label[:i] + rng.choice("kqxz_") + label[i + 1 : j] + rng.choice("abc") + label[j:] if i < j else label[:j] + "q" + label[j:])
    return words


def stored_names(graph, project: str, build_id: int) -> tuple[list[str], list[tuple[str, str]]] | None:
    """The build's names node: its column names, and its models (unique id, name); None without one."""
    rows = graph.read("read/find_build_names", project=project, build_id=build_id)
    return (rows[0]["column_names"], list(zip(rows[0]["unique_ids"], rows[0]["model_names"]))) if rows else None


def names_of_build(graph, project: str, build_id: int) -> tuple[list[str], list[tuple[str, str]]]:
    """What the build's names node must hold, read from the build itself: the names of every
    column a label of the build names, and every model of the build."""
    every = StoredNames(graph, project, build_id).every()
    models = graph.read("read/list_build_nodes", project=project, build_id=build_id)
    return sorted({name for names in every.values() for name in names}), [(r["unique_id"], r["name"]) for r in models]


def names_nodes(graph, project: str) -> list[int]:
    """The builds whose names node the database holds for ``project``, whether or not their build is."""
    with graph.driver.session(database=graph.database) as session:
        return sorted(r["id"] for r in session.run("MATCH (n:BuildNames {project: $p}) RETURN n.build_id AS id", p=project))


def test_a_stored_builds_suggestions_are_those_of_every_label(build, ask, graph, project_name, shared_dir: Path, tmp_path: Path, monkeypatch):
    """From the build's names node, and from every column name of the project as a build
    without one is read: the suggestions of every label either way."""
    tool = shared_dir / "tools" / "synth_dbt.py"
    subprocess.run([sys.executable, str(tool), "--models", "120", "--seed", "7", "--out", str(tmp_path), "--quiet"], check=True)
    build_id = build(tmp_path / "target", project_name).build_id
    catalog = ask(project_name)
    every = StoredNames(catalog.graph, catalog.project, catalog.build_id).every()
    labels = sorted(f"{m}.{quote_column(n)}" for m, cols in every.items() for n in cols)
    model = min(m for m in every if "." not in m)
    words = _typos(labels, 25, seed=3) + ["x", "nothing.at_all", "device", f"{model}.zzzzzzzzzzzzzzzzzzzzzzzz"]
    expected = [suggest(w, every) for w in words]
    assert stored_names(graph, project_name, build_id) == names_of_build(graph, project_name, build_id)
    read: list[str] = []
    load = cypher.load
    monkeypatch.setattr(cypher, "load", lambda name: read.append(name) or load(name))
    said = [suggest_read(w, StoredNames(catalog.graph, catalog.project, catalog.build_id)) for w in words]
    assert said == expected
    assert sum(1 for s in said if "did you mean" in s) > len(words) // 2
    assert said[-1].startswith(f"; {model} has: ")
    # the labels that may reach the bar looked up by key, and read by name or model instead
    assert "read/list_column_labels_of_keys" in read
    monkeypatch.setattr(query_module, "PAIRS_BY_KEY", 0)
    read.clear()
    assert [suggest_read(w, StoredNames(catalog.graph, catalog.project, catalog.build_id)) for w in words] == expected
    assert "read/list_column_labels_of_keys" not in read and {"read/list_column_keys_named", "read/list_column_keys_of_models"} & set(read)
    monkeypatch.undo()
    # the same build without its names node, as a build stored before builds kept them
    graph.write("write/delete_build_names", build_id=build_id)
    assert stored_names(graph, project_name, build_id) is None
    assert [suggest_read(w, StoredNames(catalog.graph, catalog.project, catalog.build_id)) for w in words] == expected


def _jaffle_without_raw_orders_columns(shared_dir: Path, tmp_path: Path) -> Path:
    """A copy of jaffle-shop's target where ecom.raw_orders is read as a CSV file (no columns
    declared, none in catalog.json): its columns are those the SQL reading it names."""
    target = tmp_path / "target"
    shutil.copytree(shared_dir / "corpus" / "jaffle-shop" / "target", target)
    manifest, catalog = (json.loads((target / name).read_text()) for name in ("manifest.json", "catalog.json"))
    manifest["sources"][RAW_ORDERS]["columns"] = {}
    del catalog["sources"][RAW_ORDERS]
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "catalog.json").write_text(json.dumps(catalog))
    return target


def test_a_source_column_only_sql_names_is_among_the_names(build, ask, graph, project_name, shared_dir: Path, tmp_path: Path):
    """jaffle-shop's ecom.raw_orders read as a CSV file (no columns declared, none in
    catalog.json): `order_total` is a column of it only because stg_orders reads it."""
    target = _jaffle_without_raw_orders_columns(shared_dir, tmp_path)
    build_id = build(target, project_name).build_id
    names = stored_names(graph, project_name, build_id)
    assert names == names_of_build(graph, project_name, build_id) and "order_total" in names[0]
    every = StoredNames(graph, project_name, build_id).every()
    with pytest.raises(NotFound) as err:
        ask(project_name).resolve("ecom.raw_orders.order_totl")
    assert str(err.value).endswith(suggest("ecom.raw_orders.order_totl", every))
    assert "ecom.raw_orders.order_total" in str(err.value)


def test_a_build_suggests_only_its_own_columns(build, ask, graph, project_name, example_copy: Path):
    """A column that only a later build holds is no suggestion of the earlier one, though its
    name is in the project (and, read without names nodes, compared first)."""
    first = build(example_copy, project_name).build_id
    edit_sql(example_copy, ORDERS, *TWICE)
    second = build(example_copy, project_name).build_id
    for with_names in (True, False):
        for build_id, shown in ((first, False), (second, True)):
            with pytest.raises(NotFound) as err:
                ask(project_name, build_id).resolve("orders.amount_paid_twise")
            assert ("orders.amount_paid_twice" in str(err.value)) is shown
        for build_id in (first, second):
            graph.write("write/delete_build_names", build_id=build_id)


def test_every_build_keeps_the_names_it_holds(build, graph, project_name, example_copy: Path):
    """A full build, an incremental one that adds a column, a no-change build (a new build id,
    nothing analyzed) and one that removes the column again: each build's names node holds
    its own columns' names and models."""
    builds = [build(example_copy, project_name)]
    edit_sql(example_copy, ORDERS, *TWICE)
    builds.append(build(example_copy, project_name))
    builds.append(build(example_copy, project_name))
    edit_sql(example_copy, ORDERS, TWICE[1], TWICE[0])
    builds.append(build(example_copy, project_name))
    assert [b.models.recomputed for b in builds][1:] == [1, 0, 1]
    held = []
    for b in builds:
        names = stored_names(graph, project_name, b.build_id)
        assert names == names_of_build(graph, project_name, b.build_id)
        held.append("amount_paid_twice" in names[0])
    assert held == [False, True, True, False]
    assert names_nodes(graph, project_name) == [b.build_id for b in builds]


def test_a_build_made_before_names_were_kept_gets_them_from_its_next_no_change_build(build, graph, project_name, example_copy: Path):
    first = build(example_copy, project_name).build_id
    graph.write("write/delete_build_names", build_id=first)
    again = build(example_copy, project_name)
    assert again.models.recomputed == 0
    assert stored_names(graph, project_name, again.build_id) == names_of_build(graph, project_name, again.build_id)
    assert stored_names(graph, project_name, first) is None


def test_names_go_with_their_builds(build, graph, project_name, example_copy: Path):
    """``gc`` keeping the newest build leaves that build's names alone; forgetting the project
    leaves none."""
    ids = [build(example_copy, project_name).build_id]
    edit_sql(example_copy, ORDERS, *TWICE)
    ids.append(build(example_copy, project_name).build_id)
    ids.append(build(example_copy, project_name).build_id)
    kept = stored_names(graph, project_name, ids[-1])
    result = collect_garbage(graph, project_name, keep=1)
    assert result.kept == ids[-1:] and result.builds_deleted == 2
    assert names_nodes(graph, project_name) == ids[-1:]
    assert stored_names(graph, project_name, ids[-1]) == kept
    forget_project(graph, project_name)
    assert names_nodes(graph, project_name) == []


@pytest.mark.parametrize("stage", ["relationships", "store"])
def test_a_failed_build_leaves_the_names_readers_see(build, ask, graph, project_name, example_copy: Path, stage):
    """A build that fails mid-way leaves no names of its own, and the active build's as they
    were: its suggestions do not name the column the failed build added."""
    first = build(example_copy, project_name).build_id
    before = stored_names(graph, project_name, first)
    edit_sql(example_copy, ORDERS, *TWICE)
    failing = Builder(graph, example_copy, project_name=project_name, jobs=1, fail_after=stage)
    with pytest.raises(RuntimeError, match="injected"):
        failing.run()
    assert failing.undone and names_nodes(graph, project_name) == [first]
    assert stored_names(graph, project_name, first) == before
    with pytest.raises(NotFound) as err:
        ask(project_name).resolve("orders.amount_paid_twise")
    assert "amount_paid_twice" not in str(err.value)
    # gc deletes the failed build, and the next build has its own names
    collect_garbage(graph, project_name, keep=1)
    after = build(example_copy, project_name).build_id
    assert names_nodes(graph, project_name) == [first, after]
    assert "amount_paid_twice" in stored_names(graph, project_name, after)[0]


STG_ORDERS = "model.jaffle_shop.stg_orders"
SUBTOTAL = "(subtotal / 100)::numeric(16, 2) as subtotal,"
ORDER_TOTAL = "order_total as order_total_cents,"


def _jaffle_edits() -> list[tuple[str, object]]:
    """jaffle-shop edits, each applied to the project as the previous one left it."""

    def sql(old: str, new: str):
        return lambda m: m["nodes"][STG_ORDERS].update(compiled_code=m["nodes"][STG_ORDERS]["compiled_code"].replace(old, new))

    def remove_spine(m) -> None:
        del m["nodes"]["model.jaffle_shop.metricflow_time_spine"]
        for links in (m["child_map"], m["parent_map"]):
            links.pop("model.jaffle_shop.metricflow_time_spine", None)

    def add_supplies_v2(m) -> None:
        new = json.loads(json.dumps(m["nodes"]["model.jaffle_shop.supplies"]))
        new.update(unique_id="model.jaffle_shop.supplies_v2", name="supplies_v2", alias="supplies_v2")
        new["relation_name"] = '"jaffle_shop"."main"."supplies_v2"'
        m["nodes"]["model.jaffle_shop.supplies_v2"] = new

    return [
        ("an expression only", sql(SUBTOTAL, SUBTOTAL.replace("100", "10"))),
        ("a column of a new name", sql(ORDER_TOTAL, ORDER_TOTAL + " order_total * 2 as order_total_twice,")),
        ("the only column of a name removed", sql(" order_total * 2 as order_total_twice,", "")),
        ("a source column only SQL names, new", sql(ORDER_TOTAL, ORDER_TOTAL + " coupon_code as coupon,")),
        ("that source column gone", sql(" coupon_code as coupon,", "")),
        ("a model removed", remove_spine),
        ("a model added", add_supplies_v2),
    ]


def test_a_builds_names_are_made_from_the_previous_builds_and_what_it_changed(build, graph, project_name, shared_dir: Path, tmp_path: Path, monkeypatch):
    """Each build after the first makes its names from the previous build's names node and the
    relationships it created or closed (write/update_build_names): what write/create_build_names
    makes over the whole build, and what every label of the build names. jaffle-shop's
    ecom.raw_orders declares no columns: its columns are those the SQL reading it names."""
    target = _jaffle_without_raw_orders_columns(shared_dir, tmp_path)
    monkeypatch.setattr(graph_module, "NAMES_UPDATE_SHARE", 1.0)  # every change, however large for a small project
    loaded: list[str] = []
    load = cypher.load
    monkeypatch.setattr(cypher, "load", lambda name: loaded.append(name) or load(name))

    first = build(target, project_name).build_id
    assert "write/create_build_names" in loaded and "write/update_build_names" not in loaded
    held = [stored_names(graph, project_name, first)]
    for what, change in _jaffle_edits():
        edit_manifest(target, change)
        loaded.clear()
        summary = build(target, project_name)
        assert summary.models.recomputed + summary.models.removed > 0, what  # not a no-change build
        assert "write/update_build_names" in loaded and "write/create_build_names" not in loaded, what
        names = stored_names(graph, project_name, summary.build_id)
        assert names == names_of_build(graph, project_name, summary.build_id), what
        graph.write("write/delete_build_names", build_id=summary.build_id)
        graph.write("write/create_build_names", project=project_name, build_id=summary.build_id)
        assert stored_names(graph, project_name, summary.build_id) == names, what
        held.append(names)
    columns = [set(names[0]) for names in held]
    models = [{uid for uid, _ in names[1]} for names in held]
    assert [("order_total_twice" in c, "coupon_code" in c, "coupon" in c) for c in columns] == [
        (False, False, False), (False, False, False), (True, False, False), (False, False, False),
        (False, True, True), (False, False, False), (False, False, False), (False, False, False),
    ]
    assert "model.jaffle_shop.metricflow_time_spine" in models[-3] and "model.jaffle_shop.metricflow_time_spine" not in models[-2]
    assert models[-1] == models[-2] | {"model.jaffle_shop.supplies_v2"}
    assert "order_total" in columns[0]  # a name raw_orders has only because stg_orders reads it


def test_a_build_that_changes_much_makes_its_names_over_the_whole_build(build, graph, project_name, example_copy: Path, monkeypatch):
    """Past the share of changed models and names, the names are made over the whole build."""
    build(example_copy, project_name)
    edit_sql(example_copy, ORDERS, *TWICE)
    monkeypatch.setattr(graph_module, "NAMES_UPDATE_SHARE", 0.0)
    loaded: list[str] = []
    load = cypher.load
    monkeypatch.setattr(cypher, "load", lambda name: loaded.append(name) or load(name))
    second = build(example_copy, project_name).build_id
    assert "write/update_build_names" in loaded and "write/create_build_names" in loaded
    assert stored_names(graph, project_name, second) == names_of_build(graph, project_name, second)
