"""``catalog lineage PATH``: analyze a dbt project and print its column lineage, no Neo4j."""

from __future__ import annotations

import time

from catalog.cli.common import DialectOpt, JobsOpt, JsonOpt, ProjectPath, emit, handle_errors, say, warn_inputs


@handle_errors
def lineage(path: ProjectPath, as_json: JsonOpt = False, dialect: DialectOpt = None, jobs: JobsOpt = None) -> None:
    """Analyze a dbt project's artifacts and print every model's column lineage.

    Needs no Neo4j: reads manifest.json, catalog.json and compiled SQL, and prints, per model,
    its status and, per column, its type, expression and upstream columns (as dbt unique ids),
    plus the columns used only in conditions (WHERE, JOIN, GROUP BY, ...). With --json the
    document is sorted for stable diffs (see the README for its shape).
    """
    t0 = time.perf_counter()
    from catalog.analyze.project import analyze_project, analyze_project_packed
    from catalog.extract import input_warnings, load_project
    from catalog.report.lineage_json import write_lineage_json
    from catalog.report.tables import lineage_table

    project = load_project(path, dialect=dialect)
    if as_json:
        # each model's lineage encoded as it is analyzed: the project's is never all in memory
        warnings = warn_inputs(input_warnings(project))
        packed = analyze_project_packed(project, jobs=jobs)
        analyzed = emit("json", json=lambda: lambda out: write_lineage_json(out, project.name, project.dialect, packed, warnings))
    else:
        lineages = analyze_project(project, jobs=jobs)
        warn_inputs(input_warnings(project))
        emit("table", table=lambda: lineage_table(project, lineages))
        analyzed = len(lineages)
    say(f"{analyzed} models analyzed in {time.perf_counter() - t0:.2f}s")
