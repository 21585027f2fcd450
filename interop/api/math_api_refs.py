"""PaddlePaddle 2.6.2's programs and numbers for the 2.x math / logic / stat functions, the
activation functions and layers, and the Variable operators.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/math_api_refs.py --out tests/fixtures/paddle26/api

Each case is one line of 2.x code (an expression giving a list of outputs) over fed
variables. It is built in a fresh ``unique_name.guard()`` in static mode; the script records
the code, the feeds, the op types the program holds (before any loss), the outputs' names,
the parameters' names, the fetched outputs, and, for the cases with float outputs that need
gradients, the feeds' gradients of ``sum(out * w)``. tests/api/test_math_api.py builds the
same code with ``import paddle_nb as paddle`` and compares all of it.
"""

import argparse
import pathlib

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

rng = np.random.default_rng(26)


def signed(*shape):
    return (rng.uniform(0.2, 2, shape) * np.where(rng.random(shape) < 0.5, -1, 1)).astype("float32")


FEEDS = {
    "x": signed(2, 3), "y": signed(2, 3), "p": rng.uniform(0.1, 0.9, (2, 3)).astype("float32"),
    "m": signed(3, 2), "z": (rng.permutation(48).reshape(2, 4, 3, 2) * 0.1 - 2.4).astype("float32"),
    "s": np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]], "float32"),
    "i": np.array([[7, -7, 3], [9, 0, -5]], "int32"),
    "j": np.array([[2, -2, 4], [4, 3, -3]], "int32"),
    "b": rng.random((2, 3)) < 0.5, "c": rng.random((2, 3)) < 0.5,
    "w": np.array([0.2, 0.3, 0.4], "float32"),
    "k": np.array([[2], [0]], "int32"),
}
DIFFERENTIABLE = ("x", "y", "p", "z", "w")

# case -> one expression giving a list of outputs
CASES = {
    "arithmetic": "[paddle.add(x, y), paddle.subtract(x, y), paddle.multiply(x, y), "
                  "paddle.divide(x, y), paddle.maximum(x, y), paddle.minimum(x, y)]",
    "floordiv_mod": "[paddle.floor_divide(i, j), paddle.remainder(i, j), paddle.mod(x, y), "
                    "paddle.floor_mod(i, j), paddle.floor_divide(x, y)]",
    "powers_logs": "[paddle.pow(x, 2), paddle.pow(p, y), paddle.square(x), paddle.sqrt(p), "
                   "paddle.rsqrt(p), paddle.exp(x), paddle.log(p), paddle.log2(p), "
                   "paddle.log10(p), paddle.log1p(p), paddle.expm1(x)]",
    "trig": "[paddle.sin(x), paddle.cos(x), paddle.tan(p), paddle.asin(p), paddle.acos(p), "
            "paddle.atan(x), paddle.sinh(x), paddle.cosh(x), paddle.asinh(x), "
            "paddle.acosh(x * x + 1.5), paddle.atanh(p)]",
    "rounding": "[paddle.floor(x), paddle.ceil(x), paddle.round(x), paddle.trunc(x), "
                "paddle.sign(x), paddle.abs(x), paddle.neg(x), paddle.reciprocal(x)]",
    "special": "[paddle.erf(x), paddle.lgamma(p), paddle.digamma(p), paddle.stanh(x), "
               "paddle.stanh(x, 1.0, 2.0), paddle.logit(p), paddle.logit(p, 0.2)]",
    "scale_clip": "[paddle.scale(x, 2.0, 1.0), paddle.scale(x, 0.5, bias=1.0, "
                  "bias_after_scale=False), paddle.clip(x, -0.5, 0.5), paddle.clip(x, min=-0.2), "
                  "paddle.clip(x, max=0.3)]",
    "tensor_arguments": "[paddle.scale(x, paddle.max(y)), paddle.clip(x, paddle.min(y), 1.0), "
                        "paddle.clip(x, max=paddle.max(p)), paddle.increment(paddle.sum(i), 2)]",
    "binary_more": "[paddle.fmax(x, y), paddle.fmin(x, y), paddle.heaviside(x, y), "
                   "paddle.atan2(x, y), paddle.lerp(x, y, 0.3), paddle.lerp(x, y, p)]",
    "cumulative": "[paddle.cumsum(x), paddle.cumsum(x, 1), paddle.cumsum(x, 0, dtype='float64'), "
                  "paddle.cumprod(x, 1), paddle.cumprod(x, 0, dtype='float64'), "
                  "paddle.add_n([x, y, x])]",
    "reductions": "[paddle.sum(x), paddle.sum(x, 1), paddle.sum(x, [0, 1]), "
                  "paddle.sum(x, -1, keepdim=True), paddle.sum(x, dtype='float64'), "
                  "paddle.sum(i), paddle.sum(b, 1), paddle.max(x), paddle.max(x, 0), "
                  "paddle.min(x, 1, keepdim=True), paddle.amax(x, 1), paddle.amin(x), "
                  "paddle.prod(x), paddle.prod(x, 1), paddle.prod(x, dtype='float64'), "
                  "paddle.logsumexp(x), paddle.logsumexp(x, 1), paddle.count_nonzero(i)]",
    "mean_var_std": "[paddle.mean(x), paddle.mean(x, 1, keepdim=True), paddle.mean(x, [0, 1]), "
                    "paddle.var(x), paddle.var(x, 1), paddle.std(x), "
                    "paddle.std(x, 1, unbiased=False, keepdim=True)]",
    "median_nan_to_num_diff": "[paddle.median(x), paddle.median(x, axis=1), "
                              "paddle.median(z, 1, keepdim=True), paddle.median(x, 0), "
                              "x.median(), paddle.nan_to_num(s, nan=1.0, posinf=2.0), "
                              "paddle.nan_to_num(s), paddle.diff(x), paddle.diff(z, n=2, axis=1), "
                              "paddle.nanmedian(s, 1), paddle.nanmedian(x), "
                              "paddle.nanmedian(z, [1, 3], keepdim=False)]",
    "more_math": "[paddle.erfinv(p), paddle.logcumsumexp(x, 1), paddle.logcumsumexp(x), "
                 "*paddle.cummax(x, 1), *paddle.cummin(x), paddle.frac(x), paddle.deg2rad(x), "
                 "paddle.rad2deg(x), paddle.sgn(x), paddle.logaddexp(x, y), paddle.nansum(s, 1), "
                 "paddle.nansum(x, 1), paddle.nanmean(s, 1), paddle.nanmean(x), paddle.i0(x), "
                 "paddle.i0e(x), paddle.i1(x), paddle.i1e(x), paddle.polygamma(p, 1), x.i0(), "
                 "paddle.nextafter(x, y), paddle.multiplex([x, y, p], k)]",
    "all_any": "[paddle.all(b), paddle.any(b, 1), paddle.all(b, [0, 1]), "
               "paddle.any(b, -1, keepdim=True)]",
    "compare": "[paddle.equal(x, y), paddle.not_equal(x, y), paddle.less_than(x, y), "
               "paddle.less_equal(x, y), paddle.greater_than(x, y), paddle.greater_equal(x, y)]",
    "logic": "[paddle.logical_and(b, c), paddle.logical_or(b, c), paddle.logical_xor(b, c), "
             "paddle.logical_not(b), paddle.bitwise_and(i, j), paddle.bitwise_or(i, j), "
             "paddle.bitwise_xor(i, j), paddle.bitwise_not(i), paddle.bitwise_and(b, c)]",
    "tests_of_values": "[paddle.isnan(s), paddle.isinf(s), paddle.isfinite(s), "
                       "paddle.equal_all(x, x), paddle.equal_all(x, y), paddle.allclose(x, y), "
                       "paddle.isclose(x, y, rtol=0.5), paddle.is_empty(x)]",
    "methods": "[x.mean(), x.sum(axis=1), x.abs(), x.exp(), x.pow(2), x.clip(0, 1), x.max(), "
               "x.min(axis=0), x.prod(), x.logsumexp(), x.equal(y), x.isnan(), x.cumsum(1), "
               "x.sign(), x.square(), x.tanh(), paddle.tanh(y)]",
    "operators": "[x + 1.0, x + 1, 1.0 - x, 2 * x, x / 2, 2 / x, x + y, x - y, x * y, x / y, "
                 "x // y, x % y, x ** 2, p ** y, 2 ** x, -x, x @ m]",
    "comparison_operators": "[x == y, x != y, x < y, x <= y, x > y, x >= y, x == 1.0, x < 1]",
    "int_operators": "[i * 1.5, i + 1, i / 2, i / j, i ** 2, i // 2, i % 2, i - 1.5, 3 - i, "
                     "i & j, i | j, i ^ j, ~i, (x > 0) & (y > 0), (x > 0) | (y > 0), "
                     "(x > 0) ^ (y > 0), ~(x > 0)]",
    "activations": "[F.relu(x), F.relu6(x * 4), F.elu(x), F.elu(x, 0.5), F.selu(x), "
                   "F.celu(x, 2.0), F.gelu(x), F.gelu(x, approximate=True), F.silu(x), "
                   "F.swish(x), F.mish(x), "
                   "F.sigmoid(x), F.hardsigmoid(x), F.hardswish(x * 3), F.hardtanh(x), "
                   "F.hardshrink(x), F.softshrink(x, 0.3), F.tanhshrink(x), F.leaky_relu(x), "
                   "F.leaky_relu(x, 0.2), F.log_sigmoid(x), F.softplus(x), F.softplus(x, 2, 1), "
                   "F.softsign(x), F.tanh(x), F.thresholded_relu(x, 0.5), F.relu_(x)]",
    "softmax_prelu": "[F.softmax(x), F.softmax(x, axis=0, dtype='float64'), F.log_softmax(x), "
                     "F.log_softmax(x, 0, dtype='float64'), F.prelu(x, w), "
                     "F.rrelu(x, training=False), F.maxout(z, 2), F.maxout(z, 2, axis=-1), "
                     "F.glu(z, axis=1)]",
    "layers": "[nn.ReLU()(x), nn.PReLU()(x), nn.PReLU(3, init=0.1)(x), nn.Softmax2D()(z), "
              "nn.LeakyReLU(0.2)(x), nn.Hardtanh(-0.5, 0.5)(x), nn.Maxout(2)(z), "
              "nn.GELU(True)(x), nn.ELU(0.5)(x), nn.Softmax(0)(x), nn.LogSoftmax()(x), "
              "nn.Silu()(x), nn.Swish()(x), nn.Mish()(x), nn.Sigmoid()(x), nn.Tanh()(x), "
              "nn.Hardsigmoid()(x), nn.Hardswish()(x), nn.Softplus(2)(x), nn.Softsign()(x), "
              "nn.Tanhshrink()(x), nn.ThresholdedReLU(0.4)(x), nn.LogSigmoid()(x), "
              "nn.SELU()(x), nn.CELU(0.5)(x), nn.Hardshrink(0.4)(x), nn.Softshrink(0.4)(x), "
              "nn.ReLU6()(x), nn.GLU(0)(x)]",
}


def build(code, main, startup):
    """Build ``code`` in ``main``; return (vars, outputs, the op types before any loss)."""
    with paddle.static.program_guard(main, startup):
        vars_ = {}
        for name, value in FEEDS.items():
            vars_[name] = paddle.static.data(name, list(value.shape), str(value.dtype))
            vars_[name].stop_gradient = name not in DIFFERENTIABLE
        outs = eval(code, {"paddle": paddle, "F": F, "nn": nn, **vars_})
    return vars_, outs, [op.type for op in main.global_block().ops]


def run_case(name, code):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard():
        vars_, outs, op_types = build(code, main, startup)
        with paddle.static.program_guard(main, startup):
            floats = [o for o in outs if o.dtype in (paddle.float32, paddle.float64)
                      and not o.stop_gradient]
            loss, weights = None, {}
            for k, o in enumerate(floats):
                weights[f"lw{k}"] = rng.standard_normal(o.shape).astype(str(o.dtype).split(".")[-1])
                w = paddle.static.data(f"lw{k}", list(o.shape), weights[f"lw{k}"].dtype.name)
                term = paddle.sum(o * w)
                loss = term if loss is None else loss + term
            if loss is not None:
                paddle.static.append_backward(loss)
    block = main.global_block()
    grad_names = [f"{n}@GRAD" for n in [*DIFFERENTIABLE, *(p.name for p in main.all_parameters())]
                  if block.has_var(f"{n}@GRAD")]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    out_names = [o.name for o in outs]
    fetched = exe.run(main, feed={**FEEDS, **weights}, fetch_list=out_names + grad_names)
    params = [p.name for p in main.all_parameters()]
    record = {f"{name}/code": np.array(code), f"{name}/ops": np.array(op_types),
              f"{name}/lossed": np.array([o.name for o in floats], dtype=str),
              f"{name}/outs": np.array(out_names), f"{name}/params": np.array(params, dtype=str)}
    record.update({f"{name}/weight/{k}": v for k, v in weights.items()})
    record.update({f"{name}/fetch/{n}": np.asarray(v)
                   for n, v in zip(out_names + grad_names, fetched)})
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {f"feed/{k}": v for k, v in FEEDS.items()}
    for name, code in CASES.items():
        record.update(run_case(name, code))
        print(name, "ok")
    np.savez_compressed(out / "math_api_refs.npz", **record)
    print("paddle", paddle.__version__, "->", out / "math_api_refs.npz")


if __name__ == "__main__":
    main()
