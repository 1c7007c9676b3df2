"""Fingerprints a build keeps from the one before: only nodes whose record did not change,
and only while everything they read kept its own. The result must be the fingerprints
computed from scratch, on real projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.analyze.project import topological_models
from catalog.builds import Fingerprint, fingerprints
from catalog.builds.fingerprints import lineage_changes
from catalog.check_region import check_region, within
from catalog.extract import DbtProject, load_project
from catalog.store.records import node_records
from test_corpus_lineage import CORPUS_PROJECTS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"


def _projects(shared_dir: Path) -> list[DbtProject]:
    return [load_project(EXAMPLE)] + [load_project(shared_dir / "corpus" / name) for name in CORPUS_PROJECTS]


def _edited(project: DbtProject, uid: str) -> DbtProject:
    """``project`` with one model's SQL changed (a new column), as a developer's edit would."""
    node = project.nodes[uid]
    sql = f"select *, 1 as added_by_test from ({node.sql}) as edited"
    return project.model_copy(update={"nodes": {**project.nodes, uid: node.model_copy(update={"sql": sql})}})


def _downstream(project: DbtProject, uid: str) -> set[str]:
    below = {uid}
    for node in topological_models(project):
        if below & set(node.depends_on):
            below.add(node.unique_id)
    return below


def _known(before: DbtProject, after: DbtProject, fps: dict[str, Fingerprint]) -> dict[str, Fingerprint]:
    """What a build knows of the build before: the fingerprints of the nodes whose record is the same."""
    old, new = node_records(before), node_records(after)
    return {uid: fps[uid] for uid in new if old.get(uid) == new[uid]}


@pytest.mark.corpus
def test_known_fingerprints_give_the_fingerprints_computed_from_scratch(shared_dir: Path) -> None:
    checked = 0
    for project in _projects(shared_dir):
        fps = fingerprints(project)
        assert fingerprints(project, fps) == fps
        models = [n for n in topological_models(project) if n.sql]
        # a model read by others, in the middle of the project
        readers = [n.unique_id for n in models if any(n.unique_id in m.depends_on for m in models)]
        assert readers, project.name
        uid = readers[len(readers) // 2]
        edited = _edited(project, uid)
        known = _known(project, edited, fps)
        assert uid not in known and len(known) == len(project.nodes) - 1
        fresh = fingerprints(edited)
        assert fingerprints(edited, known) == fresh
        assert fresh[uid].lineage_hash != fps[uid].lineage_hash
        assert len(_downstream(edited, uid)) > 1
        checked += 1
    assert checked == len(CORPUS_PROJECTS) + 1


@pytest.mark.corpus
def test_a_known_fingerprint_is_used_only_where_what_it_reads_is_the_same(shared_dir: Path) -> None:
    """Known fingerprints that are wrong on purpose show which ones were taken as they are: those
    of the nodes whose every parent kept its own, or hands on its record alone (catalog.json lists
    its columns) and that record is the same; not the changed model's children."""
    exercised = 0
    for project in _projects(shared_dir):
        models = [n for n in topological_models(project) if n.sql]
        for uid in [n.unique_id for n in models if any(n.unique_id in m.depends_on for m in models)][:5]:
            edited = _edited(project, uid)
            marked = {k: Fingerprint(lineage_hash=f"kept {k}", sql_hash=None, meta_hash=f"kept {k}") for k in edited.nodes if k != uid}
            got = fingerprints(edited, marked)
            taken = {k for k, fp in got.items() if fp.lineage_hash.startswith("kept ")}
            below = _downstream(edited, uid)
            children = {n.unique_id for n in edited.nodes.values() if uid in n.depends_on}
            assert set(edited.nodes) - below <= taken and not taken & children and uid not in taken
            listed = {k for k, n in edited.nodes.items() if any(c.in_catalog for c in n.columns)}
            for k in below - {uid}:
                parents = edited.nodes[k].depends_on
                assert (k in taken) == all(p in taken or (p in listed and p != uid) for p in parents), k
            exercised += bool(taken & below)
    assert exercised, "no node below a change read only records: the case is not exercised"


def _eager_changes(old: DbtProject, new: DbtProject) -> set[str]:
    """The models whose fingerprints tell them apart, every fingerprint of both sides computed:
    new ones, ones whose record changed, and ones whose fingerprint's lineage part differs."""
    before = fingerprints(old, meta=False)
    after = fingerprints(new, {uid: f for uid, f in before.items() if old.nodes[uid] == new.nodes.get(uid)}, meta=False)
    return {
        n.unique_id
        for n in new.models()
        if old.nodes.get(n.unique_id) != n or n.unique_id not in before or before[n.unique_id].lineage_hash != after[n.unique_id].lineage_hash
    }


def _without(project: DbtProject, uid: str) -> DbtProject:
    return project.model_copy(update={"nodes": {k: n for k, n in project.nodes.items() if k != uid}})


@pytest.mark.corpus
def test_lineage_changes_tell_apart_what_every_fingerprint_would(shared_dir: Path) -> None:
    """``lineage_changes`` hashes the base only below a change, and a region's projects leave
    out what lies outside it: on whole projects, on regions, and with a parent gone from one
    side, it names the models that comparing every fingerprint of both sides names."""
    compared = 0
    for project in _projects(shared_dir):
        models = [n for n in topological_models(project) if n.sql]
        readers = [n.unique_id for n in models if any(n.unique_id in m.depends_on for m in models)]
        for uid in readers[:: max(1, len(readers) // 4)]:
            edited = _edited(project, uid)
            cases = [(project, edited)]
            region = check_region(project, edited)
            assert region is not None
            cases.append((within(project, region.kept()), within(edited, region.kept())))
            # a parent of a reader gone from the change: the reader's own record is the same
            reader = next(n for n in models if uid in n.depends_on)
            cases.append((project, _without(project, uid)))
            for old, new in cases:
                want = _eager_changes(old, new)
                assert lineage_changes(old, new) == want, (project.name, uid)
                assert lineage_changes(old, new, before=fingerprints(old, meta=False)) == want, (project.name, uid)
                compared += 1
            assert reader.unique_id in _eager_changes(project, _without(project, uid))
    assert compared >= 3 * (len(CORPUS_PROJECTS) + 1)
