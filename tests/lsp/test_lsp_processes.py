"""`catalog lsp` leaves no process behind: the analyzer's process (and the workers it forks to
analyze a large target) ends with the server, whether the server is shut down by the editor
or killed in the middle of an analysis. Seen from outside, in /proc: a process left behind
would keep the editor's pipes open and analyze for nobody."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from catalog.walks import descendants
from editor import editor
from projects import lay_out

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes from /proc (Linux)")


def _parents() -> dict[int, int]:
    """Every live process's parent (zombies, already ended, left out)."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
        if state != "Z":
            found[int(entry)] = int(ppid)
    return found


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for child, parent in _parents().items():
        children[parent].append(child)
    return descendants([pid], lambda p: children.get(p, ()))


def _alive(pids: set[int]) -> set[int]:
    return pids & set(_parents())


async def _until(check, timeout: float):
    end = time.monotonic() + timeout
    while not (got := check()) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    return got


@pytest.fixture(scope="module")
def synth_root(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A synth project of 400 models (analyzed by forked workers) and one of its model files."""
    out = tmp_path_factory.mktemp("synth")
    tool = shared_dir / "tools" / "synth_dbt.py"
    subprocess.run([sys.executable, str(tool), "--models", "400", "--seed", "5", "--out", str(out / "synth"), "--quiet"], check=True)
    root = lay_out(out / "synth" / "target", out / "project")
    rel = sorted(p.relative_to(root).as_posix() for p in (root / "models").rglob("*.sql"))[-1]
    return root, rel


@pytest.mark.parametrize("end", ["killed", "shut down"])
def test_the_analyzer_and_its_workers_end_with_the_server(synth_root, end):
    root, rel = synth_root

    async def run() -> tuple[set[int], set[int]]:
        async with editor(root, "--memory", "--hover-wait", "0", "--jobs", "2") as ed:
            server = ed.client._server
            ed.open(rel)
            await ed.hover(rel, ed.at(rel, "select"))
            # the analyzer and, under it, the analysis's two forked workers (and the resource tracker)
            started = await _until(lambda: d if len(d := _descendants(server.pid)) >= 4 else None, timeout=120)
            assert started, f"the analyzer's workers never started: {_descendants(server.pid)}"
            if end == "killed":  # in the middle of the analysis
                os.kill(server.pid, signal.SIGKILL)
                assert await _until(lambda: server.returncode is not None, timeout=10)
        await _until(lambda: not _alive(started), timeout=15)
        return started, _alive(started)

    started, left = asyncio.run(run())
    assert len(started) >= 4
    assert left == set(), f"{len(left)} of the server's {len(started)} processes outlived it"
