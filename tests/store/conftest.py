"""Fixtures for tests against a real Neo4j: a Graph and builds under unique project names."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import uuid
from pathlib import Path
from collections.abc import Iterator
from types import ModuleType
from typing import Callable

import pytest

from catalog.build import Builder, BuildSummary
from catalog.history import forget_project
from catalog.query import Catalog
from catalog.store.graph import Graph

REPO = Path(__file__).resolve().parents[2]
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
    for row in graph.read("read/list_projects"):
        if row["name"].startswith(name):
            forget_project(graph, row["name"])


@pytest.fixture
def build(graph: Graph) -> Callable[..., BuildSummary]:
    def run(path: Path, name: str, **kwargs) -> BuildSummary:
        return Builder(graph, path, project_name=name, jobs=1, **kwargs).run()

    return run


@pytest.fixture
def ask(graph: Graph) -> Callable[..., Catalog]:
    def open_catalog(name: str, build_id: int | None = None) -> Catalog:
        return Catalog(graph, name, build_id)

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
