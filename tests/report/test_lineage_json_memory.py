"""``catalog lineage --json`` holds little lineage: its peak grows little with the project.

Each model's lineage is encoded as it is analyzed and its text kept in a temporary file, so
the analysis and the writer together never hold a project's lineage records. Measured in
process with tracemalloc (what Python allocates, not the resident memory, so it is the same
from run to run) on synthetic projects of 500 and 2,000 models, the project itself read
before: holding every model's records before writing, as the command did, the 2,000-model
peak was 140 MB above the 500-model one (45 and 187 MB); streamed, 23 MB above it (7 and 30 MB),
what the analysis keeps of each model for the models after it (its column names)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project_packed
from catalog.extract import load_project
from catalog.report import lineage_json
from test_report_reach import _synth

pytestmark = pytest.mark.corpus

GROWTH_MB = 60  # at most this much more at 2,000 models than at 500


def _write_peak_mb(target: Path) -> tuple[int, int]:
    """(peak MB allocated while the lineage of the project at ``target`` is analyzed and
    written as JSON, the document's size in MB)."""
    project = load_project(target)
    out = _Sink()
    tracemalloc.start()
    try:
        written = lineage_json.write_lineage_json(out, project.name, project.dialect, analyze_project_packed(project, jobs=1), [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == len(project.models())
    return peak // 2**20, out.size // 2**20


class _Sink:
    """A text stream that keeps only how much was written (the document is not what is measured)."""

    size = 0

    def write(self, text: str) -> int:
        self.size += len(text)
        return len(text)


def test_lineage_json_peak_grows_little_with_the_project(shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lineage_json, "SPOOL_BYTES", 2**20)  # the models' texts on disk at both sizes
    peaks, sizes = {}, {}
    for models in (500, 2000):
        peaks[models], sizes[models] = _write_peak_mb(_synth(shared_dir, tmp_path / str(models), models, 3))
    print(f"lineage --json peak: {peaks} MB; JSON written: {sizes} MB")
    assert sizes[2000] > 3 * sizes[500]  # the document itself grows with the project
    assert peaks[2000] - peaks[500] <= GROWTH_MB, (peaks, sizes)
