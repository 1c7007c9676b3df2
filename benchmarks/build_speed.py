"""Build speed: full build, no-change rebuild and one-model-change rebuild, per stage.

Times the in-process stages (Python start-up excluded) against the Neo4j in NEO4J_URI or
the local server, for a corpus project and a synthetic project:

    .venv/bin/python benchmarks/build_speed.py                       # coffee_shop example + synth 2000
    .venv/bin/python benchmarks/build_speed.py --synth-models 500 --repeat 20 PATH...

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

from catalog.build import Builder  # noqa: E402
from catalog.history import forget_project  # noqa: E402
from catalog.settings import Neo4jSettings  # noqa: E402
from catalog.store.connection import open_driver  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402


# The physical reference: Neo4j's offline bulk importer (`neo4j-admin database import`), which
# writes the store files directly, without transactions, indexes built afterwards. Neo4j's
# published material on the import tool speaks of about a million records per second; that
# order of magnitude (not measured on this machine) is the reference printed beside ours.
BULK_IMPORT_RATE = 1_000_000.0
BULK_IMPORT_SOURCE = "order of magnitude Neo4j publishes for its import tool, not measured here"


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


def bench(graph: Graph, target: Path, label: str, repeat: int) -> None:
    work = Path(tempfile.mkdtemp()) / "target"
    shutil.copytree(target, work)
    name = f"bench_{label}_{uuid.uuid4().hex[:6]}"
    print(f"\n== {label} ({target})")
    full = Builder(graph, work, project_name=name, full=True).run()
    print(f"full build        {full.timings['total']:.3f}s  models={full.models.total} edges={full.edges.written}  {fmt(full.timings)}")
    rate = full.relationships_written / full.timings["store"]
    print(
        f"store throughput  {full.relationships_written} relationships in {full.timings['store']:.2f}s = {rate:,.0f}/s; "
        f"store / analyze = {full.timings['store'] / max(full.timings.get('analyze', 0), 1e-9):.2f}; "
        f"reference: neo4j-admin database import {BULK_IMPORT_RATE:,.0f}/s ({BULK_IMPORT_SOURCE}), "
        f"we are at {rate / BULK_IMPORT_RATE:.1%} of it"
    )
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
    args = ap.parse_args()
    paths = args.paths or [REPO / "examples" / "coffee_shop" / "target"]
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        for p in paths:
            bench(graph, p, p.resolve().parent.name, args.repeat)
        if args.synth_models:
            synth = REPO.parent / "shared" / "tools" / "synth_dbt.py"
            out = Path(tempfile.mkdtemp()) / "synth"
            t = time.perf_counter()
            subprocess.run([sys.executable, str(synth), "--models", str(args.synth_models), "--seed", str(args.seed), "--out", str(out), "--quiet"], check=True)
            print(f"\n(synth project of {args.synth_models} models generated in {time.perf_counter() - t:.1f}s)")
            bench(graph, out / "target", f"synth{args.synth_models}", args.repeat)


if __name__ == "__main__":
    main()
