"""Hovering an op after a run, in a real browser: its tooltip holds its variables' values.

Two views of one small network after a run recorded with values
(``exe.record_values = True``): the Dashboard's front end (``static/widgets.js`` with the
stand-in model of test_large_graph_in_browser), and the rich display of
``pd.viz.graph(program, scope=record)`` saved as a static page. The pointer is put on an op
and the tooltip of what is under it is read (a headless browser draws no tooltip, so the
test reads the ``xlink:title`` the browser would show). In the Dashboard a click on the op
shows the same text in a panel under the graph, and the scope pane shows the user's names
(``out``) with the program's on hover. Screenshots go to build/screenshots/.
"""
import json

import numpy as np
import pytest

from tests.browser import ROOT, offline_page, screenshot_dir
from tests.browser.test_large_graph_in_browser import render, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(120)]

# The tooltip of whatever is under the pointer: the nearest <a xlink:title> around it.
WIDGETS_CSS = ROOT / "paddle_nb" / "viz" / "static" / "widgets.css"
TOOLTIP_AT = """([x, y]) => {
  const a = document.elementFromPoint(x, y)?.closest("a");
  return a ? a.getAttributeNS("http://www.w3.org/1999/xlink", "title") : null;
}"""


def ran_network():
    """A small network, run once with values recorded: ``(program, record, scope, exe)``."""
    import paddle_nb as pd
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3])
        hidden = pd.layers.fc(x, 2)
        out = pd.layers.relu(hidden)
    scope, exe, records = pd.Scope(), pd.Executor(), []
    exe.run(startup, scope=scope)
    exe.subscribe(records.append)
    exe.record_values = True
    return prog, out, scope, exe, records


def hover_tooltip(page, selector):
    box = page.locator(selector).first.bounding_box()
    centre = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
    page.mouse.move(*centre)
    return page.evaluate(TOOLTIP_AT, centre)


def test_hovering_an_op_in_the_dashboard_after_a_run_shows_its_values():
    require_chromium()
    from playwright.sync_api import sync_playwright
    from paddle_nb.viz import Dashboard
    prog, out, scope, exe, _ = ran_network()
    dash = Dashboard(prog, scope, exe)
    exe.run(prog, feed={"x": np.array([[1., -2., 3.]], "float32")}, fetch_list=[out],
            scope=scope)
    shots = screenshot_dir()
    with sync_playwright() as pw, offline_page(pw, viewport=(1200, 900)) as (page, blocked):
        render(page, json.loads(json.dumps(dash.state())))
        page.add_style_tag(path=str(WIDGETS_CSS))        # as anywidget adds the widget's _css
        relu = "g.node[data-op-type='relu']"
        tip = hover_tooltip(page, relu)
        assert tip.startswith("#2 relu (forward)"), tip
        assert "values after the run:" in tip
        assert "in X hidden (fc_0.tmp_1): released after its last use" in tip
        assert "out Out out (relu_0.tmp_0): float32[1, 2] [" in tip
        assert tip.index("values after the run") < tip.index("built at")   # as pd.viz.graph
        assert page.locator(f"{relu}[data-values='true']").count() == 1

        page.click(relu)
        detail = page.locator("[data-op-detail='0/2'] pre")
        assert detail.text_content() == tip                 # the panel says what the tooltip does
        user = page.locator(".pnb-scopes .pnb-user-name[data-internal='relu_0.tmp_0']")
        assert user.first.text_content() == "out" and user.first.get_attribute("title") == \
            "relu_0.tmp_0"
        page.screenshot(path=str(shots / "dashboard_op_values.png"), full_page=True)
        page.click("[data-action='close-op']")
        assert page.locator("[data-op-detail]").count() == 0
        assert blocked == [], f"the page tried to reach other machines: {blocked}"
    dash.close()


def test_hovering_an_op_in_the_rich_display_of_a_run_shows_its_values(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright
    from paddle_nb.viz import graph
    from paddle_nb.viz.svg import graph_html
    prog, out, scope, exe, records = ran_network()
    exe.run(prog, feed={"x": np.array([[1., -2., 3.]], "float32")}, fetch_list=[out],
            scope=scope)
    path = tmp_path / "graph.html"
    path.write_text("<!doctype html><html><head><meta charset='utf-8'></head><body>"
                    + graph_html(graph(prog, scope=records[-1])) + "</body></html>")
    with sync_playwright() as pw, offline_page(pw, viewport=(900, 900)) as (page, blocked):
        page.goto(path.as_uri())
        page.wait_for_selector(".pnb-graphbox[data-panzoom='on']")
        tip = hover_tooltip(page, "g.node[data-op-type='mul']")
        assert "values after the run:" in tip and "in Y fc_0.w_0: float32[3, 2] [" in tip
        assert "in X x: released after its last use" in tip
        tip_text = tip
        param = hover_tooltip(page, "g.node[data-var='fc_0.b_0']")
        assert param.endswith("after the run: float32[2] [0, 0]"), param
        page.click("g.node[data-op-type='mul']")           # a click writes it under the graph
        message = page.locator(".pnb-graph-msg[data-op-detail='0/0']")
        assert message.text_content() == tip_text
        page.screenshot(path=str(screenshot_dir() / "graph_op_values.png"))
        assert blocked == []
