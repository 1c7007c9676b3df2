"""The analyzer's lineage of real dbt projects equals their goldens, edge for edge.

``tests/golden/<project>.lineage.json`` holds, for every model of a project of
``../shared/corpus``, each column's type and upstream columns and the model's conditions;
models the analyzer cannot read carry their ``status``. Each model says how it was made:
``"made": "checked_by_reading"`` when a person read its compiled SQL and checked every column's
type and sources and the conditions, ``"made": "regression"`` when it is the analyzer's output,
kept to catch change and checked by nobody (such a model's entry proves no lineage right).
``examples/coffee_shop/expected_lineage.json`` is the bundled example's golden.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.evaluate import diff, format_diff, from_document, from_lineages, score
from catalog.extract import load_project

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "tests" / "golden"
CORPUS_PROJECTS = (
    "jaffle_shop_duckdb",
    "jaffle-shop",
    "dbt-project-evaluator",
    "tuva",  # dbt 1.4, manifest v8, Snowflake
    "flipside-thorchain",  # dbt 1.2, manifest v6, Snowflake
    "fivetran-hubspot",  # dbt 1.11, Postgres
)


def check_against_golden(project_dir: Path, golden_path: Path) -> None:
    doc = json.loads(golden_path.read_text(encoding="utf-8"))
    golden = from_document(doc)
    lineages = analyze_project(load_project(project_dir), jobs=1)
    actual = from_lineages(lineages)

    problems: list[str] = []
    missing = sorted(set(golden) - set(actual))
    extra = sorted(set(actual) - set(golden))
    if missing:
        problems.append(f"models in the golden, not analyzed: {missing}")
    if extra:
        problems.append(f"models analyzed, not in the golden: {extra}")
    for uid, model in sorted(doc["models"].items()):
        want = model.get("status", "resolved")
        if uid in lineages and lineages[uid].status.value != want:
            problems.append(f"{uid}: status {lineages[uid].status.value} ({lineages[uid].reason}), golden {want}")
    differences = diff(actual, golden, [uid for uid in golden if uid in actual])
    if differences:
        s = score(actual, golden)
        problems.append(
            f"{len(differences)} models differ ('-' golden only, '+' analysis only); edge precision "
            f"{s.edge_precision.value:.4f}, recall {s.edge_recall.value:.4f}, type accuracy {s.type_accuracy.value:.4f}\n"
            + format_diff(differences)
        )
    if problems:
        pytest.fail(f"{project_dir.name} vs {golden_path.name}:\n" + "\n".join(problems), pytrace=False)


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_PROJECTS)
def test_corpus_project_matches_its_golden(shared_dir: Path, name: str) -> None:
    project_dir = shared_dir / "corpus" / name
    if not project_dir.is_dir():
        pytest.fail(f"{project_dir} is missing from the shared corpus", pytrace=False)
    check_against_golden(project_dir, GOLDEN_DIR / f"{name}.lineage.json")


def test_coffee_shop_matches_its_golden() -> None:
    example = REPO / "examples" / "coffee_shop"
    check_against_golden(example, example / "expected_lineage.json")


def test_every_corpus_project_has_a_golden(shared_dir: Path) -> None:
    corpus = shared_dir / "corpus"
    projects = sorted(p.name for p in corpus.iterdir() if (p / "target" / "manifest.json").is_file())
    assert projects == sorted(CORPUS_PROJECTS)
    for name in projects:
        assert (GOLDEN_DIR / f"{name}.lineage.json").is_file(), name


# how each model of a golden was made: "checked_by_reading" (a person read the compiled SQL and
# checked every column's type and sources and the conditions) or "regression" (the analyzer's
# output, kept to catch change); the least count of models checked by reading per golden
MADE = ("checked_by_reading", "regression")
CHECKED_AT_LEAST = {
    "jaffle-shop": "all", "jaffle_shop_duckdb": "all", "dbt-project-evaluator": "all", "flipside-thorchain": "all",
    "fivetran-hubspot": "all", "tuva": 102,
}


@pytest.mark.parametrize("name", sorted(CHECKED_AT_LEAST))
def test_every_model_of_a_golden_says_how_it_was_made(name: str) -> None:
    doc = json.loads((GOLDEN_DIR / f"{name}.lineage.json").read_text(encoding="utf-8"))
    assert "checked_by_reading" not in doc  # said per model, not as a list
    made = {uid: m.get("made") for uid, m in doc["models"].items()}
    assert {uid: how for uid, how in made.items() if how not in MADE} == {}
    checked = sum(how == "checked_by_reading" for how in made.values())
    print(f"{name}: {checked} of {len(made)} models checked_by_reading, {len(made) - checked} regression")
    want = CHECKED_AT_LEAST[name]
    assert checked == len(made) if want == "all" else checked >= want


@pytest.mark.corpus
def test_evaluate_prints_the_share_of_resolved_models_and_columns(shared_dir: Path) -> None:
    from typer.testing import CliRunner

    from catalog.cli.app import app

    target = shared_dir / "corpus" / "flipside-thorchain"
    result = CliRunner().invoke(app, ["evaluate", str(target), "--golden", str(GOLDEN_DIR / "flipside-thorchain.lineage.json"), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    lineages = analyze_project(load_project(target), jobs=1)
    resolved_models = sum(m.status.value == "resolved" for m in lineages.values())
    columns = [c for m in lineages.values() for c in m.columns]
    assert doc["models_resolved"] == {"value": resolved_models / len(lineages), "hits": resolved_models, "total": 133}
    assert doc["columns_resolved"]["total"] == len(columns) == doc["type_accuracy"]["total"]
    assert doc["columns_resolved"]["hits"] == sum(c.resolved for c in columns)
    for key in ("edge_precision", "edge_recall", "type_accuracy", "condition_precision", "condition_recall"):
        assert doc[key]["value"] == 1.0, key
