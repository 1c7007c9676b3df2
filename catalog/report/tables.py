"""Human-readable tables (rich) of analysis results. Records in, renderables out."""

from __future__ import annotations

from rich.table import Table

from catalog.analyze.records import ModelLineage
from catalog.extract import DbtProject


def lineage_table(project: DbtProject, lineages: dict[str, ModelLineage]) -> Table:
    table = Table(title=f"Column lineage of {project.name} ({project.dialect})", show_lines=False)
    table.add_column("model")
    table.add_column("column")
    table.add_column("type")
    table.add_column("upstream")
    for uid, m in lineages.items():
        name = project.nodes[uid].name if uid in project.nodes else uid
        if not m.columns:
            table.add_row(name, "", m.status.value, m.reason or "")
        for c in m.columns:
            ups = ", ".join(s.key for s in c.sources) or ("-" if c.resolved else f"? {c.reason}")
            table.add_row(name, c.name, c.kind.value + ("" if c.resolved else " (unresolved)"), ups)
            name = ""
    return table

