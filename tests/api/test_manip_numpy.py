"""The 2.x manipulation, search, creation and indexing functions against NumPy.

Each case builds one expression with paddle_nb's 2.x API on a fed ``x`` and compares what
runs with the same expression written in NumPy (test_manip_api.py compares with PaddlePaddle
2.6.2 itself); the indexing cases also check that an index reads like NumPy's for the forms
PaddlePaddle and NumPy agree on.
"""

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.tensor import indexing

X = np.random.default_rng(7).standard_normal((3, 4, 5)).astype("float32")

def _gt(p, x, c):
    """``x > c`` (the comparison operators are another family's; this one builds alone)."""
    return p.layers.greater_than(x, p.full_like(x, c))


CASES = {
    "reshape": (lambda p, x: p.reshape(x, [4, -1]), lambda x: x.reshape(4, -1)),
    "transpose": (lambda p, x: x.transpose([2, 0, 1]), lambda x: x.transpose(2, 0, 1)),
    "concat": (lambda p, x: p.concat([x, x], axis=-1), lambda x: np.concatenate([x, x], -1)),
    "stack": (lambda p, x: p.stack([x, x], 1), lambda x: np.stack([x, x], 1)),
    "split": (lambda p, x: p.split(x, [1, 3], 1)[1], lambda x: x[:, 1:]),
    "chunk": (lambda p, x: x.chunk(2, 1)[0], lambda x: x[:, :2]),
    "unbind": (lambda p, x: p.unbind(x, 2)[3], lambda x: x[:, :, 3]),
    "squeeze": (lambda p, x: p.squeeze(x[:, :1], 1), lambda x: x[:, 0]),
    "unsqueeze": (lambda p, x: x.unsqueeze([0, -1]), lambda x: x[None, ..., None]),
    "flatten": (lambda p, x: x.flatten(1), lambda x: x.reshape(3, -1)),
    "flip": (lambda p, x: x.flip([0, 2]), lambda x: x[::-1, :, ::-1]),
    "rot90": (lambda p, x: p.rot90(x, 1, [1, 2]), lambda x: np.rot90(x, 1, (1, 2))),
    "rot90_3": (lambda p, x: p.rot90(x, -1), lambda x: np.rot90(x, -1)),
    "roll": (lambda p, x: p.roll(x, [1, -2], [0, 2]), lambda x: np.roll(x, (1, -2), (0, 2))),
    "tile": (lambda p, x: x.tile([1, 2, 1]), lambda x: np.tile(x, (1, 2, 1))),
    "expand": (lambda p, x: p.expand(x[:1], [2, 4, 5]),
               lambda x: np.broadcast_to(x[:1], (2, 4, 5))),
    "moveaxis": (lambda p, x: p.moveaxis(x, [0, 1], [2, 0]),
                 lambda x: np.moveaxis(x, [0, 1], [2, 0])),
    "repeat_interleave": (lambda p, x: p.repeat_interleave(x, [1, 0, 2], 0),
                          lambda x: np.repeat(x, [1, 0, 2], 0)),
    "gather": (lambda p, x: x.gather(p.to_tensor([2, 0]), 1), lambda x: x[:, [2, 0]]),
    "take_along_axis": (lambda p, x: p.take_along_axis(
        x, p.to_tensor(np.zeros((1, 1, 5), "int64")), 1),
                        lambda x: np.repeat(x[:, :1], 1, 1)),
    "argmax": (lambda p, x: x.argmax(), lambda x: np.argmax(x)),
    "argmin": (lambda p, x: p.argmin(x, 1), lambda x: np.argmin(x, 1)),
    "sort": (lambda p, x: p.sort(x, 0, descending=True), lambda x: -np.sort(-x, 0)),
    "argsort": (lambda p, x: x.argsort(), lambda x: np.argsort(x, -1, kind="stable")),
    "topk": (lambda p, x: x.topk(2)[0], lambda x: -np.sort(-x, -1)[..., :2]),
    "where": (lambda p, x: p.where(_gt(p, x, 0.0), x, x * 0.0), lambda x: np.where(x > 0, x, 0)),
    "nonzero": (lambda p, x: p.nonzero(_gt(p, x, 1.0)), lambda x: np.argwhere(x > 1)),
    "masked_select": (lambda p, x: p.masked_select(x, _gt(p, x, 0.0)), lambda x: x[x > 0]),
    "arange": (lambda p, x: p.arange(2, 9, 3), lambda x: np.arange(2, 9, 3)),
    "linspace": (lambda p, x: p.linspace(-1, 1, 5),
                 lambda x: np.linspace(-1, 1, 5, dtype="float32")),
    "eye": (lambda p, x: p.eye(2, 3), lambda x: np.eye(2, 3, dtype="float32")),
    "full_like": (lambda p, x: p.full_like(x, 2.5), lambda x: np.full_like(x, 2.5)),
    "tril": (lambda p, x: p.tril(x, -1), lambda x: np.tril(x, -1)),
    "numel": (lambda p, x: x.numel(), lambda x: np.int64(x.size)),
    "rank": (lambda p, x: p.rank(x), lambda x: np.int32(x.ndim)),
    "getitem_int": (lambda p, x: x[1], lambda x: x[1]),
    "getitem_slices": (lambda p, x: x[-2:, ::-2, 1:4:2], lambda x: x[-2:, ::-2, 1:4:2]),
    "getitem_ellipsis_none": (lambda p, x: x[..., None, 2], lambda x: x[..., None, 2]),
    "getitem_list": (lambda p, x: x[:, [3, 0, 3]], lambda x: x[:, [3, 0, 3]]),
    "getitem_mask": (lambda p, x: x[_gt(p, x, 0.5)], lambda x: x[x > 0.5]),
    "getitem_chain": (lambda p, x: x[2][-1][0], lambda x: x[2][-1][0]),
    "getitem_two_lists": (lambda p, x: x[[0, 2], [1, 3]], lambda x: x[[0, 2], [1, 3]]),
    "getitem_lists_side_by_side": (lambda p, x: x[:, [0, 1], [2, 4]],
                                   lambda x: x[:, [0, 1], [2, 4]]),
    "getitem_lists_apart": (lambda p, x: x[[0, 1], :, [2, 4]], lambda x: x[[0, 1], :, [2, 4]]),
    "getitem_list_broadcast": (lambda p, x: x[[[0], [2]], [1, 3]], lambda x: x[[[0], [2]], [1, 3]]),
}


def _run(build):
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", list(X.shape), "float32", append_batch_size=False)
        out = build(pd, x)
    return pd.Executor(pd.CPUPlace()).run(main, feed={"x": X}, fetch_list=[out])[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    build, reference = CASES[name]
    got, want = np.asarray(_run(build)), np.asarray(reference(X))
    assert got.shape == want.shape, f"{name}: {got.shape}, NumPy {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _assign(index, value):
    def build(p, x):
        y = x * 1.0
        y[index] = value if not isinstance(value, np.ndarray) else p.to_tensor(value)
        return y
    return build


@pytest.mark.parametrize("index,value", [
    ((slice(None), 0), 3.0), (slice(1, 3), -2.5), ((Ellipsis, slice(None, None, -2)), 7.0),
    ((1, slice(1, 3)), np.arange(10, dtype="float32").reshape(2, 5)), (2, np.ones(5, "float32")),
])
def test_assignment_matches_numpy(index, value):
    want = X.copy()
    want[index] = value
    np.testing.assert_array_equal(_run(_assign(index, value)), want)


def test_assignment_through_a_mask_and_an_index_tensor():
    def build(p, x):
        y = x * 1.0
        y[_gt(p, x, 0.0)] = 0.0
        y[p.to_tensor([2, 0])] = p.full([4, 5], 9.0)
        return y
    want = np.where(X > 0, 0, X)
    want[[2, 0]] = 9.0
    np.testing.assert_array_equal(_run(build), want)


def test_setitem_returns_a_new_variable_and_leaves_x_alone():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", list(X.shape), "float32", append_batch_size=False)
        y = indexing.setitem(x, (0, 0), 1.0)
    assert y.name != x.name
    got_x, got_y = pd.Executor(pd.CPUPlace()).run(main, feed={"x": X}, fetch_list=[x, y])
    want = X.copy()
    want[0, 0] = 1.0
    np.testing.assert_array_equal(got_x, X)
    np.testing.assert_array_equal(got_y, want)


def test_training_through_an_assignment_gets_the_gradients_right():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", [3, 4], "float32", append_batch_size=False)
        v = pd.layers.data("v", [3], "float32", append_batch_size=False)
        x.stop_gradient = v.stop_gradient = False
        y = x * 2.0
        y[:, 1] = v
        y[0] = 7.0
        w = pd.layers.data("w", [3, 4], "float32", append_batch_size=False)
        gx, gv = pd.gradients([pd.layers.reduce_sum(y * w)], [x, v])
    W = np.arange(12, dtype="float32").reshape(3, 4)
    got_gx, got_gv = pd.Executor(pd.CPUPlace()).run(
        main, feed={"x": np.ones((3, 4), "float32"), "v": np.ones(3, "float32"), "w": W},
        fetch_list=[gx, gv])
    want_gx = 2 * W
    want_gx[0] = 0
    want_gx[:, 1] = 0
    np.testing.assert_array_equal(got_gx, want_gx)
    np.testing.assert_array_equal(got_gv, [0, W[1, 1], W[2, 1]])


def test_an_index_paddle_nb_cannot_build_says_so():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", [3, 4], "float32", append_batch_size=False)
        with pytest.raises(IndexError, match="too many indices"):
            x[0, 0, 0]
        with pytest.raises(IndexError, match="cannot index with 'a'"):
            x["a"]


def test_attribute_questions_are_answered_at_build_time():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", [2, 3], "float32", append_batch_size=False)
        i = pd.layers.data("i", [2], "int64", append_batch_size=False)
        assert pd.is_tensor(x) and not pd.is_tensor(X)
        assert pd.is_floating_point(x) and not pd.is_floating_point(i)
        assert pd.is_integer(i) and not pd.is_integer(x) and not pd.is_complex(x)
        assert x.is_floating_point() and i.is_integer()


def test_unique_along_an_axis_and_consecutive_runs():
    data = np.array([[1, 2], [1, 2], [3, 4], [1, 2]], "int64")
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", [4, 2], "int64", append_batch_size=False)
        rows, inverse = pd.unique(x, return_inverse=True, axis=0)
        runs, counts = pd.unique_consecutive(x, return_counts=True, axis=0)
    got = pd.Executor(pd.CPUPlace()).run(main, feed={"x": data},
                                         fetch_list=[rows, inverse, runs, counts])
    np.testing.assert_array_equal(got[0], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(got[1], [0, 0, 1, 0])
    np.testing.assert_array_equal(got[2], [[1, 2], [3, 4], [1, 2]])
    np.testing.assert_array_equal(got[3], [2, 1, 1])


def test_views_say_they_need_dynamic_mode_and_what_to_use():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = pd.layers.data("x", [2, 3], "float32", append_batch_size=False)
        with pytest.raises(NotImplementedError, match="use paddle.reshape"):
            pd.view(x, [3, 2])
        with pytest.raises(NotImplementedError, match="strided_slice"):
            pd.as_strided(x, [3], [2])
        assert pd.reshape_(x, [3, 2]).shape == (3, 2)


def test_constants_stop_gradients():
    """``full``, ``zeros``, ``ones`` and ``full_like`` results stop gradients, as in 2.6 (a
    while_loop's counter made by ``full`` then gets no gradient)."""
    with pd.static.program_guard(pd.static.Program(), pd.static.Program()):
        x = pd.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        made = [pd.full([1], 0, "int64"), pd.zeros([2]), pd.ones([2]), pd.full_like(x, 2.0)]
        assert all(v.stop_gradient for v in made)
