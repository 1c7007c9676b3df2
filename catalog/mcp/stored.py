"""Where the tools read from: builds stored in Neo4j (:class:`Stored`) or one dbt target
analyzed in memory (:class:`InMemory`).

The stored side connects on the first question and again after Neo4j was unreachable, so a
server started before Neo4j, or one whose Neo4j restarted, answers once Neo4j is back; each
failure is the CLI's one-line error. The records of a build are read once per project and
build and kept: a build never changes once it is finished.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.errors import CatalogError, StoreError

if TYPE_CHECKING:
    from catalog.export.openlineage import ExportInput
    from catalog.mcp.view import ProjectView, SearchIndex
    from catalog.query import BuildView
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
        self._search: dict[tuple[str, int], SearchIndex] = {}
        self._lock = threading.Lock()
        self._view_lock = threading.Lock()
        self._search_lock = threading.Lock()

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

    def search_index(self, project: str | None, build: int | None) -> SearchIndex:
        """The names of a build, from its view when it was read, else from its records and the
        names of its models' analyzed columns alone (kept: a search does not wait for the rest)."""
        catalog = self.catalog(project, build)
        key = (catalog.project, catalog.build_id)
        if key in self._views:
            return self._views[key].search_index()
        with self._search_lock:
            if key not in self._search:
                self._search[key] = _stored_search_index(catalog, self.whole_build_timeout)
            return self._search[key]

    def asker(self, project: str | None, build: int | None) -> BuildView:
        return self.catalog(project, build)

    def warm(self) -> None:
        """Read the default build's records in the background, so that the first search, model
        or column_lineage does not wait for them (a failure is told by the first question)."""

        def read() -> None:
            with contextlib.suppress(Exception):
                self.search_index(None, None)
                self.view(None, None)

        threading.Thread(target=read, name="catalog-mcp-warm", daemon=True).start()

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


def _stored_search_index(catalog: BuildView, timeout: float | None) -> SearchIndex:
    """:meth:`ProjectView.search_index` of a stored build, from the build's records and
    `read/list_analyzed_column_names`: each node's columns are the analysis's when it has any,
    else those its record declares, and a source's columns only the SQL reading it names
    (`read/list_columns_known_from_sql`), as :class:`~catalog.mcp.view.ProjectView` takes them."""
    from catalog.analyze.records import column_key
    from catalog.export.openlineage import consumer_nodes
    from catalog.idents import typed
    from catalog.mcp.view import SearchIndex
    from catalog.store.graph import Graph
    from catalog.store.records import load_build_project

    g = catalog.graph
    graph = Graph(g.driver, g.database, timeout=timeout, uri=g.uri)
    name, build_id = catalog.project, catalog.build_id
    project = load_build_project(graph, name, graph.read("read/find_build", project=name, build_id=build_id)[0]["build"])
    analyzed = {r["unique_id"]: list(dict.fromkeys(r["columns"])) for r in graph.read("read/list_analyzed_column_names", project=name, build_id=build_id)}
    nodes, columns = [], []
    for uid in sorted(project.nodes):
        rel = project.nodes[uid]
        nodes.append((rel.resource_type, rel.display_name, uid))
        for col in analyzed.get(uid) or dict.fromkeys(c.key_name(project.dialect) for c in rel.columns):
            columns.append((f"{name}/{column_key(uid, col)}", uid, rel.display_name, typed(col)))
    for r in graph.read("read/list_columns_known_from_sql", project=name, build_id=build_id):  # as the view adds them
        columns.append((r["key"], r["unique_id"], project.nodes[r["unique_id"]].display_name, r["name"]))
    nodes += [(con.kind, con.name, uid) for uid, con in sorted(consumer_nodes(project).items())]
    return SearchIndex(name, build_id, nodes, columns)


def analyzed_input(path: Path, dialect: str | None = None, jobs: int | None = None) -> ExportInput:
    """The records of the dbt target at ``path`` and their analysis, as a view reads them."""
    from catalog.analyze.project import analyze_project
    from catalog.bi.sources import with_bi
    from catalog.export.openlineage import export_input
    from catalog.extract import load_project

    loaded = with_bi(load_project(path, dialect=dialect), path)
    return export_input(loaded, analyze_project(loaded, jobs=jobs), consumers=True, tests=True)


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

    def search_index(self, project: str | None, build: int | None) -> SearchIndex:
        return self.view(project, build).search_index()

    def graph(self) -> Any:
        raise NotInMemory(f"this server answers from {self.path} in memory, without Neo4j: start `catalog mcp` without PATH for stored builds")

    def lost(self, error: BaseException) -> None:
        pass

    def close(self) -> None:
        pass
