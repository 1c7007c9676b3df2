"""The projects the language server's tests open: jaffle-shop and dbt-project-evaluator laid out
as dbt project folders, each answered in memory (``--memory``) or from a build stored in Neo4j
under a project name of its own (``--project NAME``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from catalog.build import Builder
from catalog.history import forget_project
from projects import lay_out


@dataclass
class Opened:
    """A project folder and how `catalog lsp` is started on it."""

    root: Path
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    origin: str = ""  # the hover's last line: where the answers come from

    @property
    def stored(self) -> bool:
        return "--memory" not in self.args


def _env(settings) -> dict[str, str]:
    password = settings.password
    secret = password.get_secret_value() if hasattr(password, "get_secret_value") else (password or "")
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user or "neo4j", "NEO4J_PASSWORD": secret}


def _opened(request: pytest.FixtureRequest, corpus: Path, folder: Path) -> Iterator[Opened]:
    root = lay_out(corpus / "target", folder)
    if request.param == "memory":
        yield Opened(root, ("--memory",), origin=f"_From {root / 'target' / 'manifest.json'} (in memory)._")
        return
    graph = request.getfixturevalue("graph")
    name = f"test_{uuid.uuid4().hex[:10]}"
    try:
        build_id = Builder(graph, root / "target", project_name=name, jobs=1).run().build_id
        yield Opened(root, ("--project", name), _env(request.getfixturevalue("neo4j_settings")), f"_From build {build_id} of {name!r} in Neo4j._")
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)


@pytest.fixture(scope="module", params=["memory", "stored"])
def jaffle(request: pytest.FixtureRequest, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Opened]:
    yield from _opened(request, shared_dir / "corpus" / "jaffle-shop", tmp_path_factory.mktemp("jaffle") / "jaffle_shop")


@pytest.fixture(scope="module", params=["memory", "stored"])
def evaluator(request: pytest.FixtureRequest, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Opened]:
    yield from _opened(request, shared_dir / "corpus" / "dbt-project-evaluator", tmp_path_factory.mktemp("evaluator") / "integration_tests")
