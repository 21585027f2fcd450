"""The cases both frameworks build for the manipulation, search, creation and indexing API.

Each case is ``(feeds, build)``: ``feeds`` maps a data name to ``(array, differentiable)``;
``build(api, v)`` calls the 2.x API through ``api.paddle`` (``paddle`` or ``paddle_nb``) on
the data variables ``v`` and returns its outputs. ``api.setitem`` is
``paddle.static.setitem`` (PaddlePaddle 2.6) or paddle_nb's ``tensor.indexing.setitem``.
interop/api/manip_api_refs.py runs them with PaddlePaddle 2.6.2 and writes the fixture that
tests/api/test_manip_api.py compares paddle_nb's builds with. Cases in ``OPS_DIFFER`` build
the same values with other ops in paddle_nb (said there); ``NO_VALUES`` hold outputs whose
values are not defined (``empty``).
"""

import numpy as np

rng = np.random.default_rng(2028)


def arr(*shape):
    return rng.standard_normal(shape).astype("float32")


X = arr(2, 3, 4)
IDX = np.array([1, 0], "int64")
M = rng.random((2, 3, 4)) > 0.5


def _setitems(api, v):
    x = v["x"] * 1.0
    a = api.setitem(x, (slice(None), 0), 3.0)
    b = api.setitem(a, slice(0, 1), 2.5)
    c = api.setitem(b, (Ellipsis, slice(None, None, -2)), v["r"])
    d = api.setitem(c, (1, slice(1, 3)), v["s"])
    return [a, b, c, d]


def _setitem_mask(api, v):
    x = v["x"] * 1.0
    return [api.setitem(x, v["m"], 1.5), api.setitem(x, v["i"], v["row"]),
            api.setitem(x, (v["i"], v["i"] + 1), -2.0),
            api.setitem(x, ([0, 1], [2, 0], [3, 1]), v["row"][0, :2])]


CASES = {
    "creation": ({"x": (X, False)}, lambda api, v: [
        api.paddle.full([2, 3], 1.5), api.paddle.zeros([2]), api.paddle.ones([2], "int64"),
        api.paddle.full_like(v["x"], 2.0), api.paddle.zeros_like(v["x"]),
        api.paddle.ones_like(v["x"], "int32"), api.paddle.arange(5),
        api.paddle.arange(1, 5, 2, "float32"), api.paddle.arange(0.5, 2.0, 0.5),
        api.paddle.linspace(0, 1, 5), api.paddle.eye(3), api.paddle.eye(2, 3, "int64"),
        api.paddle.tril(v["x"]), api.paddle.triu(v["x"], 1),
        api.paddle.to_tensor([1.0, 2.0]), api.paddle.to_tensor(np.array([3, 4], "int32")),
        api.paddle.assign(np.ones((2, 2), "float32")), api.paddle.assign(v["x"]),
        api.paddle.clone(v["x"]), api.paddle.diagflat(v["x"][0, 0]),
        api.paddle.diag(v["x"][0]), *api.paddle.meshgrid(v["x"][0, 0], v["x"][0, 1])]),
    "empty": ({"x": (X, False)}, lambda api, v: [api.paddle.empty([2, 3]),
                                                 api.paddle.empty_like(v["x"])]),
    "reshape": ({"x": (X, True)}, lambda api, v: [
        api.paddle.reshape(v["x"], [6, -1]), api.paddle.transpose(v["x"], [2, 0, 1]),
        api.paddle.concat([v["x"], v["x"]], 1), api.paddle.stack([v["x"], v["x"]]),
        *api.paddle.split(v["x"], 3, 1), *api.paddle.split(v["x"], [1, -1], 2),
        *api.paddle.chunk(v["x"], 2, 0), api.paddle.squeeze(v["x"][:1]),
        api.paddle.unsqueeze(v["x"], [0, 2]), api.paddle.flatten(v["x"]),
        api.paddle.flatten(v["x"], 1, 2), api.paddle.moveaxis(v["x"], 0, 2),
        v["x"].reshape([4, 6]), v["x"].transpose([1, 0, 2]), v["x"].flatten(),
        v["x"].unsqueeze(0), v["x"].astype("float64"), api.paddle.reshape_(v["x"], [4, 6]),
        api.paddle.unsqueeze_(v["x"], 0), api.paddle.squeeze_(v["x"][:1])]),
    "flip_tile": ({"x": (X, True)}, lambda api, v: [
        api.paddle.flip(v["x"], [0, 2]), api.paddle.rot90(v["x"]),
        api.paddle.rot90(v["x"], 2, [1, 2]), api.paddle.roll(v["x"], 1, 0),
        api.paddle.diagonal(v["x"], 1, 1, 2), api.paddle.diagonal(v["x"]),
        api.paddle.roll(v["x"], [1, 2], [0, 2]), api.paddle.tile(v["x"], [2, 1, 1]),
        api.paddle.expand(v["x"][:1], [3, 3, 4]), api.paddle.expand_as(v["x"][:1], v["x"]),
        api.paddle.broadcast_to(v["x"][:, :1], [2, 3, 4]), api.paddle.cast(v["x"], "float64"),
        api.paddle.crop(v["x"], [1, 2, 2]), api.paddle.repeat_interleave(v["x"], 2, 1),
        *api.paddle.unbind(v["x"], 1), *api.paddle.unstack(v["x"], 2),
        api.paddle.slice(v["x"], [1], [0], [2]),
        api.paddle.strided_slice(v["x"], [2], [0], [4], [2])]),
    "broadcast_tensors": ({"x": (X, True), "y": (arr(3, 1), True)}, lambda api, v: [
        *api.paddle.broadcast_tensors([v["x"], v["y"]])]),
    "gather": ({"x": (X, True), "i": (IDX, False)}, lambda api, v: [
        api.paddle.gather(v["x"], v["i"]), api.paddle.gather_nd(v["x"], v["i"].unsqueeze(-1)),
        api.paddle.index_select(v["x"], v["i"], 2),
        api.paddle.scatter(v["x"], v["i"], v["x"][:2] * 2.0),
        api.paddle.index_add(v["x"], v["i"], 1, v["x"][:, :2]),
        api.paddle.take_along_axis(v["x"], api.paddle.to_tensor(
            np.array([[[0, 1, 0, 2]]], "int64")), 1),
        api.paddle.put_along_axis(v["x"], api.paddle.to_tensor(
            np.array([[[0, 1, 0, 2]]], "int64")), v["x"][:, :1], 1),
        api.paddle.index_sample(v["x"][0], api.paddle.to_tensor(
            np.array([[0, 3], [1, 1], [2, 0]], "int64")))]),
    "more": ({"x": (X, True), "i": (IDX, False)}, lambda api, v: [
        api.paddle.reverse(v["x"], [0]), *api.paddle.vsplit(v["x"], 2),
        api.paddle.unflatten(v["x"], 2, [2, 2]),
        api.paddle.index_put(v["x"], (v["i"],), v["x"][:1]),
        api.paddle.scatter_nd(v["i"].unsqueeze(-1), v["x"], [3, 3, 4]),
        api.paddle.tril_indices(3, 4, 1), api.paddle.triu_indices(4, 3, -1),
        api.paddle.logspace(0, 2, 3), api.paddle.logspace(1, 3, 3, 2.0, "float64")]),
    "atleast_take": ({"x": (X, True), "s": (np.array(1.5, "float32"), True),
                      "v": (arr(3), True), "i": (np.array([[5, -1], [0, 23]], "int64"), False)},
                     lambda api, v: [
        api.paddle.atleast_1d(v["s"]), api.paddle.atleast_2d(v["v"]),
        api.paddle.atleast_3d(v["x"][0]), api.paddle.atleast_3d(v["v"]),
        *api.paddle.atleast_2d(v["s"], v["x"]), api.paddle.take(v["x"], v["i"]),
        api.paddle.index_fill(v["x"], api.paddle.to_tensor(np.array([3, 1])), 2, 4.0),
        api.paddle.index_fill(v["x"], v["i"][1, :1], 0, -1.0)]),
    "masked_fill": ({"x": (X, True), "m": (M, False)}, lambda api, v: [
        api.paddle.masked_fill(v["x"], v["m"], 1.0)]),
    "unique": ({"x": (np.array([[3, 1, 3], [2, 1, 1]], "int64"), False)}, lambda api, v: [
        *api.paddle.unique(v["x"], return_index=True, return_inverse=True, return_counts=True),
        api.paddle.unique(v["x"]),
        *api.paddle.unique_consecutive(v["x"], return_inverse=True, return_counts=True),
        api.paddle.shard_index(v["x"].reshape([6, 1]), 4, 2, 1),
        api.paddle.bincount(v["x"].reshape([6]), minlength=5),
        api.paddle.histogram(v["x"], bins=3, min=1, max=3),
        *api.paddle.unique(v["x"], return_inverse=True, return_counts=True, axis=1),
        *api.paddle.unique_consecutive(v["x"], return_counts=True, axis=0)]),
    "search": ({"x": (X, True), "m": (M, False)}, lambda api, v: [
        api.paddle.argmax(v["x"]), api.paddle.argmax(v["x"], 1),
        api.paddle.argmin(v["x"], -1, keepdim=True), api.paddle.argmax(v["x"], dtype="int32"),
        api.paddle.argsort(v["x"], 1), api.paddle.sort(v["x"], 2, descending=True),
        *api.paddle.topk(v["x"], 2), *api.paddle.topk(v["x"], 1, axis=0, largest=False),
        api.paddle.where(v["m"], v["x"], v["x"] * 2.0),
        api.paddle.where(v["m"][0], v["x"], v["x"][1]),
        *api.paddle.where(v["m"]), api.paddle.nonzero(v["m"]),
        api.paddle.masked_select(v["x"], v["m"]),
        *api.paddle.kthvalue(v["x"], 2), *api.paddle.mode(v["x"], 1),
        api.paddle.searchsorted(api.paddle.to_tensor([0.0, 0.5, 1.0]), v["x"]),
        api.paddle.bucketize(v["x"], api.paddle.to_tensor([0.0, 0.5, 1.0]), right=True),
        v["x"].argmax(1), v["x"].argsort(), v["x"].topk(1)[0]]),
    "attribute": ({"x": (X, False)}, lambda api, v: [
        api.paddle.shape(v["x"]), api.paddle.numel(v["x"]), api.paddle.rank(v["x"]),
        v["x"].numel()]),
    "getitem": ({"x": (X, True), "i": (IDX, False), "m": (M, False)}, lambda api, v: [
        v["x"][1], v["x"][:, 1:3], v["x"][..., ::2], v["x"][None], v["x"][-1, :, 2],
        v["x"][::-1, 2:0:-1], v["x"][v["i"]], v["x"][:, v["i"][1:]], v["x"][v["m"]],
        v["x"][[1, 0]], v["x"][1][2][3], v["x"][v["i"], v["i"] + 1],
        v["x"][[0, 1], [2, 0]], v["x"][v["i"], :, v["i"] * 3], v["x"][:, [2, 0], [1, 3]]]),
    "getitem_tensor_bounds": ({"x": (X, True), "n": (np.array([2], "int64"), False)},
                              lambda api, v: [v["x"][:, :v["n"]], v["x"][v["n"] - 1:, 1:v["n"]],
                                              v["x"][..., 1:v["n"] + 1]]),
    "setitem_tensor_bounds": ({"x": (X, True), "n": (np.array([2], "int64"), False)},
                              lambda api, v: [
        api.setitem(v["x"] * 1.0, (slice(None), slice(None, v["n"])), 1.0),
        api.setitem(v["x"] * 1.0, (slice(None), slice(1, v["n"]), slice(v["n"], 4)), 2.0)]),
    # not differentiated: 2.6.2's strided_slice_grad fails when an axis is decreased
    "getitem_strided_decrease": ({"x": (X, False)}, lambda api, v: [
        v["x"][0, None, ::-1], v["x"][:, 1, ::2]]),
    "setitem": ({"x": (X, True), "r": (arr(2, 3, 2), True), "s": (arr(2, 4), True)},
                _setitems),
    "setitem_tensor_index": ({"x": (X, True), "m": (M, False), "i": (IDX[:1], False),
                              "row": (arr(3, 4), True)}, _setitem_mask),
}

# paddle_nb builds these values with other ops than PaddlePaddle 2.6 (the reason)
OPS_DIFFER = {
    "masked_fill": "where over an expand_v2 of the mask, not 2.6's chain of adds",
}
NO_VALUES = {"empty"}
