"""A large program's graph in a real browser: ResNet-18 drawn readably, opened by a click.

The Dashboard's front end (``static/widgets.js``) is loaded into an offline headless
Chromium page with a small stand-in for anywidget's model (``get``/``set``/
``save_changes``/``on``), its state taken from a Python Dashboard over the ResNet-18
inference program PaddlePaddle 2.6.2 saved (tests/fixtures/paddle26/draw). The test checks
that the default graph reads at a glance (at most about 60 nodes, repeated blocks folded
into nodes labelled "N x ...", each parameter drawn at the height of an op, no page-wide row
of parameters: the picture is taller than wide and fits a screen's width), then clicks a folded node, hands the state the page saved
back to the Python Dashboard (as the kernel would) and checks the redrawn graph has it open.
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
    save_changes: () => { window.pnbSaved.push(JSON.parse(JSON.stringify(state))); listeners.forEach((f) => f()); },
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
                  "window.pnbRender({ model: window.model, el: document.getElementById('root') }); }",
                  state)
    page.wait_for_selector("[data-widget='dashboard'] svg")


def graph_facts(page):
    return page.evaluate("""() => {
      const svg = document.querySelector(".pnb-graph svg");
      const box = svg.getBoundingClientRect();
      const folds = [...svg.querySelectorAll("g.node[data-fold-id]")].map((g) => ({
        id: g.getAttribute("data-fold-id"),
        text: [...g.querySelectorAll("text")].map((t) => t.textContent).join("\\n") }));
      // Each parameter's vertical centre, and whether an op sits at the same height.
      const centre = (g) => { const b = g.getBoundingClientRect(); return b.top + b.height / 2; };
      const ops = [...svg.querySelectorAll("g.node.op")].map(centre);
      const params = [...svg.querySelectorAll("g.node.parameter, g.node.persistable")];
      return { nodes: svg.querySelectorAll("g.node").length, folds, params: params.length,
               beside: params.filter((p) => ops.some((y) => Math.abs(y - centre(p)) < 2)).length,
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
        assert facts["nodes"] <= MAX_NODES, facts
        labels = {f["id"]: f["text"] for f in facts["folds"]}
        assert labels["repeat-b0-5"].startswith("2 x 7 ops")
        assert labels["repeat-b0-19"].startswith("3 x 16 ops")
        assert facts["params"] == facts["beside"] > 0    # each parameter beside an op
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


def test_screenshot_folder_is_under_build():
    assert pathlib.Path(screenshot_dir()).is_relative_to(ROOT / "build")
