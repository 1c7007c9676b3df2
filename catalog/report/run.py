"""The governance report of a stored build, as one use case: read the build, collect the
report and render it as html, md or json (json written as it is read), with the lineage
explorer beside the html when asked. ``catalog report`` calls :func:`governance_report` and
says where the report goes (:mod:`catalog.report.governance` collects it)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote

if TYPE_CHECKING:
    from catalog.history import BuildAt
    from catalog.store.graph import Graph

Writer = Callable[[TextIO], object]  # writes the report into the stream it is given


def governance_report(
    graph: Callable[[], AbstractContextManager[Graph]],
    fmt: str,
    output: Callable[[Writer], None],
    *,
    project: str | None,
    build: str | BuildAt | None,
    top: int,
    history: int,
    max_rows: int,
    max_chars: int,
    explorer: Path | None = None,
    target: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> None:
    """The report of the build (``project``, ``build``) in the graph ``graph()`` opens, in
    ``fmt`` (html, md or json), handed to ``output`` as a writer; json is written while the
    build is read. With ``explorer`` (html), the explorer of the same build is written there
    and linked from ``target``, where the report goes. ``say`` hears the progress."""
    from catalog.memory import paused_gc
    from catalog.query import BuildView
    from catalog.report.governance import collect_report, report_parts
    from catalog.report.governance_html import report_html
    from catalog.report.governance_render import report_markdown, write_report_json

    # hundreds of thousands of small records and no cycles: the collector would walk them
    # again and again (two thirds of the time of a 1,300-model report)
    with paused_gc():
        with graph() as opened:
            catalog = BuildView(opened, project, build)
            say(f"Reading build {catalog.build_id} of {catalog.project}…")
            progress = lambda msg: say(f"  {msg}")  # noqa: E731
            if fmt == "json":  # written as it is read: a large build's report is never whole in memory
                with report_parts(catalog, top=top, progress=progress, history=history) as parts:
                    output(lambda out: write_report_json(out, parts))
                return
            # the long lists packed: Markdown and HTML make records only of the rows they show
            data = collect_report(catalog, top=top, progress=progress, history=history, packed=True)
            explored = None
            if explorer is not None:  # the explorer's modules (and sqlglot) only when asked for
                from catalog.export.stored import stored_export_input

                explored = stored_export_input(catalog, consumers=True)
        href = None
        if explorer is not None and explored is not None and target is not None:
            from catalog.report.explorer import write_explorer

            size = write_explorer(explorer, explored)
            say(f"Explorer written ({size / 1e6:.1f} MB): {explorer.resolve()}")
            href = quote(Path(os.path.relpath(explorer.resolve(), target.resolve().parent)).as_posix(), safe="/")
        if fmt == "md":
            text = report_markdown(data, max_rows=max_rows, limit=max_chars)
        else:
            text = report_html(data, max_rows=max_rows, explorer=href)
    output(lambda out: out.write(text))
