"""`catalog history` latency (p50 / p95, in process): the history of a column, and with
`--upstream` of a mart column at the end of a long chain, on a synth project built 11 times.

    .venv/bin/python benchmarks/history_latency.py                 # synth 5,000 models, 10 edits, 30 runs
    .venv/bin/python benchmarks/history_latency.py --models 1000 --edits 5 --runs 10

The synth target (benchmarks/mcp_latency.py's, reused) is copied into a git repository of its
own and built once; then `--edits` times one staging model's column is made to compute
(`x` -> `coalesce(x, x) as x`, a column the asked one reads), committed and built again, so
that the asked column's upstream history holds one change per build and each build its commit.
A later run finds the project with its builds and only times (`--rebuild` starts again).
Also timed: resolving `--at COMMIT` and `--at TIME` to a build.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from catalog.builds import Builder  # noqa: E402
from catalog.column_history import node_history  # noqa: E402
from catalog.history import finished_builds, forget_project  # noqa: E402
from catalog.query import BuildView  # noqa: E402
from catalog.settings import Neo4jSettings  # noqa: E402
from catalog.store.connection import open_driver  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402
from mcp_latency import columns_to_ask, synth_target  # noqa: E402
from query_latency import pct  # noqa: E402


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false", *args],
                          cwd=repo, capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def build(graph: Graph, target: Path, name: str) -> int:
    t = time.perf_counter()
    summary = Builder(graph, target, project_name=name).run()
    print(f"build {summary.build_id}: {summary.models.recomputed} of {summary.models.total} models analyzed, {time.perf_counter() - t:.1f}s")
    return summary.build_id


def pick_edits(graph: Graph, name: str, column: str, manifest: dict) -> list[tuple[str, str]]:
    """(model, column): the columns the asked one reads whose model's SQL selects them on a
    line of their own (``x,`` or ``expr as x,``), the farthest first."""
    found: list[tuple[str, str]] = []
    for r in sorted(BuildView(graph, name).trace([column]).columns, key=lambda r: (-r.depth, r.column.key)):
        uid, col = r.column.unique_id, r.column.name
        if uid in manifest["nodes"] and _line(col).search(manifest["nodes"][uid].get("compiled_code", "")):
            found.append((uid, col))
    return found


def _line(col: str) -> re.Pattern[str]:
    return re.compile(rf"\n(\s+)(?:({re.escape(col)})|(.+) as {re.escape(col)})(,?)\n")


def compute(sql: str, col: str) -> str:
    """``x`` -> ``coalesce(x, x) as x``, ``expr as x`` -> ``coalesce(expr, expr) as x``: one column computed anew."""
    def wrap(m: re.Match[str]) -> str:
        expr = m.group(2) or m.group(3)
        return f"\n{m.group(1)}coalesce({expr}, {expr}) as {col}{m.group(4)}\n"

    return _line(col).sub(wrap, sql, count=1)


def mart_column(graph: Graph, name: str, manifest: dict) -> str:
    """A column of a mart (a model under ``models/marts``) that the hub column of
    :func:`columns_to_ask` reaches farthest: a long chain upstream of it."""
    hub, far, _ = columns_to_ask(graph, name)
    marts = [r for r in BuildView(graph, name).impact([hub]).columns if "marts" in manifest["nodes"].get(r.column.unique_id, {}).get("fqn", [])]
    if not marts:
        return far
    best = max(marts, key=lambda r: (r.depth, r.column.key)).column
    return f"{best.unique_id}.{best.name}"


def make_history(graph: Graph, source: Path, name: str, edits: int) -> None:
    """The project built from a git repository of its own, then once per edit, each committed."""
    repo = Path(tempfile.gettempdir()) / f"catalog-bench-history-{name}"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(source, repo / "target")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "synth")
    build(graph, repo / "target", name)
    path = repo / "target" / "manifest.json"
    manifest = json.loads(path.read_text())
    far = mart_column(graph, name, manifest)
    chosen = pick_edits(graph, name, far, manifest)
    if not chosen:
        raise SystemExit(f"no column upstream of {far} is selected on a line of its own: nothing to edit")
    print(f"{edits} one-model edits of {min(edits, len(chosen))} columns upstream of {far}")
    for i in range(edits):
        uid, col = chosen[i % len(chosen)]  # a column edited again is wrapped again
        node = manifest["nodes"][uid]
        node["compiled_code"] = compute(node["compiled_code"], col)
        path.write_text(json.dumps(manifest))
        git(repo, "commit", "-q", "-am", f"compute {col} in {uid}")
        build(graph, repo / "target", name)


def timed(fn, runs: int) -> tuple[float, float, float, int]:
    """p50, p95 and fastest run in ms after a warm-up run, and how many rows the answer held."""
    fn()
    times, size = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        size = len(fn())
        times.append(time.perf_counter() - t)
    return pct(times, 50) * 1000, pct(times, 95) * 1000, min(times) * 1000, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rebuild", action="store_true", help="forget the project and build it again")
    args = ap.parse_args()
    name = f"bench_history_{args.models}_{args.seed}"
    source = synth_target(args.models, args.seed)
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        stored = graph.read("read/find_project", project=name)
        if not stored or args.rebuild or len(finished_builds(graph, name)) < args.edits + 1:
            if stored:
                forget_project(graph, name)
            make_history(graph, source, name, args.edits)
        far = mart_column(graph, name, json.loads((source / "manifest.json").read_text()))
        builds = finished_builds(graph, name)
        upstream = node_history(graph, name, far, upstream=True)
        edited = next((r.column for r in upstream.rows if r.build != min(b.id for b in builds)), far)  # a column an edit changed
        far = upstream.asked
        print(f"project {name}: {len(builds)} builds; asked {far} ({upstream.columns - 1} columns upstream, {upstream.total} rows), "
              f"edited column {edited}")  # fmt: skip
        print(f"{'question':<60}{'p50 ms':>10}{'p95 ms':>10}{'min ms':>10}{'rows':>8}")
        middle = builds[len(builds) // 2]
        cases = [
            (f"history {edited}", lambda: node_history(graph, name, edited).rows),
            (f"history {far}", lambda: node_history(graph, name, far).rows),
            (f"history {far} --upstream", lambda: node_history(graph, name, far, upstream=True).rows),
            ("--at COMMIT (build of a commit prefix)", lambda: [BuildView(graph, name, (middle.git_commit or "")[:8]).build_id]),
            ("--at TIME (build active then)", lambda: [BuildView(graph, name, middle.finished_at).build_id]),
        ]
        for label, fn in cases:
            p50, p95, fastest, size = timed(fn, args.runs)
            print(f"{label:<60}{p50:>10.1f}{p95:>10.1f}{fastest:>10.1f}{size:>8}")


if __name__ == "__main__":
    main()
