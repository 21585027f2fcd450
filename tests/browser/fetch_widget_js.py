"""Fetch the JavaScript a static HTML export of widgets loads, for the offline browser test.

A notebook exported by nbconvert with its widget state embedded draws its widgets with
``@jupyter-widgets/html-manager`` (``embed-amd.js``) and RequireJS, which the page loads
from a CDN; anywidget's own front end comes from the anywidget Python package (its AMD
bundle, ``share/jupyter/nbextensions/anywidget/index.js``). The browser test answers
those CDN requests from local files, so this script puts them in ``build/widget-js/``
(gitignored) with ``npm pack`` (one tarball each, no dependency tree):

    .venv/bin/python tests/browser/fetch_widget_js.py

`make widgetjs` (part of `make test`) runs it; the static-export test skips without it.
"""
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = ROOT / "build" / "widget-js"
_SAFE = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
PACKAGES = {"@jupyter-widgets/html-manager@1": "html-manager", "requirejs@2": "requirejs"}


def installed(target=TARGET):
    """True when embed-amd.js and require.js are both in ``target``."""
    return (target / "html-manager" / "dist" / "embed-amd.js").is_file() and \
        (target / "requirejs" / "require.js").is_file()


def fetch(target=TARGET, timeout=120):
    """``npm pack`` each package and unpack it under ``target``; returns ``target``."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (Debian: sudo apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        for spec, folder in PACKAGES.items():
            out = subprocess.run([npm, "pack", "--silent", spec], cwd=tmp, capture_output=True,
                                 text=True, timeout=timeout, check=True)
            tarball = pathlib.Path(tmp) / out.stdout.strip().splitlines()[-1]
            dest = target / folder
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            with tarfile.open(tarball) as tar:
                for member in tar.getmembers():
                    name = pathlib.PurePosixPath(member.name)
                    if member.isfile() and name.parts[0] == "package" and ".." not in name.parts:
                        member.name = str(pathlib.PurePosixPath(*name.parts[1:]))
                        tar.extract(member, dest, **_SAFE)
    return target


if __name__ == "__main__":
    try:
        print(f"fetched into {fetch()}")
    except (RuntimeError, subprocess.SubprocessError) as err:
        sys.exit(f"could not fetch the widget JavaScript: {err}")
