"""How big is the explorer page, and how fast does it open and answer a first search?

For synthetic projects (``synth_dbt.py --models N --seed 11``, default N = 1300 and 5000,
generated into a temporary folder), writes ``catalog explore PATH`` and prints, side by side:
models, columns and column edges; the page's size (and bytes per column); the time to write
it; and in headless Chromium (/usr/bin/chromium, driven over the DevTools protocol) the time
from navigation to the load event, then from the first keystroke of a search (a column name
typed as a user does, one character at a time) to the first result shown, and to the lineage
drawn after Enter; then the project's hub column (the most direct consumers) opened from a link
(``#col=``), from navigation to its whole lineage drawn. The goals: at 5,000 models, open + first search within 2 s; at
20,000, open + the hub column drawn within 3 s.

    .venv/bin/python benchmarks/explorer_speed.py [--models 1300 5000] [--seed 11] [--repeat 3]
    .venv/bin/python benchmarks/explorer_speed.py --models 20000 --seed 13 --cache /tmp/catalog-scale
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "tests"))

from browser import Browser, chromium_path  # noqa: E402

from catalog.analyze.project import analyze_project  # noqa: E402
from catalog.export.openlineage import export_input  # noqa: E402
from catalog.extract import load_project  # noqa: E402
from catalog.report.explorer import explorer_data, read_columns, write_explorer  # noqa: E402

GOAL_SECONDS = 2.0
HUB_GOAL_SECONDS = 3.0
# where the hub's first view spent its time, from the page's performance marks (ms since navigation)
SPLIT = """new Promise(function wait(done) {
  const at = Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name.replace('explorer:', ''), m.startTime]));
  if (at.painted === undefined) return setTimeout(() => wait(done), 10);
  const steps = [['script start', 0, at.start], ['data read', at.start, at.data], ['indexes', at.data, at.index],
                 ['lineage + layout', at.index, at.layout], ['drawing', at.layout, at.drawn], ['painted', at.drawn, at.painted]];
  done(steps.map(([name, a, b]) => name + ' ' + Math.round(b - a)).join(', ') + ', in all ' + Math.round(at.painted));
})"""


def measure(models: int, seed: int, repeat: int, work: Path, cache: Path | None) -> dict[str, float | int | str]:
    target = (cache or work) / f"synth_{models}_{seed}"
    if not (target / "target" / "manifest.json").is_file():
        subprocess.run(
            [sys.executable, str(SHARED / "tools" / "synth_dbt.py"), "--models", str(models), "--seed", str(seed),
             "--out", str(target), "--quiet"],
            check=True,
        )  # fmt: skip
    project = load_project(target)
    data = export_input(project, analyze_project(project))
    t0 = time.perf_counter()
    page = work / f"explore{models}.html"
    size = write_explorer(page, data)
    write_s = time.perf_counter() - t0
    d = explorer_data(data)
    cols = read_columns(d)
    # the last model's last column: a name far down the search list, with a deep lineage
    query, key = f"{d['nodes'][cols['node'][-1]][1]}.{cols['name'][-1]}", cols["key"][-1]
    fanout = Counter(up for up, _ in cols["feeds"])
    hub = max(fanout, key=lambda i: (fanout[i], -i))
    hub_query, hub_key = f"{d['nodes'][cols['node'][hub]][1]}.{cols['name'][hub]}", cols["key"][hub]
    best: dict[str, float] = {}
    hubs: list[float] = []
    totals: list[float] = []
    splits: list[str] = []
    with Browser(chromium_path() or "chromium", work / "profile") as b:
        for _ in range(repeat):
            b.open("about:blank")
            t_open = time.perf_counter()
            b.navigate(page.as_uri())
            loaded = time.perf_counter() - t_open
            t_type = time.perf_counter()
            b.type_text("#search", query)
            b.wait_for(f"(document.querySelector('#results li') || {{dataset: {{}}}}).dataset.key === {json.dumps(key)}")
            searched = time.perf_counter() - t_type
            t_draw = time.perf_counter()
            b.key("Enter", 13)
            b.wait_for(f"(document.getElementById('lineage') || {{dataset: {{}}}}).dataset.focus === {json.dumps(key)}")
            drawn = time.perf_counter() - t_draw
            b.open("about:blank")
            t_hub = time.perf_counter()
            b.navigate(page.as_uri() + "#col=" + urllib.parse.quote(hub_key))  # a shared link to it
            b.wait_for(f"(document.getElementById('lineage') || {{dataset: {{}}}}).dataset.focus === {json.dumps(hub_key)}")
            hub_s = time.perf_counter() - t_hub
            hubs.append(hub_s)
            totals.append(loaded + searched)
            splits.append(b.eval(SPLIT))
            for name, value in (("open", loaded), ("search", searched), ("draw", drawn), ("total", loaded + searched), ("hub", hub_s)):
                best[name] = min(best.get(name, value), value)
    return {
        "models": models, "columns": len(cols["name"]), "edges": len(cols["feeds"]), "bytes": size,
        "write_s": write_s, "query": query, "hub_query": hub_query, "hub_fanout": fanout[hub], **{f"{k}_s": v for k, v in best.items()},
        "hub_range": (min(hubs), max(hubs)), "total_range": (min(totals), max(totals)), "splits": splits,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, nargs="+", default=[1300, 5000])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=None, help="keep generated projects here (as synth_MODELS_SEED, like scale.py)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="explorer-bench-") as tmp:
        rows = [measure(n, args.seed, args.repeat, Path(tmp), args.cache) for n in args.models]
    print(f"catalog explore, synth --seed {args.seed}, best of {args.repeat} runs in headless Chromium")
    print(f"{'models':>7} {'columns':>8} {'edges':>8} {'size MB':>8} {'B/col':>6} {'write s':>8} "
          f"{'open s':>7} {'search s':>9} {'open+search':>12} {'draw s':>7} {'hub drawn s':>12}")  # fmt: skip
    for r in rows:
        print(
            f"{r['models']:>7} {r['columns']:>8} {r['edges']:>8} {r['bytes'] / 1e6:>8.2f} {r['bytes'] / r['columns']:>6.0f} "
            f"{r['write_s']:>8.2f} {r['open_s']:>7.2f} {r['search_s']:>9.2f} {r['total_s']:>12.2f} {r['draw_s']:>7.2f} {r['hub_s']:>12.2f}"
        )
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        print(f"size grows x{b['bytes'] / a['bytes']:.2f} for x{b['models'] / a['models']:.2f} models "
              f"(x{b['columns'] / a['columns']:.2f} columns); open+search x{b['total_s'] / a['total_s']:.2f}")  # fmt: skip
    last = rows[-1]
    verdict = "within" if last["total_s"] <= GOAL_SECONDS else "OVER"
    print(f"{last['models']} models: open + first search {last['total_s']:.2f} s, {verdict} the {GOAL_SECONDS:.0f} s goal "
          f"(searched {last['query']!r})")  # fmt: skip
    for r in rows:
        print(f"{r['models']} models: open + first search {r['total_range'][0]:.2f}-{r['total_range'][1]:.2f} s, "
              f"hub drawn {r['hub_range'][0]:.2f}-{r['hub_range'][1]:.2f} s; the hub's first view, ms:")  # fmt: skip
        for split in r["splits"]:
            print(f"  {split}")
    verdict = "within" if last["hub_s"] <= HUB_GOAL_SECONDS else "OVER"
    print(f"{last['models']} models: a link to the hub column {last['hub_query']!r} ({last['hub_fanout']} direct consumers) opened and drawn "
          f"{last['hub_s']:.2f} s, {verdict} the {HUB_GOAL_SECONDS:.0f} s goal")  # fmt: skip


if __name__ == "__main__":
    main()
