// Pan and zoom for paddle_nb's graph pictures: one small script, no library, no network.
//
// A graph picture is an <svg> laid out by Graphviz inside a box (class "pnb-graphbox").
// Its inline style already fits it to the box (max-width 100%, max-height 80vh), so
// without this script (an untrusted notebook, GitHub) the whole graph still shows. With
// it, the wheel zooms around the pointer, a drag pans, and a toolbar offers "fit" (back
// to the whole graph), "+" and "-". Zooming and panning only change the svg's viewBox;
// the box keeps its size. The box says how far it is zoomed in data-zoom (1 = fitted).
//
// A click on a folded node ("3 x 16 ops") calls options.openFold(id) where a kernel can
// redraw (the Dashboard); elsewhere it says how to open it in the message line, and a click
// on an op writes its details there (options.opsWired: the caller shows them itself).
// The same function serves the rich display (an inline script, run for every box not yet
// set up) and the Dashboard's widget (call pnbPanZoom(box, {openFold}) after drawing).
function pnbPanZoom(box, options) {
  options = options || {};
  if (!box || box.getAttribute("data-panzoom")) return;
  const svg = box.querySelector("svg");
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return;
  box.setAttribute("data-panzoom", "on");
  // Zooming in shows more than the fitted drawing's own width: the svg takes the box's whole
  // width at its fitted height (the drawing stays centred in it: preserveAspectRatio).
  const widen = () => {
    const height = svg.getBoundingClientRect().height;
    if (!height || svg.getAttribute("data-widened")) return;
    svg.setAttribute("data-widened", "true");
    Object.assign(svg.style, { width: "100%", maxWidth: "none", height: `${height}px`,
                               maxHeight: "none" });
  };
  widen();
  svg.querySelectorAll("a").forEach((a) => { a.style.textDecoration = "none"; });
  const base = svg.viewBox.baseVal;
  const home = [base.x, base.y, base.width, base.height];
  let view = home.slice();
  const show = () => {
    svg.setAttribute("viewBox", view.map((v) => v.toFixed(2)).join(" "));
    box.setAttribute("data-zoom", (home[2] / view[2]).toFixed(3));
  };
  const toUser = (x, y) => {            // a point on the screen in the svg's coordinates
    const m = svg.getScreenCTM();
    return m ? new DOMPoint(x, y).matrixTransform(m.inverse()) : { x: view[0], y: view[1] };
  };
  const zoom = (factor, x, y) => {      // factor > 1 zooms in, around the screen point (x, y)
    const r = svg.getBoundingClientRect();
    const p = toUser(x === undefined ? r.left + r.width / 2 : x,
                     y === undefined ? r.top + r.height / 2 : y);
    const k = Math.min(Math.max(view[2] / factor, home[2] / 40), home[2] * 4) / view[2];
    view = [p.x - (p.x - view[0]) * k, p.y - (p.y - view[1]) * k, view[2] * k, view[3] * k];
    show();
  };
  const fit = () => { view = home.slice(); show(); };

  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoom(Math.exp(-e.deltaY * 0.0015), e.clientX, e.clientY);
  }, { passive: false });

  let drag = null, moved = false;
  svg.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, view: view.slice() };
    moved = false;
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!moved && Math.hypot(dx, dy) < 4) return;
    if (!moved) { moved = true; svg.style.cursor = "grabbing"; svg.setPointerCapture(e.pointerId); }
    const m = svg.getScreenCTM();
    const scale = m ? m.a : 1;
    view = [drag.view[0] - dx / scale, drag.view[1] - dy / scale, view[2], view[3]];
    show();
  });
  const stop = () => { drag = null; svg.style.cursor = ""; };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  // A drag that ends on a node is not a click on it.
  svg.addEventListener("click", (e) => {
    if (moved) { e.stopPropagation(); e.preventDefault(); moved = false; }
  }, true);

  const message = box.querySelector(".pnb-graph-msg");
  svg.querySelectorAll("g[data-fold-id]").forEach((g) => {
    g.style.cursor = "pointer";
    if (options.openFold) return;       // the Dashboard wires its own click
    g.addEventListener("click", (e) => {
      e.preventDefault();
      const id = g.getAttribute("data-fold-id");
      if (message) {
        message.setAttribute("data-fold", id);
        message.textContent = `${id} holds ${g.getAttribute("data-ops") || "several"} ops. `
          + `To draw it open: pd.viz.graph(program, expand=["${id}"]); in pd.viz.Dashboard a click `
          + "opens it in place.";
      }
    });
  });

  // A click on an op writes what hovering it shows (its slots, attributes and, drawn with a
  // scope, its values after the run) in the message line: for a reader without a hover (a
  // touch screen) and for a picture of the page. The Dashboard shows it in its own panel.
  if (message && !options.opsWired) svg.querySelectorAll("g[data-op]").forEach((g) => {
    const a = g.querySelector("a");
    const tip = a && a.getAttributeNS("http://www.w3.org/1999/xlink", "title");
    if (!tip) return;
    g.style.cursor = "pointer";
    g.addEventListener("click", (e) => {
      e.preventDefault();
      message.setAttribute("data-op-detail", `${g.getAttribute("data-block")}/${g.getAttribute("data-op")}`);
      message.style.whiteSpace = "pre-wrap";
      message.textContent = tip;
    });
  });

  const tools = document.createElement("div");
  tools.className = "pnb-graph-tools";
  tools.setAttribute("style", "position:absolute;top:4px;right:4px;display:flex;gap:2px;z-index:1");
  const button = (text, title, action, run) => {
    const b = document.createElement("button");
    b.textContent = text;
    b.title = title;
    b.setAttribute("data-action", action);
    b.setAttribute("style", "font:12px sans-serif;min-width:26px;padding:1px 6px;cursor:pointer;"
                   + "border:1px solid #bbb;border-radius:3px;background:#fff;color:#222");
    b.addEventListener("click", (e) => { e.preventDefault(); e.stopPropagation(); run(); });
    tools.append(b);
  };
  button("fit", "show the whole graph", "fit", fit);
  button("+", "zoom in (or: the wheel)", "zoom-in", () => zoom(1.4));
  button("\u2212", "zoom out (or: the wheel)", "zoom-out", () => zoom(1 / 1.4));
  if (getComputedStyle(box).position === "static") box.style.position = "relative";
  box.prepend(tools);
  // The toolbar and the hint show while the pointer is over the graph: a picture taken of
  // the page (a stored notebook's PNG) shows the graph alone, no buttons that do nothing.
  const hint = message && message.getAttribute("data-hint");
  const hover = (on) => {
    tools.style.visibility = on ? "visible" : "hidden";
    if (message && hint && (on ? !message.textContent : message.textContent === hint)) {
      message.textContent = on ? hint : "";
    }
  };
  box.addEventListener("pointerenter", () => { widen(); hover(true); });
  box.addEventListener("pointerleave", () => hover(false));
  hover(false);
  show();
}
