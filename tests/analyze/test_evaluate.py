"""``catalog.evaluate`` and ``catalog evaluate``: scores and differences against golden files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.errors import CatalogError
from catalog.evaluate import ColumnFacts, ModelFacts, diff, format_diff, from_document, load_golden, score

REPO = Path(__file__).resolve().parents[2]
COFFEE = REPO / "examples" / "coffee_shop"

OURS = {
    "models": {
        "model.p.a": {
            "columns": {
                "ID": {"type": "passthrough", "sources": ["source.p.raw.t.ID"]},
                "total": {"type": "derived", "sources": ["source.p.raw.t.price", "source.p.raw.t.qty"]},
            },
            "conditions": [{"column": "source.p.raw.t.status", "clause": "where"}],
        }
    }
}
SYNTH = {
    "nodes": {
        "model.p.a": {
            "columns": {
                "id": {"type": "passthrough", "upstream": ["source.p.raw.t.id"]},
                "total": {"type": "derived", "upstream": ["source.p.raw.t.price", "source.p.raw.t.qty"], "window_refs": []},
            },
            "conditions": [{"column": "source.p.raw.t.status", "clause": "where"}],
        },
        "snapshot.p.s": {
            "columns": {
                "dbt_valid_to": {"type": "snapshot_meta", "upstream": []},
                "x": {"type": "passthrough", "upstream": ["model.p.a.id"], "snapshot_meta": True},
            },
            "conditions": [],
        },
    }
}


def test_both_shapes_read_alike_and_case_insensitively() -> None:
    ours = from_document(OURS)
    synth = from_document(SYNTH)
    assert ours["model.p.a"] == synth["model.p.a"]
    assert ours["model.p.a"].columns["id"] == ColumnFacts("passthrough", frozenset({"source.p.raw.t.id"}))
    assert synth["snapshot.p.s"].columns["dbt_valid_to"].type == "source"
    assert synth["snapshot.p.s"].columns["x"].type == "passthrough"  # the flag alone is not a type


def test_a_models_made_key_is_read_and_ignored() -> None:
    """A golden says per model how it was made; the facts compared are the same either way."""
    made = {"models": {uid: {**m, "made": "checked_by_reading"} for uid, m in OURS["models"].items()}}
    assert from_document(made) == from_document(OURS)
    assert from_document({"models": {"model.p.a": {**OURS["models"]["model.p.a"], "made": "regression"}}}) == from_document(OURS)


def test_not_a_lineage_document() -> None:
    with pytest.raises(CatalogError):
        from_document({"something": {}})


def test_load_golden_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogError, match="not JSON"):
        load_golden(bad)
    with pytest.raises(CatalogError, match="cannot read"):
        load_golden(tmp_path / "missing.json")


def test_scores_count_edges_types_and_conditions() -> None:
    golden = from_document(SYNTH)
    actual = {
        "model.p.a": ModelFacts(
            {
                "id": ColumnFacts("renamed", frozenset({"source.p.raw.t.id"})),
                "total": ColumnFacts("derived", frozenset({"source.p.raw.t.price", "source.p.raw.t.tax"})),
                "extra": ColumnFacts("source", frozenset()),
            },
            frozenset({("source.p.raw.t.status", "where"), ("source.p.raw.t.id", "join")}),
        ),
        "model.p.other": ModelFacts({}, frozenset()),
    }
    s = score(actual, golden)
    assert s.models == 1
    assert s.models_missing == ["snapshot.p.s"]
    assert s.models_extra == ["model.p.other"]
    assert (s.edge_precision.hits, s.edge_precision.total) == (2, 3)
    # recall counts the missing snapshot's edge too
    assert (s.edge_recall.hits, s.edge_recall.total) == (2, 4)
    assert (s.type_accuracy.hits, s.type_accuracy.total) == (1, 2)
    assert (s.condition_precision.hits, s.condition_precision.total) == (1, 2)
    assert (s.condition_recall.hits, s.condition_recall.total) == (1, 1)
    assert s.columns_extra == 1 and s.columns_missing == 2

    lines = {d.unique_id: d.lines for d in diff(actual, golden, ["model.p.a"])}["model.p.a"]
    assert "  id: type renamed, golden passthrough" in lines
    assert "- total <- source.p.raw.t.qty" in lines
    assert "+ total <- source.p.raw.t.tax" in lines
    assert "+ column extra (source <- nothing)" in lines
    assert "+ condition join: source.p.raw.t.id" in lines
    text = format_diff(diff(actual, golden))
    assert "model not analyzed" in text and "model not in the golden" in text


def test_identical_lineage_scores_one_and_has_no_diff() -> None:
    golden = from_document(SYNTH)
    s = score(golden, golden)
    for ratio in (s.edge_precision, s.edge_recall, s.type_accuracy, s.condition_precision, s.condition_recall):
        assert ratio.value == 1.0
    assert diff(golden, golden) == []


def test_cli_evaluate_on_the_example() -> None:
    result = CliRunner().invoke(app, ["evaluate", str(COFFEE), "--golden", str(COFFEE / "expected_lineage.json")])
    assert result.exit_code == 0, result.output
    assert "edge precision:       100.00%" in result.output
    assert "condition recall:     100.00%" in result.output


def test_cli_evaluate_json_and_diff(tmp_path: Path) -> None:
    doc = json.loads((COFFEE / "expected_lineage.json").read_text(encoding="utf-8"))
    col = doc["models"]["model.coffee_shop.customers"]["columns"]["customer_id"]
    col["sources"] = [*col["sources"], "model.coffee_shop.stg_customers.email"]
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps(doc), encoding="utf-8")

    result = CliRunner().invoke(app, ["evaluate", str(COFFEE), "--golden", str(golden), "--json", "--diff"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["edge_precision"]["value"] == 1.0
    assert data["edge_recall"]["hits"] == data["edge_recall"]["total"] - 1
    assert data["differences"] == {
        "model.coffee_shop.customers": ["- customer_id <- model.coffee_shop.stg_customers.email"]
    }

    text = CliRunner().invoke(app, ["evaluate", str(COFFEE), "--golden", str(golden), "--diff"])
    assert text.exit_code == 0
    assert "- customer_id <- model.coffee_shop.stg_customers.email" in text.output


def test_cli_evaluate_bad_golden(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"neither": 1}', encoding="utf-8")
    result = CliRunner().invoke(app, ["evaluate", str(COFFEE), "--golden", str(bad)])
    assert result.exit_code == 1
    assert "not a lineage document" in result.output
