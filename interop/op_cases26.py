"""The newer ops' cases for the per-op export form test, as plain data both sides build.

``interop/ops/export_refs.py`` builds each with PaddlePaddle 2.6.2's ``LayerHelper.append_op``
(as its ``Operator`` writes an op: every declared attribute, defaults filled in) and records
the OpDesc; ``tests/compat/test_export_paddle26.py`` builds the same op with paddle_nb, runs
``export26.normalize`` and compares. A case is ``name: (op type, inputs, outputs, attrs)``;
an input is a feed name (x, y: float32 [-1, 6, 4]; ids: int64 [-1, 1]; img: float32
[-1, 4, 9, 9]) or a constant ``(shape, dtype, value)``; outputs map a slot to its count.
Attribute dtypes are VarType numbers (0 bool, 2 int32, 3 int64, 5 float32).
"""


def const(shape, dtype="float32", value=0.5):
    return (tuple(shape), dtype, value)


_I64 = "int64"
_LSTM_WEIGHTS = [const([20, 4]), const([20, 5]), const([20]), const([20])]

OP_FORM_CASES = {
    "assign_value": ("assign_value", {}, {"Out": 1},
                     {"shape": [2, 3], "dtype": 5, "fp32_values": [1, 2, 3, 4, 5, 6]}),
    "bilinear_interp_v2": ("bilinear_interp_v2", {"X": "img"}, {"Out": 1},
                           {"out_h": 12, "out_w": 12, "interp_method": "bilinear",
                            "align_corners": False, "align_mode": 0}),
    "nearest_interp_v2": ("nearest_interp_v2", {"X": "img"}, {"Out": 1},
                          {"out_h": 18, "out_w": 18, "interp_method": "nearest",
                           "align_corners": False}),
    "brelu": ("brelu", {"X": "x"}, {"Out": 1}, {"t_min": 0.1, "t_max": 0.8}),
    "clip": ("clip", {"X": "x"}, {"Out": 1}, {"min": -0.5, "max": 0.5}),
    "clip_by_norm": ("clip_by_norm", {"X": "x"}, {"Out": 1}, {"max_norm": 1.0}),
    "conv2d_transpose": ("conv2d_transpose", {"Input": "img", "Filter": const([4, 3, 3, 3])},
                         {"Output": 1}, {"strides": [2, 2], "paddings": [1, 1]}),
    "depthwise_conv2d": ("depthwise_conv2d", {"Input": "img", "Filter": const([8, 1, 3, 3])},
                         {"Output": 1}, {"groups": 4, "paddings": [1, 1]}),
    "depthwise_conv2d_transpose": ("depthwise_conv2d_transpose",
                                   {"Input": "img", "Filter": const([4, 1, 3, 3])},
                                   {"Output": 1}, {"groups": 4}),
    "cumsum": ("cumsum", {"X": "x"}, {"Out": 1}, {"axis": 1}),
    "elu": ("elu", {"X": "x"}, {"Out": 1}, {"alpha": 0.5}),
    "expand_as_v2": ("expand_as_v2", {"X": const([6, 1]), "Y": "x"}, {"Out": 1},
                     {"target_shape": [3, 6, 4]}),
    "expand_v2": ("expand_v2", {"X": const([6, 1])}, {"Out": 1}, {"shape": [2, 6, 4]}),
    "fill_any_like": ("fill_any_like", {"X": "x"}, {"Out": 1}, {"value": 2.0, "dtype": -1}),
    "flatten_contiguous_range": ("flatten_contiguous_range", {"X": "x"},
                                 {"Out": 1, "XShape": 1}, {"start_axis": 1, "stop_axis": 2}),
    "gather": ("gather", {"X": "x", "Index": const([2], _I64, 1)}, {"Out": 1}, {}),
    "gather_nd": ("gather_nd", {"X": "x", "Index": const([2, 2], _I64, 1)}, {"Out": 1}, {}),
    "gelu": ("gelu", {"X": "x"}, {"Out": 1}, {}),
    "group_norm": ("group_norm", {"X": "img", "Scale": const([4]), "Bias": const([4])},
                   {"Y": 1, "Mean": 1, "Variance": 1}, {"groups": 2}),
    "instance_norm": ("instance_norm", {"X": "img", "Scale": const([4]), "Bias": const([4])},
                      {"Y": 1, "SavedMean": 1, "SavedVariance": 1}, {}),
    "layer_norm": ("layer_norm", {"X": "x", "Scale": const([24]), "Bias": const([24])},
                   {"Y": 1, "Mean": 1, "Variance": 1}, {"begin_norm_axis": 1}),
    "hard_shrink": ("hard_shrink", {"X": "x"}, {"Out": 1}, {"threshold": 0.3}),
    "hard_sigmoid": ("hard_sigmoid", {"X": "x"}, {"Out": 1}, {"slope": 0.2, "offset": 0.5}),
    "hard_swish": ("hard_swish", {"X": "x"}, {"Out": 1}, {}),
    "index_select": ("index_select", {"X": "x", "Index": const([2], _I64, 1)}, {"Out": 1},
                     {"dim": 1}),
    "leaky_relu": ("leaky_relu", {"X": "x"}, {"Out": 1}, {"alpha": 0.1}),
    "logsigmoid": ("logsigmoid", {"X": "x"}, {"Out": 1}, {}),
    "max_pool2d_with_index": ("max_pool2d_with_index", {"X": "img"}, {"Out": 1, "Mask": 1},
                              {"ksize": [2, 2], "strides": [2, 2]}),
    "mish": ("mish", {"X": "x"}, {"Out": 1}, {}),
    "one_hot_v2": ("one_hot_v2", {"X": "ids"}, {"Out": 1}, {"depth": 5}),
    "pow": ("pow", {"X": "x"}, {"Out": 1}, {"factor": 2.5}),
    "range": ("range", {"Start": const([1], value=0.0), "End": const([1], value=3.0),
                        "Step": const([1], value=0.5)}, {"Out": 1}, {}),
    "relu6": ("relu6", {"X": "x"}, {"Out": 1}, {}),
    "rnn": ("rnn", {"Input": "x", "PreState": [const([1, 6, 5]), const([1, 6, 5])],
                    "WeightList": _LSTM_WEIGHTS},
            {"Out": 1, "State": 2, "Reserve": 1, "DropoutState": 1},
            {"mode": "LSTM", "hidden_size": 5, "input_size": 4, "is_test": True}),
    "shape": ("shape", {"Input": "x"}, {"Out": 1}, {}),
    "size": ("size", {"Input": "x"}, {"Out": 1}, {}),
    "silu": ("silu", {"X": "x"}, {"Out": 1}, {}),
    "softplus": ("softplus", {"X": "x"}, {"Out": 1}, {"beta": 2.0, "threshold": 10.0}),
    "softshrink": ("softshrink", {"X": "x"}, {"Out": 1}, {"lambda": 0.3}),
    "squared_l2_norm": ("squared_l2_norm", {"X": "x"}, {"Out": 1}, {}),
    "swish": ("swish", {"X": "x"}, {"Out": 1}, {}),
    "tanh_shrink": ("tanh_shrink", {"X": "x"}, {"Out": 1}, {}),
    "tile": ("tile", {"X": "x"}, {"Out": 1}, {"repeat_times": [1, 2, 1]}),
    "top_k_v2": ("top_k_v2", {"X": "x"}, {"Out": 1, "Indices": 1}, {"k": 2}),
    "tril_triu": ("tril_triu", {"X": "x"}, {"Out": 1}, {"diagonal": 1, "lower": True}),
    "where": ("where", {"Condition": const([6, 4], "bool", True), "X": const([6, 4]),
                        "Y": const([6, 4], value=1.0)},
              {"Out": 1}, {}),
}
