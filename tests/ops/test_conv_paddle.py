"""paddle_nb's convolution family against numbers PaddlePaddle 2.6.2 computed.

tests/fixtures/paddle26/ops/conv_refs.npz was written by interop/ops/conv_refs.py
(run with the interop venv): for each case, PaddlePaddle's op (same type and
attributes) ran forward, and ``paddle.static.gradients`` gave the gradients of
sum(Out * G) for a fixed random G. Here the same inputs go through paddle_nb's
kernel and its grad ops (float32 in both), and must agree to float32 rounding;
max_pool2d_with_index's Mask must agree exactly.
"""

import json
import pathlib

import numpy as np
import pytest

from tests.ops import harness

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures/paddle26/ops/conv_refs.npz"
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["cases"]))
# PaddlePaddle 2.6.2's CPU pool2d with pooling_type="max" and adaptive=True does not pool
# adaptive windows: its max pooling ignores `adaptive`, slides ksize windows by `strides` and
# keeps the first ksize outputs (the shape rule's adaptive size; see the test below). paddle_nb
# pools the adaptive windows, as 2.6's adaptive avg pool2d and its max_pool2d_with_index (what
# AdaptiveMaxPool2D writes) both do.
QUIRK = [i for i, c in enumerate(CASES) if c[1] == "pool2d" and c[2].get("adaptive")
         and c[2].get("pooling_type") == "max"]
COMPARED = [i for i in range(len(CASES)) if i not in QUIRK]


def _slots(i, kind):
    prefix = f"{i}/{kind}/"
    return {k[len(prefix):]: DATA[k] for k in DATA.files if k.startswith(prefix)}


def _close(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PaddlePaddle {want.shape}"
    if want.dtype.kind == "i":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=what)


@pytest.mark.parametrize("i", COMPARED, ids=[f"{CASES[i][1]}: {CASES[i][0]}" for i in COMPARED])
def test_matches_paddle_2_6(i):
    name, op_type, attrs, grads = CASES[i]
    inputs, want_out, want_grad = _slots(i, "in"), _slots(i, "out"), _slots(i, "grad")
    outs = harness.forward(op_type, inputs, attrs)
    for slot, want in want_out.items():
        _close(outs[slot], want, f"{op_type} ({name}) {slot}")
    main_out = "Output" if "Output" in want_out else "Out"
    got = harness.analytic_grad(op_type, inputs, attrs, {main_out: DATA[f"{i}/G"]})
    for slot in grads:
        _close(got[slot], want_grad[slot], f"{op_type} ({name}) {slot}@GRAD")


@pytest.mark.parametrize("i", QUIRK)
def test_paddle_adaptive_max_pool2d_quirk_is_understood(i):
    """What 2.6's pool2d(max, adaptive) computed: ksize windows by strides (here 1), cropped."""
    _, _, attrs, _ = CASES[i]
    x, want = DATA[f"{i}/in/X"], DATA[f"{i}/out/Out"]
    k = attrs["ksize"]
    plain = harness.forward("pool2d", {"X": x}, {"ksize": k, "pooling_type": "max"})["Out"]
    _close(plain[:, :, :k[0], :k[1]], want, "pool2d max, stride 1, cropped")
    adaptive = harness.forward("pool2d", {"X": x}, attrs)["Out"]
    assert not np.allclose(adaptive, want)


# -- a model as PaddlePaddle 2.6's layers write it, trained three SGD steps ------------------------
def _model_file(name):
    return FIXTURE.parent / name


def test_a_vision_model_saved_by_paddle_trains_to_paddles_losses_and_parameters():
    """conv_model.* (interop/ops/conv_model_refs.py): every op of the family and its grad."""
    import paddle_nb as pd
    values = dict(np.load(_model_file("conv_model_io.npz")))
    meta = json.loads(str(values["meta"]))
    main = pd.Program.parse(_model_file("conv_model.main.pb").read_bytes())
    startup = pd.Program.parse(_model_file("conv_model.startup.pb").read_bytes())
    exe, scope = pd.Executor(pd.CPUPlace()), pd.Scope()
    exe.run(startup, scope=scope)
    for p in meta["params"]:        # paddle_nb's random initializers draw other numbers
        scope.find_var(p).get_tensor().set(values[f"init:{p}"], pd.CPUPlace())
    for k in range(meta["steps"]):
        (loss,) = exe.run(main, feed={f: values[f"step{k}/{f}"] for f in meta["feeds"]},
                          fetch_list=[meta["loss"]], scope=scope)
        np.testing.assert_allclose(np.asarray(loss).reshape(-1),
                                   values[f"step{k}:loss"].reshape(-1), rtol=1e-4,
                                   err_msg=f"loss, step {k}")
        for p in meta["params"]:
            np.testing.assert_allclose(scope.find_var(p).get_tensor().numpy(),
                                       values[f"step{k}:{p}"], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{p} after step {k}")
