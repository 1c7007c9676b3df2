"""The local Neo4j server: real jars, a real JVM, real Bolt."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError
from typer.testing import CliRunner

from catalog import local_neo4j, neo4j_memory
from catalog.store.connection import start_local_server
from catalog.cli.neo4j_cmd import app
from catalog.errors import ServerError
from local_servers import own_local_server_env

pytestmark = pytest.mark.neo4j


@pytest.fixture
def other_home(neo4j_jars: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second server home on free ports, sharing the jar cache (nothing is downloaded again)."""
    home = tmp_path / "neo4j"
    own_local_server_env(monkeypatch, home, neo4j_jars)
    yield home
    local_neo4j.stop()


def test_server_answers_cypher(neo4j_driver, neo4j_settings) -> None:
    records, _, _ = neo4j_driver.execute_query("RETURN 1 AS one", database_=neo4j_settings.database)
    assert records[0]["one"] == 1


def test_status_reports_the_local_server(local_server) -> None:
    current = local_neo4j.status()
    assert current.running and current.state == "running"
    assert current.installed and current.pid == local_server.pid
    assert current.bolt_uri == local_server.bolt_uri == f"bolt://127.0.0.1:{local_neo4j.layout().bolt_port}"
    assert current.version == local_neo4j.NEO4J_VERSION


def test_cli_status_json_parses(neo4j_source) -> None:
    result = CliRunner().invoke(app, ["status", "--json"])
    assert result.exit_code == 0, result.output
    reported = local_neo4j.ServerStatus.model_validate(json.loads(result.stdout))
    assert reported.version == local_neo4j.NEO4J_VERSION
    if neo4j_source.origin == "local":
        assert reported.running and reported.bolt_uri == neo4j_source.settings.uri


def test_second_install_is_instant_and_runs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = local_neo4j.install()  # downloads only if this machine never did

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"install() started a process on a warm cache: {args}")

    monkeypatch.setattr(subprocess, "run", no_process)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    assert local_neo4j.install() == lib  # no process started (see above): nothing downloaded
    assert (lib / f"neo4j-{local_neo4j.NEO4J_VERSION}.jar").is_file()
    assert (lib / local_neo4j.MARKER_NAME).is_file()


def test_start_stop_on_a_separate_home(other_home: Path) -> None:
    """Started first without authentication (as before authentication existed), then with it:
    the data directory of the first comes up with the generated password and its data."""
    assert local_neo4j.status().state == "stopped"

    started = start_local_server(timeout=180, auth=False)
    assert started.running and started.pid and not started.auth and started.password_file is None
    assert started.home == other_home / "server"
    assert started.bolt_uri == f"bolt://127.0.0.1:{os.environ[local_neo4j.ENV_BOLT_PORT]}"
    with GraphDatabase.driver(started.bolt_uri, auth=None) as driver:
        records, _, _ = driver.execute_query("CREATE (n:Kept {answer: 41 + 1}) RETURN n.answer AS answer")
    assert records[0]["answer"] == 42
    assert not (other_home / "server" / "password").exists()

    assert start_local_server().pid == started.pid  # already running: the same server, not a new one

    result = CliRunner().invoke(app, ["status", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["pid"] == started.pid

    assert local_neo4j.stop() is True
    stopped = local_neo4j.status()
    assert not stopped.running and stopped.pid is None and stopped.state == "stopped"
    assert not Path(f"/proc/{started.pid}").exists()  # exited and reaped
    assert not (other_home / "server" / "run" / local_neo4j.PID_NAME).exists()
    assert local_neo4j.stop() is False

    again = start_local_server(timeout=180)  # authentication on, the data directory of the first start
    assert again.auth and again.user == "neo4j" and again.password_file == other_home / "server" / "password"
    assert stat.S_IMODE(again.password_file.stat().st_mode) == 0o600
    password = local_neo4j.read_password()
    assert password and len(password) >= 32
    with GraphDatabase.driver(again.bolt_uri, auth=None) as driver, pytest.raises(AuthError):
        driver.verify_connectivity()
    with GraphDatabase.driver(again.bolt_uri, auth=("neo4j", password)) as driver:
        records, _, _ = driver.execute_query("MATCH (n:Kept) RETURN n.answer AS answer")
    assert [r["answer"] for r in records] == [42]
    assert local_neo4j.stop() is True


def test_the_server_directories_are_readable_only_by_their_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the umask; and a data directory left open (0755, as before they were private) is made private."""
    server = tmp_path / "neo4j" / "server"
    monkeypatch.setenv(local_neo4j.ENV_HOME, str(tmp_path / "neo4j"))
    (server / "data").mkdir(parents=True)
    (server / "data").chmod(0o755)
    umask = os.umask(0o022)
    try:
        local_neo4j._make_server_dirs(local_neo4j.layout())
    finally:
        os.umask(umask)
    modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in [server, *server.iterdir()]}
    assert modes == dict.fromkeys(["server", "conf", "data", "logs", "import", "run", "plugins"], "0o700")


def test_stale_pid_file_of_another_process_is_never_signalled(other_home: Path) -> None:
    pid_file = other_home / "server" / "run" / local_neo4j.PID_NAME
    pid_file.parent.mkdir(parents=True)
    pid_file.write_text(f"{os.getpid()}\n")  # a live pid that is not our server: this test

    assert local_neo4j.status().pid is None
    assert local_neo4j.stop() is False  # we are still alive to assert it
    assert not pid_file.exists()


def test_port_taken_by_another_process_is_a_clear_error(other_home: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", int(os.environ[local_neo4j.ENV_BOLT_PORT])))
        busy.listen()
        with pytest.raises(ServerError, match="already in use by another process"):
            start_local_server(timeout=30)
    assert local_neo4j.status().pid is None


def test_cli_reports_server_error_on_one_line_with_exit_1(other_home: Path) -> None:
    port = os.environ[local_neo4j.ENV_HTTP_PORT]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", int(port)))
        busy.listen()
        result = CliRunner().invoke(app, ["start", "--json"])
    assert result.exit_code == 1
    assert result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        f"Error: HTTP port 127.0.0.1:{port} is already in use by another process; "
        "stop it or choose another port with CATALOG_NEO4J_HTTP_PORT"
    ]
    assert "Traceback" not in result.stderr


def test_cli_status_of_a_stopped_server_exits_3(other_home: Path) -> None:
    result = CliRunner().invoke(app, ["status"])
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0] == f"Neo4j {local_neo4j.NEO4J_VERSION} (Community): stopped"
    as_json = CliRunner().invoke(app, ["status", "--json"])
    assert as_json.exit_code == 3
    assert json.loads(as_json.stdout)["running"] is False


def test_status_shows_the_memory_the_running_server_was_given(other_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The heap of CATALOG_NEO4J_HEAP, the young generation sized from it, the page cache of
    CATALOG_NEO4J_PAGECACHE: on the JVM's command line, in its config and in both outputs."""
    started = start_local_server(timeout=180, auth=False)
    monkeypatch.setenv(local_neo4j.ENV_HEAP, "2g")  # later changes are the next start's, not this server's
    args = Path(f"/proc/{started.pid}/cmdline").read_bytes().split(b"\0")
    assert [a.decode() for a in args if a.startswith((b"-Xm", b"-Xs"))] == ["-Xms256m", "-Xmx256m", "-Xmn64m"]
    conf = (other_home / "server" / "conf" / "neo4j.conf").read_text().splitlines()
    assert "server.memory.pagecache.size=128m" in conf

    text = CliRunner().invoke(app, ["status"])
    assert text.exit_code == 0, text.output
    assert [line for line in text.stderr.splitlines() if line.startswith(("  Heap", "  Young", "  Cache"))] == [
        "  Heap     256 MB (CATALOG_NEO4J_HEAP)",
        "  Young    64 MB of the heap (a third of the heap, at most 1 GB)",
        "  Cache    128 MB of page cache (CATALOG_NEO4J_PAGECACHE)",
    ]
    as_json = CliRunner().invoke(app, ["status", "--json"])
    assert json.loads(as_json.stdout)["memory"] == {
        "heap_mb": 256, "young_mb": 64, "pagecache_mb": 128, "heap_from": "CATALOG_NEO4J_HEAP",
        "young_from": "a third of the heap, at most 1 GB", "pagecache_from": "CATALOG_NEO4J_PAGECACHE",
    }  # fmt: skip

    assert local_neo4j.stop() is True
    monkeypatch.delenv(local_neo4j.ENV_HEAP)
    stopped = CliRunner().invoke(app, ["status"])
    store = neo4j_memory.store_size_mb(other_home / "server" / "data")
    assert store > 0  # the databases the first start created
    heap = next(line for line in stopped.stderr.splitlines() if line.startswith("  Heap"))
    assert re.fullmatch(rf"  Heap     \d+ MB at the next start \(sized from \d+\.\d GB free, {store} MB store\)", heap), heap
