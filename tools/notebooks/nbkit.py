"""How the teaching notebooks are built: each tools/notebooks/build_NN.py writes one notebook.

A builder holds its notebook as Python, one ``md(...)`` or ``code(...)`` call a cell, so that
a change to the notebook is a readable diff; cells get stable ids (``c07-code``), so that
rebuilding gives the same file. Run a builder from the repository root:

    .venv/bin/python tools/notebooks/build_NN.py              # write it and run it (stores outputs)
    .venv/bin/python tools/notebooks/build_NN.py --no-execute # write it without outputs

Running needs nbclient and ipykernel (`make venv` installs both): the notebook runs top to
bottom in a fresh python3 kernel, in notebooks/, and keeps its outputs without timings.
tests/notebooks/test_notebooks.py runs every notebook, and its hidden solutions, in CI.
"""
import argparse
import pathlib
import textwrap

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
CELL_TIMEOUT_S = 120


class Notebook:
    """The cells of ``notebooks/<name>``, in order; ``md`` and ``code`` each add one."""

    def __init__(self, name):
        self.target = NOTEBOOKS / name
        self.cells = []

    def md(self, text):
        self.cells.append(("markdown", textwrap.dedent(text).strip()))

    def code(self, text):
        self.cells.append(("code", textwrap.dedent(text).strip()))

    def build(self):
        """A notebook of the cells, without outputs."""
        cells = []
        for number, (kind, source) in enumerate(self.cells):
            make = new_markdown_cell if kind == "markdown" else new_code_cell
            cell = make(source)
            cell.id = f"c{number:02d}-{kind}"      # stable ids: rebuilding gives the same file
            cells.append(cell)
        notebook = new_notebook(cells=cells)
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                           "language": "python"}
        notebook.metadata["language_info"] = {"name": "python"}
        return notebook


def execute(notebook, *, store_widget_state=False, merge_streams=False):
    """Run ``notebook`` in place, in notebooks/, and keep its outputs without timings.

    ``store_widget_state``: keep the state of the ipywidgets it shows (a tqdm bar, say) in
    its metadata, so that they show without a kernel. ``merge_streams``: join the stdout (or
    stderr) chunks that a cell's output is split into, so that rebuilding gives the same file.
    """
    from nbclient import NotebookClient
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
                   store_widget_state=store_widget_state,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if merge_streams and cell.cell_type == "code":
            cell.outputs = merged_streams(cell.outputs)


def merged_streams(outputs):
    """Join consecutive stdout (or stderr) chunks, which the kernel splits at random."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.output_type == "stream" and previous is not None
                and previous.output_type == "stream" and previous.name == output.name):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def main(notebook, *, store_widget_state=False, merge_streams=False):
    """The command line: write ``notebook`` (a Notebook), run first unless ``--no-execute``.

    The options are execute()'s.
    """
    target = notebook.target
    parser = argparse.ArgumentParser(description=f"Build notebooks/{target.name}.")
    parser.add_argument("--no-execute", action="store_true", help="write the cells without outputs")
    args = parser.parse_args()
    built = notebook.build()
    if not args.no_execute:
        execute(built, store_widget_state=store_widget_state, merge_streams=merge_streams)
    nbformat.validate(built)
    nbformat.write(built, target)
    print(f"wrote {target.relative_to(NOTEBOOKS.parent)} ({len(built.cells)} cells)")
