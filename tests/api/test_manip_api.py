"""The 2.x manipulation, search, creation and indexing API against PaddlePaddle 2.6.2.

interop/api/manip_api_cases.py holds cases both frameworks build through their public API
(``paddle.reshape``, ``paddle.sort``, ``x[:, 1:3]``, ``paddle.static.setitem`` ...);
interop/api/manip_api_refs.py ran them with PaddlePaddle 2.6.2 and wrote what it built (the
forward op types in order, each output's name, declared shape and dtype) and computed (the
outputs, and the gradients of ``sum(out * w)`` for the differentiable feeds). Here
paddle_nb builds each case the same way and must append the same ops, name and declare its
outputs the same, compute the same values, and declare what its kernels produce.
"""

import json
import types

import numpy as np
import pytest

import paddle_nb as pd
from interop.api.manip_api_cases import CASES, NO_VALUES, OPS_DIFFER
from paddle_nb.tensor import indexing
from tests.ops.paddle26 import FIXTURES

FIXTURE_DIR = FIXTURES.parent / "api"
WRITER = "interop/api/manip_api_refs.py"
API = types.SimpleNamespace(paddle=pd, setitem=indexing.setitem)
# 2.6.2 declares the indices of paddle.kthvalue and paddle.mode float32 (int64 when they run;
# paddle_nb declares int64)
PADDLE_DECLARES_WRONG = {"kthvalue_0.tmp_1", "mode_0.tmp_1"}


def _reference():
    info, arrays = FIXTURE_DIR / "manip_api.json", FIXTURE_DIR / "manip_api.npz"
    if not (info.is_file() and arrays.is_file()):
        pytest.fail(f"{FIXTURE_DIR}/manip_api.* are absent ({WRITER} writes them)")
    with np.load(arrays) as values:
        return json.loads(info.read_text())["cases"], {k: values[k] for k in values.files}


def _build(name, ref):
    feeds, build = CASES[name]
    main = pd.Program()
    with pd.program_guard(main, pd.Program()), pd.utils.unique_name.guard():
        v = {}
        for k, (a, grad) in feeds.items():
            v[k] = pd.layers.data(k, list(a.shape), str(a.dtype), append_batch_size=False)
            v[k].stop_gradient = not grad
        outs = build(API, v)
        ops = [op.type for op in main.global_block().ops]
        names = [o["name"] for o in ref["outputs"]]
        loss = None
        for w, out_name in ref["weights"].items():
            o = outs[names.index(out_name)]
            weight = pd.layers.data(w, [-1] * len(o.shape), o.dtype, append_batch_size=False)
            term = pd.layers.reduce_sum(o * weight)
            if term.dtype != np.float32:        # (PaddlePaddle adds float64 terms as they are)
                term = pd.cast(term, "float32")
            loss = term if loss is None else loss + term
        wrt = [v[k] for k in ref["grads"]]
        grads = pd.gradients([loss], wrt) if wrt else []
    return main, outs, ops, grads


@pytest.fixture(scope="module")
def reference():
    return _reference()


@pytest.mark.parametrize("name", sorted(CASES))
def test_builds_what_paddle_builds(name, reference):
    infos, _ = reference
    ref = infos[name]
    _, outs, ops, _ = _build(name, ref)
    if name not in OPS_DIFFER:
        assert ops == ref["ops"], f"{name}: ops {ops}\n  paddle {ref['ops']}"
    for o, want in zip(outs, ref["outputs"]):
        assert o.name == want["name"], f"{name}: output {o.name}, paddle {want['name']}"
        assert list(o.shape) == want["shape"], f"{name}: {o.name} declared {list(o.shape)}, " \
                                               f"paddle {want['shape']}"
        if o.name not in PADDLE_DECLARES_WRONG:
            assert o.dtype.name == want["dtype"], \
                f"{name}: {o.name} is {o.dtype}, paddle {want['dtype']}"
    assert len(outs) == len(ref["outputs"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_computes_what_paddle_computes(name, reference):
    infos, arrays = reference
    ref = infos[name]
    main, outs, _, grads = _build(name, ref)
    feed = {k[len(name) + 6:]: a for k, a in arrays.items() if k.startswith(f"{name}/feed/")}
    got = pd.Executor(pd.CPUPlace()).run(main, feed=feed, fetch_list=outs + list(grads),
                                         scope=pd.Scope())
    for i, (o, value) in enumerate(zip(outs, got[:len(outs)])):
        value, want = np.asarray(value), arrays[f"{name}/out/{i}"]
        assert value.dtype == want.dtype and value.shape == want.shape, \
            f"{name}: {o.name} ran {value.dtype}{value.shape}, paddle {want.dtype}{want.shape}"
        assert len(o.shape) == value.ndim and all(
            d in (-1, s) for d, s in zip(o.shape, value.shape)), \
            f"{name}: {o.name} declared {o.shape}, its kernel gave {value.shape}"
        if name not in NO_VALUES:
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}: {o.name}")
    for k, value in zip(ref["grads"], got[len(outs):]):
        np.testing.assert_allclose(np.asarray(value), arrays[f"{name}/grad/{k}"], rtol=1e-5,
                                   atol=1e-6, err_msg=f"{name}: {k}@GRAD")
