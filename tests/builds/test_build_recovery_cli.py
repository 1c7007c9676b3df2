"""What ``catalog build`` does with what an earlier build left, run as a user runs it against a
real Neo4j: a build of another host still marked running (dead once it has sent no heartbeat
for 10 minutes, else refused), and an active build of an older store layout (rewritten,
reusing nothing). Each checks the exact lines printed and the graph after, and that readers
of the previously active build see what they saw."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from catalog.builds.builder import STALE_HEARTBEAT_SECONDS, STORE_VERSION
from catalog.history import list_builds
from catalog.store.graph import BuildStart
from catalog.store.keys import model_node_key
from run_cli import answer, one_error, run
from test_build_views import view

pytestmark = pytest.mark.neo4j

STG_PAYMENTS = "model.coffee_shop.stg_payments"
OTHER_HOST = "build-server-2"
OTHER_PID = 4242


def _other_hosts_build(graph, project: str, seen: datetime) -> tuple[int, int]:
    """A build of ``project`` running on another host, started and last heard of at ``seen``,
    that got as far as closing the open relationships of stg_payments; its id and how many
    it closed. Written as a build writes it: its start, then ``close_relationships``."""
    at = seen.isoformat(timespec="milliseconds")

    def start(tx: BuildStart) -> int:
        state = tx.lock_project(project, at)
        build = {"id": state["next_id"], "started_at": at, "host": OTHER_HOST, "pid": OTHER_PID, "store_version": STORE_VERSION}
        tx.create_build(project, build)
        return state["next_id"]

    build_id = graph.build_start(start)
    rels = graph.list_model_relationships([model_node_key(project, STG_PAYMENTS)])
    return build_id, graph.close_relationships(build_id, [r["id"] for r in rels])


def _statuses(graph, project: str) -> list[tuple[int, str, str | None]]:
    return [(b.id, b.status, b.error) for b in list_builds(graph, project)]


def _answers(env, project: str, build_id: int) -> list[dict]:
    """What readers of the active build are told, an impact and a root cause as JSON, when
    that build is ``build_id``."""
    impact = answer(env, "impact", "stg_payments.amount", "--project", project, "--json")
    trace = answer(env, "trace", "orders.amount_paid", "--project", project, "--json")
    assert impact["build_id"] == trace["build_id"] == build_id
    return [{**doc, "build_id": None} for doc in (impact, trace)]


def _build(env, target, project: str) -> tuple[dict, list[str]]:
    """``catalog build TARGET --project PROJECT --json`` that succeeded: its summary and the
    lines it said on stderr."""
    result = run(env, "build", str(target), "--project", project, "--jobs", "1", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr.splitlines()


ALL_REUSED = {"total": 15, "reused": 15, "recomputed": 0, "failed": 0, "carried_over": 0, "removed": 0}
NO_EDGE_CHANGE = {"written": 0, "closed": 0, "total": 104}


def test_a_running_build_of_another_host_silent_for_10_minutes_is_undone_by_the_next(neo4j_env, graph, project_name, example_copy):
    first = _build(neo4j_env, example_copy, project_name)[0]["build_id"]
    before, answers = view(graph, project_name, first), _answers(neo4j_env, project_name, first)
    silent = datetime.now(timezone.utc) - timedelta(seconds=STALE_HEARTBEAT_SECONDS + 60)
    dead, closed = _other_hosts_build(graph, project_name, silent)
    assert closed == 12  # stg_payments' columns, the edges into them, its conditions and dependency
    assert view(graph, project_name, first) == before  # readers of the active build never see it

    summary, said = _build(neo4j_env, example_copy, project_name)
    new = summary["build_id"]
    assert said == [
        f"cleaned up build {dead} left by a process that died: 0 relationships removed, 12 reopened",
        f"build {new} of {project_name}: 15 models reused, 0 to analyze",
        "writing 0 models, 0 columns, 0 new relationships, closing 0",
        "consumers: 15, 0 relationships written",
    ]
    assert new > dead and (summary["status"], summary["previous_build_id"]) == ("active", first)
    assert (summary["models"], summary["edges"]) == (ALL_REUSED, NO_EDGE_CHANGE)
    assert _statuses(graph, project_name) == [
        (new, "active", None),
        (dead, "failed", "the process running this build died before it finished"),
        (first, "superseded", None),
    ]
    assert view(graph, project_name, first) == before
    assert view(graph, project_name, new) == before  # what the dead build closed is open again
    assert _answers(neo4j_env, project_name, new) == answers


def test_a_running_build_of_another_host_heard_of_lately_refuses_the_next(neo4j_env, graph, project_name, example_copy):
    first = _build(neo4j_env, example_copy, project_name)[0]["build_id"]
    before, answers = view(graph, project_name, first), _answers(neo4j_env, project_name, first)
    seen = datetime.now(timezone.utc) - timedelta(seconds=STALE_HEARTBEAT_SECONDS // 2)  # 5 minutes ago
    other, _ = _other_hosts_build(graph, project_name, seen)

    refused = run(neo4j_env, "build", str(example_copy), "--project", project_name, "--jobs", "1")
    assert one_error(refused) == (
        f"Error: another `catalog build` of project {project_name!r} is running (build {other}, pid {OTHER_PID} on "
        f"{OTHER_HOST}, last seen {seen.isoformat(timespec='milliseconds')}); wait for it to finish and run again"
    )
    assert _statuses(graph, project_name) == [(other, "running", None), (first, "active", None)]  # no build started
    assert view(graph, project_name, first) == before
    assert _answers(neo4j_env, project_name, first) == answers

    # its heartbeats stop: 10 minutes after the last one, the next build undoes it
    graph.heartbeat(other, (datetime.now(timezone.utc) - timedelta(seconds=STALE_HEARTBEAT_SECONDS + 60)).isoformat())
    summary, said = _build(neo4j_env, example_copy, project_name)
    assert said[0] == f"cleaned up build {other} left by a process that died: 0 relationships removed, 12 reopened"
    new = summary["build_id"]
    assert [(b, status) for b, status, _ in _statuses(graph, project_name)] == [(new, "active"), (other, "failed"), (first, "superseded")]
    assert view(graph, project_name, new) == before


def test_an_active_build_of_an_older_store_layout_is_rewritten_reusing_nothing(neo4j_env, graph, project_name, example_copy):
    """The next build analyzes every model again and writes every model node anew; lineage
    equal to the stored one is kept as it is (no relationship is closed or written)."""
    built, _ = _build(neo4j_env, example_copy, project_name)
    first = built["build_id"]
    before, answers = view(graph, project_name, first), _answers(neo4j_env, project_name, first)
    with graph.driver.session(database=graph.database) as session:  # as a catalog of the previous layout left it
        session.run("MATCH (b:Build {id: $id}) SET b.store_version = $version", id=first, version=STORE_VERSION - 1).consume()

    summary, said = _build(neo4j_env, example_copy, project_name)
    new = summary["build_id"]
    assert said == [
        f"build {new} of {project_name}: 0 models reused, 15 to analyze",
        "writing 26 models, 0 columns, 0 new relationships, closing 0",
        "consumers: 15, 0 relationships written",
    ]
    assert summary["models"] == {"total": 15, "reused": 0, "recomputed": 15, "failed": 0, "carried_over": 0, "removed": 0}
    assert summary["recomputed_models"] == built["recomputed_models"] and len(built["recomputed_models"]) == 15
    assert summary["edges"] == NO_EDGE_CHANGE
    assert graph.find_active_build(project_name)["store_version"] == STORE_VERSION
    assert view(graph, project_name, first) == before
    assert view(graph, project_name, new) == before
    assert _answers(neo4j_env, project_name, new) == answers

    # the layout is this catalog's again: the build after reuses every model
    again, _ = _build(neo4j_env, example_copy, project_name)
    assert (again["models"], again["edges"]) == (ALL_REUSED, NO_EDGE_CHANGE)
