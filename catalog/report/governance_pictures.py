"""The report's pictures: the lineage around the most depended-on columns, read layer by layer
both ways (``report_feeds_of_columns``), each layer kept small, laid out in ranks for
``governance_svg`` to draw.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from catalog.report.governance_model import Col, DependedOn, Picture, PictureEdge, PictureNode, col_record, other_project

PICTURES = 3
PICTURE_CANDIDATES = 30  # most depended-on columns considered as picture focuses
PICTURE_DOWNSTREAM_DEPTH = 4
PICTURE_UPSTREAM_DEPTH = 2
PICTURE_LAYER_WIDTH = 8  # columns drawn per layer; the rest is counted in a "+N more" box


def pictures(read_feeds: Callable[[list[str]], list[dict[str, Any]]], ranked: list[DependedOn]) -> tuple[Picture, ...]:
    drawn_pictures: list[Picture] = []
    drawn: set[str] = set()
    for d in ranked:
        if len(drawn_pictures) == PICTURES:
            break
        if d.key in drawn:
            continue
        pic = picture(read_feeds, d)
        drawn.update(n.key for n in pic.nodes)
        drawn_pictures.append(pic)
    return tuple(drawn_pictures)


def picture(read_feeds: Callable[[list[str]], list[dict[str, Any]]], focus: DependedOn) -> Picture:
    """Walk out from the focus column, layer by layer, both ways, keeping each layer small."""
    cols: dict[str, tuple[Col, bool]] = {focus.key: (focus.column, focus.pii)}
    edges: dict[tuple[str, str], PictureEdge] = {}
    more: dict[int, int] = {}
    truncated = False
    for direction, depth_limit, sign in (("out", PICTURE_DOWNSTREAM_DEPTH, 1), ("in", PICTURE_UPSTREAM_DEPTH, -1)):
        frontier = [focus.key]
        for depth in range(1, depth_limit + 1):
            rows = [r for r in read_feeds(frontier) if r["direction"] == direction]
            found: dict[str, tuple[Col, bool]] = {}
            pending: list[tuple[str, dict[str, Any]]] = []
            for r in rows:
                end = "down" if direction == "out" else "up"
                key = r[f"{end}_key"]
                pending.append((key, r))
                if key not in cols:
                    col = col_record(r[f"{end}_model"], r[f"{end}_unique_id"], r[f"{end}_column"], other_project(key, focus.key))
                    found[key] = (col, bool(r[f"{end}_pii"]))
            kept = sorted(found, key=lambda k: (found[k][0].model, found[k][0].name, k))
            if len(kept) > PICTURE_LAYER_WIDTH:
                more[sign * depth] = len(kept) - PICTURE_LAYER_WIDTH
                kept = kept[:PICTURE_LAYER_WIDTH]
                truncated = True
            for k in kept:
                cols[k] = found[k]
            for key, r in pending:
                if key in cols:
                    edges[(r["up_key"], r["down_key"])] = PictureEdge(
                        up=r["up_key"], down=r["down_key"], type=r["type"], expr=r["expr"], resolved=r["resolved"]
                    )
            frontier = kept
            if not frontier:
                break
        else:
            if frontier and any(r["direction"] == direction for r in read_feeds(frontier)):
                truncated = True
    layers = layout_layers(focus.key, cols, list(edges.values()))
    nodes = [
        PictureNode(key=k, column=c, layer=layers[k], pii=pii, focus=k == focus.key)
        for k, (c, pii) in cols.items()
    ]
    nodes += [PictureNode(key=f"more:{layer}", column=None, layer=layer, more=n) for layer, n in more.items()]
    nodes.sort(key=lambda n: (n.layer, n.more > 0, n.column.model if n.column else "", n.column.name if n.column else "", n.key))
    return Picture(
        focus=focus.column,
        nodes=tuple(nodes),
        edges=tuple(sorted(edges.values(), key=lambda e: (e.up, e.down))),
        truncated=truncated,
    )


def layout_layers(focus: str, cols: dict[str, Any], edges: list[PictureEdge]) -> dict[str, int]:
    """Downstream columns at their longest distance from the focus, upstream ones at minus
    their longest distance to it, so that every edge points right."""
    children: dict[str, list[str]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        children[e.up].append(e.down)
        parents[e.down].append(e.up)
    layer = {focus: 0}
    for adjacency, sign in ((children, 1), (parents, -1)):
        stack = [focus]
        bound = len(cols)  # longest simple path; guards against a cycle
        while stack:
            k = stack.pop()
            for n in adjacency.get(k, []):
                want = layer[k] + sign
                if n not in layer or (sign > 0 and want > layer[n]) or (sign < 0 and want < layer[n]):
                    if abs(want) <= bound:
                        layer[n] = want
                        stack.append(n)
    for k in cols:
        layer.setdefault(k, 0)
    return layer
