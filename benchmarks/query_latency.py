"""Impact and root-cause latency on a large synthetic project (p50 / p95).

    .venv/bin/python benchmarks/query_latency.py                 # 5,000 models, 50 runs per query
    .venv/bin/python benchmarks/query_latency.py --models 1000 --runs 20
    .venv/bin/python benchmarks/query_latency.py --hub              # a column reaching 12,500 columns

With --hub, builds benchmarks/hub_project.py's project (bench_hub_<fans>_<width>_<chain>) and times
`BuildView.impact` of its hub column, and the parts of one impact (name resolution, the one read
of the subgraph, the walk). The way impact read the graph before (one shortest path per column
from find_impact_downstream, then the edges among them) is gone; its figures are in HISTORY.md.

Builds the project once into Neo4j (NEO4J_URI or the local server) under the project name
bench_latency_<models>; a later run reuses it (a no-change build). Picks a hub column (the
most direct downstream edges) and a leaf column, and times `BuildView.impact` / `BuildView.trace`
(the same code the CLI runs), name resolution included after the first call.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from catalog.builds import Builder  # noqa: E402
from catalog.query import BuildView  # noqa: E402
from catalog.settings import Neo4jSettings  # noqa: E402
from catalog.store.connection import open_driver  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def timed(fn, runs: int) -> tuple[float, float, float, int]:
    """p50, p95 and fastest run in ms (on a shared machine the fastest shows what load added), columns answered."""
    times, size = [], 0
    fn()  # warm-up: query plans cached, column names loaded
    for _ in range(runs):
        t = time.perf_counter()
        answer = fn()
        times.append(time.perf_counter() - t)
        size = len(answer.columns)
    return pct(times, 50) * 1000, pct(times, 95) * 1000, min(times) * 1000, size


def hub_latency(graph: Graph, runs: int, fans: int, width: int, chain: int) -> None:
    from hub_project import expected_impact, write_hub_project

    name = f"bench_hub_{fans}_{width}_{chain}"
    out = Path(tempfile.gettempdir()) / f"catalog-bench-{name}"
    write_hub_project(out, fans, width, chain)
    t = time.perf_counter()
    summary = Builder(graph, out / "target", project_name=name).run()
    print(f"build {summary.build_id}: {summary.models.total} models, {summary.edges.total} edges, {time.perf_counter() - t:.1f}s")
    catalog = BuildView(graph, name)
    want = len(expected_impact(fans, width, chain)["hub.value"])
    print(f"impact of hub.value ({want} columns downstream), in process, {runs} runs")
    print(f"{'query':<34}{'p50 ms':>10}{'p95 ms':>10}{'min ms':>10}{'columns':>10}")
    for label, fn in (("one read of the subgraph", lambda: catalog.impact(["hub.value"])),):
        p50, p95, fastest, size = timed(fn, runs)
        print(f"{label:<34}{p50:>10.1f}{p95:>10.1f}{fastest:>10.1f}{size:>10}")
    resolve_ms, read_ms, walk_ms = impact_split(catalog, "hub.value", runs)
    print(f"  of one impact: name resolution p50 {pct(resolve_ms, 50):.1f} ms, "
          f"Neo4j's read p50 {pct(read_ms, 50):.1f} ms (min {min(read_ms):.1f}), "
          f"the walk and answer records p50 {pct(walk_ms, 50):.1f} ms (min {min(walk_ms):.1f})")


def impact_split(catalog: BuildView, column: str, runs: int) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds of `BuildView.impact`'s three parts, run after run: resolving the column's
    name, the one read of the subgraph (find_impact_subgraph) and the walk over it that makes
    the answer's records."""
    from catalog.memory import paused_gc
    from catalog.query import downstream_of

    resolve_ms, read_ms, walk_ms = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        asked = [catalog.resolve(column)]
        resolve_ms.append((time.perf_counter() - t) * 1000)
        with paused_gc():  # as impact() runs them
            t = time.perf_counter()
            columns = catalog.impact_subgraph(asked, None)
            t2 = time.perf_counter()
            downstream_of(asked, columns, None)
            t3 = time.perf_counter()
        read_ms.append((t2 - t) * 1000)
        walk_ms.append((t3 - t2) * 1000)
    return resolve_ms, read_ms, walk_ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hub", action="store_true", help="time the impact of a hub column of benchmarks/hub_project.py")
    ap.add_argument("--fans", type=int, default=50)
    ap.add_argument("--width", type=int, default=50)
    ap.add_argument("--chain", type=int, default=4)
    args = ap.parse_args()
    if args.hub:
        settings = Neo4jSettings.from_env()
        with open_driver(settings) as driver:
            hub_latency(Graph(driver, settings.database), args.runs, args.fans, args.width, args.chain)
        return
    name = f"bench_latency_{args.models}_{args.seed}"
    out = Path(tempfile.gettempdir()) / f"catalog-bench-synth-{args.models}-{args.seed}"
    if not (out / "target" / "manifest.json").exists():
        synth = REPO.parent / "shared" / "tools" / "synth_dbt.py"
        subprocess.run([sys.executable, str(synth), "--models", str(args.models), "--seed", str(args.seed), "--out", str(out), "--quiet"], check=True)
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        t = time.perf_counter()
        summary = Builder(graph, out / "target", project_name=name).run()
        print(f"build {summary.build_id}: {summary.models.total} models, {summary.edges.total} edges, "
              f"{summary.models.recomputed} recomputed, {time.perf_counter() - t:.1f}s")
        catalog = BuildView(graph, name)
        # the hub: of the 10 columns with the most direct downstream edges, the one reaching most columns
        candidates = graph.read("read/find_top_fanout_columns", project=name, build_id=None, limit=10)
        reach = {f"{r['unique_id']}.{r['name']}": len(catalog.impact([f"{r['unique_id']}.{r['name']}"]).columns) for r in candidates}
        hub = max(sorted(reach), key=reach.get)
        leaf_rows = graph.read("read/find_leaf_columns", project=name, build_id=None, limit=1)
        leaf = f"{leaf_rows[0]['unique_id']}.{leaf_rows[0]['name']}"
        print(f"hub column:  {hub} ({reach[hub]} downstream columns)")
        print(f"leaf column: {leaf}")
        print(f"{'query':<22}{'p50 ms':>10}{'p95 ms':>10}{'min ms':>10}{'columns':>10}")
        for label, fn in (
            ("impact hub", lambda: catalog.impact([hub])),
            ("impact leaf", lambda: catalog.impact([leaf])),
            ("root cause hub", lambda: catalog.trace([hub])),
            ("root cause leaf", lambda: catalog.trace([leaf])),
        ):
            p50, p95, fastest, size = timed(fn, args.runs)
            print(f"{label:<22}{p50:>10.1f}{p95:>10.1f}{fastest:>10.1f}{size:>10}")


if __name__ == "__main__":
    main()
