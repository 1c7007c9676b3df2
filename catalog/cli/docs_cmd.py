"""``catalog docs PATH``: descriptions and PII tags written back into the project's YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import (
    EXIT_USAGE,
    BuildOpt,
    DialectOpt,
    JobsOpt,
    JsonOpt,
    ProjectOpt,
    fail,
    Verbatim,
    emit,
    handle_gate_errors,
    say,
)
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.errors import CatalogError

EXIT_CHANGES = 1  # --check: something would change; 2: could not run (handle_gate_errors)


@handle_gate_errors
@neo4j_options(whole_build=True)
def docs(
    path: Annotated[Path, typer.Argument(help="A dbt project folder: its YAML files are read and written, its target/ read.")],
    write: Annotated[bool, typer.Option("--write", help="Apply the changes to the YAML files.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 when something would change, 0 otherwise (2: could not run).")
    ] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the changes as a unified diff (the default).")] = False,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", "-s", help="Only these models: dbt names with + graph operators (+orders, stg_orders+); name.v2 for one version, version:latest; a,b intersects."),
    ] = None,
    pii: Annotated[bool, typer.Option("--pii", help="Also tag pii the columns PII values reach unmasked.")] = False,
    descriptions: Annotated[
        bool, typer.Option("--docs/--no-docs", help="Write inherited descriptions (--no-docs: only the PII tags of --pii).")
    ] = True,
    as_json: JsonOpt = False,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Write undocumented columns' descriptions and missing PII tags into the project's YAML,
    along the column lineage.

    A column without a description inherits the one of the nearest documented column its
    value is copied from (passthrough and renamed edges, so a renamed column inherits too);
    when the nearest candidates disagree nothing is written and they are listed. With --pii,
    a column that a PII-tagged column's value reaches (any depth, not through a hash or
    masking function) gets the tag pii. Existing descriptions and tags are never replaced;
    comments, order and quoting of the rest of each file stay byte for byte.

    The lineage is PATH's, analyzed here without Neo4j; with --project or --build, that of
    the build stored in Neo4j instead. Prints a unified diff (--diff, the default), applies
    it (--write) or only says whether anything would change (--check, for CI).
    """
    from catalog.cli.inputs import read_input
    from catalog.docs.inputs import docs_input, project_folder
    from catalog.docs.plan import plan_docs, select_models, versioned_label
    from catalog.docs.yaml_files import unified_diff

    if write and check:
        fail("--write and --check exclude each other: --check changes nothing", EXIT_USAGE)
    if not descriptions and not pii:
        fail("--no-docs without --pii leaves nothing to write", EXIT_USAGE)
    stored = project is not None or build is not None
    loaded = read_input(
        None if stored else path, dialect=dialect, jobs=jobs, project=project, build=build,
        neo4j=neo4j, consumers=False,
    )  # fmt: skip
    data = docs_input(path, loaded)
    selected = select_models(data.relations, select, data.versions, data.latest_versions) if select else None
    folder = project_folder(path)
    plan = plan_docs(data, folder, docs=descriptions, pii=pii, selected=selected)
    label = lambda col: versioned_label(col, data.versions)  # noqa: E731
    for c in plan.conflicts:
        cands = "; ".join(f"{label(x.column)}: {x.description!r}" for x in c.candidates)
        say(f"{label(c.column)}: not written, its nearest documented columns disagree: {cands}")
    if as_json or not write or diff:
        emit("diff", as_json, diff=lambda: Verbatim("".join(unified_diff(f) for f in plan.files)), json=lambda: {
            "project": data.project,
            "build_id": loaded.build_id,
            "changes": [c.model_dump(mode="json") for c in plan.changes],
            "conflicts": [{**c.model_dump(mode="json"), "version": data.versions.get(c.column.unique_id)} for c in plan.conflicts],
            "files": [{"path": f.path, "new": f.before is None} for f in plan.files],
            "only_packages": list(plan.only_packages),
        })  # fmt: skip
    if write:
        for f in plan.files:
            _replace(folder / f.path, f.after)
    files = f"{len(plan.files)} YAML file{'s' if len(plan.files) != 1 else ''}"
    done = f"{len(plan.changes)} columns written to {files}" if write else f"{len(plan.changes)} columns, {files} would change"
    if plan.only_packages:
        packages = ", ".join(plan.only_packages)
        which = "selected models are" if select else "models are"
        say(f"Nothing to change: the {which} all models of packages ({packages}), and package models are never written (their YAML is the package's).")
    else:
        say(done if plan.files else "Nothing to change.")
    if check and plan.files:
        raise typer.Exit(EXIT_CHANGES)


def _replace(target: Path, text: str) -> None:
    """Write ``target`` whole or not at all (a temporary file beside it, then renamed)."""
    import os

    tmp = target.with_name(f".{target.name}.catalog-docs.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise CatalogError(f"{target}: cannot write it ({e.strerror})") from e
