"""The random ops in programs PaddlePaddle 2.6.2 writes, with their outputs and gradients.

Run with the interop environment (PaddlePaddle 2.6.2, NumPy < 2):

    .venv-interop/bin/python interop/ops/random_refs.py --out tests/fixtures/paddle26/ops

Each case builds, with PaddlePaddle's public API in static mode, ``out = f(x)`` and the
gradient of ``sum(out * w)`` with respect to x, runs it, and records the serialized program,
the feeds, the fetch names and the fetched values in ``random_refs.npz``. Draws cannot equal
PaddlePaddle's, so the cases are of two kinds (tests/ops/test_random_paddle.py): those whose
values do not depend on the draw (rrelu at test time, a Bernoulli of 0s and 1s, a one-hot
multinomial, randint over one value, a draw's zero gradient), compared value for value; and
those that do, where the relation between the fetched arrays is checked on PaddlePaddle's
values and on paddle_nb's (``Out = X * Noise``, gumbel_softmax's gradient from Out).
"""

import argparse
import pathlib

import numpy as np

X = np.array([[0.4, -1.2, 2.0], [-0.3, 0.9, -2.5]], "float32")
W = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], "float32")
COIN = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "float32")
ONE_HOT = np.array([[0.0, 0.0, 2.0], [1.5, 0.0, 0.0]], "float32")


def _rrelu(training):
    return lambda paddle, x: paddle.nn.functional.rrelu(x, 0.1, 0.3, training=training)


# name -> (build(paddle, x) -> out, x's value, whether to take x's gradient)
CASES = {
    "rrelu_test": (_rrelu(False), X, True),
    "rrelu_train": (_rrelu(True), X, True),
    "gumbel_softmax_soft": (lambda paddle, x: paddle.nn.functional.gumbel_softmax(x, 0.5), X, True),
    "gumbel_softmax_hard_axis0": (
        lambda paddle, x: paddle.nn.functional.gumbel_softmax(x, 1.0, True, 0), X, True),
    "poisson": (lambda paddle, x: paddle.poisson(paddle.abs(x) * 3.0), X, True),
    "exponential": (lambda paddle, x: paddle.tensor.exponential_(x * 1.0, 2.0), X, True),
    "bernoulli_coins": (lambda paddle, x: paddle.bernoulli(x), COIN, False),
    "multinomial_one_hot": (lambda paddle, x: paddle.multinomial(x, 3, True), ONE_HOT, False),
    "randint_one_value": (lambda paddle, x: paddle.randint(3, 4, [2, 3]), X, False),
    "randperm_one": (lambda paddle, x: paddle.randperm(1), X, False),
}


def record(paddle, name):
    build, value, grad = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", list(value.shape), "float32")
        x.stop_gradient = not grad
        out = build(paddle, x)
        fetch = [out.name]
        noise = [op.output("Noise")[0] for op in main.global_block().ops if op.type == "rrelu"]
        fetch += noise
        if grad:
            w = paddle.static.data("w", list(W.shape), "float32")
            paddle.static.append_backward(paddle.sum(out * w))
            fetch.append("x@GRAD")
    for op in main.global_block().ops:
        op.desc.remove_attr("op_callstack")
    feed = {"x": value, "w": W} if grad else {"x": value}
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    arrays = {f"{name}/program": np.frombuffer(main.desc.serialize_to_string(), np.uint8),
              f"{name}/fetch_names": np.array(fetch)}
    arrays.update({f"{name}/feed/{k}": v for k, v in feed.items()})
    arrays.update({f"{name}/fetch/{k}": np.asarray(v) for k, v in enumerate(got)})
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    import paddle
    paddle.enable_static()
    paddle.seed(2024)
    arrays = {}
    for name in CASES:
        arrays.update(record(paddle, name))
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out / "random_refs.npz", **arrays)
    print(f"random_refs: wrote {args.out / 'random_refs.npz'} ({len(CASES)} cases)")


if __name__ == "__main__":
    main()
