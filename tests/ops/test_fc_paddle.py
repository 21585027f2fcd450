"""``fc`` against PaddlePaddle 2.6.2 (tests/fixtures/paddle26/ops/fc_ops.npz, written by
interop/ops/fc_refs.py): its programs parsed here give its numbers, shapes and dtypes."""

import pathlib

import numpy as np
import pytest

import paddle_nb as pd

FIXTURE = (pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops"
           / "fc_ops.npz")
DATA = dict(np.load(FIXTURE))
CASES = sorted({key.split("/")[0] for key in DATA})


@pytest.mark.parametrize("case", CASES)
def test_paddles_fc_program_gives_paddles_numbers(case):
    program = pd.Program.parse(DATA[f"{case}/program"].tobytes())
    feed = {k.split("/")[2]: v for k, v in DATA.items() if k.startswith(f"{case}/feed/")}
    (fc,) = [op for op in program.global_block().ops if op.type == "fc"]
    (got,) = pd.Executor(pd.CPUPlace()).run(program, feed=feed, fetch_list=fc.output("Out"),
                                            scope=pd.Scope())
    want = DATA[f"{case}/fetch/out"]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    declared = program.global_block().var(fc.output("Out")[0])
    assert declared.dtype == got.dtype
    assert all(d in (-1, s) for d, s in zip(declared.shape, got.shape))
