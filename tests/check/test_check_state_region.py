"""``catalog check --state BASE`` analyzes only the part of the project a change can reach
(:mod:`catalog.check_state_region`): its report is the one the whole project gives
(``partial=False``) in every format, with the same exit code, on the example's edits,
jaffle_shop's, the evaluator's, and on a synthetic project edited so that each kind of finding
appears (the edits of :mod:`test_check_region`), with or without the base in the cache."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import catalog.check_region as check_region_module
import catalog.check_state_region as state_region
from catalog.check import CheckReport
from catalog.check_change import check_change
from catalog.cli.app import app
from test_check_graph import EXAMPLE_EDITS
from test_check_proportional import EDITS as JAFFLE_EDITS
from test_check_proportional import EVALUATOR_EDITS, _formats
from test_check_region import EXAMPLE, _consumers, _synth_edits

FORMATS = ("table", "gitlab", "json")  # and the exit code; md, github and sarif: _formats, from the report


def _reports(target: Path, base: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[CheckReport, CheckReport, bool]:
    """The partial check's report, the whole project's, and whether the partial one stood alone."""
    answers: list[object] = []
    real = state_region.check_against_state
    monkeypatch.setattr(state_region, "check_against_state", lambda *a: answers.append(found := real(*a)) or found)
    partial = check_change(target, state=base, jobs=1).report
    monkeypatch.setattr(state_region, "check_against_state", real)
    whole = check_change(target, state=base, jobs=1, partial=False).report
    return partial, whole, answers[0] is not None


def _outputs(target: Path, base: Path) -> dict[str, tuple[int, str]]:
    """Each format's exit code and output of ``catalog check TARGET --state BASE``."""
    runner = CliRunner()
    out = {}
    for fmt in FORMATS:
        done = runner.invoke(app, ["check", str(target), "--state", str(base), "-f", fmt, "-j", "1"])
        out[fmt] = (done.exit_code, done.stdout)
    return out


def _check_edits(base: Path, edits: dict[str, Callable[[Path], None]], tmp_path: Path, monkeypatch, cli: bool = False) -> dict[str, CheckReport]:
    """Each edit's report, the partial one checked against the whole project's (and, with
    ``cli``, each format's output and exit code of the command)."""
    monkeypatch.setenv("CATALOG_CACHE_DIR", "off")
    out = {}
    for name, edit in edits.items():
        target = tmp_path / name / "target"
        shutil.copytree(base, target)
        edit(target)
        partial, whole, regional = _reports(target, base, monkeypatch)
        assert _formats(partial) == _formats(whole), name
        assert regional, f"{name}: the whole project was analyzed"
        if cli:
            regional_outputs = _outputs(target, base)
            with monkeypatch.context() as whole_only:
                whole_only.setattr(state_region, "check_against_state", lambda *a: None)
                assert regional_outputs == _outputs(target, base), name
        out[name] = whole
    return out


def test_the_example_edits(tmp_path, monkeypatch):
    edits = {k: v for k, v in EXAMPLE_EDITS.items() if k != "measure"}  # a consumer changed: the whole project
    reports = _check_edits(EXAMPLE, edits, tmp_path, monkeypatch, cli=True)
    assert all(r.findings for r in reports.values())
    target = tmp_path / "measure" / "target"
    shutil.copytree(EXAMPLE, target)
    EXAMPLE_EDITS["measure"](target)
    partial, whole, regional = _reports(target, EXAMPLE, monkeypatch)
    assert _formats(partial) == _formats(whole) and not regional


def test_a_cached_base_is_left_to_the_whole_comparison(tmp_path, monkeypatch):
    """The region is analyzed even when the cache keeps the whole base; the whole comparison
    (a consumer changed) reads the entry."""
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("drop", "measure"):
        target = tmp_path / name / "target"
        shutil.copytree(EXAMPLE, target)
        EXAMPLE_EDITS[name](target)
        whole = check_change(target, state=EXAMPLE, jobs=1, partial=False).report  # analyzes the base whole, and keeps it
        partial, _, regional = _reports(target, EXAMPLE, monkeypatch)
        assert _formats(partial) == _formats(whole) and regional == (name == "drop"), name
    assert len(list((tmp_path / "cache").glob("*.lineage"))) == 1


@pytest.mark.corpus
def test_the_corpus_edits(shared_dir, tmp_path, monkeypatch):
    jaffle = shared_dir / "corpus" / "jaffle_shop_duckdb" / "target"
    _check_edits(jaffle, {k: v for k, (v, _) in JAFFLE_EDITS.items()}, tmp_path / "jaffle", monkeypatch)
    evaluator = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    reports = _check_edits(evaluator, EVALUATOR_EDITS, tmp_path / "evaluator", monkeypatch)
    assert all(r.findings for r in reports.values())


@pytest.mark.corpus
def test_a_synthetic_project(shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", "off")
    tool = shared_dir / "tools" / "synth_dbt.py"
    done = subprocess.run([sys.executable, str(tool), "--models", "300", "--seed", "11", "--out", str(tmp_path / "synth"), "--quiet"], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    base = tmp_path / "synth" / "target"
    _consumers(base, tmp_path)
    regions: list = []
    beyond: list[set[str]] = []  # per check, the models the PII walk reached outside the region
    region, reach = check_region_module.check_region, check_region_module.pii_reach
    monkeypatch.setattr(check_region_module, "check_region", lambda old, new: regions.append(found := region(old, new)) or found)
    monkeypatch.setattr(check_region_module, "pii_reach", lambda *a: beyond.append((found := reach(*a)) - regions[-1].kept()) or found)
    reports = _check_edits(base, _synth_edits(base), tmp_path / "edits", monkeypatch, cli=True)
    assert any(beyond), "the PII walk never left the region: the base's lazy analysis is not checked"
    # each kind of finding appeared, the PII policy's among them, on both sides of the region
    kinds = {name: {c for f in r.findings for c in f.changes} | {f.why.split(" ")[0] for f in r.findings} for name, r in reports.items()}
    assert {"pii_flow", "pii_tag", "reads_removed", "breaks"} <= set().union(*kinds.values()), kinds
    assert {"exposure", "metric"} <= {kind for f in reports["hub"].findings for kind in ("exposure", "metric") if f.hit_names(kind)}
    assert reports["hub"].tests and any("unused" in f.why for f in reports["added_unread"].findings)
