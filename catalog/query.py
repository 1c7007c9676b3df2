"""The questions users ask of a stored build: impact, root cause, condition lineage.

Takes a :class:`~catalog.store.graph.Graph`, returns typed records; printing is the job of
``catalog.report``. Column names typed by users are resolved here (case-insensitively,
with suggestions for typos), never spliced into Cypher.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from catalog.errors import Ambiguous, NotFound
from catalog.lineage.names import Candidate, NamesByModel, Pairs, require_splits, resolve_column
from catalog.walks import COPY_TYPES, FEED_TYPES, HopRanks, closest, impact, shortest_paths, tainted
from catalog.memory import paused_gc
from catalog.store.graph import Graph
from catalog.store.keys import column_node_key, quote_column

SAFE_TYPES = COPY_TYPES
FEED_RANKS = HopRanks(FEED_TYPES)  # the types of FEEDS edges


# The answer's records are slotted dataclasses, not pydantic models: an impact of a hub column
# makes tens of thousands of them (a pydantic model took three times as long to make each).
# Treat them as immutable; they are hashable.
@dataclass(slots=True, unsafe_hash=True)
class ColumnId:
    key: str  # node key: <project>/<unique_id>.<column>
    unique_id: str
    model: str  # display name: orders, or shop.orders for a source
    name: str
    project: str | None = None  # the stored project it belongs to, when not the asked one (dbt Mesh)

    @property
    def label(self) -> str:
        """``orders.amount``; ``finance:customer_revenue.email`` for another project's column."""
        return f"{self.project + ':' if self.project else ''}{self.model}.{self.name}"


@dataclass(slots=True, unsafe_hash=True)
class Hop:
    from_key: str
    to_key: str
    type: str
    expr: str | None
    resolved: bool | None


@dataclass(slots=True, unsafe_hash=True)
class Reached:
    """A column found downstream (impact) or upstream (root cause) of the asked ones."""

    column: ColumnId
    depth: int
    hops: tuple[Hop, ...]  # one shortest path, in data-flow order
    via: str  # the asked column this path starts or ends at
    resource_type: str | None = None
    safe_on_every_path: bool | None = None  # impact: no path from the asked columns computes

    @property
    def safe(self) -> bool:
        """Every path only passes the value through or renames it: safe to rename along."""
        if self.safe_on_every_path is not None:
            return self.safe_on_every_path
        return all(h.type in SAFE_TYPES for h in self.hops)

    @property
    def effect(self) -> str:
        return "passthrough" if self.safe else "needs review"


@dataclass(slots=True, unsafe_hash=True)
class ConditionUse:
    column: str  # column key
    model_key: str
    unique_id: str
    model: str
    clause: str


@dataclass(slots=True, unsafe_hash=True)
class ConsumerHit:
    """A metric, exposure, saved query, BI field, chart or dashboard downstream of the asked columns."""

    key: str
    unique_id: str
    name: str
    kind: str  # metric, exposure, saved_query
    depth: int
    via: str  # the asked column the path starts at
    hops: tuple[Hop, ...]
    precision: str | None = None  # an exposure's: column (it lists the columns it reads) or model
    project: str | None = None  # the stored project it belongs to, when not the asked one (dbt Mesh)
    owner: str | None = None  # an exposure's owner (name or email)
    # a BI field's, chart's or dashboard's (catalog.bi): its tool, the tool's own id, where it is written;
    # a field's status (resolved, unresolved) and reason
    tool: str | None = None
    tool_id: str | None = None
    file: str | None = None
    line: int | None = None
    status: str | None = None
    reason: str | None = None


CONSUMER_KINDS = ("metric", "exposure", "saved_query")
BI_KINDS = ("bi_field", "chart", "dashboard")


@dataclass(slots=True)
class Answer:
    project: str
    build_id: int
    asked: tuple[ColumnId, ...]
    columns: tuple[Reached, ...]
    conditions: tuple[ConditionUse, ...] = ()
    consumers: tuple[ConsumerHit, ...] = ()  # impact: metrics, exposures, saved queries hit

    def models(self) -> list[str]:
        seen = {c.column.unique_id: c.column.model for c in self.columns}
        for c in self.conditions:
            seen.setdefault(c.unique_id, c.model)
        return sorted(seen)


class StoredNames:
    """The column names of a stored build as a mistyped name's suggestions read them
    (:class:`catalog.lineage.names.NameReader`): the build's column names and models, packed on
    one node (``read/find_build_names``), then the labels of a few names or models, by model
    form (a model's name or unique id, lower case). A build stored before builds kept their
    names is read as it was: every name of the project's columns and every model of the build."""

    def __init__(self, graph: Graph, project: str, build_id: int):
        self.graph, self.project, self.build_id = graph, project, build_id
        self._ids: dict[str, list[str]] | None = None
        self._forms_of: dict[str, list[str]] | None = None

    def vocabulary(self) -> tuple[list[str], Callable[[], list[str]]]:
        """The model forms, and the column names (without the build's names node, read
        meanwhile: the larger read, in Neo4j while the model forms are read and compared)."""
        packed = self.graph.read_values("read/find_build_names", project=self.project, build_id=self.build_id)
        if packed:
            column_names, unique_ids, model_names = packed[0]
            self._ids = _forms_of_models(zip(unique_ids, model_names))
            return list(self._ids), lambda: column_names
        pool = ThreadPoolExecutor(max_workers=1)
        names = pool.submit(self.graph.read_values, "read/list_project_column_names", project=self.project)
        pool.shutdown(wait=False)  # the one read goes on; nothing more is asked of the pool
        return list(self._unique_ids()), lambda: names.result()[0][0]

    def named(self, names: Collection[str], pairs: Pairs | None = None) -> list[Candidate]:
        rows = self._by_key(pairs)
        if rows is None:
            rows = self.graph.read_values("read/list_column_keys_named", project=self.project, names=sorted(names), **self._pairs(pairs))[0][0]
        return self._forms(rows)

    def of_models(self, models: Collection[str], pairs: Pairs | None = None) -> list[Candidate]:
        rows = self._by_key(pairs)
        if rows is None:
            ids = sorted({uid for form in models for uid in self._unique_ids().get(form, ())})
            rows = self.graph.read_values("read/list_column_keys_of_models", project=self.project, unique_ids=ids, **self._pairs(pairs))[0][0]
        return self._forms(rows)

    def _by_key(self, pairs: Pairs | None) -> list[list[str]] | None:
        """The (unique id, name, key) of the columns ``pairs`` keeps (a column name of its needs,
        in a model whose value is at least that need), looked up by key when there are at most
        :data:`PAIRS_BY_KEY` such pairs; else None: they are read by name or by model, with the
        filter in Neo4j (a few thousand looked up by key cost half the filter's time)."""
        if pairs is None:
            return None
        ranked = sorted(self._pairs(pairs)["values"].items(), key=lambda item: -item[1])
        keys: list[str] = []
        for name, need in pairs.needs.items():
            for uid, value in ranked:
                if value < need:
                    break
                keys.append(column_node_key(self.project, uid, name))
            if len(keys) > PAIRS_BY_KEY:
                return None
        return self.graph.read_values("read/list_column_labels_of_keys", keys=keys)[0][0]

    def _pairs(self, pairs: Pairs | None) -> dict[str, Any]:
        """The parameters $needs and $values of ``pairs``, the values by unique id (of its forms, the most)."""
        if pairs is None:
            return {"needs": None, "values": None}
        values: dict[str, float] = {}
        for form, value in pairs.values.items():
            for uid in self._unique_ids().get(form, ()):
                values[uid] = max(value, values.get(uid, value))
        return {"needs": pairs.needs, "values": values}

    def labels(self, keys: Collection[str]) -> NamesByModel:
        return self._by_form(self.graph.read("read/list_column_names_of_keys", project=self.project, build_id=self.build_id, keys=sorted(keys)))

    def every(self) -> NamesByModel:
        """Every label of the build (what the suggestions are the closest of)."""
        return self._by_form(self.graph.read("read/list_column_names_by_model", project=self.project, build_id=self.build_id))

    def _forms(self, rows: list[list[str]]) -> list[Candidate]:
        """(model form, name, key) of each (unique id, name, key) of a model of the build."""
        if self._forms_of is None:
            self._forms_of = defaultdict(list)  # unique id -> its model's forms
            for form, ids in self._unique_ids().items():
                for uid in ids:
                    self._forms_of[uid].append(form)
        return [(form, name, key) for uid, name, key in rows for form in self._forms_of.get(uid, ())]

    def _unique_ids(self) -> dict[str, list[str]]:
        """The unique ids of the build's models by model form."""
        if self._ids is None:
            rows = self.graph.read("read/list_build_nodes", project=self.project, build_id=self.build_id)
            self._ids = _forms_of_models((r["unique_id"], r["name"]) for r in rows)
        return self._ids

    @staticmethod
    def _by_form(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
        names: dict[str, list[str]] = defaultdict(list)
        for r in rows:
            for model in {r["model"].lower(), r["unique_id"].lower()}:
                names[model] += r["names"]
        return dict(names)


PAIRS_BY_KEY = 10_000  # the most column keys a miss's suggestions look up one by one


def _forms_of_models(models: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """The unique ids of ``models`` (unique id, name) by model form."""
    ids: dict[str, list[str]] = defaultdict(list)
    for unique_id, name in models:
        form, other = name.lower(), unique_id.lower()
        ids[form].append(unique_id)
        if other != form:
            ids[other].append(unique_id)
    return ids


# ---------------------------------------------------------------------------- context
class BuildView:
    """One project of one graph, as of one build (the active one unless given)."""

    def __init__(self, graph: Graph, project: str | None = None, build_id: int | str | None = None):
        """``build_id``: a build id, or a commit (prefix) or time naming one (:func:`catalog.history.build_at`)."""
        self.graph = graph
        self.project = project or self._only_project()
        if isinstance(build_id, str):
            from catalog.history import BuildAt, build_at, named_build

            build_id = build_at(graph, self.project, build_id) if isinstance(build_id, BuildAt) else named_build(graph, self.project, build_id)
        build = self._build(build_id)
        self.build_id: int = build["id"]
        self.dialect: str | None = build.get("dialect")  # how the build's column names compare
        self._columns: list[ColumnId] | None = None
        self._builds: dict[str, int] | None = None
        self._upstream: list[str] = list(build.get("upstream") or [])

    @property
    def builds(self) -> dict[str, int]:
        """The build each project is read as of (dbt Mesh): this one for the asked project, the
        producer builds this build read (``Build.upstream``), the active build of every other
        project (the consumers)."""
        if self._builds is None:
            out = {r["name"]: r["active_build_id"] for r in self.graph.read("read/list_projects") if r["active_build_id"] is not None}
            for entry in self._upstream:
                rows = self.graph.read("read/find_upstream_build", project=None, build_id=int(entry.rsplit("=", 1)[1]))
                if rows:
                    out[rows[0]["project"]] = rows[0]["id"]
            out[self.project] = self.build_id
            self._builds = out
        return self._builds

    def foreign(self, project: str | None) -> str | None:
        """``project`` when it is not the asked one: how answers name another project's column."""
        return project if project and project != self.project else None

    def _only_project(self) -> str:
        projects = [r["name"] for r in self.graph.read("read/list_projects")]
        if not projects:
            raise NotFound("the graph holds no build yet: run `catalog build PATH` first")
        if len(projects) > 1:
            raise NotFound(f"several projects in this database ({', '.join(projects)}): pass --project")
        return projects[0]

    def _build(self, build_id: int | None) -> dict[str, Any]:
        if build_id is None:
            active = self.graph.find_active_build(self.project)
            if active is None:
                raise NotFound(f"project {self.project!r} has no active build: run `catalog build PATH`")
            return active
        rows = self.graph.read("read/find_build", project=self.project, build_id=build_id)
        if not rows:
            raise NotFound(f"project {self.project!r} has no build {build_id} (see `catalog builds`)")
        if rows[0]["build"]["status"] not in ("active", "superseded"):
            raise NotFound(f"build {build_id} is {rows[0]['build']['status']}: only finished builds can be queried")
        return rows[0]["build"]

    # ------------------------------------------------------------------ names
    def columns(self) -> list[ColumnId]:
        if self._columns is None:
            rows = self.graph.read("read/list_columns", project=self.project, build_id=self.build_id)
            # and the source columns only the SQL reading them names, which trace reaches too
            rows += self.graph.read("read/list_columns_known_from_sql", project=self.project, build_id=self.build_id)
            self._columns = [ColumnId(key=r["key"], unique_id=r["unique_id"], model=r["model"], name=r["name"]) for r in rows]
        return self._columns

    def resolve(self, text: str) -> ColumnId:
        """``orders.amount``, ``shop.orders.amount`` (a source), ``model.pkg.orders.amount``, or
        with the column in double quotes, taken exactly: ``orders."a.b"``, ``orders."ID"``.
        A name the build does not hold may name a foreign node's column (dbt Mesh): the
        producer's column in the producer build this build read, named with its project."""
        try:
            return self._resolve_own(text)
        except Ambiguous:
            raise
        except NotFound:
            foreign = self._resolve_foreign(text)
            if foreign is None:
                raise
            return foreign

    def _resolve_foreign(self, text: str) -> ColumnId | None:
        """The column ``text`` names in the producer builds this build read (``Build.upstream``),
        as ``finance``'s manifest names the injected node (``dim_customers``,
        ``model.platform.dim_customers``, also where the producer's unique id differs and the
        build matched the node by relation name); None when none has it, NotFound when several do."""
        read = {int(entry.rsplit("=", 1)[1]) for entry in self._upstream}
        producers = {p: b for p, b in self.builds.items() if p != self.project and b in read}
        if not producers:
            return None
        hits: dict[str, ColumnId] = {}
        # the producer's model the build matched the node to (by unique id or relation name)
        for model, column in require_splits(text, self.dialect):
            rows = self.graph.read(
                "read/find_foreign_columns_named", project=self.project, build_id=self.build_id, model=model, column_name=column, builds=producers
            )
            if rows:
                hits = {r["key"]: ColumnId(**r) for r in rows}
                break
        # a build stored before it recorded that match: the producer's own names
        for project, build_id in [] if hits else sorted(producers.items()):
            for model, column in require_splits(text, self.dialect):
                rows = self.graph.read("read/find_columns_named", project=project, model=model, column_name=column, build_id=build_id)
                if rows:
                    hits |= {r["key"]: ColumnId(**r, project=project) for r in rows}
                    break
        if len(hits) > 1:
            raise Ambiguous(f"{text!r} is ambiguous; name one of: {', '.join(sorted(c.label for c in hits.values()))}")
        return next(iter(hits.values()), None)

    def _resolve_own(self, text: str) -> ColumnId:
        # the graph is asked for the columns of each way of reading the name (indexed); a
        # miss reads the build's column names, and of them the few labels it may suggest
        hits: list[ColumnId] = []
        for model, column in require_splits(text, self.dialect):
            rows = self.graph.read("read/find_columns_named", project=self.project, model=model, column_name=column, build_id=self.build_id)
            if rows:
                hits = [ColumnId(**r) for r in rows]
                break
        with paused_gc():  # a miss compares tens of thousands of names: no cycles among them
            return resolve_column(
                text,
                self.dialect,
                lambda: {},
                key=lambda c: c.key,
                label=lambda c: f"{c.unique_id}.{quote_column(c.name)}",
                where=f"in project {self.project!r} (build {self.build_id})",
                hits=hits,
                suggestions=lambda: StoredNames(self.graph, self.project, self.build_id),
            )

    # ------------------------------------------------------------------ questions
    def impact(self, names: list[str], max_depth: int | None = None, with_conditions: bool = False) -> Answer:
        asked = [self.resolve(n) for n in names]
        with paused_gc():  # tens of thousands of small records, no cycles
            columns = self.impact_subgraph(asked, max_depth)
            reached = downstream_of(asked, columns, max_depth)
        conditions: list[ConditionUse] = []
        if with_conditions:
            keys = [c.key for c in asked] + [r.column.key for r in reached]
            conditions = self._conditions(keys)
        consumed = {c[0] for c in columns if c[5]}
        consumers = self._consumers(asked, reached, consumed, max_depth) if consumed else []
        return Answer(
            project=self.project,
            build_id=self.build_id,
            asked=tuple(asked),
            columns=tuple(reached),
            conditions=tuple(conditions),
            consumers=tuple(consumers),
        )

    def impact_subgraph(self, asked: list[ColumnId], max_depth: int | None) -> list[list[Any]]:
        """``find_impact_subgraph``'s columns downstream of ``asked`` (the one read of an impact)."""
        rows = self.graph.read_values(
            "read/find_impact_subgraph",
            project=self.project,
            column_keys=[c.key for c in asked],
            build_id=self.build_id,
            builds=self.builds,
            max_depth=max_depth,
        )
        columns = rows[0][0] if rows else []
        for c in columns:  # its project, for the answer: named when it is another project's
            c[6] = self.foreign(c[6])
        return columns

    def _consumers(self, asked: list[ColumnId], reached: list[Reached], consumed: set[str], max_depth: int | None) -> list[ConsumerHit]:
        """The metrics, exposures and saved queries the asked and reached columns feed, asked
        from the ``consumed`` ones (those some consumer reads), at most ``max_depth`` edges away."""
        before = {c.key: (0, (), c.key) for c in asked if c.key in consumed}
        before |= {r.column.key: (r.depth, r.hops, r.via) for r in reached if r.column.key in consumed}
        rows = self.graph.read_values(
            "read/find_consumers_downstream", project=self.project, column_keys=list(before), build_id=self.build_id, builds=self.builds
        )
        nodes = {n[0]: n for n in (rows[0][0] if rows else [])}
        reads = {key: [(d, kind, Hop(from_key=key, to_key=d, type=kind, expr=expr, resolved=True)) for d, kind, expr in n[7]] for key, n in nodes.items()}
        hits: list[ConsumerHit] = []
        for start in sorted(before):
            depth, hops, via = before[start]
            walk = shortest_paths(start, lambda k: reads.get(k, ()), FEED_RANKS, max_depth=None if max_depth is None else max_depth - depth)
            for more, layer in walk:
                for key, path in layer.items():
                    _, project, unique_id, name, kind, precision, owner, _ = nodes[key]
                    hits.append(ConsumerHit(key=key, unique_id=unique_id, name=name, kind=kind, depth=depth + more, via=via, hops=tuple(hops) + path,
                                            precision=precision, project=self.foreign(project), owner=owner))  # fmt: skip
        rows = self.graph.read(
            "read/find_bi_downstream", project=self.project, column_keys=list(before), build_id=self.build_id, builds=self.builds
        )
        for r in rows:
            depth, hops, via = before[r["start"]]
            hits.append(ConsumerHit(
                key=r["key"], unique_id=r["unique_id"], name=r["name"], kind=r["kind"], depth=depth + r["depth"], via=via,
                hops=tuple(hops) + tuple(Hop(from_key=h["from"], to_key=h["to"], type=h["type"], expr=h["expr"], resolved=True) for h in r["hops"]),
                project=self.foreign(r["project"]), tool=r["tool"], tool_id=r["tool_id"], file=r["file"], line=r["line"],
                status=r["status"], reason=r["reason"],
            ))  # fmt: skip
        best = closest(hits, lambda h: h.key)
        return sorted((h for h in best.values() if max_depth is None or h.depth <= max_depth), key=lambda h: (h.kind, h.name))

    def resolve_consumer(self, text: str) -> ColumnId | None:
        """``metric:order_total``, ``exposure:sales``, ``saved_query:weekly``, ``chart:SLUG``,
        ``dashboard:SLUG``, ``bi_field:orders_total_amount``; None for a column name."""
        kind, sep, name = text.strip().partition(":")
        if not sep or kind.lower() not in CONSUMER_KINDS + BI_KINDS:
            return None
        rows = self.graph.read("read/find_consumer", project=self.project, resource_type=kind.lower(), name=name.lower(), build_id=self.build_id)
        if not rows:
            raise NotFound(f"no {kind.lower()} {name!r} in project {self.project!r} (build {self.build_id})")
        r = rows[0]
        return ColumnId(key=r["key"], unique_id=r["unique_id"], model=r["resource_type"], name=r["name"])

    def trace(self, names: list[str], max_depth: int | None = None) -> Answer:
        asked = [self.resolve_consumer(n) or self.resolve(n) for n in names]
        # where each walk starts: an asked column or consumer itself; for a BI field, chart or
        # dashboard, the columns it reads, each with its depth and path to it
        starts: dict[str, tuple[int, tuple[Hop, ...], str]] = {a.key: (0, (), a.key) for a in asked if a.model not in BI_KINDS}
        found: list[Reached] = []
        for bi in (a for a in asked if a.model in BI_KINDS):
            for r in self.graph.read("read/find_bi_inputs", project=self.project, key=bi.key, build_id=self.build_id):
                hops = tuple(Hop(from_key=h["from"], to_key=h["to"], type=h["type"], expr=h["expr"], resolved=True) for h in r["hops"])
                if r["column"] not in starts or r["depth"] < starts[r["column"]][0]:
                    starts[r["column"]] = (r["depth"], hops, bi.key)
                    col = ColumnId(key=r["column"], unique_id=r["unique_id"], model=r["model"] or r["unique_id"], name=r["name"],
                                   project=self.foreign(r["project"]))
                    found.append(Reached(column=col, depth=r["depth"], hops=hops, via=bi.key, resource_type=r["resource_type"]))
        rows = self.graph.read_values(
            "read/find_root_cause_subgraph",
            project=self.project,
            keys=list(starts),
            build_id=self.build_id,
            builds=self.builds,
            max_depth=max_depth,
        )
        nodes = {n[0]: n for n in (rows[0][0] if rows else [])}
        # each node's feeders in the subgraph (an edge may leave it at its last hop), as
        # (upstream key, type, its hop)
        feeders = {
            key: [(f[0], f[1], Hop(from_key=f[0], to_key=key, type=f[1], expr=f[2], resolved=f[3])) for f in n[7] if f[0] in nodes]
            for key, n in nodes.items()
        }
        for start, (before, after, via) in starts.items():
            walk = shortest_paths(start, lambda k: feeders.get(k, ()), FEED_RANKS, upstream=True,
                                  max_depth=None if max_depth is None else max_depth - before, keep=lambda k, start=start: k != start)  # fmt: skip
            for depth, layer in walk:
                for key, hops in layer.items():
                    _, unique_id, model, name, resource_type, project, is_column, _ = nodes[key]
                    if is_column:
                        column = ColumnId(key, unique_id, model or unique_id, name, self.foreign(project))
                        found.append(Reached(column, before + depth, hops + after, via, resource_type))
        # a BI node's inputs may lie further than max_depth
        found = [r for r in found if max_depth is None or r.depth <= max_depth]
        columns = sorted(closest(found, lambda r: r.column.key).values(), key=lambda x: (x.column.model, x.column.name))
        return Answer(project=self.project, build_id=self.build_id, asked=tuple(asked), columns=tuple(columns))

    def _conditions(self, keys: list[str]) -> list[ConditionUse]:
        rows = self.graph.read("read/find_conditioned_models", project=self.project, column_keys=keys, build_id=self.build_id, builds=self.builds)
        return [ConditionUse(**r) for r in rows]


def downstream_of(asked: list[ColumnId], columns: list[list[Any]], max_depth: int | None) -> list[Reached]:
    """Impact over ``find_impact_subgraph``'s columns ([key, unique_id, model, name, feeds,
    consumed, project]): every column reached from an asked one
    (:func:`catalog.walks.impact`), with its reported shortest path, and whether only
    pass-throughs and renames reach it on every path."""
    names = {c[0]: c for c in columns}
    # key -> its edges [down, type, expr, resolved] in the subgraph, and each as (down, type, its record)
    feeds: dict[str, list[list[Any]]] = {}
    steps: dict[str, list[tuple[str, str, Hop]]] = {}
    for c in columns:
        key, out = c[0], c[4]
        if max_depth is not None:  # an edge may leave the subgraph at its last hop
            out = [f for f in out if f[0] in names]
        feeds[key] = out
        steps[key] = [(f[0], f[1], Hop(key, f[0], f[1], f[2], f[3])) for f in out]
    empty: list[tuple[str, str, Hop]] = []
    starts = [c.key for c in asked]
    best = impact(starts, lambda k: steps.get(k, empty), FEED_RANKS, max_depth)
    unsafe = tainted(starts, feeds)
    reached: list[Reached] = []
    for key in sorted(best, key=lambda k: (names[k][2] or names[k][1], names[k][3])):
        depth, path, via = best[key]
        _, unique_id, model, name, _, _, project = names[key]
        reached.append(Reached(ColumnId(key, unique_id, model or unique_id, name, project), depth, path, via, None, key not in unsafe))
    return reached


