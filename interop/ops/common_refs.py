"""PaddlePaddle 2.6.2's own numbers for the ops of the common layers and linear algebra
(paddle_nb/ops/{products,vector_norm,einsum,matrix}.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/common_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with the public paddle API (so the descs are what
2.6 writes: ``einsum`` with ``InnerCache`` and ``XShape``, ``einsum_grad`` reading them as
``InnerCache`` and ``x_shape``, ``p_norm`` with ``asvector``...), adds ``loss = sum(out * w)``
for every float output with a fixed random ``w`` and ``append_backward``, runs it on the CPU
and stores in ``common_ops.npz``: ``<case>/program`` (the serialized ProgramDesc as uint8),
``<case>/feed/<name>`` and ``<case>/fetch/<name>`` (outputs, and ``x@GRAD`` for each
differentiable feed). tests/ops/test_common_paddle.py runs each program in paddle_nb.
"""

import argparse
import pathlib

import numpy as np
import paddle
import paddle.nn.functional as F

rng = np.random.default_rng(2027)


def arr(*shape):
    return rng.standard_normal(shape).astype("float32")


def data(name, value, grad=True):
    var = paddle.static.data(name, list(value.shape), str(value.dtype))
    var.stop_gradient = not grad
    return var


def distinct(*shape):
    """Entries of distinct magnitudes (the inf-norm's gradient is defined)."""
    n = int(np.prod(shape))
    values = (np.arange(n) * 0.37 + 0.5) * rng.choice([-1, 1], n)
    return rng.permutation(values).reshape(shape).astype("float32")


def near_identity(*shape):
    """Matrices near 3 I: far from singular."""
    return (rng.standard_normal(shape) * 0.5 + 3 * np.eye(shape[-1])).astype("float32")


def spd(*shape):
    """A symmetric positive-definite matrix."""
    a = rng.standard_normal(shape)
    return (a @ a.T + 3 * np.eye(shape[-1])).astype("float32")


# case name -> (feeds {name: (array, differentiable)}, build(vars) -> [outputs])
CASES = {
    "products": ({"x": (arr(2, 3), True), "y": (arr(2, 3), True), "p": (arr(2, 2, 3), True),
                  "q": (arr(2, 3, 2), True), "a": (arr(3), True), "b": (arr(3), True),
                  "m": (arr(2, 2), True), "n": (arr(3, 2), True)}, lambda v: [
        paddle.bmm(v["p"], v["q"]), paddle.dot(v["a"], v["b"]), paddle.dot(v["x"], v["y"]),
        paddle.mv(v["n"], v["m"][0]), paddle.cross(v["x"], v["y"]),
        paddle.kron(v["m"], v["n"]), paddle.kron(v["a"], v["m"])]),
    "bilinear": ({"x": (arr(2, 3), True), "y": (arr(2, 4), True), "w": (arr(5, 3, 4), True),
                  "b": (arr(1, 5), True)}, lambda v: [
        F.bilinear(v["x"], v["y"], v["w"], v["b"]), F.bilinear(v["x"], v["y"], v["w"])]),
    "norms": ({"x": (arr(2, 3, 4), True), "d": (distinct(3, 4), True),
               "y": (arr(3, 4), True)}, lambda v: [
        paddle.norm(v["x"]), paddle.norm(v["x"], p="fro", axis=[1, 2]),
        paddle.norm(v["x"], p=3, axis=1, keepdim=True), paddle.norm(v["x"], p=1),
        paddle.norm(v["d"], p=float("inf"), axis=0), paddle.norm(v["d"], p=float("-inf")),
        paddle.dist(v["d"], v["y"], p=3), paddle.dist(v["d"], v["y"][0])]),
    "trace": ({"x": (arr(3, 3), True), "c": (arr(2, 3, 4), True)}, lambda v: [
        paddle.trace(v["x"]), paddle.trace(v["c"], offset=1, axis1=1, axis2=2),
        paddle.trace(v["c"], offset=-1, axis1=2, axis2=0)]),
    "einsum": ({"x": (arr(2, 3), True), "y": (arr(3, 4), True), "s": (arr(3, 3), True),
                "p": (arr(2, 2, 3), True), "q": (arr(1, 3, 2), True)}, lambda v: [
        paddle.einsum("ij,jk->ik", v["x"], v["y"]), paddle.einsum("ij->ji", v["x"]),
        paddle.einsum("ii->i", v["s"]), paddle.einsum("ij,jk", v["x"], v["y"]),
        paddle.einsum("...ij,...jk->...ik", v["p"], v["q"]),
        paddle.einsum("ij->", v["x"])]),
    "square_matrix": ({"a": (near_identity(3, 3), True), "b": (near_identity(2, 3, 3), True),
                       "c": (-near_identity(3, 3), True), "y": (arr(3, 2), True),
                       "v": (arr(3), True), "s": (spd(3, 3), True),
                       "e": (spd(3, 3), True)}, lambda v: [
        paddle.linalg.inv(v["a"]), paddle.linalg.det(v["b"]), paddle.linalg.slogdet(v["c"]),
        paddle.linalg.solve(v["a"], v["y"]), paddle.linalg.solve(v["c"], v["v"]),
        paddle.linalg.cholesky(v["s"]), paddle.linalg.cholesky(v["s"], upper=True),
        paddle.linalg.matrix_power(v["a"], 3), paddle.linalg.matrix_power(v["b"], -2),
        paddle.linalg.matrix_power(v["a"], 0),
        paddle.linalg.multi_dot([v["v"], v["a"], v["y"]]),
        paddle.linalg.multi_dot([v["a"], v["c"], v["v"]]),
        paddle.linalg.triangular_solve(v["a"], v["y"]),
        # (not unitriangular with the lower triangle: 2.6.2's gradient then reaches entries the
        # op does not read, the diagonal and the one above it; cases_square_matrix.py checks
        # paddle_nb's against central differences)
        paddle.linalg.triangular_solve(v["c"], v["y"], upper=False, transpose=True),
        paddle.linalg.eigvalsh(v["s"]), paddle.linalg.eigvalsh(v["s"], UPLO="U"),
        *paddle.linalg.eigh(v["e"])]),
    # forward only: 2.6 has no diag_embed_grad and sequence_mask is not differentiable
    "masks": ({"x": (arr(2, 3), False), "n": (np.array([3, 0, 2], "int64"), False),
               "m": (np.array([4], "int32"), False)}, lambda v: [
        F.diag_embed(v["x"]), F.diag_embed(v["x"], offset=1, dim1=0, dim2=2),
        F.diag_embed(v["x"], offset=-1, dim1=2, dim2=0),
        F.sequence_mask(v["n"]), F.sequence_mask(v["n"], maxlen=5, dtype="float32"),
        F.sequence_mask(v["n"], maxlen=v["m"])]),
}


def _build(feeds, build, shapes=None):
    """The case's program; with ``shapes`` (the outputs' run-time shapes), also the loss
    ``sum(out_k * w_k)`` (w_k fed, of out_k's real shape: 2.6 declares some outputs with
    shapes they do not have, determinant's) and its backward."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        vars_ = {k: data(k, a, g) for k, (a, g) in feeds.items()}
        outs = build(vars_)
        loss, weights = None, {}
        floats = [(o, s) for o, s in zip(outs, shapes or []) if o.dtype == paddle.float32]
        for k, (o, shape) in enumerate(floats):
            weights[f"w{k}"] = arr(*shape)
            w = paddle.static.data(f"w{k}", [-1] * len(shape), "float32")
            term = paddle.sum(o * w)
            loss = term if loss is None else loss + term
        grads = [f"{k}@GRAD" for k, (a, g) in feeds.items() if g]
        if grads and loss is not None:
            paddle.static.append_backward(loss)
    return main, startup, outs, weights, grads


def run_case(name, feeds, build):
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {k: a for k, (a, g) in feeds.items()}
    main, startup, outs, _, _ = _build(feeds, build)
    exe.run(startup)
    shapes = [np.shape(v) for v in exe.run(main, feed=feed, fetch_list=outs)]
    main, startup, outs, weights, grads = _build(feeds, build, shapes)
    exe.run(startup)
    feed.update(weights)
    names = [o.name for o in outs]
    fetched = exe.run(main, feed=feed, fetch_list=names + grads)
    record = {f"{name}/program": np.frombuffer(main.desc.serialize_to_string(), np.uint8)}
    record.update({f"{name}/feed/{k}": v for k, v in feed.items()})
    record.update({f"{name}/fetch/{n}": np.asarray(v) for n, v in zip(names + grads, fetched)})
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    paddle.enable_static()
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "common_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "common_ops.npz")


if __name__ == "__main__":
    main()
