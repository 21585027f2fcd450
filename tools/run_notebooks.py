"""Run the teaching notebooks and store their outputs: what `make notebooks` does.

Each notebook is a jupytext pair (notebooks/jupytext.toml): ``scripts/NN_name.py``, the cells
as a percent-format script that people review and edit, and ``NN_name.ipynb``, the same cells
with the outputs readers see before running anything. For each pair this script

1. syncs it (``jupytext --sync``: the file edited last gives the cells to the other one),
2. runs the cells top to bottom in a fresh python3 kernel, in notebooks/, as the tests do,
3. makes the outputs readable unopened and untrusted (tools/static_outputs.py), and
4. writes the .ipynb, with stable cell ids and no timings, so a re-run gives a small diff.

    .venv/bin/python tools/run_notebooks.py [notebooks/scripts/NN_name.py ...]   # default: all
"""
import argparse
import os
import pathlib
import subprocess
import sys
import uuid

import jupytext
import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SCRIPTS = NOTEBOOKS / "scripts"   # jupytext.toml's "scripts//py:percent": one folder down
CELL_TIMEOUT_S = 120
sys.path.insert(0, str(ROOT / "tools"))
import static_outputs  # noqa: E402  (beside this script)


def sync(script):
    """Bring the older file of the pair ``script`` / its .ipynb up to date with the newer."""
    subprocess.run([sys.executable, "-m", "jupytext", "--sync", "--quiet", str(script)],
                   check=True, cwd=NOTEBOOKS)


def cells_of(script):
    """A notebook of ``script``'s cells, without outputs, with stable ids and a python3 kernel."""
    notebook = jupytext.read(script)
    for number, cell in enumerate(notebook.cells):
        cell.id = f"c{number:02d}-{cell.cell_type}"   # the same ids at every run: small diffs
        cell.metadata.pop("execution", None)
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                       "language": "python"},
        "language_info": {"name": "python"},
    }
    return notebook


def execute(notebook):
    """Run ``notebook`` in place, in notebooks/, with the repository first on PYTHONPATH.

    The widgets' state goes into the notebook's metadata (nbclient's store_widget_state), so
    that a viewer with a widget manager can draw them without a kernel.
    """
    from nbclient import NotebookClient
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
                   store_widget_state=True,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute(env=env)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
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


def stable_widget_ids(notebook, name):
    """``notebook`` with its widget models renamed by their order of creation, so that a
    re-run stores the same ids (the kernel draws random ones): each id in the stored widget
    state becomes a UUID derived from the notebook's name and the model's position."""
    state = notebook.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})
    text = nbformat.writes(notebook)
    for k, old in enumerate(list(state)):
        text = text.replace(old, uuid.uuid5(uuid.NAMESPACE_URL, f"paddle_nb/{name}/{k}").hex)
    return nbformat.reads(text, as_version=4)


def run(script):
    """Sync, run and store the pair of ``script``; return the .ipynb's path."""
    sync(script)
    notebook = cells_of(script)
    execute(notebook)
    static_outputs.make_static(notebook)
    target = NOTEBOOKS / script.with_suffix(".ipynb").name
    notebook = stable_widget_ids(notebook, target.name)
    nbformat.validate(notebook)
    nbformat.write(notebook, target)
    # jupytext refuses to open a pair whose script is older than its .ipynb (it would take
    # the cells from the script and could lose edits made to the .ipynb): both are current.
    os.utime(script)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", type=pathlib.Path,
                        help="notebooks/scripts/NN_name.py files (default: every one)")
    args = parser.parse_args(argv)
    scripts = [p.resolve() for p in args.scripts] or sorted(SCRIPTS.glob("[0-9][0-9]_*.py"))
    for script in scripts:
        target = run(script)
        print(f"ran {target.relative_to(ROOT)}", flush=True)


if __name__ == "__main__":
    main()
