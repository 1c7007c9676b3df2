"""``catalog explore PATH``: the lineage explorer of the bundled example, driven in a real
headless Chromium: search as a user types, the lineage drawn is exactly the column's, conditions
and depth change it, clicks re-centre, the selection lives in the URL, and names that hold HTML
stay text. The example has no `orders.order_total`: its order total is `orders.items_amount`
(the sum of quantity x price over the ephemeral `int_order_items_priced`). Its consumers: the
semantic model `orders`, the metric `revenue` (sum of its measure `amount_paid`) and the exposure
`sales_dashboard` (every column of `orders`, and `revenue`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import Browser, chromium_or_skip
from typer.testing import CliRunner

from catalog.analyze.records import ColumnLineage, ModelStatus
from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.export.openlineage import ExportInput, export_input
from catalog.extract import DbtMetric, load_project
from catalog.report.explorer import explorer_data, explorer_html, packed, read_columns, unpacked

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop"
FOCUS = "model.coffee_shop.orders.items_amount"
METRIC = "metric.coffee_shop.revenue"
EXPOSURE = "exposure.coffee_shop.sales_dashboard"
MEASURE = "semantic_model.coffee_shop.orders.amount_paid"
runner = CliRunner()


@pytest.fixture(scope="module")
def example_input() -> ExportInput:
    project = load_project(EXAMPLE)
    return export_input(project, analyze_project(project, jobs=1), consumers=True)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(chromium_or_skip(), tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


# ---------------------------------------------------------------------------- the expected lineage, from the records
def _analyzed(data: ExportInput) -> dict:
    return {**data.lineages, **data.semantic}


def _sources(data: ExportInput) -> dict[str, list[str]]:
    return {f"{uid}.{c.name}": [s.key for s in c.sources] for uid, lin in _analyzed(data).items() for c in lin.columns}


def expected_lineage(data: ExportInput, focus: str, depth: int = 0) -> tuple[set[str], set[tuple[str, str, str]]]:
    """Columns and (from, to, type) edges: every column upstream of ``focus`` with the edges into
    it, every column downstream with the edges out of it, ``depth`` hops at most (0: all)."""
    ups = _sources(data)
    downs: dict[str, list[str]] = {}
    for down, srcs in ups.items():
        for s in srcs:
            downs.setdefault(s, []).append(down)
    kinds = {f"{uid}.{c.name}": c.kind.value for uid, lin in _analyzed(data).items() for c in lin.columns}
    columns, edges = {focus}, set()
    for nxt, flip in ((ups, False), (downs, True)):
        frontier, seen, hop = [focus], {focus}, 0
        while frontier and (not depth or hop < depth):
            hop += 1
            following = []
            for col in frontier:
                for other in nxt.get(col, []):
                    a, b = (col, other) if flip else (other, col)
                    edges.add((a, b, kinds[b]))
                    if other not in seen:
                        seen.add(other)
                        following.append(other)
            frontier = following
        columns |= seen
    return columns, edges


def expected_uses(data: ExportInput, columns: set[str]) -> set[tuple[str, str, str]]:
    """(from, consumer, type) edges downstream of ``columns``: into consumers, then between them."""
    reached, found, grew = set(columns), set(), True
    while grew:
        grew = False
        for up, down, kind, _ in data.consumer_edges:
            if up in reached and (up, down, kind) not in found:
                found.add((up, down, kind))
                reached.add(down)
                grew = True
    return found


def _drawn_uses(b: Browser) -> set[tuple[str, str, str]]:
    uses = b.eval("[...document.querySelectorAll('#lineage path.use')].map(p => [p.dataset.from, p.dataset.to, p.dataset.type])")
    assert len(uses) == len({tuple(u) for u in uses}), "drawn twice"
    return {tuple(u) for u in uses}


def _drawn(b: Browser) -> tuple[set[str], set[tuple[str, str, str]]]:
    columns = b.eval("[...document.querySelectorAll('#lineage g.col')].map(g => g.dataset.key)")
    edges = b.eval(
        "[...document.querySelectorAll('#lineage path.edge:not(.cond):not(.use)')].map(p => [p.dataset.from, p.dataset.to, p.dataset.type])"
    )
    assert len(columns) == len(set(columns)) and len(edges) == len({tuple(e) for e in edges}), "drawn twice"
    return set(columns), {tuple(e) for e in edges}


def _wait_drawn(b: Browser, focus: str) -> None:
    b.wait_for(f"(document.getElementById('lineage') || {{}}).dataset && document.getElementById('lineage').dataset.focus === {json.dumps(focus)}")


# ---------------------------------------------------------------------------- tests
def test_cli_writes_one_offline_file(tmp_path):
    out = tmp_path / "explore.html"
    done = runner.invoke(app, ["explore", str(EXAMPLE), "-o", str(out)])
    assert done.exit_code == 0, done.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<script") == 3 and html.lower().count("</script") == 3  # data, dagre, explorer
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)  # nothing fetched
    assert "@license" in html  # dagre's license stays with it
    assert done.stdout.strip() == str(out.resolve())

    as_json = runner.invoke(app, ["explore", str(EXAMPLE), "-o", str(out), "--json"])
    assert json.loads(as_json.stdout) == {
        "path": str(out.resolve()), "bytes": out.stat().st_size, "project": "coffee_shop", "build": None, "nodes": 26,
    }  # fmt: skip
    missing = runner.invoke(app, ["explore", str(tmp_path / "nowhere")])
    assert missing.exit_code == 1 and missing.stderr.startswith("Error:") and len(missing.stderr.splitlines()) == 1


def test_data_holds_every_node_column_and_edge(example_input):
    d = explorer_data(example_input)
    uids = [n[2] for n in d["nodes"]]
    assert set(example_input.relations) <= set(uids)
    cols = read_columns(d)
    keys = cols["key"]
    assert len(keys) == len(set(keys))
    assert cols["node"] == sorted(cols["node"])  # numbered node by node
    kinds = {f"{uid}.{c.name}": c.kind.value for uid, lin in _analyzed(example_input).items() for c in lin.columns}
    assert {k: t for k, t in zip(keys, cols["type"]) if t} == kinds
    feeds = [(keys[a], keys[b]) for a, b in cols["feeds"]]
    assert set(feeds) == {(s, down) for down, srcs in _sources(example_input).items() for s in srcs}
    assert [a for a, b in feeds if b == FOCUS] == [s for s in _sources(example_input)[FOCUS]]  # a column's sources in order
    exprs = dict(zip(unpacked(d["exprs"]["cols"]), (d["texts"][t] for t in unpacked(d["exprs"]["text"]))))
    assert {keys[i]: e for i, e in exprs.items()} == {
        f"{uid}.{c.name}": c.expr for uid, lin in _analyzed(example_input).items() for c in lin.columns if c.expr != c.name
    }
    conds = {(keys[d["conds"][i]], uids[d["conds"][i + 1]], d["clauses"][d["conds"][i + 2]]) for i in range(0, len(d["conds"]), 3)}
    assert conds == {
        (c.column.key, uid, c.clause.value) for uid, lin in example_input.lineages.items() for c in lin.conditions
    }


def test_packed_lists_read_back_at_every_width():
    for values in ([], [0], [255], [256, 0], [65_535, 65_536, 7], [16_777_215, 16_777_216], list(range(0, 20_000_000, 99_991))):
        text = packed(values)
        assert unpacked(text) == values
        width = max(1, -(-max(values, default=0).bit_length() // 8))
        assert text[0] == str(width) and len(text) == 1 + 4 * -(-width * len(values) // 3)
        assert text.isascii() and not set(text) & set('"\\<>&')


def test_search_and_open_draw_exactly_the_lineage(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    browser.open(page.as_uri())
    browser.type_text("#search", "orders.items_amount")
    first = browser.wait_for("(document.querySelector('#results li') || {dataset: {}}).dataset.key")
    assert first == FOCUS
    browser.key("Enter", 13)
    _wait_drawn(browser, FOCUS)
    assert browser.eval("location.hash") == f"#col={FOCUS}"

    columns, edges = _drawn(browser)
    want_columns, want_edges = expected_lineage(example_input, FOCUS)
    assert (columns, edges) == (want_columns, want_edges)
    assert _drawn_uses(browser) == expected_uses(example_input, want_columns) == {(FOCUS, EXPOSURE, "exposure")}
    assert want_edges == {
        ("model.coffee_shop.int_order_items_priced.line_total", FOCUS, "derived"),
        ("model.coffee_shop.stg_order_items.quantity", "model.coffee_shop.int_order_items_priced.line_total", "derived"),
        ("model.coffee_shop.stg_products.price", "model.coffee_shop.int_order_items_priced.line_total", "derived"),
        ("source.coffee_shop.shop.order_items.quantity", "model.coffee_shop.stg_order_items.quantity", "passthrough"),
        ("source.coffee_shop.shop.products.price_cents", "model.coffee_shop.stg_products.price", "derived"),
    }
    assert browser.eval("document.querySelectorAll('#lineage g.node').length") == 7  # 6 models and sources, the exposure
    details = browser.eval("document.getElementById('details').innerText")
    assert "SUM(line_total)" in details and "derived" in details
    shot = browser.screenshot(tmp_path / "items_amount.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # the edge's expression on hover (its title) and on click (the details panel)
    into = f"path.edge[data-to={json.dumps(FOCUS)}]"
    assert "SUM(line_total)" in browser.eval(f"document.querySelector({json.dumps(into)}).querySelector('title').textContent")
    browser.eval(f"document.querySelector({json.dumps(into)}).dispatchEvent(new MouseEvent('click'))")
    assert "SUM(line_total)" in browser.eval("document.getElementById('details').innerText")


def test_downstream_conditions_depth_and_recentre(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    focus = "model.coffee_shop.stg_orders.order_id"
    browser.open(f"{page.as_uri()}#col={focus}")
    _wait_drawn(browser, focus)
    assert _drawn(browser) == expected_lineage(example_input, focus)
    assert _drawn_uses(browser) == expected_uses(example_input, expected_lineage(example_input, focus)[0])

    browser.eval("document.getElementById('depth').value = '1'; document.getElementById('depth').dispatchEvent(new Event('change'))")
    browser.wait_for("location.hash.includes('depth=1')")
    assert _drawn(browser) == expected_lineage(example_input, focus, depth=1)

    browser.eval("document.getElementById('conditions').click()")
    browser.wait_for("document.querySelectorAll('#lineage path.cond').length > 0")
    conds = browser.eval("[...document.querySelectorAll('#lineage path.cond')].map(p => [p.dataset.from, p.dataset.model, p.dataset.clause])")
    columns, _ = expected_lineage(example_input, focus, depth=1)
    models = {c.rsplit(".", 1)[0] for c in columns}
    want = {
        (c.column.key, uid, c.clause.value)
        for uid, lin in example_input.lineages.items()
        for c in lin.conditions
        if uid in models or c.column.key in columns
    }
    assert want and {tuple(c) for c in conds} == want
    assert "cond=1" in browser.eval("location.hash")

    # clicking an upstream column re-centres on it
    up = "source.coffee_shop.shop.orders.id"
    browser.eval(f"document.querySelector('#lineage g.col[data-key={json.dumps(up)}]').dispatchEvent(new MouseEvent('click'))")
    _wait_drawn(browser, up)
    assert browser.eval("location.hash") == f"#col={up}&depth=1&cond=1"

    # a model's header: the model, all its columns, the models it reads and that read it
    model = "model.coffee_shop.stg_orders"
    browser.eval(f"document.querySelector('#lineage g.node[data-id={json.dumps(model)}] rect.head').dispatchEvent(new MouseEvent('click'))")
    _wait_drawn(browser, model)
    assert browser.eval("location.hash") == f"#model={model}&depth=1&cond=1"
    listed = browser.eval(f"[...document.querySelectorAll('#lineage g.node[data-id={json.dumps(model)}] g.col')].map(g => g.dataset.key)")
    assert listed == [f"{model}.{c.name}" for c in example_input.lineages[model].columns]
    neighbours = set(browser.eval("[...document.querySelectorAll('#lineage g.node')].map(g => g.dataset.id)")) - {model}
    readers = {uid for uid, rel in example_input.relations.items() if model in rel.depends_on}
    assert neighbours == set(example_input.relations[model].depends_on) | readers


def test_names_stay_text_and_problems_are_marked(browser, example_input, tmp_path):
    payload = '</script><script>window.pwned = 1</script><b>"x"</b>'
    uid = "model.coffee_shop.orders"
    lin = example_input.lineages[uid]
    broken = lin.model_copy(update={
        "status": ModelStatus.FAILED,
        "reason": f"cannot parse {payload}",
        "columns": tuple(
            c.model_copy(update={"resolved": False, "reason": f"ambiguous {payload}"}) if c.name == "items_amount" else c
            for c in lin.columns
        ),
    })  # fmt: skip
    rel = example_input.relations[uid].model_copy(update={"description": payload})
    data = example_input.model_copy(update={
        "lineages": {**example_input.lineages, uid: broken}, "relations": {**example_input.relations, uid: rel},
    })  # fmt: skip
    assert isinstance(broken.columns[0], ColumnLineage)
    html = explorer_html(data)
    assert html.lower().count("</script") == 3
    page = tmp_path / "explore.html"
    page.write_text(html, encoding="utf-8")

    browser.open(f"{page.as_uri()}#col={FOCUS}")
    _wait_drawn(browser, FOCUS)
    assert browser.eval("window.pwned") is None
    assert browser.eval(f"document.querySelector('#lineage g.node[data-id={json.dumps(uid)}]').classList.contains('failed')")
    row = f"#lineage g.col[data-key={json.dumps(FOCUS)}]"
    assert browser.eval(f"document.querySelector({json.dumps(row)}).classList.contains('unresolved')")
    assert f"ambiguous {payload}" in browser.eval(f"document.querySelector({json.dumps(row)}).querySelector('title').textContent")
    assert f"cannot parse {payload}" in browser.eval(f"document.querySelector('#lineage g.node[data-id={json.dumps(uid)}] > title').textContent")
    assert f"ambiguous {payload}" in browser.eval("document.getElementById('details').innerText")

    browser.open(f"{page.as_uri()}#model={uid}")
    _wait_drawn(browser, uid)
    assert payload in browser.eval("document.getElementById('details').innerText")
    assert browser.eval("window.pwned") is None
    browser.screenshot(tmp_path / "failed.png")


def test_metrics_and_exposures_are_searched_and_drawn_downstream(browser, example_input, tmp_path):
    d = explorer_data(example_input)
    kinds = {n[2]: n[0] for n in d["nodes"]}
    assert kinds[METRIC] == "metric" and kinds[EXPOSURE] == "exposure" and kinds["semantic_model.coffee_shop.orders"] == "semantic_model"
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    browser.open(page.as_uri())
    for query, uid, kind in (("revenue", METRIC, "metric"), ("sales_dashboard", EXPOSURE, "exposure")):
        browser.eval("document.getElementById('search').value = ''")
        browser.type_text("#search", query)
        first = browser.wait_for(f"(document.querySelector('#results li') || {{dataset: {{}}}}).dataset.node === {json.dumps(uid)}")
        assert first is True
        assert browser.eval("document.querySelector('#results li .kind').textContent") == kind
    browser.key("Enter", 13)
    _wait_drawn(browser, EXPOSURE)
    assert browser.eval("location.hash") == f"#model={EXPOSURE}"
    assert browser.eval(f"document.querySelector('#lineage g.node[data-id={json.dumps(EXPOSURE)}]').classList.contains('exposure')")
    drawn = set(browser.eval("[...document.querySelectorAll('#lineage g.node')].map(g => g.dataset.id)"))
    assert drawn == {EXPOSURE, METRIC, "model.coffee_shop.orders"}  # what it reads
    assert "sales_dashboard" in browser.eval("document.getElementById('details').innerText")

    # a column that feeds the metric: its lineage runs through the semantic model to the metric and on to the exposure
    col = "model.coffee_shop.orders.amount_paid"
    browser.open(f"{page.as_uri()}#col={col}")
    _wait_drawn(browser, col)
    columns, edges = _drawn(browser)
    assert (columns, edges) == expected_lineage(example_input, col)
    assert "semantic_model.coffee_shop.orders.amount_paid" in columns
    uses = _drawn_uses(browser)
    assert uses == expected_uses(example_input, columns) == {
        ("semantic_model.coffee_shop.orders.amount_paid", METRIC, "measure"),
        (METRIC, EXPOSURE, "metric"),
        (col, EXPOSURE, "exposure"),
    }
    assert browser.eval(f"document.querySelector('#lineage g.node[data-id={json.dumps(METRIC)}]').classList.contains('metric')")
    assert "2 metrics, exposures and other consumers" in browser.eval("document.getElementById('details').innerText")
    used_by = "[...document.querySelectorAll('#details dt')].find(t => t.textContent === 'used by').nextSibling.textContent"
    assert browser.eval(used_by) == "sales_dashboard exposure"
    browser.screenshot(tmp_path / "metric.png")


def test_search_tells_a_model_column_from_a_semantic_model_element(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    browser.open(page.as_uri())
    browser.type_text("#search", "orders.amount_paid")
    browser.wait_for("document.querySelectorAll('#results li').length >= 2")
    shown = browser.eval(
        "[...document.querySelectorAll('#results li')].slice(0, 2)"
        ".map(li => [li.dataset.key, li.title, [...li.childNodes].map(n => n.textContent)])"
    )
    # the same label, told apart by what the column is (a measure in the YAML) and whose it is
    assert shown == [
        ["model.coffee_shop.orders.amount_paid", "model.coffee_shop.orders.amount_paid", ["column", "orders.amount_paid", "model orders"]],
        [MEASURE, MEASURE, ["measure", "orders.amount_paid", "semantic model orders"]],
    ]
    browser.eval("document.getElementById('search').value = ''")
    browser.type_text("#search", "orders.customer")  # an entity, with an expr (customer_id)
    browser.wait_for("(document.querySelector('#results li') || {dataset: {}}).dataset.key === 'semantic_model.coffee_shop.orders.customer'")
    assert browser.eval("[...document.querySelector('#results li').childNodes].map(n => n.textContent)") == [
        "entity", "orders.customer", "semantic model orders",
    ]  # fmt: skip


VIEW = """(() => {
  const g = document.getElementById('graph'), v = g.getBoundingClientRect();
  const left = v.left + g.clientLeft, top = v.top + g.clientTop;
  const at = e => { const b = e.getBoundingClientRect(); return [b.left - left, b.top - top, b.right - left, b.bottom - top]; };
  return {width: g.clientWidth, height: g.clientHeight, scrollWidth: g.scrollWidth,
          boxes: Object.fromEntries([...document.querySelectorAll('#lineage g.node')].map(n => [n.dataset.id, at(n.querySelector('rect.box'))])),
          name: at(document.querySelector('#lineage g.col.focus text'))};
})()"""


def _inside(rect: list[float], view: dict) -> bool:
    return rect[0] >= 0 and rect[1] >= 0 and rect[2] <= view["width"] and rect[3] <= view["height"]


def test_a_wide_lineage_opens_on_its_first_model_with_the_column_in_view(browser, example_input, tmp_path):
    """`orders.items_amount` draws 7 boxes over 5 ranks, wider than the graph pane: the view
    opens with the sources (the first rank) whole and the selected column's name in view; in a
    pane too narrow for both, the column's name stays in view and no model is cut at the edge."""
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    first = {"source.coffee_shop.shop.order_items", "source.coffee_shop.shop.products"}
    for width in (1400, 800):  # the graph pane is the width less the side panel's 340 pixels
        browser.send("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        try:
            browser.open(f"{page.as_uri()}#col={FOCUS}")
            _wait_drawn(browser, FOCUS)
            view = browser.eval(VIEW)
        finally:
            browser.send("Emulation.clearDeviceMetricsOverride")
        assert view["scrollWidth"] > view["width"], "the lineage is wider than the pane"
        assert _inside(view["name"], view), view
        boxes = view["boxes"]
        ranks: dict[float, list[str]] = {}  # dagre lays a rank out on one vertical axis
        for uid, r in boxes.items():
            ranks.setdefault(round((r[0] + r[2]) / 2, 1), []).append(uid)
        assert set(ranks[min(ranks)]) == first
        if width == 1400:
            assert all(_inside(boxes[uid], view) for uid in first), view
        else:
            assert not any(_inside(boxes[uid], view) for uid in first), "both do not fit in 460 pixels"
            # no model cut by the pane's left edge; the rank left of the pane could not start
            # it (20 pixels in, as the first rank does) with the column's name still in view
            assert all(r[2] <= 0 or r[0] >= 0 for r in boxes.values()), view
            hidden = [min(boxes[uid][0] for uid in rank) for rank in ranks.values() if boxes[rank[0]][2] <= 0]
            assert view["name"][2] - (max(hidden) - 20) > view["width"], view


def _derived_input() -> ExportInput:
    """The example with a derived metric over `revenue`, as dbt writes one (type_params.metrics)."""
    project = load_project(EXAMPLE)
    derived = DbtMetric(unique_id="metric.coffee_shop.revenue_x2", name="revenue_x2", type="derived", metrics=(METRIC,), expr="revenue * 2")
    project = project.model_copy(update={"metrics": {**project.metrics, derived.unique_id: derived}})
    return export_input(project, analyze_project(project, jobs=1), consumers=True)


def test_a_metric_draws_its_measure_and_everything_upstream(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    browser.open(f"{page.as_uri()}#model={METRIC}")
    _wait_drawn(browser, METRIC)
    # revenue = sum(amount_paid), the measure over orders.amount_paid = coalesce(sum(stg_payments.amount), 0),
    # and stg_payments.amount = amount_cents::decimal(10, 2) / 100 from the source's raw payments
    want_edges = {
        ("model.coffee_shop.orders.amount_paid", MEASURE, "passthrough"),
        ("model.coffee_shop.stg_payments.amount", "model.coffee_shop.orders.amount_paid", "derived"),
        ("source.coffee_shop.shop.payments.amount_cents", "model.coffee_shop.stg_payments.amount", "derived"),
    }
    assert _drawn(browser) == expected_lineage(example_input, MEASURE) == ({MEASURE} | {e[0] for e in want_edges}, want_edges)
    assert _drawn_uses(browser) == {(MEASURE, METRIC, "measure"), (METRIC, EXPOSURE, "metric")}
    nodes = set(browser.eval("[...document.querySelectorAll('#lineage g.node')].map(g => g.dataset.id)"))
    assert nodes == {METRIC, EXPOSURE, "semantic_model.coffee_shop.orders", "model.coffee_shop.orders",
                     "model.coffee_shop.stg_payments", "source.coffee_shop.shop.payments"}  # fmt: skip
    sm = "#lineage g.node[data-id='semantic_model.coffee_shop.orders']"
    assert browser.eval(f"[...document.querySelectorAll({json.dumps(sm + ' g.col')})].map(g => g.dataset.key)") == [MEASURE]
    assert browser.eval(f"document.querySelector({json.dumps(sm + ' text.sub:last-of-type')}).textContent") == "+ 4 more columns"
    assert "revenue" in browser.eval("document.getElementById('details').innerText")

    # one hop: the measure and what reads the metric
    browser.eval("document.getElementById('depth').value = '1'; document.getElementById('depth').dispatchEvent(new Event('change'))")
    browser.wait_for("location.hash.includes('depth=1')")
    assert _drawn(browser) == ({MEASURE}, set())
    assert _drawn_uses(browser) == {(MEASURE, METRIC, "measure"), (METRIC, EXPOSURE, "metric")}

    # a derived metric: through the metric it reads to the same measure and sources
    derived = "metric.coffee_shop.revenue_x2"
    page.write_text(explorer_html(_derived_input()), encoding="utf-8")
    browser.open(f"{page.as_uri()}#model={derived}")
    _wait_drawn(browser, derived)
    assert _drawn(browser) == expected_lineage(example_input, MEASURE)
    assert _drawn_uses(browser) == {(MEASURE, METRIC, "measure"), (METRIC, derived, "metric")}


def _panel_list(b: Browser, name: str) -> list[str]:
    """The link texts of one list of the details panel (upstream, downstream, columns, ...)."""
    return b.eval(
        f"[...(([...document.querySelectorAll('#details dt')].find(t => t.textContent === {json.dumps(name)}) || {{}})"
        ".nextSibling || {querySelectorAll: () => []}).querySelectorAll('a')].map(a => a.textContent)"
    )


def test_a_column_s_panel_lists_its_sources_and_consumers_in_order(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    focus = "model.coffee_shop.int_order_items_priced.line_total"
    browser.open(f"{page.as_uri()}#col={focus}")
    _wait_drawn(browser, focus)
    d = explorer_data(example_input)
    cols = read_columns(d)
    keys = cols["key"]
    label = {key: f"{d['nodes'][n][1]}.{name}" for key, n, name in zip(keys, cols["node"], cols["name"])}
    ups = _sources(example_input)
    downs = [key for key, sources in sorted(ups.items()) for s in sources if s == focus]
    # in the order the page's data lists the edges: into the focus, out of it
    feeds = [(keys[a], keys[b]) for a, b in cols["feeds"]]
    assert _panel_list(browser, "upstream") == [label[a] for a, b in feeds if b == focus]
    assert _panel_list(browser, "downstream") == [label[b] for a, b in feeds if a == focus]
    assert sorted(_panel_list(browser, "downstream")) == sorted(label[k] for k in downs) and downs
    assert sorted(_panel_list(browser, "upstream")) == sorted(label[k] for k in ups[focus]) and ups[focus]

    # a model's columns, each once, in the page's order
    model = "model.coffee_shop.int_order_items_priced"
    browser.open(f"{page.as_uri()}#model={model}")
    _wait_drawn(browser, model)
    want = [name for n, name in zip(cols["node"], cols["name"]) if d["nodes"][n][2] == model]
    assert _panel_list(browser, "columns") == want and want


def test_a_link_to_a_column_the_build_lacks_says_so(browser, example_input, tmp_path):
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    for key in ("model.coffee_shop.orders.no_such_column", "model.coffee_shop.orders", "model.coffee_shop.orders.items_amount.x"):
        browser.open(f"{page.as_uri()}#col={key}")
        browser.wait_for("document.querySelector('#graph p.hint') !== null")
        assert browser.eval("document.querySelector('#graph p.hint').textContent") == f"Not in this build: {key}"


BOXES = """[...document.querySelectorAll('#lineage g.node')].map(g => {
  const p = g.closest('.place').style;  // each box is placed in a block of its own
  return [g.dataset.id, parseFloat(p.left), parseFloat(p.top), parseFloat(p.width), parseFloat(p.height)];
})"""


@pytest.mark.parametrize("focus", [FOCUS, "model.coffee_shop.stg_orders.order_id", "model.coffee_shop.orders.amount_paid", METRIC])
def test_the_layered_layout_draws_the_same_lineage_in_ranks(browser, example_input, tmp_path, focus):
    """A drawing of LAYERED_FROM boxes or more is laid out by the page's own layered layout:
    the same boxes, columns and edges as dagre's, each rank on one centre line, no two boxes of
    a rank overlapping, every edge drawn from a rank to a later one, the sources first."""
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    anchor = "model" if focus == METRIC else "col"
    browser.open(f"{page.as_uri()}#{anchor}={focus}")
    _wait_drawn(browser, focus)
    assert browser.eval("document.getElementById('lineage').dataset.layout") == "dagre"
    by_dagre = (_drawn(browser), _drawn_uses(browser), sorted(b[0] for b in browser.eval(BOXES)))
    browser.eval("window.catalogExplorer.layeredFrom(0); document.getElementById('lineage').remove()")
    browser.eval(f"window.catalogExplorer.go({{{anchor}: {json.dumps(focus)}}})")
    _wait_drawn(browser, focus)
    assert browser.eval("document.getElementById('lineage').dataset.layout") == "layered"
    boxes = {b[0]: b[1:] for b in browser.eval(BOXES)}
    assert (_drawn(browser), _drawn_uses(browser), sorted(boxes)) == by_dagre
    if focus != METRIC:
        assert _drawn(browser) == expected_lineage(example_input, focus)
    ranks: dict[float, list[tuple[float, float]]] = {}
    for x, y, w, h in boxes.values():
        ranks.setdefault(round(x + w / 2, 3), []).append((y, y + h))
        assert x >= 20 and y >= 20
    for spans in ranks.values():
        spans.sort()
        assert all(b[0] - a[1] >= 24 - 0.01 for a, b in zip(spans, spans[1:])), spans  # style px keep 4 decimals or so
    centre = {uid: round(x + w / 2, 3) for uid, (x, _, w, _) in boxes.items()}
    drawn = browser.eval("[...document.querySelectorAll('#lineage path.edge')].map(p => [p.dataset.from, p.dataset.to || p.dataset.model])")
    for a, b in drawn:
        owner_a = a if a in boxes else a.rsplit(".", 1)[0]
        owner_b = b if b in boxes else b.rsplit(".", 1)[0]
        assert owner_a == owner_b or centre[owner_a] < centre[owner_b], (a, b)
    first = min(ranks)
    assert all(uid.startswith("source.") for uid, c in centre.items() if c == first)
    width = browser.eval("parseFloat(document.getElementById('lineage').style.width)")
    assert max(x + w for x, _, w, _ in boxes.values()) + 20 <= width + 1e-6


def _click(b: Browser, selector: str) -> None:
    """A real mouse click (pressed and released over the element's middle), hit-tested by the page."""
    x, y = b.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center', inline: 'center'}});"
                  " const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        b.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def test_mouse_clicks_on_a_drawing_open_a_column_a_model_and_an_edge(browser, example_input, tmp_path):
    """Each box is an SVG of its own over the edges' SVG: a click on a column's row, on a model's
    header and on an edge between boxes reaches what it is on, dagre's drawing or the layered."""
    page = tmp_path / "explore.html"
    page.write_text(explorer_html(example_input), encoding="utf-8")
    for layered in (False, True):
        browser.open(page.as_uri())
        if layered:
            browser.eval("window.catalogExplorer.layeredFrom(0)")
        browser.eval(f"window.catalogExplorer.go({{col: {json.dumps(FOCUS)}}})")
        _wait_drawn(browser, FOCUS)
        assert browser.eval("document.getElementById('lineage').dataset.layout") == ("layered" if layered else "dagre")
        up = "model.coffee_shop.int_order_items_priced.line_total"
        _click(browser, f"#lineage g.col[data-key={json.dumps(up)}] text")
        _wait_drawn(browser, up)
        assert browser.eval("location.hash") == f"#col={up}"
        _click(browser, "#lineage g.node[data-id='model.coffee_shop.stg_products'] rect.head")
        _wait_drawn(browser, "model.coffee_shop.stg_products")
        edge = "#lineage path.edge[data-to='model.coffee_shop.stg_products.price']"
        browser.eval(f"location.hash = '#col=' + {json.dumps(up)}")
        _wait_drawn(browser, up)
        _click(browser, edge)
        browser.wait_for(f"document.querySelector({json.dumps(edge)}).classList.contains('picked')")
        assert "price_cents" in browser.eval("document.getElementById('details').innerText")
