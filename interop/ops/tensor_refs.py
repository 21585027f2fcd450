"""PaddlePaddle 2.6.2's own numbers for the tensor and indexing ops (paddle_nb/ops/{shape,
creation,tensor,math,index,select,expand,join}.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/tensor_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with the public paddle API (so the descs are exactly
what 2.6 writes: its slot names, attributes, tensor inputs such as ShapeTensorList, its grad
ops), adds ``loss = sum(out * w)`` for every float output with a fixed random ``w`` and
``append_backward``, runs it on the CPU and stores in ``tensor_ops.npz``:
``<case>/program`` (the serialized ProgramDesc as uint8), ``<case>/feed/<name>``,
``<case>/fetch/<name>`` (outputs, and ``x@GRAD`` for each differentiable feed).
tests/ops/test_tensor_ops_paddle.py parses each program with paddle_nb, runs it on the same
feeds and compares every fetch (values, shapes, dtypes).
"""

import argparse
import pathlib

import numpy as np
import paddle

rng = np.random.default_rng(2026)


def arr(*shape):
    return rng.standard_normal(shape).astype("float32")


def data(name, value, grad=True):
    var = paddle.static.data(name, list(value.shape), str(value.dtype))
    var.stop_gradient = not grad
    return var


def _cumsum(x, **attrs):
    """cumsum with the attributes paddle.cumsum does not expose (exclusive, reverse)."""
    helper = paddle.base.layer_helper.LayerHelper("cumsum")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="cumsum", inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


# case name -> (feeds {name: (array, differentiable)}, build(vars) -> [outputs])
CASES = {
    "flatten": ({"x": (arr(2, 3, 4), True)}, lambda v: [paddle.flatten(v["x"], 1, 2)]),
    "shape_full_reshape": ({"x": (arr(3, 2, 4), True), "y": (arr(4, 6), False)}, lambda v: [
        paddle.shape(v["x"]),
        paddle.full([paddle.shape(v["x"])[0], 4], 1.5),
        paddle.full(paddle.shape(v["x"]), 2, "int64"),
        paddle.full([2], paddle.sum(v["x"])),
        paddle.reshape(v["x"], [paddle.shape(v["x"])[0], -1]),
        paddle.reshape(v["x"], paddle.shape(v["y"])), paddle.numel(v["x"])]),
    "unsqueeze_axes": ({"x": (arr(2, 3), True)}, lambda v: [
        paddle.unsqueeze(v["x"], paddle.full([1], 1, "int32")),
        paddle.unsqueeze(v["x"], [0, paddle.full([1], -1, "int64")])]),
    "full_like": ({"x": (arr(2, 3), False)}, lambda v: [
        paddle.full_like(v["x"], 2.5), paddle.full_like(v["x"], 3, dtype="int64")]),
    "tril_triu": ({"x": (arr(2, 3, 4), True)}, lambda v: [
        paddle.tril(v["x"], 1), paddle.triu(v["x"], -1)]),
    "topk": ({"x": (arr(3, 5), True)}, lambda v: [
        *paddle.topk(v["x"], 2), *paddle.topk(v["x"], 2, axis=0, largest=False),
        *paddle.topk(v["x"], paddle.full([1], 3, "int32"))]),
    "where": ({"c": (rng.random((2, 3)) > 0.5, False), "x": (arr(2, 3), True),
               "y": (arr(2, 3), True)}, lambda v: [paddle.where(v["c"], v["x"], v["y"])]),
    "gather": ({"x": (arr(4, 3, 2), True), "i": (np.array([2, 0, 2], "int64"), False)},
               lambda v: [paddle.gather(v["x"], v["i"])]),
    # forward only: 2.6.2's CPU gather_grad for an axis other than 0 (attribute or Axis tensor)
    # is wrong: Out@GRAD is right, but X@GRAD repeats the gradient of X's first slice along
    # axis 0 in every slice (checked against Out@GRAD by hand), so it is no reference
    "gather_axis": ({"x": (arr(4, 3, 2), False), "i": (np.array([1, 0, 1], "int64"), False)},
                    lambda v: [paddle.gather(v["x"], v["i"], axis=1),
                               paddle.gather(v["x"], v["i"], axis=paddle.full([1], 2, "int64"))]),
    "assign_value": ({}, lambda v: [paddle.to_tensor(np.array([[1.5, 2.0]], "float32")),
                                    paddle.to_tensor(np.array([True, False])),
                                    paddle.to_tensor(np.array([3, 4], "int32")),
                                    paddle.to_tensor(np.array([7, 2 ** 40], "int64"))]),
    "index_select_gather_nd": ({"x": (arr(4, 3, 2), True)}, lambda v: [
        paddle.index_select(v["x"], paddle.to_tensor(np.array([1, 0, 1])), axis=1),
        paddle.gather_nd(v["x"], paddle.to_tensor(np.array([[0, 1], [3, 2], [0, 1]])))]),
    "expand_tile": ({"x": (arr(3, 1), True), "y": (arr(2, 3, 4), False)}, lambda v: [
        paddle.expand(v["x"], [2, -1, 4]),
        paddle.expand(v["x"], [paddle.shape(v["y"])[0], 3, 5]),
        paddle.expand_as(v["x"], v["y"]),
        paddle.tile(v["x"], [2, 1, 3]),
        paddle.tile(v["x"], [paddle.shape(v["y"])[0], 2])]),
    "cumsum": ({"x": (arr(3, 4), True)}, lambda v: [
        paddle.cumsum(v["x"], axis=1), paddle.cumsum(v["x"]),
        _cumsum(v["x"], axis=0, exclusive=True, reverse=True)]),
    "one_hot_arange": ({"label": (np.array([[0], [3], [2]], "int64"), False)}, lambda v: [
        paddle.nn.functional.one_hot(v["label"], 4), paddle.arange(0, 10, 3),
        paddle.arange(1.0, -1.0, -0.5, "float32")]),
    "slice_scale": ({"x": (arr(3, 5, 2), True)}, lambda v: [
        v["x"][:, 1:paddle.shape(v["x"])[1] - 1, :1],
        paddle.scale(v["x"], scale=paddle.full([1], 2.5), bias=1.0)]),
}


def run_case(name, feeds, build):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        vars_ = {k: data(k, a, g) for k, (a, g) in feeds.items()}
        outs = build(vars_)
        floats = [o for o in outs if o.dtype in (paddle.float32, paddle.float64)
                  and not o.stop_gradient]
        weights = {}
        loss = None
        for k, o in enumerate(floats):
            # all dims unknown: 2.6's build-time shapes are not always the run's (gather's
            # with an Axis tensor)
            w = paddle.static.data(f"w{k}", [-1] * len(o.shape), "float32")
            weights[w.name] = o
            term = paddle.sum(o * w)
            loss = term if loss is None else loss + term
        grads = []
        if loss is not None:
            paddle.static.append_backward(loss)
            grads = [f"{k}@GRAD" for k, (a, g) in feeds.items() if g]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    feed = {k: a for k, (a, g) in feeds.items()}
    # the weights' shapes come from a first forward run (some dims are -1 at build time)
    names = [o.name for o in outs]
    if weights:
        first = exe.run(main, feed={**feed, **{w: np.zeros([1] * len(o.shape), "float32")
                                               for w, o in weights.items()}},
                        fetch_list=[o.name for o in weights.values()])
        for (w, o), value in zip(weights.items(), first):
            feed[w] = rng.standard_normal(value.shape).astype("float32")
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
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "tensor_ops.npz", **record)
    print("paddle", paddle.__version__, "->", out / "tensor_ops.npz")


if __name__ == "__main__":
    main()
