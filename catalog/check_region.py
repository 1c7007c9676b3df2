"""``catalog check`` against a stored build, reading only the part of the project a change can
reach (the region); the report is the one the whole project gives.

Every answer of the check is about the changed columns: what they reach downstream (findings,
hits, the selector, unused added columns), what they are computed from upstream (the PII
policy's touched columns), and, for those upstream columns, whether a PII tag makes them PII
and what they reach (a tag downstream of a column makes it PII; its reach may go anywhere
downstream). So the region is, at the column level:

- the changed nodes (their record differs, or a seed's file), their ancestors, the models whose
  lineage the change may alter (:func:`analyzed_again`: their SQL, or the columns and types they
  read, changed; by the fingerprints by which a build reuses a lineage) with their ancestors,
  and the parents of the models analyzed again; these are analyzed (:func:`~catalog.compare.analyze_states`);
- the models the findings' columns reach (:func:`hits_from`, :func:`reached_models`: through
  value lineage and conditions, on either side, one layer of columns at a time:
  ``read/list_column_feeds_out`` and ``read/list_column_conditions_out`` for the base, the
  change's own lineage for the models it alters);
- the PII policy's part (:func:`pii_reach`): the columns where its walks may differ
  (:func:`~catalog.check.policy_changes`) and those they are computed from reach, through copies
  (passthrough, renamed) and one more step, the tagged columns that make them PII (those and
  the models on the way join); the ones PII in the base reach, through value lineage, what the
  policy walks. Their models join;
- the children of a model with an added column, and what the region's tests and consumers read.

Inside the region every walk the check makes has every column and every shortest path it has in
the whole project; the rest of the project reads the same in the base and in the change, and is
never read. Where the column-level region cannot stand (a model it reads failed in the base, a
changed model's columns are unknown), the region is made at the model level instead: every node
downstream of the changed ones, with the same PII part. :func:`check_against_build` gives None
(the caller compares the whole project) when neither can stand for it: another dialect or
masking functions, consumers (semantic models, metrics, exposures, saved queries, BI
definitions) that differ, BI definitions at all (they link to models by relation name), or a
model of the region outside the analyzed part that the build kept no lineage of, or a failed one
(the analysis would make it again).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from itertools import chain
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from catalog.analyze.records import ModelLineage, ModelStatus, column_key
from catalog.extract import DbtProject, is_pii
from catalog.store.keys import scoped_key, unscoped_key
from catalog.walks import COPY_TYPES, descendants, reached, reached_by_layer

if TYPE_CHECKING:
    from catalog.builds.fingerprints import ColumnDigests
    from catalog.check import CheckReport
    from catalog.compare import StateDiff
    from catalog.store.graph import Graph


@dataclass(frozen=True)
class Region:
    changed: frozenset[str]  # nodes whose record differs (added and removed ones too), seeds whose file did
    upstream: frozenset[str]  # their ancestors
    nodes: frozenset[str]  # the changed nodes, their ancestors and everything downstream of them
    read: frozenset[str]  # nodes outside it that its tests and consumers read

    def kept(self) -> frozenset[str]:
        return self.nodes | self.read


Feed = tuple[str, str, str, str]  # (upstream column, column, its model's unique id, the edge's type)


class BaseLineages(Protocol):
    """Where a check of a region takes the base's lineage from: a stored build, or the base
    target analyzed as needed (:class:`~catalog.check_state_region.LazyBase`)."""

    def of(self, uids: Collection[str], columns: Collection[str] | None = None) -> dict[str, ModelLineage]:
        """The lineages of the models among ``uids``, by unique id; with ``columns`` (column
        ids, a set), of those columns only."""

    def feeds_out(self, keys: Collection[str]) -> Iterable[Feed]:
        """Each edge of the base's column lineage out of the columns ``keys``."""

    def conditions_out(self, keys: Collection[str]) -> Iterable[tuple[str, str]]:
        """(column, model) for each model whose conditions read one of the columns ``keys`` in the base."""


@dataclass(frozen=True)
class StoredBase:
    """The base's lineage as the build ``build_id`` of ``project`` stored it."""

    graph: Graph
    project: str
    build_id: int
    old: DbtProject

    def of(self, uids: Collection[str], columns: Collection[str] | None = None) -> dict[str, ModelLineage]:
        from catalog.store.records import load_build_lineages

        return load_build_lineages(self.graph, self.project, self.build_id, unique_ids=models_among(self.old, uids), columns=columns)

    def feeds_out(self, keys: Collection[str]) -> Iterable[Feed]:
        return _feeds_out(self.graph, self.project, self.build_id, sorted(keys))

    def conditions_out(self, keys: Collection[str]) -> Iterable[tuple[str, str]]:
        rows = self.graph.read_values("read/list_column_conditions_out", project=self.project, build_id=self.build_id, column_keys=[scoped_key(k, self.project) for k in sorted(keys)])
        for up, model, uid, _clause in rows:
            if model.startswith(f"{self.project}/"):  # not another project's model (dbt Mesh)
                yield unscoped_key(up, self.project), uid


def check_against_build(graph: Graph, project: str, build_id: int, old: DbtProject, new: DbtProject, jobs: int | None) -> CheckReport | None:
    """The check of ``new`` against ``old`` (the build ``build_id`` of ``project``, read by
    :func:`~catalog.store.records.load_build_project`), from the region alone; None when the
    region cannot stand for the whole project (see the module)."""
    return check_in_region(old, new, StoredBase(graph, project, build_id, old), f"build {build_id}", jobs)


def check_in_region(old: DbtProject, new: DbtProject, source: BaseLineages, base: str, jobs: int | None) -> CheckReport | None:
    """The check of ``new`` against ``old`` (named ``base`` in the report), the base's lineages
    taken from ``source``, from the region alone; None when the region cannot stand for the
    whole project (see the module). The region at the column level first; where it cannot
    stand (a model it reads failed in the base, a model changed whose columns are unknown), at
    the model level."""
    region = check_region(old, new)
    if region is None:
        return None
    return _check_region(old, new, region, source, base, jobs, by_column=True) or _check_region(old, new, region, source, base, jobs, by_column=False)


def _check_region(old: DbtProject, new: DbtProject, region: Region, source: BaseLineages, base: str, jobs: int | None, by_column: bool) -> CheckReport | None:
    from catalog.builds.fingerprints import ColumnDigests
    from catalog.check import check_states, policy_changes
    from catalog.compare import analyze_states, diff_state

    columns = ColumnDigests()
    if by_column:  # what the change is, what it is made from, and the models analyzed again, with theirs
        again = analyzed_again(within(old, region.kept()), within(new, region.kept()), columns=columns)
        kept = set(region.changed | region.upstream | again) | ancestors(old, new, again)
    else:
        kept = set(region.kept())
    lineages = source.of(kept)
    if not by_column and not _stands(lineages, old, region.read):
        return None
    # the models analyzed again read their parents' columns
    parents = {p for uid in analyzed_again(within(old, kept), within(new, kept), lineages, columns) for p in (*depends_on_of(old, uid), *depends_on_of(new, uid))}
    if needed := parents - kept:
        more = source.of(needed)
        if not _stands(more, old, needed):
            return None
        kept |= needed
        lineages |= more
    old_kept, new_kept = within(old, kept), within(new, kept)
    old_lineages, new_lineages = analyze_states(old_kept, new_kept, jobs=jobs, base=lineages)
    sides = (old_lineages, new_lineages)
    changes = policy_changes(old_kept, new_kept, old_lineages, new_lineages)
    starts = changes | columns_upstream(changes, sides)
    if any((owner := owner_of(new, key) or owner_of(old, key)) is not None and owner not in kept for key in starts):
        return None  # a lineage upstream reads a node its depends_on does not name: the whole project
    feeds = Feeds(source, sides)
    more = pii_reach(old, starts, feeds.out)
    whole: set[str] = set()  # the models read whole, not only the columns the walks reached
    if by_column:
        diff = diff_state(old_kept, old_lineages, new_kept, new_lineages)
        if diff.opaque_models:
            return None  # a changed model whose columns are unknown: what reads it, at the model level
        more |= reached_models(hits_from(old, new, diff, sides), feeds, (old, new))
        # models read whole: whether anything reads an added column asks whether its model is an end
        # model; tests and consumers read models by their columns, ephemeral ones by the analysis's
        whole = children_of(old, new, {uid for uid, found in diff.changes.items() if any(c.change == "added" for c in found)})
        whole |= tests_read(old, new, kept | more) | set(_consumer_reads(old)) | set(_consumer_reads(new))
        whole |= {uid for uid in more if (node := new.nodes.get(uid) or old.nodes.get(uid)) is not None and node.is_ephemeral}
        more |= whole
    if more := {uid for uid in more if uid in old.nodes or uid in new.nodes} - kept:
        extra = feeds.of(more & whole) | feeds.around(more - whole) if by_column else feeds.of(more)
        if not _stands(extra, old, more):
            return None
        kept |= more
        old_lineages, new_lineages = dict(sorted((old_lineages | extra).items())), dict(sorted((new_lineages | extra).items()))
    return check_states(within(old, kept), old_lineages, within(new, kept), new_lineages, base=base)


def check_region(old: DbtProject, new: DbtProject) -> Region | None:
    """The model-level region of a check of ``new`` against ``old`` (see the module), or None."""
    from catalog.compare import _seed_checksums

    if old.dialect != new.dialect or old.masking_functions != new.masking_functions or new.bi_fields or old.bi_fields:
        return None
    for field in ("semantic_models", "metrics", "exposures", "saved_queries", "charts", "dashboards"):
        if getattr(old, field) != getattr(new, field):
            return None
    changed = {uid for uid in old.nodes.keys() | new.nodes.keys() if old.nodes.get(uid) is not new.nodes.get(uid) and old.nodes.get(uid) != new.nodes.get(uid)}
    old_seeds = _seed_checksums(old)
    new_seeds = _seed_checksums(new) if old_seeds else {}  # a seed changed is one in both
    changed |= {uid for uid in old_seeds.keys() & new_seeds.keys() if old_seeds[uid] != new_seeds[uid]}
    parents: dict[str, set[str]] = defaultdict(set)
    children: dict[str, set[str]] = defaultdict(set)
    for project in (old, new):
        for node in project.nodes.values():
            for dep in node.depends_on:
                if dep in old.nodes or dep in new.nodes:
                    parents[node.unique_id].add(dep)
                    children[dep].add(node.unique_id)
    upstream = descendants(changed, lambda u: parents.get(u, ()))
    downstream = changed | descendants(changed, lambda u: children.get(u, ()))
    region = upstream | downstream
    read: set[str] = set()
    for project in (old, new):
        read |= {d for t in project.tests.values() if region.intersection(t.depends_on) for d in t.depends_on}
        read.update(_consumer_reads(project))
    read = {uid for uid in read if uid in old.nodes or uid in new.nodes} - region
    return Region(frozenset(changed), frozenset(upstream), frozenset(region), frozenset(read))


class Feeds:
    """The column lineage around a region on either side of a check: the base's edges (from
    ``source``: a stored build or the lazily analyzed base) and, for the models whose lineage
    the change alters, the change's too (``sides``: both sides' lineages, in memory)."""

    def __init__(self, source: BaseLineages, sides: tuple[dict[str, ModelLineage], dict[str, ModelLineage]]):
        self.source = source
        self.sides = sides
        self.read: dict[str, ModelLineage] = {}  # the base's lineages read for the walks
        self.asked: set[str] = set()
        self.reached: dict[str, set[str]] = defaultdict(set)  # model -> its columns an edge out of a walk's layer went to
        self.feeds: dict[str, list[Feed]] = defaultdict(list)  # column -> edges out of it in memory
        self.conditions: dict[str, set[str]] = defaultdict(set)  # column -> the models whose conditions read it in memory
        old, new = sides
        for uid in old.keys() | new.keys():
            if old.get(uid) == new.get(uid):
                continue  # the base's own edges
            for lin in (old.get(uid), new.get(uid)):
                for col in lin.columns if lin is not None else ():
                    for src in col.sources:
                        self.feeds[src.key].append((src.key, column_key(uid, col.name), uid, col.kind.value))
                for cond in lin.conditions if lin is not None else ():
                    self.conditions[cond.column.key].add(uid)

    def out(self, keys: Collection[str]) -> Iterator[Feed]:
        """Each edge out of the columns ``keys``, on either side."""
        for feed in chain(self.source.feeds_out(keys), *(self.feeds.get(key, ()) for key in keys)):
            self.reached[feed[2]].add(feed[1])
            yield feed

    def conditioned(self, keys: Collection[str]) -> set[str]:
        """The models whose conditions read one of the columns ``keys``, on either side."""
        return {uid for _, uid in self.source.conditions_out(keys)} | {uid for key in keys for uid in self.conditions.get(key, ())}

    def of(self, uids: Collection[str]) -> dict[str, ModelLineage]:
        """The base's lineages of the models among ``uids``, read once."""
        if wanted := set(uids) - self.asked:
            self.read |= self.source.of(wanted)
            self.asked |= wanted
        return {uid: self.read[uid] for uid in sorted(uids) if uid in self.read}

    def around(self, uids: Collection[str]) -> dict[str, ModelLineage]:
        """The base's lineages of the models among ``uids``, of the columns the walks reached
        only (whole, if read whole already): every walk of the check from the columns it starts
        from meets those columns of these models and no other."""
        whole = self.of([uid for uid in uids if uid in self.asked])
        rest = [uid for uid in uids if uid not in self.asked]
        return whole | self.source.of(rest, columns={key for uid in rest for key in self.reached.get(uid, ())}) if rest else whole


def hits_from(old: DbtProject, new: DbtProject, diff: StateDiff, sides: Iterable[dict[str, ModelLineage]]) -> set[str]:
    """The columns the check's findings walk downstream from: the changed columns of each
    model ``diff`` (:func:`~catalog.compare.diff_state`) lists, every column of one whose rows
    or every column may change, and of one whose base enforces a contract the change alters."""
    from catalog.contract import contract_breaks

    sides = tuple(sides)
    out: set[str] = set()
    for uid, found in diff.changes.items():
        if any(c.column == "*" or c.change in ("rows", "new") for c in found):
            out.update(columns_of(uid, (old, new), sides))
        else:
            out.update(column_key(uid, c.column) for c in found)
    for uid in old.nodes.keys() & new.nodes.keys():
        if old.nodes[uid] != new.nodes[uid] and contract_breaks(old.nodes[uid], new.nodes[uid], new.adapter_type):
            out.update(columns_of(uid, (old, new), sides))
    return out


def reached_models(starts: Iterable[str], feeds: Feeds, projects: tuple[DbtProject, DbtProject]) -> set[str]:
    """The models of every column the columns ``starts`` reach downstream on either side,
    through value lineage and conditions (a model whose condition reads a reached column: every
    column of it): where the check's walks from them go."""
    models: set[str] = set()
    conditioned: set[str] = set()

    def step(layer: list[str]) -> list[str]:
        out = []
        for _, down, uid, _ in feeds.out(layer):
            models.add(uid)
            out.append(down)
        now = feeds.conditioned(layer) - conditioned
        conditioned.update(now)
        models.update(now)
        base = feeds.of(now)
        out += [key for uid in sorted(now) for key in columns_of(uid, projects, (*feeds.sides, base))]
        return out

    reached_by_layer(starts, step)
    return models


def columns_of(uid: str, projects: Iterable[DbtProject], sides: Iterable[dict[str, ModelLineage]]) -> set[str]:
    """The column ids of a node on either side: its lineages' columns and its records' (those
    :class:`~catalog.lineage.records.LineageGraph` holds of it, its lineage's columns else its
    record's, and perhaps more: a walk started from one more column only widens the region)."""
    out: set[str] = set()
    for project in projects:
        node = project.nodes.get(uid)
        if node is not None:
            out.update(column_key(uid, c.name) for c in node.columns)
    for lineages in sides:
        lin = lineages.get(uid)
        out.update(column_key(uid, c.name) for c in (lin.columns if lin is not None else ()))
    return out


def ancestors(old: DbtProject, new: DbtProject, uids: Iterable[str]) -> set[str]:
    """The nodes upstream of ``uids``, any depth, on either side (through ``depends_on``)."""
    return descendants(uids, lambda uid: (*depends_on_of(old, uid), *depends_on_of(new, uid)))


def children_of(old: DbtProject, new: DbtProject, uids: set[str]) -> set[str]:
    """The nodes whose ``depends_on`` names one of ``uids``, on either side (the judgement of
    an added column, whether anything reads it, asks whether its model is an end model)."""
    if not uids:
        return set()
    return {n.unique_id for project in (old, new) for n in project.nodes.values() if not uids.isdisjoint(n.depends_on)}


def tests_read(old: DbtProject, new: DbtProject, kept: Collection[str]) -> set[str]:
    """The nodes the tests of the nodes ``kept`` read (a relationships test reads two)."""
    return {d for project in (old, new) for t in project.tests.values() if any(d in kept for d in t.depends_on) for d in t.depends_on}


def analyzed_again(old: DbtProject, new: DbtProject, base: dict[str, ModelLineage] | None = None, columns: ColumnDigests | None = None) -> set[str]:
    """The models :func:`~catalog.compare.analyze_states` may analyze again on either side, given
    the base's lineages ``base``: those whose SQL changed, the ones the base has no lineage of
    or a failed one, and the ones whose lineage may differ in the change. Without ``base``, the
    base's failures aside: a model failed in the base whose inputs are the same fails the same
    way on both sides, and its lineage differs in nothing. ``columns``: the nodes' column
    digests, kept from an earlier call."""
    from catalog.builds.fingerprints import lineage_changes
    from catalog.compare import sql_changed_models

    again = sql_changed_models(old, new) | lineage_changes(old, new, columns)
    if base is not None:
        again |= {n.unique_id for p in (old, new) for n in p.models() if n.unique_id not in base or base[n.unique_id].status == ModelStatus.FAILED}
    return again


def depends_on_of(project: DbtProject, uid: str) -> tuple[str, ...]:
    node = project.nodes.get(uid)
    return node.depends_on if node is not None else ()


def pii_reach(old: DbtProject, starts: Collection[str], feeds_out: Callable[[Collection[str]], Iterable[Feed]]) -> set[str]:
    """The models of ``old`` that decide whether the columns ``starts`` are PII in the base (the
    tagged columns they copy into, any depth, and one step further, with the columns on the way
    to those), and those of every column the PII ones among them reach through value lineage;
    ``feeds_out`` gives the lineage edges out of a layer of columns (a stored build's, or the
    analysis's)."""
    models: set[str] = set()
    owner: dict[str, str] = {}  # column reached -> its model
    feeding: dict[str, list[tuple[str, str]]] = defaultdict(list)  # column -> (upstream column, type of the edge)

    def copies_out(layer: Collection[str]) -> Iterator[str]:  # down the copies, and one step further
        for up, down, uid, kind in feeds_out(layer):
            owner[down] = uid
            feeding[down].append((up, kind))
            if kind in COPY_TYPES:
                yield down

    def feeds_from(layer: Collection[str]) -> Iterator[str]:
        for _, down, uid, _ in feeds_out(layer):
            models.add(uid)
            yield down

    reached_by_layer(starts, copies_out)
    tags = tagged_pii(old, {*starts, *feeding})
    pii = tags.intersection(starts)
    for key in tags.intersection(feeding):  # a tagged column makes PII what it is computed from, and what that copies, up
        direct = [up for up, _ in feeding[key]]
        climbed = reached(direct, lambda k: [up for up, kind in feeding.get(k, ()) if kind in COPY_TYPES])
        models.update(owner[k] for k in (key, *direct, *climbed) if k in owner)
        pii.update(k for k in (*direct, *climbed) if k in starts)
    reached_by_layer(pii, feeds_from)  # everything the PII columns reach
    return {uid for uid in models if uid in old.nodes}


def _feeds_out(graph: Graph, project: str, build_id: int, keys: list[str]) -> Iterable[tuple[str, str, str, str]]:
    """(upstream column, column, its unique id, the edge's type) of each FEEDS edge out of
    ``keys`` in the build, within the project."""
    rows = graph.read_values("read/list_column_feeds_out", project=project, build_id=build_id, column_keys=[scoped_key(k, project) for k in keys])
    for up, down, uid, _column, kind in rows:
        if down.startswith(f"{project}/"):  # not another project's column (dbt Mesh): nothing in this one downstream of it
            yield unscoped_key(up, project), unscoped_key(down, project), uid, kind


def tagged_pii(project: DbtProject, keys: Iterable[str]) -> set[str]:
    """Those of the column ids ``keys`` tagged PII in ``project``'s records."""
    by_model: dict[str, set[str]] = {}
    out = set()
    for key in keys:
        uid = owner_of(project, key)
        if uid is None:
            continue
        if uid not in by_model:
            node = project.nodes[uid]
            by_model[uid] = {column_key(uid, c.key_name(project.dialect)) for c in node.columns if is_pii(c.tags, c.meta)}
        if key in by_model[uid]:
            out.add(key)
    return out


def owner_of(project: DbtProject, key: str) -> str | None:
    """The node of ``project`` a column id belongs to (a unique id may hold dots: the longest)."""
    parts = key.split(".")
    for n in range(len(parts) - 1, 0, -1):
        uid = ".".join(parts[:n])
        if uid in project.nodes:
            return uid
    return None


def columns_upstream(keys: Iterable[str], sides: Iterable[dict[str, ModelLineage]]) -> set[str]:
    """The columns the columns ``keys`` are computed from, any depth up, on either side (as far
    as the lineages ``sides`` go)."""
    out: set[str] = set()
    keys = list(keys)
    for lineages in sides:
        sources = {column_key(uid, c.name): [s.key for s in c.sources] for uid, lin in lineages.items() for c in lin.columns}
        out |= reached(keys, lambda k: sources.get(k, ()))
    return out


def _consumer_reads(project: DbtProject) -> Iterable[str]:
    """The nodes the project's semantic models and exposures read."""
    for sm in project.semantic_models.values():
        if sm.model:
            yield sm.model
    for ex in project.exposures.values():
        yield from ex.depends_on


def models_among(project: DbtProject, uids: Iterable[str]) -> list[str]:
    """The models and snapshots among ``uids``."""
    return sorted(uid for uid in uids if uid in project.nodes and project.nodes[uid].resource_type in ("model", "snapshot"))


def within(project: DbtProject, kept: Collection[str]) -> DbtProject:
    """``project`` with the nodes ``kept`` only, and the tests that read nothing else (a test of
    a changed column reads the region; one whose SQL reads a relation left out could be read
    otherwise); its consumers all."""
    nodes = {uid: n for uid, n in project.nodes.items() if uid in kept}
    tests = {uid: t for uid, t in project.tests.items() if all(d in kept for d in t.depends_on)}
    return project.model_copy(update={"nodes": nodes, "tests": tests})


def _stands(base: dict[str, ModelLineage], old: DbtProject, uids: Iterable[str]) -> bool:
    """Whether the build's lineages of the models ``uids`` (outside what is analyzed again)
    stand as they are: each has its stored lineage, not a failed one."""
    return all(uid in base and base[uid].status != ModelStatus.FAILED for uid in models_among(old, uids))
