"""Against a build, ``catalog check`` reads and compares only the part of the project the change
can reach (:mod:`catalog.check_region`): its report is the one the whole project gives
(``partial=False``), in every format, on the corpus edits checked in Neo4j mode and on a
synthetic project whose base has an exposure, a metric and an enforced contract, edited so that
each kind of finding appears: an expression read by hundreds of columns, a new PII flow, a PII
tag removed, an added column nobody reads, a removed column read downstream, a contract broken."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest

import catalog.check as check
import catalog.check_region as check_region
from catalog.check import CheckReport
from catalog.check_change import check_change
from edits import drop_catalog_column, edit_column, edit_manifest, edit_sql, enforce_contract
from test_check_graph import EXAMPLE_EDITS
from test_check_proportional import EDITS as JAFFLE_EDITS
from test_check_proportional import EVALUATOR_EDITS, _formats

pytestmark = pytest.mark.neo4j

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"
SYNTH = "model.synth"
HUB = f"{SYNTH}.stg_shop__customers"


def HUB_EDIT(target: Path) -> None:
    """The key of stg_shop__customers, which hundreds of columns read (value and joins)."""
    edit_sql(target, HUB, "id as customer_id", "id + 0 as customer_id")


# per edit: the nodes of the model-level region, and those the partial check compared
SIZES: dict[str, tuple[int, int]] = {}


def _reports(target: Path, project: str, graph, monkeypatch: pytest.MonkeyPatch) -> tuple[CheckReport, CheckReport, bool]:
    """The partial check's report, the whole project's, and whether the partial one read a
    region (its size and the model-level region's in SIZES, by the target's folder name)."""
    regions: list[object] = []
    compared: list[int] = []
    real, checked = check_region.check_region, check.check_states
    monkeypatch.setattr(check_region, "check_region", lambda old, new: regions.append(found := real(old, new)) or found)
    monkeypatch.setattr(check, "check_states", lambda old, *a, **k: compared.append(len(old.nodes)) or checked(old, *a, **k))
    partial = check_change(target, project=project, jobs=1, graph=lambda: nullcontext(graph)).report
    monkeypatch.setattr(check, "check_states", checked)
    whole = check_change(target, project=project, jobs=1, graph=lambda: nullcontext(graph), partial=False).report
    monkeypatch.setattr(check_region, "check_region", real)
    if regions[0] is not None:
        SIZES[target.parent.name] = (len(regions[0].kept()), compared[0])
    return partial, whole, regions[0] is not None


def _check_edits(base: Path, edits: dict[str, Callable[[Path], None]], project: str, graph, tmp_path: Path, monkeypatch) -> dict[str, CheckReport]:
    out = {}
    for name, edit in edits.items():
        target = tmp_path / name / "target"
        shutil.copytree(base, target)
        edit(target)
        partial, whole, regional = _reports(target, project, graph, monkeypatch)
        assert _formats(partial) == _formats(whole), name
        assert regional, f"{name}: the whole project was compared"
        out[name] = whole
    return out


def test_the_example_edits(build, graph, project_name, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    build(EXAMPLE, project_name)
    edits = {k: v for k, v in EXAMPLE_EDITS.items() if k != "measure"}  # a consumer changed: the whole project
    reports = _check_edits(EXAMPLE, edits, project_name, graph, tmp_path, monkeypatch)
    assert all(r.findings for r in reports.values())
    target = tmp_path / "measure" / "target"
    shutil.copytree(EXAMPLE, target)
    EXAMPLE_EDITS["measure"](target)
    partial, whole, regional = _reports(target, project_name, graph, monkeypatch)
    assert _formats(partial) == _formats(whole) and not regional


@pytest.mark.corpus
def test_the_corpus_edits(build, graph, project_name, shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    jaffle = shared_dir / "corpus" / "jaffle_shop_duckdb" / "target"
    build(jaffle, project_name)
    _check_edits(jaffle, {k: v for k, (v, _) in JAFFLE_EDITS.items()}, project_name, graph, tmp_path / "jaffle", monkeypatch)
    evaluator = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    build(evaluator, f"{project_name}_evaluator")
    reports = _check_edits(evaluator, EVALUATOR_EDITS, f"{project_name}_evaluator", graph, tmp_path / "evaluator", monkeypatch)
    assert all(r.findings for r in reports.values())


# ------------------------------------------------------------------ a synthetic project
def _consumers(target: Path, tmp_path: Path) -> None:
    """An exposure and a metric over models whose customer_id the hub edit changes, and an
    enforced contract on a third one."""
    probe = tmp_path / "probe" / "target"
    shutil.copytree(target, probe)
    HUB_EDIT(probe)
    hits = check_change(probe, state=target, jobs=1).report.findings
    readers = sorted({h.owner for f in hits for h in f.hits if h.kind == "column" and h.key == f"{h.owner}.customer_id" and h.lineage == "value"})
    exposed, measured, contracted = readers[0], readers[1], readers[2]
    manifest = json.loads((target / "manifest.json").read_text())

    def change(m) -> None:
        uid = "exposure.synth.customer_dashboard"
        m["exposures"][uid] = {
            "name": "customer_dashboard", "resource_type": "exposure", "package_name": "synth", "path": "marts/_marts.yml",
            "original_file_path": "models/marts/_marts.yml", "unique_id": uid, "fqn": ["synth", "marts", "customer_dashboard"],
            "type": "dashboard", "owner": {"email": "crm@example.com", "name": "CRM"}, "description": "", "label": None,
            "maturity": "high", "meta": {}, "tags": [], "config": {"enabled": True, "tags": [], "meta": {}}, "unrendered_config": {},
            "url": None, "depends_on": {"macros": [], "nodes": [exposed]}, "refs": [{"name": exposed.split(".")[-1], "package": None, "version": None}],
            "sources": [], "metrics": [], "created_at": 0.0,
        }  # fmt: skip
        node = m["nodes"][measured]
        name = node["name"]
        sm, metric = f"semantic_model.synth.{name}", "metric.synth.customer_count"
        shared = {"package_name": "synth", "path": "_models.yml", "original_file_path": "models/_models.yml", "description": None, "label": None, "metadata": None}
        measure = {"name": "customers", "agg": "count_distinct", "description": None, "label": None, "create_metric": False, "expr": "customer_id", "agg_params": None,
                   "non_additive_dimension": None, "agg_time_dimension": None, "config": {"meta": {}}}  # fmt: skip
        m["semantic_models"][sm] = {
            **shared, "name": name, "resource_type": "semantic_model", "unique_id": sm, "fqn": ["synth", name], "model": f"ref('{name}')",
            "defaults": None, "entities": [], "measures": [measure], "dimensions": [],
            "node_relation": {"alias": node["alias"], "schema_name": node["schema"], "database": node["database"], "relation_name": node["relation_name"]},
            "depends_on": {"macros": [], "nodes": [measured]}, "refs": [{"name": name, "package": None, "version": None}],
            "created_at": 0.0, "config": {"enabled": True, "group": None, "meta": {}}, "unrendered_config": {}, "primary_entity": None, "group": None,
        }  # fmt: skip
        measure_input = {"name": "customers", "filter": None, "alias": None, "join_to_timespine": False, "fill_nulls_with": None}
        m["metrics"][metric] = {
            **shared, "name": "customer_count", "resource_type": "metric", "unique_id": metric, "fqn": ["synth", "customer_count"], "type": "simple",
            "type_params": {"measure": measure_input, "input_measures": [measure_input], "numerator": None, "denominator": None, "expr": None,
                            "window": None, "grain_to_date": None, "metrics": [], "conversion_type_params": None, "cumulative_type_params": None,
                            "metric_aggregation_params": None},
            "filter": None, "metadata": None, "time_granularity": None, "meta": {}, "tags": [], "config": {"enabled": True, "group": None, "meta": {}},
            "unrendered_config": {}, "sources": [], "depends_on": {"macros": [], "nodes": [sm]}, "refs": [], "metrics": [], "created_at": 0.0, "group": None,
        }  # fmt: skip

    edit_manifest(target, change)
    enforce_contract(target, contracted)


def _leaf(manifest: dict) -> str:
    """The first model (by unique id) nothing reads whose SQL has a ``coalesce(``."""
    read = {d for n in manifest["nodes"].values() for d in n.get("depends_on", {}).get("nodes", ())}
    return min(uid for uid, n in manifest["nodes"].items() if n["resource_type"] == "model" and uid not in read and "coalesce(" in n["compiled_code"])


def _synth_edits(base: Path) -> dict[str, Callable[[Path], None]]:
    manifest = json.loads((base / "manifest.json").read_text())
    leaf = _leaf(manifest)
    contracted = min(uid for uid, n in manifest["nodes"].items() if n.get("contract", {}).get("enforced"))
    kept = next(c for c in manifest["nodes"][contracted]["columns"] if c in manifest["nodes"][contracted]["compiled_code"] and c != "customer_id")

    def removed(target: Path) -> None:
        edit_sql(target, HUB, "        first_name,\n", "")
        drop_catalog_column(target, HUB, "first_name")

    return {
        "hub": HUB_EDIT,
        "hub_email": lambda t: edit_sql(t, HUB, "lower(trim(email)) as email", "lower(email) as email"),
        "leaf": lambda t: edit_sql(t, leaf, "coalesce(", "nullif(1, 2) + coalesce(", ),
        "pii_flow": lambda t: edit_sql(t, HUB, "        first_name,\n", "        first_name,\n        first_name as greeting_name,\n"),
        "pii_untag": lambda t: edit_column(t, f"{SYNTH}.int_customers__with_details", "first_name", meta={}, tags=[], config={"meta": {}, "tags": []}),
        "added_unread": lambda t: edit_sql(t, leaf, "select", "select 1 as unread_flag,", ),
        "removed_read": removed,
        "contract": lambda t: edit_column(t, contracted, kept, data_type="boolean"),
        # the column-level region: rows of every column, a column added to a model read by others, a record's access
        "hub_rows": lambda t: edit_sql(t, HUB, "    from source\n", "    from source\n    where not is_deleted\n"),
        "hub_added": lambda t: edit_sql(t, HUB, "        platform,\n", "        platform,\n        platform as platform_again,\n"),
        "public": lambda t: edit_manifest(t, lambda m: m["nodes"][f"{SYNTH}.int_customers__with_details"].update(access="public")),
    }


@pytest.mark.corpus
def test_a_synthetic_project(build, graph, project_name, shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    tool = shared_dir / "tools" / "synth_dbt.py"
    done = subprocess.run([sys.executable, str(tool), "--models", "300", "--seed", "11", "--out", str(tmp_path / "synth"), "--quiet"], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    base = tmp_path / "synth" / "target"
    _consumers(base, tmp_path)
    build(base, project_name)
    reports = _check_edits(base, _synth_edits(base), project_name, graph, tmp_path / "edits", monkeypatch)
    changes = {name: {c for f in r.findings for c in f.changes} for name, r in reports.items()}
    assert "pii_flow" in changes["pii_flow"] and "pii_tag" in changes["pii_untag"]
    assert "reads_removed" in changes["removed_read"]
    assert any(f.why.startswith("breaks the enforced contract") for f in reports["contract"].findings)
    assert any("unused" in f.why for f in reports["added_unread"].findings)
    hub = reports["hub"].findings
    assert any(f.hit_names("exposure") for f in hub) and any(f.hit_names("metric") for f in hub)
    assert reports["hub"].tests  # the dbt tests of the changed column, in the selector
    assert {c for f in reports["hub_rows"].findings for c in f.changes} >= {"rows"}
    assert "pii_flow" in {c for f in reports["public"].findings for c in f.changes}
    # the email of the hub reaches fewer models than every model downstream of the hub
    region, compared = SIZES["hub_email"]
    assert compared < region / 2, SIZES
