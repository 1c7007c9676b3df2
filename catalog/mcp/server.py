"""The MCP server: the catalog's questions as tools with typed arguments and JSON answers.

Every tool only reads. A failure is a tool error carrying the CLI's one-line message (an
unknown column with suggestions, no build, Neo4j unreachable), never a traceback, and the
server goes on answering.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from catalog import __version__
from catalog.errors import CatalogError
from catalog.mcp import tools
from catalog.mcp.limits import MAX_COLUMNS, MAX_NAME, MAX_QUERY, MAX_SEARCH, cut
from catalog.mcp.pages import DEFAULT_LIMIT, MAX_LIMIT
from catalog.mcp.view import SEARCH_KINDS

T = TypeVar("T")

INSTRUCTIONS = """\
Column-level lineage of a dbt project (models, sources, columns, semantic models, metrics,
exposures, saved queries), from the catalog's versioned builds. Name columns as MODEL.COLUMN
(orders.amount), SOURCE.TABLE.COLUMN (shop.orders.id) or UNIQUE_ID.COLUMN. Start with `search`
when unsure of a name. "What breaks if I change X?": `impact`. "Where does X come from?":
`trace`. "Is A connected to B?": `path`. The neighbourhood of a column as nodes and edges:
`column_lineage`. A model's columns, types, documentation and PII: `model`. Every list is
bounded: `total` says how many there are, `truncated` whether this answer holds fewer, and
`next_cursor` is passed back as `cursor` for the next page (with the same arguments; a new
build makes it stale). Each tool takes `project` and `build` (default: the only project, its
active build; `projects` lists them)."""

# the CLI's words in the messages the tools share with it, and the tools' words for them
TOOL_WORDS = (
    ("pass --project", "give the `project` argument (the `projects` tool lists them)"),
    ("(see `catalog builds`)", "(the `builds` tool lists them)"),
)
SearchKind = Literal[SEARCH_KINDS]  # type: ignore[valid-type]

Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Most items in this answer (1 to {MAX_LIMIT}).")]
Cursor = Annotated[str | None, Field(max_length=100, description="`next_cursor` of the previous answer, for the next page; omit for the first.")]
Project = Annotated[str | None, Field(max_length=MAX_NAME, description="dbt project in the graph; needed only when it holds several (see `projects`).")]
Build = Annotated[int | None, Field(ge=1, description="Build id to read (default: the active build; see `builds`).")]
Depth = Annotated[int | None, Field(ge=1, description="Follow at most this many column edges (default: any depth).")]
Name = Annotated[str, Field(max_length=MAX_NAME)]
ColumnName = Annotated[str, Field(max_length=MAX_NAME, description="A column: MODEL.COLUMN (orders.amount), SOURCE.TABLE.COLUMN or UNIQUE_ID.COLUMN; case-insensitive.")]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def _answer(source: Any, work: Callable[[], T]) -> T:
    """``work``'s answer, or a tool error with the CLI's one line, in the tools' words and cut
    to a bounded length."""
    try:
        return work()
    except CatalogError as e:
        source.lost(e)
        message = str(e)
        for cli, words in TOOL_WORDS:
            message = message.replace(cli, words)
        raise ToolError(cut(message)) from None
    except Exception as e:  # noqa: BLE001 - the last resort: no traceback reaches the client
        if os.environ.get("CATALOG_DEBUG"):
            raise
        raise ToolError(cut(f"unexpected {type(e).__name__}: {e} (set CATALOG_DEBUG=1 to see where)")) from None


def _one_line(error: ValidationError) -> str:
    """A schema violation as one line naming each argument and what it should be."""
    parts = []
    for err in error.errors():
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        parts.append(f"argument {where}: {err['msg']}")
    return cut("; ".join(parts))


class CatalogServer(MCPServer):
    """The SDK's server, whose argument errors are one line (the SDK's are pydantic's
    several lines with a URL)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if isinstance(e, UnexpectedToolError) or not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {_one_line(e.__cause__)}") from e.__cause__


def make_server(source: Any, *, timeout: float | None = None) -> MCPServer:
    """The server answering from ``source`` (:class:`~catalog.mcp.stored.Stored` or
    :class:`~catalog.mcp.stored.InMemory`); ``timeout``: seconds one `cypher` query may run."""
    server = CatalogServer("catalog", title="catalog: column-level lineage for dbt", instructions=INSTRUCTIONS,
                       version=__version__, log_level="WARNING")  # fmt: skip

    def tool(description: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        return server.tool(description=description, annotations=READ_ONLY)

    @tool(
        "Find models, sources, seeds, snapshots, columns, semantic models, metrics, exposures and saved queries by name, "
        "fuzzy, best first (exact, then the name after a dot, prefix, substring, letters in order). Use it to turn a "
        "half-remembered name into the exact MODEL.COLUMN the other tools take."
    )
    def search(
        query: Annotated[str, Field(max_length=MAX_SEARCH, description="Part of a name: 'order_tot', 'customers.life', 'revenue'.")],
        kinds: Annotated[list[SearchKind] | None, Field(max_length=len(SEARCH_KINDS), description="Only these kinds.")] = None,
        limit: Limit = 50,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.search(source, query, kinds, limit, cursor, project, build))

    @tool(
        "The column lineage around one column as a graph: the columns upstream (what it is computed from) and/or "
        "downstream (what it feeds), each with its distance, and the edges between them with their type "
        "(passthrough, renamed, derived, source, unknown) and SQL expression; with conditions, the models whose "
        "WHERE/JOIN/GROUP BY use these columns. For 'what breaks' prefer `impact`, for 'where from' `trace`."
    )
    def column_lineage(
        column: ColumnName,
        direction: Annotated[Literal["upstream", "downstream", "both"], Field(description="Which side of the column.")] = "both",
        depth: Depth = None,
        conditions: Annotated[bool, Field(description="Also list condition lineage (filters, joins, grouping).")] = False,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.column_lineage(source, column, direction, depth, conditions, limit, cursor, project, build))

    @tool(
        "What changes downstream if these columns change. A summary first (how many models, columns, metrics, "
        "exposures, saved queries and semantic models are hit, and the dbt selector of the models to rebuild), then "
        "the hits: metrics, exposures, saved queries and semantic models, then columns, each with its depth, one "
        "shortest path (type and expression of each hop) and, for columns, whether it only passes the value through "
        "(effect 'passthrough') or computes from it ('needs review'); with conditions, then the models these columns "
        "filter, join or group (kind 'condition'). The summary counts are exact even when the hits are cut."
    )
    def impact(
        columns: Annotated[list[Name] | None, Field(max_length=MAX_COLUMNS, description="One or more columns, MODEL.COLUMN each.")] = None,
        column: Annotated[str | None, Field(max_length=MAX_NAME, description="One column, MODEL.COLUMN (instead of columns).")] = None,
        depth: Depth = None,
        conditions: Annotated[bool, Field(description="Also list the models these columns filter, join or group (condition lineage).")] = False,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        asked = [*(columns or ()), *([column] if column else [])]
        return _answer(source, lambda: tools.impact(source, asked, depth, conditions, limit, cursor, project, build))

    @tool(
        "Where a column comes from: every upstream column back to sources and seeds, each with one shortest path and "
        "the SQL expression at each hop, so the computation can be read. `metric:NAME`, `exposure:NAME` or "
        "`saved_query:NAME` start from that consumer."
    )
    def trace(
        column: Annotated[str, Field(max_length=MAX_NAME, description="MODEL.COLUMN, or metric:NAME, exposure:NAME, saved_query:NAME.")],
        depth: Depth = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.trace(source, column, depth, limit, cursor, project, build))

    @tool(
        "Whether a change to one column reaches another: one shortest value path (each hop's type and expression), "
        "and one condition path (to a column that filters, joins or groups the target's model), or why there is none "
        "(for example: the target is upstream, ask the other way round)."
    )
    def path(
        from_column: Annotated[str, Field(max_length=MAX_NAME, description="The upstream column, MODEL.COLUMN.")],
        to_column: Annotated[str, Field(max_length=MAX_NAME, description="The downstream column, MODEL.COLUMN.")],
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.path(source, from_column, to_column, project, build))

    @tool(
        "One model, source, seed, snapshot or consumer (metric:NAME, exposure:NAME, ...): its columns with data type, "
        "description, PII flag, lineage type, expression, whether it was resolved (with the reason when not) and the "
        "dbt tests that read it (name, unique_id, kind generic/singular/unit, the generic test's macro), the model's "
        "test_coverage (columns read by a test of its columns), the analysis status and reason, and its parents and "
        "children (at most limit of each, with their totals)."
    )
    def model(
        name: Annotated[str, Field(max_length=MAX_NAME, description="Its name (orders, shop.orders for a source) or unique id.")],
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.model(source, name, limit, cursor, project, build))

    @tool(
        "Compare a changed dbt target with its base (two target folders with manifest.json, read from disk), as "
        "`catalog check --state BASE TARGET`: every changed column, what it hits downstream, and its class (breaking, "
        "policy, partial, safe), with the dbt selector to rebuild; `fails` says whether a finding is at or above fail_on."
    )
    def check_change(
        base_target: Annotated[str, Field(max_length=MAX_NAME, description="The base (production) dbt target folder.")],
        target: Annotated[str, Field(max_length=MAX_NAME, description="The changed dbt target folder.")],
        fail_on: Annotated[Literal["breaking", "partial", "never"], Field(description="The class that fails the change.")] = "breaking",
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.check_change(source, base_target, target, fail_on, limit, cursor))

    if source.stored:
        _stored_tools(server, source, tool, timeout)
    return server


def _stored_tools(server: MCPServer, source: Any, tool: Callable[[str], Any], timeout: float | None) -> None:
    @tool("The dbt projects in the graph, each with its active build, its number of models and when that build finished.")
    def projects(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> dict[str, Any]:
        return _answer(source, lambda: tools.projects(source, limit, cursor))

    @tool("The builds of a project, newest first: id, status (active, superseded, failed), times and counts.")
    def builds(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None, project: Project = None) -> dict[str, Any]:
        return _answer(source, lambda: tools.builds(source, project, limit, cursor))

    @tool(
        "What changed between two builds: column edges added, removed or changed, model statuses, and columns added, "
        "removed, retyped, documented or tagged PII. Default: the build before the active one, to the active one."
    )
    def diff(
        a: Annotated[int | None, Field(ge=1, description="Older build id (default: the build before b).")] = None,
        b: Annotated[int | None, Field(ge=1, description="Newer build id (default: the active build).")] = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.diff(source, a, b, project, limit, cursor))

    @tool(
        "When a column (or metric:NAME, exposure:NAME, saved_query:NAME) changed, newest first: one row per build in "
        "which anything about it changed (appeared, expression, transformation, upstream added or removed, data_type, "
        "description, tags, pii, its model's status, removed), with the build's git commit, branch, dirty flag and "
        "time, and each change's before and after. With upstream, also every column it reads: what changed upstream "
        "and when, the root-cause question. `known_from` says from which build on history is known (older ones deleted)."
    )
    def history(
        column: Annotated[str, Field(max_length=MAX_NAME, description="MODEL.COLUMN (also a removed one), or metric:NAME, exposure:NAME, saved_query:NAME.")],
        upstream: Annotated[bool, Field(description="Also the changes of every column it reads, at any depth.")] = False,
        since: Annotated[str | None, Field(max_length=MAX_NAME, description="Only builds from this one on (a build id or commit prefix), or that became active at or after a time (2026-11-01, UTC).")] = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.history(source, column, upstream, since, limit, cursor, project))

    @tool(
        "Columns nothing reads, so they could be dropped: one row per column with its model and why: 'no reader', or "
        "'read only by unused columns' (read_by: drop those first). Read means fed into a column or BI field, used "
        "in a WHERE/JOIN/GROUP BY/..., or read by a semantic model, metric, exposure (one without "
        "meta.referenced_columns reads every column of its models), saved query or dbt test. Sources are not judged; "
        "end models (no node depends on them, no consumer reads them) are left out unless end_models."
    )
    def unused(
        models: Annotated[list[Name] | None, Field(max_length=MAX_COLUMNS, description="Only these models, seeds or snapshots (name or unique id).")] = None,
        end_models: Annotated[bool, Field(description="Also the columns of end models, and what only they read.")] = False,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        project: Project = None,
        build: Build = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.unused(source, models, end_models, limit, cursor, project, build))

    @tool(
        "Run a read-only Cypher query on the catalog graph, for what no other tool answers. Read `graph_schema` first: "
        "every relationship is versioned and must be filtered by build. Planned first (EXPLAIN) and refused, with the "
        "reason, unless it only reads the graph: no writes, LOAD CSV, USE or TERMINATE, CALL only of db.labels, "
        "db.relationshipTypes, db.propertyKeys, db.schema.* and the full-text index queries, SHOW only of INDEXES and "
        "CONSTRAINTS, brackets nested at most 64 deep. Then run in Neo4j's READ access mode, rolled back, and ended at "
        "the timeout. Rows after the page (and the one past it) are not read: when more follow, `truncated` is true and "
        "`total` null (`total_counted` false)."
    )
    def cypher(
        query: Annotated[str, Field(max_length=MAX_QUERY, description="One Cypher statement; use $name parameters for values.")],
        params: Annotated[dict[str, Any] | None, Field(description="The query's parameters.")] = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        return _answer(source, lambda: tools.cypher(source, query, params, limit, cursor, timeout))

    @tool("The graph contract for the cypher tool: labels, relationships, properties and the versioning rule with an example WHERE.")
    def graph_schema() -> str:
        return tools.graph_schema()

    @server.resource("catalog://graph-schema", name="graph_schema", title="The catalog graph", mime_type="text/markdown",
                     description="Labels, relationships, properties and the versioning rule, for the cypher tool.")  # fmt: skip
    def graph_schema_resource() -> str:
        return tools.graph_schema()
