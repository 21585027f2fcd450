"""Elementwise and reduction layers: one op each, named as PaddlePaddle 1.8 names them."""

from paddle_nb.layers.helper import LayerHelper

__all__ = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "square", "abs", "softmax",
           "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
           "elementwise_max", "elementwise_min", "elementwise_pow", "scale", "mean",
           "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "matmul", "sums"]


def _unary(op_type, x, name=None):
    return LayerHelper(op_type, name).out(op_type, {"X": x})


def relu(x, name=None):
    """max(x, 0)."""
    return _unary("relu", x, name)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", x, name)


def tanh(x, name=None):
    """tanh(x)."""
    return _unary("tanh", x, name)


def exp(x, name=None):
    """e ** x."""
    return _unary("exp", x, name)


def log(x, name=None):
    """ln(x)."""
    return _unary("log", x, name)


def sqrt(x, name=None):
    """x ** 0.5."""
    return _unary("sqrt", x, name)


def square(x, name=None):
    """x * x."""
    return _unary("square", x, name)


def abs(x, name=None):
    """|x|."""
    return _unary("abs", x, name)


def softmax(input, use_cudnn=False, name=None, axis=-1):
    """exp(x) / sum(exp(x)) along ``axis``."""
    return LayerHelper("softmax", name).out("softmax", {"X": input}, {"axis": axis})


def _binary(op_type, x, y, axis, act, name):
    helper = LayerHelper(op_type, name)
    return helper.act(helper.out(op_type, {"X": x, "Y": y}, {"axis": axis}), act)


def elementwise_add(x, y, axis=-1, act=None, name=None):
    """x + y, with y lined up at dimension ``axis`` of x."""
    return _binary("elementwise_add", x, y, axis, act, name)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    """x - y."""
    return _binary("elementwise_sub", x, y, axis, act, name)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    """x * y."""
    return _binary("elementwise_mul", x, y, axis, act, name)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    """x / y."""
    return _binary("elementwise_div", x, y, axis, act, name)


def elementwise_max(x, y, axis=-1, act=None, name=None):
    """max(x, y)."""
    return _binary("elementwise_max", x, y, axis, act, name)


def elementwise_min(x, y, axis=-1, act=None, name=None):
    """min(x, y)."""
    return _binary("elementwise_min", x, y, axis, act, name)


def elementwise_pow(x, y, axis=-1, act=None, name=None):
    """x ** y."""
    return _binary("elementwise_pow", x, y, axis, act, name)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias."""
    helper = LayerHelper("scale", name)
    out = helper.out("scale", {"X": x}, {"scale": scale, "bias": bias,
                                         "bias_after_scale": bias_after_scale})
    return helper.act(out, act)


def mean(x, name=None):
    """The mean of every element, shape [1]."""
    return LayerHelper("mean", name).out("mean", {"X": x})


def sums(input, name=None):
    """The sum of a list of same-shape tensors."""
    return LayerHelper("sum", name).out("sum", {"X": list(input)})


def _reduce(op_type, input, dim, keep_dim, name):
    if dim is None:
        attrs = {"dim": [0], "keep_dim": keep_dim, "reduce_all": True}
    else:
        attrs = {"dim": [dim] if isinstance(dim, int) else list(dim), "keep_dim": keep_dim,
                 "reduce_all": False}
    return LayerHelper(op_type, name).out(op_type, {"X": input}, attrs)


def reduce_sum(input, dim=None, keep_dim=False, name=None):
    """The sum over ``dim`` (every dimension when None)."""
    return _reduce("reduce_sum", input, dim, keep_dim, name)


def reduce_mean(input, dim=None, keep_dim=False, name=None):
    """The mean over ``dim`` (every dimension when None)."""
    return _reduce("reduce_mean", input, dim, keep_dim, name)


def reduce_max(input, dim=None, keep_dim=False, name=None):
    return _reduce("reduce_max", input, dim, keep_dim, name)


def reduce_min(input, dim=None, keep_dim=False, name=None):
    return _reduce("reduce_min", input, dim, keep_dim, name)


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """alpha * (x @ y), optionally transposing the last two dimensions of either."""
    return LayerHelper("matmul", name).out("matmul", {"X": x, "Y": y},
                                           {"transpose_X": transpose_x, "transpose_Y": transpose_y,
                                            "alpha": alpha})
