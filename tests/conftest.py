"""Shared fixtures."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from neo4j import Driver, GraphDatabase
from pydantic import SecretStr

from catalog import local_neo4j
from catalog.builds import Builder, BuildSummary
from catalog.errors import ServerError
from catalog.history import forget_project
from catalog.query import BuildView
from catalog.settings import Neo4jSettings
from catalog.store.connection import start_local_server
from catalog.store.graph import Graph
from local_servers import own_local_server_env
from needs import unavailable

# tests/ mirrors catalog/ (tests/builds, tests/check, tests/query, ...); a test may use another
# folder's helpers by module name (``from test_build_views import view``), so every folder
# is on the path, whichever is collected first
for _folder in sorted(Path(__file__).resolve().parent.iterdir()):
    if _folder.is_dir() and any(_folder.glob("test_*.py")) and str(_folder) not in sys.path:
        sys.path.append(str(_folder))

# catalog check and prune --state keep the lineage of a base (catalog.state_cache): in a folder of
# this session's, never the user's
os.environ["CATALOG_CACHE_DIR"] = tempfile.mkdtemp(prefix="catalog-test-cache-")

# --------------------------------------------------------------------------- Neo4j and shared data
#
# Tests marked ``neo4j`` get a server from, in this order:
#   1. NEO4J_URI (with NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE), used as is;
#   2. a Docker engine: a throwaway ``neo4j:5.26-community`` container (testcontainers);
#   3. the local server of ``catalog.local_neo4j`` (jars from Maven Central, run with java),
#      with authentication on: the password of its password file, as every command finds it.
#      Left running if it already ran; stopped at session end if this session started it.
# When none can be had the tests skip, except under CI=true where they fail.


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers follow the fixtures: a test that gets a Neo4j server (directly or through
    another fixture) is ``neo4j``, one that reads ``../shared`` is ``corpus``."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & {"neo4j_source", "neo4j_jars"}:  # the session's server, or one of the test's own
            item.add_marker(pytest.mark.neo4j)
        if "shared_dir" in used:
            item.add_marker(pytest.mark.corpus)


def _docker_engine_answers() -> bool:
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@dataclass(frozen=True)
class Neo4jSource:
    settings: Neo4jSettings
    origin: str
    """"env", "docker" or "local"."""


@pytest.fixture(scope="session")
def neo4j_source() -> Iterator[Neo4jSource]:
    if os.environ.get("NEO4J_URI"):
        yield Neo4jSource(Neo4jSettings.from_env(), "env")
        return

    if _docker_engine_answers():
        try:
            from testcontainers.community.neo4j import Neo4jContainer
        except ImportError:  # older testcontainers 4.x
            from testcontainers.neo4j import Neo4jContainer

        problem = ""
        try:
            container = Neo4jContainer("neo4j:5.26-community").start()
        except Exception as exc:  # image pull or start-up failure
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            unavailable(f"Neo4j container did not start: {problem}")
        try:
            settings = Neo4jSettings(
                uri=container.get_connection_url(), user=container.username, password=container.password
            )
            yield Neo4jSource(settings, "docker")
        finally:
            container.stop()
        return

    problem = ""
    try:
        already_running = local_neo4j.status().running
        server = start_local_server()
    except ServerError as exc:
        problem = str(exc)  # reported outside the except block: no chained traceback
    if problem:
        unavailable(f"no NEO4J_URI, no Docker engine, and the local Neo4j did not start: {problem}")
    if not server.auth:
        unavailable(f"the local Neo4j in {server.home} runs without authentication (--no-auth); stop it so the tests start it with authentication")
    password = local_neo4j.read_password() or ""
    try:
        yield Neo4jSource(Neo4jSettings(uri=server.bolt_uri, password=SecretStr(password)), "local")
    finally:
        if not already_running:
            local_neo4j.stop()


@pytest.fixture(scope="session")
def neo4j_settings(neo4j_source: Neo4jSource) -> Neo4jSettings:
    return neo4j_source.settings


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_settings: Neo4jSettings) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_settings.uri, auth=neo4j_settings.auth()) as driver:
        problem = ""
        try:
            driver.verify_connectivity()
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            unavailable(f"Neo4j at {neo4j_settings.uri} does not answer: {problem}")
        yield driver


@pytest.fixture
def neo4j_env(neo4j_settings) -> dict[str, str]:
    """The environment that points a CLI command at the test server."""
    password = neo4j_settings.password
    secret = password.get_secret_value() if hasattr(password, "get_secret_value") else (password or "")
    return {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user or "neo4j", "NEO4J_PASSWORD": secret}


@pytest.fixture(scope="session")
def neo4j_jars() -> Path:
    """The lib folder of the jars ``catalog neo4j start`` runs, installed here when missing (by
    the code that command installs them with: Maven Central, once per machine)."""
    problem = ""
    try:
        lib = local_neo4j.install()
    except ServerError as exc:
        problem = str(exc)
    if problem:
        unavailable(f"the Neo4j jars of `catalog neo4j start` could not be installed: {problem}")
    return lib


@pytest.fixture(scope="module")
def local_server(neo4j_source: Neo4jSource, neo4j_jars: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[local_neo4j.ServerStatus]:
    """The local server of ``catalog neo4j start``, running with authentication: the session's
    when it is one; else (NEO4J_URI, Docker) one started for the module in a home and on ports of
    its own, the environment pointing ``catalog.local_neo4j`` at it while the module's tests run."""
    if neo4j_source.origin == "local":
        yield local_neo4j.status()
        return
    with pytest.MonkeyPatch.context() as env:
        own_local_server_env(env, tmp_path_factory.mktemp("neo4j_local"), neo4j_jars)
        problem = ""
        try:
            server = start_local_server(timeout=300)
        except ServerError as exc:
            problem = str(exc)
        if problem:
            unavailable(f"a local Neo4j of the tests' own did not start: {problem}")
        try:
            yield server
        finally:
            local_neo4j.stop()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``shared`` directory next to the repository (corpus and tools)."""
    path = Path(__file__).resolve().parents[1].parent / "shared"
    if not path.is_dir():
        unavailable(f"shared directory {path} is missing")
    return path


# --------------------------------------------------------------------------- builds in a real Neo4j
# A Graph and builds under unique project names, for the tests of every folder that store
# something (tests/builds, tests/check, tests/query, ...).
REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "coffee_shop"


@pytest.fixture(scope="session")
def graph(neo4j_driver, neo4j_settings) -> Graph:
    g = Graph(neo4j_driver, neo4j_settings.database)
    g.ensure_schema()
    return g


@pytest.fixture
def project_name(graph: Graph) -> Iterator[str]:
    """Each test stores its builds under a project name of its own (nothing shared is wiped),
    and forgets that project and any named after it afterwards."""
    name = f"test_{uuid.uuid4().hex[:10]}"
    yield name
    # consumers (`NAME_finance`) before their producer (`NAME`): forget refuses a producer still read
    for project in sorted((r["name"] for r in graph.read("read/list_projects")), reverse=True):
        if project.startswith(name):
            forget_project(graph, project)


@pytest.fixture
def build(graph: Graph) -> Callable[..., BuildSummary]:
    def run(path: Path, name: str, **kwargs) -> BuildSummary:
        return Builder(graph, path, project_name=name, jobs=1, **kwargs).run()

    return run


@pytest.fixture
def ask(graph: Graph) -> Callable[..., BuildView]:
    def open_catalog(name: str, build_id: int | None = None) -> BuildView:
        return BuildView(graph, name, build_id)

    return open_catalog


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled example's target folder."""
    dst = tmp_path / "target"
    shutil.copytree(EXAMPLE / "target", dst)
    return dst


@pytest.fixture(scope="session")
def example() -> Path:
    """The bundled example's target folder."""
    return EXAMPLE / "target"


@dataclass(frozen=True)
class TwoBuilds:
    """Two builds of the bundled example stored under one project: ``first`` of ``first_target``
    (the example with the saved query ``daily_revenue`` over the metric revenue), then the active
    ``second`` of ``second_target``, where customers hashes its email (``md5(customers.email)``)."""

    project: str
    first: int
    second: int
    first_target: Path
    second_target: Path


@pytest.fixture(scope="module")
def coffee_shop_builds(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoBuilds]:
    """:class:`TwoBuilds`, made once for the module that reads them (and forgotten after it)."""
    from edits import add_saved_query, hash_customer_email

    root = tmp_path_factory.mktemp("coffee_shop_builds")
    first_target, second_target = root / "first", root / "second"
    shutil.copytree(EXAMPLE / "target", first_target)
    add_saved_query(first_target, "daily_revenue", ["revenue"])
    shutil.copytree(first_target, second_target)
    hash_customer_email(second_target)
    name = f"test_{uuid.uuid4().hex[:10]}"
    try:
        first = Builder(graph, first_target, project_name=name, jobs=1).run().build_id
        second = Builder(graph, second_target, project_name=name, jobs=1).run().build_id
        yield TwoBuilds(name, first, second, first_target, second_target)
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)


@pytest.fixture(scope="session")
def benchmark_module() -> Callable[[str], ModuleType]:
    """Loads a script of benchmarks/ (hub_project, bulk_import) as a module, by name."""

    def load(name: str) -> ModuleType:
        if name not in sys.modules:
            sys.path.insert(0, str(REPO / "benchmarks"))  # for the imports between its scripts
            spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # a dataclass looks its module up
            spec.loader.exec_module(module)
        return sys.modules[name]

    return load
