"""The tour notebooks as committed, whatever the lab has done to the working copies since.

Running a tour notebook in JupyterLab and saving it (Ctrl+S, or the autosave every 120 s)
rewrites its outputs; a scratch notebook from the Launcher (``notebooks/Untitled.ipynb``,
with its jupytext pair ``scripts/Untitled.py``) appears beside them. Neither must fail
``make test``. So the tests collect only the tour's ``NN_name.ipynb`` files, and the tests of
stored outputs read each one as the last commit holds it (``git show HEAD:path``), falling
back to the file on disk outside a git checkout or for a notebook not committed yet.
"""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
TOUR = "[0-9][0-9]_*.ipynb"          # the tour's notebooks; nothing else in notebooks/ is tested


def tour_notebooks(folder=NOTEBOOK_DIR):
    """The tour notebooks in ``folder``, sorted: ``NN_name.ipynb`` only (no Untitled*)."""
    return sorted(pathlib.Path(folder).glob(TOUR))


def committed_text(path, root=ROOT):
    """The text of ``path`` as HEAD holds it; the file on disk when git has no copy."""
    path = pathlib.Path(path).resolve()
    try:
        relative = path.relative_to(pathlib.Path(root).resolve()).as_posix()
        shown = subprocess.run(["git", "show", f"HEAD:{relative}"], cwd=root,
                               capture_output=True, timeout=30)
    except (ValueError, OSError, subprocess.SubprocessError):
        shown = None
    if shown is not None and shown.returncode == 0:
        return shown.stdout.decode("utf-8")
    return path.read_text(encoding="utf-8")


def differs_from_commit(path, root=ROOT):
    """True when the working copy of ``path`` is not what HEAD holds (the lab saved it)."""
    return committed_text(path, root) != pathlib.Path(path).read_text(encoding="utf-8")


def restore_hint(*paths):
    """The command that brings ``paths`` back as committed."""
    names = " ".join(pathlib.Path(p).resolve().relative_to(ROOT).as_posix() for p in paths)
    return f"git checkout -- {names}"
