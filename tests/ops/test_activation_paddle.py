"""activation_param's ops against PaddlePaddle 2.6.2's own numbers and programs.

tests/fixtures/paddle26/ops/act_refs.npz (written by interop/ops/act_refs.py in
the interop venv) holds, per case, the inputs, PaddlePaddle's ``Out`` and
``X@GRAD``, and the program PaddlePaddle built: the op and its grad op reading
a fed output gradient. Each case is checked twice: the kernels straight from
the registry, and PaddlePaddle's program parsed and run by paddle_nb's
Executor (its grad op's slots and attributes as PaddlePaddle wrote them).
Inputs include the kinks themselves, so ties are decided as PaddlePaddle does.
"""

import json
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from tests.ops import harness

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/act_refs.npz"
DATA = np.load(FIXTURE)
INDEX = json.loads(str(DATA["index"]))
# float32: a few ulp, and 2e-6 absolute where gelu's tanh form cancels (1 + tanh near -1)
TOL = {np.dtype(np.float32): (1e-5, 2e-6), np.dtype(np.float64): (1e-13, 1e-15)}
# 2.6's mish takes log(1 + exp(x)), which loses digits where exp(x) is tiny; paddle_nb uses log1p
LOOSER = {"mish64": (1e-7, 1e-15)}


def _close(got, want, what):
    rtol, atol = LOOSER.get(what.split()[0], TOL[want.dtype])
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, PaddlePaddle {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _feed(case):
    return {k: DATA[f"{case['name']}/feed/{k}"] for k in case["feeds"]}


@pytest.mark.parametrize("case", INDEX, ids=[c["name"] for c in INDEX])
def test_kernels_match_paddle(case):
    feed = _feed(case)
    inputs = {"X": feed["x"], **{slot: feed[var] for slot, var in case["slots"].items()}}
    out = harness.forward(case["op"], inputs, case["attrs"])["Out"]
    _close(out, DATA[f"{case['name']}/out"], f"{case['name']} Out")
    dx = harness.analytic_grad(case["op"], inputs, case["attrs"], {"Out": feed["w"]})["X"]
    _close(dx, DATA[f"{case['name']}/dx"], f"{case['name']} X@GRAD")


@pytest.mark.parametrize("case", INDEX, ids=[c["name"] for c in INDEX])
def test_paddles_program_runs(case):
    data = DATA[f"{case['name']}/program"].tobytes()
    program = pd.Program.parse(data)
    types = [op.type for op in program.global_block().ops]
    assert types == [case["op"], case["op"] + "_grad"], types
    exe = pd.Executor(pd.CPUPlace())
    out, dx = exe.run(program, feed=_feed(case), fetch_list=["out", case["dx"]],
                      scope=pd.Scope())
    _close(np.asarray(out), DATA[f"{case['name']}/out"], f"{case['name']} Out")
    _close(np.asarray(dx), DATA[f"{case['name']}/dx"], f"{case['name']} X@GRAD")
    assert program.serialize() == data, "the program no longer serializes to PaddlePaddle's bytes"
