"""The outputs stored in the committed notebooks show right untrusted, without a browser.

The notebooks are read as committed (tests/notebooks/committed.py): running and saving one
in the lab changes the working copy, not what these tests check.

tests/browser/test_untrusted_notebooks.py opens the notebooks in JupyterLab; this is the fast
check of the same promise on the files: pictures are ``image/png`` (no ``image/svg+xml``, no
SVG inside ``text/html``, which an untrusted notebook does not show), and no
output's text is a Python object's repr (a widget stores a note to run the notebook). Then
tools/static_outputs.py itself, on a small notebook: the step ``make notebooks`` applies.
"""
import importlib.util
import os
import pathlib
import re

import pytest

from tests.notebooks.committed import committed_text, differs_from_commit, tour_notebooks

nbformat = pytest.importorskip("nbformat")

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = tour_notebooks()
OBJECT_REPR = re.compile(r"<[\w.]+ object( at 0x[0-9a-f]+)?>")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def static_outputs():
    """tools/static_outputs.py as a module (tools/ is no package)."""
    spec = importlib.util.spec_from_file_location("static_outputs",
                                                  ROOT / "tools" / "static_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems_of(notebook):
    """A line per stored output that an untrusted viewer would show broken."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            where = f"cell {index} ({output.output_type})"
            if "image/svg+xml" in data:
                found.append(f"{where}: image/svg+xml, which untrusted JupyterLab does not show")
            if re.search(r"<svg\b", data.get("text/html", "")):
                found.append(f"{where}: a picture as text/html, which untrusted JupyterLab "
                             "sanitizes into loose words")
            text = data.get("text/plain", "")
            if OBJECT_REPR.search(text):
                found.append(f"{where}: the text {OBJECT_REPR.search(text).group(0)!r}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_show_untrusted(path):
    found = problems_of(nbformat.reads(committed_text(path), as_version=4))
    saved = (f"\n(Your working copy differs from the commit, e.g. saved after a run in the "
             f"lab; `git checkout -- notebooks/{path.name}` restores it.)"
             if differs_from_commit(path) else "")
    assert not found, (f"{path.name} was not stored by `make notebooks` (tools/static_outputs.py):"
                       "\n  " + "\n  ".join(found) + saved)


def test_widget_output_gets_a_note_and_keeps_its_view():
    module = static_outputs()
    cell = nbformat.v4.new_code_cell("w")
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={WIDGET_VIEW: {"model_id": "m1", "version_major": 2,
                                            "version_minor": 0},
                              "text/plain": "<paddle_nb.viz.rnn_explorer.RNNExplorerWidget "
                                            "object at 0x7f0>"})]
    notebook = module.make_static(nbformat.v4.new_notebook(cells=[cell]))
    data = notebook.cells[0].outputs[0].data
    assert data["text/plain"].startswith("[RNNExplorerWidget: an interactive widget. Run")
    assert data[WIDGET_VIEW]["model_id"] == "m1"       # for viewers that draw saved widgets
    assert problems_of(notebook) == []


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Debian's chromium")
def test_html_picture_becomes_png():
    pytest.importorskip("playwright")
    module = static_outputs()
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" ' \
          'height="20" fill="#9fc5e8"/></svg>'
    cell = nbformat.v4.new_code_cell("g")
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={"text/html": f"<div class='pnb'><style>.x{{}}</style>{svg}</div>",
                              "text/plain": "<ProgramGraph program: 1 node>"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<b>plain</b>",
                                                     "text/plain": "plain"})]
    notebook = module.make_static(nbformat.v4.new_notebook(cells=[cell]))
    picture, plain = notebook.cells[0].outputs
    assert sorted(picture.data) == ["image/png", "text/plain"]
    import base64
    assert base64.b64decode(picture.data["image/png"]).startswith(b"\x89PNG")
    assert plain.data["text/html"] == "<b>plain</b>"   # plain HTML survives the sanitizer


def test_make_notebooks_stores_the_same_widget_ids_at_every_run():
    """tools/run_notebooks.py renames the kernel's random widget model ids by their order of
    creation: two runs with different ids store the same notebook."""
    import sys
    import uuid
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location("run_notebooks",
                                                      ROOT / "tools" / "run_notebooks.py")
        tool = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tool)
    finally:
        sys.path.remove(str(ROOT / "tools"))

    def executed(ids):
        nb = nbformat.v4.new_notebook()
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
            "version_major": 2, "version_minor": 0,
            "state": {ids[0]: {"model_name": "LayoutModel", "state": {}},
                      ids[1]: {"model_name": "X", "state": {"layout": f"IPY_MODEL_{ids[0]}"}}}}}
        cell = nbformat.v4.new_code_cell("w", id="c00-code")
        cell.outputs = [nbformat.v4.new_output("display_data", data={
            WIDGET_VIEW: {"model_id": ids[1], "version_major": 2, "version_minor": 0},
            "text/plain": "w"})]
        nb.cells = [cell]
        return tool.stable_widget_ids(nb, "01_x.ipynb")

    first, second = (executed([uuid.uuid4().hex, uuid.uuid4().hex]) for _ in range(2))
    assert nbformat.writes(first) == nbformat.writes(second)
    state = first.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (layout,), (view,) = ([k for k, v in state.items() if v["model_name"] == m]
                          for m in ("LayoutModel", "X"))
    assert {layout, view} == {uuid.uuid5(uuid.NAMESPACE_URL, f"paddle_nb/01_x.ipynb/{k}").hex
                              for k in (0, 1)}
    assert state[view]["state"]["layout"] == f"IPY_MODEL_{layout}"          # links kept
    assert first.cells[0].outputs[0]["data"][WIDGET_VIEW]["model_id"] == view


def saved_widget(widget):
    """``(display output, {model id: saved entry})`` of a live widget, as nbclient saves them."""
    import json
    data, _ = widget._repr_mimebundle_()
    output = nbformat.v4.new_output("display_data", data=data)
    state = json.loads(json.dumps(widget.get_state(), default=list))
    return output, {widget.model_id: {"model_name": "AnyModel", "state": state}}


def rnn_explorer_at_step(step):
    pytest.importorskip("anywidget")
    import numpy as np
    import paddle_nb as pd
    from paddle_nb.viz import rnn_explorer
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3, 1, 2], append_batch_size=False)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            h_pre = rnn.memory(shape=[-1, 2], batch_ref=x_t)
            h = pd.layers.elementwise_add(x_t, h_pre)
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        out = rnn()
    exe = pd.Executor()
    widget = rnn_explorer(exe)
    exe.run(prog, feed={"x": np.ones((3, 1, 2), "float32")}, fetch_list=[out])
    widget.step = step
    return widget


def test_a_widget_is_stored_with_its_line_and_drawn_at_its_first_state():
    module = static_outputs()
    output, states = saved_widget(rnn_explorer_at_step(2))
    assert output.data["text/plain"].startswith("[RNN explorer: the step scopes of 1 RNN")
    assert module.widget_note(output.data["text/plain"]) == output.data["text/plain"]
    how, state = module.widget_picture(output.data, states)
    assert how == "esm" and state["kind"] == "rnn" and state["step"] == 0   # the first step
    assert module.widget_picture(output.data, {}) is None      # no saved state: no picture


@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Debian's chromium")
def test_widget_picture_is_a_png_beside_its_view():
    pytest.importorskip("playwright")
    module = static_outputs()
    output, states = saved_widget(rnn_explorer_at_step(1))
    cell = nbformat.v4.new_code_cell("explorer")
    cell.outputs = [output]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    notebook.metadata["widgets"] = {module.WIDGET_STATE: {"version_major": 2,
                                                          "version_minor": 0, "state": states}}
    data = module.make_static(notebook).cells[0].outputs[0].data
    assert sorted(data) == [WIDGET_VIEW, "image/png", "text/plain"]
    import base64
    import io
    from PIL import Image
    picture = Image.open(io.BytesIO(base64.b64decode(data["image/png"])))
    assert picture.width > 400 and picture.height > 150          # the explorer, not a line
    assert problems_of(notebook) == []


def test_fewer_colours_keeps_a_thin_purple_edge_beside_many_greys():
    """A 32-colour median cut merges the few pixels of a purple edge into a grey (issue 26):
    the stored PNG keeps every colour the drawing uses."""
    image_module = pytest.importorskip("PIL.Image")
    import io

    import numpy as np
    drawing = np.full((200, 400, 3), 255, np.uint8)
    drawing[:150, :300] = (100 + np.arange(150))[:, None, None]       # 150 shades of grey
    drawing[150:190, :300] = np.stack([np.full(40, 200), 220 - np.arange(40),
                                       np.full(40, 240)], 1)[:, None, :]
    drawing[195:197] = (0x7B, 0x3F, 0xA0)                             # the purple edge
    png = io.BytesIO()
    image_module.fromarray(drawing).save(png, "PNG")
    stored = static_outputs().fewer_colours(png.getvalue())
    back = np.asarray(image_module.open(io.BytesIO(stored)).convert("RGB")).astype(int)
    assert np.abs(back[196, 10] - (0x7B, 0x3F, 0xA0)).max() <= 12
    assert np.abs(back - drawing).max() <= 12
