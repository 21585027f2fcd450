"""The models paddle_nb's tours and tests build, as builder functions for the export check.

``interop/check_both_ways.py`` saves each with ``pd.io.save_inference_model`` and has
PaddlePaddle 2.6.2 load and run it. A builder ``build(pd, rng)`` runs inside a
``program_guard`` and returns ``(feeds, targets, runs)``: the fed Variables, the fetched
ones, and a list of feed dicts (two, so that control flow takes both ways). Together they
write every forward op paddle_nb registers; ``OPS_NOT_EXPORTED`` lists the few that no
inference program can hold, and why. The models follow the notebooks (03 IfElse, 04 RNN,
05 digits MLP) and the tests; the notebooks' cells are not importable, so they are rebuilt here.
The last four (activations, conv_norms, index_ops, rnn_op) write the ops registered later, with
``block.append_op`` where no layer function exists.
"""

import numpy as np

# Registered forward ops that these models do not write, and why.
OPS_NOT_EXPORTED = {
    "feed": "added by save_inference_model itself",
    "fetch": "added by save_inference_model itself",
    "load": "a startup op (reads parameters from files); save_inference_model drops initializers",
    "gaussian_random": "an initializer: random, dropped from inference programs",
    "uniform_random": "an initializer: random, dropped from inference programs",
    "sgd": "an optimizer op (training programs are checked separately)",
    "momentum": "an optimizer op", "adam": "an optimizer op", "adagrad": "an optimizer op",
    "adamax": "an optimizer op", "adamw": "an optimizer op", "lamb": "an optimizer op",
    "rmsprop": "an optimizer op",
    "coalesce_tensor": "a startup op (fuses parameters into one buffer for a fused optimizer)",
    "truncated_gaussian_random": "an initializer: random, dropped from inference programs",
    "uniform_random_batch_size_like": "random: compared with PaddlePaddle by op, attributes and "
                                      "statistics (tests/api/test_random_api.py)",
    "dirichlet": "random: compared by statistics (tests/ops/cases_random.py); no public "
                 "PaddlePaddle 2.6 function writes it in static mode",
    "py_func": "its attribute indexes the building process's table of Python functions: a "
               "saved program cannot carry the function (in PaddlePaddle either)",
    "fused_conv2d_bias_act": "paddle_nb's own inference op, made by the passes at load time "
                             "(paddle_nb/passes); PaddlePaddle has no such op, and a program "
                             "holding it is never saved for PaddlePaddle",
    "fused_elementwise_chain": "paddle_nb's own inference op, made by the passes at load time "
                               "(paddle_nb/passes/fuse_elementwise.py); as fused_conv2d_bias_act",
}


def _normal(rng, *shape):
    return rng.standard_normal(shape).astype("float32")


def _two(feed):
    """The feed and its negation (float feeds only): both ways through any condition."""
    return [feed, {k: -v if v.dtype.kind == "f" else v for k, v in feed.items()}]


def mlp(pd, rng):
    x = pd.layers.data("x", shape=[16])
    hidden = pd.layers.fc(x, 32, act="relu")
    logits = pd.layers.fc(hidden, 10)
    return [x], [logits, pd.layers.softmax(logits)], _two({"x": _normal(rng, 4, 16)})


def digits_mlp(pd, rng):
    """Notebook 05's digits MLP, its test program: probabilities and accuracy."""
    image = pd.layers.data("image", shape=[64])
    label = pd.layers.data("label", shape=[1], dtype="int64")
    h = pd.layers.fc(image, 64, act="relu")
    logits = pd.layers.fc(h, 10)
    probs = pd.layers.softmax(logits)
    loss = pd.layers.mean(pd.layers.softmax_with_cross_entropy(logits, label))
    acc = pd.layers.accuracy(probs, label)
    labels = rng.integers(0, 10, (8, 1)).astype("int64")
    runs = _two({"image": _normal(rng, 8, 64)})
    for feed in runs:
        feed["label"] = labels
    return [image, label], [probs, loss, acc], runs


def cnn(pd, rng):
    img = pd.layers.data("img", shape=[1, 8, 8])
    conv = pd.layers.conv2d(img, 4, 3, padding=1, act="relu")
    pool = pd.layers.pool2d(conv, 2, "max", pool_stride=2)
    return [img], [pd.layers.fc(pool, 10)], _two({"img": _normal(rng, 4, 1, 8, 8)})


def cnn_bn(pd, rng):
    """conv2d (stride, dilation, groups), batch_norm and dropout in test mode, avg pooling."""
    img = pd.layers.data("img", shape=[4, 9, 9])
    conv = pd.layers.conv2d(img, 6, 3, stride=2, padding=1, dilation=1, groups=2)
    bn = pd.layers.batch_norm(conv, act="relu")
    drop = pd.layers.dropout(bn, 0.3)
    pool = pd.layers.pool2d(drop, 2, "avg", pool_stride=1)
    flat = pd.layers.reshape(pool, [0, -1])
    return [img], [pd.layers.fc(flat, 5, act="sigmoid")], _two({"img": _normal(rng, 3, 4, 9, 9)})


def tensor_ops(pd, rng):
    """Shape ops with negative axes (split, concat, slice, stack, transpose, squeeze ...)."""
    x = pd.layers.data("x", shape=[6, 4])
    a, b = pd.layers.split(x, 2, dim=-1)
    _, d, _ = pd.layers.split(x, [1, -1, 2], dim=1)      # sections, one of them -1
    cat = pd.layers.concat([a, b], axis=-1)
    sl = pd.layers.slice(cat, axes=[1, -1], starts=[1, 0], ends=[-1, 3])
    st = pd.layers.stack([a, b], axis=-1)
    tr = pd.layers.transpose(x, [0, 2, 1])
    r = pd.layers.reshape(tr, [-1, 24])
    helper = _helper(pd, "shape_ops")      # ops with no layer function of their own
    un = helper.out("unsqueeze2", {"X": d}, {"axes": [-1]},
                    extra_outputs={"XShape": helper.tmp_name()})
    sq = helper.out("squeeze2", {"X": un}, {"axes": [-1]},
                    extra_outputs={"XShape": helper.tmp_name()})
    return [x], [cat, sl, st, r, sq], _two({"x": _normal(rng, 3, 6, 4)})


def _helper(pd, name):
    from paddle_nb.layers.helper import LayerHelper
    return LayerHelper(name)


def math_ops(pd, rng):
    """Elementwise ops (with broadcast axes), activations, reductions, matmul."""
    x = pd.layers.data("x", shape=[3, 4])
    y = pd.layers.data("y", shape=[4], append_batch_size=False)
    pos = pd.layers.exp(x)
    outs = [pd.layers.elementwise_add(x, y, axis=-1), pd.layers.elementwise_sub(x, y),
            pd.layers.elementwise_mul(x, y), pd.layers.elementwise_div(x, pos),
            pd.layers.elementwise_max(x, y), pd.layers.elementwise_min(x, y),
            pd.layers.elementwise_pow(pos, pd.layers.fill_constant([1], "float32", 1.5)),
            pd.layers.log(pd.layers.scale(pos, bias=1.0)),   # log(1 + e^x): no cancellation
            pd.layers.sqrt(pos), pd.layers.square(x), pd.layers.abs(x),
            pd.layers.tanh(x), pd.layers.sigmoid(x), pd.layers.relu(x),
            pd.layers.scale(x, 2.0, bias=1.0, bias_after_scale=False),
            pd.layers.softmax(x, axis=1), pd.layers.sums([x, x, pos]),
            pd.layers.reduce_sum(x, dim=-1), pd.layers.reduce_mean(x, dim=[1, 2], keep_dim=True),
            pd.layers.reduce_max(x), pd.layers.reduce_min(x, dim=1), pd.layers.mean(x),
            pd.layers.matmul(x, x, transpose_y=True, alpha=0.5)]
    helper = _helper(pd, "math_ops")
    outs += [helper.out("sign", {"X": x}), helper.out("log_softmax", {"X": x}, {"axis": -1}),
             helper.out("matmul_v2", {"X": x, "Y": x}, {"trans_y": True}),
             helper.out("mul", {"X": x, "Y": pd.layers.fill_constant([4, 3], "float32", 0.5)},
                        {"x_num_col_dims": 2, "y_num_col_dims": 1})]
    return [x, y], outs, _two({"x": _normal(rng, 2, 3, 4), "y": _normal(rng, 4)})


def logic_ops(pd, rng):
    """Comparisons, logical ops, cast, argmax, top_k, fill ops."""
    x = pd.layers.data("x", shape=[5])
    y = pd.layers.data("y", shape=[5])
    lt, ge = pd.layers.less_than(x, y), _helper(pd, "cmp").out("greater_equal", {"X": x, "Y": y})
    outs = [pd.layers.cast(pd.layers.logical_and(lt, pd.layers.greater_than(x, y)), "int32"),
            pd.layers.cast(pd.layers.logical_or(pd.layers.equal(x, y), ge), "float32"),
            pd.layers.logical_not(pd.layers.not_equal(x, y)),
            _helper(pd, "cmp").out("logical_xor", {"X": lt, "Y": ge}),
            pd.layers.cast(pd.layers.less_equal(x, y), "int64"), pd.layers.argmax(x, axis=-1)]
    helper = _helper(pd, "topk")
    values = helper.out("top_k", {"X": x}, {"k": 2}, extra_outputs={"Indices": helper.tmp_name()})
    outs += [values, helper.out("fill_zeros_like", {"X": x}),
             helper.out("fill_constant_batch_size_like", {"Input": x},
                        {"shape": [-1, 3], "value": 2.5, "dtype": 5})]
    return [x, y], outs, _two({"x": _normal(rng, 4, 5), "y": _normal(rng, 4, 5)})


def embedding_loss(pd, rng):
    """lookup_table_v2, cross_entropy and softmax_with_cross_entropy."""
    ids = pd.layers.data("ids", shape=[1], dtype="int64")
    label = pd.layers.data("label", shape=[1], dtype="int64")
    emb = pd.layers.embedding(ids, size=[10, 6])
    flat = pd.layers.reshape(emb, [-1, 6])
    prob = pd.layers.softmax(flat)
    outs = [flat, pd.layers.cross_entropy(prob, label),
            pd.layers.softmax_with_cross_entropy(flat, label)]
    feed = {"ids": rng.integers(0, 10, (5, 1)).astype("int64"),
            "label": rng.integers(0, 6, (5, 1)).astype("int64")}
    return [ids, label], outs, [feed, {k: v[::-1].copy() for k, v in feed.items()}]


def cond_model(pd, rng):
    x = pd.layers.data("x", shape=[4])
    h = pd.layers.fc(x, 4, act="tanh")
    total = pd.layers.reduce_sum(x)       # the two feeds, x and -x, take the two branches
    zero = pd.layers.fill_constant([1], "float32", 0.0)
    out = pd.layers.cond(pd.layers.greater_than(total, zero),
                         lambda: pd.layers.scale(h, 2.0), lambda: pd.layers.scale(h, -1.0))
    return [x], [out], _two({"x": _normal(rng, 3, 4)})


def select_ops(pd, rng):
    """select_output sends x to one of two branches by an int32 mask, select_input takes it back
    (the pair PaddlePaddle 2.x's cond writes around its branches)."""
    x = pd.layers.data("x", shape=[4])
    mask = pd.layers.cast(pd.layers.greater_than(pd.layers.reduce_sum(x),
                                                 pd.layers.fill_constant([1], "float32", 0.0)),
                          "int32")
    helper = _helper(pd, "select")
    branches = [helper.block.create_var(name=helper.tmp_name(), shape=x.shape, dtype=x.dtype)
                for _ in range(2)]
    helper.append("select_output", {"X": x, "Mask": mask}, {"Out": branches})
    # only the chosen branch holds a value, so nothing else may read either branch
    out = helper.out("select_input", {"X": branches, "Mask": mask})
    return [x], [pd.layers.scale(out, 2.0), mask], _two({"x": _normal(rng, 3, 4)})


def while_model(pd, rng):
    x = pd.layers.data("x", shape=[3])
    h = pd.layers.scale(x, 1.0)
    i = pd.layers.fill_constant([1], "int64", 0)
    n = pd.layers.fill_constant([1], "int64", 3)
    c = pd.layers.less_than(i, n)
    loop = pd.layers.While(c)
    with loop.block():
        pd.layers.assign(pd.layers.tanh(pd.layers.fc(h, 3, param_attr="W", bias_attr="b")), h)
        pd.layers.increment(i)
        pd.layers.less_than(i, n, cond=c)
    return [x], [h], _two({"x": _normal(rng, 2, 3)})


def ifelse(pd, rng):
    """Notebook 03's per-row IfElse (the design doc's create_ifelseop), in float64 as there:
    the true rows get softmax(x + y), y shared by every row; the false rows softmax(fc(x))."""
    D = 4
    x = pd.layers.data("x", shape=[D], dtype="float64")
    y = pd.layers.data("y", shape=[D], dtype="float64", append_batch_size=False)
    cond = pd.layers.data("cond", shape=[1], dtype="bool")
    ie = pd.create_ifelseop(inputs=[x], output_num=1)
    with ie.true_block():
        ie.set_output(True, 0, pd.layers.softmax(ie.inputs(True, 0) + y))
    with ie.false_block():
        z = pd.layers.fc(ie.inputs(False, 0), size=D, param_attr="fc.w", bias_attr="fc.b")
        ie.set_output(False, 0, pd.layers.softmax(z))
    out = ie(cond)
    mask = np.array([[True], [False], [False], [True], [True]])
    feed = {"x": rng.standard_normal((5, D)), "y": rng.standard_normal(D), "cond": mask}
    return [x, y, cond], [out], [feed, {**feed, "x": -feed["x"], "cond": ~mask}]


def cond_nb03(pd, rng):
    """Notebook 03's scalar cond in float64: halve a when its sum is above 1, else add 1."""
    a = pd.layers.data("a", shape=[3], dtype="float64", append_batch_size=False)
    big = pd.layers.greater_than(pd.layers.reduce_sum(a),
                                 pd.layers.fill_constant([1], "float64", 1.0))
    r = pd.layers.cond(big, lambda: a * 0.5, lambda: a + 1.0)
    return [a], [r], [{"a": np.array([1.0, 2.0, 3.0])}, {"a": np.array([0.1, 0.2, 0.3])}]


def ifelse_layers(pd, rng):
    """pd.layers.IfElse: notebook 03's exercise, relu written with a per-row condition."""
    v = pd.layers.data("v", shape=[1])
    zero = pd.layers.fill_constant([1], "float32", 0.0)
    ie = pd.layers.IfElse(pd.layers.less_than(v, zero))
    with ie.true_block():
        ie.output(pd.layers.scale(ie.input(v), 0.0))
    with ie.false_block():
        ie.output(ie.input(v))
    (out,) = ie()
    return [v], [out], _two({"v": _normal(rng, 6, 1)})


def static_rnn(pd, rng):
    """pd.layers.StaticRNN: a memory from an initial state and one of zeros (batch_ref)."""
    T, B, IN, H = 4, 2, 3, 5
    x = pd.layers.data("x", shape=[T, B, IN], append_batch_size=False)
    m = pd.layers.data("m", shape=[B, H], append_batch_size=False)
    rnn = pd.layers.StaticRNN()
    with rnn.step():
        x_t = rnn.step_input(x)
        h = rnn.memory(init=m)
        z = rnn.memory(shape=[-1, H], batch_ref=x_t)
        act = pd.layers.tanh(pd.layers.fc(x_t, H) + pd.layers.fc(h, H, bias_attr=False))
        rnn.update_memory(h, act)
        rnn.update_memory(z, z + act)
        rnn.step_output(act)
        rnn.step_output(z)
    o1, o2 = rnn()
    return [x, m], [o1, o2], _two({"x": _normal(rng, T, B, IN), "m": _normal(rng, B, H)})


def seed_rnn(pd, rng):
    """Notebook 04: the design doc's create_rnn with two outputs per step, in float64 as there."""
    T, B, IN, H = 4, 2, 3, 5
    x = pd.layers.data("x", shape=[T, B, IN], dtype="float64", append_batch_size=False)
    m = pd.layers.data("m", shape=[B, H], dtype="float64", append_batch_size=False)
    block = pd.default_main_program().global_block()
    W = block.create_parameter(name="W", shape=[IN, H], dtype="float64")
    U = block.create_parameter(name="U", shape=[H, H], dtype="float64")
    rnn = pd.create_rnn(inputs=[x])
    with rnn.stepnet() as net:
        x_t = net.set_inputs(0)
        h = net.add_memory(init=m)
        hidden_out = pd.layers.matmul(h.pre(n=1), U)
        act = pd.layers.sigmoid(pd.layers.matmul(x_t, W) + hidden_out)
        h.update(act)
        net.set_outputs(0, act, hidden_out)
    o1, o2 = rnn()
    feed = {"x": rng.standard_normal((T, B, IN)), "m": rng.standard_normal((B, H))}
    return [x, m], [o1, o2], _two(feed)


def _param(pd, name, shape, scale=0.5):
    """A parameter drawn from U(-scale, scale): non-trivial values, even for norms' biases."""
    from paddle_nb.framework.initializer import Uniform
    return pd.default_main_program().global_block().create_parameter(
        name=name, shape=shape, dtype="float32", initializer=Uniform(-scale, scale))


def _ops(helper, op_type, inputs, attrs=None, every=False, **outputs):
    """Append ``op_type`` with new temporaries in ``outputs`` (slot: count; one "Out" when
    none is given); return the first one, or with ``every`` all of them in slot order."""
    names = {slot: [helper.tmp_name() for _ in range(n)]
             for slot, n in (outputs or {"Out": 1}).items()}
    helper.append(op_type, inputs, names, attrs)
    made = [helper.block.var(n) for slot in names.values() for n in slot]
    return made if every else made[0]


def activations(pd, rng):
    """The activations with attributes (at values 2.6's Python writes where its CPU kernel
    ignores the attribute: hard_swish, relu6, swish), pow, clip, cumsum and the two norms of
    gradient clipping (plain forward math, so an inference program can hold them)."""
    x = pd.layers.data("x", shape=[3, 4])
    h = _helper(pd, "acts")
    unary = {"brelu": {"t_min": -0.5, "t_max": 0.8}, "elu": {"alpha": 0.7}, "gelu": {},
             "hard_shrink": {"threshold": 0.4}, "hard_sigmoid": {"slope": 0.3, "offset": 0.4},
             "hard_swish": {}, "leaky_relu": {"alpha": 0.1}, "logsigmoid": {},
             "mish": {"threshold": 20.0}, "relu6": {}, "silu": {}, "swish": {},
             "softplus": {"beta": 2.0, "threshold": 20.0}, "softshrink": {"lambda": 0.3},
             "tanh_shrink": {}, "pow": {"factor": 3.0}, "clip": {"min": -0.6, "max": 0.9},
             "cumsum": {"axis": -2, "reverse": True}, "clip_by_norm": {"max_norm": 2.0},
             "squared_l2_norm": {}}
    outs = [_ops(h, op, {"X": pd.layers.scale(x, 3.0)}, attrs) for op, attrs in unary.items()]
    outs.append(_ops(h, "gelu", {"X": x}, {"approximate": True}))
    outs.append(_ops(h, "cumsum", {"X": x}, {"flatten": True, "exclusive": True}))
    return [x], outs, _two({"x": _normal(rng, 2, 3, 4)})


def conv_norms(pd, rng):
    """Transposed and depthwise convolutions, group / instance / layer norm, max pooling with
    its indices, and bilinear / nearest interpolation."""
    img = pd.layers.data("img", shape=[4, 6, 6])
    h = _helper(pd, "convs")
    conv = lambda op, w, attrs: _ops(h, op, {"Input": img, "Filter": w}, attrs,  # noqa: E731
                                     Output=1)
    outs = [conv("conv2d_transpose", _param(pd, "ct.w", [4, 3, 3, 3]),
                 {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]}),
            conv("conv2d_transpose", _param(pd, "ct2.w", [4, 1, 2, 2]),
                 {"groups": 2, "dilations": [2, 2]}),
            conv("depthwise_conv2d", _param(pd, "dw.w", [8, 1, 3, 3]),
                 {"groups": 4, "paddings": [1, 1], "strides": [2, 2]}),
            conv("depthwise_conv2d_transpose", _param(pd, "dwt.w", [4, 1, 3, 3]),
                 {"groups": 4, "strides": [2, 2]})]
    norms = {"group_norm": ({"groups": 2, "epsilon": 1e-4}, ("Mean", "Variance")),
             "instance_norm": ({}, ("SavedMean", "SavedVariance")),
             "layer_norm": ({"begin_norm_axis": 2}, ("Mean", "Variance"))}
    for op, (attrs, stats) in norms.items():
        size = 36 if op == "layer_norm" else 4
        ins = {"X": img, "Scale": _param(pd, f"{op}.scale", [size]),
               "Bias": _param(pd, f"{op}.bias", [size])}
        outs.append(_ops(h, op, ins, attrs, Y=1, **{s: 1 for s in stats}))
    outs += _ops(h, "max_pool2d_with_index", {"X": img},
                 {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
                 every=True, Out=1, Mask=1)
    outs += [_ops(h, "bilinear_interp_v2", {"X": img}, {"out_h": 9, "out_w": 4,
                                                        "interp_method": "bilinear",
                                                        "align_corners": a, "align_mode": m})
             for a, m in ((False, 0), (False, 1), (True, 1))]
    outs.append(_ops(h, "nearest_interp_v2", {"X": img}, {"out_h": 12, "out_w": 18,
                                                          "interp_method": "nearest",
                                                          "align_corners": False}))
    return [img], outs, _two({"img": _normal(rng, 2, 4, 6, 6)})


def index_ops(pd, rng):
    """Creation, broadcast and index ops: assign_value, expand, tile, gather, one_hot, range,
    shape, size, top_k_v2, tril_triu, where, flatten."""
    x = pd.layers.data("x", shape=[3, 4])
    ids = pd.layers.data("ids", shape=[1], dtype="int64")
    h = _helper(pd, "index")
    row = _ops(h, "assign_value", {}, {"shape": [1, 4], "dtype": 5,
                                       "fp32_values": [0.5, -1.0, 2.0, 0.25]})
    idx = _ops(h, "assign_value", {}, {"shape": [2], "dtype": 3, "int64_values": [2, 0]})
    rows = _ops(h, "assign_value", {}, {"shape": [3], "dtype": 3, "int64_values": [1, 1, 0]})
    nd = _ops(h, "assign_value", {}, {"shape": [2, 2], "dtype": 3, "int64_values": [1, 2, 0, 1]})
    start, end, step = (pd.layers.fill_constant([1], "float32", v) for v in (1.0, 4.0, 0.5))
    cond = pd.layers.greater_than(x, _ops(h, "fill_any_like", {"X": x}, {"value": 0.1}))
    outs = [row, _ops(h, "expand_v2", {"X": row}, {"shape": [3, 2, 4]}),
            _ops(h, "expand_as_v2", {"X": row, "Y": x}, {"target_shape": [2, 3, 4]}),
            _ops(h, "tile", {"X": x}, {"repeat_times": [1, 2, 3]}),
            _ops(h, "gather", {"X": x, "Index": idx}, {"axis": 1}),
            _ops(h, "gather", {"X": x, "Index": rows}),
            _ops(h, "gather_nd", {"X": x, "Index": nd}),
            _ops(h, "index_select", {"X": x, "Index": idx}, {"dim": -1}),
            _ops(h, "one_hot_v2", {"X": ids}, {"depth": 6}),
            _ops(h, "range", {"Start": start, "End": end, "Step": step}),
            _ops(h, "shape", {"Input": x}), _ops(h, "size", {"Input": x}),
            *_ops(h, "top_k_v2", {"X": x}, {"k": 2, "axis": 1, "largest": False},
                  every=True, Out=1, Indices=1),
            _ops(h, "tril_triu", {"X": x}, {"diagonal": -1, "lower": True}),
            _ops(h, "tril_triu", {"X": x}, {"diagonal": 1, "lower": False}),
            _ops(h, "where", {"Condition": cond, "X": x, "Y": pd.layers.scale(x, -2.0)}),
            _ops(h, "flatten_contiguous_range", {"X": x}, {"start_axis": 1, "stop_axis": -1},
                 Out=1, XShape=1)]
    feed = {"x": _normal(rng, 2, 3, 4), "ids": rng.integers(0, 6, (5, 1)).astype("int64")}
    return [x, ids], outs, _two(feed)


def rnn_op(pd, rng):
    """The fused ``rnn`` op (2.x's nn.LSTM / nn.GRU in static mode): a bidirectional LSTM of
    two layers and a GRU, each with its weights in PaddlePaddle's order (per layer and
    direction: W_ih, W_hh, then the biases b_ih, b_hh after all weights)."""
    T, B, IN, H = 4, 2, 3, 5
    x = pd.layers.data("x", shape=[T, B, IN], append_batch_size=False)
    h = _helper(pd, "rnn")
    outs = []
    for mode, gates, layers, bidirec in (("LSTM", 4, 2, True), ("GRU", 3, 1, False)):
        dirs = 2 if bidirec else 1
        shapes = [([gates * H, IN if k < dirs else H * dirs], [gates * H, H])
                  for k in range(layers * dirs)]
        weights = [_param(pd, f"{mode}.w{k}{j}", s) for k, pair in enumerate(shapes)
                   for j, s in enumerate(pair)]
        weights += [_param(pd, f"{mode}.b{k}{j}", [gates * H]) for k in range(layers * dirs)
                    for j in range(2)]
        init = [_param(pd, f"{mode}.h0{j}", [layers * dirs, B, H])
                for j in range(2 if mode == "LSTM" else 1)]
        outs.append(_ops(h, "rnn", {"Input": x, "PreState": init, "WeightList": weights},
                         {"mode": mode, "num_layers": layers, "is_bidirec": bidirec,
                          "hidden_size": H, "input_size": IN, "is_test": True},
                         Out=1, State=len(init), Reserve=1, DropoutState=1))
    return [x], outs, _two({"x": _normal(rng, T, B, IN)})


# name -> builder, in the order the table prints them
MODELS = {f.__name__: f for f in (
    mlp, digits_mlp, cnn, cnn_bn, tensor_ops, math_ops, logic_ops, embedding_loss,
    cond_model, cond_nb03, select_ops, while_model, ifelse, ifelse_layers, static_rnn, seed_rnn,
    activations, conv_norms, index_ops, rnn_op)}
