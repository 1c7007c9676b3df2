"""The projects the language server's tests open: jaffle-shop, dbt-project-evaluator and the
bundled example laid out as dbt project folders, each answered in memory (``--memory``) or
from a build stored in Neo4j under a project name of its own (``--project NAME``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from projects import EXAMPLE, opened


def _opened(request: pytest.FixtureRequest, corpus: Path, folder: Path) -> Iterator:
    """In memory or stored, as the fixture's parameter says (stored: the session's Neo4j)."""
    stored = request.param == "stored"
    graph = request.getfixturevalue("graph") if stored else None
    settings = request.getfixturevalue("neo4j_settings") if stored else None
    yield from opened(corpus, folder, graph, settings)


@pytest.fixture(scope="module", params=["memory", "stored"])
def jaffle(request: pytest.FixtureRequest, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    yield from _opened(request, shared_dir / "corpus" / "jaffle-shop", tmp_path_factory.mktemp("jaffle") / "jaffle_shop")


@pytest.fixture(scope="module", params=["memory", "stored"])
def coffee_shop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """The bundled example (its folder already holds the models' files; laid out afresh all the same)."""
    yield from _opened(request, EXAMPLE, tmp_path_factory.mktemp("coffee_shop") / "coffee_shop")


@pytest.fixture(scope="module", params=["memory", "stored"])
def evaluator(request: pytest.FixtureRequest, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    yield from _opened(request, shared_dir / "corpus" / "dbt-project-evaluator", tmp_path_factory.mktemp("evaluator") / "integration_tests")
