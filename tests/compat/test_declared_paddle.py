"""Four results paddle_nb once got silently wrong, against PaddlePaddle 2.6.2's programs.

``interop/ops/declared_refs.py`` built each with PaddlePaddle 2.6.2 and recorded its outputs,
gradients and declared metas: an ``avg_pool2d`` with ``exclusive=False, ceil_mode=True``
whose last window overhangs the padding, ``paddle.sum`` of int32 (int64 in 2.6),
``paddle.argmax`` without an axis (0-D) and ``slice`` with ``decrease_axis`` over every axis
(0-D). paddle_nb must give the same values, dtypes and shapes (no [1] for a 0-D), each equal
to what the program declares; the executor also checks each op's result against its
declaration (executor/declared.py).
"""
import pathlib

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpRunError

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops" / \
    "declared.npz"


def _cases():
    cases = {}
    with np.load(FIXTURE) as values:
        for key in values.files:
            name, kind, *rest = key.split("/")
            case = cases.setdefault(name, {"feed": {}, "fetch": {}, "declared": {}})
            if kind == "program":
                case["program"] = values[key].tobytes()
            else:
                case[kind]["/".join(rest)] = values[key]
    return cases


CASES = _cases()


def declared(text):
    dtype, dims = str(text).split(" ")
    return np.dtype(dtype), tuple(int(d) for d in dims.split(",") if d)


@pytest.mark.parametrize("name", sorted(CASES))
def test_paddles_program_gives_paddles_values_dtypes_and_shapes(name):
    case = CASES[name]
    program = pd.Program.parse(case["program"])
    names = list(case["fetch"])
    got = pd.Executor().run(program, feed=case["feed"], fetch_list=names, scope=pd.Scope())
    for n, value in zip(names, got):
        want = case["fetch"][n]
        assert (value.dtype, value.shape) == (want.dtype, want.shape), n
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {n}")
        if n in case["declared"]:
            var = program.global_block().var(n)
            assert (var.dtype, tuple(var.shape)) == declared(case["declared"][n]) == \
                (value.dtype, value.shape), n


def test_a_kernel_that_disagrees_with_the_declaration_stops_the_run():
    case = CASES["sum_int32"]
    program = pd.Program.parse(case["program"])
    out = next(iter(case["fetch"]))
    program.global_block().var(out).dtype = "int32"       # now the kernel's int64 disagrees
    op = program.global_block().var(out).writer
    with pytest.raises(OpRunError) as info:
        pd.Executor().run(program, feed=case["feed"], fetch_list=[out], scope=pd.Scope())
    message = str(info.value)
    assert f"op #{op.index()} 'reduce_sum' in block 0" in message
    assert f"Out='{out}' as int64[]" in message and "declares int32[]" in message
    assert "built at declared_refs.py:" in message     # the user's line that built it (a file
    #                                                   of another machine: by its name)
