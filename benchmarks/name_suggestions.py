"""A mistyped column's error with its suggestions, beside the right name's answer: `catalog trace`
from process start to exit, over a project built into Neo4j, each run alternating the two.

    .venv/bin/python benchmarks/name_suggestions.py --target /tmp/synth/synth_5000_11/target \\
        --project bench_names_5000 --right int_users__rollup_v3.total_default_order_count \\
        --wrong int_users__rollup.default_order_count_filled_2 --before ../main/.venv/bin/catalog

Builds the target under --project first unless --no-build (a later run: a no-change build).
Prints each run's seconds and peak memory, and the ratio of the medians: the goal is at most 2 x.
--before: another installation's `catalog` asked the same in each run, right after this
checkout's (its ratio printed beside this one's): the code before a change, on the same build.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CATALOG = [sys.executable, "-m", "catalog.cli.app"]


def timed(catalog: list[str], args: list[str]) -> tuple[float, float, str]:
    """Seconds, peak resident MB and the last line of stderr (the error) of one `catalog` run."""
    wrapped = ["/usr/bin/time", "-f", "%M", *catalog, *args]
    t = time.perf_counter()
    done = subprocess.run(wrapped, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - t
    lines = done.stderr.strip().splitlines()
    return seconds, int(lines[-1]) / 1024, next((line for line in lines if line.startswith("Error:")), "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", type=Path, required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--right", required=True, help="a column the build holds, MODEL.COLUMN")
    ap.add_argument("--wrong", required=True, help="a mistyped column name")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--before", help="another installation's catalog command, asked the same beside this one")
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run([*CATALOG, "build", str(args.target), "--project", args.project], check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    catalogs = {"this checkout": CATALOG, **({f"before ({args.before})": [args.before]} if args.before else {})}
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    seconds: dict[tuple[str, str], list[float]] = {(c, n): [] for c in catalogs for n in (args.right, args.wrong)}
    for i in range(args.runs):
        for label, catalog in catalogs.items():
            for name in (args.right, args.wrong):
                took, peak, error = timed(catalog, ["trace", name, "--project", args.project])
                seconds[label, name].append(took)
                print(f"run {i + 1}, {label}: {name}: {took:.2f} s, peak {peak:.0f} MB {error[:160]}")
    for label in catalogs:
        r, w = statistics.median(seconds[label, args.right]), statistics.median(seconds[label, args.wrong])
        print(f"median, {label}: right name {r:.2f} s, mistyped name with suggestions {w:.2f} s: {w / r:.2f} x")


if __name__ == "__main__":
    main()
