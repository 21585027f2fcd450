"""Helpers for the browser tests: a private JupyterLab server and an offline Chromium.

The tests drive Debian's ``/usr/bin/chromium`` through Playwright's Python API (never a
downloaded browser) against a JupyterLab started here on a free loopback port with a
random token and its own config, runtime and settings folders, so nothing of the user's
setup leaks in. Every request the page makes is routed: requests to 127.0.0.1/localhost
go through, a few CDN files are answered from local copies, anything else is aborted and
remembered, so a test can assert that nothing left the machine. Without chromium or
playwright the tests skip.
"""
import contextlib
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "build" / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def require_browser():
    """Skip (with the reason) unless Playwright and Debian's chromium are both there."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (make sysdeps, or: sudo apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; no browser download)")
    jupyter = pathlib.Path(sys.executable).with_name("jupyter")
    if not jupyter.exists():
        pytest.skip(f"{jupyter} is missing (pip install jupyterlab)")
    return jupyter


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyter_lab(notebook_dir, log_path, kernels=True):
    """Start JupyterLab on 127.0.0.1 serving ``notebook_dir``; yield ``(base_url, token)``.

    ``kernels=False`` offers no kernel at all, so a notebook opens as a reader finds it:
    stored outputs only, nothing run (JupyterLab says "No Kernel").
    """
    jupyter = require_browser()
    port, token = free_port(), secrets.token_hex(16)
    home = pathlib.Path(notebook_dir).parent / "jupyter-home"
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "IPYTHONDIR": str(home / "ipython"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    })
    _lab_settings(home / "settings")
    args = [str(jupyter), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
            f"--ServerApp.token={token}", f"--ServerApp.root_dir={notebook_dir}",
            "--ServerApp.port_retries=0", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if not kernels:
        args.append("--KernelSpecManager.allowed_kernelspecs=no-such-kernel")
    if hasattr(os, "getuid") and os.getuid() == 0:
        args.append("--allow-root")
    with open(log_path, "wb") as log:
        server = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env,
                                  start_new_session=True)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_ready(server, f"{base}/api/status?token={token}", log_path)
            yield base, token
        finally:
            _stop(server)


def _lab_settings(folder):
    """No news and no update checks (nothing asks the internet anything); every cell drawn
    (no windowing: a widget below the fold is on the page too)."""
    files = {
        ("@jupyterlab", "apputils-extension", "notification"):
            '{"fetchNews": "false", "checkForUpdates": false}',
        ("@jupyterlab", "notebook-extension", "tracker"):
            '{"windowingMode": "none", "autoStartDefaultKernel": true}',
    }
    for (scope, plugin, name), text in files.items():
        path = folder / scope / plugin
        path.mkdir(parents=True, exist_ok=True)
        (path / f"{name}.jupyterlab-settings").write_text(text)


def _wait_ready(server, url, log_path, timeout=45):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyter lab exited ({server.returncode}):\n"
                               + pathlib.Path(log_path).read_text(errors="replace")[-3000:])
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("jupyter lab did not answer in time:\n"
                       + pathlib.Path(log_path).read_text(errors="replace")[-3000:])


def _stop(server):
    """Stop the server we started (its own process group: the kernels it started go too)."""
    if server.poll() is not None:
        return
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=5)


@contextlib.contextmanager
def offline_page(playwright, viewport=(1280, 1000), serve=None):
    """A Chromium page whose requests may reach only this machine; yields ``(page, blocked)``.

    A request elsewhere is answered from the local file ``serve(url)`` names, when it names
    one, and is otherwise aborted and listed in ``blocked``.
    """
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                         headless=True)
    blocked = []

    def route(r):
        url = r.request.url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("data", "blob", "file") or parts.hostname in LOCAL_HOSTS:
            r.continue_()
            return
        local = serve(url) if serve is not None else None
        if local is not None and pathlib.Path(local).is_file():
            r.fulfill(path=str(local))
        else:
            blocked.append(url)
            r.abort()

    try:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                      service_workers="block")
        context.route("**/*", route)
        yield context.new_page(), blocked
    finally:
        browser.close()


def cdn_file(url):
    """The local copy of a CDN file a static widget export loads (see fetch_widget_js.py)."""
    from tests.browser.fetch_widget_js import TARGET
    path = urllib.parse.urlsplit(url).path
    if "/@jupyter-widgets/html-manager@" in path and "/dist/" in path:
        return TARGET / "html-manager" / "dist" / path.split("/dist/", 1)[1]
    if path.endswith(("/require.min.js", "/require.js")):
        return TARGET / "requirejs" / "require.js"
    if "/anywidget@" in path and path.endswith("/dist/index.js"):
        import anywidget
        return pathlib.Path(anywidget.__file__).parent / "nbextension" / "index.js"
    return None


def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


def copy_fixture(name, dest):
    """Copy a fixture notebook into ``dest`` (the server's root), leaving ours unchanged."""
    target = pathlib.Path(dest) / name
    shutil.copy(HERE / name, target)
    return target
