"""Compatibility with files written by PaddlePaddle itself (tests/fixtures/paddle26/README.md).

``fixture(name)`` is the path of a committed fixture; a test skips when the fixtures are absent.
"""

from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
FIXTURE_DIRS = [_ROOT / "tests" / "fixtures" / "paddle", _ROOT.parent / "shared" / "fixtures" / "paddle"]

F18 = "f18_staticrnn_ifelse_cond_train"
F18_PARAMS = ["rnn_Wh", "rnn_Wx", "rnn_b"]
F18_LOSS, F18_LOSS0 = "_generated_var_7", "reduce_mean_0.tmp_0"   # cond's select_input, loss0
MLP2_PARAMS = ["fc1.b_0", "fc1.w_0", "fc2.b_0", "fc2.w_0"]
PROGRAM_FILES = [f"{F18}.main.pb", f"{F18}.startup.pb", "mlp2.pdmodel"]


def fixture(name):
    """The path of fixture ``name``; skips the test when no fixture directory has it."""
    for directory in FIXTURE_DIRS:
        path = directory / name
        if path.is_file():
            return path
    pytest.skip(f"PaddlePaddle fixture {name} is absent (looked in "
                f"{', '.join(str(d) for d in FIXTURE_DIRS)})")


def fixture_bytes(name):
    return fixture(name).read_bytes()
