"""Scale: the rows of the speed table at 1,300, 5,000 and 20,000 models, each beside its reference.

For each synthetic project (``synth_dbt.py --models N --seed S``, generated once into --cache)
prints, measured in the same run:

- analysis: ``analyze_project`` in this process (default jobs) against the sqlglot floor, one
  parse + ``qualify`` of every model's SQL in one process (see lineage_speed.py); with
  ``--floor-sample K`` the floor is timed on K models spread over the project and scaled up;
- extract: ``load_project`` (manifest.json and catalog.json read, parsed and checked once),
  and compare: the fingerprints a rebuild compares with the stored build's;
- ``catalog lineage PATH --json > /dev/null``: wall time and peak resident memory of the
  largest process (the command or one of its analysis workers);
- with Neo4j (skip with --no-store): ``catalog build --full`` in process, per stage and in
  relationships per second, beside Neo4j's bulk import of the same graph (bulk_import.py; skip
  with --no-bulk-import); a no-change rebuild; three one-model-change rebuilds; ``catalog impact``
  of a hub column from process start to output and in process (p95); ``catalog report -f json``,
  three times, each beside ``analyze_project`` of the same project right after it, and their median ratio;
  and once, the hub-heavy case: impact of a column reaching 12,500 columns (benchmarks/hub_project.py),
  in process p95, beside the per-path reads impact made before; a mistyped column's error beside
  the right name's answer, each MCP tool's first call, `catalog lsp`'s first hover and hover p95
  (name_suggestions.py, mcp_latency.py, lsp_latency.py over the same stored build); the store's size on disk after the
  full build and the local server's peak resident memory (what a build needs from the server); and
  ``catalog forget`` of the project (process start to exit); each one-model-change rebuild beside
  reading and parsing the project's manifest.json and catalog.json with orjson right after it
  (the collector on, as a script does it), and their median ratio.
- with Neo4j, memory_peaks.py's rows: the peak memory of ``catalog build``, ``explore`` and
  ``report -f md / html / json``, each beside ``catalog lineage --json``'s.
- with Neo4j: ``catalog check`` of two one-line edits, in Neo4j mode and with ``--state``, beside
  the orjson parse and ``lineage --json`` (benchmarks/check_speed.py).

and once: ``catalog --help`` against ``python -c pass`` (process start to exit, best of runs).
CPU times (user + system, children included) are printed beside wall times: the machine is shared.

    .venv/bin/python benchmarks/scale.py                               # 1300:7 5000:11 20000:13
    .venv/bin/python benchmarks/scale.py --sizes 5000:11 --no-store --cache /tmp/synth
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from build_speed import change_one_model, server_cpu, store_line  # noqa: E402
from bulk_import import reference  # noqa: E402
from lineage_speed import SHARED, cpu_seconds, floor  # noqa: E402
from query_latency import hub_latency, pct  # noqa: E402

CATALOG = Path(sys.executable).parent / "catalog"
REBUILD_ROUNDS = 3  # one-model-change rebuilds, each against the orjson parse measured after it
REPORT_ROUNDS = 3  # reports of the stored project, each against analyze_project measured after it


def clock(fn):
    """(wall seconds, cpu seconds, result) of one call."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, cpu_seconds() - c0, result


def synth(models: int, seed: int, cache: Path) -> Path:
    out = cache / f"synth_{models}_{seed}"
    if not (out / "target" / "manifest.json").is_file():
        tool = SHARED / "tools" / "synth_dbt.py"
        cmd = [sys.executable, str(tool), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"]
        subprocess.run(cmd, check=True)
    return out


def stored_projects(description: str, prefix: str, graph_work) -> list[str]:
    """The command line of a benchmark of stored builds (``--synth MODELS:SEED`` generated into
    ``--cache`` and built as ``<prefix>_<models>_<seed>``, ``--project`` already built), then
    ``graph_work(graph, projects)`` with the graph open; the projects."""
    from catalog.builds import Builder
    from catalog.settings import Neo4jSettings
    from catalog.store.connection import open_driver
    from catalog.store.graph import Graph

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--synth", action="append", default=[], help="MODELS:SEED of a synthetic project to build and ask")
    ap.add_argument("--project", action="append", default=[], help="a project already built")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/catalog-scale"), help="where generated projects are kept")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    settings = Neo4jSettings.from_env()
    projects = list(args.project)
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        for spec in args.synth or ([] if projects else ["1300:7"]):
            models, _, seed = spec.partition(":")
            args.cache.mkdir(parents=True, exist_ok=True)
            target = synth(int(models), int(seed or 1), args.cache) / "target"
            name = f"{prefix}_{models}_{seed or 1}"
            t = time.perf_counter()
            Builder(graph, target, project_name=name).run()
            print(f"built {name} in {time.perf_counter() - t:.1f}s")
            projects.append(name)
        graph_work(graph, projects)
    return projects


def run_measured(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MB, largest process) of a command, from a fresh
    interpreter so that the peak is this command's own."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
        "if done.returncode:\n"
        "    sys.exit(f'exit {done.returncode}: ' + (done.stderr.strip().splitlines() or [''])[-1])\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(time.perf_counter() - t, u.ru_utime + u.ru_stime, u.ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[1:])} failed, {done.stderr.strip()}")
    wall, cpu, kb = done.stdout.split()
    return float(wall), float(cpu), int(kb) // 1024


def best_start(cmd: list[str], runs: int) -> tuple[float, float]:
    """Best wall time and CPU time of a short command over ``runs``."""
    best = (float("inf"), 0.0)
    for _ in range(runs):
        wall, cpu, _ = run_measured(cmd)
        best = min(best, (wall, cpu))
    return best


def cli_start(runs: int) -> None:
    ref = best_start([sys.executable, "-c", "pass"], runs)
    help_ = best_start([str(CATALOG), "--help"], runs)
    sub = best_start([str(CATALOG), "impact", "--help"], runs)
    print(f"CLI start, best of {runs}:   python -c pass {ref[0]:.3f} s (cpu {ref[1]:.3f})")
    print(f"  catalog --help             {help_[0]:.3f} s (cpu {help_[1]:.3f})  {help_[0] / ref[0]:5.1f} x python -c pass")
    print(f"  catalog impact --help      {sub[0]:.3f} s (cpu {sub[1]:.3f})  {sub[0] / ref[0]:5.1f} x python -c pass")


def analysis_rows(project_dir: Path, floor_sample: int | None, jobs: int | None):
    from catalog.analyze.project import analyze_project
    from catalog.artifacts import find_target_dir
    from catalog.builds import fingerprints
    from catalog.extract import load_project
    from catalog.memory import paused_gc

    target = find_target_dir(project_dir)
    e_wall, e_cpu, project = clock(lambda: load_project(project_dir))
    n = len(project.models())
    print(f"  extract (load_project)     {e_wall:7.2f} s (cpu {e_cpu:6.2f})")
    with paused_gc():
        h_wall, h_cpu, fps = clock(lambda: fingerprints(project))
        # a rebuild after one model changed keeps the active build's fingerprints of the others
        models = [n.unique_id for n in project.models()]
        known = {uid: fp for uid, fp in fps.items() if uid != models[len(models) // 2]}
        k_wall, k_cpu, _ = clock(lambda: fingerprints(project, known))
    print(f"  compare (fingerprints)     {h_wall:7.2f} s (cpu {h_cpu:6.2f})  every node hashed (a first build)")
    print(f"  compare, one model changed {k_wall:7.2f} s (cpu {k_cpu:6.2f})  the others' fingerprints kept from the active build")
    sample = floor_sample if floor_sample and floor_sample < n else None
    f_wall, f_cpu, (count, _) = clock(lambda: floor(target, project.dialect, sample))
    scale = n / count
    label = f"sampled on {count} models, x{scale:.1f}" if sample else f"{count} models"
    print(f"  floor: parse + qualify     {f_wall * scale:7.2f} s (cpu {f_cpu * scale:6.2f}; {label})")
    a_wall, a_cpu, lineages = clock(lambda: analyze_project(project, jobs=jobs))
    print(f"  analyze_project            {a_wall:7.2f} s (cpu {a_cpu:6.2f})  {a_wall / (f_wall * scale):5.2f} x floor")
    return project, lineages


def lineage_row(project_dir: Path) -> None:
    wall, cpu, mb = run_measured([str(CATALOG), "lineage", str(project_dir), "--json"])
    print(f"  catalog lineage --json     {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb} MB (largest process)")


def server_disk() -> tuple[int, int] | None:
    """Bytes of the local server's store files and of its transaction logs; None for another server."""
    from catalog import local_neo4j

    if os.environ.get("NEO4J_URI") or not local_neo4j.status().running:
        return None
    data = local_neo4j.status().home / "data"

    def size(folder: Path) -> int:
        return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())

    return size(data / "databases"), size(data / "transactions")


def server_footprint(disk0: tuple[int, int] | None, models: int) -> None:
    """What the full build took from the local server: store files and transaction logs on disk
    (also per 10,000 models) and peak resident memory."""
    from catalog import local_neo4j

    disk1, pid = server_disk(), local_neo4j.status().pid
    if disk0 is None or disk1 is None or pid is None:
        return
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    peak_mb = int(status["VmHWM"].split()[0]) // 1024
    store_mb, logs_mb = ((after - before) / 2**20 for before, after in zip(disk0, disk1))
    memory = local_neo4j.status().memory
    print(
        f"  server: store files +{store_mb:,.0f} MB ({store_mb * 10_000 / models:,.0f} MB per 10,000 models), "
        f"transaction logs +{logs_mb:,.0f} MB; peak resident {peak_mb:,} MB since its start "
        f"(heap {memory.heap_mb} MB, page cache {memory.pagecache_mb} MB)"
    )


def parse_seconds(target: Path) -> float:
    """Wall seconds to read and parse the project's manifest.json and catalog.json with orjson."""
    import orjson

    t = time.perf_counter()
    for name in ("manifest.json", "catalog.json"):
        if (target / name).is_file():
            orjson.loads((target / name).read_bytes())
    return time.perf_counter() - t


def report_row(name: str, project_dir: Path, jobs: int | None, rounds: int = REPORT_ROUNDS) -> None:
    """``catalog report -f json`` of the stored project ``name``, each round beside its
    reference measured right after it: ``analyze_project`` of the same project's artifacts."""
    from catalog.analyze.project import analyze_project
    from catalog.extract import load_project

    project = load_project(project_dir)
    ratios = []
    for _ in range(rounds):
        wall, cpu, mb = run_measured([str(CATALOG), "report", "--project", name, "-f", "json", "-o", os.devnull])
        a_wall, a_cpu, _ = clock(lambda: analyze_project(project, jobs=jobs))
        ratios.append(wall / a_wall)
        print(f"  catalog report -f json     {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb} MB; analyze_project right after it "
              f"{a_wall:.2f} s (cpu {a_cpu:.2f}): {ratios[-1]:.2f} x")
    print(f"  catalog report -f json: median {sorted(ratios)[len(ratios) // 2]:.2f} x the analysis over {len(ratios)} rounds")


def question_rows(target: Path, name: str, column: str, models: int) -> None:
    """The moments one answer is waited on, over the stored project ``name``, each printed by
    its own script beside its reference: a mistyped column's suggestions beside the right
    name's answer (name_suggestions.py), each MCP tool's first call after the server is ready
    (mcp_latency.py --first-only), and `catalog lsp`'s first hover and hover p95 from the
    stored build (lsp_latency.py --stored)."""
    here = Path(__file__).parent
    for script, args in (
        ("name_suggestions.py", ["--target", str(target), "--project", name, "--no-build", "--runs", "3",
                                 "--right", column, "--wrong", f"{column}_2"]),
        ("mcp_latency.py", ["--stored", "--project", name, "--first-only", "--no-stdio"]),
        ("lsp_latency.py", ["--models", str(models), "--stored", "--target", str(target), "--project", name]),
    ):  # fmt: skip
        print(f"  {script}:", flush=True)
        subprocess.run([sys.executable, str(here / script), *args], check=False)


def store_rows(project_dir: Path, label: str, runs: int, bulk: bool, jobs: int | None = None) -> None:
    import shutil
    import tempfile

    from catalog.builds import Builder
    from catalog.errors import NotFound
    from catalog.history import forget_project
    from catalog.query import BuildView
    from catalog.settings import Neo4jSettings
    from catalog.store.connection import open_driver
    from catalog.store.graph import Graph

    def stages(t: dict[str, float]) -> str:
        return " ".join(f"{k} {v:.2f}" for k, v in t.items() if k != "total" and v >= 0.005)

    settings = Neo4jSettings.from_env()
    name = f"bench_scale_{label}"
    work = Path(tempfile.mkdtemp(prefix="scale_")) / "target"
    shutil.copytree(project_dir / "target", work)
    disk0 = server_disk()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        with contextlib.suppress(NotFound):  # left by an earlier run
            forget_project(graph, name)
        server0 = server_cpu()
        full = Builder(graph, work, project_name=name, full=True).run()
        server = server_cpu()
        print(f"  build --full (in process)  {full.timings['total']:7.2f} s  [{stages(full.timings)}]")
        server_footprint(disk0, full.models.total)
        print("    ", end="")
        store_line(full.relationships_written, full.timings, None if server is None or server0 is None else server - server0,
                   reference(graph, name) if bulk else None)  # fmt: skip
        again = Builder(graph, work, project_name=name).run()
        print(f"  no-change rebuild          {again.timings['total']:7.2f} s  [{stages(again.timings)}]")
        ratios = []
        for _ in range(REBUILD_ROUNDS):  # each beside its reference, measured right after it
            change_one_model(work)
            one = Builder(graph, work, project_name=name).run()
            parse = parse_seconds(work)
            ratios.append(one.timings["total"] / parse)
            print(f"  one-model-change rebuild   {one.timings['total']:7.2f} s  [{stages(one.timings)}]  {ratios[-1]:5.2f} x the parse")
            print(f"    reference: manifest.json + catalog.json read and parsed with orjson {parse:.2f} s")
        print(f"  one-model-change rebuild: median {sorted(ratios)[len(ratios) // 2]:.2f} x the parse over {len(ratios)} rounds")

        catalog = BuildView(graph, name)
        candidates = graph.read("read/find_top_fanout_columns", project=name, build_id=None, limit=5)
        reach = {f"{r['unique_id']}.{r['name']}": len(catalog.impact([f"{r['unique_id']}.{r['name']}"]).columns) for r in candidates}
        hub = max(sorted(reach), key=reach.get)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            catalog.impact([hub])
            times.append(time.perf_counter() - t)
        print(f"  impact of a hub, in process p95 {pct(times, 95) * 1000:6.0f} ms ({reach[hub]} columns reached; {hub})")
    wall, cpu, _ = run_measured([str(CATALOG), "impact", hub, "--project", name, "--json"])
    print(f"  catalog impact (process)   {wall:7.2f} s (cpu {cpu:6.2f})")
    report_row(name, project_dir, jobs)
    question_rows(project_dir / "target", name, hub, int(label.split("_")[0]))
    wall, cpu, mb = run_measured([str(CATALOG), "forget", name, "--yes", "--json"])
    print(f"  catalog forget             {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb} MB")
    shutil.rmtree(work.parent, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["1300:7", "5000:11", "20000:13"], help="MODELS:SEED of each synthetic project")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/catalog-scale"), help="where generated projects are kept")
    ap.add_argument("--floor-sample", type=int, default=2000, help="time the floor on this many models at most, scaled up")
    ap.add_argument("--jobs", type=int, default=None, help="analysis processes (default: one per CPU)")
    ap.add_argument("--no-store", action="store_true", help="skip the rows that need Neo4j")
    ap.add_argument("--no-bulk-import", action="store_true", help="skip the bulk-import reference of each full build")
    ap.add_argument("--runs", type=int, default=5, help="runs of short measurements (start, impact)")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)

    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    cli_start(args.runs)
    for spec in args.sizes:
        models, _, seed = spec.partition(":")
        project_dir = synth(int(models), int(seed or 1), args.cache)
        print(f"\n== synth {models} (seed {seed or 1}): {project_dir}")
        analysis_rows(project_dir, args.floor_sample, args.jobs)
        lineage_row(project_dir)
        if not args.no_store:
            store_rows(project_dir, f"{models}_{seed or 1}", args.runs, not args.no_bulk_import, args.jobs)
            from memory_peaks import peaks  # build, explore and report peaks, each beside lineage --json's

            peaks(str(CATALOG), project_dir, f"mem_peaks_{models}_{seed or 1}")
            from check_speed import measure as check_rows  # check of a one-line edit, beside its references

            check_rows(project_dir, int(models), None)
    if not args.no_store:
        from catalog.settings import Neo4jSettings
        from catalog.store.connection import open_driver
        from catalog.store.graph import Graph

        print("\n== hub-heavy project (benchmarks/hub_project.py)")
        settings = Neo4jSettings.from_env()
        with open_driver(settings) as driver:
            hub_latency(Graph(driver, settings.database), max(args.runs, 20), 50, 50, 4)
    print(f"\nload average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
