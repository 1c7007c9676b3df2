"""``catalog lineage --json``: the same bytes through orjson, model by model, as through the json
module; the same bytes streamed from the analysis, model by model in its order, as written from
every model's records at once."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.analyze.packed import Packed, pack
from catalog.analyze.project import analyze_project, analyze_project_packed
from catalog.analyze.records import ColumnKind, ColumnLineage, ColumnRef, Condition, ConditionClause, ModelLineage, ModelStatus
from catalog.cli.app import app
from catalog.extract import load_project
from catalog.report import lineage_json
from catalog.report.lineage_json import lineage_document, write_lineage_json

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop" / "target"
CORPUS_PROJECTS = ("jaffle_shop_duckdb", "jaffle-shop", "dbt-project-evaluator", "tuva", "flipside-thorchain", "fivetran-hubspot")


def written(lineages: dict[str, ModelLineage] | Iterable[Packed], warnings: list | None = None, fast: bool | None = None) -> str:
    out = io.StringIO()
    write_lineage_json(out, "shop", "duckdb", lineages, warnings, fast=fast)
    return out.getvalue()


def as_before(lineages: dict[str, ModelLineage], warnings: list | None = None) -> str:
    """What ``catalog lineage --json`` wrote before orjson: the json module, one document."""
    return json.dumps(lineage_document("shop", "duckdb", lineages, warnings), indent=2, default=str) + "\n"


def model(uid: str, expr: str, reason: str | None = None) -> ModelLineage:
    ref = ColumnRef(unique_id="model.shop.src", column="Name")
    return ModelLineage(
        unique_id=uid, status=ModelStatus.PARTIAL, reason=reason,
        columns=(
            ColumnLineage(name="b", kind=ColumnKind.DERIVED, resolved=True, expr=expr, sources=(ref,)),
            ColumnLineage(name="a", kind=ColumnKind.UNKNOWN, resolved=False, expr="?", reason="no table"),
        ),
        conditions=(Condition(column=ref, clause=ConditionClause.WHERE),),
    )  # fmt: skip


def test_the_text_is_the_json_modules_with_every_character_beyond_ascii_escaped() -> None:
    tricky = "caf\u00e9 \U0001f600 \x7f \x00\t\n \"q\" \\ / \u2028"
    lineages = {
        "model.shop.z\u00fc": model("model.shop.z\u00fc", tricky, reason="r\u00e9"),
        "model.shop.a": model("model.shop.a", "x + 1"),
        "model.shop.lone": model("model.shop.lone", "\ud800"),  # a lone surrogate: orjson refuses it, json writes it
    }
    warnings = [{"code": "w", "message": "m\u00e9", "models": ["model.shop.a"]}]
    fast = written(lineages, warnings, fast=True)
    assert fast == as_before(lineages, warnings) == written(lineages, warnings, fast=False)
    assert fast.isascii()
    assert '"expr": "caf\\u00e9 \\ud83d\\ude00 \\u007f \\u0000\\t\\n \\"q\\" \\\\ / \\u2028",' in fast
    assert '\n    "model.shop.z\\u00fc": {\n      "status": "partial",\n      "reason": "r\\u00e9",\n' in fast
    assert '"expr": "\\ud800",' in fast


def test_empty_models_and_warnings() -> None:
    assert written({}, fast=True) == as_before({}) == (
        '{\n  "project": "shop",\n  "dialect": "duckdb",\n  "warnings": [],\n  "models": {}\n}\n'
    )


def test_without_orjson_the_json_module_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    lineages = {"model.shop.a": model("model.shop.a", "caf\u00e9")}
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson raises ImportError
    assert written(lineages) == as_before(lineages)
    with pytest.raises(RuntimeError, match="needs orjson"):
        written(lineages, fast=True)


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_PROJECTS)
def test_corpus_lineage_is_the_same_bytes_through_orjson(shared_dir: Path, name: str) -> None:
    project = load_project(shared_dir / "corpus" / name)
    lineages = analyze_project(project, jobs=1)
    fast = written(lineages, fast=True)
    assert fast == as_before(lineages)
    assert len(json.loads(fast)["models"]) == len(lineages) > 0


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_PROJECTS)
def test_corpus_lineage_streamed_from_the_analysis_is_the_same_bytes(shared_dir: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written as the analysis yields each model (upstream models first), with orjson and
    without, the texts kept in memory and in a file: the document of all the records at once."""
    project = load_project(shared_dir / "corpus" / name)
    before = as_before(analyze_project(project, jobs=1))
    order = [p[0] for p in analyze_project_packed(project, jobs=1)]
    assert order != sorted(order)  # the analysis order: the writer sorts
    assert written(analyze_project_packed(project, jobs=1), fast=True) == before
    monkeypatch.setattr(lineage_json, "SPOOL_BYTES", 1)  # past its first model, the texts go to a file
    assert written(analyze_project_packed(project, jobs=1), fast=False) == before


def test_the_packed_lineages_in_any_order_are_the_records_document() -> None:
    lineages = {uid: model(uid, f"x + {i}") for i, uid in enumerate(["model.shop.b", "model.shop.c", "model.shop.a"])}
    assert written(pack(m) for m in lineages.values()) == written(lineages) == as_before(lineages)


def test_cli_failing_midway_writes_nothing_on_stdout_and_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from catalog.analyze import project as analysis

    analyzed = analysis.analyze_node_packed
    calls = []

    def fails_at_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("out of memory")
        return analyzed(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyze_node_packed", fails_at_the_third)
    result = CliRunner().invoke(app, ["lineage", str(EXAMPLE), "--json", "--jobs", "1"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert [line for line in result.stderr.splitlines() if line.startswith("Error:")] == [
        "Error: unexpected MemoryError: out of memory (set CATALOG_DEBUG=1 to see where)"
    ]


def test_cli_writes_the_same_bytes_with_and_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = CliRunner().invoke(app, ["lineage", str(EXAMPLE), "--json"])
    assert fast.exit_code == 0, fast.output
    monkeypatch.setitem(sys.modules, "orjson", None)
    plain = CliRunner().invoke(app, ["lineage", str(EXAMPLE), "--json"])
    assert plain.exit_code == 0, plain.output
    assert fast.stdout == plain.stdout
    project = load_project(EXAMPLE)
    assert fast.stdout == json.dumps(
        lineage_document(project.name, project.dialect, analyze_project(project, jobs=1), []), indent=2
    ) + "\n"
