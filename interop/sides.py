"""The two sides of an interop check: paddle_nb's process and PaddlePaddle's.

Each side runs with its own venv (paddle_nb's, and ``.venv-interop`` with PaddlePaddle and
NumPy 1.x), so each check is one script run three ways: ``script.py nb``
under paddle_nb's venv and ``script.py paddle`` under ``.venv-interop`` each write a report
into a work folder, and ``script.py all`` (the default) runs both as subprocesses, then
reads the reports. ``parser`` declares the options every such script shares, and
``run_side`` runs one side, stopping the check with that side's output when it fails.
"""

import argparse
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def parser(doc, work):
    """An ArgumentParser with the shared options: the side, ``--work`` (default ``work``)
    and the two interpreters; the script adds its own."""
    out = argparse.ArgumentParser(description=doc.splitlines()[0])
    out.add_argument("side", nargs="?", default="all", choices=("all", "nb", "paddle"))
    out.add_argument("--work", type=pathlib.Path, default=work,
                     help="where each side writes its files and its report")
    out.add_argument("--nb-python", default=str(ROOT / ".venv/bin/python"))
    out.add_argument("--paddle-python", default=str(ROOT / ".venv-interop/bin/python"))
    return out


def sides(args):
    """``[(side, python)]`` in the order they run: paddle_nb writes, then PaddlePaddle reads."""
    return [("nb", args.nb_python), ("paddle", args.paddle_python)]


def run_side(script, side, python, options):
    """Run ``python script side *options`` from the repository root; its seconds.

    A side that fails stops the check (SystemExit) after printing what it wrote.
    """
    start = time.perf_counter()
    done = subprocess.run([python, str(script), side, *options], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"{pathlib.Path(script).stem}: the {side} side ({python}) failed, "
                         f"exit status {done.returncode}")
    return time.perf_counter() - start
