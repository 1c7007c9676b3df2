"""``catalog neo4j start --no-auth`` and ``catalog neo4j stop`` end to end: a server of the test's
own (its own home and free ports, the session's server untouched), started without
authentication, answering any user, then stopped."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalog import local_neo4j
from local_servers import own_local_server_env
from run_cli import answer, run

pytestmark = pytest.mark.neo4j
NO_AUTH = "  Auth     off (started with --no-auth): any user and password log in"


def memory(later: str = "") -> list[str]:
    """The memory lines of a server of :func:`own_local_server_env` (256 MB heap, 128 MB cache)."""
    return [
        f"  Heap     256 MB{later} (CATALOG_NEO4J_HEAP)",
        "  Young    64 MB of the heap (a third of the heap, at most 1 GB)",
        "  Cache    128 MB of page cache (CATALOG_NEO4J_PAGECACHE)",
    ]


@pytest.fixture
def own_home(neo4j_jars: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The environment points ``catalog neo4j`` at a home of its own on free ports (the session's
    server is another); whatever the test left running is stopped after it."""
    home = tmp_path / "neo4j"
    own_local_server_env(monkeypatch, home, neo4j_jars)
    yield home / "server"
    local_neo4j.stop()


def test_start_without_authentication_then_stop(own_home: Path):
    bolt, http = os.environ[local_neo4j.ENV_BOLT_PORT], os.environ[local_neo4j.ENV_HTTP_PORT]
    started = run({}, "neo4j", "start", "--no-auth", "--timeout", "300")
    assert started.exit_code == 0, started.output
    assert started.stdout == ""
    lines = started.stderr.splitlines()
    pid = local_neo4j.status().pid
    assert pid and lines[0] == f"Starting Neo4j {local_neo4j.NEO4J_VERSION} on bolt://127.0.0.1:{bolt} ..."
    assert lines[1].startswith(f"Neo4j is up (pid {pid}) after ")
    running = [
        f"Neo4j {local_neo4j.NEO4J_VERSION} (Community): running, pid {pid}",
        f"  Bolt     bolt://127.0.0.1:{bolt}",
        f"  Browser  http://127.0.0.1:{http}/browser/",
        NO_AUTH,
        *memory(),
        f"  Home     {own_home}",
        f"  Log      {own_home / 'logs' / 'neo4j.log'}",
    ]
    assert lines[2:] == running
    assert not (own_home / "password").exists()  # no password was generated

    status = answer({}, "neo4j", "status", "--json")
    assert (status["running"], status["pid"], status["auth"], status["password_file"]) == (True, pid, False, None)
    # any user and password log in, and none at all
    projects = answer({"NEO4J_USER": "whoever", "NEO4J_PASSWORD": "anything"}, "query", "list_projects", "--json")
    assert (projects["query"], projects["rows"]) == ("read/list_projects", [])
    assert answer({}, "query", "list_projects", "--json")["rows"] == []

    again = run({}, "neo4j", "start")  # with authentication: it says it runs without, and changes nothing
    assert again.exit_code == 0, again.output
    assert again.stderr.splitlines() == [
        "Already running.",
        "It runs without authentication: stop it and start it again to change that.",
        *running,
    ]

    stopped = run({}, "neo4j", "stop")
    assert stopped.exit_code == 0, stopped.output
    stopped_lines = [
        f"Neo4j {local_neo4j.NEO4J_VERSION} (Community): stopped",
        NO_AUTH,
        *memory(" at the next start"),
        f"  Home     {own_home}",
        f"  Log      {own_home / 'logs' / 'neo4j.log'}",
    ]
    assert stopped.stderr.splitlines() == ["Stopped.", *stopped_lines]
    assert not Path(f"/proc/{pid}").exists()  # exited and reaped
    assert run({}, "neo4j", "status").exit_code == 3

    twice = run({}, "neo4j", "stop", "--json")
    assert twice.exit_code == 0, twice.output
    assert twice.stderr.splitlines() == ["Not running."]
    assert json.loads(twice.stdout)["running"] is False


def test_status_before_the_first_start_names_no_password_file(own_home: Path):
    """Never started: authentication will be on, and no password file exists yet to point at."""
    status = run({}, "neo4j", "status")
    assert status.exit_code == 3, status.output
    lines = status.stderr.splitlines()
    assert lines[0] == f"Neo4j {local_neo4j.NEO4J_VERSION} (Community): stopped"
    assert lines[1] == "  User     neo4j, password generated at the first start (catalog neo4j start)"
    assert not (own_home / "password").exists()
    doc = json.loads(run({}, "neo4j", "status", "--json").stdout)
    assert (doc["state"], doc["auth"], doc["user"], doc["password_file"]) == ("stopped", True, "neo4j", None)
