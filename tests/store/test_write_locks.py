"""``--timeout`` of a write that meets another transaction's lock, with ``catalog build`` run
as a user runs it against a real Neo4j while this test holds locks from a session of its
own: a lock conflict Neo4j ends (a deadlock) is retried and the build succeeds once the lock
is released; a lock held past the timeout ends the build with one ``Error:`` line, and
nothing stored changes.

Nothing here is timed: the test waits (under a guard) until Neo4j shows the build's
transaction waiting for the lock, and each process runs under a subprocess timeout, a guard
against a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from catalog.history import list_builds
from catalog.store import cypher
from catalog.store.graph import SCHEMA_VERSION, BuildStart
from test_build_views import view

pytestmark = pytest.mark.neo4j


def _build(env: dict[str, str], target, project: str, timeout: str) -> subprocess.Popen[str]:
    """``catalog build`` in a process of its own (the test holds locks meanwhile)."""
    cmd = [sys.executable, "-m", "catalog.cli.app", "build", str(target), "--project", project, "--jobs", "1", "--json", "--timeout", timeout]
    return subprocess.Popen(cmd, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _waiting(graph, project: str) -> list[str]:
    """The transactions about ``project`` that wait for a lock, by id."""
    with graph.driver.session(database=graph.database) as session:
        row = session.run(
            "SHOW TRANSACTIONS YIELD transactionId, status, parameters "
            "WHERE status STARTS WITH 'Blocked' AND parameters.project = $project RETURN collect(transactionId) AS ids",
            project=project,
        ).single()  # fmt: skip
    return list(row["ids"])


def _until_waiting(graph, project: str, proc: subprocess.Popen[str], not_: str | None = None) -> str:
    """The id of the one transaction of ``proc`` waiting for a lock, once there is one (other
    than ``not_``); a guard, not a timing, ends a hang."""
    for _ in range(3000):
        ids = [i for i in _waiting(graph, project) if i != not_]
        if ids:
            assert len(ids) == 1, ids
            return ids[0]
        assert proc.poll() is None, f"the build ended before it waited for the lock: {proc.communicate()}"
        time.sleep(0.1)
    pytest.fail("the build did not wait for the lock within 300 s")


def test_a_build_whose_transaction_meets_a_deadlock_is_retried_and_succeeds(neo4j_env, graph, build, project_name, example):
    first = build(example, project_name)
    before = view(graph, project_name, first.build_id)
    with graph.driver.session(database=graph.database) as session:
        held = session.begin_transaction()  # older than the build's: Neo4j ends the build's on a deadlock
        # the catalog's counter node, which write/lock_project takes after the project's node
        held.run(cypher.load("write/set_schema_version"), version=SCHEMA_VERSION).consume()
        proc = _build(neo4j_env, example, project_name, "120")
        try:
            first_try = _until_waiting(graph, project_name, proc)  # it holds the project's node, waits for the counter
            # the project's node closes the cycle: Neo4j ends the build's transaction (a
            # transient error), so this one gets the node, and the build tries again
            assert BuildStart(held).lock_project(project_name, "held by the test")["active"]["id"] == first.build_id
            second_try = _until_waiting(graph, project_name, proc, not_=first_try)
            held.rollback()
            stdout, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert first_try != second_try
    assert (proc.returncode, stderr) == (0, "")
    summary = json.loads(stdout)
    assert summary["build_id"] > first.build_id
    assert (summary["status"], summary["previous_build_id"]) == ("active", first.build_id)
    assert summary["models"] == {"total": 15, "reused": 15, "recomputed": 0, "failed": 0, "carried_over": 0, "removed": 0}
    assert summary["edges"] == {"written": 0, "closed": 0, "total": 104}
    assert [(b.id, b.status) for b in list_builds(graph, project_name)] == [(summary["build_id"], "active"), (first.build_id, "superseded")]
    assert view(graph, project_name, first.build_id) == before
    assert view(graph, project_name, summary["build_id"]) == before  # the same inputs: the same answers


def test_a_build_waiting_for_a_lock_past_its_timeout_stops_with_one_line_and_changes_nothing(
    neo4j_env, graph, build, project_name, example
):
    first = build(example, project_name)
    before = view(graph, project_name, first.build_id)
    builds = list_builds(graph, project_name)
    with graph.driver.session(database=graph.database) as session:
        held = session.begin_transaction()
        BuildStart(held).lock_project(project_name, "held by the test")  # as another build's start holds it
        proc = _build(neo4j_env, example, project_name, "2")
        try:
            _until_waiting(graph, project_name, proc)
            stdout, stderr = proc.communicate(timeout=300)  # held until the build has ended
        finally:
            if proc.poll() is None:
                proc.kill()
            held.rollback()
    assert (proc.returncode, stdout) == (1, "")
    assert stderr.splitlines() == [
        "Error: Neo4j ended write/lock_project after the 2 s timeout while it waited for a lock another transaction held; "
        "allow longer with --timeout or NEO4J_TIMEOUT"
    ]
    assert list_builds(graph, project_name) == builds  # no build was started
    assert view(graph, project_name, first.build_id) == before


def test_a_forget_stopped_by_a_lock_says_it_is_partial_and_the_same_command_finishes_it(neo4j_env, graph, build, project_name, example):
    build(example, project_name)
    cmd = [sys.executable, "-m", "catalog.cli.app", "forget", project_name, "--yes", "--timeout", "2"]
    with graph.driver.session(database=graph.database) as session:
        held = session.begin_transaction()
        BuildStart(held).lock_project(project_name, "held by the test")  # as a build's start holds it
        proc = subprocess.Popen(cmd, env={**os.environ, **neo4j_env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            _until_waiting(graph, project_name, proc)
            stdout, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
            held.rollback()
    assert proc.returncode == 1
    assert stderr.splitlines()[-1] == (
        "Error: Neo4j ended write/delete_project_builds after the 2 s timeout while it waited for a lock another transaction held; "
        f"allow longer with --timeout or NEO4J_TIMEOUT; {project_name} is partly forgotten: run `catalog forget {project_name} --yes` again to finish"
    )  # fmt: skip
    again = subprocess.run(cmd, env={**os.environ, **neo4j_env}, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    with graph.driver.session(database=graph.database) as session:
        left = session.run("MATCH (n) WHERE n.project = $p OR n.name = $p RETURN count(n) AS n", p=project_name).single()["n"]
    assert left == 0
