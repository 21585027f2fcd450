"""Tests of the layers that own sub-blocks ("Design Doc: Block and Scope"):
IfElse, cond, While, StaticRNN.

The helpers below are shared by the test modules (here and in tests/executor): central
differences of a program's scalar loss with respect to a fed array or a parameter held in
a scope, and the control-flow programs several modules run (a counted While, a tanh-fc
While, an Elman StaticRNN, an IfElse over a mask's rows).
"""

import numpy as np

import paddle_nb as pd


def central_difference(exe, program, feed, loss, scope, name, eps=1e-6):
    """d loss / d ``name`` by central differences, running ``program`` twice per element.

    ``name`` is a key of ``feed`` (the array is perturbed in place and put
    back) or a variable already allocated in ``scope`` (a parameter).
    """
    if name in feed:
        value = feed[name]
        put = lambda: None                                     # noqa: E731  the feed is read each run
    else:
        tensor = scope.find_var(name).get_tensor()
        value = tensor.numpy()
        put = lambda: tensor.set(value)                        # noqa: E731
    grad = np.zeros(value.shape, dtype=np.float64)
    flat = value.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        total = 0.0
        for sign in (1.0, -1.0):
            flat[i] = old + sign * eps
            put()
            out, = exe.run(program, feed=feed, fetch_list=[loss], scope=scope)
            total += sign * float(np.sum(out))
        flat[i] = old
        put()
        grad.reshape(-1)[i] = total / (2 * eps)
    return grad


def scope_labels(record):
    """The run record's scope tree as nested (label, [kids]) pairs, for readable asserts."""
    def walk(s):
        return (s.label, [walk(k) for k in s.kids])
    return walk(record.scopes)


def elman_rnn(steps, batch, width, hidden):
    """In the current program: h_t = tanh(x_t W + h_{t-1} U + b), h_{-1} = h0, with W, U, b
    global-block parameters; x [steps, batch, width] and h0 [batch, hidden] float64 data
    that need gradients. Returns (x, h0, the step outputs stacked over time)."""
    x = pd.layers.data("x", shape=[steps, batch, width], dtype="float64",
                       append_batch_size=False)
    h0 = pd.layers.data("h0", shape=[batch, hidden], dtype="float64", append_batch_size=False)
    x.stop_gradient = h0.stop_gradient = False
    rnn = pd.layers.StaticRNN()
    with rnn.step():
        x_t = rnn.step_input(x)
        h_pre = rnn.memory(init=h0)
        h = pd.layers.tanh(pd.layers.fc(x_t, hidden, param_attr="W", bias_attr=False)
                           + pd.layers.fc(h_pre, hidden, param_attr="U", bias_attr="b"))
        rnn.update_memory(h_pre, h)
        rnn.step_output(h)
    return x, h0, rnn()


def row_ifelse(cond, inputs, true_fn, false_fn):
    """In the current program: an IfElse over the rows of ``cond`` ([rows, 1] bool). Each
    branch function gets its rows of ``inputs`` (``ie.input``) and returns one output or a
    tuple of them; returns ``ie()``, the outputs merged back in row order."""
    ie = pd.layers.IfElse(cond)
    for branch, fn in ((ie.true_block, true_fn), (ie.false_block, false_fn)):
        with branch():
            outs = fn(*[ie.input(v) for v in inputs])
            ie.output(*(outs if isinstance(outs, tuple) else (outs,)))
    return ie()


def counted_while(n, body=lambda i: None):
    """In the current program: ``i = 0; while i < n: body(i); i += 1``. Returns ``i``."""
    i = pd.layers.fill_constant([1], "int64", 0)
    limit = pd.layers.fill_constant([1], "int64", n)
    c = pd.layers.less_than(i, limit)
    with pd.layers.While(c).block():
        body(i)
        pd.layers.increment(i)
        pd.layers.less_than(i, limit, cond=c)
    return i


def tanh_fc_while(steps=3):
    """In the current program: h <- tanh(h W + bias), ``steps`` times, from h = x, with W and
    bias global-block parameters and x float64 [2, 3] data that needs gradients.
    Returns (x, h, the loop counter, loss = sum(h * h))."""
    x = pd.layers.data("x", shape=[2, 3], dtype="float64", append_batch_size=False)
    x.stop_gradient = False
    h = pd.layers.assign(x)
    i = counted_while(steps, lambda i: pd.layers.assign(
        pd.layers.tanh(pd.layers.fc(h, 3, param_attr="W", bias_attr="bias")), h))
    return x, h, i, pd.layers.reduce_sum(h * h)
