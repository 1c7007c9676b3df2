"""`catalog mcp` latency per tool (p50 / p95), in process through the MCP SDK's client, and the
time from starting `catalog mcp` to its first answer over stdio.

    .venv/bin/python benchmarks/mcp_latency.py                 # synth 5,000 models, 30 runs per tool
    .venv/bin/python benchmarks/mcp_latency.py --models 1000 --runs 10
    .venv/bin/python benchmarks/mcp_latency.py --hub           # benchmarks/hub_project.py: a column reaching 12,500
    .venv/bin/python benchmarks/mcp_latency.py --stored --project shared_synth_5000_11 --first-only --reference ../main
                                                               # a build already stored; each tool's first call, beside main's

Builds the project into Neo4j (NEO4J_URI or the local server) twice, as
benchmarks/query_latency.py names it (a later run reuses it: no-change builds), so that `diff`
has two builds; `--stored` asks the build already stored under `--project` instead. Each tool's
first call is timed on a server of its own, then each tool `--runs` times; check_change compares
the target with itself (`--check-runs` times). `--reference DIR` also times each tool's first
call with the catalog of another checkout (its .venv), in the same run, side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio


def _code() -> Path:
    """The checkout whose catalog is measured: this one, or ``--code DIR`` (a reference's)."""
    at = sys.argv.index("--code") + 1 if "--code" in sys.argv else 0
    return Path(sys.argv[at]).resolve() if at else Path(__file__).resolve().parents[1]


REPO = _code()
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

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


async def first_calls(settings: Neo4jSettings, name: str, calls: list[tuple[str, dict[str, Any], int]]) -> list[tuple[str, float, str]]:
    """Each tool's first call on a server of its own, started as `catalog mcp` starts it (Neo4j
    asked once; then what the checkout does before serving: reading the build in the background,
    or loading its code): what an agent's first question of each kind waits for once the server
    is ready. (tool, ms, what went wrong)."""
    out = []
    for tool, args, _ in calls:
        source = Stored(settings, project=name)
        source.unreachable()
        source.check_defaults()
        for ready in ("warm", "prepare"):  # as the checkout's `catalog mcp` does
            if hasattr(source, ready):
                getattr(source, ready)()
        async with Client(make_server(source)) as client:
            t = time.perf_counter()
            result = await client.call_tool(tool, args)
            first_ms = (time.perf_counter() - t) * 1000
        source.close()
        data = result.structured_content or {}
        what = f"error: {result.content[0].text[:80]}" if result.is_error else f"total {data['total']}" if "total" in data else ""
        out.append((tool, first_ms, what))
    return out


def reference_first_calls(checkout: Path, name: str, columns: tuple[str, str, str], tools: str | None) -> list[tuple[str, float, str]]:
    """:func:`first_calls` with the catalog of ``checkout`` (in its .venv when it has one)."""
    python = checkout / ".venv" / "bin" / "python"
    cmd = [str(python if python.exists() else sys.executable), __file__, "--code", str(checkout), "--stored", "--project", name,
           "--first-only", "--json-first", "--columns", ",".join(columns)]  # fmt: skip
    if tools:
        cmd += ["--tools", tools]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return [tuple(row) for row in json.loads(done.stdout.strip().splitlines()[-1])]


def print_first_calls(mine: list[tuple[str, float, str]], reference: list[tuple[str, float, str]] | None, where: str) -> None:
    print(f"first call of each tool after the server is ready, ms ({where})")
    print(f"{'tool':<16}{'this checkout':>15}" + (f"{'reference':>12}" if reference else "") + "  answer")
    for i, (tool, ms, what) in enumerate(mine):
        ref = f"{reference[i][1]:>12.1f}" if reference else ""
        print(f"{tool:<16}{ms:>15.1f}{ref}  {what}" + (f" | reference: {reference[i][2]}" if reference and reference[i][2] != what else ""))


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
    ap.add_argument("--project", help="the project name to build it under (default: bench_latency_MODELS_SEED); with --stored, the one to ask")
    ap.add_argument("--stored", action="store_true", help="ask the build already stored under --project: build nothing (check_change is left out)")
    ap.add_argument("--no-first", action="store_true", help="skip each tool's first call on a fresh server")
    ap.add_argument("--first-only", action="store_true", help="only each tool's first call on a fresh server")
    ap.add_argument("--reference", type=Path, help="a checkout (../main) whose catalog's first calls are timed too, side by side")
    ap.add_argument("--columns", help=argparse.SUPPRESS)  # hub,far,leaf as chosen by the run that asks a reference
    ap.add_argument("--json-first", action="store_true", help=argparse.SUPPRESS)  # the first calls as one JSON line
    ap.add_argument("--code", type=Path, help=argparse.SUPPRESS)  # the checkout imported (see _code)
    args = ap.parse_args()
    target: Path | None = None
    if args.hub:
        from hub_project import write_hub_project

        name = f"bench_hub_{args.fans}_{args.width}_{args.chain}"
        out = Path(tempfile.gettempdir()) / f"catalog-bench-{name}"
        target = write_hub_project(out, args.fans, args.width, args.chain)
    elif args.stored:
        if not args.project:
            ap.error("--stored needs --project NAME, a project stored in Neo4j")
        name = args.project
    else:
        name = args.project or f"bench_latency_{args.models}_{args.seed}"
        target = args.target or synth_target(args.models, args.seed)
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        if target is not None:
            build_twice(graph, target, name)
        if args.columns:
            hub, far, leaf = args.columns.split(",")
        elif args.hub:
            hub, far, leaf = "hub.value", f"fan_{args.fans - 1}_{args.chain}.v_{args.width - 1}", f"fan_0_{args.chain}.v_0"
        else:
            hub, far, leaf = columns_to_ask(graph, name)
    model = far.rsplit(".", 1)[0]
    if not args.json_first:
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
        ("projects", {}, runs),
        ("builds", {}, runs),
        ("diff", {}, runs),
        ("history", {"column": far}, runs),
        ("unused", {"models": [model]}, runs),
        ("cypher", {"query": "MATCH (c:Column {project: $p}) RETURN c.key AS key", "params": {"p": name}}, runs),
        ("graph_schema", {}, runs),
    ]
    if target is not None:
        calls.append(("check_change", {"base_target": str(target), "target": str(target)}, args.check_runs))
    if args.tools:
        wanted = set(args.tools.split(","))
        calls = [c for c in calls if c[0] in wanted]
    if args.json_first:
        print(json.dumps(anyio.run(first_calls, settings, name, calls)))
        return
    if not args.no_first:
        firsts = [c for c in calls if c[0] != "check_change"]
        reference = reference_first_calls(args.reference, name, (hub, far, leaf), args.tools) if args.reference else None
        mine = anyio.run(first_calls, settings, name, firsts)
        print_first_calls(mine, reference, f"reference: {args.reference}" if args.reference else "no reference")
    if args.first_only:
        return
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
