"""Build speed: full build, no-change rebuild and one-model-change rebuild, per stage.

Times the in-process stages (Python start-up excluded) against the Neo4j in NEO4J_URI or
the local server, for a corpus project and a synthetic project:

    .venv/bin/python benchmarks/build_speed.py                       # coffee_shop example + synth 2000
    .venv/bin/python benchmarks/build_speed.py --synth-models 500 --repeat 20 PATH...
    .venv/bin/python benchmarks/build_speed.py --synth 1300:7 5000:11 --repeat 3   # the issue's projects

The store line gives relationships per second of wall time and, when the server is the local
one this checkout started, the CPU seconds Neo4j spent on the store stage (steadier than wall
time on a shared machine). Below it, the physical reference measured in the same run: Neo4j's
bulk importer writing the same graph (bulk_import.py; skip with --no-bulk-import).

Each run stores under a fresh project name (bench_<name>_<random>), forgotten at the end.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bulk_import import Imported, reference  # noqa: E402
from catalog.builds import Builder  # noqa: E402
from catalog.history import forget_project  # noqa: E402
from catalog.settings import Neo4jSettings  # noqa: E402
from catalog.store.connection import open_driver  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402


def server_cpu() -> float | None:
    """CPU seconds (user + system) of the local Neo4j this checkout started; None for another server."""
    import os

    from catalog import local_neo4j

    if os.environ.get("NEO4J_URI") and os.environ["NEO4J_URI"] != local_neo4j.status().bolt_uri:
        return None
    pid = local_neo4j.status().pid
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fmt(t: dict[str, float]) -> str:
    return "  ".join(f"{k}={v * 1000:.1f}ms" for k, v in t.items())


def change_one_model(target: Path) -> str:
    """Edit one model's compiled SQL (a comment): new SQL hash, same lineage."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    models = sorted(uid for uid, n in manifest["nodes"].items() if n["resource_type"] == "model" and n.get("compiled_code"))
    uid = models[len(models) // 2]
    manifest["nodes"][uid]["compiled_code"] += "\n-- edited\n"
    path.write_text(json.dumps(manifest))
    return uid


def store_line(relationships: int, timings: dict[str, float], server_seconds: float | None, reference: Imported | str | None) -> None:
    """The store stage in relationships per second, beside the physical reference: Neo4j's
    bulk importer writing the same graph on this machine (bulk_import.py), when measured."""
    store = timings.get("store", 0.0)
    rate = relationships / store if store else 0.0
    server = f"; Neo4j cpu {server_seconds:.1f}s during the build" if server_seconds is not None else ""
    print(
        f"store throughput  {relationships:,} relationships in {store:.2f}s = {rate:,.0f}/s{server}; "
        f"store / analyze = {store / max(timings.get('analyze', 0), 1e-9):.2f}"
    )
    if isinstance(reference, Imported):
        print(
            f"  reference: neo4j-admin database import of the same graph on this machine ({reference.nodes:,} nodes, "
            f"{reference.relationships:,} relationships, {reference.properties:,} properties; no indexes, no transactions) "
            f"{reference.seconds:.2f}s = {reference.rate:,.0f} relationships/s ({reference.wall:.1f}s with JVM start); "
            f"the store stage took {store / reference.seconds:.2f} x its time"
        )
    elif reference:
        print(f"  reference not measured: {reference}")


def bench(graph: Graph, target: Path, label: str, repeat: int, bulk: bool = True) -> None:
    work = Path(tempfile.mkdtemp()) / "target"
    shutil.copytree(target, work)
    name = f"bench_{label}_{uuid.uuid4().hex[:6]}"
    print(f"\n== {label} ({target})")
    cpu0, server0 = time.process_time(), server_cpu()
    full = Builder(graph, work, project_name=name, full=True).run()
    cpu, server = time.process_time() - cpu0, server_cpu()
    print(f"full build        {full.timings['total']:.3f}s (cpu {cpu:.2f}s here)  models={full.models.total} edges={full.edges.written}  {fmt(full.timings)}")
    store_line(full.relationships_written, full.timings, None if server is None or server0 is None else server - server0,
               reference(graph, name) if bulk else None)  # fmt: skip
    totals = []
    for _ in range(repeat):
        again = Builder(graph, work, project_name=name).run()
        assert again.models.recomputed == 0 and again.edges.written == 0
        totals.append(again.timings["total"])
    print(
        f"no-change rebuild median {statistics.median(totals) * 1000:.1f}ms  min {min(totals) * 1000:.1f}ms "
        f"over {repeat} runs  (last: {fmt(again.timings)})"
    )
    uid = change_one_model(work)
    one = Builder(graph, work, project_name=name).run()
    print(f"one-model change  {one.timings['total']:.3f}s  recomputed={one.recomputed_models}  {fmt(one.timings)}")
    print(f"ratio no-change / full = {statistics.median(totals) / full.timings['total']:.4f}")
    assert one.recomputed_models == [uid]
    forget_project(graph, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", type=Path, help="dbt target folders (default: the bundled example)")
    ap.add_argument("--synth-models", type=int, default=2000, help="size of the synthetic project (0: none)")
    ap.add_argument("--repeat", type=int, default=10, help="no-change rebuilds to time")
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic project (issue figures: 1,300 seed 7; 5,000 seed 11)")
    ap.add_argument("--synth", nargs="*", default=[], metavar="MODELS:SEED", help="synthetic projects instead of --synth-models/--seed")
    ap.add_argument("--no-bulk-import", action="store_true", help="skip the bulk-import reference after each full build")
    args = ap.parse_args()
    paths = args.paths or [REPO / "examples" / "coffee_shop" / "target"]
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        for p in paths:
            bench(graph, p, p.resolve().parent.name, args.repeat, not args.no_bulk_import)
        specs = args.synth or ([f"{args.synth_models}:{args.seed}"] if args.synth_models else [])
        for spec in specs:
            models, _, seed = spec.partition(":")
            synth = REPO.parent / "shared" / "tools" / "synth_dbt.py"
            out = Path(tempfile.mkdtemp()) / "synth"
            t = time.perf_counter()
            subprocess.run([sys.executable, str(synth), "--models", models, "--seed", seed or "1", "--out", str(out), "--quiet"], check=True)
            print(f"\n(synth project of {models} models, seed {seed or 1}, generated in {time.perf_counter() - t:.1f}s)")
            bench(graph, out / "target", f"synth{models}", args.repeat, not args.no_bulk_import)
            shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
