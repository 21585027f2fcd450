"""A program's graph in JupyterLab with a kernel: the rich display's script runs there.

JupyterLab runs the inline script of a trusted output (one the kernel just produced), so a
Program on the last line of a cell shows its graph fitted to its box, with the wheel, the
drag and the fit button. The test runs a two-cell notebook that loads ResNet-18 (the
program PaddlePaddle 2.6.2 saved, tests/fixtures/paddle26/draw) and displays it, then zooms
and fits the graph, in headless Chromium with nothing fetched from elsewhere.
"""
import re
import shutil

import pytest

from tests.browser import ROOT, jupyter_lab, offline_page, require_browser, screenshot_dir

try:                                    # require_browser() skips the tests without it
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    expect = sync_playwright = None

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

FIXTURE = ROOT / "tests" / "fixtures" / "paddle26" / "draw" / "resnet18.pdmodel"
WAIT_MS = 60_000


def write_notebook(folder):
    import nbformat
    cells = [nbformat.v4.new_code_cell("import paddle_nb as pd\nfrom paddle_nb.io import "
                                       f"load_program\nresnet = load_program({str(FIXTURE)!r})"),
             nbformat.v4.new_code_cell("resnet")]
    path = folder / "graph.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), str(path))
    return path.name


def test_a_programs_graph_is_fitted_and_zooms_in_jupyterlab(tmp_path):
    require_browser()
    if shutil.which("dot") is None:
        pytest.skip("graphviz's `dot` is missing: the graph would be DOT text, not a picture")
    work = tmp_path / "notebooks"
    work.mkdir()
    name = write_notebook(work)
    shots = screenshot_dir()
    with jupyter_lab(work, tmp_path / "lab.log") as (base, token), sync_playwright() as pw, \
            offline_page(pw, viewport=(1300, 1000)) as (page, blocked):
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        page.goto(f"{base}/lab/tree/{name}?token={token}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
        kernel = page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"Python 3.*\| Idle"))
        expect(kernel).to_have_count(1)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
        box = page.locator(".pnb-graphbox[data-panzoom='on']")
        expect(box).to_have_count(1)                     # the inline script ran
        expect(box).to_have_attribute("data-zoom", "1.000")
        svg = box.locator("svg")
        fitted = svg.get_attribute("viewBox")
        svg_box, frame = svg.bounding_box(), box.bounding_box()
        assert svg_box["width"] <= frame["width"] + 1 and svg_box["height"] <= 0.8 * 1000 + 1
        page.screenshot(path=str(shots / "resnet18_in_jupyterlab.png"))
        svg.hover()
        page.mouse.wheel(0, -300)
        expect(box).not_to_have_attribute("data-zoom", "1.000")
        assert svg.get_attribute("viewBox") != fitted
        page.screenshot(path=str(shots / "resnet18_in_jupyterlab_zoomed.png"))
        box.locator("[data-action='fit']").click()
        expect(box).to_have_attribute("data-zoom", "1.000")
        assert svg.get_attribute("viewBox") == fitted
        assert blocked == [], f"the page tried to reach other machines: {blocked}"
