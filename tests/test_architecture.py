"""The package's layering (docs/design.md, "Layers"), checked on the source with `ast`.

Each layer may import only the layers listed before it in ORDER. The headless layers never
import a widget or display library at module level, and `import paddle_nb` stays light.
"""
import ast
import json
import os
import pathlib
import subprocess
import sys


ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "paddle_nb"

ORDER = ["proto", "core", "ops", "framework", "executor", "passes", "autodiff", "layers", "io",
         "viz"]
FILES = {"backward": "autodiff", "optimizer": "autodiff", "io": "io",
         # PaddlePaddle 2.x's vocabulary, beside the Fluid-1.8 layers
         "nn": "layers", "static": "io", "tensor": "layers", "utils": "layers",
         "vision": "layers", "linalg": "layers"}

HEADLESS_LAYERS = ["core", "ops", "framework", "executor"]
VIEWER_LIBRARIES = ["ipywidgets", "anywidget", "graphviz", "IPython"]
NOT_LOADED_BY_IMPORT = ["paddle_nb.viz", "ipywidgets", "anywidget", "graphviz", "IPython"]


def layer_of(module):
    """The layer a dotted module name belongs to, or None outside the layers.

    >>> layer_of("paddle_nb.core.scope"), layer_of("paddle_nb.backward"), layer_of("numpy")
    ('core', 'autodiff', None)
    """
    parts = module.split(".")
    if parts[0] != "paddle_nb" or len(parts) < 2:
        return None
    head = parts[1]
    return FILES.get(head, head if head in ORDER else None)


def source_files():
    assert PACKAGE.is_dir(), f"no package at {PACKAGE}"
    return sorted(PACKAGE.rglob("*.py"))


def dotted_parts(path):
    """('paddle_nb', 'core', 'scope') for paddle_nb/core/scope.py; '__init__' is kept."""
    return path.relative_to(ROOT).with_suffix("").parts


def imported_modules(node, parts):
    """Every module name an import statement can load, relative imports resolved.

    `from paddle_nb import viz` names both `paddle_nb` and `paddle_nb.viz`.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = list(parts[: len(parts) - node.level])
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        return [module] + [f"{module}.{alias.name}" for alias in node.names if alias.name != "*"]
    return []


def parse(path):
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def is_type_checking_guard(node):
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level_imports(tree):
    """Import statements that run when the module is imported: not inside a function body,
    nor under `if TYPE_CHECKING:` (class bodies do run at import, so they count)."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If) and is_type_checking_guard(child):
                for other in child.orelse:
                    visit_statement(other)
                continue
            visit_statement(child)

    def visit_statement(node):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        visit(node)

    visit(tree)
    return found


def test_each_layer_imports_only_the_layers_before_it():
    problems = []
    for path in source_files():
        parts = dotted_parts(path)
        me = layer_of(".".join(parts))
        if me is None:
            continue
        rel = path.relative_to(ROOT)
        try:
            tree = parse(path)
        except SyntaxError as error:
            problems.append(f"{rel}: does not parse: {error}")
            continue
        for node in ast.walk(tree):
            reported = []  # one line per later layer an import statement reaches
            for name in imported_modules(node, parts):
                other = layer_of(name)
                if other and other != me and ORDER.index(other) > ORDER.index(me):
                    if other not in reported:
                        reported.append(other)
                        problems.append(
                            f"{rel}:{node.lineno}: layer '{me}' imports '{name}' "
                            f"(layer '{other}' comes after it)"
                        )
    assert not problems, "imports that break the layering (ORDER = %s):\n%s" % (
        " < ".join(ORDER),
        "\n".join(problems),
    )


def test_headless_layers_import_no_viewer_library_at_module_level():
    problems = []
    for path in source_files():
        parts = dotted_parts(path)
        if layer_of(".".join(parts)) not in HEADLESS_LAYERS:
            continue
        rel = path.relative_to(ROOT)
        try:
            tree = parse(path)
        except SyntaxError:
            continue  # reported by the layering test
        for node in module_level_imports(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in VIEWER_LIBRARIES:
                    problems.append(f"{rel}:{node.lineno}: imports '{name}' at module level")
    assert not problems, "the %s layers must not import %s at module level:\n%s" % (
        ", ".join(HEADLESS_LAYERS),
        ", ".join(VIEWER_LIBRARIES),
        "\n".join(problems),
    )


PROBE = """
import json, sys
try:
    import paddle_nb
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
    sys.exit(0)
print(json.dumps({"loaded": [name for name in %r if name in sys.modules]}))
""" % (NOT_LOADED_BY_IMPORT,)


def test_import_paddle_nb_does_not_load_the_viewer():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert "error" not in report, f"`import paddle_nb` fails: {report.get('error')}"
    assert report["loaded"] == [], f"`import paddle_nb` loaded {report['loaded']}"
