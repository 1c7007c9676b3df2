"""Versioned, incremental builds against a real Neo4j: reuse, recompute, crash safety,
concurrency, history."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalog.builds import Builder
from catalog.errors import NotFound, StoreError
from catalog.history import collect_garbage, diff_builds, list_builds
from catalog.store.graph import BuildStart
from catalog.store.keys import column_node_key
from edits import edit_manifest, edit_sql

pytestmark = pytest.mark.neo4j

STG_PAYMENTS = "model.coffee_shop.stg_payments"
STG_ORDERS = "model.coffee_shop.stg_orders"



def add_catalog_column(target: Path, uid: str, name: str, data_type: str) -> None:
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    cols = catalog["nodes"][uid]["columns"]
    cols[name] = {"type": data_type, "index": len(cols) + 1, "name": name, "comment": None}
    path.write_text(json.dumps(catalog))


def children(target: Path, uid: str) -> set[str]:
    manifest = json.loads((target / "manifest.json").read_text())
    return {c for c in manifest["child_map"][uid] if c.startswith(("model.", "snapshot."))}


def active_ids(graph, project: str) -> list[int]:
    return [b.id for b in list_builds(graph, project) if b.status == "active"]


def test_no_change_rebuild_reuses_everything_and_writes_nothing(build, project_name, example_copy):
    first = build(example_copy, project_name)
    assert first.models.recomputed == first.models.total == 15
    again = build(example_copy, project_name)
    assert (again.models.reused, again.models.recomputed, again.edges.written, again.edges.closed) == (15, 0, 0, 0)
    # same lineage, new manifest bytes (dbt rewrites generated_at on every run): still nothing written
    manifest = json.loads((example_copy / "manifest.json").read_text())
    manifest["metadata"]["generated_at"] = "2030-01-01T00:00:00Z"
    (example_copy / "manifest.json").write_text(json.dumps(manifest))
    third = build(example_copy, project_name)
    assert (third.models.reused, third.models.recomputed) == (15, 0)
    assert third.relationships_written == third.relationships_closed == 0
    assert third.edges.total == first.edges.total


def test_sql_change_without_column_change_recomputes_only_that_model(build, project_name, example_copy):
    build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "where status = 'success'", "where status in ('success', 'settled')")
    summary = build(example_copy, project_name)
    assert summary.recomputed_models == [STG_PAYMENTS]
    assert summary.edges.written == summary.edges.closed == 0


def test_expression_change_closes_and_writes_that_edge(build, project_name, example_copy, graph, ask):
    first = build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "round(amount_cents / 100.0, 2) as amount")
    second = build(example_copy, project_name)
    assert second.recomputed_models == [STG_PAYMENTS]
    assert (second.edges.written, second.edges.closed) == (1, 1)

    d = diff_builds(graph, project_name)
    assert (d.from_build, d.to_build) == (first.build_id, second.build_id)
    assert [(e.change, e.kind, e.up, e.down) for e in d.edges] == [
        ("changed", "feeds", "source.coffee_shop.shop.payments.amount_cents", f"{STG_PAYMENTS}.amount")
    ]
    assert d.edges[0].before["expr"] == "CAST(amount_cents AS DECIMAL(10, 2)) / 100"
    assert d.edges[0].after["expr"] == "ROUND(amount_cents / 100.0, 2)"
    assert d.statuses == []

    # the past build still answers with the old expression
    old = ask(project_name, first.build_id).trace(["stg_payments.amount"])
    new = ask(project_name).trace(["stg_payments.amount"])
    assert [h.expr for r in old.columns for h in r.hops] == ["CAST(amount_cents AS DECIMAL(10, 2)) / 100"]
    assert [h.expr for r in new.columns for h in r.hops] == ["ROUND(amount_cents / 100.0, 2)"]


def test_new_output_column_recomputes_the_models_reading_it(build, project_name, example_copy, graph, ask):
    first = build(example_copy, project_name)
    edit_sql(example_copy, STG_ORDERS, "as status\nfrom", "as status,\n    upper(status) as status_code\nfrom")
    add_catalog_column(example_copy, STG_ORDERS, "status_code", "VARCHAR")
    second = build(example_copy, project_name)
    expected = {STG_ORDERS} | children(example_copy, STG_ORDERS)
    assert set(second.recomputed_models) == expected
    assert len(expected) > 1
    d = diff_builds(graph, project_name, first.build_id, second.build_id)
    added = [(e.up, e.down) for e in d.edges if e.change == "added"]
    assert ("source.coffee_shop.shop.orders.status", f"{STG_ORDERS}.status_code") in added
    assert ask(project_name, first.build_id).columns() != ask(project_name).columns()
    with pytest.raises(NotFound, match=rf"^no column 'stg_orders.status_code' in project '{project_name}' \(build {first.build_id}\)"):
        ask(project_name, first.build_id).resolve("stg_orders.status_code")


def test_rebuild_stores_the_states_a_full_build_of_the_same_inputs_stores(build, project_name, example_copy, graph):
    """A rebuild hashes only the nodes whose record changed and what reads them, and keeps
    the active build's fingerprints of the rest: its model states (lineage, SQL and
    documentation hashes, statuses) are those of a full build of the same artifacts."""
    build(example_copy, project_name)
    edit_sql(example_copy, STG_ORDERS, "as status\nfrom", "as status,\n    upper(status) as status_code\nfrom")
    add_catalog_column(example_copy, STG_ORDERS, "status_code", "VARCHAR")

    def describe(manifest) -> None:
        manifest["nodes"][STG_PAYMENTS]["description"] = "Payments, one row each, in dollars."

    edit_manifest(example_copy, describe)
    rebuilt = build(example_copy, project_name)
    assert set(rebuilt.recomputed_models) == {STG_ORDERS} | children(example_copy, STG_ORDERS)
    build(example_copy, f"{project_name}_full", full=True)

    def states(name: str) -> dict[str, tuple]:
        rows = graph.list_model_states(name, None)
        return {r["unique_id"]: (r["status"], r["lineage_hash"], r["sql_hash"], r["meta_hash"]) for r in rows}

    assert states(project_name) == states(f"{project_name}_full")
    assert len(states(project_name)) > 10


def test_fingerprints_are_kept_only_from_a_build_hashed_by_the_same_code(build, project_name, example_copy, graph, monkeypatch):
    """A build made by other hashing code (an older or newer catalog) passes on no fingerprint:
    every node is hashed again, and its no-change shortcut is not taken either."""
    import catalog.builds.builder as building
    from catalog.extract import load_project

    seen: list[set[str]] = []  # the nodes each build knew a fingerprint of
    compute = building.fingerprints

    def spy(project, known=None):
        seen.append(set(known or {}))
        return compute(project, known)

    monkeypatch.setattr(building, "fingerprints", spy)
    first = build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "where status = 'success'", "where status in ('success', 'settled')")
    second = build(example_copy, project_name)
    nodes = set(load_project(example_copy).nodes)
    assert seen == [set(), nodes - {STG_PAYMENTS}]  # the edited model's fingerprint alone is not known
    assert second.recomputed_models == [STG_PAYMENTS]

    with graph.driver.session(database=graph.database) as session:  # as a build by other code leaves it
        session.run("MATCH (b:Build {id: $id}) SET b.hashing_code = 'other code'", id=second.build_id).consume()
    third = build(example_copy, project_name)  # the same artifacts
    assert seen == [set(), nodes - {STG_PAYMENTS}, set()]
    assert third.build_id != first.build_id and third.models.recomputed == 0
    assert third.relationships_written == third.relationships_closed == 0


def _answers(ask, project_name):
    catalog = ask(project_name)
    return (
        [(r.column.key, r.depth, r.effect) for r in catalog.impact(["stg_orders.order_id"]).columns],
        [(r.column.key, r.depth) for r in catalog.trace(["customers.lifetime_value"]).columns],
    )


@pytest.mark.parametrize("stage", ["close", "store"])
def test_failure_mid_build_leaves_previous_build_active_and_intact(build, project_name, example_copy, graph, ask, stage):
    first = build(example_copy, project_name)
    before = _answers(ask, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "amount_cents as amount")
    with pytest.raises(RuntimeError, match="injected"):
        Builder(graph, example_copy, project_name=project_name, jobs=1, fail_after=stage).run()
    assert active_ids(graph, project_name) == [first.build_id]
    assert _answers(ask, project_name) == before
    failed = [b for b in list_builds(graph, project_name) if b.status == "failed"]
    assert len(failed) == 1 and "injected" in (failed[0].error or "")
    # the next build completes normally
    after = build(example_copy, project_name)
    assert after.status == "active" and active_ids(graph, project_name) == [after.build_id]


def test_killed_build_is_cleaned_up_by_the_next(build, project_name, example_copy, graph, ask, neo4j_settings):
    first = build(example_copy, project_name)
    before = _answers(ask, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "amount_cents as amount")
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user,
        "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
        "CATALOG_FAULT_AFTER": "kill:close",
    }
    done = subprocess.run(
        [sys.executable, "-m", "catalog.cli.app", "build", str(example_copy), "--project", project_name, "--jobs", "1"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == -9, done.stderr
    running = [b for b in list_builds(graph, project_name) if b.status == "running"]
    assert len(running) == 1
    assert active_ids(graph, project_name) == [first.build_id]
    assert _answers(ask, project_name) == before  # readers never see the dead build's writes

    messages: list[str] = []
    after = Builder(graph, example_copy, project_name=project_name, jobs=1, progress=messages.append).run()
    assert any(f"cleaned up build {running[0].id}" in m for m in messages)
    assert after.status == "active"
    statuses = {b.id: b.status for b in list_builds(graph, project_name)}
    assert statuses[running[0].id] == "failed" and statuses[after.build_id] == "active"
    trace = ask(project_name).trace(["stg_payments.amount"])
    assert [h.type for r in trace.columns for h in r.hops] == ["renamed"]


def test_second_build_while_one_runs_stops_with_a_clear_message(build, project_name, example_copy, graph):
    build(example_copy, project_name)
    holder = Builder(graph, example_copy, project_name=project_name)
    inputs = {"manifest_sha256": "x", "catalog_sha256": None}
    build_id, _, _, _ = holder._start(project_name, inputs, lambda _active: False, holder._load(example_copy))  # left running, by this live process
    with pytest.raises(StoreError, match="another `catalog build`.*is running"):
        Builder(graph, example_copy, project_name=project_name).run()
    assert len(active_ids(graph, project_name)) == 1
    holder._abandon(build_id, RuntimeError("test over"))


def _stopped(proc: subprocess.Popen[str]) -> None:
    """Wait until ``proc`` stops itself (SIGSTOP); a guard, not a timing, ends a hang."""
    for _ in range(3000):
        pid, status = os.waitpid(proc.pid, os.WNOHANG | os.WUNTRACED)
        if pid and os.WIFSTOPPED(status):
            return
        assert not pid, f"exited before it stopped: {proc.communicate()}"
        time.sleep(0.1)
    pytest.fail("a build did not stop at its fault point within 300 s")


def _waiting_for_the_lock(graph, project: str) -> int:
    """Transactions of ``lock_project`` for ``project`` that wait for a lock."""
    with graph.driver.session(database=graph.database) as session:
        rows = session.run(
            "SHOW TRANSACTIONS YIELD status, parameters WHERE status STARTS WITH 'Blocked' AND parameters.project = $project "
            "RETURN count(*) AS waiting", project=project,
        ).single()  # fmt: skip
    return rows["waiting"]


def test_concurrent_builds_never_leave_two_active(build, project_name, example_copy, graph, neo4j_settings):
    """Three builds of one project wait for its lock together: one goes on, the other two are
    refused with one Error line naming it."""
    first = build(example_copy, project_name)
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user,
        "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
        "CATALOG_FAULT_AFTER": "stop:extract",  # each stops once it has read and checked the project
    }
    cmd = [sys.executable, "-m", "catalog.cli.app", "build", str(example_copy), "--project", project_name, "--jobs", "1", "--full"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        for proc in procs:
            _stopped(proc)
        # all three are just before the transaction that takes the project's lock; this test
        # holds that lock while they go on, until all three wait for it, then lets them race
        with graph.driver.session(database=graph.database) as session:
            held = session.begin_transaction()
            BuildStart(held).lock_project(project_name, "held by the test")
            for proc in procs:
                os.kill(proc.pid, signal.SIGCONT)
            for _ in range(3000):
                if _waiting_for_the_lock(graph, project_name) == 3:
                    break
                time.sleep(0.1)
            else:
                pytest.fail("the three builds did not all wait for the lock within 300 s")
            held.rollback()
        results = []  # (pid, exit code, stderr)
        for proc in procs:
            _, stderr = proc.communicate(timeout=600)
            results.append((proc.pid, proc.returncode, stderr))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    assert sorted(code for _, code, _ in results) == [0, 1, 1], results
    ((winner, _, _),) = [r for r in results if r[1] == 0]
    won, *older = list_builds(graph, project_name)  # newest first
    assert [(b.id, b.status) for b in [won, *older]] == [(won.id, "active"), (first.build_id, "superseded")]
    assert won.id > first.build_id  # and nothing of the refused builds is left
    refusal = (
        f"Error: another `catalog build` of project {project_name!r} is running (build {won.id}, pid {winner} on "
        f"{socket.gethostname()}, last seen {won.started_at}); wait for it to finish and run again"
    )
    assert [stderr for _, code, stderr in results if code == 1] == [refusal + "\n"] * 2  # that one line, nothing else
    assert active_ids(graph, project_name) == [won.id]


def _three_builds(build, project_name, example_copy, first: str, second: str, third: str):
    """Build, edit stg_payments from ``first`` to ``second``, build, edit to ``third``, build."""
    build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, first, second)
    two = build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, second, third)
    return two, build(example_copy, project_name)


def test_gc_keeps_the_newest_builds_and_their_answers(build, project_name, example_copy, graph, ask):
    amount = "amount_cents::decimal(10, 2) / 100 as amount"
    second, third = _three_builds(build, project_name, example_copy, amount, "amount_cents as amount", "amount_cents * 2 as amount")
    before = _answers(ask, project_name)
    old_second = ask(project_name, second.build_id).trace(["stg_payments.amount"])
    result = collect_garbage(graph, project_name, keep=2)
    assert result.kept == [second.build_id, third.build_id]
    assert result.builds_deleted == 1 and result.relationships_deleted >= 1
    assert _answers(ask, project_name) == before
    assert ask(project_name, second.build_id).trace(["stg_payments.amount"]) == old_second


def test_gc_removes_the_columns_only_deleted_builds_saw(build, project_name, example_copy, graph, ask):
    amount = "amount_cents::decimal(10, 2) / 100 as amount"
    second, third = _three_builds(build, project_name, example_copy, amount, f"{amount}, amount_cents as gc_probe", amount)
    probe = column_node_key(project_name, STG_PAYMENTS, "gc_probe")
    kept_columns = graph.read("read/list_columns", project=project_name, build_id=None)
    before = _answers(ask, project_name)
    def existing() -> list[str]:
        return [r["key"] for r in graph.read("read/find_column_nodes", keys=[probe])]

    assert existing() == [probe]
    assert collect_garbage(graph, project_name, keep=2).nodes_deleted == 0  # build 2 still sees it
    assert existing() == [probe]
    result = collect_garbage(graph, project_name, keep=1)
    assert result.kept == [third.build_id] and second.build_id not in result.kept
    assert result.nodes_deleted == 1
    assert existing() == []
    assert graph.read("read/list_columns", project=project_name, build_id=None) == kept_columns
    assert _answers(ask, project_name) == before


def test_failed_model_keeps_its_last_good_lineage(build, project_name, example_copy, graph, ask):
    build(example_copy, project_name)
    before = ask(project_name).trace(["stg_payments.amount"])
    edit_sql(example_copy, STG_PAYMENTS, "from \"coffee_shop\"", "from from ((( \"coffee_shop\"")
    summary = build(example_copy, project_name)
    assert summary.status == "active"
    assert (summary.models.failed, summary.models.carried_over) == (1, 1)
    assert summary.statuses.get("failed") == 1
    assert list(summary.failures) == [STG_PAYMENTS] and summary.failures[STG_PAYMENTS].startswith("cannot parse SQL: ")
    # the lineage of stg_payments is the previous one, still answered from the new build
    assert ask(project_name).trace(["stg_payments.amount"]).columns == before.columns
    states = graph.read("read/list_model_states", project=project_name, build_id=summary.build_id)
    state = next(s for s in states if s["unique_id"] == STG_PAYMENTS)
    assert state["status"] == "failed" and state["carried_over"] is True
    d = diff_builds(graph, project_name)
    assert [(s.unique_id, s.before, s.after) for s in d.statuses] == [(STG_PAYMENTS, "resolved", "failed")]
    assert "cannot parse" in (d.statuses[0].reason or "")


def test_projects_in_one_database_do_not_touch_each_other(build, project_name, example_copy, ask, tmp_path, example):
    other = f"{project_name}_other"
    build(example, other)
    other_before = ask(other).trace(["stg_payments.amount"])
    build(example_copy, project_name)
    edit_sql(example_copy, STG_PAYMENTS, "amount_cents::decimal(10, 2) / 100 as amount", "amount_cents as amount")
    build(example_copy, project_name)
    assert ask(other).trace(["stg_payments.amount"]) == other_before
    exprs = lambda answer: [h.expr for r in answer.columns for h in r.hops]  # noqa: E731
    assert exprs(other_before) == ["CAST(amount_cents AS DECIMAL(10, 2)) / 100"]
    assert exprs(ask(project_name).trace(["stg_payments.amount"])) == ["amount_cents"]


def test_a_long_build_says_it_is_alive(build, project_name, example_copy, graph, monkeypatch):
    import catalog.builds.builder

    monkeypatch.setattr(catalog.builds.builder, "HEARTBEAT_SECONDS", 0)
    summary = build(example_copy, project_name)
    b = graph.read("read/find_build", project=project_name, build_id=summary.build_id)[0]["build"]
    assert b["heartbeat_at"] > b["started_at"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["flipside-thorchain", "tuva", "fivetran-hubspot"])
def test_corpus_project_builds_and_rebuilds_as_a_no_op(build, project_name, shared_dir, graph, name):
    """dbt 1.2 (v6), 1.4 (v8) and 1.11 (v12) projects build like any other; a second build of
    the same artifacts reuses every model and writes nothing."""
    target = shared_dir / "corpus" / name / "target"
    first = build(target, project_name)
    assert first.status == "active" and first.models.recomputed == first.models.total > 100
    assert first.failures == {} and first.edges.total > 1000
    again = build(target, project_name)
    assert again.status == "active" and again.build_id > first.build_id
    assert (again.models.reused, again.models.recomputed) == (first.models.total, 0)
    assert again.relationships_written == again.relationships_closed == 0
    assert again.edges.total == first.edges.total
