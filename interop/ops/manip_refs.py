"""PaddlePaddle 2.6.2's own numbers for the manipulation, indexing, search and creation ops
(paddle_nb/ops/{strided,scatter,sort,layout,grids,counting}.py, arg_min, slice's 0-D result).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/manip_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with the public paddle API, adds
``loss = sum(out * w)`` over its float outputs and ``append_backward`` (the runner of
interop/ops/tensor_refs.py), runs it on the CPU and stores the serialized program, the feeds
and the fetched outputs and gradients in ``manip_ops.npz``; tests/ops/test_manip_paddle.py
parses each program with paddle_nb, runs it and compares. ``set_value`` is not here: 2.6
writes its ``values`` as SCALARS, which paddle_nb's proto does not read yet; its numbers are
in interop/api/manip_api_refs.py's fixture, compared through paddle_nb's own API.
"""

import argparse
import pathlib
import sys

import numpy as np
import paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "interop" / "ops"))
from tensor_refs import run_case  # noqa: E402  (the same runner and layout)

rng = np.random.default_rng(2027)


def arr(*shape):
    return rng.standard_normal(shape).astype("float32")


def distinct(*shape):
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 2).astype("float32")


def i64(values):
    return np.array(values, "int64")


X = arr(4, 5)
CASES = {
    "strided_slice": ({"x": (arr(4, 5, 3), True)}, lambda v: [
        paddle.strided_slice(v["x"], [0, 2], [0, 1], [4, 3], [2, 1]),
        v["x"][::-1, 3:0:-2], v["x"][..., ::2]]),
    # forward only: 2.6.2's strided_slice_grad fails when an axis is decreased ("Input
    # dimension size should be equal to 2, but received 3"); paddle_nb's gradient is checked
    # against central differences in cases_strided.py
    "strided_decrease": ({"x": (arr(4, 5, 3), False)}, lambda v: [
        v["x"][1, ::-1], v["x"][-3:-1, ::3, 1]]),
    "slice_0d": ({"x": (arr(4), True)}, lambda v: [v["x"][1], v["x"][-1]]),
    "flip_roll": ({"x": (arr(3, 4), True)}, lambda v: [
        paddle.flip(v["x"], [0, 1]), paddle.roll(v["x"], [1, -2], [0, 1]),
        paddle.roll(v["x"], 5)]),
    "scatter": ({"x": (arr(4, 3), True), "u": (arr(2, 3), True), "u3": (arr(3, 3), True)},
                lambda v: [paddle.scatter(v["x"], paddle.to_tensor(i64([2, 0])), v["u"]),
                           paddle.scatter(v["x"], paddle.to_tensor(i64([1, 3, 1])), v["u3"],
                                          overwrite=False)]),
    "scatter_nd_add": ({"x": (arr(4, 3), True), "u": (arr(3), True)}, lambda v: [
        paddle.scatter_nd_add(v["x"], paddle.to_tensor(i64([[1, 2], [0, 0], [1, 2]])), v["u"])]),
    "index_add": ({"x": (arr(4, 3), True), "u": (arr(4, 2), True)}, lambda v: [
        paddle.index_add(v["x"], paddle.to_tensor(i64([2, 0])), 1, v["u"])]),
    "along_axis": ({"x": (arr(4, 3), True), "u": (arr(4, 1), True)}, lambda v: [
        paddle.take_along_axis(v["x"], paddle.to_tensor(i64([[0, 2], [1, 1], [2, 0], [0, 0]])), 1),
        paddle.put_along_axis(v["x"], paddle.to_tensor(i64([[0], [2], [1], [0]])), v["u"], 1),
        paddle.put_along_axis(v["x"], paddle.to_tensor(i64([[0], [2], [1], [0]])), v["u"], 1,
                              reduce="add")]),
    "index_sample": ({"x": (arr(4, 3), True)}, lambda v: [
        paddle.index_sample(v["x"], paddle.to_tensor(i64([[0, 2], [1, 1], [2, 0], [0, 0]])))]),
    "masked_nonzero": ({"x": (arr(3, 4), True)}, lambda v: [
        paddle.masked_select(v["x"], v["x"] > 0.2), paddle.nonzero(v["x"] > 0),
        *paddle.nonzero(v["x"] > 0, as_tuple=True), v["x"][v["x"] > 0.5]]),
    "sort": ({"x": (distinct(3, 4), True)}, lambda v: [
        paddle.sort(v["x"]), paddle.argsort(v["x"], axis=0, descending=True),
        paddle.sort(v["x"], axis=0, descending=True), paddle.argmin(v["x"]),
        paddle.argmin(v["x"], 1, keepdim=True), paddle.argmax(v["x"], 0)]),
    # kthvalue and mode are compared through the API (interop/api/manip_api_refs.py): 2.6.2
    # declares their Indices float32 (they are int64 when they run), which paddle_nb's
    # executor refuses in a program read from PaddlePaddle (executor/declared.py)
    "searchsorted": ({"s": (np.array([1., 3, 3, 5], "float32"), False),
                      "v": (np.array([[3., 0], [6, 4]], "float32"), False)}, lambda v: [
        paddle.searchsorted(v["s"], v["v"]), paddle.searchsorted(v["s"], v["v"], right=True),
        paddle.bucketize(v["v"], v["s"], out_int32=True)]),
    "unbind_unstack": ({"x": (arr(3, 4), True)}, lambda v: [
        *paddle.unbind(v["x"], 1), *paddle.unstack(v["x"], 0)]),
    "diag": ({"x": (arr(3, 4), True), "d": (arr(3), False)}, lambda v: [  # diag_v2: no grad in 2.6
        paddle.diag(v["x"], -1), paddle.diag(v["d"], 1, 9.0), paddle.diagonal(v["x"], 1),
        paddle.diagonal(paddle.reshape(v["x"], [2, 2, 3]), 0, 1, -1)]),
    "meshgrid": ({"a": (arr(3), True), "b": (arr(2), True)}, lambda v: paddle.meshgrid(
        v["a"], v["b"])),
    "grids": ({}, lambda v: [paddle.linspace(0, 1, 5), paddle.linspace(2, -4, 4, "int64"),
                             paddle.eye(3, 4), paddle.eye(2, dtype="int64"),
                             paddle.tril_indices(4, 3, 0), paddle.tril_indices(3, 4, -1),
                             paddle.triu_indices(3, 4, 1), paddle.logspace(0, 2, 3),
                             paddle.logspace(1, 3, 3, 2.0, "float64")]),
    "repeat_interleave": ({"x": (arr(3, 4), True)}, lambda v: [
        paddle.repeat_interleave(v["x"], 2, 1),
        paddle.repeat_interleave(v["x"], paddle.to_tensor(i64([1, 0, 3])), 0),
        paddle.repeat_interleave(v["x"], 2)]),
    "counting": ({"x": (np.array([[3., 1, 3], [2, 1, 1]], "float32"), False),
                  "i": (i64([1, 1, 2, 2, 2, 1, 3, 3]), False)}, lambda v: [
        *paddle.unique(v["x"], return_index=True, return_inverse=True, return_counts=True),
        *paddle.unique_consecutive(v["i"], return_inverse=True, return_counts=True),
        paddle.bincount(v["i"], minlength=6),
        paddle.histogram(v["x"], bins=3, min=0, max=3)]),
    "crop_shard": ({"x": (arr(3, 4), True), "i": (i64([[1], [6], [12], [19]]), False)},
                   lambda v: [paddle.crop(v["x"], [2, 2], [1, 1]),
                              paddle.crop(v["x"], [-1, 3], [1, 0]),
                              paddle.shard_index(v["i"], 20, 3, 1)]),
    "getitem_tensor": ({"x": (arr(4, 3, 2), True), "i": (i64([3, 1]), False)}, lambda v: [
        v["x"][v["i"]], v["x"][:, v["i"][1:]], v["x"][[0, 2]], v["x"][None, 1]]),
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
    np.savez_compressed(out / "manip_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "manip_ops.npz")


if __name__ == "__main__":
    main()
