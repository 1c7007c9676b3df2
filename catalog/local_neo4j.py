"""A local Neo4j Community server without Docker: jars from Maven Central, run with ``java``.

``install()`` asks Maven to copy the ``neo4j-community-standalone`` assembly (plus the Neo4j
Browser) into a jar cache. ``start()`` writes a small config and runs one JVM in the
background, bound to 127.0.0.1 with authentication on, and waits until Bolt and HTTP answer.
``stop()`` ends exactly that process, found through its pid file.

Authentication: the first start generates a random password for the user ``neo4j`` and keeps
it in ``server/password`` (mode 0600, readable only by its owner). Once the server answers,
the password is set over Bolt from the initial ``neo4j``/``neo4j`` that every new system
database has, which a data directory created with authentication off still has too. Every
catalog command that connects to the local server reads that file (see
:mod:`catalog.settings`). ``start(auth=False)`` runs without authentication.

Layout (every path can be moved with an environment variable)::

    $CATALOG_NEO4J_HOME                 default ~/.cache/catalog/neo4j
      <version>/lib/                    jars; $CATALOG_NEO4J_LIB overrides this directory
      server/                           mode 0700, as each directory in it: readable only by its owner
      server/conf/neo4j.conf            rewritten by every start
      server/password                   the password of user neo4j (mode 0600)
      server/data/ logs/ run/ ...       databases, neo4j.log + console.log, pid file
      server/run/catalog-memory.json    the heap, young generation and page cache it was started with

Memory: sized at each start from the machine's free memory and the store's size on disk
(:mod:`catalog.neo4j_memory`), or set by ``CATALOG_NEO4J_HEAP``, ``CATALOG_NEO4J_YOUNG``,
``CATALOG_NEO4J_PAGECACHE``.

Ports: ``CATALOG_NEO4J_BOLT_PORT`` (default 7687) and ``CATALOG_NEO4J_HTTP_PORT`` (default 7474).

Over 600 lines for one job, the life of one local server process: each step (download, ports,
config, password, pid file, stop) is short, and all of them share the layout above.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from catalog import NEO4J_VERSION
from catalog.errors import ServerError
from catalog.neo4j_memory import ENV_HEAP as ENV_HEAP  # the memory variables, read by catalog.neo4j_memory
from catalog.neo4j_memory import ENV_PAGECACHE as ENV_PAGECACHE
from catalog.neo4j_memory import ENV_YOUNG as ENV_YOUNG
from catalog.neo4j_memory import MemoryPlan, plan, read_machine, store_size_mb

BROWSER_VERSION = "5.24.0"
MIN_JAVA = 17
DEFAULT_BOLT_PORT = 7687
DEFAULT_HTTP_PORT = 7474
HOST = "127.0.0.1"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"

ENV_HOME = "CATALOG_NEO4J_HOME"
ENV_LIB = "CATALOG_NEO4J_LIB"
ENV_BOLT_PORT = "CATALOG_NEO4J_BOLT_PORT"
ENV_HTTP_PORT = "CATALOG_NEO4J_HTTP_PORT"

MARKER_NAME = ".catalog-installed"
PID_NAME = "catalog-neo4j.pid"
PASSWORD_NAME = "password"
SERVER_DIRS = ("conf", "data", "logs", "import", "run", "plugins")  # in the server's home
USER = "neo4j"
INITIAL_PASSWORD = "neo4j"  # what a new system database gives USER, to be changed before any other use

MEMORY_NAME = "catalog-memory.json"  # in run/: the memory of the running server, and where it came from

JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)

_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.catalog</groupId>
  <artifactId>neo4j-server-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j.assembly</groupId>
      <artifactId>neo4j-community-standalone</artifactId>
      <version>{neo4j}</version>
      <type>pom</type>
    </dependency>
    <dependency>
      <groupId>org.neo4j.client</groupId>
      <artifactId>neo4j-browser</artifactId>
      <version>{browser}</version>
    </dependency>
  </dependencies>
</project>
"""

PasswordSetter = Callable[[str, str, str, str], None]  # (uri, user, old, new); raises neo4j's AuthError
Progress = Callable[[str], None]

# Servers started by this Python process, to collect their exit status (see ``_reap``).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


class Layout(BaseModel):
    """Where the jars and the server's files live, resolved from the environment."""

    model_config = ConfigDict(frozen=True)

    home: Path
    lib_dir: Path
    server_home: Path
    bolt_port: int
    http_port: int

    @property
    def conf_file(self) -> Path:
        return self.server_home / "conf" / "neo4j.conf"

    @property
    def pid_file(self) -> Path:
        return self.server_home / "run" / PID_NAME

    @property
    def log_file(self) -> Path:
        return self.server_home / "logs" / "neo4j.log"

    @property
    def console_log(self) -> Path:
        return self.server_home / "logs" / "console.log"

    @property
    def memory_file(self) -> Path:
        return self.server_home / "run" / MEMORY_NAME

    @property
    def marker(self) -> Path:
        return self.lib_dir / MARKER_NAME

    @property
    def password_file(self) -> Path:
        return self.server_home / PASSWORD_NAME


class ServerStatus(BaseModel):
    """What ``catalog neo4j status`` reports."""

    model_config = ConfigDict(frozen=True)

    version: str
    state: Literal["not installed", "stopped", "starting", "running"]
    installed: bool
    running: bool
    """The process we started is alive and Bolt answers."""
    pid: int | None
    bolt_uri: str
    http_url: str
    browser_url: str
    home: Path
    lib_dir: Path
    log_file: Path
    auth: bool
    """Authentication on (as last started, or as the next start does when never started)."""
    user: str | None
    """Who to log in as when ``auth`` is on (Neo4j Browser, ``--user``)."""
    password_file: Path | None
    """Where that user's password is kept, when ``auth`` is on and a start has generated it."""
    memory: MemoryPlan
    """Heap, young generation and page cache: the running server's, else what the next start would take."""


def layout() -> Layout:
    """Paths and ports from ``CATALOG_NEO4J_*`` variables, read at each call."""
    env = os.environ
    if env.get(ENV_HOME):
        home = Path(env[ENV_HOME]).expanduser()
    else:
        cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        home = cache / "catalog" / "neo4j"
    home = home.resolve()
    lib = Path(env[ENV_LIB]).expanduser().resolve() if env.get(ENV_LIB) else home / NEO4J_VERSION / "lib"
    return Layout(
        home=home,
        lib_dir=lib,
        server_home=home / "server",
        bolt_port=_port_from_env(ENV_BOLT_PORT, DEFAULT_BOLT_PORT),
        http_port=_port_from_env(ENV_HTTP_PORT, DEFAULT_HTTP_PORT),
    )


def _port_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ServerError(f"{name}={raw!r} is not a TCP port number")
    return int(raw)


# --------------------------------------------------------------------------- install


def is_installed(where: Layout | None = None) -> bool:
    return (where or layout()).marker.is_file()


def install(progress: Progress | None = None) -> Path:
    """Download the server's jars once; return the lib directory.

    The jars are copied into a temporary directory next to the final one, the marker file
    is written last, and the directory is renamed into place: an interrupted download
    never leaves a lib directory that looks complete. When the marker exists nothing runs.
    """
    where = layout()
    if is_installed(where):
        return where.lib_dir
    say = progress or (lambda _msg: None)
    java_executable()
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ServerError(
            "Maven ('mvn') is not on PATH; it is needed once to download the Neo4j jars from Maven Central"
        )
    parent = where.lib_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(parent / ".install.lock"):
        if is_installed(where):  # another process finished while we waited
            return where.lib_dir
        for leftover in parent.glob(".install-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=".install-", dir=parent))
        try:
            (work / "pom.xml").write_text(_POM.format(neo4j=NEO4J_VERSION, browser=BROWSER_VERSION))
            staged = work / "lib"
            say(f"Downloading Neo4j Community {NEO4J_VERSION} jars with Maven (first time only, 139 MB)...")
            began = time.monotonic()
            _run_maven(mvn, work, staged)
            jars = sorted(p.name for p in staged.glob("*.jar"))
            if f"neo4j-{NEO4J_VERSION}.jar" not in jars:
                raise ServerError(
                    f"Maven finished but neo4j-{NEO4J_VERSION}.jar is missing from {len(jars)} copied jars"
                )
            marker = {"version": NEO4J_VERSION, "browser": BROWSER_VERSION, "jars": len(jars)}
            (staged / MARKER_NAME).write_text(json.dumps(marker) + "\n")
            if where.lib_dir.exists():  # a lib without marker: not ours to trust
                shutil.rmtree(where.lib_dir)
            os.rename(staged, where.lib_dir)
            say(f"Installed {len(jars)} jars into {where.lib_dir} in {time.monotonic() - began:.1f} s")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return where.lib_dir


def _run_maven(mvn: str, work: Path, out_dir: Path) -> None:
    cmd = [
        mvn, "-B", "-q", "-Dstyle.color=never", "-f", str(work / "pom.xml"),
        "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={out_dir}",
    ]  # fmt: skip
    try:
        done = subprocess.run(
            cmd, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=1800, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise ServerError("Maven did not finish downloading the Neo4j jars within 30 minutes") from exc
    except OSError as exc:
        raise ServerError(f"could not run Maven ({mvn}): {exc}") from exc
    if done.returncode != 0:
        raise ServerError(
            f"Maven failed (exit {done.returncode}) downloading Neo4j {NEO4J_VERSION} from Maven Central; "
            f"last lines:\n{_tail_text(done.stdout)}"
        )


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def java_executable() -> str:
    """``$JAVA_HOME/bin/java`` or ``java`` on PATH, checked to be Java 17 or newer."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home) / "bin" / "java" if java_home else None
    java = str(candidate) if candidate and candidate.is_file() else shutil.which("java")
    if java is None:
        raise ServerError(f"Java is not installed (no 'java' on PATH); Neo4j {NEO4J_VERSION} needs Java 17 or 21")
    try:
        done = subprocess.run(
            [java, "-version"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerError(f"could not run {java} -version: {exc}") from exc
    major = _java_major(done.stderr + done.stdout)
    if major is None:
        raise ServerError(f"could not read the Java version from {java} -version: {done.stderr.strip()[:200]}")
    if major < MIN_JAVA:
        raise ServerError(
            f"{java} is Java {major}; Neo4j {NEO4J_VERSION} needs Java 17 or 21 (set JAVA_HOME to one)"
        )
    return java


def _java_major(text: str) -> int | None:
    found = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not found:
        return None
    first = int(found.group(1))
    return int(found.group(2) or 0) if first == 1 else first  # "1.8.0" is Java 8


# --------------------------------------------------------------------------- start / stop / status


def status() -> ServerStatus:
    """Installed? Running? Read-only: never starts, stops or cleans anything."""
    where = layout()
    pid = _our_pid(where)
    bolt_port, http_port = _running_ports(where) if pid else (where.bolt_port, where.http_port)
    answers = pid is not None and _bolt_answers(bolt_port)
    installed = is_installed(where)
    if answers:
        state: Literal["not installed", "stopped", "starting", "running"] = "running"
    elif pid is not None:
        state = "starting"
    else:
        state = "stopped" if installed else "not installed"
    auth = _conf_values(where).get("dbms.security.auth_enabled", "true") == "true"
    return ServerStatus(
        version=NEO4J_VERSION,
        state=state,
        installed=installed,
        running=answers,
        pid=pid,
        bolt_uri=f"bolt://{HOST}:{bolt_port}",
        http_url=f"http://{HOST}:{http_port}/",
        browser_url=f"http://{HOST}:{http_port}/browser/",
        home=where.server_home,
        lib_dir=where.lib_dir,
        log_file=where.log_file,
        auth=auth,
        user=USER if auth else None,
        password_file=where.password_file if auth and where.password_file.is_file() else None,  # none before the first start
        memory=(_running_memory(where) if pid else None) or memory_plan(where),
    )


def memory_plan(where: Layout | None = None) -> MemoryPlan:
    """The memory a start would give the server now: sized from this machine's free memory
    and the store's size on disk, or as the ``CATALOG_NEO4J_*`` variables say."""
    where = where or layout()
    return plan(read_machine(), store_size_mb(where.server_home / "data"))


def _running_memory(where: Layout) -> MemoryPlan | None:
    """What the running server was started with (kept by its start), None if unknown."""
    try:
        return MemoryPlan.model_validate_json(where.memory_file.read_text())
    except (OSError, ValueError):
        return None


def start(
    timeout: float = 120, progress: Progress | None = None, auth: bool = True, set_password: PasswordSetter | None = None
) -> ServerStatus:
    """Start the server in the background (installing it first if needed); wait until it answers.

    ``set_password(uri, user, old, new)`` changes a user's password on the running server; the
    store provides it (:func:`catalog.store.connection.start_local_server`), so that this
    launcher runs no Cypher of its own. Needed with ``auth``.

    Ready means Bolt answers a ``verify_connectivity()`` without credentials (with
    authentication on, by refusing them), the HTTP port serves (the Browser comes up after
    Bolt) and, with ``auth``, user ``neo4j`` logs in with the password of the password file
    (generated before the first start, set on the server at its first start). Returns at
    once when our server already runs; concurrent callers share one server. Raises
    ``ServerError`` when a port is taken by another process, when the JVM exits during
    start-up (with the last log lines), when the server is not ready within ``timeout``
    seconds, or when its user ``neo4j`` has a password that is neither the file's nor the
    initial one (the server is then stopped).
    """
    if auth and set_password is None:
        raise ValueError("start(auth=True) needs set_password: use catalog.store.connection.start_local_server")
    say = progress or (lambda _msg: None)
    where = layout()
    _make_server_dirs(where)
    with _file_lock(where.server_home / "run" / ".start.lock"):
        pid = _our_pid(where)
        if pid is not None:
            ports = _running_ports(where)
            if not _wait_until_ready(where, ports, pid, None, time.monotonic() + timeout):
                raise ServerError(
                    f"Neo4j (pid {pid}) is running but did not answer on bolt://{HOST}:{ports[0]} and "
                    f"http://{HOST}:{ports[1]}/ within {timeout:.0f} s; see {where.log_file}"
                )
            return status()
        _remove_stale_pid_file(where)

        install(progress)
        java = java_executable()
        for name, port in (("Bolt", where.bolt_port), ("HTTP", where.http_port)):
            _check_port_free(name, port)
        memory = memory_plan(where)
        _write_conf(where, auth, memory)
        password = _ensure_password_file(where) if auth else None

        cmd = [
            java, *memory.jvm_options(), *JVM_OPTIONS, "-cp", str(where.lib_dir / "*"), ENTRY_POINT,
            f"--home-dir={where.server_home}", f"--config-dir={where.conf_file.parent}",
        ]  # fmt: skip
        say(f"Starting Neo4j {NEO4J_VERSION} on bolt://{HOST}:{where.bolt_port} ...")
        began = time.monotonic()
        with open(where.console_log, "ab") as console:
            proc = subprocess.Popen(
                cmd, cwd=where.server_home, stdin=subprocess.DEVNULL, stdout=console,
                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
            )  # fmt: skip
        _CHILDREN[proc.pid] = proc
        where.memory_file.write_text(memory.model_dump_json() + "\n")
        _write_pid_file(where, proc.pid)

        try:
            ready = _wait_until_ready(where, (where.bolt_port, where.http_port), proc.pid, proc, began + timeout)
        except ServerError:
            where.pid_file.unlink(missing_ok=True)
            raise
        problem = "" if ready else f"Neo4j was not ready on bolt://{HOST}:{where.bolt_port} within {timeout:.0f} s"
        if ready and password is not None and set_password is not None:
            problem = _set_password(where, password, set_password)
        if problem:
            _terminate(proc.pid, 30, where)
            where.pid_file.unlink(missing_ok=True)
            raise ServerError(f"{problem}; it was stopped" + ("" if ready else _log_tails(where)))
        say(f"Neo4j is up (pid {proc.pid}) after {time.monotonic() - began:.1f} s")
    return status()


def stop(timeout: float = 60) -> bool:
    """Stop the server we started (SIGTERM, then SIGKILL after ``timeout``). False if none ran."""
    where = layout()
    pid = _our_pid(where)
    if pid is None:
        _remove_stale_pid_file(where)
        return False
    _terminate(pid, timeout, where)
    where.pid_file.unlink(missing_ok=True)
    return True


def _terminate(pid: int, timeout: float, where: Layout) -> None:
    _signal_ours(pid, signal.SIGTERM, where)
    if _wait_gone(pid, timeout):
        return
    _signal_ours(pid, signal.SIGKILL, where)
    if not _wait_gone(pid, 15):
        raise ServerError(f"Neo4j (pid {pid}) did not exit after SIGKILL")


def _signal_ours(pid: int, sig: signal.Signals, where: Layout) -> None:
    """Signal ``pid`` only while its command line is still our server's."""
    if not _is_our_process(pid, where):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _wait_gone(pid: int, timeout: float) -> bool:
    proc = _CHILDREN.get(pid)
    if proc is not None:  # our child: wait for it (its /proc entry shows Z while threads still exit)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        del _CHILDREN[pid]
        return True
    deadline = time.monotonic() + timeout
    while True:
        _reap(pid)
        if not _alive(pid):
            _reap(pid)  # it may have turned zombie after the first look
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def _wait_until_ready(
    where: Layout, ports: tuple[int, int], pid: int, proc: subprocess.Popen[bytes] | None, deadline: float
) -> bool:
    """True once Bolt and HTTP answer; ServerError if the process dies; False at the deadline.

    Bolt opens before the HTTP server (and the Browser) do, so both are awaited.
    """
    bolt_port, http_port = ports
    while True:
        if proc is not None:
            code = proc.poll()
            if code is not None:
                raise ServerError(f"Neo4j exited with code {code} during start-up" + _log_tails(where))
        elif not _alive(pid):
            raise ServerError(f"Neo4j (pid {pid}) exited during start-up" + _log_tails(where))
        if _bolt_answers(bolt_port) and _http_answers(http_port):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def _bolt_answers(port: int) -> bool:
    """The driver's ``verify_connectivity()`` (handshake and HELLO) succeeds, without auth."""
    if not _speaks_bolt(port):  # quick and bounded, also for a listener that never replies
        return False
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    try:
        with GraphDatabase.driver(
            f"bolt://{HOST}:{port}", auth=None, connection_timeout=3, connection_acquisition_timeout=10
        ) as driver:
            driver.verify_connectivity()
        return True
    except AuthError:
        return True  # a server with authentication: it answered, refusing to go on without a password
    except (DriverError, Neo4jError, OSError):
        return False


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _http_answers(port: int) -> bool:
    """The HTTP discovery document is served (the server has finished starting)."""
    try:
        with _NO_PROXY.open(f"http://{HOST}:{port}/", timeout=3) as response:
            return response.status == 200
    except (OSError, ValueError):
        return False


# Bolt magic preamble, then four version proposals: 5.0-5.8, 4.4, none, none.
_BOLT_HELLO = bytes.fromhex("6060b017" "00080805" "00000404" "00000000" "00000000")


def _speaks_bolt(port: int, timeout: float = 2.0) -> bool:
    """Something accepts a connection on the port and answers the Bolt version handshake."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(_BOLT_HELLO)
            reply = b""
            while len(reply) < 4:
                chunk = sock.recv(4 - len(reply))
                if not chunk:
                    return False
                reply += chunk
            return reply[:2] == b"\x00\x00" and reply[3] != 0  # 00 00 <minor> <major>
    except OSError:
        return False


def _check_port_free(name: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
            return
        except OSError:
            pass
    env = ENV_BOLT_PORT if name == "Bolt" else ENV_HTTP_PORT
    what = "another Neo4j (not started from this home)" if name == "Bolt" and _bolt_answers(port) else "another process"
    raise ServerError(
        f"{name} port {HOST}:{port} is already in use by {what}; stop it or choose another port with {env}"
    )


def _make_server_dirs(where: Layout) -> None:
    """The server's home and its directories, mode 0700 whatever the umask: its databases, logs
    and password are its owner's only. Made private again when found open (an older layout)."""
    for path in (where.server_home, *(where.server_home / sub for sub in SERVER_DIRS)):
        try:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
            path.chmod(0o700)
        except OSError as exc:
            raise ServerError(f"cannot make the local Neo4j's directory {path} private (mode 0700): {exc.strerror}") from None


def _write_conf(where: Layout, auth: bool, memory: MemoryPlan) -> None:
    home = where.server_home
    settings = {
        "server.default_listen_address": HOST,
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": f"{HOST}:{where.bolt_port}",
        "server.bolt.advertised_address": f"{HOST}:{where.bolt_port}",
        "server.http.enabled": "true",
        "server.http.listen_address": f"{HOST}:{where.http_port}",
        "server.https.enabled": "false",
        "dbms.security.auth_enabled": "true" if auth else "false",
        "server.memory.pagecache.size": memory.pagecache_setting,
        # keep only a little transaction log: the catalog's history lives in the graph itself
        "db.tx_log.rotation.retention_policy": "2 files",
        "dbms.usage_report.enabled": "false",
        "server.directories.data": str(home / "data"),
        "server.directories.logs": str(home / "logs"),
        "server.directories.import": str(home / "import"),
        "server.directories.run": str(home / "run"),
        "server.directories.plugins": str(home / "plugins"),
        # Bolt's Netty loops wait for 5 quiet seconds at shutdown by default; 1 is plenty here.
        "internal.dbms.bolt.netty_server_shutdown_quiet_period": "1",
    }
    text = "# Written by catalog.local_neo4j at every start; edits are overwritten.\n"
    text += "".join(f"{key}={value}\n" for key, value in settings.items())
    where.conf_file.write_text(text)


def _conf_values(where: Layout) -> dict[str, str]:
    """The settings of the last start (its config file); empty before the first."""
    values = {}
    with contextlib.suppress(OSError):
        for line in where.conf_file.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not key.lstrip().startswith("#"):
                values[key.strip()] = value.strip()
    return values


def _running_ports(where: Layout) -> tuple[int, int]:
    """The ports the running server was started with (from its config), else the env's."""
    conf = _conf_values(where)
    bolt = conf.get("server.bolt.listen_address", "").rpartition(":")[2]
    http = conf.get("server.http.listen_address", "").rpartition(":")[2]
    return (int(bolt) if bolt.isdigit() else where.bolt_port, int(http) if http.isdigit() else where.http_port)


# --------------------------------------------------------------------------- authentication


def read_password(where: Layout | None = None) -> str | None:
    """The local server's password from its password file; None when there is no file."""
    path = (where or layout()).password_file
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ServerError(f"cannot read the local Neo4j's password file {path}: {exc.strerror}") from None


def _ensure_password_file(where: Layout) -> str:
    """The password of the file, generated into it first when there is none.

    The file is created with mode 0600 before anything is written into it, under another
    name, and renamed into place once complete: no reader ever sees a partial password.
    A file that others could read is made private again.
    """
    path = where.password_file
    existing = read_password(where)
    if existing is not None:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return existing
    password = secrets.token_urlsafe(24)  # 32 characters, 192 random bits
    tmp = path.with_name(f".{PASSWORD_NAME}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, f"{password}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return password


def _set_password(where: Layout, password: str, set_password: PasswordSetter) -> str:
    """Make ``password`` user neo4j's on the running server; "" once it is, else why not.

    Nothing to do when it already is. Otherwise the user still has the initial password
    (a new data directory, or one created with authentication off), which is changed over
    Bolt on the system database. Never puts a password into the message.
    """
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    uri = f"bolt://{HOST}:{where.bolt_port}"
    try:
        with GraphDatabase.driver(uri, auth=(USER, password), connection_timeout=10) as driver:
            driver.verify_connectivity()
        return ""
    except AuthError:
        pass
    except (DriverError, Neo4jError, OSError) as exc:
        return f"Neo4j on {uri} did not accept a login as {USER!r}: {type(exc).__name__}"
    try:
        set_password(uri, USER, INITIAL_PASSWORD, password)
        return ""
    except AuthError:
        return (
            f"Neo4j on {uri} refused user {USER!r} with the password in {where.password_file}: the data in "
            f"{where.server_home / 'data'} has another password for it; write that password into "
            f"{where.password_file}, or start without authentication (catalog neo4j start --no-auth)"
        )
    except (DriverError, Neo4jError, OSError) as exc:
        code = getattr(exc, "code", None) or type(exc).__name__
        return f"could not set the password of user {USER!r} on Neo4j {uri}: {code}"


# --------------------------------------------------------------------------- pid file and process checks


def _write_pid_file(where: Layout, pid: int) -> None:
    tmp = where.pid_file.with_suffix(".tmp")
    tmp.write_text(f"{pid}\n")
    os.replace(tmp, where.pid_file)


def _read_pid_file(where: Layout) -> int | None:
    try:
        raw = where.pid_file.read_text().strip()
    except OSError:
        return None
    return int(raw) if raw.isdigit() else None


def _our_pid(where: Layout) -> int | None:
    """The pid from the pid file, if that process is alive and is our server."""
    pid = _read_pid_file(where)
    if pid is None:
        return None
    _reap(pid)
    return pid if _alive(pid) and _is_our_process(pid, where) else None


def _remove_stale_pid_file(where: Layout) -> None:
    pid = _read_pid_file(where)
    if where.pid_file.exists() and (pid is None or not (_alive(pid) and _is_our_process(pid, where))):
        where.pid_file.unlink(missing_ok=True)


def _is_our_process(pid: int, where: Layout) -> bool:
    """Guards against a reused pid: the command line must be our entry point and home."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    decoded = [arg.decode(errors="replace") for arg in args]
    return ENTRY_POINT in decoded and f"--home-dir={where.server_home}" in decoded


def _alive(pid: int) -> bool:
    """Alive and not a zombie (a zombie still answers kill(pid, 0))."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _reap(pid: int) -> None:
    """Collect the exit status of a server started by this process, so it is no zombie."""
    proc = _CHILDREN.get(pid)
    if proc is not None and proc.poll() is not None:
        del _CHILDREN[pid]


def _log_tails(where: Layout, lines: int = 20) -> str:
    parts = []
    for path in (where.log_file, where.console_log):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if text.strip():
            parts.append(f"\n--- last lines of {path} ---\n{_tail_text(text, lines)}")
    return "".join(parts) or f"\n(no log output in {where.log_file.parent})"


def _tail_text(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])
