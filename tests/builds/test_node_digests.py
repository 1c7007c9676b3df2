"""A build makes the JSON record only of the nodes whose digest is not the stored one
(catalog.store.records.node_digests): so the digest must change with every field the record
holds, and stay the same for the same values, whichever objects hold them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from catalog.extract import DbtColumn, DbtContract, DbtNode, load_project
from catalog.store.records import node_digests, node_records
from test_corpus_lineage import CORPUS_PROJECTS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"



def _changed_node(node: DbtNode, field: str) -> DbtNode:
    value = getattr(node, field)
    if field == "columns":
        new = (DbtColumn("added_by_test"),) + value
    elif field == "contract":
        new = DbtContract(enforced=not value.enforced) if value is not None else DbtContract(enforced=True)
    elif isinstance(value, bool):
        new = not value
    elif isinstance(value, tuple):
        new = value + ("added_by_test",)
    elif isinstance(value, dict):
        new = {**value, "added_by_test": [1, {"x": None}]}
    elif isinstance(value, int):
        new = value + 1
    else:
        new = f"{value}|changed by test"
    return node.model_copy(update={field: new})


def _changed_column(column: DbtColumn, field: str) -> DbtColumn:
    value = getattr(column, field)
    if isinstance(value, bool):
        new: object = not value
    elif isinstance(value, tuple):
        new = value + ("added_by_test",)
    elif isinstance(value, dict):
        new = {**value, "added_by_test": 1.5}
    else:
        new = f"{value}|changed by test"
    return dataclasses.replace(column, **{field: new})


def _digest(node: DbtNode) -> str:
    project = load_project(EXAMPLE)
    return node_digests(project.model_copy(update={"nodes": {node.unique_id: node}}))[node.unique_id]


def test_every_field_of_a_node_and_of_its_columns_changes_its_digest() -> None:
    project = load_project(EXAMPLE)
    node = next(n for n in project.models() if len(n.columns) > 1 and n.sql)
    base = node_digests(project)[node.unique_id]
    assert _digest(node) == base
    for field in DbtNode.model_fields:
        assert _digest(_changed_node(node, field)) != base, field
    for field in (f.name for f in dataclasses.fields(DbtColumn)):
        columns = (_changed_column(node.columns[0], field),) + node.columns[1:]
        assert _digest(node.model_copy(update={"columns": columns})) != base, field
    # the same columns in another order are another record
    assert _digest(node.model_copy(update={"columns": node.columns[::-1]})) != base


@pytest.mark.corpus
def test_digests_agree_with_records_on_real_projects(shared_dir: Path) -> None:
    """Two reads of a project give equal digests (made of other objects); nodes have equal
    digests exactly where their records are equal."""
    for project in [load_project(EXAMPLE)] + [load_project(shared_dir / "corpus" / name) for name in CORPUS_PROJECTS]:
        again = load_project(Path(project.target_dir))
        assert node_digests(again) == node_digests(project), project.name
        records, digests = node_records(project), node_digests(project)
        by_record: dict[str, set[str]] = {}
        for uid, record in records.items():
            by_record.setdefault(record, set()).add(digests[uid])
        assert all(len(d) == 1 for d in by_record.values()), project.name
        assert len(set(digests.values())) == len(set(records.values())), project.name
