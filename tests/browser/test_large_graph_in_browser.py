"""A large program's graph in a real browser: ResNet-18 drawn readably, opened by a click.

The Dashboard's front end (``static/widgets.js``) is loaded into an offline headless
Chromium page with a small stand-in for anywidget's model (``get``/``set``/
``save_changes``/``on``), its state taken from a Python Dashboard over the ResNet-18
inference program PaddlePaddle 2.6.2 saved (tests/fixtures/paddle26/draw). The test checks
that the default graph reads at a glance (compact: parameters in the labels of their ops,
intermediates as named edges, repeated blocks folded into nodes labelled "N x ...": a
column that fits a screen's width), then clicks a folded node, hands the state the page
saved back to the Python Dashboard (as the kernel would) and checks the redrawn graph has
it open. The rich display (``pd.viz.html_of``, saved as a static page) is checked fitted to
its box, zoomed by the wheel, panned by a drag and fitted again by its button.
Screenshots go to build/screenshots/. No JupyterLab is needed; without chromium or
playwright the test skips.
"""
import json
import os
import pathlib
import shutil

import pytest

from tests.browser import CHROMIUM, ROOT, offline_page, screenshot_dir

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(120)]

FIXTURE = ROOT / "tests" / "fixtures" / "paddle26" / "draw" / "resnet18.pdmodel"
WIDGETS_JS = ROOT / "paddle_nb" / "viz" / "static" / "widgets.js"
MAX_NODES = 60

# anywidget's model, reduced to what widgets.js uses; saved changes are kept for the test.
FAKE_MODEL = """
window.pnbSaved = [];
window.pnbModel = (state) => {
  const listeners = [];
  return {
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; },
    save_changes: () => {
      window.pnbSaved.push(JSON.parse(JSON.stringify(state)));
      listeners.forEach((f) => f());
    },
    on: (_, f) => listeners.push(f), off: () => {},
    replace: (fresh) => { Object.assign(state, fresh); listeners.forEach((f) => f()); },
  };
};
"""


def require_chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (make sysdeps, or: sudo apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; no browser download)")
    pytest.importorskip("anywidget")
    if shutil.which("dot") is None:
        pytest.skip("graphviz's `dot` is missing: the graph would be DOT text, not a picture")


def dashboard_state():
    from paddle_nb.io import load_program
    from paddle_nb.viz import Dashboard
    import paddle_nb as pd
    program = load_program(str(FIXTURE))
    dash = Dashboard(program, pd.Scope(), pd.Executor())
    return dash, dash.state()


def render(page, state):
    """Load widgets.js as a module and draw ``state`` with it into #root."""
    module = WIDGETS_JS.read_text().replace("export default { render };",
                                            "window.pnbRender = render;")
    page.set_content("<html><body><div id='root'></div></body></html>")
    page.add_script_tag(content=FAKE_MODEL)
    page.add_script_tag(content=module, type="module")
    page.wait_for_function("window.pnbRender !== undefined")
    page.evaluate("(s) => { window.model = window.pnbModel(s); "
                  "window.pnbRender({ model: window.model, "
                  "el: document.getElementById('root') }); }",
                  state)
    page.wait_for_selector("[data-widget='dashboard'] svg")


def graph_facts(page):
    return page.evaluate("""() => {
      const svg = document.querySelector(".pnb-graph svg");
      const box = svg.getBoundingClientRect();
      const folds = [...svg.querySelectorAll("g.node[data-fold-id]")].map((g) => ({
        id: g.getAttribute("data-fold-id"),
        text: [...g.querySelectorAll("text")].map((t) => t.textContent).join("\\n") }));
      return { nodes: svg.querySelectorAll("g.node").length, folds,
               vars: svg.querySelectorAll("g.node.var").length,
               width: box.width, height: box.height,
               svgWidth: parseFloat(svg.getAttribute("width")) };
    }""")


def test_resnet18_graph_reads_at_a_glance_and_opens_on_click(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright
    dash, state = dashboard_state()
    shots = screenshot_dir()
    with sync_playwright() as pw, offline_page(pw, viewport=(1300, 1400)) as (page, blocked):
        render(page, json.loads(json.dumps(state)))
        facts = graph_facts(page)
        page.screenshot(path=str(shots / "resnet18_graph.png"), full_page=True)
        assert facts["nodes"] <= 20, facts               # compact: 13 nodes, no variable
        assert facts["vars"] == 0                        # parameters in labels, temps as edges
        labels = {f["id"]: f["text"] for f in facts["folds"]}
        assert labels["repeat-b0-5"].startswith("2 x 7 ops")
        assert labels["repeat-b0-19"].startswith("3 x 16 ops")
        assert facts["height"] > facts["width"]          # a column, not a wall
        assert facts["svgWidth"] < 1300                  # no page-wide row of parameters

        page.click("g.node[data-fold-id='repeat-b0-19']")
        saved = page.evaluate("window.pnbSaved")
        assert saved and saved[-1]["expanded"] == {"0": ["repeat-b0-19"]}
        dash.expanded = saved[-1]["expanded"]            # what the kernel does with the change
        page.evaluate("(s) => window.model.replace(s)", json.loads(json.dumps(dash.state())))
        page.wait_for_selector("g.node[data-op='19']")
        opened = graph_facts(page)
        page.screenshot(path=str(shots / "resnet18_graph_opened.png"), full_page=True)
        assert "repeat-b0-19" not in {f["id"] for f in opened["folds"]}
        assert opened["nodes"] > facts["nodes"]
        assert page.locator("[data-action='refold']").count() == 1
        assert blocked == [], f"the page tried to reach other machines: {blocked}"
    dash.close()


# -- the rich display (and a static HTML export of it): fitted, zoomable, offline -----------------
BOX_FACTS = """() => {
  const box = document.querySelector(".pnb-graphbox");
  const svg = box.querySelector("svg");
  const r = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
  const inside = [...svg.querySelectorAll("g.node")].every((g) => {
    const n = g.getBoundingClientRect();
    return n.left >= r.left - 1 && n.right <= r.right + 1 && n.top >= r.top - 1
      && n.bottom <= r.bottom + 1; });
  const vb = svg.viewBox.baseVal;
  const text = svg.querySelector("g.node.op text").getBoundingClientRect();
  return { viewBox: [vb.x, vb.y, vb.width, vb.height], zoom: box.getAttribute("data-zoom"),
           svg: [r.left, r.top, r.width, r.height], box: [b.left, b.top, b.width, b.height],
           inside, textHeight: text.height, nodes: svg.querySelectorAll("g.node").length,
           viewport: [window.innerWidth, window.innerHeight] };
}"""


# the texts drawn (partly) outside their node's shape: a label overflowing its box
TEXT_OUTSIDE_SHAPES = """() => [...document.querySelectorAll("g.node")].flatMap((g) => {
  const shape = g.querySelector("polygon, ellipse, path");
  if (!shape) return [];
  const s = shape.getBoundingClientRect();
  return [...g.querySelectorAll("text")].filter((t) => { const r = t.getBoundingClientRect();
    return r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1
      || r.bottom > s.bottom + 1; }).map((t) => `${g.id}: ${t.textContent}`); })"""


def resnet_page(tmp_path):
    """The HTML pd.viz.html_of gives for ResNet-18, as a static page (an HTML export)."""
    from paddle_nb.io import load_program
    from paddle_nb.viz import html_of
    path = tmp_path / "resnet18.html"
    path.write_text("<!doctype html><html><head><meta charset='utf-8'></head><body>"
                    + html_of(load_program(str(FIXTURE))) + "</body></html>")
    return path


def test_resnet18_rich_display_fits_its_box_and_pans_and_zooms(tmp_path):
    """The whole graph is in view at a readable size, the wheel zooms (the viewBox shrinks
    around the pointer), a drag pans, "fit" brings the whole graph back, a click on a folded
    node says how to open it; nothing is fetched."""
    require_chromium()
    from playwright.sync_api import sync_playwright
    shots = screenshot_dir()
    with sync_playwright() as pw, offline_page(pw, viewport=(1300, 900)) as (page, blocked):
        page.goto(resnet_page(tmp_path).as_uri())
        page.wait_for_selector(".pnb-graphbox[data-panzoom='on']")
        fitted = page.evaluate(BOX_FACTS)
        page.screenshot(path=str(shots / "resnet18_display_fitted.png"))
        assert fitted["inside"] and fitted["zoom"] == "1.000", fitted
        assert fitted["svg"][3] <= 0.8 * fitted["viewport"][1] + 1      # one screen
        assert fitted["svg"][2] <= fitted["box"][2]
        assert fitted["textHeight"] >= 8, fitted                        # readable
        assert page.evaluate(TEXT_OUTSIDE_SHAPES) == []                 # labels fit their boxes

        svg = page.locator(".pnb-graphbox svg")
        svg.hover()
        page.mouse.wheel(0, -400)
        zoomed = page.evaluate(BOX_FACTS)
        assert float(zoomed["zoom"]) > 1.5 and zoomed["viewBox"][2] < fitted["viewBox"][2]
        assert zoomed["textHeight"] > fitted["textHeight"] * 1.5
        page.screenshot(path=str(shots / "resnet18_display_zoomed.png"))

        x, y, w, h = zoomed["svg"]
        page.mouse.move(x + w / 2, y + h / 2)
        page.mouse.down()
        page.mouse.move(x + w / 2 + 80, y + h / 2 + 120, steps=5)
        page.mouse.up()
        panned = page.evaluate(BOX_FACTS)
        assert panned["viewBox"][0] < zoomed["viewBox"][0]
        assert panned["viewBox"][1] < zoomed["viewBox"][1]
        assert panned["viewBox"][2] == zoomed["viewBox"][2]

        page.click(".pnb-graphbox [data-action='fit']")
        back = page.evaluate(BOX_FACTS)
        assert back["viewBox"] == fitted["viewBox"] and back["zoom"] == "1.000" and back["inside"]

        page.click("g.node[data-fold-id='repeat-b0-19']")
        message = page.locator(".pnb-graph-msg").text_content()
        assert 'expand=["repeat-b0-19"]' in message and "Dashboard" in message
        page.screenshot(path=str(shots / "resnet18_display_fold_clicked.png"))
        assert blocked == [], f"the page tried to reach other machines: {blocked}"


def test_an_untrusted_view_without_script_still_shows_the_whole_graph(tmp_path):
    """Scripts off (an untrusted or static viewer): the inline size alone fits the graph."""
    require_chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw, offline_page(pw, viewport=(1300, 900)) as (page, blocked):
        page.context.close()
        context = page.context.browser.new_context(viewport={"width": 1300, "height": 900},
                                                   java_script_enabled=False)
        quiet = context.new_page()
        quiet.goto(resnet_page(tmp_path).as_uri())
        assert quiet.locator("[data-action='fit']").count() == 0       # no dead buttons
        box = quiet.locator(".pnb-graphbox svg").bounding_box()
        assert box["height"] <= 0.8 * 900 + 1 and box["width"] <= 1300
        context.close()


def test_screenshot_folder_is_under_build():
    assert pathlib.Path(screenshot_dir()).is_relative_to(ROOT / "build")
