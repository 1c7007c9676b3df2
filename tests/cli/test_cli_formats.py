"""The impact command's output formats, against a real Neo4j."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.builds import Builder
from catalog.cli.app import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


@pytest.mark.neo4j
def test_impact_cli_formats(neo4j_settings, graph, project_name):
    name = project_name
    Builder(graph, EXAMPLE, project_name=name).run()
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    as_json = invoke("impact", "stg_orders.order_id", "--project", name, "--json", env=env)
    assert as_json.exit_code == 0, as_json.stderr
    doc = json.loads(as_json.stdout)
    assert doc["models"] == sorted(
        f"model.coffee_shop.{m}" for m in ("customer_orders_daily", "customer_segments", "customers", "order_events", "orders")
    )
    selector = invoke("impact", "stg_orders.order_id", "--project", name, "-f", "selector", env=env)
    assert selector.stdout.strip() == "customer_orders_daily customer_segments customers order_events orders"
    md = invoke("impact", "stg_orders.order_id", "--project", name, "-f", "md", env=env)
    assert md.stdout.startswith("### Impact of `stg_orders.order_id`") and "| `orders` | `order_id` | 1 | passthrough |" in md.stdout
    missing = invoke("trace", "orders.nope", "--project", name, env=env)
    assert missing.exit_code == 1 and "no column 'orders.nope'" in missing.stderr


def test_forget_removes_one_project_only(neo4j_settings, graph, project_name):
    Builder(graph, EXAMPLE, project_name=project_name).run()
    Builder(graph, EXAMPLE, project_name=f"{project_name}_kept").run()
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    refused = invoke("forget", project_name, env=env)
    assert refused.exit_code == 2  # --yes is required
    done = invoke("forget", project_name, "--yes", "--json", env=env)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["builds_deleted"] == 1
    names = {r["name"] for r in graph.read("read/list_projects")}
    assert project_name not in names and f"{project_name}_kept" in names
    kept = invoke("trace", "customers.lifetime_value", "--project", f"{project_name}_kept", "--json", env=env)
    assert kept.exit_code == 0 and len(json.loads(kept.stdout)["columns"]) == 3
    again = invoke("forget", project_name, "--yes", env=env)
    assert again.exit_code == 1 and f"no project {project_name!r}" in again.stderr


@pytest.mark.neo4j
def test_impact_table_and_md_list_max_rows_columns_json_all(neo4j_settings, graph, project_name):
    Builder(graph, EXAMPLE, project_name=project_name).run()
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    ask = ("impact", "stg_orders.order_id", "--project", project_name)
    every = json.loads(invoke(*ask, "--json", "--max-rows", "2", env=env).stdout)["columns"]
    assert len(every) > 3  # json ignores --max-rows
    first_two = [(c["model"], c["name"]) for c in every[:2]]
    left = len(every) - 2
    note = f"{left} more columns not shown: --max-rows 0 shows every row, --format json lists them all"

    table = invoke(*ask, "--max-rows", "2", env=env)
    assert table.exit_code == 0, table.stderr
    assert note in table.stdout
    columns_table = table.stdout[: table.stdout.index(note)]  # the metrics and exposures hit follow
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in columns_table.splitlines() if line.startswith("│")]
    rows = [c for c in cells if c[2].isdigit()]  # a row's first line has its depth; long paths wrap onto more lines
    assert [r[1] for r in rows] == [name for _, name in first_two]

    md = invoke(*ask, "-f", "md", "--max-rows", "2", env=env)
    rows = [line for line in md.stdout.splitlines() if line.startswith("| `")]
    assert [tuple(cell.strip(" `") for cell in r.split("|")[1:3]) for r in rows] == first_two
    assert note in md.stdout

    whole = invoke(*ask, "-f", "md", "--max-rows", "0", env=env)
    assert len([line for line in whole.stdout.splitlines() if line.startswith("| `")]) == len(every)
    assert "more columns not shown" not in whole.stdout


@pytest.mark.neo4j
def test_an_answered_impact_loads_neither_sqlglot_nor_the_analyzer(neo4j_settings, graph, project_name):
    """Naming columns needs the dialect's case rule, not sqlglot: a read command starts without it."""
    import subprocess
    import sys

    Builder(graph, EXAMPLE, project_name=project_name).run()
    script = (
        "import sys\n"
        "from catalog.cli.app import app\n"
        "try:\n"
        f"    app(['impact', 'stg_orders.order_id', '--project', {project_name!r}, '--json'])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    env = {**os.environ, "NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "model.coffee_shop.orders" in json.loads(done.stdout)["models"]
    modules = set(done.stderr.split())
    assert not any(m == "sqlglot" or m.startswith(("sqlglot.", "catalog.analyze")) for m in modules)
