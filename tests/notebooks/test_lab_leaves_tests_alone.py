"""Working in the lab never fails the tests: scratch notebooks are not the tour's, and a tour
notebook saved after a run is checked as committed (tests/notebooks/committed.py)."""
import shutil
import subprocess

import pytest

from tests.notebooks.committed import ROOT, committed_text, differs_from_commit, tour_notebooks

needs_git = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                               reason="not a git checkout")


def test_scratch_notebooks_are_not_collected(tmp_path):
    for name in ("01_tour.ipynb", "Untitled.ipynb", "Untitled1.ipynb", "my_notes.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in tour_notebooks(tmp_path)] == ["01_tour.ipynb"]


@needs_git
def test_git_ignores_scratch_notebooks_and_their_pairs():
    names = ["notebooks/Untitled.ipynb", "notebooks/Untitled2.ipynb",
             "notebooks/scripts/Untitled.py", "notebooks/scripts/Untitled2.py"]
    ignored = subprocess.run(["git", "check-ignore", *names], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert ignored == names
    tour = subprocess.run(["git", "check-ignore", "notebooks/01_scopes_and_variables.ipynb"],
                          cwd=ROOT, capture_output=True)
    assert tour.returncode == 1                     # the tour is never ignored


@needs_git
def test_a_saved_working_copy_is_read_as_committed(tmp_path):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(git + ["init", "-q", str(tmp_path)], check=True)
    notebook = tmp_path / "01_x.ipynb"
    notebook.write_text("as committed")
    subprocess.run(git + ["add", "01_x.ipynb"], cwd=tmp_path, check=True)
    subprocess.run(git + ["commit", "-qm", "x"], cwd=tmp_path, check=True)
    notebook.write_text("saved in the lab after a run")
    assert committed_text(notebook, root=tmp_path) == "as committed"
    assert differs_from_commit(notebook, root=tmp_path)
    fresh = tmp_path / "02_new.ipynb"                 # not committed yet: the file on disk
    fresh.write_text("new")
    assert committed_text(fresh, root=tmp_path) == "new"
