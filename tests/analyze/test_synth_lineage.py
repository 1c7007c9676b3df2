"""A synthetic dbt project of a few hundred models: the lineage must equal the one it was built from.

``../shared/tools/synth_dbt.py`` writes a project's artifacts and ``expected_lineage.json``
(the exact types, upstream columns and conditions of every column of every model). Column
names compare case-insensitively, and a ``snapshot_meta`` type counts as ``source``. The one
change made to the generator's golden is a rule read from each model's compiled SQL, never
from the analyzer's answer (``wrappers_of_row_computations_are_derived``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from catalog.analyze.project import analyze_project
from catalog.analyze.records import ModelStatus
from catalog.evaluate import ColumnFacts, Lineage, diff, format_diff, from_lineages, load_golden, score
from catalog.extract import load_project

pytestmark = pytest.mark.corpus

SYNTH_RUNS = [(300, 3), (250, 11)]  # (models, seed)


@pytest.fixture(scope="module", params=SYNTH_RUNS, ids=[f"{n}models-seed{s}" for n, s in SYNTH_RUNS])
def synth_project(request: pytest.FixtureRequest, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    models, seed = request.param
    tool = shared_dir / "tools" / "synth_dbt.py"
    if not tool.is_file():
        pytest.fail(f"{tool} is missing", pytrace=False)
    out = tmp_path_factory.mktemp(f"synth_{models}_{seed}") / "project"
    done = subprocess.run(
        [sys.executable, str(tool), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"synth_dbt.py failed:\n{done.stderr}"
    return out


def reads_a_row_computation(sql: str, dialect: str, name: str) -> bool:
    """Whether the SQL defines ``name`` by an expression that reads a column the same SQL
    computes over rows (an aggregate or window function, such as ``count(*)``), directly or
    through other aliases: ``coalesce(c.n, 0) as n_filled`` over ``count(*) as n`` in a CTE."""
    tree = sqlglot.parse_one(sql, read=dialect)
    definitions: dict[str, list[exp.Expression]] = {}
    for alias in tree.find_all(exp.Alias):
        definitions.setdefault(alias.alias.lower(), []).append(alias.this)

    def computed_over_rows(column: str, seen: frozenset[str]) -> bool:
        if column in seen:
            return False
        for e in definitions.get(column, []):
            if e.find(exp.AggFunc, exp.Window) is not None:
                return True
            if any(computed_over_rows(c.name.lower(), seen | {column}) for c in e.find_all(exp.Column)):
                return True
        return False

    return any(
        computed_over_rows(c.name.lower(), frozenset({name})) for e in definitions.get(name, []) for c in e.find_all(exp.Column)
    )


def wrappers_of_row_computations_are_derived(golden: Lineage, manifest: dict) -> Lineage:
    """synth_dbt types ``coalesce(c.n, 0)`` as ``source`` when a CTE computed ``n`` as
    ``count(*)`` (no upstream column), against its own convention that a pass-through or
    expression of a derived column stays derived. A column it types ``source`` with no
    upstream is compared as ``derived`` when the model's compiled SQL defines it over a
    column that SQL computes with an aggregate or window function; decided from the SQL
    alone, every other column is compared as synth_dbt wrote it."""
    dialect = manifest["metadata"]["adapter_type"]
    out: Lineage = {}
    for uid, facts in golden.items():
        cols = dict(facts.columns)
        sql = manifest["nodes"].get(uid, {}).get("compiled_code")
        for name, want in facts.columns.items():
            if sql and want.type == "source" and not want.sources and reads_a_row_computation(sql, dialect, name):
                cols[name] = ColumnFacts("derived", want.sources)
        out[uid] = type(facts)(cols, facts.conditions)
    return out


def test_synth_lineage_is_exact(synth_project: Path) -> None:
    project = load_project(synth_project)
    lineages = analyze_project(project)
    manifest = json.loads((synth_project / "target" / "manifest.json").read_text(encoding="utf-8"))
    golden = wrappers_of_row_computations_are_derived(load_golden(synth_project / "expected_lineage.json"), manifest)
    actual = from_lineages(lineages)

    not_resolved = {uid: (m.status.value, m.reason) for uid, m in lineages.items() if m.status != ModelStatus.RESOLVED}
    assert not not_resolved, f"models not resolved: {not_resolved}"
    assert sorted(actual) == sorted(golden), "the analyzed models are not the expected ones"
    differences = diff(actual, golden)
    if differences:
        s = score(actual, golden)
        pytest.fail(
            f"{len(differences)} of {len(golden)} models differ from expected_lineage.json "
            f"('-' expected only, '+' analysis only); edge precision {s.edge_precision.value:.4f}, "
            f"recall {s.edge_recall.value:.4f}, type accuracy {s.type_accuracy.value:.4f}, "
            f"condition precision {s.condition_precision.value:.4f}, recall {s.condition_recall.value:.4f}\n"
            + format_diff(differences),
            pytrace=False,
        )


def test_synth_expected_lineage_is_read_whole(synth_project: Path) -> None:
    """The comparison covers every column and edge that the generator lists."""
    doc = json.loads((synth_project / "expected_lineage.json").read_text(encoding="utf-8"))
    golden = load_golden(synth_project / "expected_lineage.json")
    assert len(golden) == len(doc["nodes"])
    assert sum(len(m.columns) for m in golden.values()) == doc["summary"]["columns"]
    assert sum(len(c.sources) for m in golden.values() for c in m.columns.values()) == doc["summary"]["edges"]
    assert sum(len(m.conditions) for m in golden.values()) == doc["summary"]["condition_refs"]


def test_the_row_computation_rule_reads_the_sql() -> None:
    sql = (
        "with a as (select k, count(*) as n, max(v) as top, 1 as one from t group by k), "
        "b as (select *, coalesce(n, 0) as n_filled, n > 1 as many, coalesce(one, 0) as one_filled from a) "
        "select k, n_filled, many, one_filled, coalesce(n_filled, 0) as again from b"
    )
    got = {name: reads_a_row_computation(sql, "duckdb", name) for name in ("n_filled", "many", "one_filled", "again", "k", "n")}
    assert got == {"n_filled": True, "many": True, "one_filled": False, "again": True, "k": False, "n": False}
