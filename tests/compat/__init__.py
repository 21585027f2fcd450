"""Compatibility with files written by PaddlePaddle itself (tests/fixtures/paddle/README.md and
tests/fixtures/paddle26/README.md).

``fixture(name)`` is the path of a committed fixture in ``tests/fixtures/paddle``; a missing one
fails the test that asks for it (the fixtures are part of the repository).
"""

from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_DIR = _ROOT / "tests" / "fixtures" / "paddle"

F18 = "f18_staticrnn_ifelse_cond_train"
F18_PARAMS = ["rnn_Wh", "rnn_Wx", "rnn_b"]
F18_LOSS, F18_LOSS0 = "_generated_var_7", "reduce_mean_0.tmp_0"   # cond's select_input, loss0
MLP2_PARAMS = ["fc1.b_0", "fc1.w_0", "fc2.b_0", "fc2.w_0"]
PROGRAM_FILES = [f"{F18}.main.pb", f"{F18}.startup.pb", "mlp2.pdmodel"]


def fixture(name):
    """The path of committed fixture ``name``; fails the test when it is missing."""
    path = FIXTURE_DIR / name
    if not path.is_file():
        pytest.fail(f"PaddlePaddle fixture {name} is missing from {FIXTURE_DIR} (it is committed: "
                    "restore it with git)")
    return path


def fixture_bytes(name):
    return fixture(name).read_bytes()
