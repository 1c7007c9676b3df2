"""``catalog history``: the bundled example built six times, each edit (add a column, change an
expression, rename, retype, drop) in its own commit of a git repository made for the test;
each touched column's history lists exactly the builds that changed it, with their commits."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.builds import Builder
from catalog.cli.app import app
from catalog.column_history import node_history
from catalog.errors import NotFound
from catalog.history import collect_garbage, forget_project, list_builds
from catalog.mcp.server import make_server
from catalog.mcp.stored import Stored
from catalog.query import BuildView
from conftest import EXAMPLE
from edits import drop_catalog_column, edit_catalog_type, edit_manifest, edit_sql
from test_builds import add_catalog_column
from test_mcp import answer, failure
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j

STG_PAYMENTS = "model.coffee_shop.stg_payments"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def rename_catalog_column(target: Path, uid: str, old: str, new: str) -> None:
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    cols = catalog["nodes"][uid]["columns"]
    cols[new] = {**cols.pop(old), "name": new}
    path.write_text(json.dumps(catalog))


def _add(target: Path) -> None:
    edit_sql(target, STG_PAYMENTS, "    created_at as paid_at\n", "    created_at as paid_at,\n    amount_cents / 1000 as tax_paid\n")
    add_catalog_column(target, STG_PAYMENTS, "tax_paid", "DOUBLE")


def _change_expression(target: Path) -> None:
    edit_sql(target, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "round(amount_cents::decimal(10, 2) / 100, 2) as amount")


def _rename(target: Path) -> None:
    edit_sql(target, STG_PAYMENTS, "    created_at as paid_at,\n", "    created_at as paid_on,\n")
    rename_catalog_column(target, STG_PAYMENTS, "paid_at", "paid_on")


def _retype(target: Path) -> None:
    edit_catalog_type(target, STG_PAYMENTS, "amount", "DECIMAL(10,2)")


def _drop(target: Path) -> None:
    edit_sql(target, STG_PAYMENTS, "    created_at as paid_on,\n    amount_cents / 1000 as tax_paid\n", "    created_at as paid_on\n")
    drop_catalog_column(target, STG_PAYMENTS, "tax_paid")


EDITS = [("add tax_paid", _add), ("round amount", _change_expression), ("rename paid_at", _rename), ("retype amount", _retype), ("drop tax_paid", _drop)]


@dataclass(frozen=True)
class Builds:
    project: str
    ids: list[int]  # the six builds, oldest first: the example, then one per edit
    commits: list[str]
    target: Path


@pytest.fixture(scope="module")
def history_builds(graph, tmp_path_factory: pytest.TempPathFactory):
    repo = tmp_path_factory.mktemp("history_repo")
    target = repo / "target"
    shutil.copytree(EXAMPLE / "target", target)
    git(repo, "init", "-q", "-b", "main")
    name = f"test_{uuid.uuid4().hex[:10]}"
    ids, commits = [], []
    try:
        for message, edit in [("the example", None), *EDITS]:
            if edit is not None:
                edit(target)
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", message)
            commits.append(git(repo, "rev-parse", "HEAD"))
            ids.append(Builder(graph, target, project_name=name, jobs=1).run().build_id)
        yield Builds(name, ids, commits, target)
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)


def _rows(h) -> list[tuple[int, str, list[str]]]:
    return [(r.build, r.column, [c.what for c in r.changes]) for r in h.rows]


def test_builds_record_their_commit(graph, history_builds):
    b = history_builds
    by_id = {x.id: x for x in list_builds(graph, b.project)}
    assert [(by_id[i].git_commit, by_id[i].git_branch, by_id[i].git_dirty, by_id[i].git_source) for i in b.ids] == [
        (c, "main", False, "git") for c in b.commits
    ]
    assert all(by_id[i].invocation_id == "8837ce81-841c-48cf-8078-f1f932f4cdaf" for i in b.ids)  # dbt's, from the manifest


def test_history_of_each_touched_column(graph, history_builds):
    b1, b2, b3, b4, b5, b6 = history_builds.ids
    p = history_builds.project
    assert _rows(node_history(graph, p, "stg_payments.tax_paid")) == [(b6, "stg_payments.tax_paid", ["removed"]), (b2, "stg_payments.tax_paid", ["appeared"])]
    assert _rows(node_history(graph, p, "stg_payments.paid_at")) == [(b4, "stg_payments.paid_at", ["removed"]), (b1, "stg_payments.paid_at", ["appeared"])]
    assert _rows(node_history(graph, p, "stg_payments.paid_on")) == [(b4, "stg_payments.paid_on", ["appeared"])]
    amount = node_history(graph, p, "stg_payments.amount")
    assert _rows(amount) == [(b5, "stg_payments.amount", ["data_type"]), (b3, "stg_payments.amount", ["expression"]), (b1, "stg_payments.amount", ["appeared"])]
    retyped, rounded, appeared = (r.changes[0] for r in amount.rows)
    assert (retyped.before, retyped.after) == ("DOUBLE", "DECIMAL(10,2)")
    assert rounded.before == appeared.after["expression"]
    assert "ROUND(" in rounded.after.upper() and "ROUND(" not in rounded.before.upper()
    assert [r.commit for r in amount.rows] == [history_builds.commits[4], history_builds.commits[2], history_builds.commits[0]]
    assert amount.read_at == b6 and amount.known_from is None
    # the removed column is found in the newest build that had it
    assert node_history(graph, p, "stg_payments.tax_paid").read_at == b5


def test_upstream_lists_the_changes_upstream_of_a_mart_column(graph, history_builds):
    b1, b2, b3, b4, b5, b6 = history_builds.ids
    h = node_history(graph, history_builds.project, "customers.lifetime_value", upstream=True)
    later = [r for r in _rows(h) if r[0] > b1]
    assert later == [(b5, "stg_payments.amount", ["data_type"]), (b3, "stg_payments.amount", ["expression"])]
    # the first build: the column and everything it reads appeared (the asked column first)
    first = [r for r in h.rows if r.build == b1]
    assert first[0].column == "customers.lifetime_value"
    assert {r.column for r in first} >= {"stg_payments.amount", "orders.amount_paid", "customers.lifetime_value"}
    assert all([c.what for c in r.changes] == ["appeared"] for r in first)
    assert _rows(node_history(graph, history_builds.project, "customers.lifetime_value", upstream=True, since=history_builds.commits[1])) == later
    b2_time = next(x.finished_at for x in list_builds(graph, history_builds.project) if x.id == b2)
    assert _rows(node_history(graph, history_builds.project, "customers.lifetime_value", upstream=True, since=b2_time)) == later
    assert node_history(graph, history_builds.project, "customers.lifetime_value", upstream=True, since="2999-01-01").rows == []
    limited = node_history(graph, history_builds.project, "customers.lifetime_value", upstream=True, limit=1)
    assert _rows(limited) == later[:1] and limited.total == len(h.rows)


def test_at_each_commit_and_time_reads_that_build(graph, history_builds):
    p = history_builds.project
    builds = {x.id: x for x in list_builds(graph, p)}
    for build_id, commit in zip(history_builds.ids, history_builds.commits):
        assert BuildView(graph, p, commit[:7]).build_id == build_id
        assert BuildView(graph, p, builds[build_id].finished_at).build_id == build_id  # the build active at that time
    b2, b6 = history_builds.ids[1], history_builds.ids[5]
    assert [r.column.label for r in BuildView(graph, p, history_builds.commits[1]).impact(["stg_payments.tax_paid"]).columns] == []
    with pytest.raises(NotFound, match="tax_paid"):
        BuildView(graph, p, history_builds.commits[5]).impact(["stg_payments.tax_paid"])
    with pytest.raises(NotFound, match="was active at 2001-01-01"):
        BuildView(graph, p, "2001-01-01")
    with pytest.raises(NotFound, match="commit starting with 'abcdef0'"):
        BuildView(graph, p, "abcdef0")
    assert BuildView(graph, p, "2999-01-01T00:00:00+02:00").build_id == b6
    assert BuildView(graph, p, str(b2)).build_id == b2


def test_cli_history_at_and_builds(neo4j_settings, history_builds):
    b1, b2, b3, b4, b5, b6 = history_builds.ids
    p, commits = history_builds.project, history_builds.commits
    env = neo4j_env(neo4j_settings)
    run = CliRunner().invoke
    done = run(app, ["history", "stg_payments.amount", "--project", p, "--json"], env=env)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(r["build"], r["commit"], [c["what"] for c in r["changes"]]) for r in data["rows"]] == [
        (b5, commits[4], ["data_type"]), (b3, commits[2], ["expression"]), (b1, commits[0], ["appeared"])
    ]
    md = run(app, ["history", "stg_payments.amount", "--project", p, "-f", "md", "--since", str(b2)], env=env)
    assert md.exit_code == 0, md.output
    assert "### History of stg_payments.amount" in md.stdout and f"| {b5} | `{commits[4][:10]}` |" in md.stdout
    assert "appeared" not in md.stdout
    table = run(app, ["history", "stg_payments.tax_paid", "--project", p], env=env)
    assert table.exit_code == 0 and "removed" in table.stdout and commits[5][:10] in table.stdout
    # impact and trace at a commit, and at a time: the build active then
    for args in (["--at", commits[1][:8]], ["--build", commits[1][:8]], ["--build", str(b2)]):
        at = run(app, ["trace", "stg_payments.tax_paid", "--project", p, "--json", *args], env=env)
        assert at.exit_code == 0, at.output
        assert json.loads(at.stdout)["build_id"] == b2
    gone = run(app, ["impact", "stg_payments.tax_paid", "--project", p, "--at", commits[5]], env=env)
    assert gone.exit_code == 1 and gone.stderr.startswith("Error:") and "tax_paid" in gone.stderr
    both = run(app, ["impact", "stg_payments.amount", "--project", p, "--at", commits[5], "--build", "3"], env=env)
    assert both.exit_code == 2 and "not both" in both.output
    builds = run(app, ["builds", "--project", p], env=env)
    assert builds.exit_code == 0 and all(c[:10] in builds.stdout for c in commits) and "main" in builds.stdout
    nothing = run(app, ["history", "stg_payments.no_such", "--project", p], env=env)
    assert nothing.exit_code == 1 and nothing.stderr.startswith("Error:") and "Traceback" not in nothing.output


def test_every_reader_of_a_build_takes_at(neo4j_settings, history_builds, tmp_path):
    """prune, report, explore and export read the build of a commit, as impact and trace do."""
    b2, b6 = history_builds.ids[1], history_builds.ids[5]
    p, commits = history_builds.project, history_builds.commits
    env = neo4j_env(neo4j_settings)

    def run(*args: str) -> str:
        done = CliRunner().invoke(app, [*args, "--project", p, "--at", commits[1][:9]], env=env)
        assert done.exit_code == 0, done.output
        return done.stdout

    assert json.loads(run("prune", "-c", "stg_payments.tax_paid", "--json"))["build_id"] == b2
    assert json.loads(run("report", "-f", "json"))["build"]["id"] == b2
    assert json.loads(run("explore", "-o", str(tmp_path / "x.html"), "--json"))["build"] == b2
    assert "tax_paid" in run("export") and "tax_paid" not in CliRunner().invoke(app, ["export", "--project", p, "--at", commits[5]], env=env).stdout


def test_mcp_history_is_the_same_answer_in_pages(neo4j_settings, history_builds):
    b1, b2, b3, b4, b5, b6 = history_builds.ids
    source = Stored(neo4j_settings, project=history_builds.project)
    try:
        server = make_server(source, timeout=5)
        first = answer(server, "history", {"column": "stg_payments.amount", "limit": 2})
        rest = answer(server, "history", {"column": "stg_payments.amount", "limit": 2, "cursor": first["next_cursor"]})
        assert (first["total"], first["truncated"], rest["truncated"]) == (3, True, False)
        assert [(r["build"], r["commit"]) for r in first["rows"] + rest["rows"]] == [
            (b5, history_builds.commits[4]), (b3, history_builds.commits[2]), (b1, history_builds.commits[0])
        ]
        upstream = answer(server, "history", {"column": "customers.lifetime_value", "upstream": True, "since": str(b2)})
        assert [(r["build"], r["column"]) for r in upstream["rows"]] == [(b5, "stg_payments.amount"), (b3, "stg_payments.amount")]
        missing = failure(server, "history", {"column": "stg_payments.nothing"})
        assert f"no column 'stg_payments.nothing' in project '{history_builds.project}'" in missing and "did you mean stg_payments.amount" in missing
    finally:
        source.close()


def test_gc_history_says_from_which_build_it_knows(graph, build, project_name, example_copy):
    first = build(example_copy, project_name).build_id
    _add(example_copy)
    second = build(example_copy, project_name).build_id
    _change_expression(example_copy)
    third = build(example_copy, project_name).build_id
    assert _rows(node_history(graph, project_name, "stg_payments.amount")) == [
        (third, "stg_payments.amount", ["expression"]), (first, "stg_payments.amount", ["appeared"])
    ]
    collect_garbage(graph, project_name, keep=2)
    h = node_history(graph, project_name, "stg_payments.amount")
    # build 1 is gone: what it saw is not known, so nothing is said to have appeared in the second
    assert h.known_from == second
    assert _rows(h) == [(third, "stg_payments.amount", ["expression"])]
    assert _rows(node_history(graph, project_name, "stg_payments.tax_paid")) == []


def test_history_of_a_metric_and_an_exposure(graph, build, project_name, example_copy):
    first = build(example_copy, project_name).build_id

    def edit(manifest) -> None:
        manifest["metrics"]["metric.coffee_shop.revenue"]["description"] = "Revenue, refunds excluded."
        manifest["exposures"]["exposure.coffee_shop.sales_dashboard"]["maturity"] = "low"
        manifest["exposures"]["exposure.coffee_shop.sales_dashboard"]["depends_on"]["nodes"] = ["metric.coffee_shop.revenue"]

    edit_manifest(example_copy, edit)
    second = build(example_copy, project_name).build_id
    metric = node_history(graph, project_name, "metric:revenue")
    assert _rows(metric) == [(second, "metric:revenue", ["description"]), (first, "metric:revenue", ["appeared"])]
    assert (metric.rows[0].changes[0].before, metric.rows[0].changes[0].after) == ("Sum of the amounts paid for orders.", "Revenue, refunds excluded.")
    # the exposure no longer reads the model orders (it read all its columns), only the metric
    exposure = node_history(graph, project_name, "exposure:sales_dashboard")
    orders = sorted(c.label for c in BuildView(graph, project_name, first).columns() if c.unique_id == "model.coffee_shop.orders")
    assert [r.build for r in exposure.rows] == [second, first]
    assert [(c.what, c.before, c.after) for c in exposure.rows[0].changes] == [("maturity", "high", "low")] + [("upstream removed", o, None) for o in orders]

