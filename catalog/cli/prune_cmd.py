"""``catalog prune``: the smallest set of models to rebuild, as a dbt selector."""

from __future__ import annotations

import time
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from catalog.cli.common import AtOpt, BuildOpt, DialectOpt, JobsOpt, ProjectOpt, build_ref, emit, handle_errors, say, warn_inputs
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options

if TYPE_CHECKING:
    from rich.console import Group

    from catalog.prune import PrunePlan


class Format(str, Enum):
    selector = "selector"
    json = "json"
    table = "table"


PathArg = Annotated[
    Path | None,
    typer.Argument(
        help="The current dbt target folder (or project folder holding target/). Without it, --changed reads the graph.",
        show_default=False,
    ),
]
ChangedOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--changed",
        "-c",
        help="A changed column, named as for `catalog impact` (orders.amount); repeat the option or separate with commas.",
        show_default=False,
    ),
]
StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state",
        help="An older dbt target folder (manifest.json, best with catalog.json) to compare PATH with, column by column.",
        show_default=False,
    ),
]


@handle_errors
@neo4j_options()
def prune(
    path: PathArg = None,
    changed: ChangedOpt = None,
    state: StateOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="selector (for dbt build -s), json or table.")] = Format.selector,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json: every model with the reason it is included.")] = False,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """The smallest set of models to rebuild after some columns changed, printed as a dbt
    selector: `dbt build -s "$(catalog prune -c stg_orders.status)"`.

    A changed column's own model is included; so is every model with a column it feeds, at
    any depth; so is every model it conditions (WHERE, JOIN, GROUP BY, HAVING, QUALIFY,
    window, ORDER BY), whose rows then change, and with them all of that model's columns and what they
    feed. A model reached by nothing is left out, even when it depends on a changed model.
    Ephemeral models and sources are reported but not selected (dbt does not build them).

    --changed COLUMN, without PATH: from the stored build in Neo4j (--build or --at, --project).

    --changed COLUMN with PATH: from PATH's artifacts, analyzed in memory; no Neo4j.

    --state OLD_TARGET PATH: like dbt's state:modified, but column-aware, and it needs no
    Neo4j (it runs in CI where no graph is at hand): both targets are analyzed in memory and
    compared model by model. Changed columns are the ones added, or whose value is defined
    differently (expression through every CTE and subquery, upstream columns, lineage type,
    data type); when what decides a model's rows changed (FROM, JOIN, WHERE, GROUP BY, HAVING,
    QUALIFY, DISTINCT, LIMIT, UNION), all its columns changed. A model whose SQL changed but
    whose output columns are all identical is reported as unaffected and drags nothing along;
    removed columns include their model; new models are included; removed models are
    reported; a seed whose file changed changes all its columns. Config-only changes
    (materialization, hooks, grants) are not column changes and are not looked at. The
    downstream closure is computed from PATH's own lineage. OLD_TARGET should
    hold catalog.json too (dbt docs generate), else `select *` may read differently and more
    is included than needed.

    --json prints each model with its reason: lineage `changed` or `new` (the model itself
    changed), `value` (a changed column reaches one of its columns through FEEDS) or
    `condition` (reached only through condition lineage), or, with --state, `dependency`
    (below a changed model whose columns are unknown, followed model by model); the changed
    column it starts at, one shortest path, and the columns of the model that change.
    """
    names = [n.strip() for item in changed or [] for n in item.split(",") if n.strip()]
    if not names and state is None:
        raise typer.BadParameter("give the changed columns (--changed COLUMN) or an old target to compare with (--state DIR)")
    if state is not None and path is None:
        raise typer.BadParameter(
            "--state compares an old target with the current one: give the current PATH too "
            "(for example `catalog prune --state prod-target/ target/`)",
            param_hint="PATH",
        )
    if path is not None and (project is not None or build is not None or at is not None):
        raise typer.BadParameter("--project, --build and --at read the graph; with PATH the artifacts are read instead")
    from catalog.prune_change import prune_change

    t0 = time.perf_counter()
    warnings: list[dict] = []
    plan = prune_change(
        names, path=path, state=state, project=project, build=build_ref(build, at), dialect=dialect, jobs=jobs,
        graph=neo4j.graph, warned=lambda found: warnings.extend(warn_inputs(found)),
    )  # fmt: skip
    emit(fmt, as_json, json=lambda: {**plan.to_dict(), "warnings": warnings}, table=lambda: plan_table(plan), selector=plan.selector)
    _summary(plan, time.perf_counter() - t0)


def _summary(plan: PrunePlan, seconds: float) -> None:
    selected = plan.selected()
    by = {k: sum(1 for m in selected if m.lineage == k) for k in ("changed", "new", "value", "condition", "dependency")}
    detail = ", ".join(f"{n} {k}" for k, n in by.items() if n)
    msg = f"{len(selected)} models to rebuild" + (f" ({detail})" if detail else "") + f" in {seconds:.2f}s"
    if not selected:
        msg = "nothing to rebuild" + f" ({seconds:.2f}s)"
    say(msg)
    if plan.removed_models:
        say(f"removed since the old target: {', '.join(plan.removed_models)}")
    if plan.unaffected_models:
        say(f"SQL changed, output columns identical: {', '.join(plan.unaffected_models)}")


def plan_table(plan: PrunePlan) -> Group:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from catalog.prune import path_text

    where = f"build {plan.build_id}" if plan.build_id is not None else "artifacts"
    t = Table(title=f"Models to rebuild (project {plan.project}, {where})", title_justify="left")
    t.add_column("model")
    t.add_column("build", justify="center")
    t.add_column("lineage")
    t.add_column("depth", justify="right")
    t.add_column("why")
    styles = {"changed": "bold", "new": "bold", "value": "yellow", "condition": "magenta", "dependency": "red"}
    for m in plan.models:
        if m.changes:
            why = "; ".join(f"{c.column}: {c.change}" + (f" ({c.detail})" if c.detail else "") for c in m.changes)
        else:
            why = path_text(m)
        t.add_row(
            Text(m.name),
            "yes" if m.selectable else Text("no", style="dim"),
            Text(m.lineage, style=styles.get(m.lineage, "")),
            str(m.depth),
            Text(why),
        )
    parts: list = [t]
    if not plan.models:
        parts.append(Text("nothing to rebuild", style="dim"))
    if plan.removed_models:
        parts.append(Text("Removed: " + ", ".join(plan.removed_models)))
    if plan.unaffected_models:
        parts.append(Text("SQL changed, output columns identical: " + ", ".join(plan.unaffected_models), style="dim"))
    for kind, label in (("dashboard", "Dashboards"), ("chart", "Charts"), ("bi_field", "BI fields")):
        names = [h.tool_id for h in plan.bi if h.kind == kind]
        if names:
            parts.append(Text(f"{label} showing changed data: " + ", ".join(names)))
    return Group(*parts)
