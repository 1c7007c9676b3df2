"""Relation names as dbt writes them, split into the parts a SQL reference is matched by, and
the index of a project's relations made once per project."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.analyze.relations import RelationIndex, split_relation
from catalog.extract import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ('"DB"."sch".tbl', ("db", "sch", "tbl")),
        ("`my-proj`.`ds`.`t.x`", ("my-proj", "ds", "t.x")),  # a dot inside quotes is part of the name
        ("[Db].[dbo].[Order Lines]", ("db", "dbo", "order lines")),
        ('"a"b.c', ("ab", "c")),  # quoted and bare pieces of one part run together
        ('"unclosed.x', ("unclosed.x",)),  # an unclosed quote runs to the end
        ('"say "" twice"', ("say  twice",)),  # a doubled quote closes and opens again
        ("  a . b  ", ("a", "b")),
        ("a..b", ("a", "b")),
        ('".".b', (".", "b")),
        ("[a.b]].c", ("a.b]", "c")),  # a ] outside brackets is a character of the name
        ("", ()),
    ],
)
def test_a_relation_name_splits_into_its_parts(name: str, parts: tuple[str, ...]) -> None:
    assert split_relation(name) == parts


def test_a_projects_relation_index_is_made_once_for_that_project() -> None:
    project = load_project(EXAMPLE)
    index = RelationIndex.for_project(project)
    assert RelationIndex.for_project(project) is index
    other = project.model_copy()
    assert RelationIndex.for_project(other) is not index
    model = next(n for n in project.models() if n.relation_name)
    assert index.lookup(split_relation(model.relation_name)) == model.unique_id
