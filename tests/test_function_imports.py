"""Imports inside functions: each one in paddle_nb breaks a real import cycle, or keeps
``import paddle_nb`` from loading the viewer, and says so here.

An import inside a function hides a dependency from a reader of the module's head, and often
hides a cycle that a better layout would remove (a shared piece in its own module, the
dependency going one way). So a new one must be added to ``ALLOWED`` with its reason, and one
that is no longer needed must leave the list. Imports of other packages inside functions
(cupy, graphviz, IPython, paddle: optional) are not counted.
"""
import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "paddle_nb"

# (file under paddle_nb/, imported module) -> why it cannot be at the top of the file
ALLOWED = {
    ("display_hook.py", "paddle_nb.viz.display"):
        "the viewer loads on first display: `import paddle_nb` stays light and needs no "
        "notebook packages",
    ("nn/layer/common.py", "paddle_nb.tensor.manipulation_more"):
        "cycle: paddle_nb.tensor.linalg uses nn.functional, whose package imports nn.layer",
    ("tensor/decomposition.py", "paddle_nb.tensor.linalg_compose"):
        "cycle: linalg_compose composes decomposition's qr and svd",
    ("tensor/selection.py", "paddle_nb.tensor.manipulation"):
        "cycle: manipulation re-exports selection's functions (paddle.tensor.manipulation.gather)",
    ("tensor/search.py", "paddle_nb.tensor.manipulation"):
        "cycle: manipulation imports selection, which uses search.where",
}


def function_level_imports():
    """(file, module) for each ``import paddle_nb...`` written inside a function."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom):
                    modules = [node.module or ""]
                elif isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                else:
                    continue
                for module in modules:
                    if module.split(".")[0] == "paddle_nb":
                        found.add((path.relative_to(PACKAGE).as_posix(), module))
    return found


def test_every_import_inside_a_function_breaks_a_cycle_named_here():
    found = function_level_imports()
    unexplained = sorted(found - set(ALLOWED))
    assert not unexplained, (
        "imports inside functions that hide no cycle (move them to the top of the file), or "
        f"that break one: then add them to ALLOWED with the cycle: {unexplained}")
    stale = sorted(set(ALLOWED) - found)
    assert not stale, f"ALLOWED names imports that are no longer inside a function: {stale}"
