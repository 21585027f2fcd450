"""PaddlePaddle 2.6.2's own numbers for the math, reduction, logic and activation ops
(paddle_nb/ops/{math_unary,activation_more,reduce_more,elementwise_more,bitwise,math_more,
cumulative,special}.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/math_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with paddle's public API, adds ``sum(out * w)`` for
every float output and ``append_backward`` (tensor_refs.py's ``run_case``, shared), runs it on
the CPU and stores the serialized program, the feeds and the fetches (outputs and ``x@GRAD``)
in ``math_refs.npz``. tests/ops/test_math_paddle.py runs each program in paddle_nb.
"""

import argparse
import pathlib
import sys

import numpy as np
import paddle
import paddle.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tensor_refs import run_case   # noqa: E402  (the shared builder: feeds, loss, backward)

rng = np.random.default_rng(2606)


def uniform(lo, hi, *shape):
    return rng.uniform(lo, hi, shape).astype("float32")


def off_integers(lo, hi, *shape):
    """Values 0.1 or more away from integers and half-integers (rounding's jumps)."""
    x = rng.uniform(lo, hi, shape)
    frac = x - np.floor(x)
    x = np.floor(x) + np.clip(frac, 0.1, 0.9)
    x = np.where(np.abs(x - np.floor(x) - 0.5) < 0.1, np.floor(x) + 0.3, x)
    return x.astype("float32")


def signed(lo, hi, *shape):
    return (uniform(lo, hi, *shape) * np.where(rng.random(shape) < 0.5, -1, 1)).astype("float32")


INTS = np.array([[7, -7, 7, -7], [9, -9, 0, 5]], "int32")
DIVS = np.array([[2, 2, -2, -2], [4, 4, 3, -3]], "int32")
SPECIAL = np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]], "float32")
TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 2.0, -1.0]], "float32")

# case name -> (feeds {name: (array, differentiable)}, build(vars) -> [outputs])
CASES = {
    "trig": ({"x": (uniform(-0.9, 0.9, 2, 3), True), "c": (uniform(1.2, 3, 2, 3), True)},
             lambda v: [paddle.sin(v["x"]), paddle.cos(v["x"]), paddle.tan(v["x"]),
                        paddle.asin(v["x"]), paddle.acos(v["x"]), paddle.atan(v["x"]),
                        paddle.sinh(v["x"]), paddle.cosh(v["x"]), paddle.asinh(v["x"]),
                        paddle.atanh(v["x"]), paddle.acosh(v["c"])]),
    "rounding": ({"x": (off_integers(-3, 3, 3, 4), True)},
                 lambda v: [paddle.floor(v["x"]), paddle.ceil(v["x"]), paddle.round(v["x"]),
                            paddle.trunc(v["x"]), paddle.sign(v["x"])]),
    "round_halves": ({"x": (np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], "float32"), False)},
                     lambda v: [paddle.round(v["x"])]),
    "logs": ({"x": (uniform(0.2, 4, 3, 4), True), "s": (signed(0.3, 3, 3, 4), True)},
             lambda v: [paddle.log2(v["x"]), paddle.log10(v["x"]), paddle.log1p(v["x"]),
                        paddle.expm1(v["s"]), paddle.rsqrt(v["x"]), paddle.reciprocal(v["s"]),
                        paddle.erf(v["s"])]),
    "gammas": ({"x": (uniform(0.2, 8, 2, 4), True), "n": (off_integers(-3.9, -0.1, 6), True)},
               lambda v: [paddle.lgamma(v["x"]), paddle.digamma(v["x"]),
                          paddle.lgamma(v["n"]), paddle.digamma(v["n"])]),
    "shaped_activations": ({"x": (signed(0.1, 3, 3, 4), True),
                            "p": (uniform(0.05, 0.95, 3, 4), True)},
                           lambda v: [F.softsign(v["x"]), F.tanhshrink(v["x"]),
                                      F.thresholded_relu(v["x"]), F.thresholded_relu(v["x"], 0.5),
                                      paddle.stanh(v["x"]), paddle.stanh(v["x"], 1.5, 0.5),
                                      paddle.logit(v["p"]), paddle.logit(v["p"], 0.2),
                                      F.selu(v["x"]), F.celu(v["x"]), F.celu(v["x"], 2.0)]),
    "prelu": ({"x": (signed(0.1, 2, 2, 3, 2, 2), True), "a": (np.array([0.25], "float32"), True),
               "c": (np.array([0.1, 0.2, 0.3], "float32"), True),
               "h": (np.array([0.4, 0.6], "float32"), True)},
              lambda v: [F.prelu(v["x"], v["a"]), F.prelu(v["x"], v["c"]),
                         F.prelu(v["x"], v["h"], data_format="NHWC")]),
    "maxout_rrelu": ({"x": ((rng.permutation(48).reshape(2, 4, 3, 2) * 0.1 - 2.4).astype("float32"),
                            True)},
                     lambda v: [F.maxout(v["x"], 2), F.maxout(v["x"], 2, axis=-1),
                                F.rrelu(v["x"], training=False)]),
    "binary": ({"x": (signed(0.5, 3, 2, 4), True), "y": (signed(0.5, 2, 2, 4), True),
                "r": (signed(0.5, 2, 4), True)},
               lambda v: [paddle.atan2(v["x"], v["y"]), paddle.fmax(v["x"], v["y"]),
                          paddle.fmin(v["x"], v["r"]), paddle.heaviside(v["x"], v["y"]),
                          paddle.lerp(v["x"], v["y"], 0.3), paddle.lerp(v["x"], v["r"], v["y"])]),
    "divmod": ({"a": (INTS, False), "b": (DIVS, False), "x": (uniform(-5, 5, 2, 4), False),
                "y": (signed(0.5, 2, 2, 4), False)},
               lambda v: [paddle.floor_divide(v["a"], v["b"]), paddle.remainder(v["a"], v["b"]),
                          paddle.floor_divide(v["x"], v["y"]), paddle.remainder(v["x"], v["y"])]),
    "heaviside_zero": ({"x": (np.array([[-1.5, 0.0, 2.0], [0.0, 3.0, -0.5]], "float32"), False),
                       "y": (uniform(-1, 1, 2, 3), True)},
                      lambda v: [paddle.heaviside(v["x"], v["y"])]),
    "fmax_nan": ({"x": (np.array([np.nan, 1.0, np.nan], "float32"), False),
                  "y": (np.array([2.0, np.nan, np.nan], "float32"), False)},
                 lambda v: [paddle.fmax(v["x"], v["y"]), paddle.fmin(v["x"], v["y"])]),
    "reductions": ({"x": (signed(0.5, 1.5, 2, 3, 4), True)},
                   lambda v: [paddle.prod(v["x"]), paddle.prod(v["x"], 1),
                              paddle.prod(v["x"], [0, 2], keepdim=True),
                              paddle.amax(v["x"], 1), paddle.amin(v["x"], [0, 2]),
                              paddle.logsumexp(v["x"]), paddle.logsumexp(v["x"], 1, keepdim=True)]),
    "nanmedian": ({"x": ((rng.permutation(24).reshape(2, 3, 4) * 0.1 - 1.2).astype("float32"),
                         True),
                   "s": (np.array([[1.0, np.nan, 3.0, 2.0], [np.nan] * 4, [4.0, 1.0, 2.0, 3.0]],
                                  "float32"), False)},
                  lambda v: [paddle.nanmedian(v["x"], 2), paddle.nanmedian(v["x"]),
                             paddle.nanmedian(v["x"], [0, 2], keepdim=True),
                             paddle.nanmedian(v["s"], 1)]),
    "amax_ties": ({"x": (TIES, True)}, lambda v: [paddle.amax(v["x"], 1), paddle.amin(v["x"]),
                                                  paddle.amax(v["x"])]),
    "any_all": ({"x": (rng.random((2, 3, 4)) < 0.5, False)},
                lambda v: [paddle.any(v["x"]), paddle.all(v["x"], 1), paddle.any(v["x"], [0, 2]),
                           paddle.all(v["x"], -1, keepdim=True)]),
    "sum_dtypes": ({"i": (INTS, False), "b": (rng.random((2, 3)) < 0.5, False)},
                   lambda v: [paddle.sum(v["i"]), paddle.sum(v["b"], 1), paddle.prod(v["i"], 1),
                              paddle.count_nonzero(v["i"])]),
    "cumprod": ({"x": (signed(0.5, 1.5, 2, 3, 4), True),
                 "z": (np.array([[2.0, 0.0, 3.0, 0.5]], "float32"), True)},
                lambda v: [paddle.cumprod(v["x"], 1), paddle.cumprod(v["x"], -1),
                           paddle.cumprod(v["z"], 1)]),
    "running": ({"x": (uniform(-3, 3, 2, 5), True), "p": (uniform(-0.95, 0.95, 2, 3), True),
                 "d": ((rng.permutation(24).reshape(2, 3, 4) * 0.1).astype("float32"), True)},
                lambda v: [paddle.logcumsumexp(v["x"], 1), paddle.logcumsumexp(v["x"]),
                           paddle.erfinv(v["p"]), *paddle.cummax(v["d"], 2),
                           *paddle.cummin(v["d"], 0)]),
    "special": ({"x": (signed(0.2, 6, 2, 4), True), "p": (uniform(0.3, 6, 2, 3), True)},
                lambda v: [paddle.i0(v["x"]), paddle.i0e(v["x"]), paddle.i1(v["x"]),
                           paddle.i1e(v["x"]), paddle.polygamma(v["p"], 1),
                           paddle.polygamma(v["p"], 2)]),
    "choose": ({"a": (uniform(-1, 1, 3, 2), True), "b": (uniform(-1, 1, 3, 2), True),
                "k": (np.array([[1], [0], [1]], "int32"), False),
                "x": (np.array([1.0, 3.0, -2.0], "float32"), False),
                "y": (np.array([2.0, -1.0, -3.0], "float32"), False)},
               lambda v: [paddle.multiplex([v["a"], v["b"]], v["k"]),
                          paddle.nextafter(v["x"], v["y"])]),
    "tests_of_values": ({"x": (SPECIAL, False), "i": (INTS, False)},
                        lambda v: [paddle.isnan(v["x"]), paddle.isinf(v["x"]),
                                   paddle.isfinite(v["x"]), paddle.isnan(v["i"]),
                                   paddle.is_empty(v["x"])]),
    "bitwise": ({"a": (INTS, False), "b": (DIVS, False), "p": (rng.random((2, 4)) < 0.5, False),
                 "q": (rng.random((2, 4)) < 0.5, False)},
                lambda v: [paddle.bitwise_and(v["a"], v["b"]), paddle.bitwise_or(v["a"], v["b"]),
                           paddle.bitwise_xor(v["a"], v["b"]), paddle.bitwise_not(v["a"]),
                           paddle.bitwise_and(v["p"], v["q"]), paddle.bitwise_not(v["p"]),
                           paddle.logical_xor(v["p"], v["q"])]),
    "close": ({"x": (np.array([1.0, 2.0, np.nan, np.inf, 1e-9], "float32"), False),
               "y": (np.array([1.000001, 2.1, np.nan, np.inf, 0.0], "float32"), False)},
              lambda v: [paddle.isclose(v["x"], v["y"]), paddle.isclose(v["x"], v["y"], rtol=0.1,
                                                                      equal_nan=True),
                         paddle.allclose(v["x"], v["y"]),
                         paddle.allclose(v["x"], v["y"], rtol=0.1, equal_nan=True),
                         paddle.equal_all(v["x"], v["x"]), paddle.equal_all(v["x"], v["y"])]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "math_refs.npz", **record)
    print("paddle", paddle.__version__, "->", out / "math_refs.npz")


if __name__ == "__main__":
    main()
