"""One graph across dbt projects (dbt Mesh): examples/mesh's platform (the producer) and
finance (the consumer, whose manifest holds platform's nodes as dbt-loom injects them).

From the compiled SQL: platform's stg_customers has `lower(email) as email` from the seed
raw_customers, dim_customers passes `email` through; stg_orders has
`cast(amount_cents / 100.0 as decimal(18, 2)) as amount` from the seed raw_orders, fct_orders
passes `amount` through. finance's customer_revenue passes `c.email` through from
dim_customers and has `sum(o.amount) as revenue` over fct_orders; monthly_revenue has
`sum(amount) as revenue` over fct_orders; revenue_by_country sums customer_revenue.revenue.
The exposure customer_dashboard lists customer_revenue's email and revenue
(`referenced_columns`); board_report reads every column of monthly_revenue and
revenue_by_country.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.errors import NotFound
from catalog.history import forget_project
from edits import add_simple_metric, drop_catalog_column, edit_catalog_type, edit_manifest, edit_sql
from test_build_views import view
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j

MESH = Path(__file__).resolve().parents[2] / "examples" / "mesh"
PLATFORM, FINANCE = MESH / "platform" / "target", MESH / "finance" / "target"
PKG = MESH / "finance_pkg" / "target"  # platform installed as a dbt package (not dbt Mesh)
DIM = "model.platform.dim_customers"


@pytest.fixture
def producer(graph):
    """The producer is stored as `platform`, the name finance's manifest gives it: found
    without --upstream. Forgotten before and after."""
    def forget() -> None:
        if any(r["name"] == "platform" for r in graph.read("read/list_projects")):
            forget_project(graph, "platform")

    forget()
    yield "platform"
    forget()


def labels(answer) -> list[tuple[str, int]]:
    return sorted((r.column.label, r.depth) for r in answer.columns)


def without_email(tmp_path: Path, source: Path = PLATFORM) -> Path:
    """platform (or another target holding dim_customers: finance_pkg's copy) with `email`
    dropped from dim_customers (SQL, YAML and catalog.json)."""
    target = tmp_path / source.parent.name
    shutil.copytree(source, target)
    edit_sql(target, DIM, "    email,\n", "")
    edit_manifest(target, lambda m: m["nodes"][DIM]["columns"].pop("email"))
    drop_catalog_column(target, DIM, "email")
    return target


def retyped_amount(tmp_path: Path) -> Path:
    """platform with fct_orders.amount cast to double (SQL, YAML and catalog.json), and
    fct_orders' contract no longer enforced: only another project's reading makes it breaking."""
    target = tmp_path / "platform"
    shutil.copytree(PLATFORM, target)
    uid = "model.platform.fct_orders"
    edit_sql(target, uid, "    amount,\n", "    cast(amount as double) as amount,\n")

    def change(m) -> None:
        m["nodes"][uid]["columns"]["amount"]["data_type"] = "double"
        m["nodes"][uid]["contract"]["enforced"] = m["nodes"][uid]["config"]["contract"]["enforced"] = False

    edit_manifest(target, change)
    edit_catalog_type(target, uid, "amount", "DOUBLE")
    return target


def test_impact_and_trace_cross_the_project_boundary(build, ask, graph, producer, project_name, neo4j_settings):
    p = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    c = build(FINANCE, finance)
    assert graph.read("read/find_build", project=finance, build_id=c.build_id)[0]["build"]["upstream"] == [f"platform={p.build_id}"]

    down = ask(producer).impact(["dim_customers.email"])
    assert labels(down) == [(f"{finance}:customer_revenue.email", 1)]
    assert [(h.kind, h.name, h.project, h.depth, h.precision) for h in down.consumers] == [
        ("exposure", "customer_dashboard", finance, 2, "column")
    ]
    amount = ask(producer).impact(["fct_orders.amount"])
    assert labels(amount) == [
        (f"{finance}:customer_revenue.revenue", 1),
        (f"{finance}:monthly_revenue.revenue", 1),
        (f"{finance}:revenue_by_country.revenue", 2),
    ]
    assert [(h.name, h.depth, h.precision) for h in amount.consumers] == [("board_report", 2, "model"), ("customer_dashboard", 2, "column")]
    # customer_revenue.customer_id feeds nothing the exposure lists: the column-level exposure is not hit
    assert ask(producer).impact(["dim_customers.customer_id"]).consumers == ()

    up = ask(finance).trace(["customer_revenue.email"])
    assert labels(up) == [("platform:dim_customers.email", 1), ("platform:raw_customers.email", 3), ("platform:stg_customers.email", 2)]
    assert {r.column.label: r.resource_type for r in up.columns}["platform:raw_customers.email"] == "seed"
    assert labels(ask(finance).trace(["revenue_by_country.revenue"])) == [
        ("customer_revenue.revenue", 1),
        ("platform:fct_orders.amount", 2),
        ("platform:raw_orders.amount_cents", 4),
        ("platform:stg_orders.amount", 3),
    ]
    states = {s["unique_id"]: (s["status"], s["reason"]) for s in graph.list_model_states(finance, c.build_id)}
    assert states[DIM] == ("external", f"a node of the dbt project platform: its columns and lineage are those of its build {p.build_id}")

    # the CLI names the other project's columns: `project` in JSON, PROJECT: in tables
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["impact", "dim_customers.email", "--project", producer, "--json"], env=env)
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert [(x["project"], x["model"], x["name"]) for x in doc["columns"]] == [(finance, "customer_revenue", "email")]
    assert doc["consumers"][0]["project"] == finance
    done = runner.invoke(app, ["trace", "customer_revenue.email", "--project", finance], env=env)
    assert "platform:raw_customers" in done.stdout


def test_the_consumer_built_before_and_after_the_producer(build, ask, graph, producer, project_name):
    finance = f"{project_name}_finance"
    before = build(FINANCE, finance)
    assert graph.read("read/find_build", project=finance, build_id=before.build_id)[0]["build"]["upstream"] == []
    # without the producer: the foreign node's columns are what finance's SQL reads of it
    assert labels(ask(finance).trace(["customer_revenue.email"])) == [("dim_customers.email", 1)]
    p = build(PLATFORM, producer)
    after = build(FINANCE, finance)  # the same artifacts: not a no-change build, the producer is new
    assert after.recomputed_models != []
    assert labels(ask(finance).trace(["customer_revenue.email"])) == [
        ("platform:dim_customers.email", 1), ("platform:raw_customers.email", 3), ("platform:stg_customers.email", 2)
    ]  # fmt: skip
    assert labels(ask(finance, before.build_id).trace(["customer_revenue.email"])) == [("dim_customers.email", 1)]
    assert labels(ask(producer, p.build_id).impact(["dim_customers.email"])) == [(f"{finance}:customer_revenue.email", 1)]
    again = build(FINANCE, finance)  # nothing changed on either side now
    assert again.recomputed_models == [] and again.relationships_written == 0


def consumer_view(ask, finance: str, build_id: int) -> dict:
    """Everything the consumer's build answers about its own columns: the trace and impact of
    each, with every path and expression, as JSON."""
    from catalog.report.answers import answer_dict

    catalog = ask(finance, build_id)
    names = sorted(c.label for c in catalog.columns() if c.unique_id.startswith("model.finance."))
    return {n: (answer_dict(catalog.trace([n]), "trace"), answer_dict(ask(finance, build_id).impact([n]), "impact")) for n in names}


def test_a_producer_rebuild_never_changes_the_consumer_build(build, ask, graph, producer, project_name, tmp_path):
    first = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    c = build(FINANCE, finance)
    stored = view(graph, finance, c.build_id)  # every read query that answers for one build
    answers = consumer_view(ask, finance, c.build_id)
    assert len(answers) == 9
    assert [(x.get("project"), x["column"]) for x in answers["customer_revenue.email"][0]["columns"]] == [
        ("platform", "model.platform.dim_customers.email"),
        ("platform", "seed.platform.raw_customers.email"),
        ("platform", "model.platform.stg_customers.email"),
    ]

    second = build(without_email(tmp_path), producer)
    assert second.build_id > first.build_id
    assert view(graph, finance, c.build_id) == stored
    assert consumer_view(ask, finance, c.build_id) == answers
    # a new consumer build reads the new producer build: its SQL still reads c.email, a column
    # that build no longer has, so the trace stops there
    c2 = build(FINANCE, finance)
    assert graph.read("read/find_build", project=finance, build_id=c2.build_id)[0]["build"]["upstream"] == [f"platform={second.build_id}"]
    assert labels(ask(finance).trace(["customer_revenue.email"])) == [("platform:dim_customers.email", 1)]
    # pinned to the first producer build, the consumer reads it again
    c3 = build(FINANCE, finance, upstream={"platform": first.build_id})
    assert labels(ask(finance, c3.build_id).trace(["customer_revenue.email"]))[0] == ("platform:dim_customers.email", 1)


def test_a_pin_to_a_build_that_does_not_exist_is_one_error_line(project_name, neo4j_settings):
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["build", str(FINANCE), "--project", f"{project_name}_finance", "--upstream", "platform=999999"], env=env)
    assert done.exit_code == 1
    assert done.output.strip().splitlines()[-1] == (
        "Error: --upstream platform=999999: build 999999 does not exist; pin a finished build (see `catalog builds --project PROJECT`)"
    )
    done = runner.invoke(app, ["build", str(FINANCE), "--upstream", "platform"], env=env)
    assert done.exit_code == 1
    assert "Error: --upstream 'platform': write it as PROJECT=BUILD, e.g. platform=12" in done.output


def test_a_pin_to_the_consumers_own_build_or_to_a_project_it_does_not_read_is_refused(build, graph, producer, project_name, neo4j_settings, example):
    p = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    c = build(FINANCE, finance)
    other = build(example, f"{project_name}_coffee")  # a build holding none of platform's nodes
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    for pin, line in (
        (f"platform={c.build_id}", f"Error: --upstream platform={c.build_id}: build {c.build_id} is a build of {finance}, the project being built; pin a build of platform"),
        (f"nope={p.build_id}", f"Error: --upstream nope={p.build_id}: the manifest has no node of the dbt project nope (it reads platform)"),
        # the consumer's own dbt project: the one that cannot be pinned
        (f"finance={c.build_id}", (
            f"Error: --upstream finance={c.build_id}: build {c.build_id} is a build of {finance}, the project being built; "
            "finance is not one it reads and cannot be pinned: --upstream pins the projects it reads (platform)"
        )),
        (f"platform={other.build_id}", (
            f"Error: --upstream platform={other.build_id}: build {other.build_id} (project {project_name}_coffee) holds none of the nodes of "
            "platform the manifest reads (model.platform.dim_customers, model.platform.fct_orders, model.platform.stg_customers and 3 more); "
            "pin a build of platform"
        )),
    ):  # fmt: skip
        done = runner.invoke(app, ["build", str(FINANCE), "--project", finance, "--upstream", pin], env=env)
        assert done.exit_code == 1
        assert done.output.strip().splitlines()[-1] == line
    # no build was started: finance's one build still reads platform's
    assert [b["build"]["id"] for b in graph.read("read/list_builds", project=finance)] == [c.build_id]
    assert graph.read("read/find_build", project=finance, build_id=c.build_id)[0]["build"]["upstream"] == [f"platform={p.build_id}"]


def test_check_of_a_producer_change_lists_the_consumer_hits(build, producer, project_name, neo4j_settings, tmp_path):
    build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    build(FINANCE, finance)
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["check", str(without_email(tmp_path)), "--project", producer, "--json"], env=env)
    assert done.exit_code == 1, done.output
    doc = json.loads(done.stdout)
    [finding] = [f for f in doc["findings"] if f["column"] == "email"]
    assert (finding["model"], finding["changes"], finding["severity"]) == ("dim_customers", ["removed"], "breaking")
    assert finding["models_hit"] == [f"{finance}:customer_revenue"]
    # another project's exposure is named with its project, with its owner and precision
    assert finding["exposures_hit"] == [f"{finance}:customer_dashboard"]
    assert [(h["name"], h["kind"]) for h in finding["hits"]] == [
        (f"{finance}:customer_revenue.email", "column"),
        (f"{finance}:customer_dashboard", "exposure"),
    ]
    assert doc["exposure_precision"] == {f"{finance}:customer_dashboard": "column"}
    assert doc["exposure_owners"] == {f"{finance}:customer_dashboard": "Finance analytics"}
    done = runner.invoke(app, ["check", str(without_email(tmp_path / "md")), "--project", producer, "-f", "md"], env=env)
    assert "Owners of the exposures hit: Finance analytics." in done.stdout
    assert f"Exposures hit: `{finance}:customer_dashboard` (column-level)" in done.stdout
    # the consumer's own unchanged artifacts against its build: its foreign nodes read alike, no
    # finding; the report names the project compared (--project), not the manifest's
    done = runner.invoke(app, ["check", str(FINANCE), "--project", finance, "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert (json.loads(done.stdout)["findings"], json.loads(done.stdout)["project"]) == ([], finance)
    done = runner.invoke(app, ["check", str(FINANCE), "--project", finance, "-f", "md"], env=env)
    assert f"## catalog check: `{finance}`" in done.stdout
    # the table names the consumer's model too
    done = runner.invoke(app, ["check", str(without_email(tmp_path / "again")), "--project", producer], env=env)
    assert f"{finance}:customer_revenue" in done.stdout


def test_check_of_a_producer_retype_is_breaking_and_hits_the_consumers_metric(build, producer, project_name, neo4j_settings, tmp_path):
    build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    consumer = tmp_path / "finance"
    shutil.copytree(FINANCE, consumer)
    add_simple_metric(consumer, "monthly_revenue", "revenue", "total_revenue", "revenue_month")  # sum(revenue) of monthly_revenue
    build(consumer, finance)
    done = CliRunner().invoke(app, ["check", str(retyped_amount(tmp_path)), "--project", producer, "--json"], env=neo4j_env(neo4j_settings))
    assert done.exit_code == 1, done.output
    doc = json.loads(done.stdout)
    [finding] = [f for f in doc["findings"] if f["column"] == "amount"]
    assert (finding["model"], finding["changes"], finding["severity"]) == ("fct_orders", ["expression", "lineage", "data_type"], "breaking")
    readers = f"{finance}:customer_revenue, {finance}:monthly_revenue, {finance}:revenue_by_country"
    assert finding["why"] == f"a retyped column that another project reads ({readers})"
    assert finding["models_hit"] == [f"{finance}:customer_revenue", f"{finance}:monthly_revenue", f"{finance}:revenue_by_country"]
    assert (finding["metrics_hit"], finding["exposures_hit"]) == ([f"{finance}:total_revenue"], [f"{finance}:board_report", f"{finance}:customer_dashboard"])
    assert [(h["name"], h["kind"], len(h["path"])) for h in finding["hits"]] == [
        (f"{finance}:customer_revenue.revenue", "column", 1),
        (f"{finance}:monthly_revenue.revenue", "column", 1),
        (f"{finance}:revenue_by_country.revenue", "column", 2),
        (f"{finance}:board_report", "exposure", 2),
        (f"{finance}:customer_dashboard", "exposure", 2),
        (f"{finance}:total_revenue", "metric", 3),  # amount -> monthly_revenue.revenue -> its measure -> the metric
        (f"{finance}:monthly_revenue.revenue", "semantic", 2),  # the semantic model's measure
    ]  # fmt: skip


def test_export_and_explorer_show_the_cross_project_edges_and_exposures(build, ask, producer, project_name):
    from catalog.export.openlineage import default_dataset_namespace, openlineage_events
    from catalog.export.stored import stored_export_input
    from catalog.report.explorer import explorer_data, read_columns

    build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    build(FINANCE, finance)
    data = stored_export_input(ask(finance), consumers=True)
    events = {e["job"]["name"]: e for e in openlineage_events(data, dataset_namespace=default_dataset_namespace(data)[0])}
    # the consumer's jobs only, in its namespace; platform's models are its inputs, in platform's file
    assert sorted(events) == [
        "exposure.finance.board_report", "exposure.finance.customer_dashboard",
        "model.finance.customer_revenue", "model.finance.monthly_revenue", "model.finance.revenue_by_country",
    ]  # fmt: skip
    revenue = events["model.finance.customer_revenue"]
    assert revenue["job"]["namespace"] == finance
    assert [(d["namespace"], d["name"]) for d in revenue["inputs"]] == [
        ("duckdb://platform.duckdb", "platform.main.dim_customers"),
        ("duckdb://platform.duckdb", "platform.main.fct_orders"),
    ]
    assert [(d["namespace"], d["name"]) for d in revenue["outputs"]] == [("duckdb://finance.duckdb", "finance.main.customer_revenue")]
    email = revenue["outputs"][0]["facets"]["columnLineage"]["fields"]["email"]["inputFields"]
    assert [(f["namespace"], f["name"], f["field"]) for f in email] == [("duckdb://platform.duckdb", "platform.main.dim_customers", "email")]
    # platform's own export names the same dataset as dim_customers' output
    mine = stored_export_input(ask(producer), consumers=False)
    out = {e["job"]["name"]: e["outputs"][0] for e in openlineage_events(mine, dataset_namespace=default_dataset_namespace(mine)[0])}
    assert (out[DIM]["namespace"], out[DIM]["name"]) == ("duckdb://platform.duckdb", "platform.main.dim_customers")

    # the exposures: jobs of finance reading its models, with their precision
    dash, board = events["exposure.finance.customer_dashboard"], events["exposure.finance.board_report"]
    assert dash["job"]["namespace"] == board["job"]["namespace"] == finance
    facet = dash["job"]["facets"]["dbtColumnCatalog_exposure"]
    assert (facet["precision"], facet["referencedColumns"]) == ("column", [
        {"namespace": "duckdb://finance.duckdb", "name": "finance.main.customer_revenue", "field": "email"},
        {"namespace": "duckdb://finance.duckdb", "name": "finance.main.customer_revenue", "field": "revenue"},
    ])  # fmt: skip
    assert [(d["namespace"], d["name"]) for d in dash["inputs"]] == [("duckdb://finance.duckdb", "finance.main.customer_revenue")]
    assert board["job"]["facets"]["dbtColumnCatalog_exposure"]["precision"] == "model"
    assert "referencedColumns" not in board["job"]["facets"]["dbtColumnCatalog_exposure"]
    assert [d["name"] for d in board["inputs"]] == ["finance.main.monthly_revenue", "finance.main.revenue_by_country"]

    page = explorer_data(data)
    rows = {n[2]: n for n in page["nodes"]}
    assert rows[DIM][3] == "external"
    cols = read_columns(page)
    index = {(page["nodes"][cols["node"][i]][2], cols["name"][i]): i for i in range(len(cols["name"]))}
    pairs = set(cols["feeds"])
    assert (index[(DIM, "email")], index[("model.finance.customer_revenue", "email")]) in pairs
    assert rows["exposure.finance.customer_dashboard"][5] == "dashboard, column-level"


def test_the_consumer_report_counts_its_own_models(build, ask, producer, project_name):
    from catalog.report.governance import collect_report

    build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    build(FINANCE, finance)
    from catalog.report.governance_render import report_dict

    # customer_revenue (5 columns), monthly_revenue (2), revenue_by_country (2); platform's four
    # models and two seeds are platform's report's; count(*) as order_count has no upstream
    # column. Its pictures name platform's columns with their project.
    report = collect_report(ask(finance))
    t = report.coverage.totals
    assert (t.models, t.by_status, t.columns, t.no_upstream, t.seeds) == (
        3, {"resolved": 3, "partial": 0, "unresolved": 0, "opaque": 0, "failed": 0}, 9, 1, 0
    )  # fmt: skip
    [picture] = [p for p in report.pictures if p.focus.label == "customer_revenue.revenue"]
    assert sorted(n.column.label for n in picture.nodes) == [
        "customer_revenue.revenue", "platform:fct_orders.amount", "platform:stg_orders.amount", "revenue_by_country.revenue"
    ]  # fmt: skip
    [drawn] = [p for p in report_dict(report)["pictures"] if p["focus"]["label"] == "customer_revenue.revenue"]
    assert sorted((n["column"].get("project", ""), n["column"]["unique_id"]) for n in drawn["nodes"]) == [
        ("", "model.finance.customer_revenue"), ("", "model.finance.revenue_by_country"),
        ("platform", "model.platform.fct_orders"), ("platform", "model.platform.stg_orders"),
    ]  # fmt: skip
    p = collect_report(ask(producer)).coverage.totals
    assert (p.models, p.by_status["resolved"], p.seeds) == (4, 4, 2)


def whole_view(graph, ask, finance: str, build_id: int, env: dict, change: Path) -> dict:
    """Every read of one consumer build the CLI offers: the stored view, the trace and impact
    of each of its columns, `check` of its own artifacts, and `check` of a producer change
    with its hits in the consumer."""
    out = {"stored": view(graph, finance, build_id), "answers": consumer_view(ask, finance, build_id)}
    runner = CliRunner()
    for args in (["check", str(FINANCE), "--project", finance, "--json"], ["check", str(change), "--project", "platform", "--json"]):
        done = runner.invoke(app, args, env=env)
        assert done.exit_code in (0, 1), done.output
        out[args[1]] = json.loads(done.stdout)
    return out


def test_gc_and_forget_of_the_producer_never_change_a_consumer_build(build, ask, graph, producer, project_name, neo4j_settings, tmp_path):
    first = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    c1 = build(FINANCE, finance)  # reads platform's first build
    change = without_email(tmp_path)
    second = build(change, producer)  # platform's first build's email edges end here
    c2 = build(FINANCE, finance)  # reads platform's second build
    env = neo4j_env(neo4j_settings)
    old, new = whole_view(graph, ask, finance, c1.build_id, env, change), whole_view(graph, ask, finance, c2.build_id, env, change)
    assert labels(ask(finance, c1.build_id).trace(["customer_revenue.email"]))[1] == ("platform:raw_customers.email", 3)

    # finance's first build still reads platform's first: gc keeps it and all it sees
    runner = CliRunner()
    done = runner.invoke(app, ["gc", "--keep", "1", "--project", producer, "--json"], env=env)
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert (doc["kept"], doc["read_by"], doc["builds_deleted"], doc["relationships_deleted"], doc["nodes_deleted"]) == (
        [first.build_id, second.build_id], {str(first.build_id): [f"{finance}={c1.build_id}"]}, 0, 0, 0
    )  # fmt: skip
    assert whole_view(graph, ask, finance, c1.build_id, env, change) == old
    assert whole_view(graph, ask, finance, c2.build_id, env, change) == new

    # once finance forgets its first build, platform's first build is read by nobody: gone
    assert runner.invoke(app, ["gc", "--keep", "1", "--project", finance], env=env).exit_code == 0
    done = runner.invoke(app, ["gc", "--keep", "1", "--project", producer], env=env)
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"kept builds {second.build_id}; deleted 1 builds and ")
    assert whole_view(graph, ask, finance, c2.build_id, env, change) == new

    # forget of a producer a consumer build reads is refused, and changes nothing
    done = runner.invoke(app, ["forget", producer, "--yes"], env=env)
    assert done.exit_code == 1
    assert done.output.strip().splitlines()[-1] == (
        f"Error: platform is read by builds of other projects ({finance} build {c2.build_id}): forgetting it would change what "
        f"they show; forget that project first (`catalog forget {finance} --yes`), then platform"
    )
    assert whole_view(graph, ask, finance, c2.build_id, env, change) == new
    assert runner.invoke(app, ["forget", finance, "--yes"], env=env).exit_code == 0
    done = runner.invoke(app, ["forget", producer, "--yes"], env=env)
    assert done.exit_code == 0, done.output


def test_impact_asked_from_a_foreign_node_of_the_consumer(build, ask, producer, project_name, neo4j_settings):
    build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    build(FINANCE, finance)
    # the injected node as finance's manifest names it: platform's column, in the platform build finance read
    for name in ("dim_customers.email", "model.platform.dim_customers.email"):
        answer = ask(finance).impact([name])
        assert [c.label for c in answer.asked] == ["platform:dim_customers.email"]
        assert labels(answer) == [("customer_revenue.email", 1)]
        assert [(h.kind, h.name, h.project, h.depth, h.precision) for h in answer.consumers] == [("exposure", "customer_dashboard", None, 2, "column")]
    # the same columns, paths and consumers as asking in platform, named as finance names them
    mine, theirs = ask(finance).impact(["fct_orders.amount"]), ask(producer).impact(["fct_orders.amount"])
    assert [(r.column.key, r.depth, r.hops) for r in mine.columns] == [(r.column.key, r.depth, r.hops) for r in theirs.columns]
    assert labels(mine) == [("customer_revenue.revenue", 1), ("monthly_revenue.revenue", 1), ("revenue_by_country.revenue", 2)]
    assert [(h.key, h.depth, h.precision) for h in mine.consumers] == [(h.key, h.depth, h.precision) for h in theirs.consumers]
    done = CliRunner().invoke(app, ["impact", "dim_customers.email", "--project", finance, "--json"], env=neo4j_env(neo4j_settings))
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert [(x.get("project"), x["model"], x["name"], x["depth"]) for x in doc["columns"]] == [(None, "customer_revenue", "email", 1)]
    # a name neither finance nor the platform build it read holds: the miss names finance
    with pytest.raises(NotFound, match="no column 'dim_customers.nope' in project"):
        ask(finance).impact(["dim_customers.nope"])



def renamed_foreign_node(tmp_path: Path, uid: str, relation_name: str, version: int | None = None) -> Path:
    """finance whose injected dim_customers has the unique id ``uid`` (one platform's build does
    not hold) and the relation name ``relation_name``, in every place its manifest names it."""
    target = tmp_path / "finance"
    shutil.copytree(FINANCE, target)

    def change(m) -> None:
        node = m["nodes"].pop(DIM)
        m["nodes"][uid] = {**node, "unique_id": uid, "relation_name": relation_name, "version": version, "latest_version": version}
        for other in [*m["nodes"].values(), *m["exposures"].values()]:
            other["depends_on"]["nodes"] = [uid if d == DIM else d for d in other["depends_on"]["nodes"]]
        for links in (m["parent_map"], m["child_map"]):
            if DIM in links:
                links[uid] = links.pop(DIM)
            for k, v in links.items():
                links[k] = [uid if d == DIM else d for d in v]

    edit_manifest(target, change)
    return target


@pytest.mark.parametrize(
    ("uid", "relation_name", "version"),
    [
        ("model.platform.dim_customers.v1", '"platform"."main"."dim_customers"', 1),  # a versioned id, the relation as platform names it
        ("model.platform.customers", "PLATFORM.Main.DIM_CUSTOMERS", None),  # another id, the relation unquoted in another case
        ("model.platform.customers", '"PLATFORM"."MAIN".dim_customers', None),  # partly quoted
    ],
)
def test_a_foreign_node_matched_by_its_relation_name_only(build, ask, graph, producer, project_name, uid, relation_name, version, tmp_path):
    p = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    c = build(renamed_foreign_node(tmp_path, uid, relation_name, version), finance)
    assert graph.read("read/find_build", project=finance, build_id=c.build_id)[0]["build"]["upstream"] == [f"platform={p.build_id}"]
    states = {s["unique_id"]: (s["status"], s["reason"]) for s in graph.list_model_states(finance, c.build_id)}
    assert states[uid] == ("external", f"a node of the dbt project platform: its columns and lineage are those of its build {p.build_id}")

    down = ask(producer).impact(["dim_customers.email"])
    assert labels(down) == [(f"{finance}:customer_revenue.email", 1)]
    assert [(h.kind, h.name, h.project, h.depth, h.precision) for h in down.consumers] == [("exposure", "customer_dashboard", finance, 2, "column")]
    assert labels(ask(producer).impact(["dim_customers.full_name"])) == [(f"{finance}:customer_revenue.customer_name", 1)]
    assert labels(ask(producer).impact(["dim_customers.country_code"])) == [(f"{finance}:revenue_by_country.country_code", 1)]
    assert labels(ask(producer).impact(["stg_customers.email"])) == [("dim_customers.email", 1), (f"{finance}:customer_revenue.email", 2)]

    up = ask(finance).trace(["customer_revenue.email"])
    assert labels(up) == [("platform:dim_customers.email", 1), ("platform:raw_customers.email", 3), ("platform:stg_customers.email", 2)]
    assert {r.column.label: r.resource_type for r in up.columns}["platform:raw_customers.email"] == "seed"
    assert labels(ask(finance).trace(["revenue_by_country.country_code"])) == [
        ("platform:dim_customers.country_code", 1), ("platform:raw_customers.country_code", 3), ("platform:stg_customers.country_code", 2)
    ]  # fmt: skip
    # the injected node's column as finance's manifest names it is platform's column
    assert [c.label for c in ask(finance).impact([f"{uid}.email"]).asked] == ["platform:dim_customers.email"]



def test_a_foreign_node_matched_by_its_unique_id_without_case(build, ask, graph, producer, project_name, tmp_path):
    """finance reads dim_customers as "plat"."main"."dim_customers" (another database alias than
    platform's build stores) and names it model.Platform.DIM_Customers: its unique id alone,
    compared without case, finds platform's node."""
    p = build(PLATFORM, producer)
    finance = f"{project_name}_finance"
    uid = "model.Platform.DIM_Customers"
    target = renamed_foreign_node(tmp_path, uid, '"plat"."main"."dim_customers"')
    for model in ("model.finance.customer_revenue", "model.finance.revenue_by_country"):
        edit_sql(target, model, '"platform"."main"."dim_customers"', '"plat"."main"."dim_customers"')
    c = build(target, finance)
    assert graph.read("read/find_build", project=finance, build_id=c.build_id)[0]["build"]["upstream"] == [f"platform={p.build_id}"]
    states = {s["unique_id"]: s["status"] for s in graph.list_model_states(finance, c.build_id)}
    assert states[uid] == "external"
    assert labels(ask(producer).impact(["dim_customers.email"])) == [(f"{finance}:customer_revenue.email", 1)]
    assert labels(ask(finance).trace(["customer_revenue.email"])) == [
        ("platform:dim_customers.email", 1), ("platform:raw_customers.email", 3), ("platform:stg_customers.email", 2)
    ]  # fmt: skip
    assert [c.label for c in ask(finance).impact([f"{uid}.email"]).asked] == ["platform:dim_customers.email"]


def test_the_project_installed_as_a_package_is_the_consumers_own(build, ask, graph, producer, project_name, neo4j_settings, tmp_path):
    """finance_pkg installs platform as a dbt package (packages.yml, local: ../platform): its
    manifest holds platform's seeds and models with their SQL, built as finance_pkg's own
    relations ("finance_pkg"."main"."dim_customers"). Beside platform built on its own and
    finance reading platform (dbt Mesh), each column is listed once, named with its project."""
    from catalog.export.stored import stored_export_input
    from catalog.report.explorer import explorer_data, read_columns
    from catalog.report.governance import collect_report

    build(PLATFORM, producer)
    pkg, finance = f"{project_name}_pkg", f"{project_name}_finance"
    k = build(PKG, pkg)
    build(FINANCE, finance)
    record = graph.read("read/find_build", project=pkg, build_id=k.build_id)[0]["build"]
    assert (record["upstream"], record.get("foreign_projects")) == ([], [])
    states = {s["unique_id"]: s["status"] for s in graph.list_model_states(pkg, k.build_id)}
    assert states == {
        "model.finance_pkg.customer_revenue": "resolved", "model.finance_pkg.monthly_revenue": "resolved",
        DIM: "resolved", "model.platform.fct_orders": "resolved", "model.platform.stg_customers": "resolved",
        "model.platform.stg_orders": "resolved", "seed.platform.raw_customers": "resolved", "seed.platform.raw_orders": "resolved",
    }  # fmt: skip

    # the package's models are finance_pkg's: its lineage stays in finance_pkg, down to its seeds
    up = ask(pkg).trace(["customer_revenue.email"])
    assert labels(up) == [("dim_customers.email", 1), ("raw_customers.email", 3), ("stg_customers.email", 2)]
    assert {r.column.key.split("/")[0] for r in up.columns} == {pkg}
    assert labels(ask(pkg).trace(["monthly_revenue.revenue"])) == [
        ("fct_orders.amount", 1), ("raw_orders.amount_cents", 3), ("stg_orders.amount", 2)
    ]  # fmt: skip
    down = ask(pkg).impact(["stg_customers.email"])
    assert labels(down) == [("customer_revenue.email", 2), ("dim_customers.email", 1)]
    assert [(h.kind, h.name, h.project, h.depth, h.precision) for h in down.consumers] == [("exposure", "revenue_dashboard", None, 3, "column")]

    # from platform's column: its own and finance's (Mesh) columns, once each; not finance_pkg's copies
    down = ask(producer).impact(["stg_customers.email"])
    assert labels(down) == [("dim_customers.email", 1), (f"{finance}:customer_revenue.email", 2)]
    assert [(h.name, h.project) for h in down.consumers] == [("customer_dashboard", finance)]
    assert labels(ask(producer).impact(["fct_orders.amount"])) == [
        (f"{finance}:customer_revenue.revenue", 1), (f"{finance}:monthly_revenue.revenue", 1), (f"{finance}:revenue_by_country.revenue", 2)
    ]  # fmt: skip

    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["check", str(without_email(tmp_path)), "--project", producer, "--json"], env=env)
    assert done.exit_code == 1, done.output
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["column"] == "email"]
    assert (finding["models_hit"], finding["exposures_hit"]) == ([f"{finance}:customer_revenue"], [f"{finance}:customer_dashboard"])
    assert [(h["name"], h["kind"]) for h in finding["hits"]] == [
        (f"{finance}:customer_revenue.email", "column"), (f"{finance}:customer_dashboard", "exposure")
    ]  # fmt: skip
    # the same change in finance_pkg's copy hits finance_pkg's own columns only
    done = runner.invoke(app, ["check", str(without_email(tmp_path, PKG)), "--project", pkg, "--json"], env=env)
    assert done.exit_code == 1, done.output
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["column"] == "email"]
    assert (finding["model"], finding["changes"], finding["severity"]) == ("dim_customers", ["removed"], "breaking")
    assert (finding["models_hit"], finding["exposures_hit"]) == (["customer_revenue"], ["revenue_dashboard"])
    # (customer_revenue groups by c.email: its other columns' rows hang on it, condition lineage)
    assert [(h["name"], h["kind"]) for h in finding["hits"]] == [
        ("customer_revenue.email", "column"), ("exposure:revenue_dashboard", "exposure"), ("customer_revenue.customer_id", "column"),
        ("customer_revenue.customer_name", "column"), ("customer_revenue.revenue", "column"),
    ]  # fmt: skip

    # the explorer: every node and column once
    page = explorer_data(stored_export_input(ask(pkg), consumers=True))
    rows = {n[2]: n[3] for n in page["nodes"]}
    assert (len(page["nodes"]), rows) == (9, {
        "model.finance_pkg.customer_revenue": "resolved", "model.finance_pkg.monthly_revenue": "resolved",
        DIM: "resolved", "model.platform.fct_orders": "resolved", "model.platform.stg_customers": "resolved",
        "model.platform.stg_orders": "resolved", "seed.platform.raw_customers": "", "seed.platform.raw_orders": "",
        "exposure.finance_pkg.revenue_dashboard": "",
    })  # fmt: skip
    cols = read_columns(page)
    names = [(page["nodes"][cols["node"][i]][2], cols["name"][i]) for i in range(len(cols["name"]))]
    assert (len(names), len(set(names))) == (35, 35)
    page = explorer_data(stored_export_input(ask(producer), consumers=True))
    assert sorted(n[2] for n in page["nodes"]) == sorted(u for u in states if ".platform." in u)

    # the reports: each project counts its own models, columns and seeds
    r = collect_report(ask(pkg))
    t = r.coverage.totals
    assert (t.models, t.by_status["resolved"], t.columns, t.seeds) == (6, 6, 25, 2)
    assert [(p.column.label, [(x.column.label, x.depth) for x in p.reaches]) for p in r.pii.columns] == [
        ("dim_customers.email", [("customer_revenue.email", 1)])
    ]  # fmt: skip
    t = collect_report(ask(producer)).coverage.totals
    assert (t.models, t.columns, t.seeds) == (4, 19, 2)
