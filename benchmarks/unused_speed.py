"""`catalog unused` speed: the read of every column with its readers (``list_column_readers``)
and the answer made from it in memory, beside the report's read of every column and edge
(``report_build_columns``) on the same build, then the whole `catalog unused --json` beside the
whole `catalog report -f json` (which holds the same answer), measured in the same run.

    .venv/bin/python benchmarks/unused_speed.py --synth 5000:11
    .venv/bin/python benchmarks/unused_speed.py --project my_project      # a project already built

--synth MODELS:SEED generates the synthetic project (synth_dbt.py, kept in --cache) and builds it
into Neo4j (NEO4J_URI or the local server) as bench_unused_<models>_<seed>; a later run reuses
the build (a no-change build). CPU seconds are printed beside wall seconds: the machine is shared.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lineage_speed import cpu_seconds  # noqa: E402
from scale import CATALOG, run_measured, stored_projects  # noqa: E402


def reads(graph, project: str) -> None:
    from catalog.lineage.unused import unused_columns
    from catalog.query import BuildView
    from catalog.store.report_reads import BuildReads
    from catalog.unused_columns import read_nodes

    view = BuildView(graph, project)
    build_reads = BuildReads(graph, project, view.build_id)
    c0, t0 = cpu_seconds(), time.perf_counter()
    rows = list(build_reads.build_columns())
    ref_wall, ref_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    c0, t0 = cpu_seconds(), time.perf_counter()
    nodes = read_nodes(build_reads)
    read_wall, read_cpu = time.perf_counter() - t0, cpu_seconds() - c0
    t0 = time.perf_counter()
    found = unused_columns(nodes)
    ends = unused_columns(nodes, end_models=True)
    walk = (time.perf_counter() - t0) / 2
    columns = sum(len(n.columns) for n in nodes)
    print(f"  list_column_readers (unused's read)     {read_wall:7.2f} s (cpu {read_cpu:6.2f})  {len(nodes):,} nodes, {columns:,} columns")
    print(f"  report_build_columns (the report's)     {ref_wall:7.2f} s (cpu {ref_cpu:6.2f})  {len(rows):,} nodes; "
          f"unused's read takes {read_wall / ref_wall:4.2f} x its time")
    print(f"  the answer in memory                    {walk:7.3f} s            {sum(len(m.columns) for m in found):,} unused columns "
          f"({sum(len(m.columns) for m in ends):,} with --end-models)")


def main() -> None:
    def ask_each(graph, projects: list[str]) -> None:
        for project in projects:
            print(f"{project}:")
            reads(graph, project)
            for what, cmd in (("catalog unused --json", ["unused", "--json"]), ("catalog report -f json", ["report", "-f", "json"])):
                wall, cpu, peak = run_measured([str(CATALOG), *cmd, "--project", project])
                print(f"  {what:<40}{wall:7.2f} s (cpu {cpu:6.2f}), peak {peak} MB")

    stored_projects(__doc__.split("\n\n")[0], "bench_unused", ask_each)


if __name__ == "__main__":
    main()
