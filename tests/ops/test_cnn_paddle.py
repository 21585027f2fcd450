"""The CNN kernels' fast paths against numbers PaddlePaddle 2.6.2 computed.

tests/fixtures/paddle26/ops/cnn_refs.npz was written by interop/ops/cnn_refs.py (interop
venv), in test_conv_paddle.py's layout: each op alone, forward, then the gradients of
sum(Out * G). The cases aim at what the speed work changed: max pooling's gradient taken
from Out where windows hold ties (the first max must get it, as in Paddle), global windows
as one reduction, 1x1 filters read in place, col2im with the batch last, at LeNet-5's and
ResNet-18's shapes. Also: the reused im2col work array never leaks into a result.
"""

import json
import pathlib

import numpy as np
import pytest

from tests.ops import harness

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/cnn_refs.npz"
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["cases"]))


def _slots(i, kind):
    prefix = f"{i}/{kind}/"
    return {k[len(prefix):]: DATA[k] for k in DATA.files if k.startswith(prefix)}


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[1]}: {c[0]}" for c in CASES])
def test_matches_paddle_2_6(i):
    name, op_type, attrs, grads = CASES[i]
    inputs, want_out, want_grad = _slots(i, "in"), _slots(i, "out"), _slots(i, "grad")
    outs = harness.forward(op_type, inputs, attrs)
    main_out = "Output" if "Output" in want_out else "Out"
    np.testing.assert_allclose(outs[main_out], want_out[main_out], rtol=2e-5, atol=2e-5,
                               err_msg=f"{op_type} ({name}) {main_out}")
    got = harness.analytic_grad(op_type, inputs, attrs, {main_out: DATA[f"{i}/G"]})
    for slot in grads:
        np.testing.assert_allclose(got[slot], want_grad[slot], rtol=2e-5, atol=2e-5,
                                   err_msg=f"{op_type} ({name}) {slot}@GRAD")


def test_max_pool_grad_ties_go_to_the_first_max_only():
    """A window of equal values: its whole gradient lands on its first pixel."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    attrs = {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}
    g = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    dx = harness.analytic_grad("pool2d", {"X": x}, attrs, {"Out": g})["X"]
    want = np.zeros((1, 1, 4, 4), np.float32)
    want[0, 0, ::2, ::2] = g[0, 0]
    np.testing.assert_array_equal(dx, want)


def test_results_do_not_share_the_reused_work_array():
    """Two convolutions of other shapes after a first leave its result as it was."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 9, 9)).astype(np.float32), rng.standard_normal(
        (4, 3, 3, 3)).astype(np.float32)
    first = harness.forward("conv2d", {"Input": x, "Filter": w}, {"paddings": [1, 1]})["Output"]
    kept = first.copy()
    for shape in ((1, 3, 12, 5), (3, 3, 9, 9)):
        harness.forward("conv2d", {"Input": rng.standard_normal(shape).astype(np.float32),
                                   "Filter": w}, {"paddings": [1, 1]})
    np.testing.assert_array_equal(first, kept)


@pytest.mark.gpu
@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[1]}: {c[0]}" for c in CASES])
def test_forward_and_grad_kernels_run_on_the_device(i, device):
    """The same kernels on ``xp`` = CuPy (or tests/fake_cupy.py, which refuses NumPy arrays
    mixed into device code): forward and the grad op give the CPU's numbers."""
    from paddle_nb.core import GPUPlace
    name, op_type, attrs, _ = CASES[i]
    inputs = _slots(i, "in")
    main_out = "Output" if op_type.startswith(("conv", "depthwise")) else "Out"
    out = harness.forward(op_type, inputs, attrs)[main_out]
    grad_in = {**inputs, main_out + "@GRAD": DATA[f"{i}/G"]}
    if main_out == "Out":
        grad_in["Out"] = out
    for op, ins in ((op_type, inputs), (op_type + "_grad", grad_in)):
        cpu = harness.forward(op, ins, attrs)
        dev = harness.forward(op, {k: device.asarray(v) for k, v in ins.items()}, attrs,
                              place=GPUPlace(0))
        for slot, value in cpu.items():
            if value is not None:
                # a GPU sums a filter's products in another order than the CPU's GEMM: float32
                # rounding of a sum of a few hundred terms, relative to the largest value
                atol = 32 * np.finfo(np.float32).eps * max(1.0, float(np.abs(value).max()))
                np.testing.assert_allclose(device.asnumpy(dev[slot]), value, rtol=1e-5,
                                           atol=atol, err_msg=f"{op} ({name}) {slot}")
