"""The ``catalog build`` summary as a table."""

from __future__ import annotations

from rich.table import Table

from catalog.builds import BuildSummary


def summary_table(s: BuildSummary) -> Table:
    t = Table(title=f"Build {s.build_id} of {s.project}: {s.status}", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("dialect", s.dialect)
    t.add_row("models", str(s.models.total))
    t.add_row("  reused / recomputed", f"{s.models.reused} / {s.models.recomputed}")
    t.add_row("  failed (carried over)", f"{s.models.failed} ({s.models.carried_over})")
    if s.models.removed:
        t.add_row("  removed", str(s.models.removed))
    for status, n in s.statuses.items():
        t.add_row(f"  {status}", str(n))
    t.add_row("columns", str(s.columns))
    t.add_row("column edges written / closed", f"{s.edges.written} / {s.edges.closed}")
    t.add_row("conditions written", str(s.conditions_written))
    for stage, secs in s.timings.items():
        t.add_row(f"time: {stage}", f"{secs * 1000:.1f} ms")
    for uid, why in list(s.failures.items())[:10]:
        t.add_row(f"failed: {uid}", why)
    return t
