"""Each exercise asks only for what the tour has taught by then (issue 26).

An exercise's hidden solution may call a paddle_nb name (``pd.layers.fc``) or a method
(``.find_scope_of(``) only where the tour, read in its order (the core path first:
01, 02, 06, 03, 04; then the labs), has shown it before the exercise, in a cell, in prose,
or in the exercise's own statement. NumPy's and Python's own names are not checked.
"""
import pathlib
import re
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "notebooks" / "scripts"
ORDER = ["01", "02", "06", "03", "04", "05", "07", "08", "09", "10"]   # notebooks/README.md
PD_NAME = re.compile(r"\bpd(?:\.\w+)+")
METHOD = re.compile(r"\.([a-z_]\w*)\(")
EXERCISES = re.compile(r"^# ## (?:\d+ · )?Exercises", re.MULTILINE)
SOLUTION = re.compile(r"<details>.*?</details>", re.DOTALL)
PLAIN = (np, np.ndarray, np.random.default_rng(0), dict, list, str, set, tuple)


def scripts_in_order():
    found = {path.name[:2]: path for path in SCRIPTS.glob("[0-9][0-9]_*.py")}
    assert sorted(found) == sorted(ORDER), "a notebook is missing from ORDER"
    return [found[number] for number in ORDER]


def unexplained():
    """{notebook: names its exercises' solutions use that nothing before them showed}."""
    taught, missing = "", {}
    for path in scripts_in_order():
        text = path.read_text(encoding="utf-8")
        heading = EXERCISES.search(text)
        if heading is None:
            taught += text
            continue
        taught += text[:heading.start()] + SOLUTION.sub("", text[heading.start():])
        solutions = "\n".join(SOLUTION.findall(text[heading.start():]))
        words = set(re.findall(r"\w+", taught))
        names = {n for n in PD_NAME.findall(solutions) if n not in taught}
        methods = {m for m in METHOD.findall(solutions) if m not in words
                   and not any(hasattr(kind, m) for kind in PLAIN)}
        if names | methods:
            missing[path.name] = sorted(names | methods)
        taught += solutions         # a later notebook may use what a solution showed
    return missing


def test_every_exercise_uses_only_what_the_tour_has_taught_by_then():
    assert unexplained() == {}, ("exercise solutions use names not taught before them "
                                 "(teach them, name them in the statement, or use another)")


@pytest.mark.parametrize("solution, expected", [
    ("pd.layers.relu(x)", ["pd.layers.relu", "relu"]),
    ("prog.clone(for_test=True)", ["clone"]),
    ("np.maximum(a, 0)", []),
])
def test_the_check_sees_an_untaught_name(tmp_path, monkeypatch, solution, expected):
    for number in ORDER:
        body = "# %%\nx = pd.layers.data('x', shape=[1])\n"
        if number == "10":
            body += f"# %% [markdown]\n# ## Exercises\n# <details>\n# {solution}\n# </details>\n"
        (tmp_path / f"{number}_n.py").write_text(body, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SCRIPTS", tmp_path)
    assert unexplained() == ({"10_n.py": expected} if expected else {})
