"""Saving a notebook in JupyterLab writes both files of its jupytext pair, and back.

JupyterLab saves through the server's contents API, and jupytext's contents manager (the
notebook extra installs it, and it enables itself) writes every format that
notebooks/jupytext.toml pairs. This test saves through that same API, on copies of a pair
in a private server, laid out as notebooks/ is (the script in ``scripts/``): an edit saved
to the ``.ipynb`` reaches ``scripts/<name>.py``, and that script opens as a notebook whose
edit reaches the ``.ipynb``. No browser is needed; the server
helper comes from the browser tests, which skip without chromium.
"""
import json
import shutil
import urllib.request

import pytest

from tests.browser import ROOT, jupyter_lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(120)]

PAIR = "03_ifelse"


def contents(base, token, name, model=None):
    """GET (or PUT ``model``) /api/contents/<name> as a notebook; the reply's JSON."""
    url = f"{base}/api/contents/{name}?token={token}&type=notebook&content=1"
    data = None if model is None else json.dumps(model).encode()
    request = urllib.request.Request(url, data=data, method="GET" if model is None else "PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def test_saving_either_side_writes_both(tmp_path):
    jupytext = pytest.importorskip("jupytext")
    work = tmp_path / "notebooks"
    (work / "scripts").mkdir(parents=True)
    for name in (f"{PAIR}.ipynb", f"scripts/{PAIR}.py", "jupytext.toml"):
        shutil.copy(ROOT / "notebooks" / name, work / name)
    with jupyter_lab(work, tmp_path / "lab.log", kernels=False) as (base, token):
        model = contents(base, token, f"{PAIR}.ipynb")
        model["content"]["cells"][0]["source"] += "\n\nAn edit made in JupyterLab."
        contents(base, token, f"{PAIR}.ipynb", {"type": "notebook", "format": "json",
                                                "content": model["content"]})
        script = jupytext.read(work / "scripts" / f"{PAIR}.py")
        assert script.cells[0].source.endswith("An edit made in JupyterLab.")

        model = contents(base, token, f"scripts/{PAIR}.py")   # the script, as a notebook
        model["content"]["cells"][-1]["source"] += "\n# an edit made to the script"
        contents(base, token, f"scripts/{PAIR}.py", {"type": "notebook", "format": "json",
                                             "content": model["content"]})
    notebook = jupytext.read(work / f"{PAIR}.ipynb")
    assert notebook.cells[-1].source.endswith("# an edit made to the script")
    assert any(cell.get("outputs") for cell in notebook.cells), "the outputs were kept"
