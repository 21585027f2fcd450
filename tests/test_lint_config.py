"""`make lint`'s settings cannot be weakened without this test saying so.

`make test` runs ruff and mypy first (the Makefile's ``lint`` target); their settings live
in pyproject.toml. These tests read those settings and require: mypy checks every function
body of paddle_nb; every function of the strict modules (the core, the framework, the op
machinery's context, and the annotated public API) carries annotations; ruff checks
paddle_nb, tests, bench, tools and interop with the rules below and lines of 100 characters;
and any exemption, for mypy or ruff, is one of those listed here (the temporary ones name
the branch that is to remove them). A new exemption means editing this file too, in the
same change, where a reviewer sees it.
"""
import ast
import fnmatch
import pathlib
import re

try:
    import tomllib
except ImportError:             # Python 3.10: mypy's own dependency reads TOML there
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MYPY = CONFIG["tool"]["mypy"]
RUFF = CONFIG["tool"]["ruff"]

# modules whose every function must be annotated and every body checked
STRICT = [
    "paddle_nb.errors", "paddle_nb.core.dtypes", "paddle_nb.core.place", "paddle_nb.core.memory",
    "paddle_nb.core.tensor", "paddle_nb.core.tensor_array", "paddle_nb.core.variable",
    "paddle_nb.core.scope", "paddle_nb.core.events", "paddle_nb.ops.machinery.context",
    "paddle_nb.ops.machinery.broadcast", "paddle_nb.ops.machinery.grad",
    "paddle_nb.ops.machinery.tensor_args", "paddle_nb.ops.machinery.tensor_stream",
    "paddle_nb.ops.machinery.registry",
    "paddle_nb.framework.block", "paddle_nb.framework.variable", "paddle_nb.framework.operator",
    "paddle_nb.framework.program", "paddle_nb", "paddle_nb.backward", "paddle_nb.regularizer",
    "paddle_nb.linalg",
]

# (module pattern, setting) pairs that may turn a check off, and why
MYPY_EXEMPTIONS = {
    # framework_pb2 is protoc's output, read by no checker
    ("paddle_nb.proto.framework_pb2", "follow_imports"),
    # libraries without type information
    ("cupy", "ignore_missing_imports"), ("graphviz", "ignore_missing_imports"),
    ("paddle", "ignore_missing_imports"), ("google.protobuf", "ignore_missing_imports"),
    # SciPy (the optional fast extra: gelu's erf) ships no type information
    ("scipy", "ignore_missing_imports"), ("scipy.*", "ignore_missing_imports"),
    # a widget's traitlets declare its state
    ("paddle_nb.viz.*", "disable_error_code"),
}
WEAKENING = {"ignore_errors", "check_untyped_defs", "disallow_untyped_defs", "follow_imports",
             "ignore_missing_imports", "disable_error_code", "allow_untyped_defs"}

RUFF_SELECT = {"E4", "E501", "E7", "E9", "F", "W"}
# file pattern -> the rules it may ignore
RUFF_EXEMPTIONS = {
    "__init__.py": {"F401"},                       # a package's __init__ re-exports names
}


def overrides():
    for block in MYPY.get("overrides", []):
        modules = block["module"]
        for module in [modules] if isinstance(modules, str) else modules:
            yield module, block


def strictness(module):
    """(disallow_untyped_defs, check_untyped_defs) mypy applies to ``module``: the global
    settings, then each matching override in order (a later one wins, as in mypy)."""
    settings = {"disallow_untyped_defs": MYPY.get("disallow_untyped_defs", False),
                "check_untyped_defs": MYPY.get("check_untyped_defs", False)}
    for pattern, block in overrides():
        if module == pattern or (pattern.endswith(".*") and
                                 (module + ".").startswith(pattern[:-1])):
            settings.update({k: v for k, v in block.items() if k in settings})
    return settings["disallow_untyped_defs"], settings["check_untyped_defs"]


def test_mypy_checks_the_whole_package_and_every_body():
    assert MYPY["files"] == ["paddle_nb"]
    assert MYPY["exclude"] == ["paddle_nb/proto/framework_pb2\\.py$"]
    assert MYPY["check_untyped_defs"] is True
    assert MYPY.get("ignore_errors", False) is False
    assert MYPY.get("ignore_missing_imports", False) is False
    for flag in ("no_implicit_optional", "warn_unused_ignores", "strict_equality"):
        assert MYPY[flag] is True, flag


def test_the_strict_modules_are_annotated_and_checked():
    loose = [m for m in STRICT if strictness(m) != (True, True)]
    assert not loose, f"not strict: {loose}"


def test_the_public_api_packages_are_strict():
    """Every module of the 2.x API and the Fluid layers (tensor, nn, static, optimizer, io,
    layers, vision, utils) is strict, except those named in this test as not annotated yet."""
    not_yet = set(API_NOT_YET)
    loose = []
    for path in sorted((ROOT / "paddle_nb").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        parts = module.split(".")
        if len(parts) < 2 or parts[1] not in API_PACKAGES or module in not_yet:
            continue
        if strictness(module) != (True, True):
            loose.append(module)
    assert not loose, f"public API modules mypy does not hold to annotations: {loose}"
    assert all(strictness(m) != (True, True) for m in not_yet), \
        "a module listed as not annotated yet is strict now: take it off API_NOT_YET"


def test_every_mypy_exemption_is_listed_here():
    found = {(pattern, key) for pattern, block in overrides() for key, value in block.items()
             if key in WEAKENING and value not in (True, False) or
             (key in WEAKENING and key not in ("disallow_untyped_defs", "check_untyped_defs")
              and value) or
             (key in ("disallow_untyped_defs", "check_untyped_defs") and value is False)}
    unlisted = found - MYPY_EXEMPTIONS
    assert not unlisted, f"mypy exemptions not listed in tests/test_lint_config.py: {unlisted}"


def test_ruff_selects_the_rules_with_lines_of_100():
    assert RUFF["line-length"] == 100
    assert set(RUFF["lint"]["select"]) >= RUFF_SELECT
    assert not RUFF["lint"].get("ignore"), "a rule ignored everywhere"
    assert RUFF["extend-exclude"] == ["paddle_nb/proto/framework_pb2.py"]


def test_every_ruff_exemption_is_listed_here():
    for pattern, rules in RUFF["lint"].get("per-file-ignores", {}).items():
        assert set(rules) <= RUFF_EXEMPTIONS.get(pattern, set()), \
            f"ruff exemption not listed in tests/test_lint_config.py: {pattern} {rules}"


def test_make_test_runs_the_linters_first():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lint = re.search(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert lint, "no lint target in the Makefile"
    recipe = lint.group(1)
    assert "ruff check paddle_nb tests bench tools interop" in recipe and "mypy" in recipe
    test = re.search(r"^test:(.*)$", makefile, re.M)
    assert test and "lint" in test.group(1).split()


def test_a_type_checker_sees_the_generated_names():
    """The top-level tensor functions and the in-place forms are made by loops at import; the
    ``if TYPE_CHECKING:`` blocks that show them to a type checker list exactly those names."""
    import paddle_nb
    from paddle_nb.tensor import inplace

    def checked_names(path):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = set()
        for node in tree.body:
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                for sub in node.body:
                    if isinstance(sub, ast.ImportFrom) and sub.module == "paddle_nb.tensor" \
                            and path == "paddle_nb/__init__.py":
                        names.update(a.name for a in sub.names)
                    if isinstance(sub, ast.Assign):
                        names.update(t.id for t in sub.targets if isinstance(t, ast.Name))
        return names

    assert checked_names("paddle_nb/__init__.py") == set(paddle_nb.tensor.__all__)
    assert checked_names("paddle_nb/tensor/inplace.py") == set(inplace.FUNCTIONS)


def test_the_exemption_patterns_name_real_files():
    """An exemption for a file that is gone would hide a new file of that name."""
    for pattern in RUFF["lint"].get("per-file-ignores", {}):
        if pattern != "__init__.py":
            assert any(fnmatch.fnmatch(str(p.relative_to(ROOT)), pattern)
                       for p in (ROOT / "paddle_nb").rglob("*.py")), pattern


API_PACKAGES = {"tensor", "nn", "static", "optimizer", "io", "layers", "vision", "utils"}
# not annotated yet (an annotated module comes off this list and becomes strict in pyproject.toml):
# none now; a module added here must be loose in pyproject.toml too
API_NOT_YET: list[str] = []
