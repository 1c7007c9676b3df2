"""Draw a :class:`~catalog.report.governance_model.Picture` as inline SVG, laid out here.

Columns are boxes in vertical layers by distance from the focus column (upstream to the
left, downstream to the right). Within a layer, boxes are ordered by the mean position of
the boxes they connect to in the layer nearer the focus (barycenter), ties by name, so edges
cross little and the output is the same on every run. Edges are curves colored by type,
dashed when unproved, with the type written on them; hovering shows the expression.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape

from catalog.report.governance_model import Picture, PictureNode, TrendPoint

EDGE_COLORS = {
    "passthrough": "#2f855a",
    "renamed": "#2b6cb0",
    "derived": "#c05621",
    "source": "#718096",
    "unknown": "#9b2c2c",
}
OTHER_COLOR = "#4a5568"
CHAR_W = 7.0  # width of one character of the 12px monospace labels
BOX_H = 40
ROW_GAP = 14
LAYER_GAP = 96
MIN_BOX_W = 120
MAX_LABEL = 40
PAD = 16
TOP = 64  # legend and layer headings
MAX_LABELLED_EDGES = 40


def _short(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def _box_width(n: PictureNode) -> float:
    if n.column is None:
        return MIN_BOX_W
    longest = max(len(_short(n.column.model)), len(_short(n.column.name)) + (5 if n.pii else 0))
    return max(MIN_BOX_W, longest * CHAR_W + 24)


def _order(p: Picture) -> dict[int, list[PictureNode]]:
    layers: dict[int, list[PictureNode]] = defaultdict(list)
    for n in p.nodes:
        layers[n.layer].append(n)
    ups: dict[str, list[str]] = defaultdict(list)
    downs: dict[str, list[str]] = defaultdict(list)
    for e in p.edges:
        downs[e.up].append(e.down)
        ups[e.down].append(e.up)
    position: dict[str, float] = {}

    def place(layer: int, neighbours: dict[str, list[str]]) -> None:
        nodes = layers[layer]

        def key(n: PictureNode) -> tuple:
            placed = [position[k] for k in neighbours.get(n.key, []) if k in position]
            centre = sum(placed) / len(placed) if placed else float("inf")
            label = (n.column.model, n.column.name) if n.column else ("~", "~")
            return (n.more > 0, centre, label, n.key)

        nodes.sort(key=key)
        for i, n in enumerate(nodes):
            position[n.key] = float(i)

    place(0, {})
    for layer in sorted(k for k in layers if k > 0):
        place(layer, ups)
    for layer in sorted((k for k in layers if k < 0), reverse=True):
        place(layer, downs)
    return dict(sorted(layers.items()))


def _heading(layer: int) -> str:
    if layer == 0:
        return "focus"
    return f"{'downstream' if layer > 0 else 'upstream'} {abs(layer)}"


def render_picture(p: Picture, ident: str) -> str:
    """The SVG element for one picture; ``ident`` keeps marker ids unique in the page."""
    layers = _order(p)
    widths = {layer: max(_box_width(n) for n in nodes) for layer, nodes in layers.items()}
    tallest = max(len(nodes) for nodes in layers.values())
    inner_h = tallest * BOX_H + (tallest - 1) * ROW_GAP
    x = float(PAD)
    box: dict[str, tuple[float, float, float]] = {}  # key -> x, y, width
    layer_x: dict[int, tuple[float, float]] = {}
    for layer, nodes in layers.items():
        h = len(nodes) * BOX_H + (len(nodes) - 1) * ROW_GAP
        y = TOP + (inner_h - h) / 2
        for n in nodes:
            box[n.key] = (x, y, widths[layer])
            y += BOX_H + ROW_GAP
        layer_x[layer] = (x, widths[layer])
        x += widths[layer] + LAYER_GAP
    width = x - LAYER_GAP + PAD
    height = TOP + inner_h + PAD
    width = max(width, 640.0)

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="lineage" id="{ident}" role="img" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'aria-label="Lineage around {escape(p.focus.label)}">',
        "<defs>",
    ]
    for t, color in [*EDGE_COLORS.items(), ("other", OTHER_COLOR)]:
        out.append(
            f'<marker id="{ident}-arrow-{t}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
        )
    out.append("</defs>")
    out.extend(_legend(p, ident))
    for layer, (lx, lw) in layer_x.items():
        out.append(f'<text class="layer" x="{lx + lw / 2:.1f}" y="{TOP - 10}" text-anchor="middle">{_heading(layer)}</text>')

    # edges under boxes; their type written at the middle unless there are too many to read
    labelled = len(p.edges) <= MAX_LABELLED_EDGES
    for e in p.edges:
        if e.up not in box or e.down not in box:
            continue
        ux, uy, uw = box[e.up]
        dx_, dy, _ = box[e.down]
        x1, y1 = ux + uw, uy + BOX_H / 2
        x2, y2 = dx_ - 2, dy + BOX_H / 2
        bend = max(36.0, (x2 - x1) / 2)
        color = EDGE_COLORS.get(e.type, OTHER_COLOR)
        marker = e.type if e.type in EDGE_COLORS else "other"
        dash = ' stroke-dasharray="6 4"' if e.resolved is False else ""
        tip = f"{e.type}{' (unproved)' if e.resolved is False else ''}: {e.expr or ''}"
        out.append(
            f'<g class="edge edge-{escape(e.type)}"><title>{escape(tip)}</title>'
            f'<path d="M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} {x2 - bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}" '
            f'fill="none" stroke="{color}" stroke-width="1.6"{dash} marker-end="url(#{ident}-arrow-{marker})"/>'
            + (f'<text class="edge-label" x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 4:.1f}" text-anchor="middle" '
               f'fill="{color}">{escape(e.type)}</text>' if labelled else "")
            + "</g>"
        )

    for nodes in layers.values():
        for n in nodes:
            bx, by, bw = box[n.key]
            out.extend(_node(n, bx, by, bw))
    out.append("</svg>")
    return "\n".join(out)


def _legend(p: Picture, ident: str) -> list[str]:
    used = sorted({e.type for e in p.edges}, key=lambda t: (list(EDGE_COLORS).index(t) if t in EDGE_COLORS else 99, t))
    items: list[str] = ['<g class="legend">']
    x = float(PAD)
    for t in used or ["passthrough"]:
        color = EDGE_COLORS.get(t, OTHER_COLOR)
        items.append(f'<line x1="{x:.0f}" y1="16" x2="{x + 26:.0f}" y2="16" stroke="{color}" stroke-width="2.2"/>')
        items.append(f'<text x="{x + 32:.0f}" y="20">{escape(t)}</text>')
        x += 40 + len(t) * 7.5
    if any(e.resolved is False for e in p.edges):
        items.append(f'<line x1="{x:.0f}" y1="16" x2="{x + 26:.0f}" y2="16" stroke="{OTHER_COLOR}" stroke-width="2" '
                     'stroke-dasharray="6 4"/>')
        items.append(f'<text x="{x + 32:.0f}" y="20">unproved</text>')
        x += 110
    if any(n.pii for n in p.nodes):
        items.append(f'<rect x="{x:.0f}" y="8" width="28" height="15" rx="3" class="pii-badge"/>'
                     f'<text x="{x + 14:.0f}" y="19" text-anchor="middle" class="pii-text">PII</text>')
        items.append(f'<text x="{x + 34:.0f}" y="20">tagged PII in dbt</text>')
    items.append("</g>")
    return items


def _node(n: PictureNode, x: float, y: float, w: float) -> list[str]:
    if n.column is None:
        return [
            f'<g class="node more"><title>{n.more} more columns in this layer, not drawn</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{BOX_H}" rx="6"/>'
            f'<text x="{x + w / 2:.1f}" y="{y + BOX_H / 2 + 4:.1f}" text-anchor="middle">+ {n.more} more</text></g>'
        ]
    c = n.column
    cls = "node focus" if n.focus else "node"
    parts = [
        f'<g class="{cls}" data-column="{escape(c.label)}"><title>{escape(c.unique_id)}.{escape(c.name)}</title>',
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{BOX_H}" rx="6"/>',
        f'<text class="model" x="{x + 10:.1f}" y="{y + 15:.1f}">{escape(_short(c.model))}</text>',
        f'<text class="column" x="{x + 10:.1f}" y="{y + 31:.1f}">{escape(_short(c.name))}</text>',
    ]
    if n.pii:
        parts.append(f'<rect x="{x + w - 36:.1f}" y="{y + 21:.1f}" width="28" height="14" rx="3" class="pii-badge"/>'
                     f'<text x="{x + w - 22:.1f}" y="{y + 31.5:.1f}" text-anchor="middle" class="pii-text">PII</text>')
    parts.append("</g>")
    return parts


# ---------------------------------------------------------------------------- trends
TREND_SERIES = (("resolved_pct", "resolved", "#2f855a"), ("documented_pct", "documented", "#2b6cb0"), ("tested_pct", "tested", "#c05621"))
TREND_W, TREND_H, TREND_PAD, TREND_STEP = 560, 180, 40, 56


def render_trends(points: Sequence[TrendPoint]) -> str:
    """The builds' resolved, documented and tested shares (0-100 %) as lines, one point per build,
    and the columns PII reaches untagged written under each build."""
    n = len(points)
    width = max(TREND_W, 2 * TREND_PAD + TREND_STEP * max(n - 1, 1))
    plot_h = TREND_H - 2 * TREND_PAD

    def x(i: int) -> float:
        return TREND_PAD + (i * (width - 2 * TREND_PAD) / (n - 1) if n > 1 else (width - 2 * TREND_PAD) / 2)

    def y(pct: float) -> float:
        return TREND_PAD + plot_h * (1 - pct / 100.0)

    parts = [f'<svg class="lineage trends" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{TREND_H + 24}" '
             f'viewBox="0 0 {width} {TREND_H + 24}" role="img" aria-label="resolved, documented and tested columns per build">']
    for pct in (0, 50, 100):
        parts.append(f'<line x1="{TREND_PAD}" y1="{y(pct):.1f}" x2="{width - TREND_PAD}" y2="{y(pct):.1f}" stroke="#e2e8f0"/>'
                     f'<text class="layer" x="{TREND_PAD - 6}" y="{y(pct) + 4:.1f}" text-anchor="end">{pct}%</text>')
    for j, (field, label, color) in enumerate(TREND_SERIES):
        coords = " ".join(f"{x(i):.1f},{y(getattr(p, field)):.1f}" for i, p in enumerate(points))
        parts.append(f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2"/>')
        for i, p in enumerate(points):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(getattr(p, field)):.1f}" r="3" fill="{color}">'
                         f"<title>build {p.build}: {label} {getattr(p, field)}%</title></circle>")
        parts.append(f'<g class="legend"><rect x="{TREND_PAD + 130 * j}" y="8" width="12" height="3" fill="{color}"/>'
                     f'<text x="{TREND_PAD + 130 * j + 16}" y="13">{label} columns</text></g>')
    for i, p in enumerate(points):
        parts.append(f'<text class="layer" x="{x(i):.1f}" y="{TREND_H - 12}" text-anchor="middle">build {p.build}</text>'
                     f'<text class="layer" x="{x(i):.1f}" y="{TREND_H + 4}" text-anchor="middle">PII untagged {p.pii_untagged}</text>')
    parts.append("</svg>")
    return "".join(parts)
