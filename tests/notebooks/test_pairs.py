"""Each notebook is a jupytext pair, and both files of a pair hold the same cells.

notebooks/jupytext.toml pairs every ``NN_name.ipynb`` with ``scripts/NN_name.py`` (percent
format), a subfolder so that JupyterLab's file browser lists each notebook once.
People edit either side (JupyterLab with jupytext saves both); a pair whose sides differ means
one side was edited without the other being synced. The fix is in the failure message:
``git checkout -- <both files>`` (back to the commit), ``jupytext --sync`` (the newer file
wins) or ``make notebooks`` (which also re-runs them). Scratch notebooks (``Untitled*``, which
git ignores) are not the tour's and are not checked.
Cells are compared as (kind, source) after reading each side with jupytext, so that the
outputs and cell ids that only the .ipynb keeps do not count.
"""
import pathlib

import pytest

from tests.notebooks.committed import restore_hint, tour_notebooks

jupytext = pytest.importorskip("jupytext", reason="no jupytext (the notebook extra has it)")

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = tour_notebooks(NOTEBOOK_DIR)
SCRIPT_DIR = NOTEBOOK_DIR / "scripts"
SCRIPTS = sorted(SCRIPT_DIR.glob("[0-9][0-9]_*.py"))


def cells(path, fmt):
    """``[(cell type, source)]`` of the notebook at ``path`` read as ``fmt``."""
    notebook = jupytext.read(path, fmt=fmt)
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


def test_every_notebook_has_its_script_and_back():
    stems = {p.stem for p in NOTEBOOKS}
    scripts = {p.stem for p in SCRIPTS}
    assert stems, "no notebooks/NN_*.ipynb found"
    assert stems == scripts, (f"unpaired: .ipynb without scripts/*.py {sorted(stems - scripts)}, "
                              f"scripts/*.py without .ipynb {sorted(scripts - stems)}; "
                              "run `jupytext --sync notebooks/<name>` to write the missing side")


def test_jupytext_config_pairs_ipynb_with_percent_scripts():
    config = (NOTEBOOK_DIR / "jupytext.toml").read_text(encoding="utf-8")
    assert 'formats = "ipynb,scripts//py:percent"' in config


def test_notebook_folder_lists_each_notebook_once():
    """No script beside the notebooks: JupyterLab would list each tour entry twice."""
    beside = sorted(p.name for p in NOTEBOOK_DIR.glob("*.py"))
    assert not beside, f"scripts belong in notebooks/scripts/ (jupytext.toml), found {beside}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_pair_holds_the_same_cells(path):
    script = SCRIPT_DIR / path.with_suffix(".py").name
    if not script.exists():
        pytest.skip(f"{script.name} is missing (the pairing test above fails)")
    in_notebook, in_script = cells(path, "ipynb"), cells(script, "py:percent")
    if in_notebook == in_script:
        return
    first = next((i for i, (a, b) in enumerate(zip(in_notebook, in_script)) if a != b),
                 min(len(in_notebook), len(in_script)))
    pytest.fail(f"{path.name} and scripts/{script.name} differ: {len(in_notebook)} and "
                f"{len(in_script)} cells, first difference in cell {first}:\n"
                f"{first_different_line(in_notebook[first:first + 1], in_script[first:first + 1])}"
                "\n"
                f"Restore both as committed: {restore_hint(path, script)}\n"
                f"or sync them: jupytext --sync notebooks/{path.name} (the newer file wins), or "
                f"`make notebooks` to re-run them too.", pytrace=False)


def first_different_line(one, other):
    """The first line where two ``[(kind, source)]`` (zero or one cell each) differ, both ways.

    >>> print(first_different_line([("code", "a = 1\\nb = 2")], [("code", "a = 1\\nb = 3")]))
      .ipynb: code line 2: 'b = 2'
      .py:    code line 2: 'b = 3'
    """
    def lines(cells):
        return [(kind, n, line) for kind, source in cells
                for n, line in enumerate(source.splitlines() or [""], start=1)]
    mine, theirs = lines(one), lines(other)
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b),
              min(len(mine), len(theirs)))
    def show(found):
        return (f"{found[at][0]} line {found[at][1]}: {found[at][2]!r}"
                if at < len(found) else "(nothing)")
    return f"  .ipynb: {show(mine)}\n  .py:    {show(theirs)}"
