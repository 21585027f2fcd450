"""The 2.x math, logic and stat functions, the activations and the Variable operators,
built here and in PaddlePaddle 2.6.2 from the same line of code.

``interop/api/math_api_refs.py`` (run with PaddlePaddle 2.6.2) built each case's code in
static mode in a fresh ``unique_name.guard()`` and recorded the op types the program holds,
the outputs' and parameters' names, the fetched outputs and the feeds' gradients of
``sum(out * w)``. Here the same code runs with ``import paddle_nb as paddle`` and must give
all of it back: same ops, same names, same values, shapes and dtypes (as fetched and as the
program declares them), same gradients.
"""

import pathlib

import numpy as np
import pytest

import paddle_nb as paddle
import paddle_nb.nn as nn
import paddle_nb.nn.functional as F
from paddle_nb.framework import unique_name

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "api" / \
    "math_api_refs.npz"
DIFFERENTIABLE = ("x", "y", "p", "z", "w")


def _load():
    if not FIXTURE.is_file():
        return {}, {}
    feeds, cases = {}, {}
    with np.load(FIXTURE) as values:
        for key in values.files:
            head, *rest = key.split("/")
            if head == "feed":
                feeds[rest[0]] = values[key]
                continue
            case = cases.setdefault(head, {"fetch": {}, "weight": {}})
            if rest[0] in ("fetch", "weight"):
                case[rest[0]]["/".join(rest[1:])] = values[key]
            else:
                case[rest[0]] = values[key]
    return feeds, cases


FEEDS, CASES = _load()


def _build(case):
    """The case's code built in a fresh program and name generator, with its loss."""
    main, startup = paddle.Program(), paddle.Program()
    with unique_name.guard(), paddle.program_guard(main, startup):
        names = {n: paddle.layers.data(n, list(v.shape), v.dtype.name, append_batch_size=False,
                                       stop_gradient=n not in DIFFERENTIABLE)
                 for n, v in FEEDS.items()}
        outs = eval(str(case["code"]), {"paddle": paddle, "F": F, "nn": nn, **names})
        ops = [op.type for op in main.global_block().ops]
        loss = None
        # the outputs PaddlePaddle put in the loss (float ones it did not mark stop_gradient)
        lossed = [next(o for o in outs if o.name == n) for n in case["lossed"]]
        for k, o in enumerate(lossed):
            w = case["weight"][f"lw{k}"]
            term = paddle.sum(o * paddle.layers.data(f"lw{k}", list(w.shape), w.dtype.name,
                                                     append_batch_size=False))
            loss = term if loss is None else loss + term
        if loss is not None:
            paddle.append_backward(loss)
    return main, startup, outs, ops


@pytest.mark.parametrize("name", sorted(CASES) or ["absent"])
def test_same_ops_names_values_and_gradients_as_paddle(name):
    if not CASES:
        pytest.fail(f"{FIXTURE} is absent (interop/api/math_api_refs.py writes it)")
    case = CASES[name]
    main, startup, outs, ops = _build(case)
    assert ops == list(case["ops"]), f"{name}: op types"
    assert [o.name for o in outs] == list(case["outs"]), f"{name}: output names"
    assert [p.name for p in main.global_block().all_parameters()] == list(case["params"])
    scope = paddle.Scope()
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(startup, scope=scope)
    fetch = list(case["fetch"])
    got = exe.run(main, feed={**FEEDS, **case["weight"]}, fetch_list=fetch, scope=scope)
    for n, value in zip(fetch, got):
        want, value = case["fetch"][n], np.asarray(value)
        assert (value.dtype, value.shape) == (want.dtype, want.shape), f"{name}: {n}"
        declared = main.global_block().var(n)
        assert (declared.dtype, len(declared.shape)) == (value.dtype, value.ndim), \
            f"{name}: {n} declared {declared}"
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")
