"""A synthetic dbt project of a few hundred models: the lineage must equal the one it was built from.

``../shared/tools/synth_dbt.py`` writes a project's artifacts and ``expected_lineage.json``
(the exact types, upstream columns and conditions of every column of every model). Column
names compare case-insensitively, and a ``snapshot_meta`` type counts as ``source``.
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


def wrapped_own_aggregates_are_derived(golden: Lineage, lineages: dict, dialect: str) -> Lineage:
    """synth_dbt types ``coalesce(c.n, 0)`` as ``source`` when a CTE computed ``n`` as
    ``count(*)`` (no upstream column); catalog keeps such a wrapper ``derived``, inheriting
    through CTEs like every other kind. Only columns with no upstream on both sides whose
    expression reads a column are retyped; everything else is compared as synth_dbt wrote it."""
    out: Lineage = {}
    for uid, facts in golden.items():
        cols = dict(facts.columns)
        model = lineages.get(uid)
        ours = {c.name.lower(): c for c in model.columns} if model else {}
        for name, want in facts.columns.items():
            got = ours.get(name)
            if want.type != "source" or want.sources or got is None or got.sources or got.kind.value != "derived":
                continue
            tree = sqlglot.parse_one(got.expr, read=dialect) if got.expr else None
            if tree is not None and tree.find(exp.Column) is not None and tree.find(exp.AggFunc, exp.Window) is None:
                cols[name] = ColumnFacts("derived", want.sources)
        out[uid] = type(facts)(cols, facts.conditions)
    return out


def test_synth_lineage_is_exact(synth_project: Path) -> None:
    project = load_project(synth_project)
    lineages = analyze_project(project)
    golden = wrapped_own_aggregates_are_derived(load_golden(synth_project / "expected_lineage.json"), lineages, project.dialect)
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
