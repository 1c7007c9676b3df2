"""Nodes of another dbt project (dbt Mesh) are `external`, with a reason naming that project
(no Neo4j).

examples/mesh/finance's manifest holds platform's six nodes as dbt-loom injects them:
package_name `platform`, empty path and original_file_path, no SQL, no columns (the two seeds
as resource_type `model`, unique ids `seed.platform.*`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.extract import load_project

MESH = Path(__file__).resolve().parents[2] / "examples" / "mesh"
FINANCE = MESH / "finance" / "target"
REASON = (
    "a node of the dbt project platform, whose build has its SQL and lineage "
    "(`catalog build` platform into the same database to follow its columns)"
)


def test_injected_nodes_are_external_with_the_project_named():
    project = load_project(FINANCE)
    external = {uid: (n.resource_type, n.external_project) for uid, n in project.nodes.items() if n.external_project}
    assert external == {
        "model.platform.dim_customers": ("model", "platform"),
        "model.platform.fct_orders": ("model", "platform"),
        "model.platform.stg_customers": ("model", "platform"),
        "model.platform.stg_orders": ("model", "platform"),
        "seed.platform.raw_customers": ("seed", "platform"),
        "seed.platform.raw_orders": ("seed", "platform"),
    }
    runner = CliRunner()
    done = runner.invoke(app, ["lineage", str(FINANCE), "--json"])
    assert done.exit_code == 0, done.output
    models = json.loads(done.stdout)["models"]
    assert {uid: (m["status"], m["reason"]) for uid, m in models.items() if not uid.startswith("model.finance.")} == {
        uid: ("external", REASON) for uid in external if uid.startswith("model.")
    }
    assert "dbt compile" not in done.stdout
    # finance's own models read platform's columns by name, as for any relation of unknown columns
    assert models["model.finance.customer_revenue"]["columns"]["email"]["sources"] == ["model.platform.dim_customers.email"]
    assert models["model.finance.customer_revenue"]["status"] == "resolved"


def test_a_project_named_in_dependencies_yml_is_external_even_with_a_path(tmp_path):
    """dbt Cloud may write a path for a foreign node: `projects:` of dependencies.yml decides."""
    folder = tmp_path / "finance"
    shutil.copytree(MESH / "finance", folder, ignore=shutil.ignore_patterns("models", "macros"))
    manifest = json.loads((folder / "target" / "manifest.json").read_text())
    manifest["nodes"]["model.platform.fct_orders"]["original_file_path"] = "models/marts/fct_orders.sql"
    (folder / "target" / "manifest.json").write_text(json.dumps(manifest))
    assert load_project(folder / "target").nodes["model.platform.fct_orders"].external_project == "platform"
    (folder / "dependencies.yml").write_text("packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n")
    # the same node of an installed package (the project-as-a-package pattern) is the project's own
    node = load_project(folder / "target").nodes["model.platform.fct_orders"]
    assert node.external_project is None and node.resource_type == "model"
    (folder / "dependencies.yml").write_text("projects: [oops\n")
    done = CliRunner().invoke(app, ["lineage", str(folder / "target")])
    assert done.exit_code == 1
    assert done.output.startswith(f"Error: {folder / 'dependencies.yml'}: not readable as YAML (")


def test_external_columns_come_from_yaml_when_the_manifest_has_them(tmp_path):
    target = tmp_path / "target"
    shutil.copytree(FINANCE, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["nodes"]["model.platform.fct_orders"]["columns"] = {
        "order_id": {"name": "order_id", "data_type": "integer"},
        "amount": {"name": "amount", "data_type": "decimal(18,2)"},
    }
    (target / "manifest.json").write_text(json.dumps(manifest))
    project = load_project(target)
    lineage = analyze_project(project, jobs=1)["model.platform.fct_orders"]
    assert lineage.status.value == "external"
    assert [(c.name, c.kind.value, c.resolved) for c in lineage.columns] == [("order_id", "unknown", False), ("amount", "unknown", False)]
