"""The widgets in a real browser: JupyterLab runs tests/browser/widgets_fixture.ipynb.

The notebook builds an RNN, shows the Dashboard and the RNN explorer, runs the program
twice (appending an op in between), then shows a run replay, a memory timeline and a second
Dashboard made after three runs of another executor (it must say "run 3"). The
test runs every cell through JupyterLab's menu in headless Chromium, checks the pages'
data-* attributes, moves the RNN slider with the keyboard, checks that the kernel saw
the move, saves screenshots under build/screenshots/, and checks that no request left
the machine.
"""
import os
import re
import shutil

import pytest

from tests.browser import (ROOT, cdn_file, copy_fixture, jupyter_lab, offline_page,
                           require_browser, screenshot_dir)

try:                                    # require_browser() skips the tests without it
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    expect = sync_playwright = None

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

NOTEBOOK = "widgets_fixture.ipynb"
WAIT_MS = 60_000
# the text elements of an <svg> that the browser drew (partly) outside it
TEXT_OUTSIDE_SVG = """svg => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
        .filter(([, r]) => r.left < box.left - 1 || r.right > box.right + 1
                           || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        .map(([text]) => text);
}"""


def run_all_cells(page):
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()


def test_widgets_in_jupyterlab(tmp_path):
    require_browser()

    work = tmp_path / "notebooks"
    work.mkdir()
    copy_fixture(NOTEBOOK, work)
    shots = screenshot_dir()
    with jupyter_lab(work, tmp_path / "lab.log") as (base, token), sync_playwright() as pw, \
            offline_page(pw, viewport=(1300, 1500)) as (page, blocked):
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        try:
            open_and_run(page, base, token)
            check_dashboard(page, shots)
            check_rnn_explorer(page, shots)
            check_replay(page, shots)
            check_timeline(page, shots)
            check_late_dashboard(page, shots)
            page.screenshot(path=str(shots / "jupyterlab_page.png"))
        except Exception:
            page.screenshot(path=str(shots / "failure.png"))
            raise
        assert blocked == [], f"the page tried to reach other machines: {blocked}"


def open_and_run(page, base, token):
    """Open the notebook, wait for its kernel, run every cell."""
    page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    kernel = page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"Python 3.*\| Idle"))
    expect(kernel).to_have_count(1)
    run_all_cells(page)


def check_dashboard(page, shots):
    """The Dashboard: refreshed in place by three runs (startup, then main twice) and an
    appended op."""
    dash = page.locator("[data-widget='dashboard']").first
    expect(dash).to_have_attribute("data-runs", "3")
    block0 = dash.locator(".pnb-block-item[data-block='0']")
    expect(block0).to_have_attribute("data-change", "+1 ops")
    expect(dash.locator(".pnb-block-item[data-block='1']")).to_have_count(1)
    expect(dash.locator("[data-scope-label='run']")).to_have_count(1)
    for t in range(3):
        step = dash.locator(f"[data-scope-label='step {t}']")
        expect(step.locator("tr[data-var='static_rnn_0@mem_0']")).to_have_attribute(
            "data-state", "allocated")
    expect(dash.locator("tr[data-var='fc_0.w_0'][data-state='allocated']")).to_have_count(1)
    graph = dash.locator(".pnb-graph")
    if shutil.which("dot"):
        expect(graph.locator("[data-graph='svg'] svg")).to_have_count(1)
    else:
        expect(graph.locator("[data-hint='graphviz']")).to_contain_text("graphviz")
    dash.screenshot(path=str(shots / "dashboard_program.png"))   # block 0: the whole program
    step0 = dash.locator("[data-scope-label='step 0'] > details")
    expect(step0).to_have_attribute("open", "")
    step0.locator("> summary").click()                    # the reader folds step 0 ...
    expect(step0).not_to_have_attribute("open", "")
    dash.locator(".pnb-block-item[data-block='1']").click()
    expect(graph).to_have_attribute("data-block", "1")
    expect(step0).not_to_have_attribute("open", "")      # ... and it stays folded on redraw
    expect(step0.locator("[data-summary='scope']")).to_have_text("9 vars: 9 allocated")
    step0.locator("> summary").click()
    if shutil.which("dot"):
        check_op_values(page, dash, shots)
    dash.screenshot(path=str(shots / "dashboard.png"))


def check_op_values(page, dash, shots):
    """Hovering the step block's tanh after the runs: its tooltip holds what the last step
    left in its input and output, under the user's name ``h`` (the kernel's op_values and
    names); a click shows the same in the panel under the graph, and a second click hides it."""
    tanh = dash.locator(".pnb-graph g.node[data-op-type='tanh']")
    expect(tanh).to_have_attribute("data-values", "true")
    box = tanh.bounding_box()
    centre = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
    page.mouse.move(*centre)
    tip = page.evaluate("""([x, y]) => document.elementFromPoint(x, y)?.closest("a")
        ?.getAttributeNS("http://www.w3.org/1999/xlink", "title")""", centre)
    assert "values after the run:" in tip, tip
    assert re.search(r"out Out h \(fc_0\.tmp_4\): float32\[2, 5\] \[.*\] mean .* "
                     r"\(in step 2, last of 3 scopes\)", tip), tip
    tanh.click()
    expect(dash.locator("[data-op-detail='1/4'] pre")).to_have_text(tip)
    dash.screenshot(path=str(shots / "dashboard_op_clicked.png"))
    tanh.click()
    expect(dash.locator("[data-op-detail]")).to_have_count(0)


def check_late_dashboard(page, shots):
    """A Dashboard made after three runs says so from its first line, and its graph pane
    shows the whole graph (no fixed box cutting it off)."""
    late = page.locator("[data-widget='dashboard']").nth(1)
    expect(late).to_have_attribute("data-runs", "3")
    expect(late.locator(".pnb-header")).to_contain_text("run 3")
    expect(late).not_to_contain_text("no run yet")
    late.scroll_into_view_if_needed()
    if shutil.which("dot"):
        box = late.locator(".pnb-graph [data-graph='svg']")
        fits = box.evaluate("""el => { const s = el.querySelector('svg').getBoundingClientRect();
            const b = el.getBoundingClientRect();
            return s.width <= b.width + 1 && s.height <= b.height + 1; }""")
        assert fits, "the Dashboard's graph is cut off by its pane"
        expect(box).to_have_attribute("data-panzoom", "on")
        box.locator("svg").hover()
        page.mouse.wheel(0, -400)                               # zoom in around the pointer
        assert float(box.get_attribute("data-zoom")) > 1.5
        page.mouse.move(0, 0)
        box.locator("svg").hover()
        box.locator("[data-action='fit']").click()             # the whole graph again
        expect(box).to_have_attribute("data-zoom", "1.000")
        late.locator("[data-action='graph-size']").click()      # unscaled, in a scrolling box
        expect(late.locator(".pnb-graph")).to_have_attribute("data-size", "full")
        late.locator("[data-action='graph-size']").click()
        expect(late.locator(".pnb-graph")).to_have_attribute("data-size", "fit")
    late.screenshot(path=str(shots / "dashboard_after_three_runs.png"))


def check_rnn_explorer(page, shots):
    """The RNN explorer: step 0, then the slider moved one step with the keyboard."""
    rnn = page.locator("[data-widget='rnn']")
    expect(rnn).to_have_attribute("data-step", "0")
    expect(rnn.locator(".pnb-step")).to_have_count(3)
    memory = rnn.locator(".pnb-link[data-link='memory']")
    expect(memory).to_have_attribute("data-equal", "true")
    expect(memory).to_contain_text("initial state")
    first_scope = rnn.get_attribute("data-scope")
    rnn.screenshot(path=str(shots / "rnn_explorer_step0.png"))

    slider = rnn.locator("input[data-role='step']")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(rnn).to_have_attribute("data-step", "1")
    assert rnn.get_attribute("data-scope") != first_scope
    expect(memory).to_have_attribute("data-equal", "true")
    expect(memory).to_contain_text("h_pre at step 1")       # the user's name for the memory,
    expect(memory.locator("[data-internal='static_rnn_0@mem_0']")).to_have_attribute(
        "title", "static_rnn_0@mem_0")                      # the program's on hover
    expect(memory).to_contain_text("static_rnn_0.tmp_0 at step 0")
    expect(rnn.locator("tr[data-var='static_rnn_0@mem_0'][data-step='1']")).to_have_attribute(
        "data-state", "allocated")
    rnn.screenshot(path=str(shots / "rnn_explorer_step1.png"))

    # The kernel saw the slider move: run the last cell again and read what it prints.
    last = page.locator(".jp-CodeCell", has_text="kernel sees step")
    expect(last.locator(".jp-OutputArea-output")).to_contain_text("kernel sees step 0")
    last.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    expect(last.locator(".jp-OutputArea-output")).to_contain_text(
        f"kernel sees step 1 of scope {rnn.get_attribute('data-scope')}")


def check_replay(page, shots):
    """The run replay: a temporary allocated, then freed after its last use."""
    replay = page.locator("[data-widget='replay']")
    replay_slider = replay.locator("input[data-role='position']")
    replay_slider.focus()
    page.keyboard.press("ArrowRight")
    expect(replay).to_have_attribute("data-position", "1")
    expect(replay.locator(".pnb-op")).to_have_attribute("data-op", "0")
    expect(replay.locator("[data-scope-label='run'] tr[data-var='fill_constant_0.tmp_0']")) \
        .to_have_attribute("data-state", "allocated")
    page.keyboard.press("End")
    expect(replay.locator(".pnb-op")).to_have_attribute("data-op", "end")
    expect(replay.locator("[data-scope-label='run']")).to_have_attribute("data-destroyed", "true")
    page.keyboard.press("Home")
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    expect(replay.locator(".pnb-op")).to_have_attribute("data-op", "1")
    replay.screenshot(path=str(shots / "run_replay.png"))


def check_timeline(page, shots):
    """The memory timeline."""
    timeline = page.locator("[data-widget='timeline']")
    expect(timeline.locator("svg polyline[data-place='CPUPlace()']")).to_have_count(1)
    assert timeline.locator(".pnb-mark[data-state='allocated']").count() > 0
    timeline.locator("rect.pnb-col[data-pos='2']").hover()
    expect(timeline.locator("[data-detail]")).to_have_attribute("data-pos", "2")
    outside = timeline.locator("svg.pnb-timeline").evaluate(TEXT_OUTSIDE_SVG)
    assert outside == [], f"timeline labels drawn outside the picture: {outside}"
    timeline.screenshot(path=str(shots / "memory_timeline.png"))


def widget_js_or_skip():
    """The JavaScript a static export loads, which `make test` fetches into build/ (skip
    without it: the test never downloads anything itself)."""
    from tests.browser import fetch_widget_js
    if not fetch_widget_js.installed():
        pytest.skip("no local copy of @jupyter-widgets/html-manager in build/widget-js/; "
                    "`make widgetjs` (part of `make test`) fetches it with npm")


def exported_fixture(tmp_path, monkeypatch):
    """The fixture notebook run by nbclient (widget state stored) and exported to HTML."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                   os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    nb = nbformat.read(copy_fixture(NOTEBOOK, tmp_path), as_version=4)
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, store_widget_state=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata["widgets"]
    html, _ = nbconvert.HTMLExporter(template_name="lab").from_notebook_node(nb)
    page = tmp_path / "widgets_fixture.html"
    page.write_text(html, encoding="utf-8")
    return page


def test_widgets_in_a_static_html_export(tmp_path, monkeypatch):
    """No kernel, no server: the embedded state alone draws the widgets, and sliders work."""
    require_browser()
    widget_js_or_skip()

    html = exported_fixture(tmp_path, monkeypatch)
    shots = screenshot_dir()
    with sync_playwright() as pw, offline_page(pw, viewport=(1300, 1500), serve=cdn_file) \
            as (page, blocked):
        expect.set_options(timeout=WAIT_MS)
        page.goto(html.as_uri())
        dash = page.locator("[data-widget='dashboard']").first
        expect(dash).to_have_attribute("data-runs", "3")
        expect(dash.locator("[data-scope-label='step 2']")).to_have_count(1)
        expect(page.locator("[data-widget='dashboard']").nth(1)).to_have_attribute("data-runs", "3")
        rnn = page.locator("[data-widget='rnn']")
        expect(rnn).to_have_attribute("data-step", "0")
        rnn.locator("[data-action='next']").click()
        expect(rnn).to_have_attribute("data-step", "1")
        expect(rnn.locator(".pnb-link[data-link='memory']")).to_have_attribute("data-equal", "true")
        rnn.screenshot(path=str(shots / "static_export_rnn_explorer.png"))
        expect(page.locator("[data-widget='timeline'] svg polyline")).to_have_count(1)
    # The widget JavaScript came from local files; the one thing left unanswered is
    # nbconvert's MathJax, which this page does not need.
    assert all("mathjax" in u.lower() for u in blocked), blocked


def test_a_training_steps_memory_timeline_keeps_its_labels_inside_in_chromium():
    """A training step's column labels are long op types (softmax_with_cross_entropy_grad):
    drawn by Chromium, each lies inside the timeline's picture (cut with an ellipsis)."""
    require_browser()
    import numpy as np
    import paddle_nb as pd
    from paddle_nb.viz import memory_timeline
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        x = pd.layers.data("x", shape=[4])
        label = pd.layers.data("label", shape=[1], dtype="int64")
        logits = pd.layers.fc(pd.layers.fc(x, 8, act="relu"), 3)
        loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
        pd.optimizer.SGD(0.1).minimize(loss)
    exe, scope, records = pd.Executor(pd.CPUPlace(), seed=0), pd.Scope(), []
    exe.run(startup, scope=scope)
    exe.subscribe(records.append)
    exe.run(main, feed={"x": np.ones((2, 4), "float32"), "label": np.zeros((2, 1), "int64")},
            fetch_list=[loss], scope=scope)
    svg = memory_timeline(records[-1]).svg
    assert "softmax_with_cross_entropy_grad" in svg          # whole in a column's title
    with sync_playwright() as pw, offline_page(pw) as (page, blocked):
        page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
        outside = page.locator("svg.pnb-timeline").evaluate(TEXT_OUTSIDE_SVG)
        page.locator("svg.pnb-timeline").screenshot(
            path=str(screenshot_dir() / "memory_timeline_training.png"))
    assert outside == [], f"timeline labels drawn outside the picture: {outside}"
    assert blocked == []
