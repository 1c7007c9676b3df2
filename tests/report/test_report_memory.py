"""``catalog report -f json`` holds little memory: its peak grows little with the build.

The report streams its long lists (a model's rows at a time from Neo4j, a few hundred JSON
items at a time to the file); what it holds is the build's column graph, walked in memory.
Measured as the peak resident memory of the command in a process of its own, on synthetic
projects of 500 and 2,000 models: before the report streamed, the 2,000-model report peaked
540 MB above the 500-model one (275 and 815 MB: every row, record and the text held at once);
streamed, 100 MB above it (116 and 216 MB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_report_reach import _synth

pytestmark = [pytest.mark.neo4j, pytest.mark.corpus]

GROWTH_MB = 250  # at most this much more at 2,000 models than at 500

# VmHWM, not getrusage's ru_maxrss: a process started from this one would inherit the test
# process's own peak in ru_maxrss (Linux keeps it across exec); VmHWM is the new program's
PEAK = (
    "import sys\n"
    "from catalog.cli.app import main\n"
    "sys.argv = ['catalog', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "except SystemExit as e:\n"
    "    assert not e.code, e.code\n"
    "peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
    "print(int(peak.split()[1]) // 1024, file=sys.stderr)\n"
)


def _report_peak_mb(project: str, out: Path, env: dict[str, str]) -> int:
    """The peak resident memory (MB) of ``catalog report -f json -o out`` in a process of its own."""
    done = subprocess.run([sys.executable, "-c", PEAK, "report", "--project", project, "-f", "json", "-o", str(out)],
                          capture_output=True, text=True, timeout=900, env=env, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1])


def test_json_report_peak_grows_little_with_the_build(build, graph, project_name, shared_dir, tmp_path, neo4j_env):
    env = {**os.environ, **neo4j_env}
    peaks, sizes = {}, {}
    for models in (500, 2000):
        name = f"{project_name}_{models}"
        build(_synth(shared_dir, tmp_path / str(models), models, 3), name)
        out = tmp_path / f"report_{models}.json"
        peaks[models] = _report_peak_mb(name, out, env)
        sizes[models] = out.stat().st_size // 2**20
        doc = json.loads(out.read_text())
        assert doc["project"] == name and len(doc["coverage"]["models"]) > models * 0.9
    print(f"report -f json peak: {peaks} MB; JSON written: {sizes} MB")
    assert sizes[2000] > 3 * sizes[500]  # the report itself grows with the build
    assert peaks[2000] - peaks[500] <= GROWTH_MB, (peaks, sizes)
