"""``catalog query NAME --param k=v``: run one of the catalog's Cypher files, read-only."""

from __future__ import annotations

import difflib
import json
import re
from typing import TYPE_CHECKING, Annotated, Any

import typer

from catalog.cli.common import JsonOpt, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.errors import CatalogError, NotFound
from catalog.store import cypher

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

REFUSED_PREFIXES = ("write/", "schema/", "system/")  # these change the graph or the server


class QueryRefused(CatalogError):
    """A write or schema query asked of the read-only ``catalog query``."""


def resolve_name(text: str) -> str:
    """``read/find_impact_downstream``, ``find_impact_downstream`` or a path to the file."""
    wanted = text.strip().replace("\\", "/")
    if wanted.endswith(".cypher"):
        wanted = wanted[: -len(".cypher")]
    if "cypher/" in wanted:
        wanted = wanted.split("cypher/", 1)[1]
    wanted = wanted.strip("/")
    every = cypher.names()
    if wanted in every:
        return wanted
    hits = [n for n in every if n.rsplit("/", 1)[-1] == wanted]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise NotFound(f"{text!r} is ambiguous; name one of: {', '.join(hits)}")
    close = difflib.get_close_matches(wanted, every + [n.rsplit("/", 1)[-1] for n in every], n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; see `catalog query --list`"
    raise NotFound(f"no query {text!r} in {cypher.CYPHER_DIR}{hint}")


def parse_params(items: list[str]) -> dict[str, Any]:
    """``k=v`` pairs; a value that parses as JSON is that value (3, null, ["a"]), else a string."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip().lstrip("$")
        if not sep or not key:
            raise typer.BadParameter(f"{item!r}: expected NAME=VALUE", param_hint="--param")
        if key in params:
            raise typer.BadParameter(f"${key} given twice", param_hint="--param")
        try:
            params[key] = json.loads(raw)
        except ValueError:
            params[key] = raw
    return params


def check_runnable(name: str) -> None:
    if name.startswith(REFUSED_PREFIXES):
        raise QueryRefused(f"{name} writes to the graph; `catalog query` runs read-only queries only")


def check_params(query: cypher.QueryFile, params: dict[str, Any]) -> None:
    missing = [p for p in query.parameters if p not in params]
    unknown = sorted(set(params) - set(query.parameters))
    takes = ", ".join(f"${p}" for p in query.parameters) or "no parameters"
    if missing:
        given = " ".join(f"--param {p}=..." for p in missing)
        raise CatalogError(f"{query.name} needs {', '.join('$' + p for p in missing)} (give {given}; null is allowed)")
    if unknown:
        raise CatalogError(f"{query.name} has no parameter {', '.join('$' + p for p in unknown)}; it takes {takes}")


def _parameters_line(query: cypher.QueryFile) -> str:
    for line in query.text.splitlines():
        if line.startswith("//") and line[2:].strip().startswith("Parameters:"):
            return line[2:].strip()[len("Parameters:") :].strip()
    return ", ".join(f"${p}" for p in query.parameters)


@handle_errors
@neo4j_options()
def query(
    name: Annotated[
        str | None,
        typer.Argument(help="The query file: read/find_impact_downstream, or just find_impact_downstream.", show_default=False),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="A parameter as NAME=VALUE; VALUE is read as JSON when it parses (3, null, true, [\"a\"]), else as a string. Repeat for each.",
            show_default=False,
        ),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List every query file with its summary and parameters.")] = False,
    as_json: JsonOpt = False,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Run one of the catalog's Cypher files (cypher/) against the graph, read-only, and
    print its rows: the same queries the CLI uses, and the ones made for Neo4j Browser.

    Every parameter the file uses must be given (`--param build_id=null` for "the active
    build"). Queries run in a read transaction, and files under write/ and schema/ are
    refused. Example: catalog query find_impact_downstream -p project=coffee_shop
    -p 'column_keys=["coffee_shop/model.coffee_shop.stg_orders.order_id"]' -p build_id=null -p max_depth=null
    """
    if list_:
        _list(as_json)
        return
    if name is None:
        raise typer.BadParameter("name a query file, or use --list to see them", param_hint="NAME")
    params = parse_params(param or [])
    qname = resolve_name(name)
    check_runnable(qname)
    described = cypher.describe(qname)
    check_params(described, params)
    with neo4j.graph() as graph:
        rows = graph.read(qname, timeout_=neo4j.timeout, **params)
    declared = [c.strip() for c in _returns(described)]
    columns = list(rows[0]) if rows else declared
    if rows and sorted(columns) == sorted(declared):  # a collected query's maps come in no set order
        columns = declared
        rows = [{c: r[c] for c in columns} for r in rows]
    emit("table", as_json, json=lambda: {"query": qname, "parameters": params, "columns": columns, "rows": rows},
         table=lambda: _rows_table(qname, columns, rows))  # fmt: skip
    say(f"{len(rows)} row{'' if len(rows) == 1 else 's'}")


def _returns(query: cypher.QueryFile) -> list[str]:
    """Column names from the ``// Returns:`` line, for the header of an empty result."""
    text = query.returns
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\([^()]*\)", "", text)
    return [p.strip() for p in text.split(",") if p.strip().isidentifier()]


def _cell(value: Any) -> Text:
    from rich.text import Text

    if value is None:
        return Text("null", style="dim")
    if isinstance(value, (dict, list)):
        return Text(json.dumps(value, default=str))
    return Text(str(value))


def _rows_table(name: str, columns: list[str], rows: list[dict[str, Any]]) -> Table:
    from rich.table import Table

    t = Table(title=name, title_justify="left")
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*(_cell(r.get(c)) for c in columns))
    return t


def _list(as_json: bool) -> None:
    queries = [cypher.describe(n) for n in cypher.names()]
    emit("table", as_json, json=lambda: _queries_json(queries), table=lambda: _queries_table(queries))


def _queries_json(queries: list[cypher.QueryFile]) -> list[dict[str, Any]]:
    return [
        {
            "name": q.name,
            "summary": q.summary,
            "parameters": list(q.parameters),
            "returns": q.returns,
            "read_only": not q.name.startswith(REFUSED_PREFIXES),
        }
        for q in queries
    ]


def _queries_table(queries: list[cypher.QueryFile]) -> Table:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"Cypher files in {cypher.CYPHER_DIR}", title_justify="left")
    t.add_column("query")
    t.add_column("runs", justify="center")
    t.add_column("what")
    t.add_column("parameters")
    for q in queries:
        runnable = not q.name.startswith(REFUSED_PREFIXES)
        t.add_row(
            Text(q.name),
            Text("yes") if runnable else Text("no (writes)", style="dim"),
            Text(q.summary),
            Text(_parameters_line(q)),
        )
    return t
