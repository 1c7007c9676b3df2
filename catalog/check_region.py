"""The part of a project a change can reach, for ``catalog check`` against a stored build: the
models whose record differs (the change), everything upstream of them, and everything
downstream of those (model-level, through ``depends_on``: what a model's lineage reads, as the
fingerprints that let a build reuse a lineage say). Every answer of the check is about the
change's columns, what they reach downstream, what they are computed from upstream, and the
PII status of those (a tag downstream of an upstream column makes it PII): all inside the
region, with every shortest path between two of its columns. The rest of the project reads
the same in the base and in the change, and is never read.

:func:`check_region` says which nodes to keep (the region, and the nodes its models, tests and
consumers read, for their analysis), or None when the region cannot stand for the whole
project: a change of the dialect, the masking functions or the consumers (semantic models,
metrics, exposures, saved queries, BI definitions), or BI definitions at all (they link to
models by relation name).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from catalog.analyze.records import ModelLineage, ModelStatus
from catalog.extract import DbtProject
from catalog.lineage.walks import descendants


@dataclass(frozen=True)
class Region:
    changed: frozenset[str]  # nodes whose record differs (added and removed ones too)
    nodes: frozenset[str]  # the region: the changed nodes, their ancestors, and everything downstream
    read: frozenset[str]  # nodes the region's models, tests and consumers read, outside the region

    def kept(self) -> frozenset[str]:
        return self.nodes | self.read


def check_region(old: DbtProject, new: DbtProject) -> Region | None:
    """The nodes a check of ``new`` against ``old`` reads (see the module), or None."""
    from catalog.compare import _seed_checksums

    if old.dialect != new.dialect or old.masking_functions != new.masking_functions or new.bi_fields or old.bi_fields:
        return None
    for field in ("semantic_models", "metrics", "exposures", "saved_queries", "charts", "dashboards"):
        if getattr(old, field) != getattr(new, field):
            return None
    changed = {uid for uid in old.nodes.keys() | new.nodes.keys() if old.nodes.get(uid) is not new.nodes.get(uid) and old.nodes.get(uid) != new.nodes.get(uid)}
    old_seeds, new_seeds = _seed_checksums(old), _seed_checksums(new)
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
    region = changed | upstream | descendants(changed | upstream, lambda u: children.get(u, ()))
    read = {p for uid in region for p in parents.get(uid, ())}
    for project in (old, new):
        read |= {d for t in project.tests.values() if region.intersection(t.depends_on) for d in t.depends_on}
        read.update(_consumer_reads(project))
    read = {uid for uid in read if uid in old.nodes or uid in new.nodes} - region
    return Region(frozenset(changed), frozenset(region), frozenset(read))


def _consumer_reads(project: DbtProject) -> Iterable[str]:
    """The nodes the project's semantic models, exposures and saved queries read."""
    for sm in project.semantic_models.values():
        if sm.model:
            yield sm.model
    for ex in project.exposures.values():
        yield from ex.depends_on


def within(project: DbtProject, kept: frozenset[str]) -> DbtProject:
    """``project`` with the nodes ``kept`` only (its consumers and tests all)."""
    return project.model_copy(update={"nodes": {uid: n for uid, n in project.nodes.items() if uid in kept}})


def stands_for_reads(region: Region, base: dict[str, ModelLineage], old: DbtProject) -> bool:
    """Whether the base's lineages of the nodes read outside the region stand as they are: each
    analyzed model there has its stored lineage, not failed (a model analyzed again would need
    its own upstream, outside what is kept)."""
    return all(
        uid in base and base[uid].status != ModelStatus.FAILED
        for uid in region.read
        if uid in old.nodes and old.nodes[uid].resource_type in ("model", "snapshot")
    )
