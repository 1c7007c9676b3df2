"""Where the tools read from: builds stored in Neo4j (:class:`Stored`) or one dbt target
analyzed in memory (:class:`InMemory`).

The stored side connects on the first question and again after Neo4j was unreachable, so a
server started before Neo4j, or one whose Neo4j restarted, answers once Neo4j is back; each
failure is the CLI's one-line error. A question about one node or column, or a search, reads
only what it is about (:class:`~catalog.mcp.questions.BuildQuestions`); the names of a build's
nodes, and a build's whole view (:meth:`Stored.view`, for `catalog lsp`), are read once per
project and build and kept: a build never changes once it is finished.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.errors import CatalogError, StoreError

if TYPE_CHECKING:
    from catalog.analyze.packed import Packed
    from catalog.export.openlineage import ExportInput
    from catalog.extract import DbtProject
    from catalog.mcp.questions import BuildQuestions
    from catalog.mcp.view import Node, ProjectView, SearchIndex
    from catalog.query import BuildView, ColumnId
    from catalog.settings import Neo4jSettings
    from catalog.store.graph import Graph


class NotInMemory(CatalogError):
    """A tool that needs the builds stored in Neo4j, asked of ``catalog mcp PATH``."""


class Stored:
    """The builds in one Neo4j database; ``project`` and ``build`` are the defaults of every tool."""

    stored = True

    def __init__(
        self, settings: Neo4jSettings, project: str | None = None, build: int | None = None, jobs: int | None = None,
        whole_build_timeout: float | None = None,
    ):  # fmt: skip
        """``whole_build_timeout``: seconds the reads of a whole build's records may take (they
        grow with the project; None: no limit), as `catalog explore` reads them."""
        self.settings = settings
        self.whole_build_timeout = whole_build_timeout
        self.jobs = jobs  # processes for the analyses of check_change
        self.project = project
        self.build = build
        self._driver_stack: contextlib.ExitStack | None = None
        self._graph: Graph | None = None
        self._views: dict[tuple[str, int], ProjectView] = {}
        self._questions: dict[tuple[str, int], BuildQuestions] = {}
        self._lock = threading.Lock()
        self._view_lock = threading.Lock()

    def graph(self) -> Graph:
        with self._lock:
            if self._graph is None:
                from catalog.store.connection import open_driver
                from catalog.store.graph import Graph

                stack = contextlib.ExitStack()
                driver = stack.enter_context(open_driver(self.settings))
                self._driver_stack = stack
                self._graph = Graph(driver, self.settings.database, timeout=self.settings.timeout, uri=self.settings.uri)
            return self._graph

    def lost(self, error: BaseException) -> None:
        """After Neo4j failed to answer: connect afresh on the next question."""
        if isinstance(error, StoreError) and not str(error).startswith("Neo4j refused"):
            self.close()

    def close(self) -> None:
        with self._lock:
            if self._driver_stack is not None:
                with contextlib.suppress(Exception):
                    self._driver_stack.close()
            self._driver_stack = None
            self._graph = None
            self._questions = {}  # they read through the graph that was closed

    def catalog(self, project: str | None, build: int | None) -> BuildView:
        from catalog.query import BuildView

        return BuildView(self.graph(), project or self.project, build if build is not None else self.build)

    def whole_build(self, project: str | None, build: int | None) -> BuildView:
        """:meth:`catalog`, for the reads of a whole build (``whole_build_timeout``)."""
        from catalog.query import BuildView
        from catalog.store.graph import Graph

        catalog = self.catalog(project, build)
        g = catalog.graph
        return BuildView(Graph(g.driver, g.database, timeout=self.whole_build_timeout, uri=g.uri), catalog.project, catalog.build_id)

    def view(self, project: str | None, build: int | None) -> ProjectView:
        catalog = self.catalog(project, build)
        key = (catalog.project, catalog.build_id)
        with self._view_lock:  # one read of a build's records, however many ask at once
            if key not in self._views:
                from catalog.export.stored import stored_export_input
                from catalog.mcp.view import ProjectView

                self._views[key] = ProjectView(stored_export_input(self.whole_build(*key), consumers=True, tests=True))
            return self._views[key]

    def questions(self, project: str | None, build: int | None) -> BuildQuestions:
        """The per-question reads of a build (kept, with the names of its nodes once read)."""
        from catalog.mcp.questions import BuildQuestions

        catalog = self.catalog(project, build)
        with self._lock:
            return self._questions.setdefault((catalog.project, catalog.build_id), BuildQuestions(catalog))

    def node(self, project: str | None, build: int | None, name: str) -> tuple[ProjectView, Node]:
        """The node ``name`` names and a view that holds what the `model` tool says of it."""
        return self.questions(project, build).node(name)

    def column(self, project: str | None, build: int | None, name: str, direction: str, depth: int | None,
               conditions: bool) -> tuple[ProjectView, ColumnId]:  # fmt: skip
        """The column ``name`` names and a view that holds its lineage (`column_lineage`)."""
        return self.questions(project, build).column(name, direction, depth, conditions)

    def search_index(self, project: str | None, build: int | None, query: str, kinds: list[str] | None, upto: int) -> SearchIndex:
        """An index of the build's names that ranks the first ``upto`` of ``query``'s matches
        as the whole build's does, and counts the others."""
        return self.questions(project, build).search_index(query, kinds, upto)

    def asker(self, project: str | None, build: int | None) -> BuildView:
        return self.catalog(project, build)

    def prepare(self) -> None:
        """Load the code the questions run, so that the first question does not wait for it
        (no build is read: each question reads what it is about)."""
        import catalog.mcp.questions  # noqa: F401

    def unreachable(self) -> str:
        """Why Neo4j does not answer now (empty: it does), asked once at start."""
        try:
            self.graph().read("read/list_projects")
        except StoreError as e:
            self.lost(e)
            return str(e)
        return ""

    def check_defaults(self) -> None:
        """NotFound unless the default project (and build) are in the graph."""
        if self.project is not None:
            self.project_name(None)
            self.catalog(None, None)

    def project_name(self, project: str | None) -> str:
        """The project the builds and diff tools read: the one given, else the only one."""
        from catalog.history import check_project
        from catalog.query import BuildView

        name = project or self.project
        return check_project(self.graph(), name) if name is not None else BuildView(self.graph()).project


def analyzed_input(path: Path, dialect: str | None = None, jobs: int | None = None, packed: list[Packed] | None = None) -> ExportInput:
    """The records of the dbt target at ``path`` and their analysis, as a view reads them;
    ``packed``: :func:`analyzed_lineages` of ``path``, when another process analyzed it."""
    from catalog.analyze.project import analyze_project, unpacked
    from catalog.export.openlineage import export_input

    loaded = _loaded(path, dialect)
    lineages = unpacked(packed) if packed is not None else analyze_project(loaded, jobs=jobs)
    return export_input(loaded, lineages, consumers=True, tests=True)


def analyzed_lineages(path: Path, dialect: str | None = None, jobs: int | None = None) -> list[Packed]:
    """The analysis of the dbt target at ``path`` in the plain tuples of
    :mod:`catalog.analyze.packed`: what a process hands back to another. Pickled, the records
    of a whole project are about five times larger and ten times slower to send and read
    (98 MB and 18 s at 5,000 models, against 21 MB and under 2 s)."""
    from catalog.analyze.project import analyze_project_packed

    return list(analyze_project_packed(_loaded(path, dialect), jobs=jobs))


def _loaded(path: Path, dialect: str | None) -> DbtProject:
    from catalog.bi.sources import with_bi
    from catalog.extract import load_project

    return with_bi(load_project(path, dialect=dialect), path)


class InMemory:
    """One dbt target, analyzed when the server starts: no builds, no graph."""

    stored = False

    def __init__(self, path: Path, dialect: str | None = None, jobs: int | None = None, data: ExportInput | None = None):
        """``data``: :func:`analyzed_input` of ``path`` when it was already made (elsewhere)."""
        from catalog.mcp.view import ProjectView

        self.path = path
        self.jobs = jobs
        self._view = ProjectView(data if data is not None else analyzed_input(path, dialect, jobs))

    def view(self, project: str | None, build: int | None) -> ProjectView:
        if build is not None:
            raise NotInMemory(f"build {build}: this server answers from {self.path} in memory, which has no builds")
        if project is not None and project != self._view.project:
            raise NotInMemory(f"project {project!r}: this server answers from {self.path}, project {self._view.project!r}")
        return self._view

    def asker(self, project: str | None, build: int | None) -> ProjectView:
        return self.view(project, build)

    def node(self, project: str | None, build: int | None, name: str) -> tuple[ProjectView, Node]:
        view = self.view(project, build)
        return view, view.resolve_node(name)

    def column(self, project: str | None, build: int | None, name: str, direction: str, depth: int | None,
               conditions: bool) -> tuple[ProjectView, ColumnId]:  # fmt: skip
        view = self.view(project, build)
        return view, view.resolve(name)

    def search_index(self, project: str | None, build: int | None, query: str, kinds: list[str] | None, upto: int) -> SearchIndex:
        return self.view(project, build).search_index()

    def graph(self) -> Any:
        raise NotInMemory(f"this server answers from {self.path} in memory, without Neo4j: start `catalog mcp` without PATH for stored builds")

    def lost(self, error: BaseException) -> None:
        pass

    def close(self) -> None:
        pass
