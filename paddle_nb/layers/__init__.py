"""Layers: the user's vocabulary. Each function appends ops and returns its output.

Names and arguments follow PaddlePaddle 1.8's ``fluid.layers``; each output
shows its inferred shape as soon as the line runs.
"""

from __future__ import annotations

from paddle_nb.layers.control_flow import WHILE_LIMITS, IfElse, While, cond
from paddle_nb.layers.helper import LayerHelper, ParamAttr
from paddle_nb.layers.rnn import StaticRNN
from paddle_nb.layers.seed_api import create_ifelseop, create_rnn
from paddle_nb.layers.io import data, data_layer
from paddle_nb.layers.loss import (accuracy, cross_entropy, softmax_with_cross_entropy,
                                   square_error_cost)
from paddle_nb.layers.math import (
    abs, elementwise_add, elementwise_div, elementwise_max, elementwise_min, elementwise_mul,
    elementwise_pow, elementwise_sub, exp, log, matmul, mean, reduce_max, reduce_mean,
    reduce_min, reduce_sum, relu, scale, sigmoid, softmax, sqrt, square, sums, tanh,
)
from paddle_nb.layers.nn import batch_norm, conv2d, dropout, embedding, fc, fc_layer, pool2d
from paddle_nb.layers.tensor import (
    argmax, assign, cast, concat, equal, fill_constant, greater_than, increment, less_equal,
    less_than, logical_and, logical_not, logical_or, not_equal, ones, reshape, slice, split,
    stack, transpose, zeros,
)

__all__ = [
    "IfElse", "While", "WHILE_LIMITS", "cond", "StaticRNN", "create_rnn", "create_ifelseop",
    "LayerHelper", "ParamAttr", "data", "data_layer", "fc", "fc_layer", "embedding", "conv2d",
    "pool2d", "batch_norm", "dropout", "relu", "sigmoid", "tanh", "exp", "log", "sqrt",
    "square", "abs", "softmax", "cross_entropy", "softmax_with_cross_entropy",
    "square_error_cost", "accuracy", "mean", "sums", "reduce_sum", "reduce_mean", "reduce_max",
    "reduce_min", "matmul", "elementwise_add", "elementwise_sub", "elementwise_mul",
    "elementwise_div", "elementwise_max", "elementwise_min", "elementwise_pow", "scale",
    "concat", "split", "slice", "stack", "reshape", "transpose", "fill_constant", "zeros",
    "ones", "assign", "cast", "argmax", "less_than", "less_equal", "greater_than", "equal",
    "not_equal", "logical_and", "logical_or", "logical_not", "increment",
]
