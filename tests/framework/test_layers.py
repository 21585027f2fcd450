"""Every layer in ``pd.layers``: builds, reports its output shape at once, and runs.

Each case builds one layer call in a fresh program, checks the shape inferred at build
time (before anything runs), runs the program through ``pd.Executor`` and compares the
fetched values with a NumPy computation (parameters are fetched too, so the reference
uses the values the run drew). ``test_every_layer_has_a_case`` keeps the table complete.
"""
import dataclasses
import inspect
from typing import Callable, List

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import paddle_nb as pd

CPU = pd.CPUPlace()
NOT_LAYERS = {"LayerHelper", "ParamAttr", "WHILE_LIMITS"}
# Control-flow builders have their own tests (they need sub-blocks and step scopes).
CONTROL_FLOW = {"IfElse", "While", "StaticRNN", "DynamicRNN", "Switch", "cond", "create_rnn",
                "create_ifelseop"}


@dataclasses.dataclass
class Built:
    """What a case built: the outputs to fetch, their inferred shapes and dtypes, and the
    NumPy reference ``expect(params) -> [array per output]`` (params: the program's
    parameters' values after the run, in creation order)."""

    outs: List
    shapes: List[tuple]
    expect: Callable
    dtypes: List[str] = None
    rtol: float = 1e-5
    atol: float = 1e-6


class Inputs:
    """Makes data variables with unique names and remembers the arrays fed to them."""

    def __init__(self, rng):
        self.rng = rng
        self.feed = {}

    def data(self, shape, dtype="float32", low=-1.0, high=1.0, batch=2, append_batch_size=True):
        name = pd.default_main_program().unique_name("in")
        var = pd.layers.data(name, shape=shape, dtype=dtype, append_batch_size=append_batch_size)
        full = ([batch] if append_batch_size else []) + list(shape)
        if dtype == "bool":
            value = self.rng.random(full) < 0.5
        elif np.dtype(dtype).kind in "iu":
            value = self.rng.integers(low, high, full).astype(dtype)
        else:
            value = self.rng.uniform(low, high, full).astype(dtype)
        self.feed[name] = value
        return var, value


CASES = {}


def case(*layers):
    def register(fn):
        for layer in layers:
            CASES.setdefault(layer, []).append(fn)
        return fn
    return register


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _conv2d(x, w, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = sliding_window_view(x, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwij,ocij->nohw", windows, w)


# -- data ------------------------------------------------------------------------------------------
@case("data")
def _data(i):
    x, xv = i.data([3, 2])
    raw, rv = i.data([4], dtype="int64", low=0, high=9, append_batch_size=False)
    assert (x.dtype, raw.dtype) == (np.dtype("float32"), np.dtype("int64"))
    assert x.stop_gradient and not x.persistable and x.writer is None
    return Built([x, raw], [(-1, 3, 2), (4,)], lambda p: [xv, rv])


@case("data_layer")
def _data_layer(i):
    class IntegerVector:                       # the Python API doc's `type`: dims(), a dtype
        dtype = "int64"

        def dims(self):
            return [5]
    a = pd.data_layer("pixels", [2, 2])
    b = pd.data_layer("words", IntegerVector())
    av = i.rng.uniform(size=(3, 2, 2)).astype("float32")
    bv = np.arange(15, dtype="int64").reshape(3, 5)
    i.feed.update({"pixels": av, "words": bv})
    return Built([a, b], [(-1, 2, 2), (-1, 5)], lambda p: [av, bv], dtypes=["float32", "int64"])


# -- layers with parameters ------------------------------------------------------------------------
@case("fc")
def _fc(i):
    x, xv = i.data([3])
    out = pd.layers.fc(x, 4, act="relu")
    return Built([out], [(-1, 4)], lambda p: [np.maximum(xv @ p[0] + p[1], 0)])


@case("fc")
def _fc_flatten_two_dims_no_bias(i):
    x, xv = i.data([3, 4])
    out = pd.layers.fc(x, 5, num_flatten_dims=2, bias_attr=False, param_attr="my_w")
    assert pd.default_main_program().global_block().var("my_w").shape == (4, 5)
    return Built([out], [(-1, 3, 5)], lambda p: [(xv.reshape(6, 4) @ p[0]).reshape(2, 3, 5)])


@case("fc")
def _fc_list_of_inputs(i):
    x, xv = i.data([3])
    y, yv = i.data([2])
    out = pd.layers.fc([x, y], 4, act="tanh")
    return Built([out], [(-1, 4)], lambda p: [np.tanh(xv @ p[0] + yv @ p[1] + p[2])])


@case("fc_layer")
def _fc_layer(i):
    x, xv = i.data([3])
    out = pd.fc_layer(x, 2, act="sigmoid")
    return Built([out], [(-1, 2)], lambda p: [1 / (1 + np.exp(-(xv @ p[0] + p[1])))])


@case("embedding")
def _embedding(i):
    ids, iv = i.data([3], dtype="int64", low=0, high=6)
    iv[0, 0] = 2
    out = pd.layers.embedding(ids, size=[6, 4], padding_idx=2)

    def expect(p):
        rows = p[0][iv]
        rows[iv == 2] = 0
        return [rows]
    return Built([out], [(-1, 3, 4)], expect)


@case("conv2d")
def _conv2d_case(i):
    x, xv = i.data([2, 5, 5])
    out = pd.layers.conv2d(x, num_filters=3, filter_size=3, padding=1, act="relu")
    strided = pd.layers.conv2d(x, num_filters=2, filter_size=3, stride=2, bias_attr=False)
    return Built([out, strided], [(-1, 3, 5, 5), (-1, 2, 2, 2)],
                 lambda p: [np.maximum(_conv2d(xv, p[0], 1, 1) + p[1].reshape(1, 3, 1, 1), 0),
                            _conv2d(xv, p[2], 2, 0)], rtol=1e-4, atol=1e-5)


@case("pool2d")
def _pool2d(i):
    x, xv = i.data([2, 4, 4])
    mx = pd.layers.pool2d(x, pool_size=2, pool_type="max", pool_stride=2)
    avg = pd.layers.pool2d(x, pool_size=2, pool_type="avg", pool_stride=2)
    glob = pd.layers.pool2d(x, pool_type="avg", global_pooling=True)
    blocks = xv.reshape(2, 2, 2, 2, 2, 2)
    return Built([mx, avg, glob], [(-1, 2, 2, 2), (-1, 2, 2, 2), (-1, 2, 1, 1)],
                 lambda p: [blocks.max(axis=(3, 5)), blocks.mean(axis=(3, 5)),
                            xv.mean(axis=(2, 3), keepdims=True)])


@case("batch_norm")
def _batch_norm(i):
    x, xv = i.data([3, 2, 2], batch=4)
    y = pd.layers.batch_norm(x)
    mean, var = xv.mean(axis=(0, 2, 3)), xv.var(axis=(0, 2, 3))

    def expect(p):
        scale, bias = p[0], p[1]
        norm = (xv - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
        assert np.allclose(p[2], 0.1 * mean, atol=1e-6)          # running mean, momentum 0.9
        assert np.allclose(p[3], 0.9 + 0.1 * var, atol=1e-6)
        return [norm * scale.reshape(1, 3, 1, 1) + bias.reshape(1, 3, 1, 1)]
    return Built([y], [(-1, 3, 2, 2)], expect, rtol=1e-4, atol=1e-5)


@case("batch_norm")
def _batch_norm_is_test(i):
    x, xv = i.data([3, 2, 2])
    y = pd.layers.batch_norm(x, is_test=True)
    return Built([y], [(-1, 3, 2, 2)], lambda p: [xv / np.sqrt(1 + 1e-5)], rtol=1e-5)


@case("dropout")
def _dropout_is_test(i):
    x, xv = i.data([5])
    down = pd.layers.dropout(x, 0.25, is_test=True)
    up = pd.layers.dropout(x, 0.25, is_test=True, dropout_implementation="upscale_in_train")
    return Built([down, up], [(-1, 5), (-1, 5)], lambda p: [xv * 0.75, xv])


@case("dropout")
def _dropout_training(i):
    x, xv = i.data([50], low=1.0, high=2.0)
    out = pd.layers.dropout(x, 0.5, seed=3)
    # random: only the shape and dtype are checked here (values in the test further down)
    return Built([out], [(-1, 50)], lambda p: [None])


# -- elementwise math, activations, reductions -----------------------------------------------------
def _unary_case(layer, fn, low=-1.0, high=1.0):
    def build(i):
        x, xv = i.data([4], low=low, high=high)
        return Built([getattr(pd.layers, layer)(x)], [(-1, 4)], lambda p: [fn(xv)])
    build.__name__ = f"_{layer}"
    case(layer)(build)


_unary_case("relu", lambda v: np.maximum(v, 0))
_unary_case("sigmoid", lambda v: 1 / (1 + np.exp(-v)))
_unary_case("tanh", np.tanh)
_unary_case("exp", np.exp)
_unary_case("log", np.log, low=0.1, high=3.0)
_unary_case("sqrt", np.sqrt, low=0.1, high=3.0)
_unary_case("square", np.square)
_unary_case("abs", np.abs)


@case("softmax")
def _softmax_case(i):
    x, xv = i.data([2, 5])
    return Built([pd.layers.softmax(x), pd.layers.softmax(x, axis=1)], [(-1, 2, 5)] * 2,
                 lambda p: [_softmax(xv), _softmax(xv, axis=1)])


_BINARY = {"elementwise_add": np.add, "elementwise_sub": np.subtract,
           "elementwise_mul": np.multiply, "elementwise_div": np.divide,
           "elementwise_max": np.maximum, "elementwise_min": np.minimum,
           "elementwise_pow": np.power}


def _binary_case(layer):
    fn = _BINARY[layer]

    def build(i):
        positive = layer in ("elementwise_pow", "elementwise_div")
        x, xv = i.data([3, 4], low=0.5 if positive else -1.0, high=2.0)
        y, yv = i.data([3, 4], low=0.5 if positive else -1.0, high=2.0)
        b, bv = i.data([3], low=0.5, high=2.0, append_batch_size=False)
        same = getattr(pd.layers, layer)(x, y)
        mid = getattr(pd.layers, layer)(x, b, axis=1)       # b lined up with dimension 1 of x
        return Built([same, mid], [(-1, 3, 4), (-1, 3, 4)],
                     lambda p: [fn(xv, yv), fn(xv, bv.reshape(1, 3, 1))])
    build.__name__ = f"_{layer}"
    case(layer)(build)


for _layer in _BINARY:
    _binary_case(_layer)


@case("elementwise_add")
def _elementwise_add_with_act(i):
    x, xv = i.data([3])
    y, yv = i.data([3])
    return Built([pd.layers.elementwise_add(x, y, act="relu")], [(-1, 3)],
                 lambda p: [np.maximum(xv + yv, 0)])


@case("scale")
def _scale(i):
    x, xv = i.data([3])
    after = pd.layers.scale(x, scale=2.0, bias=1.0)
    before = pd.layers.scale(x, scale=2.0, bias=1.0, bias_after_scale=False)
    return Built([after, before], [(-1, 3)] * 2, lambda p: [2 * xv + 1, 2 * (xv + 1)])


@case("mean")
def _mean(i):
    x, xv = i.data([3, 4])
    return Built([pd.layers.mean(x)], [()], lambda p: [np.array(xv.mean())])


@case("sums")
def _sums(i):
    x, xv = i.data([3])
    y, yv = i.data([3])
    z, zv = i.data([3])
    return Built([pd.layers.sums([x, y, z])], [(-1, 3)], lambda p: [xv + yv + zv])


def _reduce_case(layer, fn):
    def build(i):
        x, xv = i.data([3, 4])
        every = getattr(pd.layers, layer)(x)
        one = getattr(pd.layers, layer)(x, dim=1)
        kept = getattr(pd.layers, layer)(x, dim=[1, 2], keep_dim=True)
        last = getattr(pd.layers, layer)(x, dim=-1)
        return Built([every, one, kept, last], [(), (-1, 4), (-1, 1, 1), (-1, 3)],
                     lambda p: [np.array(fn(xv)), fn(xv, axis=1),
                                fn(xv, axis=(1, 2), keepdims=True), fn(xv, axis=-1)])
    build.__name__ = f"_{layer}"
    case(layer)(build)


for _layer, _fn in (("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max),
                    ("reduce_min", np.min)):
    _reduce_case(_layer, _fn)


@case("matmul")
def _matmul(i):
    x, xv = i.data([3])
    y, yv = i.data([4, 3], append_batch_size=False)
    b, bv = i.data([3, 2])
    c, cv = i.data([2, 5])
    plain = pd.layers.matmul(x, y, transpose_y=True, alpha=2.0)
    batched = pd.layers.matmul(b, c)
    return Built([plain, batched], [(-1, 4), (-1, 3, 5)],
                 lambda p: [2.0 * xv @ yv.T, bv @ cv])


# -- losses and metrics ----------------------------------------------------------------------------
@case("cross_entropy")
def _cross_entropy(i):
    x, xv = i.data([5])
    label, lv = i.data([1], dtype="int64", low=0, high=5)
    prob = pd.layers.softmax(x)
    loss = pd.layers.cross_entropy(prob, label)
    pv = _softmax(xv)
    return Built([loss], [(-1, 1)], lambda p: [-np.log(np.take_along_axis(pv, lv, axis=1))])


@case("softmax_with_cross_entropy")
def _softmax_with_cross_entropy(i):
    x, xv = i.data([5])
    label, lv = i.data([1], dtype="int64", low=0, high=5)
    loss, sm = pd.layers.softmax_with_cross_entropy(x, label, return_softmax=True)
    alone = pd.layers.softmax_with_cross_entropy(x, label)
    pv = _softmax(xv)
    want = -np.log(np.take_along_axis(pv, lv, axis=1))
    return Built([loss, sm, alone], [(-1, 1), (-1, 5), (-1, 1)], lambda p: [want, pv, want])


@case("square_error_cost")
def _square_error_cost(i):
    x, xv = i.data([3])
    y, yv = i.data([3])
    return Built([pd.layers.square_error_cost(x, y)], [(-1, 3)], lambda p: [(xv - yv) ** 2])


@case("accuracy")
def _accuracy(i):
    x, xv = i.data([4], batch=8)
    label, lv = i.data([1], dtype="int64", low=0, high=4, batch=8)
    lv[:4, 0] = xv[:4].argmax(axis=1)           # at least half right
    acc = pd.layers.accuracy(pd.layers.softmax(x), label)
    want = np.mean(xv.argmax(axis=1) == lv[:, 0])
    return Built([acc], [()], lambda p: [np.array(want)])


# -- making, joining, cutting, converting, comparing -----------------------------------------------
@case("fill_constant")
def _fill_constant(i):
    f = pd.layers.fill_constant([2, 3], "float32", 1.5)
    n = pd.layers.fill_constant([4], "int64", 7)
    return Built([f, n], [(2, 3), (4,)], lambda p: [np.full((2, 3), 1.5), np.full(4, 7)],
                 dtypes=["float32", "int64"])


@case("zeros")
def _zeros(i):
    return Built([pd.layers.zeros([3, 2], "int32")], [(3, 2)], lambda p: [np.zeros((3, 2))],
                 dtypes=["int32"])


@case("ones")
def _ones(i):
    return Built([pd.layers.ones([2])], [(2,)], lambda p: [np.ones(2)], dtypes=["float32"])


@case("concat")
def _concat(i):
    x, xv = i.data([2, 3])
    y, yv = i.data([4, 3])
    z, zv = i.data([2, 1])
    return Built([pd.layers.concat([x, y], axis=1), pd.layers.concat([x, z], axis=-1)],
                 [(-1, 6, 3), (-1, 2, 4)],
                 lambda p: [np.concatenate([xv, yv], 1), np.concatenate([xv, zv], -1)])


@case("split")
def _split(i):
    x, xv = i.data([4, 3])
    halves = pd.layers.split(x, 2, dim=1)
    parts = pd.layers.split(x, [1, 3], dim=1)
    assert len(halves) == 2 and len(parts) == 2
    return Built(halves + parts, [(-1, 2, 3), (-1, 2, 3), (-1, 1, 3), (-1, 3, 3)],
                 lambda p: np.split(xv, 2, axis=1) + np.split(xv, [1], axis=1))


@case("slice")
def _slice(i):
    x, xv = i.data([4, 5])
    out = pd.layers.slice(x, axes=[1, 2], starts=[1, 0], ends=[3, -1])
    return Built([out], [(-1, 2, 4)], lambda p: [xv[:, 1:3, 0:-1]])


@case("stack")
def _stack(i):
    x, xv = i.data([3])
    y, yv = i.data([3])
    return Built([pd.layers.stack([x, y], axis=1), pd.layers.stack([x, y])],
                 [(-1, 2, 3), (2, -1, 3)],
                 lambda p: [np.stack([xv, yv], 1), np.stack([xv, yv])])


@case("reshape")
def _reshape(i):
    x, xv = i.data([2, 3])
    a = pd.layers.reshape(x, [0, 6])
    f, fv = i.data([2, 3], append_batch_size=False)
    b = pd.layers.reshape(f, [3, -1])
    return Built([a, b], [(-1, 6), (3, 2)], lambda p: [xv.reshape(2, 6), fv.reshape(3, 2)])


@case("transpose")
def _transpose(i):
    x, xv = i.data([2, 3])
    return Built([pd.layers.transpose(x, [0, 2, 1]), pd.layers.transpose(x, [2, 0, 1])],
                 [(-1, 3, 2), (3, -1, 2)],
                 lambda p: [xv.transpose(0, 2, 1), xv.transpose(2, 0, 1)])


@case("assign")
def _assign(i):
    x, xv = i.data([3])
    copy = pd.layers.assign(x)
    target = pd.default_main_program().global_block().create_var(name="assigned", shape=[-1, 3])
    into = pd.layers.assign(x, target)
    assert into is target and target.writer.type == "assign"
    return Built([copy, into], [(-1, 3)] * 2, lambda p: [xv, xv])


@case("cast")
def _cast(i):
    x, xv = i.data([4], low=-3.0, high=3.0)
    as_int = pd.layers.cast(x, "int32")
    as_double = pd.layers.cast(x, np.float64)
    return Built([as_int, as_double], [(-1, 4)] * 2,
                 lambda p: [xv.astype("int32"), xv.astype("float64")],
                 dtypes=["int32", "float64"])


@case("argmax")
def _argmax(i):
    x, xv = i.data([5])
    return Built([pd.layers.argmax(x, axis=1), pd.layers.argmax(x, axis=0)], [(-1,), (5,)],
                 lambda p: [xv.argmax(axis=1), xv.argmax(axis=0)], dtypes=["int64", "int64"])


_COMPARE = {"less_than": np.less, "less_equal": np.less_equal, "greater_than": np.greater,
            "equal": np.equal, "not_equal": np.not_equal}


def _compare_case(layer):
    def build(i):
        x, xv = i.data([6], dtype="int64", low=0, high=3)
        y, yv = i.data([6], dtype="int64", low=0, high=3)
        return Built([getattr(pd.layers, layer)(x, y)], [(-1, 6)],
                     lambda p: [_COMPARE[layer](xv, yv)], dtypes=["bool"])
    build.__name__ = f"_{layer}"
    case(layer)(build)


for _layer in _COMPARE:
    _compare_case(_layer)


@case("less_than")
def _less_than_into_cond(i):
    x, xv = i.data([3])
    y, yv = i.data([3])
    cond = pd.default_main_program().global_block().create_var(name="cond", shape=[-1, 3],
                                                                dtype="bool")
    assert pd.layers.less_than(x, y, cond=cond) is cond
    return Built([cond], [(-1, 3)], lambda p: [xv < yv], dtypes=["bool"])


@case("logical_and", "logical_or", "logical_not")
def _logical(i):
    a, av = i.data([4], dtype="bool")
    b, bv = i.data([4], dtype="bool")
    outs = [pd.layers.logical_and(a, b), pd.layers.logical_or(a, b), pd.layers.logical_not(a)]
    return Built(outs, [(-1, 4)] * 3,
                 lambda p: [av & bv, av | bv, ~av], dtypes=["bool"] * 3)


@case("increment")
def _increment(i):
    counter = pd.layers.fill_constant([1], "float32", 1.0)
    same = pd.layers.increment(counter, 2.5)
    fresh = pd.layers.increment(counter, value=-1.0, in_place=False)
    assert same is counter and fresh is not counter
    return Built([counter, fresh], [(1,), (1,)], lambda p: [np.array([3.5]), np.array([2.5])])


# -- the tests -------------------------------------------------------------------------------------
ALL = [(layer, fn) for layer, fns in CASES.items() for fn in fns]


def _layer_names():
    names = []
    for name in pd.layers.__all__:
        obj = getattr(pd.layers, name)
        if name in NOT_LAYERS or name in CONTROL_FLOW or inspect.isclass(obj):
            continue
        names.append(name)
    return names


def test_every_layer_has_a_case():
    missing = [name for name in _layer_names() if name not in CASES]
    assert not missing, f"layers without a case in {__file__}: {missing}"
    assert not set(CASES) - set(pd.layers.__all__) - {"data_layer", "fc_layer"}


def _build(fn, rng):
    """Run a case's builder in the current program; return (Built, its parameters)."""
    prog = pd.default_main_program()
    before = len(prog.all_parameters())
    inputs = Inputs(rng)
    built = fn(inputs)
    return built, prog.all_parameters()[before:], inputs.feed


def _check_static(layer, built):
    assert len(built.outs) == len(built.shapes), layer
    for out, shape in zip(built.outs, built.shapes):
        assert isinstance(out, pd.Variable), layer
        assert out.shape == shape, f"{layer}: {out.name} inferred {out.shape}, expected {shape}"
    if built.dtypes:
        assert [o.dtype for o in built.outs] == [np.dtype(d) for d in built.dtypes], layer


def _check_values(layer, built, got, params):
    want = built.expect(params)
    assert len(want) == len(built.outs)
    for out, g, w in zip(built.outs, got, want):
        assert all(s == -1 or s == d for s, d in zip(out.shape, g.shape)) and \
            len(out.shape) == g.ndim, f"{layer}: {out.name} ran as {g.shape}, built {out.shape}"
        assert g.dtype == out.dtype, f"{layer}: {out.name} ran as {g.dtype}, built {out.dtype}"
        if w is None:
            continue
        w = np.asarray(w)
        assert g.shape == w.shape, f"{layer}: {out.name} has shape {g.shape}, NumPy {w.shape}"
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=built.rtol, atol=built.atol, err_msg=layer)
        else:
            np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=layer)


@pytest.mark.parametrize("layer, fn", ALL, ids=[f"{layer}-{fn.__name__.strip('_')}"
                                                for layer, fn in ALL])
def test_layer_builds_with_its_shape_and_runs_like_numpy(layer, fn):
    prog = pd.Program()
    with pd.program_guard(prog):
        built, params, feed = _build(fn, np.random.default_rng(7))
    _check_static(layer, built)                  # inferred at build time, before any run
    fetch = list(built.outs) + params
    got = pd.Executor(CPU).run(prog, feed=feed, fetch_list=fetch, scope=pd.Scope())
    _check_values(layer, built, got[:len(built.outs)], got[len(built.outs):])


def test_dropout_in_training_keeps_or_zeroes_each_element():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[200])
        out = pd.layers.dropout(x, 0.5, seed=11)
    xv = np.random.default_rng(0).uniform(1, 2, (2, 200)).astype("float32")
    got, = pd.Executor(CPU).run(prog, feed={"x": xv}, fetch_list=[out], scope=pd.Scope())
    kept = got != 0
    np.testing.assert_array_equal(got[kept], xv[kept])
    assert 0.3 < kept.mean() < 0.7


def _every_layer_program():
    """One program holding every case, in the global block and again in a sub-block."""
    prog = pd.Program()
    rng = np.random.default_rng(3)
    cases, feed = [], {}
    with pd.program_guard(prog):
        for layer, fn in ALL:
            if fn in (_data_layer, _less_than_into_cond, _assign):
                continue                         # fixed variable names: once is enough below
            built, params, fed = _build(fn, rng)
            cases.append((layer, built, params))
            feed.update(fed)
        for fn in (_data_layer, _less_than_into_cond, _assign):
            built, params, fed = _build(fn, rng)
            cases.append((fn.__name__, built, params))
            feed.update(fed)
        with prog._block_guard():
            for layer, fn in ALL:
                if fn not in (_data_layer, _less_than_into_cond, _assign):
                    _build(fn, rng)
    return prog, cases, feed


def test_a_program_with_every_layer_round_trips_byte_for_byte():
    prog, _, _ = _every_layer_program()
    data = prog.serialize()
    parsed = pd.Program.parse(data)
    assert parsed.serialize() == data
    assert str(parsed) == str(prog)
    assert parsed.num_blocks == 2
    assert [[op.type for op in b.ops] for b in parsed.blocks] == \
        [[op.type for op in b.ops] for b in prog.blocks]
    assert len(prog.block(1).ops) > 50
    for block, other in zip(prog.blocks, parsed.blocks):
        assert [(v.name, v.shape, v.dtype, v.persistable, type(v)) for v in block.vars.values()] \
            == [(v.name, v.shape, v.dtype, v.persistable, type(v)) for v in other.vars.values()]


def test_a_program_with_every_layer_runs_in_one_go():
    prog, cases, feed = _every_layer_program()
    outs = [o for _, built, _ in cases for o in built.outs]
    params = prog.all_parameters()
    got = pd.Executor(CPU).run(prog, feed=feed, fetch_list=outs + params, scope=pd.Scope())
    values = dict(zip([p.name for p in params], got[len(outs):]))
    k = 0
    for layer, built, own in cases:
        n = len(built.outs)
        _check_values(layer, built, got[k:k + n], [values[p.name] for p in own])
        k += n
