"""The reads of the governance report, one method each, of one build of one project: each names
its ``cypher/read/*.cypher`` file (runnable in Neo4j Browser as written) and its rows. The
methods are safe to call side by side from threads (the driver is); the streamed ones read
lazily, row by row, as their caller takes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from catalog.store.graph import Graph

ALL_ROWS = 2**62  # LIMIT of a read that takes every row from its SKIP on


class BuildReads:
    """The report's reads of build ``build_id`` of ``project``."""

    def __init__(self, graph: Graph, project: str, build_id: int):
        self.graph, self.project, self.build_id = graph, project, build_id
        self._params = {"project": project, "build_id": build_id}

    def build(self) -> dict[str, Any] | None:
        """``find_build``: the Build node's properties, None when there is none."""
        rows = self.graph.read("read/find_build", **self._params)
        return rows[0]["build"] if rows else None

    def builds(self) -> list[dict[str, Any]]:
        """``list_builds``: every build of the project, newest first."""
        return [r["build"] for r in self.graph.read("read/list_builds", project=self.project)]

    def model_coverage(self) -> list[dict[str, Any]]:
        """``report_model_coverage``: per node its status, reason and column counts."""
        return self.graph.read("read/report_model_coverage", **self._params)

    def consumer_inputs(self) -> list[dict[str, Any]]:
        """``report_consumer_inputs``: the INPUT_OF edges into metrics, exposures, saved queries."""
        return self.graph.read("read/report_consumer_inputs", **self._params)

    def bi(self) -> list[dict[str, Any]]:
        """``list_build_bi``: the build's BI fields, charts and dashboards, with their status."""
        return self.graph.read("read/list_build_bi", **self._params)

    def build_tests(self) -> list[dict[str, Any]]:
        """``list_build_tests``: the build's dbt tests, each with the columns it reads."""
        return self.graph.read("read/list_build_tests", **self._params)

    def column_details(self, keys: list[str]) -> dict[str, list[Any]]:
        """``report_column_details`` of ``keys``: key -> [key, unique_id, model, column,
        model_unique_id, description, pii, tags, meta, conditions]."""
        if not keys:
            return {}
        rows = self.graph.read_values("read/report_column_details", **self._params, column_keys=keys)
        return {c[0]: c for c in rows[0][0]} if rows else {}

    def feeds_of_columns(self, keys: list[str]) -> list[dict[str, Any]]:
        """``report_feeds_of_columns``: the FEEDS edges into and out of ``keys``."""
        return self.graph.read("read/report_feeds_of_columns", **self._params, column_keys=keys)

    def build_columns(self, skip: int = 0, limit: int = ALL_ROWS) -> Iterator[tuple[Any, ...]]:
        """``report_build_columns``, streamed: per node from the ``skip``-th, at most ``limit``,
        (unique_id, resource_type, columns) with each column's names, flags and FEEDS edges."""
        return self.graph.stream_values("read/report_build_columns", **self._params, skip=skip, limit=limit)

    def unresolved_columns(self) -> Iterator[tuple[Any, ...]]:
        """``report_unresolved_columns``, streamed."""
        return self.graph.stream_values("read/report_unresolved_columns", **self._params)

    def undocumented_columns(self, public_only: bool) -> Iterator[tuple[Any, ...]]:
        """``report_undocumented_columns``, streamed: of public models only, or of all."""
        return self.graph.stream_values("read/report_undocumented_columns", **self._params, public_only=public_only)

    def column_readers(self, unique_ids: list[str] | None = None) -> Iterator[tuple[Any, ...]]:
        """``list_column_readers``, streamed: per model, seed and snapshot (unique_id, model,
        resource_type, dependents, columns), each column with what reads it; with
        ``unique_ids``, of those nodes only."""
        return self.graph.stream_values("read/list_column_readers", **self._params, unique_ids=unique_ids)
