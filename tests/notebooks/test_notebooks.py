"""Every notebook in notebooks/ runs top to bottom, and so do its hidden exercise solutions.

Each tour notebook ``notebooks/NN_name.ipynb`` (sorted; scratch notebooks such as
``Untitled.ipynb`` are not the tour's and are left alone) is executed with nbclient in a
fresh ``python3`` kernel started from this interpreter's environment, with notebooks/ as the
working directory and 120 s per cell; a cell that raises (a failed ``assert`` included) fails
the test and shows the cell. Exercise solutions are hidden in markdown as
``<details><summary>Solution...`` blocks; every ```` ```python ```` fence inside one is
appended as a code cell after the notebook's own cells and run in the same kernel, so a
solution must work in the state the notebook ends in. Each notebook is read as committed
(tests/notebooks/committed.py), so running or saving it in the lab never changes what these
tests run. Without nbclient or ipykernel the tests are skipped.
"""
import os
import pathlib
import re

import pytest

from tests.notebooks.committed import committed_text, differs_from_commit, tour_notebooks

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = tour_notebooks(NOTEBOOK_DIR)
CELL_TIMEOUT_S = 120

SOLUTION = re.compile(r"<details>\s*<summary>\s*Solution.*?</summary>(.*?)</details>",
                      re.DOTALL | re.IGNORECASE)
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
PYTHON_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def hidden_solutions(notebook):
    """``[(markdown cell index, code)]`` for each Python fence inside a Solution block.

    >>> text = "<details><summary>Solution</summary>\\n\\n```python\\nx = 1\\n```\\n\\n</details>"
    >>> hidden_solutions({"cells": [{"cell_type": "markdown", "source": text}]})
    [(0, 'x = 1\\n')]
    """
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for block in SOLUTION.findall(cell["source"]):
            found.extend((index, code) for code in PYTHON_FENCE.findall(block))
    return found


def with_solutions(notebook):
    """A copy of ``notebook`` with its hidden solutions appended as code cells."""
    import copy

    import nbformat
    notebook = copy.deepcopy(notebook)
    for number, (index, code) in enumerate(hidden_solutions(notebook), start=1):
        header = f"# hidden solution {number}, from markdown cell {index}\n"
        notebook.cells.append(nbformat.v4.new_code_cell(header + code))
    return notebook


def kernel_environment():
    """This process's environment, with the repository first on PYTHONPATH for the kernel."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # quiets ipykernel's debugger
    return env


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_valid_nbformat_4(path):
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.reads(committed_text(path), as_version=nbformat.NO_CONVERT)
    assert notebook.nbformat == 4
    nbformat.validate(notebook)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed: no python3 kernel")
    # as committed: a copy run, edited or saved in the lab is the reader's, not the tour's
    notebook = with_solutions(nbformat.reads(committed_text(path), as_version=4))
    client = nbclient.NotebookClient(
        notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    try:
        client.execute(env=kernel_environment())
    except nbclient.exceptions.CellExecutionError as error:
        text = ANSI_COLOUR.sub("", str(error))       # IPython colours its tracebacks
        saved = (f"\n(This is {path.name} as committed; your working copy differs: "
                 f"`git checkout -- notebooks/{path.name}` restores it.)"
                 if differs_from_commit(path) else "")
        pytest.fail(f"{path.name}: a cell failed\n{text}{saved}", pytrace=False)
