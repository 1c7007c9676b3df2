"""`catalog mcp` latency per tool (p50 / p95), in process through the MCP SDK's client, and the
time from starting `catalog mcp` to its first answer over stdio.

    .venv/bin/python benchmarks/mcp_latency.py                 # synth 5,000 models, 30 runs per tool
    .venv/bin/python benchmarks/mcp_latency.py --models 1000 --runs 10
    .venv/bin/python benchmarks/mcp_latency.py --hub           # benchmarks/hub_project.py: a column reaching 12,500

Builds the project into Neo4j (NEO4J_URI or the local server) twice, as
benchmarks/query_latency.py names it (a later run reuses it: no-change builds), so that `diff`
has two builds. Each tool is called once first (its first call: the column names, and for
search, model and column_lineage the build's records, are read then and kept), then timed
`--runs` times; check_change compares the target with itself (`--check-runs` times, two
analyses of the whole project each).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from mcp import Client, StdioServerParameters  # noqa: E402

from catalog.builds import Builder  # noqa: E402
from catalog.mcp.server import make_server  # noqa: E402
from catalog.mcp.stored import Stored  # noqa: E402
from catalog.query import BuildView  # noqa: E402
from catalog.settings import Neo4jSettings  # noqa: E402
from catalog.store.connection import open_driver  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402
from query_latency import pct  # noqa: E402


def build_twice(graph: Graph, target: Path, name: str) -> None:
    for _ in range(2):
        t = time.perf_counter()
        summary = Builder(graph, target, project_name=name).run()
        print(f"build {summary.build_id}: {summary.models.total} models, {summary.edges.total} edges, {time.perf_counter() - t:.1f}s")


def synth_target(models: int, seed: int) -> Path:
    out = Path(tempfile.gettempdir()) / f"catalog-bench-synth-{models}-{seed}"
    if not (out / "target" / "manifest.json").exists():
        synth = REPO.parent / "shared" / "tools" / "synth_dbt.py"
        subprocess.run([sys.executable, str(synth), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"], check=True)
    return out / "target"


def columns_to_ask(graph: Graph, name: str) -> tuple[str, str, str]:
    """A hub column (of the 10 with most direct downstream edges, the one reaching most), a
    column it reaches at the farthest depth, and a leaf column."""
    catalog = BuildView(graph, name)
    rows = graph.read("read/find_top_fanout_columns", project=name, build_id=None, limit=10)
    answers = {f"{r['unique_id']}.{r['name']}": catalog.impact([f"{r['unique_id']}.{r['name']}"]) for r in rows}
    hub = max(sorted(answers), key=lambda k: len(answers[k].columns))
    far = max(answers[hub].columns, key=lambda r: (r.depth, r.column.key)).column
    leaf_rows = graph.read("read/find_leaf_columns", project=name, build_id=None, limit=1)
    return hub, f"{far.unique_id}.{far.name}", f"{leaf_rows[0]['unique_id']}.{leaf_rows[0]['name']}"


async def time_tools(server: Any, calls: list[tuple[str, dict[str, Any], int]]) -> None:
    print(f"{'tool':<16}{'first ms':>10}{'p50 ms':>10}{'p95 ms':>10}{'min ms':>10}  answer")
    async with Client(server) as client:
        for tool, args, runs in calls:
            t = time.perf_counter()
            first = await client.call_tool(tool, args)
            first_ms = (time.perf_counter() - t) * 1000
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.append((time.perf_counter() - t) * 1000)
            data = result.structured_content or {}
            what = (f"error: {first.content[0].text[:80]}" if first.is_error
                    else f"total {data.get('total')}, truncated {data.get('truncated')}" if "total" in data else "")  # fmt: skip
            print(f"{tool:<16}{first_ms:>10.1f}{pct(times, 50):>10.1f}{pct(times, 95):>10.1f}{min(times):>10.1f}  {what}")


async def first_calls(settings: Neo4jSettings, name: str, calls: list[tuple[str, dict[str, Any], int]]) -> None:
    """Each tool's first call on a server of its own, started as `catalog mcp` starts it (Neo4j
    asked once, the default build's records read in the background): what an agent's first
    question of each kind waits for once the server is ready."""
    print(f"{'tool':<16}{'first call after ready, ms':>28}  answer")
    for tool, args, _ in calls:
        source = Stored(settings, project=name)
        source.unreachable()
        source.check_defaults()
        source.warm()
        async with Client(make_server(source)) as client:
            t = time.perf_counter()
            result = await client.call_tool(tool, args)
            first_ms = (time.perf_counter() - t) * 1000
        source.close()
        what = f"error: {result.content[0].text[:80]}" if result.is_error else ""
        print(f"{tool:<16}{first_ms:>28.1f}  {what}")


async def start_to_first_answer(name: str, column: str) -> tuple[float, float]:
    """Seconds from starting `catalog mcp` to the end of its handshake, and to its first impact answer."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "catalog.cli.app", "mcp", "--project", name], env=env)
    t = time.perf_counter()
    async with Client(params) as client:
        ready = time.perf_counter() - t
        result = await client.call_tool("impact", {"columns": [column], "limit": 10})
        answered = time.perf_counter() - t
        assert not result.is_error, result.content[0].text
    return ready, answered


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--check-runs", type=int, default=3)
    ap.add_argument("--hub", action="store_true", help="the project of benchmarks/hub_project.py instead of synth")
    ap.add_argument("--fans", type=int, default=50)
    ap.add_argument("--width", type=int, default=50)
    ap.add_argument("--chain", type=int, default=4)
    ap.add_argument("--tools", help="only these tools, comma-separated (diff,search,cypher); default: every tool")
    ap.add_argument("--no-stdio", action="store_true", help="skip the time from starting `catalog mcp` to its first answer")
    ap.add_argument("--target", type=Path, help="a dbt target folder to build and ask instead of a synth project (/tmp/synth/synth_5000_11/target)")
    ap.add_argument("--project", help="the project name to build it under (default: bench_latency_MODELS_SEED)")
    ap.add_argument("--no-first", action="store_true", help="skip each tool's first call on a fresh server")
    args = ap.parse_args()
    if args.hub:
        from hub_project import write_hub_project

        name = f"bench_hub_{args.fans}_{args.width}_{args.chain}"
        out = Path(tempfile.gettempdir()) / f"catalog-bench-{name}"
        target = write_hub_project(out, args.fans, args.width, args.chain)
    else:
        name = args.project or f"bench_latency_{args.models}_{args.seed}"
        target = args.target or synth_target(args.models, args.seed)
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        build_twice(graph, target, name)
        if args.hub:
            hub, far, leaf = "hub.value", f"fan_{args.fans - 1}_{args.chain}.v_{args.width - 1}", f"fan_0_{args.chain}.v_0"
        else:
            hub, far, leaf = columns_to_ask(graph, name)
    model = far.rsplit(".", 1)[0]
    print(f"project {name}: hub column {hub}, far column {far}, leaf column {leaf}")
    runs = args.runs
    calls = [
        ("search", {"query": far.rsplit(".", 1)[-1][:6]}, runs),
        ("model", {"name": model}, runs),
        ("column_lineage", {"column": hub}, runs),
        ("impact", {"columns": [hub]}, runs),
        ("impact", {"columns": [leaf]}, runs),
        ("trace", {"column": far}, runs),
        ("path", {"from_column": hub, "to_column": far}, runs),
        ("builds", {}, runs),
        ("diff", {}, runs),
        ("cypher", {"query": "MATCH (c:Column {project: $p}) RETURN c.key AS key", "params": {"p": name}}, runs),
        ("graph_schema", {}, runs),
        ("check_change", {"base_target": str(target), "target": str(target)}, args.check_runs),
    ]
    if args.tools:
        wanted = set(args.tools.split(","))
        calls = [c for c in calls if c[0] in wanted]
    if not args.no_first:
        anyio.run(first_calls, settings, name, [c for c in calls if c[0] != "check_change"])
    source = Stored(settings, project=name)
    print(f"in process, {runs} runs per tool (check_change: {args.check_runs}), default limit")
    anyio.run(time_tools, make_server(source), calls)
    source.close()
    if args.no_stdio:
        return
    ready, answered = anyio.run(start_to_first_answer, name, hub)
    print(f"catalog mcp over stdio: ready after {ready:.2f} s, first impact answer after {answered:.2f} s")


if __name__ == "__main__":
    main()
