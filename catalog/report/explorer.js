/* The lineage explorer: search, column lineage drawn left to right (dagre, or the layered layout
   below for a large drawing), selection in the URL.
   Reads the JSON of #catalog-data (see catalog/report/explorer.py for its shape). Every name,
   expression and reason is written with textContent: nothing from the data is parsed as HTML. */
(function () {
  'use strict';
  // performance marks of a first view, for benchmarks/explorer_speed.py: the script starts, its
  // data read, the indexes built, the layout done, the drawing in the page, its frame painted
  performance.mark('explorer:start');
  var D = JSON.parse(document.getElementById('catalog-data').textContent);
  var N = D.nodes, TYPES = D.types, CLAUSES = D.clauses;
  // packed lists (see explorer.py): a digit, the width of each value in bytes, then the base64
  // of their little-endian bytes: the bytes themselves when 1 wide, seen as 16 or 32-bit values
  // when 2 or 4 (a page is little-endian wherever it runs), read 3 by 3 when 3
  var fromBase64 = Uint8Array.fromBase64 ? function (t) { return Uint8Array.fromBase64(t); } : function (t) {
    var s = atob(t), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  };
  function unpack(text) {
    var w = text.charCodeAt(0) - 48, bytes = fromBase64(text.slice(1)), count = bytes.length / w;
    if (w === 1) return bytes;
    if (w === 2) return new Uint16Array(bytes.buffer, bytes.byteOffset, count);
    if (w === 4) return new Int32Array(bytes.buffer, bytes.byteOffset, count);
    var out = new Int32Array(count);
    for (var i = 0, at = 0; i < count; i++, at += 3) out[i] = bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16;
    return out;
  }
  // columns are numbered node by node: node n's are colStart[n] .. colStart[n + 1] - 1
  var colStart = new Int32Array(N.length + 1), COUNT, i0;
  for (i0 = 0; i0 < N.length; i0++) colStart[i0 + 1] = colStart[i0] + D.node_cols[i0];
  COUNT = colStart[N.length];
  var CN = new Int32Array(COUNT);
  for (i0 = 0; i0 < N.length; i0++) CN.fill(i0, colStart[i0], colStart[i0 + 1]);
  var NAMES = D.names, nameOf = unpack(D.cols.name), CT = unpack(D.cols.type), DT = unpack(D.cols.dtype);
  var exprCols = unpack(D.exprs.cols), exprText = unpack(D.exprs.text);
  function colName(i) { return NAMES[nameOf[i]]; }
  function resolved(i) { return D.unresolved[i] === undefined; }
  function reason(i) { return D.unresolved[i] || ''; }
  function expr(i) {  // exprCols ascends: a binary search
    var lo = 0, hi = exprCols.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (exprCols[mid] < i) lo = mid + 1; else hi = mid; }
    return lo < exprCols.length && exprCols[lo] === i ? D.texts[exprText[lo]] : CT[i] > 0 ? colName(i) : '';
  }
  function dtype(i) { return D.dtypes[DT[i]]; }
  performance.mark('explorer:data');
  var SVGNS = 'http://www.w3.org/2000/svg';
  var ROW = 18, HEAD = 34, CHAR = 7.3, PAD = 10, MARGIN = 20, DEPTHS = ['1', '2', '3', '5', '10'];

  // ------------------------------------------------------------------ indexes, built once when needed
  // Lists by column (a column's sources and consumers) are packed in two Int32Arrays, the items
  // and where each column's run starts: at 20,000 models, over a million columns, an array per
  // column took seconds to build and to collect. A column's sources come so in the data; its
  // consumers are counted out of them. ``runs`` gives one column's list as a plain array.
  function runs(start, items) { return function (k) { return Array.from(items.subarray(start[k], start[k + 1])); }; }
  var idx = null;
  function index() {
    if (idx) return idx;
    var condsOf = [], condsOn = [], depUp = [], depDown = [], i;
    for (i = 0; i < N.length; i++) { depUp.push([]); depDown.push([]); }
    var sources = unpack(D.sources), counts = unpack(D.source_counts), upStart = new Int32Array(COUNT + 1);
    var downStart = new Int32Array(COUNT + 1), consumers = new Int32Array(sources.length), c0, k0;
    for (i = 0; i < COUNT; i++) upStart[i + 1] = upStart[i] + counts[i];
    for (i = 0; i < sources.length; i++) downStart[sources[i] + 1]++;
    for (i = 0; i < COUNT; i++) downStart[i + 1] += downStart[i];
    var fill = downStart.slice(0, COUNT);
    for (c0 = 0; c0 < COUNT; c0++) for (k0 = upStart[c0]; k0 < upStart[c0 + 1]; k0++) consumers[fill[sources[k0]]++] = c0;
    var up = runs(upStart, sources), down = runs(downStart, consumers);
    function nodeCols(n) { var out = []; for (var c = colStart[n]; c < colStart[n + 1]; c++) out.push(c); return out; }
    var c = D.conds;
    for (i = 0; i < c.length; i += 3) {
      (condsOf[c[i]] || (condsOf[c[i]] = [])).push([c[i + 1], c[i + 2]]);
      (condsOn[c[i + 1]] || (condsOn[c[i + 1]] = [])).push([c[i], c[i + 2]]);
    }
    var d = D.deps;
    for (i = 0; i < d.length; i += 2) { depUp[d[i]].push(d[i + 1]); depDown[d[i + 1]].push(d[i]); }
    // the consumers: a column into a consumer node, a consumer node into another; both ways, a
    // consumer node as item COUNT + node (what it reads: its measures, the metrics it reads)
    var usesOf = [], nodeUsesDown = [], reads = [], useType = new Map(), u = D.uses || [], nu = D.node_uses || [];
    for (i = 0; i < u.length; i += 3) {
      (usesOf[u[i]] || (usesOf[u[i]] = [])).push(COUNT + u[i + 1]);
      (reads[u[i + 1]] || (reads[u[i + 1]] = [])).push(u[i]);
      useType.set(u[i] + ' ' + (COUNT + u[i + 1]), D.use_types[u[i + 2]]);
    }
    for (i = 0; i < nu.length; i += 3) {
      (nodeUsesDown[nu[i]] || (nodeUsesDown[nu[i]] = [])).push(COUNT + nu[i + 1]);
      (reads[nu[i + 1]] || (reads[nu[i + 1]] = [])).push(COUNT + nu[i]);
      useType.set((COUNT + nu[i]) + ' ' + (COUNT + nu[i + 1]), D.use_types[nu[i + 2]]);
    }
    var byNode = Object.create(null);
    for (i = 0; i < N.length; i++) byNode[N[i][2]] = i;
    // the column of a key (unique_id.column), or undefined; unique ids hold dots too, so the
    // key is cut at each dot in turn
    function colByKey(key) {
      for (var at = key.indexOf('.'); at >= 0; at = key.indexOf('.', at + 1)) {
        var n = byNode[key.slice(0, at)];
        if (n === undefined) continue;
        var name = key.slice(at + 1);
        for (var k = colStart[n]; k < colStart[n + 1]; k++) if (colName(k) === name) return k;
      }
      return undefined;
    }
    idx = { up: up, down: down, nodeCols: nodeCols, condsOf: condsOf, condsOn: condsOn, depUp: depUp,
            depDown: depDown, colByKey: colByKey, byNode: byNode, usesOf: usesOf, nodeUsesDown: nodeUsesDown, reads: reads, useType: useType };
    return idx;
  }
  function colKey(i) { return N[CN[i]][2] + '.' + colName(i); }
  function colLabel(i) { return N[CN[i]][1] + '.' + colName(i); }
  function colType(i) { return CT[i] > 0 ? TYPES[CT[i] - 1] : ''; }
  // what a column is (a semantic model's entity, dimension or measure, or a plain column) and whose
  function colRole(i) { return (D.roles || {})[i] || 'column'; }
  function colOwner(i) { return N[CN[i]][0].replace(/_/g, ' ') + ' ' + N[CN[i]][1]; }

  // ------------------------------------------------------------------ fuzzy search
  var labels = null;  // lower-case labels: nodes first, then columns
  function searchLabels() {
    if (labels) return labels;
    labels = new Array(N.length + COUNT);
    var i;
    for (i = 0; i < N.length; i++) labels[i] = N[i][1].toLowerCase();
    for (i = 0; i < COUNT; i++) labels[N.length + i] = (N[CN[i]][1] + '.' + colName(i)).toLowerCase();
    return labels;
  }
  // rank: 0 exact, 1 ends with the query after a dot, 2 prefix, 3 substring, 4 in order with gaps
  function rank(label, q) {
    if (label === q) return 0;
    var at = label.indexOf(q);
    if (at >= 0) {
      if (at + q.length === label.length && label.charAt(at - 1) === '.') return 1;
      return at === 0 || label.charAt(at - 1) === '.' || label.charAt(at - 1) === '_' ? 2 : 3;
    }
    var j = 0;
    for (var k = 0; k < label.length && j < q.length; k++) if (label.charCodeAt(k) === q.charCodeAt(j)) j++;
    return j === q.length ? 4 : -1;
  }
  // Typing one more character only narrows the matches: a query that extends the previous one
  // looks only at the previous one's matches. Only the best `limit` are kept in order.
  var previous = { q: null, hits: null };
  function better(a, b, L) { return a[0] - b[0] || a[1] - b[1] || (L[a[2]] < L[b[2]] ? -1 : L[a[2]] > L[b[2]] ? 1 : 0); }
  function search(text, limit) {
    var q = text.trim().toLowerCase();
    limit = limit || 40;
    if (!q) { previous = { q: null, hits: null }; return []; }
    var L = searchLabels(), top = [], hits = [];
    var pool = previous.q !== null && q.indexOf(previous.q) === 0 ? previous.hits : null;
    var count = pool ? pool.length : L.length;
    for (var k = 0; k < count; k++) {
      var i = pool ? pool[k] : k, r = rank(L[i], q);
      if (r < 0) continue;
      hits.push(i);
      var cand = [r, L[i].length, i];
      if (top.length === limit && better(cand, top[limit - 1], L) >= 0) continue;
      var lo = 0, hi = top.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (better(top[mid], cand, L) <= 0) lo = mid + 1; else hi = mid; }
      top.splice(lo, 0, cand);
      if (top.length > limit) top.pop();
    }
    previous = { q: q, hits: hits };
    return top.map(function (h) {
      var i = h[2];
      return i < N.length ? { node: i } : { col: i - N.length };
    });
  }

  var box = document.getElementById('search'), list = document.getElementById('results'), active = -1, found = [];
  function showResults() {
    found = search(box.value, 40);
    active = found.length ? 0 : -1;
    list.textContent = '';
    found.forEach(function (hit, k) {
      var li = document.createElement('li'), kind = document.createElement('span');
      kind.className = 'kind';
      li.setAttribute('role', 'option');
      if (hit.col !== undefined) {  // a model's column and a semantic model's of the same label differ by kind and owner
        var whose = document.createElement('span');
        kind.textContent = colRole(hit.col);
        whose.className = 'owner';
        whose.textContent = colOwner(hit.col);
        li.dataset.key = li.title = colKey(hit.col);
        li.appendChild(kind);
        li.appendChild(document.createTextNode(colLabel(hit.col)));
        li.appendChild(whose);
      } else {
        kind.textContent = N[hit.node][0];
        li.dataset.node = N[hit.node][2];
        li.appendChild(kind);
        li.appendChild(document.createTextNode(N[hit.node][1]));
      }
      if (k === 0) li.className = 'active';
      li.addEventListener('mousedown', function (e) { e.preventDefault(); choose(k); });
      list.appendChild(li);
    });
  }
  function choose(k) {
    var hit = found[k];
    if (!hit) return;
    list.textContent = '';
    box.blur();
    if (hit.col !== undefined) go({ col: colKey(hit.col) }); else go({ model: N[hit.node][2] });
  }
  // keystrokes that come faster than a search answers are coalesced: the latest text is searched
  var pending = false;
  box.addEventListener('input', function () {
    if (pending) return;
    pending = true;
    setTimeout(function () { pending = false; showResults(); }, 0);
  });
  box.addEventListener('focus', function () { if (box.value) showResults(); });
  box.addEventListener('blur', function () { setTimeout(function () { list.textContent = ''; }, 150); });
  box.addEventListener('keydown', function (e) {
    var items = list.children;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!items.length) return;
      e.preventDefault();
      if (active >= 0) items[active].className = '';
      active = (active + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items[active].className = 'active';
      items[active].scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') { e.preventDefault(); choose(active); }
    else if (e.key === 'Escape') { list.textContent = ''; }
  });

  // ------------------------------------------------------------------ selection in the URL fragment
  var depthBox = document.getElementById('depth'), condBox = document.getElementById('conditions');
  function readHash() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var eq = part.indexOf('=');
      if (eq > 0) {
        try { out[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1)); } catch (err) { /* not ours */ }
      }
    });
    return out;
  }
  function go(sel) {
    var parts = [];
    if (sel.col) parts.push('col=' + encodeURIComponent(sel.col));
    if (sel.model) parts.push('model=' + encodeURIComponent(sel.model));
    if (depthBox.value !== '0') parts.push('depth=' + depthBox.value);
    if (condBox.checked) parts.push('cond=1');
    var hash = '#' + parts.join('&');
    if (location.hash === hash) render(); else location.hash = hash;
  }
  function current() { var h = readHash(); return { col: h.col, model: h.model }; }
  depthBox.addEventListener('change', function () { go(current()); });
  condBox.addEventListener('change', function () { go(current()); });
  window.addEventListener('hashchange', render);

  // ------------------------------------------------------------------ what to draw
  function bfs(start, next, depth) {
    var seen = new Map([[start, 0]]), queue = [start], edges = [];
    for (var head = 0; head < queue.length; head++) {  // not shift(): a hub's queue holds thousands
      var c = queue[head], d = seen.get(c);
      if (depth && d >= depth) continue;
      (next(c) || []).forEach(function (n) {
        edges.push([c, n]);
        if (!seen.has(n)) { seen.set(n, d + 1); queue.push(n); }
      });
    }
    return { seen: seen, edges: edges };
  }
  // The lineage of a column, or of a metric (item COUNT + node): an item >= COUNT is node item - COUNT.
  function columnLineage(focus, depth, withConditions) {
    var ix = index();
    // upstream walks the columns a column reads, and the measures and metrics a metric reads
    var ups = bfs(focus, function (c) { return c < COUNT ? ix.up(c) : ix.reads[c - COUNT]; }, depth);
    // downstream walks columns, then the consumers they feed
    var downs = bfs(focus, function (c) {
      if (c >= COUNT) return ix.nodeUsesDown[c - COUNT];
      var into = ix.usesOf[c];
      return into ? ix.down(c).concat(into) : ix.down(c);
    }, depth);
    var cols = new Set([...ups.seen.keys(), ...downs.seen.keys()].filter(function (c) { return c < COUNT; }));
    var all = ups.edges.map(function (e) { return [e[1], e[0]]; }).concat(downs.edges);
    var edges = all.filter(function (e) { return e[1] < COUNT; }), uses = all.filter(function (e) { return e[1] >= COUNT; });
    var conds = [], extraNodes = new Set(focus >= COUNT ? [focus - COUNT] : []);
    uses.forEach(function (e) { extraNodes.add(e[1] - COUNT); if (e[0] >= COUNT) extraNodes.add(e[0] - COUNT); });
    if (withConditions) {
      var nodesWithCols = new Set([...cols].map(function (c) { return CN[c]; }));
      var seenCond = new Set();
      var add = function (c, n, clause) {
        var k = c + ' ' + n + ' ' + clause;
        if (seenCond.has(k)) return;
        seenCond.add(k);
        conds.push([c, n, clause]);
      };
      nodesWithCols.forEach(function (n) { (ix.condsOn[n] || []).forEach(function (p) { add(p[0], n, p[1]); }); });
      cols.forEach(function (c) { (ix.condsOf[c] || []).forEach(function (p) { add(c, p[0], p[1]); }); });
      conds.forEach(function (x) { cols.add(x[0]); if (!nodesWithCols.has(x[1])) extraNodes.add(x[1]); });
    }
    return { cols: cols, edges: edges, conds: conds, extraNodes: extraNodes, uses: uses };
  }

  // ------------------------------------------------------------------ drawing
  var graphEl = document.getElementById('graph'), details = document.getElementById('details');
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, value, cls) {
    var t = el('text', { x: x, y: y }, parent);
    if (cls) t.setAttribute('class', cls);
    t.textContent = value;
    return t;
  }
  function title(parent, value) { el('title', {}, parent).textContent = value; }

  function render() {
    var sel = current();
    var h = readHash();
    depthBox.value = DEPTHS.indexOf(h.depth) >= 0 ? h.depth : '0';
    condBox.checked = h.cond === '1';
    var depth = parseInt(depthBox.value, 10) || 0;
    var ix = index();
    graphEl.textContent = '';
    performance.mark('explorer:index');
    var focus = sel.col !== undefined ? ix.colByKey(sel.col) : undefined;
    if (focus !== undefined) {
      var lin = columnLineage(focus, depth, condBox.checked);
      draw(lin, focus, null);
      showColumn(focus, lin);
    } else if (sel.model !== undefined && ix.byNode[sel.model] !== undefined) {
      var n = ix.byNode[sel.model];
      // a metric: what it reads back to the sources, as a column's; any other node: its neighbours
      draw(N[n][0] === 'metric' ? columnLineage(COUNT + n, depth, condBox.checked) : modelLineage(n, depth), null, n);
      showNode(n);
    } else if (sel.col !== undefined || sel.model !== undefined) {
      var p = document.createElement('p');
      p.className = 'hint';
      p.textContent = 'Not in this build: ' + (sel.col || sel.model);
      graphEl.appendChild(p);
    }
  }

  function modelLineage(n, depth) {
    var ix = index();
    var ups = bfs(n, function (x) { return ix.depUp[x]; }, depth || 1);
    var downs = bfs(n, function (x) { return ix.depDown[x]; }, depth || 1);
    var nodes = new Set([...ups.seen.keys(), ...downs.seen.keys()]);
    var deps = ups.edges.map(function (e) { return [e[1], e[0]]; }).concat(downs.edges);
    return { cols: new Set(ix.nodeCols(n)), edges: [], conds: [], extraNodes: nodes, deps: deps };
  }

  // ------------------------------------------------------------------ layout
  // Both set each box's centre (x, y) from its width and height, and give the drawing's size.
  // dagre lays out a drawing of fewer than LAYERED_FROM boxes; past that its layout takes tenths
  // of a second and then seconds (0.24-0.35 s for the 117 models of the hub column at 1,300
  // models, 1.8 s for the 1,238 at 20,000), and ``layered`` does it in about 10 and 100 ms.
  var LAYERED_FROM = 50, NODESEP = 24, RANKSEP = 90;
  function dagreLayout(boxes, pairs) {
    var g = new dagre.graphlib.Graph({ multigraph: false });
    g.setGraph({ rankdir: 'LR', nodesep: NODESEP, ranksep: RANKSEP, marginx: MARGIN, marginy: MARGIN });
    g.setDefaultEdgeLabel(function () { return {}; });
    boxes.forEach(function (b, k) { g.setNode(String(k), { width: b.width, height: b.height }); });
    pairs.forEach(function (l) { g.setEdge(String(l[0]), String(l[1])); });
    dagre.layout(g);
    boxes.forEach(function (b, k) { var v = g.node(String(k)); b.x = v.x; b.y = v.y; });
    return { width: g.graph().width, height: g.graph().height };
  }

  // A layered layout, left to right, as dagre's in its steps but each one the simple way:
  // 1. ranks: the longest path from the first boxes, then a box that feeds more boxes than it
  //    reads moves right, next to the first that reads it (a source beside its first model);
  // 2. each rank's order: a box at the mean position of its neighbours in the rank before (or
  //    after), sweeping right and left, an edge across ranks going through a placeholder in
  //    each rank it crosses; the order of the fewest crossings is kept;
  // 3. each box's height in its rank: as near the mean height of its neighbours as the order
  //    and the spacing allow (a least-squares fit, by pooling adjacent violators), sweeping
  //    right and left; a rank's boxes share their centre line.
  function layered(boxes, pairs) {
    var count = boxes.length, succ = [], pred = [], k, v, r;
    for (k = 0; k < count; k++) { succ.push([]); pred.push([]); }
    pairs.forEach(function (l) { succ[l[0]].push(l[1]); pred[l[1]].push(l[0]); });
    // 1. ranks, in a topological order (a cycle, which a lineage lacks, is cut where it is met)
    var rank = new Int32Array(count), waiting = new Int32Array(count), done = new Uint8Array(count), topo = [], ready = [];
    for (k = 0; k < count; k++) { waiting[k] = pred[k].length; if (!waiting[k]) ready.push(k); }
    for (var next = 0; topo.length < count;) {
      if (!ready.length) { while (done[next]) next++; ready.push(next); }
      v = ready.pop();
      if (done[v]) continue;
      done[v] = 1;
      topo.push(v);
      succ[v].forEach(function (w) { if (!done[w]) { rank[w] = Math.max(rank[w], rank[v] + 1); if (--waiting[w] === 0) ready.push(w); } });
    }
    var forward = function (a, b) { return rank[a] < rank[b]; };
    for (k = count - 1; k >= 0; k--) {
      v = topo[k];
      var outs = succ[v].filter(function (w) { return forward(v, w); });
      if (outs.length <= pred[v].length || !outs.length) continue;
      rank[v] = Math.min.apply(null, outs.map(function (w) { return rank[w]; })) - 1;
    }
    var used = Array.from(new Set(rank)).sort(function (a, b) { return a - b; }), dense = new Map();
    used.forEach(function (x, i) { dense.set(x, i); });
    for (k = 0; k < count; k++) rank[k] = dense.get(rank[k]);
    var ranks = used.length;
    // 2. the order in each rank, placeholders (items count and up) for the ranks an edge crosses
    var vrank = Array.from(rank), up = pred.map(function () { return []; }), down = succ.map(function () { return []; });
    pairs.forEach(function (l) {
      var a = l[0], b = l[1];
      if (!forward(a, b)) return;
      for (var x = rank[a] + 1; x < rank[b]; x++) { var d = vrank.length; vrank.push(x); up.push([a]); down.push([]); down[a].push(d); a = d; }
      down[a].push(b); up[b].push(a);
    });
    var layers = [];
    for (r = 0; r < ranks; r++) layers.push([]);
    var seen = new Uint8Array(vrank.length), stack = [];
    topo.slice().sort(function (a, b) { return rank[a] - rank[b]; }).forEach(function (s) {
      stack.push(s);
      while (stack.length) {
        var x = stack.pop();
        if (seen[x]) continue;
        seen[x] = 1;
        layers[vrank[x]].push(x);
        for (var j = down[x].length - 1; j >= 0; j--) if (!seen[down[x][j]]) stack.push(down[x][j]);
      }
    });
    var pos = new Float64Array(vrank.length);
    function number() { layers.forEach(function (layer) { layer.forEach(function (x, i) { pos[x] = i; }); }); }
    function crossings() {  // between each pair of neighbouring ranks, counted with a Fenwick tree
      var total = 0;
      for (var r1 = 0; r1 + 1 < ranks; r1++) {
        var ends = [];
        layers[r1].forEach(function (x) { down[x].forEach(function (y) { ends.push(pos[x] * 1e6 + pos[y]); }); });
        ends.sort(function (a, b) { return a - b; });
        var size = layers[r1 + 1].length, tree = new Int32Array(size + 1), seenEnds = 0;
        ends.forEach(function (e) {
          var y = e % 1e6, i, below = 0;
          for (i = y + 1; i > 0; i -= i & -i) below += tree[i];
          total += seenEnds - below;
          for (i = y + 1; i <= size; i += i & -i) tree[i]++;
          seenEnds++;
        });
      }
      return total;
    }
    number();
    var best = layers.map(function (l) { return l.slice(); }), fewest = crossings(), bary = new Float64Array(vrank.length);
    for (var sweep = 0, stale = 0; sweep < 24 && stale < 4 && fewest > 0; sweep++) {
      var rightward = sweep % 2 === 0, by = rightward ? up : down;
      for (var step = 1; step < ranks; step++) {
        var layer = layers[rightward ? step : ranks - 1 - step];
        layer.forEach(function (x) {
          var n = by[x];
          if (!n.length) { bary[x] = pos[x]; return; }
          var sum = 0;
          for (var j = 0; j < n.length; j++) sum += pos[n[j]];
          bary[x] = sum / n.length;
        });
        layer.sort(function (a, b) { return bary[a] - bary[b] || pos[a] - pos[b]; });
        layer.forEach(function (x, i) { pos[x] = i; });
      }
      var now = crossings();
      if (now < fewest) { fewest = now; stale = 0; best = layers.map(function (l) { return l.slice(); }); } else stale++;
    }
    layers = best;
    // 3. heights: each rank's boxes in order (placeholders dropped), spaced NODESEP apart
    var real = layers.map(function (layer) { return layer.filter(function (x) { return x < count; }); });
    var y = new Float64Array(count);
    real.forEach(function (layer) {
      var top = 0;
      layer.forEach(function (x) { y[x] = top + boxes[x].height / 2; top += boxes[x].height + NODESEP; });
    });
    function place(layer, near) {  // the least-squares heights in order, nearest to the mean of `near`
      var blocks = [], offset = 0;
      layer.forEach(function (x, i) {
        if (i) offset += (boxes[layer[i - 1]].height + boxes[x].height) / 2 + NODESEP;
        var n = near[x], want = y[x], weight = 1e-3;
        if (n.length) { want = 0; for (var j = 0; j < n.length; j++) want += y[n[j]]; want /= n.length; weight = n.length; }
        var block = { weight: weight, sum: weight * (want - offset), size: 1 };
        while (blocks.length && blocks[blocks.length - 1].sum / blocks[blocks.length - 1].weight >= block.sum / block.weight) {
          var last = blocks.pop();
          block = { weight: last.weight + block.weight, sum: last.sum + block.sum, size: last.size + block.size };
        }
        blocks.push(block);
      });
      var i = 0;
      offset = 0;
      blocks.forEach(function (b) {
        for (var j = 0; j < b.size; j++, i++) {
          if (i) offset += (boxes[layer[i - 1]].height + boxes[layer[i]].height) / 2 + NODESEP;
          y[layer[i]] = b.sum / b.weight + offset;
        }
      });
    }
    var both = pred.map(function (p, x) { return p.concat(succ[x]); });
    for (sweep = 0; sweep < 4; sweep++) {
      for (step = 1; step < ranks; step++) place(real[step], pred);
      for (step = ranks - 2; step >= 0; step--) place(real[step], succ);
    }
    for (step = 0; step < ranks; step++) place(real[step], both);
    // the ranks' centre lines, and the drawing moved to MARGIN from its top
    var least = Infinity, most = -Infinity, x0 = MARGIN;
    for (k = 0; k < count; k++) { least = Math.min(least, y[k] - boxes[k].height / 2); most = Math.max(most, y[k] + boxes[k].height / 2); }
    real.forEach(function (layer) {
      var wide = 0;
      layer.forEach(function (x) { wide = Math.max(wide, boxes[x].width); });
      layer.forEach(function (x) { boxes[x].x = x0 + wide / 2; boxes[x].y = y[x] - least + MARGIN; });
      x0 += wide + RANKSEP;
    });
    return { width: x0 - RANKSEP + MARGIN, height: most - least + 2 * MARGIN };
  }

  function draw(lin, focusCol, focusNode) {
    var ix = index();
    var byNode = new Map();
    lin.cols.forEach(function (c) {
      var n = CN[c];
      if (!byNode.has(n)) byNode.set(n, []);
      byNode.get(n).push(c);
    });
    lin.extraNodes.forEach(function (n) { if (!byNode.has(n)) byNode.set(n, []); });
    var boxes = [], at = new Map();  // the boxes to draw, and each node's place among them
    byNode.forEach(function (cols, n) {
      cols.sort(function (a, b) { return a - b; });
      var width = Math.max(N[n][1].length + 6, Math.ceil((N[n][0].length + N[n][5].length + 3) * 0.9));
      cols.forEach(function (c) { width = Math.max(width, colName(c).length + (colType(c) ? colType(c).length + 3 : 0) + 3); });
      var more = colStart[n + 1] - colStart[n] - cols.length;
      at.set(n, boxes.length);
      boxes.push({ n: n, width: Math.min(520, width * CHAR + 2 * PAD), height: HEAD + cols.length * ROW + (more > 0 ? ROW : 0) + 6,
                   cols: cols, more: more });
    });
    function owner(item) { return item < COUNT ? CN[item] : item - COUNT; }
    var pairs = [], paired = new Set();  // box to box, once each
    function link(a, b) {
      var u = at.get(a), v = at.get(b), key = u * boxes.length + v;
      if (u !== v && !paired.has(key)) { paired.add(key); pairs.push([u, v]); }
    }
    lin.edges.forEach(function (e) { link(CN[e[0]], CN[e[1]]); });
    lin.conds.forEach(function (x) { link(CN[x[0]], x[1]); });
    (lin.deps || []).forEach(function (e) { link(e[0], e[1]); });
    (lin.uses || []).forEach(function (e) { link(owner(e[0]), owner(e[1])); });
    var how = boxes.length < LAYERED_FROM ? 'dagre' : 'layered', size = how === 'dagre' ? dagreLayout(boxes, pairs) : layered(boxes, pairs);
    performance.mark('explorer:layout');
    var width = Math.max(size.width, 200), height = Math.max(size.height, 100);
    // the drawing: the edges in one SVG under the boxes, each box an SVG of its own in a block
    // placed over it, which the browser lays out and paints only near the view (content-visibility)
    var drawing = document.createElement('div'), svg = el('svg', { width: width, height: height, 'class': 'edges' }, drawing);
    drawing.id = 'lineage';
    drawing.style.width = width + 'px';
    drawing.style.height = height + 'px';
    drawing.dataset.focus = focusCol !== null ? colKey(focusCol) : N[focusNode][2];
    drawing.dataset.layout = how;
    var edgeLayer = el('g', {}, svg), edgeOf = new Map();
    var rowY = new Map(), box = new Map(), rankStart = new Map(), mark = null;  // mark: the selection's name
    boxes.forEach(function (v) {
      var n = v.n, x = v.x - v.width / 2, y = v.y - v.height / 2;
      box.set(n, { x: x, y: y, w: v.width, h: v.height });
      rankStart.set(v.x, Math.min(x, rankStart.has(v.x) ? rankStart.get(v.x) : x));  // a rank's boxes share their centre
      var status = N[n][3], place = document.createElement('div');
      place.className = 'place';
      place.style.cssText = 'left:' + x + 'px;top:' + y + 'px;width:' + v.width + 'px;height:' + v.height + 'px';
      drawing.appendChild(place);
      var gn = el('g', { 'class': 'node ' + N[n][0] + (status ? ' ' + status : '') + (n === focusNode ? ' focus' : '') },
                  el('svg', { width: v.width, height: v.height }, place));
      gn.dataset.id = N[n][2];
      el('rect', { 'class': 'box', width: v.width, height: v.height, rx: 5 }, gn);
      el('rect', { 'class': 'head', width: v.width, height: HEAD - 4, rx: 5 }, gn);
      var t = text(gn, PAD, 15, (status === 'failed' || status === 'unresolved' || status === 'partial' ? '\u26a0 ' : '') + N[n][1], 'title');
      if (n === focusNode) mark = t;
      var sub = N[n][0] + (N[n][5] ? ' \u00b7 ' + N[n][5] : '') + (status && status !== 'resolved' ? ' \u00b7 ' + status : '');
      text(gn, PAD, 27, sub, 'sub');
      title(gn, N[n][2] + (N[n][4] ? '\n' + status + ': ' + N[n][4] : ''));
      v.cols.forEach(function (c, k) {
        var cy = HEAD + k * ROW;
        var row = el('g', { 'class': 'col' + (c === focusCol ? ' focus' : '') + (resolved(c) ? '' : ' unresolved'),
                            transform: 'translate(0,' + cy + ')' }, gn);
        row.dataset.key = colKey(c);
        el('rect', { width: v.width, height: ROW }, row);
        var name = text(row, PAD, 13, (resolved(c) ? '' : '\u26a0 ') + colName(c));
        if (c === focusCol) mark = name;
        if (colType(c)) text(row, v.width - PAD - colType(c).length * 6.4, 13, colType(c), 't');
        title(row, colLabel(c) + (colType(c) ? ' (' + colType(c) + ')' : '') + (expr(c) ? '\n' + expr(c) : '') +
              (reason(c) ? '\nnot resolved: ' + reason(c) : ''));
        rowY.set(c, y + cy + ROW / 2);
      });
      if (v.more > 0) text(gn, PAD, HEAD + v.cols.length * ROW + 13, '+ ' + v.more + ' more column' + (v.more > 1 ? 's' : ''), 'sub');
    });
    function curve(x1, y1, x2, y2) {
      var dx = Math.max(30, (x2 - x1) / 2);
      return 'M' + x1 + ',' + y1 + ' C' + (x1 + dx) + ',' + y1 + ' ' + (x2 - dx) + ',' + y2 + ' ' + x2 + ',' + y2;
    }
    lin.edges.forEach(function (e) {
      var a = box.get(CN[e[0]]), b = box.get(CN[e[1]]), type = colType(e[1]) || 'unknown';
      var p = el('path', { d: curve(a.x + a.w, rowY.get(e[0]), b.x, rowY.get(e[1])),
                           'class': 'edge t-' + type + (resolved(e[1]) ? '' : ' unresolved') }, edgeLayer);
      p.dataset.from = colKey(e[0]); p.dataset.to = colKey(e[1]); p.dataset.type = type;
      title(p, colLabel(e[0]) + ' \u2192 ' + colLabel(e[1]) + ' (' + type + ')' + (expr(e[1]) ? '\n' + expr(e[1]) : ''));
      edgeOf.set(p, e);
    });
    lin.conds.forEach(function (x) {
      var a = box.get(CN[x[0]]), b = box.get(x[1]);
      var p = el('path', { d: curve(a.x + a.w, rowY.get(x[0]), b.x, b.y + HEAD / 2), 'class': 'edge cond' }, edgeLayer);
      p.dataset.from = colKey(x[0]); p.dataset.model = N[x[1]][2]; p.dataset.clause = CLAUSES[x[2]];
      title(p, colLabel(x[0]) + ' \u2192 ' + N[x[1]][1] + ' (' + CLAUSES[x[2]] + ')');
    });
    (lin.deps || []).forEach(function (e) {
      var a = box.get(e[0]), b = box.get(e[1]);
      var p = el('path', { d: curve(a.x + a.w, a.y + HEAD / 2, b.x, b.y + HEAD / 2), 'class': 'edge dep' }, edgeLayer);
      p.dataset.from = N[e[0]][2]; p.dataset.to = N[e[1]][2];
    });
    (lin.uses || []).forEach(function (e) {
      var a = box.get(owner(e[0])), b = box.get(owner(e[1])), type = ix.useType.get(e[0] + ' ' + e[1]) || '';
      var y1 = e[0] < COUNT ? rowY.get(e[0]) : a.y + HEAD / 2;
      var p = el('path', { d: curve(a.x + a.w, y1, b.x, b.y + HEAD / 2), 'class': 'edge use' }, edgeLayer);
      var from = e[0] < COUNT ? colKey(e[0]) : N[e[0] - COUNT][2], fromLabel = e[0] < COUNT ? colLabel(e[0]) : N[e[0] - COUNT][1];
      p.dataset.from = from; p.dataset.to = N[e[1] - COUNT][2]; p.dataset.type = type;
      title(p, fromLabel + ' \u2192 ' + N[e[1] - COUNT][1] + ' (' + N[e[1] - COUNT][0] + ', ' + type + ')');
    });
    // clicks caught on their way down (a click sent to an element alone, not bubbling, too)
    drawing.addEventListener('click', function (ev) {
      var t = ev.target, row = t.closest('g.col'), e = edgeOf.get(t);
      if (row) go({ col: row.dataset.key });
      else if (t.matches('rect.head, text.title')) go({ model: t.closest('g.node').dataset.id });
      else if (e) showEdge(e[0], e[1], t);
    }, true);
    graphEl.appendChild(drawing);
    performance.mark('explorer:drawn');
    requestAnimationFrame(function () { setTimeout(function () { performance.mark('explorer:painted'); }, 0); });  // after the next frame
    // open at the top left, on the first models, scrolled only as far as the selection's name needs
    // and then to the start of a rank, so that no model is cut at the pane's left edge
    if (!mark) return;
    var fb = box.get(focusCol !== null ? CN[focusCol] : focusNode), right = fb.x + PAD + mark.getComputedTextLength();
    var top = focusCol !== null ? rowY.get(focusCol) - ROW / 2 : fb.y, bottom = focusCol !== null ? top + ROW : fb.y + HEAD;
    var left, down, starts = [...rankStart.values()], tops = [...box.values()].map(function (b) { return b.y; });
    for (var pass = 0; pass < 2; pass++) {  // the second once the scroll bars the first added are there
      var cw = graphEl.clientWidth, ch = graphEl.clientHeight;
      left = opening(starts, fb.x, right, cw);
      down = opening(tops, bottom - fb.y <= ch ? fb.y : top, bottom, ch);
      if (left + cw <= width && down + ch <= height) break;
      // room to scroll that far: blank past the drawing's end
      width = Math.max(width, left + cw); height = Math.max(height, down + ch);
      svg.setAttribute('width', width); svg.setAttribute('height', height);
      drawing.style.width = width + 'px'; drawing.style.height = height + 'px';
    }
    graphEl.scrollLeft = left;
    graphEl.scrollTop = down;
  }
  // The least scroll, 0 or MARGIN before one of `starts`, that shows lo..hi whole; failing that,
  // lo..hi at MARGIN from the edge (or its end, when longer than the pane).
  function opening(starts, lo, hi, size) {
    var best = Math.max(0, hi - lo + MARGIN <= size ? lo - MARGIN : hi - size);
    [0].concat(starts.map(function (s) { return s - MARGIN; })).forEach(function (s) {
      if (s >= 0 && s < best && s <= lo && hi <= s + size) best = s;
    });
    return best;
  }

  // ------------------------------------------------------------------ the details panel
  function panel(heading) {
    details.textContent = '';
    var h2 = document.createElement('h2');
    h2.textContent = heading;
    details.appendChild(h2);
    var dl = document.createElement('dl');
    details.appendChild(dl);
    return dl;
  }
  function field(dl, name, value, pre) {
    if (value === '' || value === null || value === undefined) return;
    var dt = document.createElement('dt'), dd = document.createElement('dd');
    dt.textContent = name;
    if (pre) { var p = document.createElement('pre'); p.textContent = value; dd.appendChild(p); } else dd.textContent = value;
    dl.appendChild(dt); dl.appendChild(dd);
    return dd;
  }
  function links(dl, name, items) {
    if (!items.length) return;
    var dd = field(dl, name, ' '), ul = document.createElement('ul');
    dd.textContent = '';
    items.forEach(function (it) {
      var li = document.createElement('li'), a = document.createElement('a');
      a.textContent = it[0];
      a.addEventListener('click', function () { go(it[1]); });
      li.appendChild(a);
      if (it[2]) li.appendChild(document.createTextNode(' ' + it[2]));
      ul.appendChild(li);
    });
    dd.appendChild(ul);
  }
  function showColumn(c, lin) {
    var ix = index(), n = CN[c];
    var dl = panel(colLabel(c));
    field(dl, 'kind', colRole(c) + ' of ' + colOwner(c));
    field(dl, 'unique id', colKey(c));
    field(dl, 'type', colType(c) || 'not analyzed');
    field(dl, 'data type', dtype(c));
    field(dl, 'expression', expr(c), true);
    if (!resolved(c)) field(dl, 'not resolved', reason(c) || 'origin not proved');
    if (N[n][3] && N[n][3] !== 'resolved') field(dl, 'model ' + N[n][3], N[n][4]);
    links(dl, 'upstream', ix.up(c).map(function (u) { return [colLabel(u), { col: colKey(u) }]; }));
    links(dl, 'downstream', ix.down(c).map(function (d) { return [colLabel(d), { col: colKey(d) }, colType(d)]; }));
    links(dl, 'used by', (ix.usesOf[c] || []).map(function (d) { return [N[d - COUNT][1], { model: N[d - COUNT][2] }, N[d - COUNT][0]]; }));
    links(dl, 'used in conditions of', (ix.condsOf[c] || []).map(function (p) { return [N[p[0]][1], { model: N[p[0]][2] }, CLAUSES[p[1]]]; }));
    field(dl, 'drawn', lin.cols.size + ' columns, ' + lin.edges.length + ' edges' + (lin.conds.length ? ', ' + lin.conds.length + ' conditions' : '') +
          (lin.uses.length ? ', ' + new Set(lin.uses.map(function (e) { return e[1]; })).size + ' metrics, exposures and other consumers' : ''));
  }
  function showNode(n) {
    var ix = index();
    var dl = panel(N[n][1]);
    field(dl, 'kind', N[n][0] + (N[n][5] ? ' (' + N[n][5] + ')' : ''));
    field(dl, 'unique id', N[n][2]);
    field(dl, 'lineage', N[n][3]);
    field(dl, 'reason', N[n][4]);
    field(dl, 'description', N[n][6]);
    links(dl, 'columns', ix.nodeCols(n).map(function (c) {
      return [colName(c), { col: colKey(c) }, (colType(c) || '') + (resolved(c) ? '' : ' \u26a0 ' + (reason(c) || 'not resolved'))];
    }));
    links(dl, 'reads', ix.depUp[n].map(function (p) { return [N[p][1], { model: N[p][2] }]; }));
    links(dl, 'read by', ix.depDown[n].map(function (p) { return [N[p][1], { model: N[p][2] }]; }));
  }
  function showEdge(a, b, path) {
    document.querySelectorAll('path.picked').forEach(function (p) { p.classList.remove('picked'); });
    path.classList.add('picked');
    var dl = panel(colLabel(a) + ' \u2192 ' + colLabel(b));
    field(dl, 'type', colType(b) || 'unknown');
    field(dl, 'expression', expr(b), true);
    if (!resolved(b)) field(dl, 'not resolved', reason(b) || 'origin not proved');
  }

  // ------------------------------------------------------------------ legend, first render, hooks for tests
  var legend = document.getElementById('legend');
  TYPES.forEach(function (t) {
    var span = document.createElement('span'), s = el('svg', { width: 28, height: 8 });
    el('path', { d: 'M0,4 L28,4', 'class': 'edge t-' + t }, s);
    span.appendChild(s);
    span.appendChild(document.createTextNode(' ' + t));
    legend.appendChild(span);
  });
  if ((D.uses || []).length) {
    var span = document.createElement('span'), s = el('svg', { width: 28, height: 8 });
    el('path', { d: 'M0,4 L28,4', 'class': 'edge use' }, s);
    span.appendChild(s);
    span.appendChild(document.createTextNode(' into a metric or exposure'));
    legend.appendChild(span);
  }
  // layeredFrom(n): the drawings of n boxes or more are laid out by `layered` (tests draw small ones so)
  window.catalogExplorer = { search: search, go: go, data: D, layeredFrom: function (n) { LAYERED_FROM = n; } };
  if (location.hash) render();
})();
