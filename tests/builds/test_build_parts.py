"""A build writes the lineage as the analysis gives it, in parts (``writer.PART_COLUMNS``), and
holds no more than the part in hand: the graph it stores is the one a build written in one
part stores, and a build that stops between two parts leaves the active build's whole view as
it was."""

from __future__ import annotations

import pytest

from catalog.builds import Builder, writer
from test_build_views import active_ids, edit_everything, view

pytestmark = pytest.mark.neo4j

CORPUS = ["jaffle-shop", "dbt-project-evaluator", "tuva"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS)
def test_a_build_written_model_by_model_stores_what_one_part_stores(build, graph, project_name, shared_dir, name, monkeypatch):
    """Each model written as its own part, then built again with every model in one part and
    analyzed again (``full``): the second build finds every relationship, state and record
    equal and writes nothing, and both builds show the same view."""
    target = shared_dir / "corpus" / name / "target"
    monkeypatch.setattr(writer, "PART_COLUMNS", 1)
    parts = build(target, project_name)
    assert parts.status == "active" and parts.relationships_written > 0
    monkeypatch.setattr(writer, "PART_COLUMNS", 10**9)
    whole = build(target, project_name, full=True)
    assert whole.models.recomputed == parts.models.recomputed == parts.models.total > 0
    assert (whole.relationships_written, whole.relationships_closed) == (0, 0)
    assert whole.edges.total == parts.edges.total > 0
    assert view(graph, project_name, whole.build_id) == view(graph, project_name, parts.build_id)


def test_a_build_stopped_between_two_parts_leaves_the_active_build_as_it_was(build, project_name, example_copy, graph, monkeypatch):
    first = build(example_copy, project_name)
    before = view(graph, project_name, first.build_id)
    edit_everything(example_copy)
    said: list[str] = []
    monkeypatch.setattr(writer, "PART_COLUMNS", 1)  # every model a part of its own
    failing = Builder(graph, example_copy, project_name=project_name, jobs=1, full=True, fail_after="part", progress=said.append)
    with pytest.raises(RuntimeError, match="injected failure after stage part"):
        failing.run()
    assert failing.undone is True
    assert not any(line.startswith("writing ") for line in said)  # it stopped before the last part
    assert active_ids(graph, project_name) == [first.build_id]
    assert view(graph, project_name, first.build_id) == before
    after = build(example_copy, project_name)
    assert after.status == "active" and view(graph, project_name, after.build_id) != before
    assert view(graph, project_name, first.build_id) == before
