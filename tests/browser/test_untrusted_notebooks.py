"""The committed notebooks as a reader first sees them: untrusted, no kernel, nothing run.

A notebook someone clones or downloads is untrusted in JupyterLab, which then shows each
stored output through a safe renderer only: HTML is sanitized (an SVG inside it falls apart
into its loose labels, "cluster_b0 block 0 ..."), ``image/svg+xml`` is not shown, and a
widget shows its ``text/plain`` (``<...RNNExplorerWidget object at 0x...>``); ``image/png``
is shown. ``make notebooks`` (tools/static_outputs.py) therefore stores pictures as PNG and
widgets with a note. This test opens every ``notebooks/NN_*.ipynb`` in a private JupyterLab
that offers no kernel, answers "No Kernel", and checks that JupyterLab says the notebook is
not trusted, that each stored picture is an ``<img>``, and that no loose SVG text, no
object repr is on the page. Screenshots go to build/screenshots/.
"""
import re

import pytest

from tests.browser import jupyter_lab, offline_page, require_browser, screenshot_dir
from tests.notebooks.committed import committed_text, tour_notebooks

try:                                    # require_browser() skips the tests without it
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    expect = sync_playwright = None

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

NOTEBOOKS = tour_notebooks()          # as committed: a copy saved in the lab does not count
WAIT_MS = 60_000
EXPLORER = "stored_explorer.ipynb"
# What a broken stored output looks like once JupyterLab has made it safe.
BROKEN = {
    "a sanitized graph (the loose text of an SVG in HTML)": re.compile(r"\bcluster_b\d+\b"),
    "a Python object's repr": re.compile(r"<[\w.]+ object( at 0x[0-9a-f]+)?>"),
}


def stored_outputs(path):
    """``(number of displayed outputs, number of them that are PNG pictures)`` in ``path``."""
    import nbformat
    notebook = nbformat.reads(committed_text(path), as_version=4)
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    return len(outputs), sum("image/png" in o.get("data", {}) for o in outputs)


def open_without_kernel(page, url):
    """Open a notebook and answer JupyterLab's kernel question with "No Kernel"."""
    page.goto(url)
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    page.locator(".jp-Dialog").get_by_role("button", name="No Kernel", exact=True).click()
    expect(page.locator(".jp-NotebookPanel-toolbar")).to_contain_text("No Kernel")


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory):
    """``(page, base_url, token, blocked)``: one JupyterLab with no kernels, on copies of the
    notebooks (JupyterLab may write checkpoints), and one offline Chromium, for every test."""
    require_browser()
    pytest.importorskip("nbformat")
    work = tmp_path_factory.mktemp("untrusted") / "notebooks"
    work.mkdir()
    for path in NOTEBOOKS:
        (work / path.name).write_text(committed_text(path), encoding="utf-8")
    stored_explorer(work / EXPLORER)
    with jupyter_lab(work, work.parent / "lab.log", kernels=False) as (base, token), \
            sync_playwright() as pw, offline_page(pw, viewport=(1300, 1500)) as (page, blocked):
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        yield page, base, token, blocked


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebook_looks_right_untrusted(path, lab_page):
    page, base, token, blocked = lab_page
    n_outputs, n_pictures = stored_outputs(path)
    try:
        # A workspace of its own per notebook: the page shows this notebook only.
        open_without_kernel(page, f"{base}/lab/workspaces/{path.stem}/tree/{path.name}"
                                  f"?token={token}&reset")
        panel = page.locator(".jp-NotebookPanel")
        outputs = panel.locator(".jp-OutputArea-output")
        expect(outputs).to_have_count(n_outputs)
        trust = page.locator(".jp-StatusItem-trust")
        expect(trust).to_have_attribute("title", re.compile(r"^Notebook not trusted"))
        pictures = panel.locator(".jp-OutputArea-output[data-mime-type='image/png'] img")
        expect(pictures).to_have_count(n_pictures)
        text = "\n".join(outputs.all_inner_texts())
        for what, pattern in BROKEN.items():
            found = pattern.search(text)
            assert found is None, f"{path.name} shows {what}: {found.group(0)!r}"
        if n_pictures:                            # the screenshot shows the first picture
            pictures.first.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir() / f"untrusted_{path.stem}.png"))
    except Exception:
        page.screenshot(path=str(screenshot_dir() / f"untrusted_{path.stem}_failure.png"))
        raise
    assert blocked == [], f"the page tried to reach other machines: {blocked}"


def stored_explorer(path):
    """A notebook holding one RNN explorer stored as `make notebooks` stores it (its view,
    its saved state, its picture and its line), never run here."""
    pytest.importorskip("anywidget")
    import nbformat
    from tests.notebooks.test_stored_outputs import rnn_explorer_at_step, saved_widget, \
        static_outputs
    module = static_outputs()
    output, states = saved_widget(rnn_explorer_at_step(2))
    cell = nbformat.v4.new_code_cell("pd.viz.rnn_explorer(record)", id="explorer")
    cell.outputs = [output]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    notebook.metadata["widgets"] = {module.WIDGET_STATE: {"version_major": 2,
                                                          "version_minor": 0, "state": states}}
    nbformat.write(module.make_static(notebook), path)


def test_a_stored_explorer_shows_its_picture_unrun(lab_page):
    """Untrusted, no kernel: the explorer's stored picture (at step 0) is on the page, not
    a class name."""
    page, base, token, blocked = lab_page
    try:
        open_without_kernel(page, f"{base}/lab/workspaces/explorer/tree/{EXPLORER}"
                                  f"?token={token}&reset")
        output = page.locator(".jp-NotebookPanel .jp-OutputArea-output")
        expect(output).to_have_count(1)
        picture = output.locator("img")
        expect(picture).to_be_visible()
        expect(output).to_have_attribute("data-mime-type", "image/png")   # as the tour test counts
        size = picture.evaluate("img => [img.naturalWidth, img.naturalHeight]")
        assert size[0] > 400 and size[1] > 150, size        # the explorer, not a line of text
        assert "RNNExplorerWidget" not in output.inner_text()
        picture.screenshot(path=str(screenshot_dir() / "untrusted_stored_explorer.png"))
    except Exception:
        page.screenshot(path=str(screenshot_dir() / "untrusted_stored_explorer_failure.png"))
        raise
    assert blocked == [], f"the page tried to reach other machines: {blocked}"
