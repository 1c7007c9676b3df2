"""The suggestions of a mistyped column name of a stored build, which read the build's column
names and then the labels of the few that may be suggested (``StoredNames``), against those of
every label of the build (``suggest``, itself difflib's, see tests/lineage/test_names.py)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.errors import NotFound
from catalog.lineage.names import suggest, suggest_read
from catalog.query import StoredNames
from catalog.store.keys import quote_column

from edits import edit_sql

pytestmark = pytest.mark.neo4j


def _typos(labels: list[str], count: int, seed: int) -> list[str]:
    """``count`` labels, each with one letter replaced and one added."""
    rng = random.Random(seed)
    words = []
    for label in rng.sample(labels, count):
        i, j = rng.randrange(len(label)), rng.randrange(len(label))
        words.append(label[:i] + rng.choice("kqxz_") + label[i + 1 : j] + rng.choice("abc") + label[j:] if i < j else label[:j] + "q" + label[j:])
    return words


def test_a_stored_builds_suggestions_are_those_of_every_label(build, ask, project_name, shared_dir: Path, tmp_path: Path):
    tool = shared_dir / "tools" / "synth_dbt.py"
    subprocess.run([sys.executable, str(tool), "--models", "120", "--seed", "7", "--out", str(tmp_path), "--quiet"], check=True)
    build(tmp_path / "target", project_name)
    catalog = ask(project_name)
    every = StoredNames(catalog.graph, catalog.project, catalog.build_id).every()
    labels = sorted(f"{m}.{quote_column(n)}" for m, cols in every.items() for n in cols)
    model = min(m for m in every if "." not in m)
    words = _typos(labels, 25, seed=3) + ["x", "nothing.at_all", "device", f"{model}.zzzzzzzzzzzzzzzzzzzzzzzz"]
    said = [suggest_read(w, StoredNames(catalog.graph, catalog.project, catalog.build_id)) for w in words]
    assert said == [suggest(w, every) for w in words]
    assert sum(1 for s in said if "did you mean" in s) > len(words) // 2
    assert said[-1].startswith(f"; {model} has: ")


def test_a_build_suggests_only_its_own_columns(build, ask, project_name, example_copy: Path):
    """A column that only a later build holds is no suggestion of the earlier one, though its
    name is read (every name of the project's columns is compared first)."""
    first = build(example_copy, project_name).build_id
    edit_sql(example_copy, "model.coffee_shop.orders", "    amount_paid,\n    case", "    amount_paid,\n    amount_paid as amount_paid_twice,\n    case")
    second = build(example_copy, project_name).build_id
    for build_id, shown in ((first, False), (second, True)):
        with pytest.raises(NotFound) as err:
            ask(project_name, build_id).resolve("orders.amount_paid_twise")
        assert ("orders.amount_paid_twice" in str(err.value)) is shown
