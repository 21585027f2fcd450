"""Contract cases for paddle_nb/ops/creation.py.

The random ops are ``seeded`` cases: their reference returns check functions
that test the kernel's draw (shape, dtype, range, mean and spread of a large
sample) and that the same seed repeats while another seed does not.
"""

import numpy as np

from paddle_nb.errors import AttrError, ShapeError
from paddle_nb.ops.machinery.registry import Meta
from tests.ops import harness
from tests.ops.harness import Bad, Case

F = np.float32


def _full(shape, value, dtype):
    out = np.empty(shape, dtype)
    for idx in np.ndindex(*shape):
        out[idx] = value
    return out


def _fill_ref(shape, value, dtype):
    return lambda ins, attrs: {"Out": _full(shape, value, dtype)}


def _repeats(op_type, attrs, out):
    """Same seed: the same numbers; another seed: other numbers."""
    again = harness.forward(op_type, {}, attrs)["Out"]
    np.testing.assert_array_equal(again, out)
    other = harness.forward(op_type, {}, {**attrs, "seed": attrs.get("seed", 0) + 1})["Out"]
    assert not np.array_equal(other, out), f"{op_type}: another seed drew the same numbers"


def _in_unit_interval(out, shape):
    assert out.shape == shape and out.dtype == np.float32
    assert out.min() >= 0 and out.max() < 1 and abs(out.mean() - 0.5) < 0.02


def _uniform_check(shape, lo, hi, dtype):
    def check(out):
        attrs = {"shape": list(shape), "min": lo, "max": hi, "dtype": dtype, "seed": 11}
        assert out.shape == shape and out.dtype == np.dtype(dtype)
        assert out.min() >= lo and out.max() <= hi
        assert abs(out.mean() - (lo + hi) / 2) < 0.02 * (hi - lo)
        assert abs(out.std() - (hi - lo) / np.sqrt(12)) < 0.02 * (hi - lo)
        _repeats("uniform_random", attrs, out)
    return lambda ins, attrs: {"Out": check}


def _gauss_check(shape, mean, std, dtype):
    def check(out):
        attrs = {"shape": list(shape), "mean": mean, "std": std, "dtype": dtype, "seed": 11}
        assert out.shape == shape and out.dtype == np.dtype(dtype)
        assert abs(out.mean() - mean) < 0.03 * std and abs(out.std() - std) < 0.03 * std
        _repeats("gaussian_random", attrs, out)
    return lambda ins, attrs: {"Out": check}


def _truncated_check(shape, mean, std):
    def check(out):
        attrs = {"shape": list(shape), "mean": mean, "std": std, "seed": 11}
        assert out.shape == shape and out.dtype == np.dtype(F)
        assert out.min() >= mean - 2 * std - 1e-5 and out.max() <= mean + 2 * std + 1e-5
        # the standard deviation of N(0, 1) cut at +-2 is 0.8796
        assert abs(out.mean() - mean) < 0.03 * std and abs(out.std() - 0.8796 * std) < 0.03 * std
        _repeats("truncated_gaussian_random", attrs, out)
    return lambda ins, attrs: {"Out": check}


def _uniform_batch_check(shape, lo, hi, dtype):
    def check(out):
        assert out.shape == shape and out.dtype == np.dtype(dtype)
        assert out.min() >= lo and out.max() <= hi
        if out.size > 1000:
            assert abs(out.mean() - (lo + hi) / 2) < 0.02 * (hi - lo)
    return lambda ins, attrs: {"Out": check}


def _diag_check(ins, attrs):
    def check(out):
        assert out.shape == (3, 4)
        assert [out[i, i] for i in range(3)] == [7.0, 7.0, 7.0]
        assert (np.abs(out[~np.eye(3, 4, dtype=bool)]) <= 1).all()
    return {"Out": check}


BATCH = np.zeros((5, 2), F)
CASES = {
    "fill_constant": [
        Case(attrs={"shape": [2, 3], "value": 1.5}, inputs={}, ref=_fill_ref((2, 3), 1.5, F)),
        Case(inputs={}, attrs={"shape": [4], "value": 7.0, "dtype": "int64"},
             ref=_fill_ref((4,), 7, np.int64), name="int64"),
        Case(inputs={}, attrs={"shape": [1], "dtype": 3, "str_value": "9007199254740993"},
             ref=_fill_ref((1,), 9007199254740993, np.int64), name="str_value exact for big ints"),
        Case(inputs={}, attrs={"shape": [2, 1], "value": 1.0, "dtype": "bool"},
             ref=_fill_ref((2, 1), True, bool), name="bool"),
        Case(inputs={}, attrs={"shape": [0, 3]}, ref=_fill_ref((0, 3), 0.0, F), name="empty"),
        Case(inputs={"ShapeTensorList": [np.array(3, np.int32), np.array([2], np.int64)]},
             attrs={"shape": [-1, 2], "value": 1.0}, ref=_fill_ref((3, 2), 1.0, F),
             name="ShapeTensorList (paddle.full([paddle.shape(x)[0], 2], 1.0))"),
        Case(inputs={"ShapeTensor": np.array([2, 1, 3], np.int32)},
             attrs={"value": 3.0, "dtype": "int64"}, ref=_fill_ref((2, 1, 3), 3, np.int64),
             name="ShapeTensor (paddle.full(paddle.shape(x), 3))"),
        Case(inputs={"ValueTensor": np.array(0.25, np.float64)}, attrs={"shape": [2], "value": 9.0},
             ref=_fill_ref((2,), 0.25, F), name="ValueTensor wins, cast to dtype"),
    ],
    "uniform_random": [
        Case(inputs={}, attrs={"shape": [200, 100], "min": -2.0, "max": 3.0, "seed": 11},
             ref=_uniform_check((200, 100), -2.0, 3.0, "float32"), seeded=True),
        Case(inputs={}, attrs={"shape": [20000], "seed": 11, "dtype": "float64"},
             ref=_uniform_check((20000,), -1.0, 1.0, "float64"), seeded=True, name="float64"),
        Case(inputs={}, attrs={"shape": [3, 4], "seed": 2, "diag_num": 3, "diag_step": 4,
                               "diag_val": 7.0}, ref=_diag_check, seeded=True, name="diag"),
        Case(inputs={"ShapeTensorList": [np.array(200, np.int32), np.array([1], np.int64),
                                         np.array(100, np.int32)]},
             attrs={"shape": [-1, 1, -1], "min": 0.0, "max": 1.0, "seed": 5},
             ref=lambda ins, attrs: {"Out": lambda out: _in_unit_interval(out, (200, 1, 100))},
             seeded=True, name="ShapeTensorList (F.dropout's axis masks)"),
    ],
    "gaussian_random": [
        Case(inputs={}, attrs={"shape": [200, 100], "mean": 1.0, "std": 2.0, "seed": 11},
             ref=_gauss_check((200, 100), 1.0, 2.0, "float32"), seeded=True),
        Case(inputs={}, attrs={"shape": [20000], "seed": 11, "dtype": 6},
             ref=_gauss_check((20000,), 0.0, 1.0, "float64"), seeded=True, name="float64"),
    ],
    "truncated_gaussian_random": [
        Case(inputs={}, attrs={"shape": [200, 100], "mean": 1.0, "std": 0.5, "seed": 11},
             ref=_truncated_check((200, 100), 1.0, 0.5), seeded=True),
    ],
    "uniform_random_batch_size_like": [
        Case(inputs={"Input": np.zeros((100, 3), F)}, attrs={"shape": [1, 200], "min": 2.0,
                                                         "max": 3.0, "seed": 5},
             ref=_uniform_batch_check((100, 200), 2.0, 3.0, "float32"), seeded=True),
        Case(inputs={"Input": BATCH}, attrs={"shape": [4, 1, 7], "input_dim_idx": 1,
                                             "output_dim_idx": 2, "dtype": "float64"},
             ref=_uniform_batch_check((4, 1, 2), -1.0, 1.0, "float64"), seeded=True,
             name="other dims, float64"),
    ],
    "fill_constant_batch_size_like": [
        Case(inputs={"Input": BATCH}, attrs={"shape": [1, 3], "value": 2.0},
             ref=_fill_ref((5, 3), 2.0, F)),
        Case(inputs={"Input": BATCH}, attrs={"shape": [4, 1, 6], "input_dim_idx": 1,
                                             "output_dim_idx": 2, "dtype": "int32"},
             ref=_fill_ref((4, 1, 2), 0, np.int32), name="other dims"),
    ],
    "assign_value": [
        Case(inputs={}, attrs={"shape": [1, 2], "dtype": 5, "fp32_values": [1.5, 2.0]},
             ref=lambda ins, a: {"Out": np.array([[1.5, 2.0]], F)}),
        Case(inputs={}, attrs={"shape": [2], "dtype": 0, "bool_values": [1, 0]},
             ref=lambda ins, a: {"Out": np.array([True, False])}, name="bool"),
        Case(inputs={}, attrs={"shape": [2], "dtype": 3, "int64_values": [7, 2 ** 40]},
             ref=lambda ins, a: {"Out": np.array([7, 2 ** 40], np.int64)}, name="int64"),
        Case(inputs={}, attrs={"shape": [2, 1], "dtype": "int32", "int32_values": [3, -4]},
             ref=lambda ins, a: {"Out": np.array([[3], [-4]], np.int32)}, name="int32"),
        Case(inputs={}, attrs={"shape": [1], "dtype": "float64", "fp64_values": [0.1]},
             ref=lambda ins, a: {"Out": np.array([0.1])}, name="float64"),
    ],
    "range": [
        Case(inputs={"Start": np.array([0], np.int64), "End": np.array([10], np.int64),
                     "Step": np.array([3], np.int64)},
             ref=lambda ins, a: {"Out": np.array([0, 3, 6, 9], np.int64)}),
        Case(inputs={"Start": np.array(1.0, F), "End": np.array(-1.0, F),
                     "Step": np.array(-0.5, F)},
             ref=lambda ins, a: {"Out": np.array([1.0, 0.5, 0.0, -0.5], F)},
             name="float32, counting down"),
        Case(inputs={"Start": np.array([5], np.int32), "End": np.array([5], np.int32),
                     "Step": np.array([1], np.int32)},
             ref=lambda ins, a: {"Out": np.zeros((0,), np.int32)}, name="empty"),
    ],
    "increment": [
        Case(inputs={"X": np.array([3], np.int64)},
             ref=lambda ins, a: {"Out": np.array([4], np.int64)}),
        Case(inputs={"X": np.array([0.5], F)}, attrs={"step": -2.0},
             ref=lambda ins, a: {"Out": np.array([-1.5], F)}, name="float, negative step"),
    ],
}

BAD = {
    "fill_constant": [
        Bad(inputs={}, attrs={"shape": [2, -1]}, error=ShapeError,
            match=r"shape must hold sizes >= 0, got \[2, -1\]"),
        Bad(inputs={}, attrs={"shape": [2], "dtype": "complex32"}, error=AttrError, match="dtype"),
        Bad(inputs={"ValueTensor": Meta((2,), np.dtype(F))}, attrs={"shape": [2]},
            error=ShapeError, match=r"ValueTensor must hold one value, got shape \(2,\)"),
        Bad(inputs={"ShapeTensor": Meta((), np.dtype(np.int32))}, error=ShapeError,
            match=r"ShapeTensor must be a 1-D tensor of known length, got shape \(\)"),
    ],
    "uniform_random": [
        Bad(inputs={}, attrs={"shape": [2], "dtype": "int64"}, error=ShapeError,
            match="dtype must be a floating-point type, got int64"),
        Bad(inputs={}, attrs={"shape": [2], "min": 1.0, "max": 0.0}, error=ShapeError,
            match=r"min \(1.0\) must not exceed max \(0.0\)"),
    ],
    "gaussian_random": [
        Bad(inputs={}, attrs={"shape": [2], "std": -1.0}, error=ShapeError,
            match="std must be >= 0"),
        Bad(inputs={}, attrs={"shape": [-3]}, error=ShapeError, match="sizes >= 0"),
    ],
    "truncated_gaussian_random": [
        Bad(inputs={}, attrs={"shape": [2], "std": -1.0}, error=ShapeError,
            match="std must be >= 0"),
        Bad(inputs={}, attrs={"shape": [2], "dtype": "int64"}, error=ShapeError,
            match="dtype must be a floating-point type"),
    ],
    "uniform_random_batch_size_like": [
        Bad(inputs={"Input": Meta((-1, 2), np.dtype(F))}, attrs={"shape": [3], "min": 1.0,
                                                              "max": 0.0},
            error=ShapeError, match=r"min \(1.0\) must not exceed max \(0.0\)"),
        Bad(inputs={"Input": Meta((-1, 2), np.dtype(F))},
            attrs={"shape": [3], "input_dim_idx": 2},
            error=ShapeError, match=r"input_dim_idx 2 is out of range"),
    ],
    "fill_constant_batch_size_like": [
        Bad(inputs={"Input": Meta((-1, 2), np.dtype(F))},
            attrs={"shape": [1, 3], "input_dim_idx": 2}, error=ShapeError,
            match=r"input_dim_idx 2 is out of range for Input of shape \(-1, 2\)"),
        Bad(inputs={"Input": Meta((-1, 2), np.dtype(F))}, attrs={"shape": [1], "output_dim_idx": 1},
            error=ShapeError, match=r"output_dim_idx 1 is out of range for shape \[1\]"),
    ],
    "assign_value": [
        Bad(inputs={}, attrs={"shape": [3], "fp32_values": [1.0, 2.0]}, error=ShapeError,
            match=r"fp32_values must hold one value per element of shape \[3\] \(3\), got 2"),
        Bad(inputs={}, attrs={"shape": [1], "dtype": "float16"}, error=ShapeError,
            match="dtype must be bool, int32, int64, float32 or float64, got float16"),
    ],
    "range": [Bad(inputs={"Start": Meta((2,), np.dtype(np.int64)), "End": Meta((1,), np.dtype(
        np.int64)), "Step": Meta((1,), np.dtype(np.int64))}, error=ShapeError,
        match=r"Start must hold one value, got shape \(2,\)")],
    "increment": [Bad(inputs={"X": Meta((2,), np.dtype(np.int64))}, error=ShapeError,
                      match=r"X must hold exactly one element \(a counter\), got shape \(2,\)")],
}


def test_batch_size_like_keeps_an_unknown_batch_dim():
    got = harness.infer("fill_constant_batch_size_like", {"Input": Meta((-1, 2), np.dtype(F))},
                        {"shape": [1, 8], "dtype": "int64"})["Out"]
    assert got.shape == (-1, 8) and got.dtype == np.dtype(np.int64)


def test_seed_zero_draws_from_the_run_generator():
    a = harness.forward("gaussian_random", {}, {"shape": [4]}, seed=1)["Out"]
    b = harness.forward("gaussian_random", {}, {"shape": [4]}, seed=1)["Out"]
    c = harness.forward("gaussian_random", {}, {"shape": [4]}, seed=2)["Out"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_fill_constant_dims_from_tensors_are_unknown_at_build():
    one = Meta((), np.dtype(np.int32))
    got = harness.infer("fill_constant", {"ShapeTensorList": [one, one]}, {"shape": [-1, 4]})
    assert got["Out"].shape == (-1, 4)
    got = harness.infer("fill_constant", {"ShapeTensor": Meta((3,), np.dtype(np.int32))})
    assert got["Out"].shape == (-1, -1, -1)
    got = harness.infer("range",
                        {k: Meta((1,), np.dtype(np.int64)) for k in ("Start", "End", "Step")})
    assert got["Out"] == Meta((-1,), np.dtype(np.int64))
