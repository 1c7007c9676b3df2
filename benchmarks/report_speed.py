"""Governance report speed: the any-depth sections walked in memory beside the any-depth Cypher
they replaced, then the whole `catalog report` (json and html), measured in the same run.

    .venv/bin/python benchmarks/report_speed.py --synth 1300:7 --synth 5000:11
    .venv/bin/python benchmarks/report_speed.py --project my_project      # a project already built

--synth MODELS:SEED generates the synthetic project (synth_dbt.py, kept in --cache) and builds it
into Neo4j (NEO4J_URI or the local server) as bench_report_<models>_<seed>; a later run reuses
the build (a no-change build). CPU seconds are printed beside wall seconds: the machine is shared.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lineage_speed import cpu_seconds  # noqa: E402
from scale import CATALOG, run_measured, stored_projects  # noqa: E402

OLD_QUERIES = ("report_most_depended_on", "report_pii_propagation", "report_inheritable_descriptions")


def compare(graph, project: str) -> None:
    from catalog.lineage.graph import ColumnGraph
    from catalog.memory import paused_gc
    from catalog.query import BuildView
    from catalog.report.governance_pictures import PICTURE_CANDIDATES
    from catalog.report.governance_reach import inheritable_rows, walked_rows
    from catalog.store.report_reads import ALL_ROWS, BuildReads

    catalog = BuildView(graph, project)
    params = {"project": project, "build_id": catalog.build_id}
    c0, t0 = cpu_seconds(), time.perf_counter()
    for name in OLD_QUERIES:
        extra = {"limit": PICTURE_CANDIDATES} if name == "report_most_depended_on" else {}
        graph.read(f"read/{name}", **params, **extra)
    old_wall, old_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    c0, t0 = cpu_seconds(), time.perf_counter()
    rows = graph.read_values("read/report_build_columns", **params, skip=0, limit=ALL_ROWS)
    with paused_gc():
        walked = ColumnGraph(rows)
        read_wall = time.perf_counter() - t0
        walked_rows(walked, PICTURE_CANDIDATES, BuildReads(graph, project, catalog.build_id).column_details)
        inheritable_rows(walked)
    new_wall, new_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(f"  any-depth sections, Cypher (before)     {old_wall:7.2f} s (cpu {old_cpu:6.2f})  {', '.join(OLD_QUERIES)}")
    print(f"  any-depth sections, in memory (now)     {new_wall:7.2f} s (cpu {new_cpu:6.2f})  "
          f"{old_wall / new_wall:5.1f} x faster; of which report_build_columns {read_wall:.2f} s, {len(walked.keys):,} columns")


def main() -> None:
    def compare_each(graph, projects: list[str]) -> None:
        for project in projects:
            print(f"\n== {project}")
            compare(graph, project)

    projects = stored_projects(__doc__.split("\n\n")[0], "bench_report", compare_each)
    for project in projects:
        for fmt in ("json", "html"):
            wall, cpu, mb = run_measured([str(CATALOG), "report", "--project", project, "-f", fmt, "-o", os.devnull])
            print(f"  {project}: catalog report -f {fmt:<5} {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb} MB")
    print(f"\nload average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
