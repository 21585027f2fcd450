"""Rich display from the first import, and pd.viz without the notebook extra.

Each check runs in a fresh interpreter, so what ``import paddle_nb`` loads is what a new
kernel loads.
"""

import subprocess
import sys
import textwrap

import pytest

from paddle_nb import display_hook


def run(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_names_registered_at_import_are_the_types_the_viewer_draws():
    from paddle_nb.viz.display import DISPLAYED
    assert {(c.__module__, c.__name__) for c in DISPLAYED} == set(display_hook.DISPLAYED_NAMES)


def test_objects_display_richly_from_the_first_import_and_the_viewer_loads_only_then():
    pytest.importorskip("IPython")
    stdout = run("""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        import paddle_nb as pd
        assert "paddle_nb.viz" not in sys.modules and "graphviz" not in sys.modules
        scope = pd.Scope()
        scope.var("w")
        data, _ = shell.display_formatter.format(scope)
        assert "paddle_nb.viz" in sys.modules                    # loaded on first display
        print("text/html" in data, 'data-var="w"' in data.get("text/html", ""))
        prog = pd.Program()
        with pd.program_guard(prog):
            pd.layers.relu(pd.layers.data("x", shape=[2]))
        data, _ = shell.display_formatter.format(prog)
        print("<svg" in data["text/html"] or "DOT source" in data["text/html"])
    """)
    assert stdout.split() == ["True", "True", "True"]


def test_outside_ipython_nothing_is_registered_and_ipython_is_not_imported():
    assert run("""
        import sys, paddle_nb
        print("IPython" in sys.modules, paddle_nb.display_hook.install())
    """).split() == ["False", "False"]


def test_pictures_work_without_the_notebook_extra_and_widgets_say_what_to_install():
    stdout = run("""
        import sys
        for blocked in ("traitlets", "anywidget", "ipywidgets"):   # as if not installed
            sys.modules[blocked] = None
        import paddle_nb as pd
        prog = pd.Program()
        with pd.program_guard(prog):
            pd.layers.relu(pd.layers.data("x", shape=[2]))
        print(type(pd.viz.graph(prog)).__name__, type(pd.viz.block_tree(prog)).__name__)
        try:
            pd.viz.Dashboard(prog)
        except ImportError as err:
            print("notebook extra" in str(err), "paddle_nb[notebook]" in str(err))
    """)
    lines = stdout.splitlines()
    assert lines[0].split()[0] == "ProgramGraph" and lines[1].split() == ["True", "True"]
