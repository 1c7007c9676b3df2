"""Commands that read a whole build (report, explore, export) are not cut off by the default
transaction timeout, whose time grows with the project; one asked for still applies."""

from __future__ import annotations

import pytest

from catalog import DEFAULT_TIMEOUT
from catalog.cli.connect import graph_from

pytestmark = pytest.mark.neo4j


@pytest.fixture
def server_env(neo4j_env, monkeypatch):
    for key, value in neo4j_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("NEO4J_TIMEOUT", raising=False)
    return monkeypatch


def test_whole_build_reads_have_no_transaction_limit_by_default(server_env, build, project_name, example):
    build_id = build(example, project_name).build_id
    ours = [{"name": project_name, "active_build_id": build_id}]
    with graph_from(whole_build=True) as graph:
        assert graph.timeout is None
        unlimited = graph.read("read/list_projects")  # reads run without one
    with graph_from() as graph:  # every other command keeps the default
        assert graph.timeout == DEFAULT_TIMEOUT
        assert graph.read("read/list_projects") == unlimited  # and reads the same
    assert [row for row in unlimited if row["name"] == project_name] == ours


def test_a_timeout_asked_for_applies_to_whole_build_reads(server_env):
    with graph_from(timeout=12.5, whole_build=True) as graph:
        assert graph.timeout == 12.5
    server_env.setenv("NEO4J_TIMEOUT", "7")
    with graph_from(whole_build=True) as graph:
        assert graph.timeout == 7.0
