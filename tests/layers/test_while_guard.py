"""The While guard: a runaway loop stops early, with an error naming the loop and the limit.

A loop stops at whichever comes first: ``max_iterations`` iterations, or
``max_step_scope_bytes`` bytes held by the step scopes it keeps for the backward pass.
The defaults live in one place, ``pd.layers.WHILE_LIMITS`` (100,000 iterations, 1 GiB);
``While(cond, max_iterations=..., max_step_scope_bytes=...)`` sets a loop's own.
"""


import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import OpBuildError, OpRunError
from paddle_nb.ops.control_flow import WHILE_LIMITS, scope_bytes

CPU = pd.CPUPlace()
MIB = 1 << 20


@pytest.fixture
def limits():
    """WHILE_LIMITS as it was before the test, put back after it."""
    old = WHILE_LIMITS.set()
    yield WHILE_LIMITS
    WHILE_LIMITS.set(**old)


def _endless(body_floats=0, is_test=False, **limits):
    """A loop whose condition stays true; each iteration makes ``body_floats`` float32s."""
    prog = pd.Program()
    with pd.program_guard(prog):
        c = pd.layers.fill_constant([1], "bool", True)
        i = pd.layers.fill_constant([1], "int64", 0)
        loop = pd.layers.While(c, is_test=is_test, **limits)
        with loop.block():              # the loop is appended here: the line the error names
            pd.layers.increment(i)
            if body_floats:
                pd.layers.fill_constant([body_floats], "float32", 1.0)
            pd.layers.fill_constant([1], "bool", True, out=c)
    return prog


def _stop(prog):
    with pytest.raises(OpRunError) as info:
        pd.Executor(CPU).run(prog, scope=pd.Scope())
    return str(info.value)


def test_the_defaults_are_documented_numbers():
    assert (WHILE_LIMITS.max_iterations, WHILE_LIMITS.max_step_scope_bytes) == (100_000, 1 << 30)
    assert pd.layers.WHILE_LIMITS is WHILE_LIMITS


def test_a_trivial_endless_body_stops_naming_loop_limit_and_line():
    # (how long the 100,000 iterations take is measured in bench/, not asserted here)
    message = _stop(_endless())
    assert "while loop (op #2 'while' in block 0, body block 1)" in message
    assert "still true after 100000 iterations" in message
    assert "max_iterations=100000 is reached" in message
    assert "the line the error names" in message and __file__ in message


def test_a_one_mib_body_stops_on_the_memory_budget(limits):
    limits.set(max_step_scope_bytes=64 * MIB)       # the default 1 GiB, scaled down for CI
    message = _stop(_endless(body_floats=MIB // 4))
    assert "max_step_scope_bytes=64.0 MiB (67108864 bytes) is exceeded" in message
    assert "after 64 iterations" in message           # 64 MiB held: the 65th MiB is too much
    assert "While(cond, max_iterations=..., max_step_scope_bytes=...)" in message


def test_a_one_mib_body_stops_on_the_default_budget_before_the_iteration_limit():
    message = _stop(_endless(body_floats=MIB // 4))
    assert "max_step_scope_bytes=1.0 GiB" in message and "after 1024 iterations" in message


def test_a_loops_own_limits_win_over_the_defaults(limits):
    limits.set(max_iterations=7)
    assert "still true after 7 iterations" in _stop(_endless())
    assert "still true after 3 iterations" in _stop(_endless(max_iterations=3))
    assert "still true after 4 iterations" in _stop(_endless(max_iterations=np.int64(4)))
    message = _stop(_endless(body_floats=256, max_step_scope_bytes=4096))
    assert "after 4 iterations" in message and "max_step_scope_bytes=4.0 KiB" in message


def test_the_defaults_are_read_when_the_loop_runs(limits):
    prog = _endless()
    limits.set(max_iterations=5)
    assert "after 5 iterations" in _stop(prog)
    limits.set(max_iterations=9)
    assert "after 9 iterations" in _stop(prog)


def test_an_is_test_loop_keeps_no_step_scopes_so_only_the_count_stops_it(limits):
    limits.set(max_iterations=300, max_step_scope_bytes=1024)
    message = _stop(_endless(body_floats=1024, is_test=True))
    assert "after 300 iterations" in message and "hold 0 bytes" in message


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_bad_limits_are_refused(limits, bad):
    with pytest.raises(ValueError, match="positive int"):
        limits.set(max_iterations=bad)
    with pytest.raises(ValueError, match="positive int"):
        limits.set(max_step_scope_bytes=bad)
    prog = pd.Program()
    with pd.program_guard(prog):
        c = pd.layers.fill_constant([1], "bool", True)
        with pytest.raises(OpBuildError, match="max_iterations must be a positive int"):
            pd.layers.While(c, max_iterations=bad)


def test_a_normal_loop_is_unaffected_and_stores_no_limit(limits):
    limits.set(max_iterations=10, max_step_scope_bytes=1 << 40)
    prog = pd.Program()
    with pd.program_guard(prog):
        i = pd.layers.fill_constant([1], "int64", 0)
        n = pd.layers.fill_constant([1], "int64", 10)    # exactly the limit: allowed
        s = pd.layers.fill_constant([1], "float64", 0.0)
        c = pd.layers.less_than(i, n)
        loop = pd.layers.While(c)
        with loop.block():
            pd.layers.assign(s + pd.layers.cast(i, "float64"), s)
            pd.layers.increment(i)
            pd.layers.less_than(i, n, cond=c)
    op = prog.global_block().ops[-1]
    assert op.type == "while" and op.attr("max_iterations") == 0
    assert op.attr("max_step_scope_bytes") == 0
    total, = pd.Executor(CPU).run(prog, fetch_list=[s], scope=pd.Scope())
    np.testing.assert_array_equal(total, [45.0])


def test_scope_bytes_counts_a_scope_its_frames_and_its_kids():
    root = pd.Scope()
    root.var("a").get_tensor().set(np.zeros(10, "float32"), CPU)
    kid = root.new_scope()
    kid.var("b").get_tensor().set(np.zeros(3, "float64"), CPU)
    kid.var("empty")
    assert scope_bytes(root) == 40 + 24 and scope_bytes(kid) == 24
