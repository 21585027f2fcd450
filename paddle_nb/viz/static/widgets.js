// The front end of paddle_nb's widgets (anywidget ES module; no build step).
//
// Every widget draws only from its model state, so the same picture appears in
// JupyterLab, Notebook 7, VS Code and a static HTML export with the state embedded.
// Sliders change the state (model.set + save_changes) and redraw at once, without
// waiting for a kernel. Stable data-* attributes name what is drawn: data-scope,
// data-var, data-state, data-step, data-op, data-block.

// -- small DOM helpers ---------------------------------------------------------------------
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function fmtBytes(n) {
  n = Number(n || 0);
  const units = ["B", "KiB", "MiB", "GiB"];
  for (let i = 0; i < units.length; i++) {
    if (n < 1024 || i === units.length - 1) return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
    n /= 1024;
  }
}

const fmtShape = (s) => (s ? "[" + s.join(", ") + "]" : "");

function stateChip(state, palette) {
  const colours = (palette && palette.colours) || {};
  const meanings = (palette && palette.meanings) || {};
  return h("span", { class: "pnb-chip", "data-state": state, title: meanings[state] || "",
                     style: `background:${colours[state] || "#fff"}` }, state);
}

function legend(palette) {
  const states = ["declared", "created", "typed", "allocated", "freed"];
  return h("div", { class: "pnb-legend", "data-legend": "states" },
    h("span", { class: "pnb-muted" }, "variable states: "), states.map((s) => stateChip(s, palette)));
}

function valueTable(preview) {
  if (!preview) return h("span", { class: "pnb-muted" }, "no value recorded");
  const whole = preview.rows.every((r) => r.every((x) => typeof x !== "number" || Number.isInteger(x)));
  const rows = preview.rows.map((r) => h("tr", {}, r.map((x) => h("td", {}, fmtNumber(x, whole)))));
  return h("table", { class: "pnb-values" }, rows,
    preview.truncated ? h("tr", {}, h("td", { class: "pnb-muted" }, "…")) : null);
}

function fmtNumber(x, whole) {
  if (typeof x !== "number") return String(x);
  return whole ? String(x) : x.toFixed(4);
}

// A variable shown by the user's Python name (viz/names.py: o1 for static_rnn_0.tmp_1), its
// own on hover; by its own name where the user gave none.
function userName(name, names) {
  const user = names && names[name];
  return user && user !== name
    ? h("span", { class: "pnb-user-name", title: name, "data-internal": name }, user) : name;
}

// The names a scope at `depth` shows (the Dashboard's `names`): block 0's in the user's scope
// and the run scope, the sub-blocks' in the step scopes below (a step's own `h` row is not the
// stacked `out` outside, though the two may share a variable name).
const scopeNames = (names, depth) => (names ? (depth <= 1 ? names.outer : names.inner) : null);

// "9 vars: 5 allocated, 4 freed": a scope's variables counted by state.
function stateCounts(vars) {
  const counts = new Map();
  for (const v of vars) counts.set(v.state, (counts.get(v.state) || 0) + 1);
  const shown = [...counts].map(([state, n]) => `${n} ${state}`).join(", ");
  return `${vars.length} vars` + (shown ? `: ${shown}` : "");
}

// A scope and its kids: a summary line per scope that opens onto its table of variables,
// nested by the hierarchy. A scope with many variables starts folded; what the reader opens
// or folds stays so when the widget redraws (opts.folds remembers it by the scope's path).
function scopeTree(node, palette, opts = {}, path = "", depth = 0) {
  const names = scopeNames(opts.names, depth);
  const bytes = node.vars.reduce((a, v) => a + (v.state === "allocated" ? v.nbytes : 0), 0);
  const key = node.path || `${path}/${node.label}`;
  const head = h("summary", { class: "pnb-scope-head" },
    h("b", {}, node.label), ` · scope ${node.id} · `,
    h("span", { "data-summary": "scope" }, stateCounts(node.vars)), ` · ${fmtBytes(bytes)}`,
    node.change ? h("span", { class: "pnb-change", "data-change": node.change }, node.change) : null,
    node.destroyed ? h("span", { class: "pnb-change pnb-gone" }, "destroyed") : null);
  const rows = node.vars.map((v) => h("tr", {
      "data-var": v.name, "data-state": v.state, "data-scope": node.id,
      "data-change": v.change || null, class: v.change ? "pnb-changed" : null },
    h("td", { class: "pnb-name" }, userName(v.name, names)), h("td", {}, stateChip(v.state, palette)),
    h("td", {}, v.state === "allocated" ? fmtShape(v.shape)
      : v.holder ? h("span", { class: "pnb-muted" }, `holds ${v.holder}`) : ""),
    h("td", {}, v.dtype || ""), h("td", {}, v.place || ""),
    h("td", { class: "pnb-num" }, v.state === "allocated" ? fmtBytes(v.nbytes) : ""),
    opts.changes ? h("td", {}, v.change ? h("span", { class: "pnb-change", title: v.said || null }, v.change) : "") : null));
  const table = node.vars.length ? h("table", { class: "pnb-vars" },
    h("tr", {}, ["name", "state", "shape", "dtype", "place", "bytes"].map((c) => h("th", {}, c)),
      opts.changes ? h("th", {}, "since last run") : null), rows)
    : h("div", { class: "pnb-muted" }, "no variables");
  const folds = opts.folds || new Map();
  const open = folds.has(key) ? folds.get(key) : node.vars.length <= FOLD_VARS;
  const box = h("details", { open, ontoggle: (e) => { if (e.target === box) folds.set(key, box.open); } },
    head, table);
  return h("div", { class: "pnb-scope", "data-scope": node.id, "data-scope-label": node.label,
                    "data-destroyed": node.destroyed ? "true" : null },
    box, node.kids.map((k) => scopeTree(k, palette, opts, key, depth + 1)));
}
const FOLD_VARS = 40;     // a scope with more variables starts folded to its summary line

function messageLine(model) {
  const text = model.get("message");
  return text ? h("div", { class: "pnb-message", "data-message": "" }, text) : null;
}

function slider(label, value, max, onset, attrs = {}) {
  const input = h("input", { type: "range", min: 0, max: Math.max(max, 0), value, step: 1,
                             class: "pnb-slider", ...attrs });
  input.addEventListener("input", () => onset(Number(input.value)));
  const by = (d) => () => onset(Math.max(0, Math.min(Number(input.max), Number(input.value) + d)));
  return h("div", { class: "pnb-slider-row", "data-role": attrs["data-role"] || null },
    h("span", { class: "pnb-muted" }, label),
    h("button", { class: "pnb-btn", "data-action": "prev", onclick: by(-1) }, "◀"), input,
    h("button", { class: "pnb-btn", "data-action": "next", onclick: by(1) }, "▶"));
}

// Redraw `root` with `draw()`. A slider row that is on the page stays (only its value and
// range change), so dragging it or moving it with the arrow keys is never interrupted.
function redraw(root, draw) {
  const fresh = draw();
  const top = root.firstElementChild;
  const oldRow = top && top.querySelector(":scope > .pnb-slider-row");
  const newRow = fresh.querySelector(":scope > .pnb-slider-row");
  if (!oldRow || !newRow || oldRow.dataset.role !== newRow.dataset.role) {
    root.replaceChildren(fresh);
    return;
  }
  const oldInput = oldRow.querySelector("input"), newInput = newRow.querySelector("input");
  oldInput.max = newInput.max;
  if (oldInput.value !== newInput.value) oldInput.value = newInput.value;
  for (const kid of [...top.childNodes]) if (kid !== oldRow) kid.remove();
  let beforeRow = true;
  for (const kid of [...fresh.childNodes]) {
    if (kid === newRow) { beforeRow = false; continue; }
    if (beforeRow) top.insertBefore(kid, oldRow); else top.append(kid);
  }
  for (const attr of [...top.attributes]) if (!fresh.hasAttribute(attr.name)) top.removeAttribute(attr.name);
  for (const attr of [...fresh.attributes]) top.setAttribute(attr.name, attr.value);
}

// -- the Dashboard -------------------------------------------------------------------------
// Each Dashboard's view-only choices (not synced: they are the reader's, not the program's).
const VIEW_CHOICES = new WeakMap();
const viewChoices = (model) => {
  if (!VIEW_CHOICES.has(model)) VIEW_CHOICES.set(model, { full: false, folds: new Map(), views: new Set() });
  return VIEW_CHOICES.get(model);
};

function drawDashboard(model) {
  const palette = model.get("palette");
  const blocks = model.get("blocks");
  const selected = model.get("selected_block");
  const run = model.get("run") || {};
  const select = (i) => { model.set("selected_block", i); model.save_changes(); };
  const tree = h("div", { class: "pnb-pane pnb-blocks" }, h("div", { class: "pnb-pane-title" }, "blocks"),
    blockTree(blocks, -1, selected, select));
  const g = (model.get("graphs") || {})[String(selected)];
  // A click on a folded node ("3 x 16 ops") opens it: Python redraws with expand=[its id].
  const expanded = model.get("expanded") || {};
  const opened = expanded[String(selected)] || [];
  const setOpened = (ids) => {
    model.set("expanded", { ...expanded, [String(selected)]: ids }); model.save_changes(); };
  const refold = opened.length ? h("button", { class: "pnb-btn", "data-action": "refold",
    onclick: () => setOpened([]) }, `fold again (${opened.length} opened)`) : null;
  // The graph opens fitted, whole, to the pane (wheel: zoom, drag: pan, "fit" on hover);
  // "actual size" shows it unscaled in a scrolling box; the corner handle resizes the box.
  const root_state = viewChoices(model), full = root_state.full;
  const sizeBtn = h("button", { class: "pnb-btn", "data-action": "graph-size",
    onclick: () => { root_state.full = !full; root_state.views.forEach((draw) => draw()); } },
    full ? "fit in the pane" : "actual size");
  const graph = h("div", { class: "pnb-pane pnb-graph", "data-block": selected, "data-opened": opened.length,
                           "data-size": full ? "full" : "fit" },
    h("div", { class: "pnb-pane-title" }, `block ${selected}: dataflow `, sizeBtn, refold),
    graphView(g, (id) => { if (!opened.includes(id)) setOpened([...opened, id]); }, full,
      { values: model.get("op_values") || {}, chosen: root_state.op || null,
        choose: (key) => { root_state.op = key; root_state.views.forEach((draw) => draw()); } }));
  const names = model.get("names") || {};
  const changes = model.get("changes") || [];
  const scopes = model.get("scopes");
  const declared = model.get("declared") || [];
  return h("div", { class: "pnb pnb-w pnb-dashboard", "data-widget": "dashboard",
                    "data-runs": model.get("runs"), "data-version": model.get("program_version") },
    h("div", { class: "pnb-header" }, h("b", {}, "paddle_nb dashboard"),
      h("span", { class: "pnb-muted", "data-run": model.get("runs") },
        ` · ${run.label || ""}` + (run.ops ? ` · ${run.ops} ops · ${run.place} · ${(run.seconds * 1000).toFixed(2)} ms` : "")
        + (run.failed ? " · FAILED" : "")),
      legend(palette)),
    messageLine(model),
    h("div", { class: "pnb-top" }, tree, graph),
    h("div", { class: "pnb-pane pnb-scopes" },
      h("div", { class: "pnb-pane-title" }, "scope hierarchy of the last run"),
      scopes && scopes.vars ? scopeTree(scopes, palette, { changes: true, folds: viewChoices(model).folds, names }) : null,
      declaredGroups(declared, palette, { ...names.inner, ...names.outer }),
      run.recorded === false ? h("div", { class: "pnb-muted pnb-changes" },
        "what each run changes is marked from the next run on") : changeList(changes, names)));
}

// Names grouped as declaredGroups draws them: by kind (in viz.trees.KIND_ORDER), each
// group's names in natural order (_2 before _10).
const KIND_ORDER = ["data", "parameter", "persistable", "temp", "grad", "scopes", "other"];
function byKind(names, kinds) {
  const groups = new Map(KIND_ORDER.map((k) => [k, []]));
  for (const n of names) {
    const k = kinds[n] || "other";
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(n);
  }
  const natural = new Intl.Collator(undefined, { numeric: true });
  return [...groups].filter(([, ns]) => ns.length)
    .map(([kind, ns]) => ({ kind, count: ns.length, names: ns.sort(natural.compare) }));
}

// The program's variables that no scope holds, one folded group per kind ("temp (212)"):
// a count to read at a glance, the names (sorted naturally: _2 before _10) on a click.
function declaredGroups(groups, palette, names) {
  if (!groups.length) return null;
  const total = groups.reduce((a, g) => a + g.count, 0);
  return h("div", { class: "pnb-declared", "data-declared": total },
    h("span", { class: "pnb-muted" }, `declared in the program, in no scope (${total}): `),
    groups.map((g) => h("details", { class: "pnb-kind", "data-kind": g.kind, "data-count": g.count,
                                     open: g.count <= 6 && total <= 24 },
      h("summary", {}, stateChip("declared", palette), ` ${g.kind} `, h("b", {}, g.count)),
      h("div", { class: "pnb-kind-names" }, g.names.map((n) =>
        h("span", { class: "pnb-declared-var", "data-var": n, "data-state": "declared" }, userName(n, names)))))));
}

function blockTree(blocks, parent, selected, select) {
  const kids = blocks.filter((b) => b.parent === parent);
  if (!kids.length) return null;
  return h("ul", { class: "pnb-block-tree" }, kids.map((b) => h("li", {},
    h("div", { class: "pnb-block-item" + (b.idx === selected ? " pnb-selected" : ""),
               "data-block": b.idx, "data-selected": b.idx === selected ? "true" : null,
               "data-change": b.change || null, onclick: () => select(b.idx),
               title: b.summary || b.op_types.join(", ") },
      `block ${b.idx}`, h("span", { class: "pnb-muted" }, ` ${b.ops} ops · ${b.vars} vars`),
      b.change ? h("span", { class: "pnb-change" }, b.change) : null),
    blockTree(blocks, b.idx, selected, select))));
}

// The graph fitted whole in its box, with pan and zoom (pnbPanZoom from static/panzoom.js,
// which precedes this file in the widget's module); "actual size" (full) draws it unscaled
// in a scrolling box instead. A click on a folded node opens it (openFold).
function graphView(g, openFold, full, ops) {
  if (!g) return h("div", { class: "pnb-muted" }, "no graph");
  const note = g.note ? h("div", { class: "pnb-muted" }, g.note) : null;
  if (g.svg) {
    const box = h("div", { class: "pnb-svg", "data-graph": "svg" });
    box.innerHTML = g.svg;
    const svg = box.querySelector("svg");
    if (svg && full) Object.assign(svg.style, { maxWidth: "none", maxHeight: "none", margin: "0" });
    if (openFold) box.querySelectorAll("g[data-fold-id]").forEach((el) => {
      el.style.cursor = "pointer";
      el.addEventListener("click", () => openFold(el.getAttribute("data-fold-id")));
    });
    const detail = ops ? opDetails(box, ops) : null;
    if (typeof pnbPanZoom === "function") pnbPanZoom(box, { openFold, opsWired: Boolean(ops) });
    return h("div", {}, box, detail, note);
  }
  return h("div", {}, h("div", { class: "pnb-hint", "data-hint": "graphviz" }, g.hint),
           h("pre", { class: "pnb-dot", "data-graph": "dot" }, g.dot), note);
}

// After a run, each op's tooltip adds its inputs' and outputs' values (ops.values, "block/op"
// -> lines, from the kernel's viz/values.py), and a click on an op shows the whole tooltip
// (slots, attributes, values, the line that built it) in a panel under the graph, which stays
// open across redraws (ops.chosen, a view-only choice) and shows the next run's values.
const XLINK = "http://www.w3.org/1999/xlink";
// The values go where pd.viz.graph(program, scope=...) puts them: after the attributes,
// before the line that built the op.
function withValues(tip, said) {
  const at = tip.lastIndexOf("\nbuilt at ");
  return at < 0 ? `${tip}\n${said}` : `${tip.slice(0, at)}\n${said}${tip.slice(at)}`;
}
function opDetails(box, ops) {
  let shown = null;
  box.querySelectorAll("g.node[data-op]").forEach((el) => {
    const key = `${el.getAttribute("data-block")}/${el.getAttribute("data-op")}`;
    const a = el.querySelector("a");
    const said = ops.values[key];
    if (a && said) a.setAttributeNS(XLINK, "xlink:title", withValues(a.getAttributeNS(XLINK, "title"), said));
    if (said) el.setAttribute("data-values", "true");
    el.style.cursor = "pointer";
    el.addEventListener("click", () => ops.choose(ops.chosen === key ? null : key));
    if (key === ops.chosen) shown = a ? a.getAttributeNS(XLINK, "title") : said || "";
  });
  if (shown === null) return h("div", { class: "pnb-muted pnb-op-hint" },
    Object.keys(ops.values).length ? "hover or click an op: its attributes and its variables' values after the last run"
      : "hover or click an op: its attributes (values show after a run)");
  return h("div", { class: "pnb-op-detail", "data-op-detail": ops.chosen },
    h("button", { class: "pnb-btn", "data-action": "close-op", onclick: () => ops.choose(null) }, "×"),
    h("pre", {}, shown));
}

function changeList(changes, names) {
  if (!changes.length) return h("div", { class: "pnb-muted pnb-changes" }, "nothing changed since the previous run");
  const shown = changes.slice(0, 40);
  return h("details", { class: "pnb-changes", open: true },
    h("summary", {}, `${changes.length} change(s) since the previous run`),
    h("ul", {}, shown.map((c) => h("li", { "data-var": c.name, "data-change": c.what },
      h("span", { class: "pnb-change" }, c.what), " ", h("span", { class: "pnb-name" }, userName(c.name, scopeNames(names, c.path.split("/").length - 1))),
      h("span", { class: "pnb-muted" }, ` in ${c.path}`),
      c.before || c.after ? h("span", { class: "pnb-said" }, ": ", h("span", { class: "pnb-before" }, c.before || "—"),
        " → ", h("span", { class: "pnb-after" }, c.after || "—")) : null))),
    changes.length > shown.length ? h("div", { class: "pnb-muted" }, `… and ${changes.length - shown.length} more`) : null);
}

// -- the run replay ------------------------------------------------------------------------
// Replays frames[0..p] over `before`, exactly as RunReplay.tree_at does in Python.
function replayTree(model, p) {
  const cells = new Map();
  for (const [sid, name, state, nbytes, place] of model.get("before")) cells.set(`${sid}/${name}`, [state, nbytes, place]);
  const frames = model.get("frames");
  for (let i = 0; i <= p && i < frames.length; i++)
    for (const [sid, name, state, nbytes, place] of frames[i]) cells.set(`${sid}/${name}`, [state, nbytes, place]);
  const order = model.get("order"), meta = model.get("meta");
  const nodes = new Map();
  const live = model.get("scopes").filter((s) => s.born !== null && s.born <= p).sort((a, b) => a.id - b.id);
  for (const s of live) {
    const vars = [];
    for (const name of order[String(s.id)] || []) {
      const cell = cells.get(`${s.id}/${name}`);
      if (!cell) continue;
      const [shape, dtype, holder] = meta[`${s.id}/${name}`] || [null, null, null];
      vars.push({ name, state: cell[0], nbytes: cell[1], place: cell[2], dtype, holder,
                  shape: cell[0] === "allocated" ? shape : null });
    }
    nodes.set(s.id, { id: s.id, label: s.label, parent: s.parent, vars, kids: [],
                      destroyed: s.dies !== null && s.dies <= p });
  }
  const roots = [];
  for (const n of nodes.values()) (nodes.has(n.parent) ? nodes.get(n.parent).kids : roots).push(n);
  const held = new Set([...cells.keys()].map((k) => k.slice(k.indexOf("/") + 1)));
  const declared = model.get("program_vars").filter((n) => !held.has(n));
  return { roots, declared };
}

function drawReplay(model) {
  const palette = model.get("palette");
  const positions = model.get("positions");
  const p = Math.max(0, Math.min(model.get("position"), positions.length - 1));
  const set = (i) => { model.set("position", i); model.save_changes(); };
  const op = model.get("ops")[p];
  const { roots, declared } = replayTree(model, p);
  const labels = Object.fromEntries(model.get("scopes").map((s) => [s.id, s.label]));
  const ref = (r, was) => h("span", { class: "pnb-ref", "data-var": r.name, "data-scope": r.scope,
                                       "data-state": r.state },
    h("span", { class: "pnb-name" }, r.name), h("span", { class: "pnb-muted" }, ` in ${labels[r.scope] || "no scope"} `),
    was && r.was !== r.state ? [stateChip(r.was, palette), "→"] : null, stateChip(r.state, palette));
  const card = op ? h("div", { class: "pnb-op", "data-op": op.op, "data-block": op.block },
      h("div", {}, h("b", {}, op.type), h("span", { class: "pnb-muted" },
        ` · op ${op.op} of the run · block ${op.block} #${op.index} · ran in ${labels[op.scope] || op.scope} (scope ${op.scope})`
        + (op.skipped ? " · skipped (already initialized)" : "")
        + ` · ${(op.seconds * 1e6).toFixed(0)} µs`)),
      op.inside ? h("div", { class: "pnb-inside" }, `It runs its sub-block: ops ${op.inside[0]}–${op.inside[1]} `
        + "run inside it, each in a step scope; what it writes is complete when the last of them ends.") : null,
      h("div", { class: "pnb-io" }, h("span", { class: "pnb-muted" }, "read: "), op.reads.map((r) => ref(r, true))),
      h("div", { class: "pnb-io" }, h("span", { class: "pnb-muted" }, "wrote: "), op.writes.map((r) => ref(r, true))),
      op.changes.length ? h("ul", { class: "pnb-events" }, op.changes.map((c) => h("li", {}, c))) : null)
    : h("div", { class: "pnb-op", "data-op": p === 0 ? "start" : "end" }, positions[p].title);
  return h("div", { class: "pnb pnb-w pnb-replay", "data-widget": "replay", "data-position": p },
    h("div", { class: "pnb-header" }, h("b", {}, "run replay"),
      h("span", { class: "pnb-muted" }, ` · position ${p} of ${positions.length - 1}: ${positions[p].title}`),
      legend(palette)),
    messageLine(model),
    slider("op", p, positions.length - 1, set, { "data-role": "position" }),
    card,
    h("div", { class: "pnb-pane" }, h("div", { class: "pnb-pane-title" }, "scope hierarchy right after it"),
      roots.map((r) => scopeTree(r, palette, { folds: viewChoices(model).folds })),
      declaredGroups(byKind(declared, model.get("var_kinds") || {}), palette)));
}

// -- the RNN explorer ----------------------------------------------------------------------
function drawRNN(model) {
  const palette = model.get("palette");
  const rnns = model.get("rnns") || [];
  const head = h("div", { class: "pnb-header" }, h("b", {}, "RNN step scopes"), legend(palette));
  if (!rnns.length) return h("div", { class: "pnb pnb-w pnb-rnn", "data-widget": "rnn" }, head, messageLine(model));
  const r = Math.max(0, Math.min(model.get("rnn"), rnns.length - 1));
  const steps = rnns[r].steps;
  const t = Math.max(0, Math.min(model.get("step"), steps.length - 1));
  const step = steps[t];
  const setStep = (i) => { model.set("step", i); model.save_changes(); };
  // the user's name for a variable of a block (o1 for static_rnn_0.tmp_1), the program's on
  // hover: step variables are the step block's, initial states and sequences the outer one's
  const names = model.get("names") || {};
  const outer = rnns[r].op.block, inner = rnns[r].sub_block ?? outer;
  const named = (n, block = inner) => {
    const user = names[`${block}/${n}`];
    return user ? h("span", { class: "pnb-user-name", title: n, "data-internal": n }, user) : n;
  };
  const choose = rnns.length > 1 ? h("select", { class: "pnb-select", onchange: (e) => {
      model.set("rnn", Number(e.target.value)); model.set("step", 0); model.save_changes(); } },
    rnns.map((x, i) => h("option", { value: i, selected: i === r }, x.title))) : h("span", { class: "pnb-muted" }, rnns[r].title);
  const strip = h("div", { class: "pnb-steps" }, steps.map((s) => h("span", {
      class: "pnb-step" + (s.t === t ? " pnb-selected" : ""), "data-step": s.t, "data-scope": s.scope,
      "data-selected": s.t === t ? "true" : null, onclick: () => setStep(s.t) }, s.label)));
  const table = h("table", { class: "pnb-vars" },
    h("tr", {}, ["name", "role", "state", "shape", "bytes", "value"].map((c) => h("th", {}, c))),
    step.vars.map((v) => h("tr", { "data-var": v.name, "data-state": v.state, "data-scope": step.scope,
                                   "data-step": t, "data-role": v.role },
      h("td", { class: "pnb-name" }, named(v.name)), h("td", {}, h("span", { class: `pnb-role pnb-role-${v.role}` }, v.role)),
      h("td", {}, stateChip(v.state, palette)), h("td", {}, fmtShape(v.shape)),
      h("td", { class: "pnb-num" }, v.state === "allocated" ? fmtBytes(v.nbytes) : ""),
      h("td", {}, valueTable(v.value)))));
  const links = step.links.map((l) => h("div", { class: "pnb-link", "data-link": l.kind, "data-var": l.name,
      "data-step": t, "data-equal": l.equal === null ? "unknown" : String(l.equal) },
    h("div", { class: "pnb-link-side" }, h("div", {}, h("span", { class: "pnb-name" }, named(l.name)),
      h("span", { class: "pnb-muted" }, ` at step ${t}`)), valueTable(l.value)),
    h("div", { class: "pnb-link-eq", title: l.equal === null ? "values not recorded" : "" },
      l.equal === true ? "=" : l.equal === false ? "≠" : "?"),
    h("div", { class: "pnb-link-side" }, h("div", {}, h("span", { class: "pnb-name" },
      named(l.source, l.kind === "memory" && l.source_step !== null ? inner : outer)),
      h("span", { class: "pnb-muted" }, l.kind === "input" ? " (outer sequence, row " + t + ")"
        : l.source_step === null ? " (initial state)" : ` at step ${l.source_step}`)),
      valueTable(l.source_value))));
  return h("div", { class: "pnb pnb-w pnb-rnn", "data-widget": "rnn", "data-step": t, "data-scope": step.scope },
    head, messageLine(model), h("div", {}, choose),
    slider("time step", t, steps.length - 1, setStep, { "data-role": "step" }), strip,
    h("div", { class: "pnb-pane" }, h("div", { class: "pnb-pane-title" },
      `${step.label} (scope ${step.scope}): its variables`), table),
    h("div", { class: "pnb-pane" }, h("div", { class: "pnb-pane-title" },
      "where step " + t + "'s values come from"), links));
}

// -- the memory timeline -------------------------------------------------------------------
function drawTimeline(model) {
  const positions = model.get("positions");
  const series = model.get("series");
  const marks = model.get("marks");
  const box = h("div", { class: "pnb-svg" });
  box.innerHTML = model.get("svg");
  const detail = h("div", { class: "pnb-detail", "data-detail": "" }, "point at a column to see what happened there");
  const show = (p) => {
    const here = marks.filter((m) => m.pos === p);
    const use = Object.entries(series).map(([place, v]) => `${place} ${fmtBytes(v[p])}`).join(", ");
    detail.replaceChildren(h("b", {}, positions[p].title), ` · in use: ${use}`,
      here.length ? h("ul", { class: "pnb-events" }, here.map((m) => h("li", { "data-var": m.var,
        "data-state": m.kind === "free" ? "freed" : "allocated" }, `${m.kind} ${m.var} (${fmtBytes(m.nbytes)}, ${m.place})`))) : null);
    detail.setAttribute("data-pos", p);
  };
  box.querySelectorAll("[data-pos]").forEach((el) => el.addEventListener("mouseenter", () => show(Number(el.dataset.pos))));
  box.querySelectorAll("[data-pos]").forEach((el) => el.addEventListener("click", () => {
    model.set("position", Number(el.dataset.pos)); model.save_changes(); }));
  const peaks = Object.entries(model.get("peak") || {}).map(([place, pk]) =>
    h("span", { class: "pnb-peak", "data-place": place }, `${place}: peak ${fmtBytes(pk.nbytes)} at ${positions[pk.pos].title}`));
  const root = h("div", { class: "pnb pnb-w pnb-timeline-w", "data-widget": "timeline" },
    h("div", { class: "pnb-header" }, h("b", {}, "memory in use per place"), " ",
      h("span", { class: "pnb-muted" }, "▲ allocation  ▼ release  ◆ rewrite · "), peaks),
    messageLine(model), box, detail);
  if (model.get("position") >= 0) show(model.get("position"));
  return root;
}

// -- entry point ---------------------------------------------------------------------------
const DRAW = { dashboard: drawDashboard, replay: drawReplay, rnn: drawRNN, timeline: drawTimeline };

function render({ model, el }) {
  const style = h("style", {}, model.get("theme_css") || "");
  const root = h("div", {});
  el.replaceChildren(style, root);
  // Keys pressed on the widget's controls (arrows on a slider) are the widget's: the notebook
  // around it would otherwise take them as its own shortcuts and cancel them.
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  const keepKeys = (e) => { if (e.target.matches("input, select, button")) e.stopPropagation(); };
  el.addEventListener("keydown", keepKeys);
  const draw = () => {
    const fn = DRAW[model.get("kind")];
    redraw(root, () => (fn ? fn(model) : h("div", {}, `unknown widget kind ${model.get("kind")}`)));
  };
  draw();
  // Any state change redraws: the views are small, and one path keeps them in step. A
  // reader's view-only choice (the graph's size) redraws every view of the model too.
  const onChange = () => draw();
  model.on("change", onChange);
  viewChoices(model).views.add(draw);
  return () => {
    model.off("change", onChange); el.removeEventListener("keydown", keepKeys);
    viewChoices(model).views.delete(draw);
  };
}

export default { render };
