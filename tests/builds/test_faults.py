"""Faults with real processes: a Neo4j killed during a build, a server that never answers,
Ctrl-C and SIGTERM. Each ends with one ``Error:`` line and leaves the active build intact;
the unfinished build is marked failed at once, or (Neo4j gone) by the next build.

No assert times anything (speed is for benchmarks); each process runs under a subprocess
timeout, a guard against a hang (before, a dead server took 70-95 s of retries and a silent
one 61 s).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalog import local_neo4j
from catalog.store.connection import start_local_server
from catalog.history import list_builds
from local_servers import own_local_server_env

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop" / "target"


def _catalog(*args: str) -> list[str]:
    return [sys.executable, "-m", "catalog.cli.app", *args]


def _env(uri: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update({"NEO4J_URI": uri, "NEO4J_USER": "neo4j", "NEO4J_PASSWORD": "", **extra})
    return env


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Error:")]


def _quiet(stderr: str) -> None:
    """No traceback and none of the driver's retry warnings."""
    assert "Traceback" not in stderr, stderr
    assert "will be retried" not in stderr and "<CONNECTION>" not in stderr, stderr


def _start_build(args: list[str], env: dict[str, str], until: str) -> subprocess.Popen[str]:
    """``catalog build`` in a process of its own, read until a progress line containing
    ``until``, then paused (SIGSTOP) there."""
    proc = subprocess.Popen(
        _catalog("build", *args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # even if this shell ignores Ctrl-C
    )  # fmt: skip
    assert proc.stderr is not None
    seen: list[str] = []
    for line in proc.stderr:
        seen.append(line.rstrip("\n"))
        if until in line:
            os.kill(proc.pid, signal.SIGSTOP)
            return proc
    proc.wait()
    pytest.fail(f"the build ended (exit {proc.returncode}) before printing {until!r}:\n" + "\n".join(seen))


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Let a paused build go on; its exit code and the rest of its stderr."""
    os.kill(proc.pid, signal.SIGCONT)
    _, rest = proc.communicate(timeout=120)
    return proc.returncode, rest


# --------------------------------------------------------------------------- a silent server
@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for s in held:
            s.close()
        listener.close()


def test_a_server_that_never_answers_fails_within_the_timeout_with_one_line():
    with silent_server() as port:
        uri = f"bolt://127.0.0.1:{port}"
        done = subprocess.run(
            _catalog("build", str(EXAMPLE), "--timeout", "2"), env=_env(uri), capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 1, done.stderr
    _quiet(done.stderr)
    assert done.stderr.strip().splitlines() == [
        f"Error: cannot reach Neo4j at {uri}: no answer within 2 s (check NEO4J_URI / --uri, NEO4J_USER and NEO4J_PASSWORD)"
    ]


def test_neo4j_timeout_from_the_environment_and_bad_values():
    with silent_server() as port:
        uri = f"bolt://127.0.0.1:{port}"
        done = subprocess.run(
            _catalog("builds"), env=_env(uri, NEO4J_TIMEOUT="1.5"), capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 1 and "no answer within 1.5 s" in done.stderr, done.stderr
    bad = subprocess.run(_catalog("builds"), env=_env(uri, NEO4J_TIMEOUT="soon"), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert bad.stderr.strip().splitlines() == [
        "Error: bad Neo4j timeout 'soon' (NEO4J_TIMEOUT): give a number of seconds above 0, e.g. 30"
    ]
    zero = subprocess.run(_catalog("build", str(EXAMPLE), "--timeout", "0"), env=_env(uri), capture_output=True, text=True, timeout=60)
    assert zero.returncode == 2 and "--timeout" in zero.stderr


# --------------------------------------------------------------------------- Ctrl-C and SIGTERM
@pytest.mark.neo4j
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_a_build_says_so_marks_it_failed_and_keeps_the_active_build(
    sig, graph, neo4j_settings, project_name, tmp_path
):
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    env = _env(neo4j_settings.uri, NEO4J_USER=neo4j_settings.user, NEO4J_PASSWORD=neo4j_settings.password.get_secret_value())
    first = subprocess.run(
        _catalog("build", str(target), "--project", project_name, "--jobs", "1"), env=env, capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0, first.stderr
    active = [b.id for b in list_builds(graph, project_name) if b.status == "active"]

    proc = _start_build([str(target), "--project", project_name, "--jobs", "1", "--full"], env, until="models reused")
    os.kill(proc.pid, sig)  # delivered when it goes on
    code, stderr = _finish(proc)
    _quiet(stderr)
    builds = {b.id: b for b in list_builds(graph, project_name)}
    stopped = max(builds)
    name = "interrupted (Ctrl-C)" if sig == signal.SIGINT else "stopped by SIGTERM"
    assert code == 128 + sig, stderr
    assert _error_lines(stderr) == [f"Error: {name}; build {stopped} was marked failed and its writes undone"]
    assert stderr.strip().splitlines()[-1].startswith("Error:")
    assert builds[stopped].status == "failed"
    assert [b.id for b in builds.values() if b.status == "active"] == active


# --------------------------------------------------------------------------- a Neo4j killed mid-build
@pytest.fixture(scope="module")
def own_server(neo4j_jars: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[pytest.MonkeyPatch]:
    """A second local Neo4j, on ports and in a folder of its own, for tests that kill it (a heap
    of 256 MB: a transaction may use 70% of it, 179 MB). Yields the environment that points
    ``catalog.local_neo4j`` at it (active while the test runs)."""
    with pytest.MonkeyPatch.context() as env:
        own_local_server_env(env, tmp_path_factory.mktemp("neo4j_killed"), neo4j_jars)
        start_local_server(timeout=300)
        try:
            yield env
        finally:
            local_neo4j.stop()


def _kill(server: local_neo4j.ServerStatus) -> None:
    """SIGKILL the server this module started (its pid from its own pid file), and reap it."""
    assert server.pid is not None and server.home == local_neo4j.layout().server_home
    os.kill(server.pid, signal.SIGKILL)
    local_neo4j.stop(timeout=30)  # collects the dead process and its pid file
    assert not local_neo4j.status().running


@pytest.mark.neo4j
def test_a_dead_build_larger_than_one_transaction_is_undone_by_the_next(own_server, tmp_path, benchmark_module):
    """A build killed after writing 110,000 relationships. Undone in one transaction, they took
    more memory than this server allows a transaction (70% of its 256 MB heap): the next build,
    and every one after it, stopped on the undo. Undone in batches, the next build goes on."""
    target = benchmark_module("hub_project").write_hub_project(tmp_path / "hub", 50, 50, 21)
    env = _env(local_neo4j.status().bolt_uri)
    args = [str(target), "--project", "big", "--jobs", "1"]
    killed = subprocess.run(_catalog("build", *args), env={**env, "CATALOG_FAULT_AFTER": "kill:relationships"},
                            capture_output=True, text=True, timeout=900)  # fmt: skip
    assert killed.returncode == -9, killed.stderr
    written = int(killed.stderr.rsplit(" new relationships", 1)[0].rsplit(", ", 1)[1])
    assert written > 100_000, killed.stderr
    # the next build undoes the dead one first; stopped right after (the start stage), it is quick
    nxt = subprocess.run(_catalog("build", *args), env={**env, "CATALOG_FAULT_AFTER": "start"},
                         capture_output=True, text=True, timeout=900)  # fmt: skip
    _quiet(nxt.stderr)
    assert nxt.returncode == 1 and len(_error_lines(nxt.stderr)) == 1 and "injected failure after stage start" in nxt.stderr
    cleaned = [line for line in nxt.stderr.splitlines() if line.startswith("cleaned up build ")]
    assert len(cleaned) == 1, nxt.stderr
    removed = int(cleaned[0].split(": ", 1)[1].split(" relationships removed")[0])
    assert removed >= written  # its lineage, and the models' states and records written beside it
    builds = json.loads(subprocess.run(_catalog("builds", "--project", "big", "--json"), env=env, capture_output=True,
                                       text=True, timeout=120, check=True).stdout)  # fmt: skip
    assert [b["status"] for b in sorted(builds, key=lambda b: b["id"])] == ["failed", "failed"]
    assert cleaned[0].startswith(f"cleaned up build {min(b['id'] for b in builds)} ")


@pytest.mark.neo4j
def test_neo4j_killed_mid_build_fails_fast_with_one_line(own_server, tmp_path):
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    server = local_neo4j.status()
    env = _env(server.bolt_uri)
    args = [str(target), "--project", "killed", "--jobs", "1"]
    first = subprocess.run(_catalog("build", *args), env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr

    # paused once its build is created and running; Neo4j dies; it goes on to its next statement
    proc = _start_build([*args, "--full"], env, until="models reused")
    _kill(server)
    code, stderr = _finish(proc)
    _quiet(stderr)
    lines = stderr.strip().splitlines()
    assert code == 1 and len(lines) == 1, stderr
    assert lines[0].startswith(f"Error: lost the connection to Neo4j at {server.bolt_uri} while running ")
    stopped = int(lines[0].rsplit("; build ", 1)[1].split()[0])
    assert lines[0].endswith(f"; build {stopped} is left for the next build to undo")
    # the build stays `running` until the next build sees its process gone, undoes it and marks it
    # failed: test_builds.py::test_killed_build_is_cleaned_up_by_the_next
