"""Questions about one stored build that read only what they are about: a node's card, the
lineage around a column, a search's candidates.

Each answer is the one :class:`~catalog.mcp.view.ProjectView` gives over the whole build, made
by the same code over a part of it: the view of the few nodes a question needs (their records
and lineage, every consumer, the tests of their columns), read with ``list_build_records`` and
``list_build_model_lineage`` given those nodes, or a search index of the names that can match.
What the whole build is needed for (finding a node by name, suggesting close names, choosing a
search's candidates) reads the build's node names and the project's column names alone, once
per build.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from catalog.analyze.records import column_key
from catalog.export.openlineage import ConsumerNode, consumer_nodes, export_input
from catalog.store.records import load_build_lineages
from catalog.extract import DbtNode
from catalog.mcp.view import NESTED_MAX, SEARCH_KINDS, Node, ProjectView, SearchIndex, _plain, columns_to_read, find_node
from catalog.query import BuildView, ColumnId
from catalog.store.records import load_build_project


class BuildQuestions:
    """The per-question reads of the build ``catalog`` reads (its project and build)."""

    def __init__(self, catalog: BuildView):
        self.catalog = catalog
        self.graph, self.project, self.build_id = catalog.graph, catalog.project, catalog.build_id
        self._build: dict[str, Any] | None = None
        self._consumer_nodes: dict[str, ConsumerNode] | None = None
        self._nodes: list[tuple[str, str, str]] | None = None
        self._column_names: list[str] | None = None
        self._known_rows: list[dict[str, Any]] | None = None

    def build(self) -> dict[str, Any]:
        if self._build is None:
            self._build = self.graph.read("read/find_build", project=self.project, build_id=self.build_id)[0]["build"]
        return self._build

    def part(self, unique_ids: set[str], analyzed: set[str] | None = None, columns: set[str] | None = None) -> ProjectView:
        """The view of the dbt nodes ``unique_ids`` with every consumer of the build: what it
        says of those nodes and of the columns between them is what the whole build's says.
        With ``analyzed``, only those nodes have their columns and analysis; the others are
        there by name (a node's parents and children). With ``columns`` (column keys), the
        nodes have those columns only (the lineage around a column)."""
        uids = sorted(unique_ids)
        project = load_build_project(self.graph, self.project, self.build(), unique_ids=uids)
        if analyzed is not None or columns is not None:
            project = project.model_copy(update={"nodes": {uid: self._some_columns(n, analyzed, columns, project.dialect) for uid, n in project.nodes.items()}})
        lineages = load_build_lineages(self.graph, self.project, self.build_id, unique_ids=uids if analyzed is None else sorted(analyzed), columns=columns)
        return ProjectView(export_input(project, lineages, consumers=True, build_id=self.build_id, tests=True))

    @staticmethod
    def _some_columns(node: DbtNode, analyzed: set[str] | None, columns: set[str] | None, dialect: str) -> DbtNode:
        if analyzed is not None and node.unique_id not in analyzed:
            return node.model_copy(update={"columns": ()})
        if columns is not None:
            return node.model_copy(update={"columns": tuple(c for c in node.columns if column_key(node.unique_id, c.key_name(dialect)) in columns)})
        return node

    def nodes(self) -> list[tuple[str, str, str]]:
        """Every node of the build as (kind, name, unique id): its dbt nodes, then its consumers."""
        if self._nodes is None:
            rows = self.graph.read("read/list_build_nodes", project=self.project, build_id=self.build_id)
            self._nodes = [(r["resource_type"], r["name"], r["unique_id"]) for r in rows]
            self._nodes += [(c.kind, c.name, uid) for uid, c in sorted(self.consumers().items())]
        return self._nodes

    def consumers(self) -> dict[str, ConsumerNode]:
        """The build's semantic models, metrics, exposures, saved queries and BI nodes, with what each reads."""
        if self._consumer_nodes is None:
            records = load_build_project(self.graph, self.project, self.build(), unique_ids=[])  # no dbt node's
            self._consumer_nodes = consumer_nodes(records)
        return self._consumer_nodes

    # ------------------------------------------------------------------ questions
    def node(self, text: str) -> tuple[ProjectView, Node]:
        """The node ``text`` names, in the view of it, its parents and its children."""
        uid = find_node(self.nodes(), text, self.project)
        consumer = self.consumers().get(uid)
        if consumer is not None:  # what it reads (a semantic model: its model, whose columns it takes)
            near = reading = set(consumer.depends_on)
        else:  # its parents and children; of their analysis only the SQL that names a source's columns
            rows = self.graph.read("read/find_model_neighbours", project=self.project, keys=[f"{self.project}/{uid}"], build_id=self.build_id)
            near = {r["unique_id"] for r in rows}
            reading = near if uid.split(".", 1)[0] in ("source", "seed") else set()
        view = self.part(near | {uid}, reading | {uid})
        return view, view.nodes[uid]

    def column(self, text: str, direction: str, depth: int | None, conditions: bool) -> tuple[ProjectView, ColumnId]:
        """The column ``text`` names, in the view of every model its lineage reaches within
        ``depth`` on the ``direction`` side (and, with ``conditions``, of the models whose
        conditions read those columns): read with the walks of `catalog impact` and `trace`."""
        start = self.catalog.resolve(text)
        reached = {(start.key, start.unique_id)}
        if direction in ("downstream", "both"):
            reached |= {(c[0], c[1]) for c in self.catalog.impact_subgraph([start], depth) if c[6] is None}  # not a foreign column
        if direction in ("upstream", "both"):
            rows = self.graph.read_values("read/find_root_cause_subgraph", project=self.project, keys=[start.key], build_id=self.build_id,
                                          builds=self.catalog.builds, max_depth=depth)  # fmt: skip
            reached |= {(n[0], n[1]) for n in (rows[0][0] if rows else []) if n[6] and n[5] == self.project}
        uids = {uid for _, uid in reached}
        if conditions:  # the models whose conditions read them
            rows = self.graph.read("read/find_conditioned_models", project=self.project, column_keys=sorted(k for k, _ in reached),
                                   build_id=self.build_id, builds=self.catalog.builds)  # fmt: skip
            uids |= {r["unique_id"] for r in rows if r["model_key"] == f"{self.project}/{r['unique_id']}"}
        view = self.part(uids, columns={k.split("/", 1)[1] for k, _ in reached})
        found = view.columns.get(start.key)
        return view, found.id if found is not None else view.resolve(text)

    def search_index(self, query: str, kinds: list[str] | None, upto: int) -> SearchIndex:
        """An index that ranks the first ``upto`` matches of ``query`` as the whole build's
        index does, and counts the others (:attr:`SearchIndex.unread`): every node, and of the
        columns whose label holds its letters in order, the first ``upto``, ranked and counted
        in Neo4j (``find_search_page``, of the nodes and names that can hold them:
        :func:`~catalog.mcp.view.columns_to_read`; with the source columns only the SQL names).
        What comes back is bounded by the page, not by the matches; the columns are read in
        :data:`READS_AT_ONCE` parts at once, each part's first ``upto`` (together they hold the
        first ``upto`` of all). A query too long to be matched by parts reads every candidate
        (``find_search_candidates``)."""
        q = _plain(query.strip())
        if not q or "column" not in (kinds or SEARCH_KINDS):
            return SearchIndex(self.project, self.build_id, self.nodes(), [])
        if len(q) > NESTED_MAX:  # too long to be matched by parts: the labels in Neo4j
            with ThreadPoolExecutor(max_workers=1) as pool:
                known = pool.submit(self.known_from_sql_rows)
                rows = self.graph.read("read/find_search_candidates", project=self.project, build_id=self.build_id, pattern=in_order(q))
                columns = [(r["key"], r["unique_id"], r["model"], r["name"]) for r in rows] + self.known_from_sql(known.result())
            return SearchIndex(self.project, self.build_id, self.nodes(), columns)
        with ThreadPoolExecutor(max_workers=READS_AT_ONCE) as pool:
            names = pool.submit(self.column_names)
            dbt_nodes = [(kind, uid, name) for kind, name, uid in self.nodes() if uid not in self.consumers()]
            model = {uid: name for _, uid, name in dbt_nodes}
            asks = columns_to_read(q, list(model.items()), names.result())
            sources = {uid for kind, uid, _ in dbt_nodes if kind in ("source", "seed")}  # their columns only the SQL names too
            for ask in asks:
                ask["sources"] = {uid: True for uid in ask["nodes"] if uid in sources}
            parts = {uid: label_forms(_plain(model[uid]) + ".") for ask in asks for uid in ask["nodes"]}  # each node's part of its labels
            unusual = {n: label_forms(_plain(n)) for n in names.result() if not n.isascii() or "\x00" in n}
            pages = [pool.submit(self.graph.read_values, "read/find_search_page", project=self.project, build_id=self.build_id, asks=some,
                                 parts=parts, unusual=unusual, q=q, upto=min(upto, MOST_ROWS)) for some in dealt(asks, READS_AT_ONCE)]  # fmt: skip
            total, columns = 0, []
            for found in pages:  # each part's first labels: together, they hold the first columns of all
                part_total, rows = found.result()[0]
                total += part_total
                columns += [(key, uid, model[uid], name) for *_, same in rows for key, uid, name in same]
        return SearchIndex(self.project, self.build_id, self.nodes(), columns, matching=q, unread=total - len(columns))

    def column_names(self) -> list[str]:
        """Every name of the project's columns (of this build and perhaps of others)."""
        if self._column_names is None:
            self._column_names = self.graph.read_values("read/list_project_column_names", project=self.project)[0][0]
        return self._column_names

    def known_from_sql_rows(self) -> list[dict[str, Any]]:
        """The rows of ``list_columns_known_from_sql`` (read once)."""
        if self._known_rows is None:
            self._known_rows = self.graph.read("read/list_columns_known_from_sql", project=self.project, build_id=self.build_id)
        return self._known_rows

    def known_from_sql(self, rows: list[dict[str, Any]] | None = None) -> list[tuple[str, str, str, str]]:
        """The build's source and seed columns that only the SQL reading them names, as
        :class:`SearchIndex` takes columns (``rows``: :meth:`known_from_sql_rows`)."""
        names = {uid: name for _, name, uid in self.nodes()}
        return [(r["key"], r["unique_id"], names[r["unique_id"]], r["name"]) for r in (self.known_from_sql_rows() if rows is None else rows)]


MOST_ROWS = 2**62  # a LIMIT Neo4j takes, more than any build's columns
READS_AT_ONCE = 2  # a search's columns are read in parts at once: Neo4j runs each query on one core


def dealt(asks: list[dict[str, Any]], n: int) -> list[list[dict[str, Any]]]:
    """``asks`` (:func:`~catalog.mcp.view.columns_to_read`, with their ``sources``) dealt in
    ``n`` parts that read each column once, in turn: the names of an ask that starts from its
    names, else its nodes, and its sources."""
    out: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    for ask in asks:
        dealing = "names" if ask["by_name"] else "nodes"
        keys, sources = list(ask[dealing]), list(ask["sources"])
        for i in range(n):
            out[i].append({**ask, dealing: dict.fromkeys(keys[i::n], True), "sources": dict.fromkeys(sources[i::n], True)})
    return out


def label_forms(label: str) -> list[str]:
    """``label`` and the text Neo4j orders as Python orders ``label``. Neo4j compares strings by
    their UTF-16 code units, Python by code points: the two differ where a character from
    U+10000 on meets one from U+E000 to U+FFFF. Each character from U+D800 on becomes two of
    the private use area from U+E000 on, its code point's high bits and its 10 low bits: after
    every character below U+D800 and in the order of their code points."""
    if label.isascii() or max(label) < "\ud800":
        return [label, label]
    return [label, "".join(c if c < "\ud800" else chr(0xE000 + (ord(c) >> 10)) + chr(0xE000 + (ord(c) & 0x3FF)) for c in label)]


def in_order(q: str) -> str:
    """A regular expression (Java's, as Neo4j's ``=~`` takes it) that a whole text matches when
    it holds the letters of ``q`` in order, in any case: each letter after a run of others (no
    backtracking)."""
    letters = [c if c.isascii() and c.isalnum() else f"\\x{{{ord(c):x}}}" for c in q]
    return "(?isu)" + "".join(f"[^{c}]*{c}" for c in letters) + ".*"
