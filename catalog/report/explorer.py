"""The lineage explorer: one self-contained HTML page to search any model or column and click
through its column lineage, drawn left to right with the vendored dagre layout.

The page embeds the lineage as JSON (``explorer_data``), the minified dagre (MIT, see
``vendor/``) and ``explorer.js``; it fetches nothing and needs no server. At 20,000 models the
page holds over a million columns, so their lists are *packed*: a digit, the width of every
value in bytes (1 to 4), then the base64 of the values' little-endian bytes (``packed``,
``unpacked``). That is about a third of the size of a JSON list of numbers, and the page reads
it straight into a typed array.

- ``nodes``: ``[kind, name, unique_id, status, reason, materialized, description]``; ``kind`` is
  the dbt resource type (``model``, ``snapshot``, ``seed``, ``source``; other kinds such as
  ``metric`` or ``exposure`` fit the same row), ``status`` the analysis's (``""`` when not analyzed).
- Columns are numbered node by node: ``node_cols`` is the count of each node's columns, in the
  order of ``nodes`` (node 0's columns come first, then node 1's, ...). ``cols`` holds packed
  lists, one value a column: ``name`` (indexes ``names``), ``type`` (1 + an index of ``types``;
  0: not analyzed, e.g. a source's column) and ``dtype`` (indexes ``dtypes``). ``exprs`` has
  the packed ``cols`` (ascending) whose expression is not their bare name and ``text``, each
  one's index in ``texts``; ``unresolved`` maps the index of each column whose origin is not
  proved to the reason, ``roles`` a semantic model's column to what it is (``entity``,
  ``dimension`` or ``measure``; any other column is a plain column).
- ``sources``: the packed column edges, each column's sources in turn (the edge's type and
  expression are the downstream column's), ``source_counts`` how many each column has;
  ``conds``: ``[column, node, clause, ...]`` (``clause`` indexes ``clauses``); ``deps``:
  ``[child, parent, ...]`` node index pairs.
- The consumers (when the input has them): semantic models are nodes with columns (their
  entities, dimensions and measures, fed by their model's columns through ``sources``); metrics,
  exposures and saved queries are nodes without columns. ``uses``: ``[column, node, type, ...]``
  a column into a consumer (a measure into its metric, a model column into an exposure);
  ``node_uses``: ``[up, down, type, ...]`` a metric into a metric, exposure or saved query;
  ``type`` indexes ``use_types``. A consumer's ``deps`` are what it reads.
"""

from __future__ import annotations

import base64
import json
import sys
from array import array
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from catalog import __version__
from catalog.analyze.records import ColumnKind, ConditionClause
from catalog.errors import CatalogError
from catalog.idents import typed
from catalog.memory import paused_gc
from catalog.export.openlineage import ExportInput

TYPES = [k.value for k in ColumnKind]
CLAUSES = [c.value for c in ConditionClause]
_ARRAYS = {1: "B", 2: "H", 3: "I", 4: "I"}  # 4-byte items, for 3 bytes cut to their low three


def packed(values: list[int]) -> str:
    """Non-negative integers below 2**32 as one string: the width of each (1 to 4 bytes), then
    the base64 of their little-endian bytes, which a page reads as a typed array."""
    top = max(values, default=0)
    width = next(w for w in (1, 2, 3, 4) if top < 1 << (8 * w))
    items = array(_ARRAYS[width], values)
    assert items.itemsize == min(4, 1 << (width - 1).bit_length())
    if sys.byteorder == "big":
        items.byteswap()
    raw = items.tobytes()
    if width == 3:
        cut = bytearray(3 * len(values))
        for k in range(3):
            cut[k::3] = raw[k::4]
        raw = bytes(cut)
    return str(width) + base64.b64encode(raw).decode("ascii")


def unpacked(text: str) -> list[int]:
    """The integers of ``packed``."""
    width, raw = int(text[0]), base64.b64decode(text[1:])
    return [int.from_bytes(raw[at : at + width], "little") for at in range(0, len(raw), width)]


def read_columns(d: dict[str, Any]) -> dict[str, list[Any]]:
    """The columns of the page's data as plain lists: ``node`` (indexes ``nodes``), ``name``,
    ``type`` (the kind, ``""`` when not analyzed), ``key`` (``unique_id.name``) and ``feeds``,
    the ``(up, down)`` column index pairs in the order of the data."""
    node = [n for n, count in enumerate(d["node_cols"]) for _ in range(count)]
    name = [d["names"][i] for i in unpacked(d["cols"]["name"])]
    kinds = ["", *d["types"]]
    feeds, sources = [], iter(unpacked(d["sources"]))
    for down, count in enumerate(unpacked(d["source_counts"])):
        feeds += [(next(sources), down) for _ in range(count)]
    return {
        "node": node, "name": name, "type": [kinds[t] for t in unpacked(d["cols"]["type"])],
        "key": [f"{d['nodes'][n][2]}.{c}" for n, c in zip(node, name)], "feeds": feeds,
    }  # fmt: skip


def explorer_data(data: ExportInput) -> dict[str, Any]:
    """The page's data: every dbt node, column, column edge, condition and dependency."""
    with paused_gc():  # hundreds of thousands of small lists and tuples, none of them cyclic
        return _explorer_data(data)


def _explorer_data(data: ExportInput) -> dict[str, Any]:
    nodes: list[list[Any]] = []
    node_index: dict[str, int] = {}
    col_node: list[int] = []
    col_name: list[str] = []
    col_type: list[int] = []
    col_dtype: list[int] = []
    exprs: dict[int, str] = {}
    unresolved: dict[int, str] = {}
    roles: dict[int, str] = {}
    dtypes: dict[str, int] = {"": 0}
    col_index: dict[tuple[str, str], int] = {}
    kind_index = {k: i for i, k in enumerate(ColumnKind)}
    clause_index = {c: i for i, c in enumerate(ConditionClause)}

    def node(uid: str) -> int:
        if uid not in node_index:
            rel = data.relations.get(uid)
            lin = data.lineages.get(uid)
            node_index[uid] = len(nodes)
            con = data.consumers.get(uid)
            if con is not None:
                lin = data.semantic.get(uid)
                nodes.append([con.kind, con.name, uid, lin.status.value if lin else "", (lin.reason or "") if lin else "",
                              con.detail, con.description or con.label or ""])  # fmt: skip
            elif rel is None:
                nodes.append(["relation", uid, uid, "", "", "", ""])
            else:
                nodes.append([
                    rel.resource_type, rel.display_name, uid, lin.status.value if lin else "", (lin.reason or "") if lin else "",
                    rel.materialized or "", rel.description,
                ])  # fmt: skip
        return node_index[uid]

    def column(uid: str, name: str, kind: int = -1, dtype: str | None = None) -> int:
        key = (uid, typed(name))
        i = col_index.get(key)
        if i is None:
            i = col_index[key] = len(col_name)
            col_node.append(node(uid))
            col_name.append(key[1])
            col_type.append(kind)
            col_dtype.append(dtypes.setdefault(dtype or "", len(dtypes)))
        return i

    for uid in sorted(data.relations):
        rel = data.relations[uid]
        node(uid)
        types = {c.key_name(data.dialect): c.data_type for c in rel.columns}
        lin = data.lineages.get(uid)
        if lin is not None and lin.columns:
            for c in lin.columns:
                i = column(uid, c.name, kind_index[c.kind], types.get(c.name))
                if c.expr != c.name:
                    exprs[i] = c.expr
                if not c.resolved:
                    unresolved[i] = c.reason or ""
        else:
            for c in rel.columns:
                column(uid, c.key_name(data.dialect), -1, c.data_type)
    for uid in sorted(data.consumers):
        node(uid)
        lin = data.semantic.get(uid)
        role = dict(data.consumers[uid].elements)
        for c in lin.columns if lin is not None else ():
            i = column(uid, c.name, kind_index[c.kind])
            if c.expr != c.name:
                exprs[i] = c.expr
            if not c.resolved:
                unresolved[i] = c.reason or ""
            if c.name in role:
                roles[i] = role[c.name]
    feeds: list[int] = []
    conds: list[int] = []
    deps: list[int] = []
    for uid, lin in sorted({**data.lineages, **data.semantic}.items()):
        for c in lin.columns:
            down = column(uid, c.name)
            for src in c.sources:
                feeds += [column(src.unique_id, src.column), down]
        for cond in lin.conditions:
            conds += [column(cond.column.unique_id, cond.column.column), node(uid), clause_index[cond.clause]]
    for uid, rel in sorted(data.relations.items()):
        for dep in sorted(set(rel.depends_on)):
            if dep != uid and dep in data.relations:
                deps += [node(uid), node(dep)]
    for uid, con in sorted(data.consumers.items()):
        for dep in dict.fromkeys(con.depends_on):
            if dep != uid and (dep in data.relations or dep in data.consumers):
                deps += [node(uid), node(dep)]
    uses: list[int] = []
    node_uses: list[int] = []
    use_types: dict[str, int] = {}
    for up, down, kind, _expr in data.consumer_edges:
        if down not in data.consumers:
            continue
        t = use_types.setdefault(kind, len(use_types))
        if up in data.consumers:
            node_uses += [node(up), node(down), t]
        elif "." in up:
            uid, name = up.rsplit(".", 1)
            if (uid, typed(name)) in col_index:
                uses += [column(uid, name), node(down), t]
    # columns numbered node by node (a node's columns in the order they were found), each
    # column's sources together, in the order of its lineage
    order = sorted(range(len(col_name)), key=col_node.__getitem__)
    renumber = [0] * len(order)
    for new, old in enumerate(order):
        renumber[old] = new
    ups: list[list[int]] = [[] for _ in order]
    for k in range(0, len(feeds), 2):
        ups[renumber[feeds[k + 1]]].append(renumber[feeds[k]])
    node_cols = [0] * len(nodes)
    for n in col_node:
        node_cols[n] += 1
    names: dict[str, int] = {}
    name_ids = [names.setdefault(col_name[i], len(names)) for i in order]
    expr_of = sorted((renumber[i], e) for i, e in exprs.items())
    texts: dict[str, int] = {}
    text_ids = [texts.setdefault(e, len(texts)) for _, e in expr_of]
    return {
        "project": data.project,
        "build": data.build_id,
        "generated_at": data.generated_at,
        "version": __version__,
        "types": TYPES,
        "clauses": CLAUSES,
        "dtypes": list(dtypes),
        "nodes": nodes,
        "node_cols": node_cols,
        "cols": {
            "name": packed(name_ids),
            "type": packed([col_type[i] + 1 for i in order]),
            "dtype": packed([col_dtype[i] for i in order]),
        },
        "names": list(names),
        "exprs": {"cols": packed([i for i, _ in expr_of]), "text": packed(text_ids)},
        "texts": list(texts),
        "unresolved": {renumber[i]: r for i, r in unresolved.items()},
        "roles": {renumber[i]: r for i, r in roles.items()},
        "sources": packed([u for us in ups for u in us]),
        "source_counts": packed([len(us) for us in ups]),
        "conds": [renumber[v] if k % 3 == 0 else v for k, v in enumerate(conds)],
        "deps": deps,
        "uses": [renumber[v] if k % 3 == 0 else v for k, v in enumerate(uses)],
        "node_uses": node_uses,
        "use_types": list(use_types),
    }


def script_json(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` can end
    the element or start a comment, whatever the names and SQL hold."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return text


def _asset(name: str) -> str:
    text = resources.files("catalog.report").joinpath(name).read_text(encoding="utf-8")
    if "</script" in text.lower():  # would end the inline <script> early
        raise ValueError(f"{name} cannot be inlined: it contains </script")
    return text


def _vendored(name: str, what: str, license_file: str) -> str:
    """A vendored script preceded by its license, so the page carries both."""
    notice = _asset(license_file).replace("*/", "* /")
    return f"/*! {what}, vendored from the npm registry. @license\n{notice}*/\n{_asset(name)}"


def explorer_html(data: ExportInput) -> str:
    """The whole page."""
    build_id = data.build_id
    title = f"{data.project} lineage explorer" + (f" (build {build_id})" if build_id is not None else "")
    return PAGE.format(
        title=escape(title),
        css=CSS,
        data=script_json(explorer_data(data)),
        dagre=_vendored("vendor/dagre.min.js", "@dagrejs/dagre 3.1.3", "vendor/dagre.LICENSE"),
        explorer=_asset("explorer.js"),
    )


CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 13px/1.4 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a202c;
       display: grid; grid-template-rows: auto 1fr; grid-template-columns: 1fr 340px; }
header { grid-column: 1 / 3; background: #1a365d; color: #fff; padding: 8px 14px; display: flex; gap: 14px; align-items: center; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0 8px 0 0; }
header label { color: #cbd5e0; font-size: 12px; }
#search-box { position: relative; }
#search { width: 380px; padding: 5px 8px; border-radius: 4px; border: 1px solid #90a4c0; font: inherit; }
#results { position: absolute; z-index: 10; top: 30px; left: 0; width: 560px; max-height: 70vh; overflow-y: auto; margin: 0; padding: 0;
           list-style: none; background: #fff; color: #1a202c; border: 1px solid #cbd5e0; border-radius: 4px; box-shadow: 0 4px 14px rgba(0,0,0,.2); }
#results:empty { display: none; }
#results li { padding: 4px 8px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#results li.active, #results li:hover { background: #ebf4ff; }
.kind { display: inline-block; min-width: 72px; font-size: 10.5px; color: #5a6578; text-transform: uppercase; }
.owner { margin-left: 10px; font-size: 11px; color: #5a6578; }
#graph { overflow: auto; position: relative; background: #f7fafc; }
#graph svg { display: block; }
#lineage { position: relative; } #lineage > svg.edges { position: absolute; left: 0; top: 0; }
#lineage > .place { position: absolute; content-visibility: auto; }
#graph .hint { padding: 24px; color: #5a6578; max-width: 640px; }
aside { border-left: 1px solid #e2e8f0; padding: 10px 14px; overflow-y: auto; background: #fff; }
aside h2 { font-size: 14px; margin: 4px 0 8px; word-break: break-all; }
aside dl { margin: 0; } aside dt { color: #5a6578; font-size: 11px; text-transform: uppercase; margin-top: 8px; }
aside dd { margin: 0; word-break: break-word; }
aside pre { white-space: pre-wrap; word-break: break-word; background: #f7fafc; padding: 6px; border-radius: 4px; margin: 2px 0; }
aside ul { padding-left: 16px; margin: 4px 0; } aside a { color: #2b6cb0; cursor: pointer; }
.legend span { margin-right: 10px; font-size: 12px; white-space: nowrap; }
.legend svg { vertical-align: middle; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
svg text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; }
g.node rect.box { fill: #fff; stroke: #718096; stroke-width: 1.2; }
g.node rect.head { fill: #e2e8f0; cursor: pointer; }
g.node.semantic_model rect.head { fill: #bee3f8; } g.node.metric rect.head { fill: #feebc8; }
g.node.exposure rect.head { fill: #fed7e2; } g.node.saved_query rect.head { fill: #e6fffa; }
g.node.metric rect.box, g.node.exposure rect.box, g.node.saved_query rect.box { stroke-dasharray: 4 2; }
g.node.source rect.head { fill: #c6f6d5; } g.node.seed rect.head { fill: #fefcbf; } g.node.snapshot rect.head { fill: #e9d8fd; }
g.node.failed rect.box { stroke: #c53030; stroke-width: 2.4; } g.node.failed rect.head { fill: #fed7d7; }
g.node.partial rect.box, g.node.unresolved rect.box { stroke: #d69e2e; stroke-width: 2; }
g.node.focus rect.box { stroke: #b7791f; stroke-width: 2.6; }
g.node text.title { font-weight: 700; } g.node text.sub { fill: #5a6578; font-size: 10.5px; }
g.col { cursor: pointer; } g.col rect { fill: transparent; } g.col:hover rect { fill: #ebf4ff; }
g.col.focus rect { fill: #fefcbf; } g.col.unresolved text { fill: #c53030; } g.col text.t { fill: #5a6578; font-size: 10.5px; }
g.col.other text { fill: #718096; }
path.edge { fill: none; stroke-width: 1.6; cursor: pointer; }
path.edge:hover, path.edge.picked { stroke-width: 3.5; }
path.t-passthrough { stroke: #718096; }
path.t-renamed { stroke: #3182ce; stroke-dasharray: 8 3; }
path.t-derived { stroke: #dd6b20; stroke-width: 2.2; }
path.t-source { stroke: #38a169; stroke-dasharray: 2 3; }
path.t-unknown { stroke: #c53030; stroke-dasharray: 1 4; }
path.unresolved { stroke: #c53030; }
path.cond { stroke: #805ad5; stroke-dasharray: 5 4; stroke-width: 1.3; }
path.dep { stroke: #a0aec0; stroke-width: 1.4; }
path.use { stroke: #d53f8c; stroke-width: 1.8; stroke-dasharray: 6 2 1 2; }
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <div id="search-box"><input id="search" type="search" placeholder="Search a model, column, metric or exposure (fuzzy)…" autocomplete="off" spellcheck="false" aria-label="search">
  <ul id="results" role="listbox"></ul></div>
  <label>depth <select id="depth"><option>1</option><option>2</option><option>3</option><option>5</option><option>10</option><option value="0" selected>all</option></select></label>
  <label><input id="conditions" type="checkbox"> conditions (where, join, group by…)</label>
  <span class="legend" id="legend"></span>
</header>
<main id="graph"><p class="hint">Type a model, column, metric or exposure name above. Selecting a column or a metric draws where it comes from (left) and what it feeds (right), down to metrics and exposures; click a column to draw its own, a model's header to see all its columns, an edge to see its expression. The address keeps the selection: copy it to share.</p></main>
<aside id="details"></aside>
<script type="application/json" id="catalog-data">{data}</script>
<script>{dagre}</script>
<script>{explorer}</script>
</body>
</html>
"""


def write_explorer(path: Path, data: ExportInput) -> int:
    """Write the page to ``path``; its size in bytes."""
    page = explorer_html(data).encode("utf-8")
    try:
        path.write_bytes(page)
    except OSError as e:
        raise CatalogError(f"{path}: cannot write the explorer ({e.strerror or e})") from None
    return len(page)
