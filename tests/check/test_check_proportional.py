"""``catalog check`` analyzes the change only where its lineage can differ from the base's, and
the base once (kept between runs): the report is exactly the one both versions analyzed in
full give, in --state mode (cache cold and warm) and against a build in Neo4j, on real edits of
a corpus project: a star expansion and a column type that must reach downstream, and an edit
whose output columns stay the same, which must not."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlglot
from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.check import CheckReport, check_states
from catalog.check_change import check_change
from catalog.cli.app import app
from catalog.compare import sql_changed_models
from catalog.extract import load_project
from catalog.report.check_ci import github_annotations, sarif_log
from catalog.report.check_md import check_markdown
from edits import drop_catalog_column, edit_catalog_type, edit_sql
from test_prune import neo4j_env

pytestmark = pytest.mark.corpus

JAFFLE = "model.jaffle_shop"
STG_PAYMENTS, STG_ORDERS, STG_CUSTOMERS = f"{JAFFLE}.stg_payments", f"{JAFFLE}.stg_orders", f"{JAFFLE}.stg_customers"


def _star(target: Path) -> None:
    """stg_payments no longer selects payment_method (and catalog.json says so): the ``select *``
    of orders and customers over it expands to one column fewer, and orders' sums read it."""
    edit_sql(target, STG_PAYMENTS, "        payment_method,\n", "")
    drop_catalog_column(target, STG_PAYMENTS, "payment_method")


def _type(target: Path) -> None:
    """stg_orders' order_date becomes a timestamp: a new type for what orders and customers read."""
    edit_sql(target, STG_ORDERS, "        order_date,\n", "        cast(order_date as timestamp) as order_date,\n")
    edit_catalog_type(target, STG_ORDERS, "order_date", "TIMESTAMP")


def _same_output(target: Path) -> None:
    """stg_customers' CTE renamed: other SQL, the same output columns."""
    edit_sql(target, STG_CUSTOMERS, "renamed", "customers_renamed")


# edit -> the models analyzed again in the change, besides the edited one
EDITS: dict[str, tuple[Callable[[Path], None], set[str]]] = {
    "star": (_star, {f"{JAFFLE}.orders", f"{JAFFLE}.customers"}),
    "type": (_type, {f"{JAFFLE}.orders", f"{JAFFLE}.customers"}),
    "same_output": (_same_output, set()),
}


@pytest.fixture
def base(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "jaffle_shop_duckdb" / "target"


def _edited(base: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name / "target"
    shutil.copytree(base, target)
    EDITS[name][0](target)
    return target


def _full(base: Path, target: Path) -> CheckReport:
    """The report with both versions analyzed in full, every model of each."""
    old, new = load_project(base), load_project(target)
    changed = sql_changed_models(old, new)
    old_lineages = analyze_project(old, jobs=1, fingerprints=changed)
    new_lineages = analyze_project(new, jobs=1, fingerprints=changed)
    return check_states(old, old_lineages, new, new_lineages, base=str(base))


def _formats(report: CheckReport) -> list[str]:
    root = Path.cwd()
    rendered = [report.to_dict(), check_markdown(report, "breaking"), github_annotations(report, "breaking", None, root), sarif_log(report, "breaking", None, root)]
    return [json.dumps(r, sort_keys=True) if not isinstance(r, str) else r for r in rendered]


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL texts sqlglot parses from now on."""
    seen: list[str] = []
    real = sqlglot.parse

    def counting(sql, *args, **kwargs):
        seen.append(sql)
        return real(sql, *args, **kwargs)

    monkeypatch.setattr(sqlglot, "parse", counting)
    return seen


@pytest.mark.parametrize("name", sorted(EDITS))
def test_state_mode_gives_the_full_analysis_report(name, base, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    target = _edited(base, tmp_path, name)
    full = _full(base, target)
    cold = check_change(target, state=base, jobs=1).report  # the change's region, the base analyzed in part
    check_change(target, state=base, jobs=1, partial=False)  # the whole base analyzed, and kept in the cache
    parsed = _parsed(monkeypatch)
    warm = check_change(target, state=base, jobs=1, partial=False).report  # the base's lineage from the cache
    assert _formats(cold) == _formats(full)
    assert _formats(warm) == _formats(full)
    assert list(full.findings) if name != "same_output" else not full.findings

    # the change was analyzed where its lineage can differ, no further: the edited model (on
    # both sides, for the definitions of its columns) and the readers of a changed column set or type
    old, new = load_project(base), load_project(target)
    edited = sql_changed_models(old, new)
    again = {uid for uid in new.nodes if new.nodes[uid].sql in parsed and uid not in edited}
    assert again == EDITS[name][1]
    assert sorted(parsed) == sorted([*(old.nodes[u].sql for u in edited), *(new.nodes[u].sql for u in edited | again)])


@pytest.mark.neo4j
def test_graph_mode_gives_the_full_analysis_report(base, tmp_path, build, project_name, neo4j_settings, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    built = build(base, project_name)
    env = neo4j_env(neo4j_settings)
    for name in sorted(EDITS):
        target = _edited(base, tmp_path, name)
        full = _full(base, target).model_copy(update={"base": f"build {built.build_id}", "project": project_name})
        for _ in range(2):  # the base analyzed, then from the cache
            done = CliRunner().invoke(app, ["check", str(target), "--project", project_name, "--json", "--fail-on", "never"], env=env)
            assert done.exit_code == 0, done.output
            answer = json.loads(done.stdout)
            assert {k: v for k, v in answer.items() if k not in ("fail_on", "warnings")} == json.loads(json.dumps(full.to_dict())), name


EVALUATOR = "model.dbt_project_evaluator_integration_tests"
# dbt-project-evaluator's ephemeral models (not in catalog.json): their readers see their analyzed columns
EVALUATOR_EDITS: dict[str, Callable[[Path], None]] = {
    "ephemeral_star": lambda t: edit_sql(
        t, f"{EVALUATOR}.dim_model_7", "select * from __dbt__cte__stg_model_4", "select id, 1 as version from __dbt__cte__stg_model_4"
    ),
    "renamed": lambda t: edit_sql(t, f"{EVALUATOR}.fct_model_6", "select 1 as id", "select 1 as ident"),
}


@pytest.mark.parametrize("name", sorted(EVALUATOR_EDITS))
def test_state_mode_on_ephemeral_models_gives_the_full_analysis_report(name, shared_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    base = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    target = tmp_path / "target"
    shutil.copytree(base, target)
    EVALUATOR_EDITS[name](target)
    full = _full(base, target)
    assert full.findings
    for _ in range(2):  # cache cold, then warm
        assert _formats(check_change(target, state=base, jobs=1).report) == _formats(full)


@pytest.mark.neo4j
def test_graph_mode_reads_the_base_from_the_build(base, tmp_path, build, graph, project_name, monkeypatch):
    """Against a build, the base's lineage is the one the build stored (the cache empty), and
    its records those of the nodes the change alters: sqlglot parses the edited models and
    their readers, as with a cached base, and the report is the full analysis's."""
    from contextlib import nullcontext

    import catalog.store.records as records

    monkeypatch.setenv("CATALOG_CACHE_DIR", str(tmp_path / "cache"))
    built = build(base, project_name)
    target = _edited(base, tmp_path, "type")
    full = _full(base, target).model_copy(update={"base": f"build {built.build_id}", "project": project_name})
    validated: list[str] = []
    real = records.DbtNode.model_validate_json
    monkeypatch.setattr(records.DbtNode, "model_validate_json", lambda text: validated.append(text) or real(text))
    parsed = _parsed(monkeypatch)
    report = check_change(target, project=project_name, jobs=1, graph=lambda: nullcontext(graph)).report
    assert _formats(report) == _formats(full)
    old, new = load_project(base), load_project(target)
    edited = sql_changed_models(old, new)
    again = {uid for uid in new.nodes if new.nodes[uid].sql in parsed and uid not in edited}
    assert again == EDITS["type"][1]
    assert sorted(parsed) == sorted([*(old.nodes[u].sql for u in edited), *(new.nodes[u].sql for u in edited | again)])
    assert sorted(json.loads(v)["unique_id"] for v in validated) == sorted(edited)  # the other nodes' records are not read
