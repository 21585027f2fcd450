"""The two memory-reuse rules of ``LoDTensor.mutable_data`` (docs/design_notes.md, "Memory
reuse"): paddle_nb's (same place, dtype and shape) and PaddlePaddle's (same place and a block
big enough, ``DenseTensor::mutable_data``), chosen with ``memory_reuse``."""
import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.core.tensor import memory_reuse, memory_reuse_rule, set_memory_reuse_rule

CPU = pd.CPUPlace()
REQUESTS = [("float32", (10, 10)), ("float32", (100,)), ("float64", (10, 10)),
            ("float64", (10, 10))]


def counts(rule):
    """(bytes in use, new allocations) after each request of REQUESTS, under ``rule``."""
    t = pd.Scope().var("t").get_tensor()
    start = pd.memory_stats(CPU)
    seen = []
    with memory_reuse(rule):
        for dtype, shape in REQUESTS:
            t.mutable_data(CPU, dtype, shape)
            now = pd.memory_stats(CPU)
            seen.append((now["in_use"] - start["in_use"],
                         now["allocations"] - start["allocations"]))
    return seen


def test_the_default_rule_is_paddle_nbs():
    assert memory_reuse_rule() == "paddle_nb"


def test_paddle_nbs_rule_reallocates_for_another_shape_of_the_same_size(quiet_gc):
    assert counts("paddle_nb") == [(400, 1), (400, 2), (800, 3), (800, 3)]


def test_paddles_rule_reuses_a_block_big_enough(quiet_gc):
    assert counts("paddle") == [(400, 1), (400, 1), (800, 2), (800, 2)]


def test_a_smaller_request_sees_the_first_bytes_of_the_block(quiet_gc):
    t = pd.Scope().var("t").get_tensor()
    block = t.mutable_data(CPU, "float32", (4,))
    block[:] = [1.0, 2.0, 3.0, 4.0]
    with memory_reuse("paddle"):
        small = t.mutable_data(CPU, "float32", (2,))
    assert np.shares_memory(small, block) and small.tolist() == [1.0, 2.0]
    assert (t.shape, t.nbytes, t.capacity) == ((2,), 8, 16)


def test_freeing_a_view_gives_the_whole_block_back(quiet_gc):
    before = pd.memory_stats(CPU)["in_use"]
    t = pd.Scope().var("t").get_tensor()
    t.mutable_data(CPU, "float64", (8,))
    with memory_reuse("paddle"):
        t.mutable_data(CPU, "int32", (3,))
    assert pd.memory_stats(CPU)["in_use"] - before == 64
    t.free()
    assert pd.memory_stats(CPU)["in_use"] == before and t.capacity == 0


def test_paddles_rule_never_reuses_an_array_held_from_elsewhere(quiet_gc):
    """A kernel's output (``hold``) may be shared; only a block mutable_data made is reused."""
    t = pd.Scope().var("t").get_tensor()
    shared = np.zeros(4, "float32")
    t.hold(shared, CPU)
    with memory_reuse("paddle"):
        got = t.mutable_data(CPU, "float32", (2,))
    assert not np.shares_memory(got, shared)


def test_the_rule_comes_back_after_the_with_block_even_on_error():
    with pytest.raises(RuntimeError), memory_reuse("paddle"):
        assert memory_reuse_rule() == "paddle"
        raise RuntimeError("inside")
    assert memory_reuse_rule() == "paddle_nb"


def test_an_unknown_rule_is_refused_naming_the_rules():
    with pytest.raises(ValueError, match="paddle_nb.*paddle.*'cuda'"):
        set_memory_reuse_rule("cuda")
