"""LoDTensor: lazy allocation, memory reuse and accounting, LoD ("Design Doc:
Variable").

A tensor holds no shape, dtype or memory until ``mutable_data`` or ``set`` asks for it;
``mutable_data`` reuses the memory when place, dtype and shape all match; every byte is
counted per place in ``pd.memory_stats``. The GPU tests at the end run the same API on a
GPUPlace and are skipped without CuPy and a device.
"""
import gc

import numpy as np
import pytest

import paddle_nb as pd

CPU = pd.CPUPlace()




def in_use(place=CPU):
    return pd.memory_stats(place)["in_use"]


def fresh_tensor():
    return pd.Scope().var("t").get_tensor()


# -- lazy allocation ----------------------------------------------------------------------------
def test_a_new_tensor_has_no_shape_dtype_place_or_memory():
    tensor = pd.LoDTensor()
    assert tensor.is_allocated() is False
    assert tensor.shape is None
    assert tensor.dtype is None
    assert tensor.place is None
    assert tensor.nbytes == 0
    assert tensor.lod() == []
    assert "not allocated" in repr(tensor)


def test_reading_data_before_allocation_raises_not_allocated():
    tensor = pd.Scope().var("w").get_tensor()
    with pytest.raises(pd.errors.NotAllocatedError, match="'w'.*mutable_data or set"):
        tensor.numpy()
    with pytest.raises(pd.errors.NotAllocatedError):
        np.asarray(tensor)
    with pytest.raises(pd.errors.NotAllocatedError):
        tensor.array()


def test_not_allocated_is_a_runtime_error():
    assert issubclass(pd.errors.NotAllocatedError, RuntimeError)


def test_a_typed_tensor_takes_no_memory(quiet_gc):
    before = in_use()
    tensors = [pd.Scope().var(f"v{i}").get_tensor() for i in range(5)]
    assert in_use() == before
    assert all(t.nbytes == 0 for t in tensors)


def test_mutable_data_allocates_with_the_shape_dtype_and_place_asked(quiet_gc):
    tensor = fresh_tensor()
    before = in_use()
    array = tensor.mutable_data(CPU, "float32", (2, 3))
    assert isinstance(array, np.ndarray)
    assert array.shape == (2, 3) and array.dtype == np.float32
    assert tensor.is_allocated()
    assert tensor.shape == (2, 3)
    assert isinstance(tensor.shape, tuple)
    assert tensor.dtype == np.dtype("float32")
    assert isinstance(tensor.dtype, np.dtype)
    assert tensor.place == CPU
    assert tensor.nbytes == 24
    assert in_use() - before == 24


def test_mutable_data_returns_the_tensors_own_memory():
    tensor = fresh_tensor()
    array = tensor.mutable_data(CPU, "int64", (4,))
    array[:] = [1, 2, 3, 4]
    assert tensor.numpy().tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("dtype", ["float32", np.float32, np.dtype("float32"), "float", "fp32"])
def test_mutable_data_takes_a_dtype_in_any_spelling(dtype):
    tensor = fresh_tensor()
    tensor.mutable_data(CPU, dtype, [3])
    assert tensor.dtype == np.dtype("float32")


def test_mutable_data_accepts_a_zero_sized_shape_and_a_scalar_shape():
    tensor = fresh_tensor()
    tensor.mutable_data(CPU, "float32", (0, 3))
    assert tensor.is_allocated() and tensor.shape == (0, 3) and tensor.nbytes == 0
    tensor.mutable_data(CPU, "float64", ())
    assert tensor.shape == () and tensor.nbytes == 8


def test_mutable_data_refuses_a_negative_dimension_naming_the_variable():
    tensor = pd.Scope().var("h").get_tensor()
    with pytest.raises(ValueError, match="'h'"):
        tensor.mutable_data(CPU, "float32", (2, -1))
    assert not tensor.is_allocated()


def test_mutable_data_refuses_something_that_is_not_a_place():
    with pytest.raises(TypeError, match="Place"):
        fresh_tensor().mutable_data("cpu", "float32", (2,))


def test_mutable_data_refuses_an_unsupported_dtype():
    with pytest.raises(TypeError, match="dtype"):
        fresh_tensor().mutable_data(CPU, "U3", (2,))


# -- reuse and reallocation ---------------------------------------------------------------------
def test_mutable_data_reuses_memory_when_place_dtype_and_shape_match(quiet_gc):
    tensor = fresh_tensor()
    first = tensor.mutable_data(CPU, "float32", (2, 3))
    allocations = pd.memory_stats(CPU)["allocations"]
    before = in_use()
    again = tensor.mutable_data(pd.CPUPlace(), np.float32, [2, 3])   # equal, not identical, args
    assert again is first
    assert in_use() == before
    assert pd.memory_stats(CPU)["allocations"] == allocations


@pytest.mark.parametrize("dtype, shape", [
    ("float64", (2, 3)),     # another dtype
    ("float32", (3, 2)),     # another shape, same size
    ("float32", (4, 3)),     # another size
    ("int32", (2, 3)),       # another dtype, same size
])
def test_mutable_data_reallocates_when_dtype_or_shape_differs(quiet_gc, dtype, shape):
    tensor = fresh_tensor()
    before = in_use()
    first = tensor.mutable_data(CPU, "float32", (2, 3))
    second = tensor.mutable_data(CPU, dtype, shape)
    assert second is not first
    assert tensor.shape == shape and tensor.dtype == np.dtype(dtype)
    assert in_use() - before == second.nbytes       # the old memory was given back


def test_reallocating_counts_one_release_and_one_allocation(quiet_gc):
    tensor = fresh_tensor()
    tensor.mutable_data(CPU, "float32", (2,))
    start = pd.memory_stats(CPU)
    tensor.mutable_data(CPU, "float32", (5,))
    end = pd.memory_stats(CPU)
    assert end["allocations"] - start["allocations"] == 1
    assert end["releases"] - start["releases"] == 1


# -- set, numpy and np.asarray -------------------------------------------------------------------
def test_set_copies_the_data_in(quiet_gc):
    source = np.arange(6, dtype="float32").reshape(2, 3)
    tensor = fresh_tensor()
    before = in_use()
    assert tensor.set(source, CPU) is tensor
    source[0, 0] = 100.0
    assert tensor.numpy()[0, 0] == 0.0
    assert tensor.shape == (2, 3) and tensor.dtype == np.float32 and tensor.place == CPU
    assert in_use() - before == 24


def test_set_keeps_a_numpy_arrays_dtype():
    for dtype in ["float64", "int64", "int32", "bool", "float16"]:
        tensor = fresh_tensor()
        tensor.set(np.zeros(3, dtype=dtype))
        assert tensor.dtype == np.dtype(dtype)


def test_set_turns_python_floats_into_float32():
    tensor = fresh_tensor()
    tensor.set([1.0, 2.5])
    assert tensor.dtype == np.float32
    tensor.set(3.5)
    assert tensor.dtype == np.float32 and tensor.shape == ()


def test_set_defaults_to_the_cpu():
    tensor = fresh_tensor()
    tensor.set(np.ones(2))
    assert tensor.place == pd.CPUPlace()


def test_set_replaces_the_memory_it_held(quiet_gc):
    tensor = fresh_tensor()
    before = in_use()
    tensor.set(np.zeros(100, "float64"))
    tensor.set(np.zeros(10, "float64"))
    assert in_use() - before == 80


def test_set_from_another_tensor_copies_data_and_lod():
    source = pd.LoDTensor()
    source.set(np.arange(5, dtype="int64"))
    source.set_lod([[0, 2, 5]])
    copy = fresh_tensor()
    copy.set(source)
    assert copy.numpy().tolist() == [0, 1, 2, 3, 4]
    assert copy.lod() == [[0, 2, 5]]
    copy.mutable_data(CPU, "int64", (5,))[0] = 42
    assert source.numpy()[0] == 0


def test_set_refuses_a_dtype_paddle_nb_cannot_describe():
    with pytest.raises(TypeError, match="not supported"):
        fresh_tensor().set(np.array(["a", "b"]))


def test_numpy_returns_a_copy():
    tensor = fresh_tensor()
    tensor.set(np.zeros(3, "float32"))
    host = tensor.numpy()
    host[0] = 7.0
    assert tensor.numpy()[0] == 0.0


def test_np_asarray_copies_to_the_host():
    tensor = fresh_tensor()
    array = tensor.mutable_data(CPU, "float32", (2, 2))
    array[:] = 1.0
    host = np.asarray(tensor)
    assert isinstance(host, np.ndarray)
    assert host.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert host is not array
    host[0, 0] = 5.0
    assert array[0, 0] == 1.0


def test_np_asarray_with_a_dtype_converts():
    tensor = fresh_tensor()
    tensor.set(np.arange(3, dtype="int64"))
    assert np.asarray(tensor, dtype="float64").dtype == np.float64


def test_array_returns_the_held_array_itself():
    tensor = fresh_tensor()
    array = tensor.mutable_data(CPU, "float32", (2,))
    assert tensor.array() is array


def test_repr_shows_shape_dtype_place_and_lod():
    tensor = fresh_tensor()
    tensor.set(np.zeros((3, 1), "float32"))
    tensor.set_lod([[0, 1, 3]])
    text = repr(tensor)
    assert "(3, 1)" in text and "float32" in text and "CPUPlace()" in text and "[[0, 1, 3]]" in text


# -- memory accounting --------------------------------------------------------------------------
def test_memory_stats_has_in_use_and_peak_per_place():
    stats = pd.memory_stats(CPU)
    assert set(stats) >= {"in_use", "peak", "allocations", "releases"}
    assert pd.CPUPlace() in pd.memory_stats()


def test_memory_in_use_rises_with_allocations_and_falls_after_destruction(quiet_gc):
    start = pd.memory_stats(CPU)
    scope = pd.Scope()
    scope.var("a").get_tensor().mutable_data(CPU, "float32", (10,))       # 40 bytes
    scope.var("b").get_tensor().mutable_data(CPU, "float64", (5,))        # 40 bytes
    kid = scope.new_scope()
    kid.var("c").get_tensor().mutable_data(CPU, "int8", (20,))           # 20 bytes
    middle = pd.memory_stats(CPU)
    assert middle["in_use"] - start["in_use"] == 100
    assert middle["peak"] >= start["in_use"] + 100
    scope.destroy()
    end = pd.memory_stats(CPU)
    assert end["in_use"] == start["in_use"]
    assert end["peak"] == middle["peak"]            # the peak remembers the high-water mark
    assert end["releases"] - start["releases"] == 3


def test_memory_of_a_tensor_nobody_references_is_given_back(quiet_gc):
    before = in_use()
    tensor = pd.LoDTensor()
    tensor.mutable_data(CPU, "float32", (256,))
    assert in_use() - before == 1024
    del tensor
    assert in_use() == before


def test_memory_of_a_scope_nobody_references_is_given_back_by_the_collector(quiet_gc):
    before = in_use()
    scope = pd.Scope()
    scope.var("x").get_tensor().mutable_data(CPU, "float32", (8,))
    assert in_use() - before == 32
    del scope
    gc.collect()
    assert in_use() == before


def test_memory_is_counted_per_place(quiet_gc):
    before = pd.memory_stats()
    tensor = fresh_tensor()
    tensor.mutable_data(CPU, "float32", (4,))
    after = pd.memory_stats()
    assert after[CPU]["in_use"] - before[CPU]["in_use"] == 16
    for place, stats in after.items():     # no other place moved
        if place != CPU:
            assert stats["in_use"] == before.get(place, {"in_use": 0})["in_use"]


# -- LoD ----------------------------------------------------------------------------------------
def lod_tensor(rows):
    tensor = pd.Scope().var("seq").get_tensor()
    tensor.set(np.zeros((rows, 2), "float32"))
    return tensor


def test_set_lod_and_read_it_back():
    tensor = lod_tensor(5)
    tensor.set_lod([[0, 2, 5]])
    assert tensor.lod() == [[0, 2, 5]]
    assert tensor.recursive_sequence_lengths() == [[2, 3]]


def test_a_two_level_lod():
    tensor = lod_tensor(6)
    tensor.set_lod([[0, 2, 3], [0, 1, 4, 6]])     # 2 paragraphs of 2 and 1 sentences
    assert tensor.recursive_sequence_lengths() == [[2, 1], [1, 3, 2]]


def test_set_recursive_sequence_lengths_builds_the_offsets():
    tensor = lod_tensor(6)
    tensor.set_recursive_sequence_lengths([[2, 1], [1, 3, 2]])
    assert tensor.lod() == [[0, 2, 3], [0, 1, 4, 6]]


def test_lod_returns_a_copy():
    tensor = lod_tensor(2)
    tensor.set_lod([[0, 1, 2]])
    tensor.lod()[0].append(99)
    assert tensor.lod() == [[0, 1, 2]]


def test_an_empty_lod_clears_it():
    tensor = lod_tensor(2)
    tensor.set_lod([[0, 2]])
    tensor.set_lod([])
    assert tensor.lod() == [] and tensor.recursive_sequence_lengths() == []


@pytest.mark.parametrize("lod, message", [
    ([[1, 3, 5]], "starting at 0"),
    ([[0, 3, 2, 5]], "never decreasing"),
    ([[]], "starting at 0"),
    ([[0, 2, 4]], "first dimension 5"),                 # ends at 4, the tensor has 5 rows
    ([[0, 1, 2], [0, 1, 3, 5]], "needs 3 offsets"),     # level 0 has 2 items, level 1 has 3
], ids=["not-from-zero", "decreasing", "empty-level", "wrong-end", "levels-disagree"])
def test_set_lod_refuses_a_bad_table_naming_the_variable(lod, message):
    tensor = lod_tensor(5)
    with pytest.raises(pd.errors.LoDError, match=message) as info:
        tensor.set_lod(lod)
    assert "'seq'" in str(info.value)
    assert tensor.lod() == []                       # a refused table changes nothing


def test_lod_error_is_a_value_error():
    assert issubclass(pd.errors.LoDError, ValueError)


def test_an_unallocated_tensor_takes_a_lod_without_checking_rows():
    tensor = pd.LoDTensor()
    tensor.set_lod([[0, 2, 3]])
    assert tensor.recursive_sequence_lengths() == [[2, 1]]


# -- the same API on a GPU ----------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_gpu_mutable_data_allocates_a_cupy_array_and_counts_it(quiet_gc):
    import cupy
    place = pd.GPUPlace(0)
    tensor = pd.Scope().var("g").get_tensor()
    before = pd.memory_stats(place)["in_use"]
    cpu_before = in_use()
    array = tensor.mutable_data(place, "float32", (2, 3))
    assert isinstance(array, cupy.ndarray)
    assert tensor.place == place and tensor.shape == (2, 3) and tensor.nbytes == 24
    assert pd.memory_stats(place)["in_use"] - before == 24
    assert in_use() == cpu_before
    assert tensor.mutable_data(pd.GPUPlace(0), "float32", (2, 3)) is array


@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_gpu_set_numpy_and_asarray_copy_between_host_and_device():
    place = pd.GPUPlace(0)
    tensor = pd.LoDTensor()
    tensor.set(np.arange(4, dtype="float32"), place)
    host = tensor.numpy()
    assert isinstance(host, np.ndarray) and host.tolist() == [0, 1, 2, 3]
    assert np.asarray(tensor).tolist() == [0, 1, 2, 3]


@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_gpu_moving_a_tensor_between_places_reallocates_and_counts_both(quiet_gc):
    gpu_place = pd.GPUPlace(0)
    tensor = pd.LoDTensor()
    cpu_before, gpu_before = in_use(), pd.memory_stats(gpu_place)["in_use"]
    first = tensor.mutable_data(CPU, "float32", (4,))
    second = tensor.mutable_data(gpu_place, "float32", (4,))      # same dtype and shape
    assert second is not first
    assert in_use() == cpu_before
    assert pd.memory_stats(gpu_place)["in_use"] - gpu_before == 16


@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_gpu_destroying_a_scope_gives_the_device_memory_back(quiet_gc):
    place = pd.GPUPlace(0)
    before = pd.memory_stats(place)["in_use"]
    scope = pd.Scope()
    tensor = scope.var("g").get_tensor()
    tensor.mutable_data(place, "float64", (10,))
    assert pd.memory_stats(place)["in_use"] - before == 80
    scope.destroy()
    assert pd.memory_stats(place)["in_use"] == before
    with pytest.raises(pd.errors.ScopeDestroyedError, match="'g'"):
        tensor.numpy()


def test_a_ctrl_c_that_lands_in_a_tensors_finalizer_is_delivered_again(monkeypatch):
    """Python ignores an exception raised in ``__del__``: a KeyboardInterrupt that arrives
    while a garbage collection finalizes a tensor (during a save, during a run) would be lost.
    The finalizer hands it back to the main thread, which raises it right after."""
    import numpy as np
    from paddle_nb.core import tensor as tensor_module
    t = tensor_module.LoDTensor()
    t.set(np.zeros(3), pd.CPUPlace())
    calls = []

    def interrupted_release(place, nbytes):
        calls.append(nbytes)
        raise KeyboardInterrupt
    monkeypatch.setattr(tensor_module.MEMORY, "release", interrupted_release)
    import time
    with pytest.raises(KeyboardInterrupt):
        del t
        deadline = time.monotonic() + 5     # a helper thread delivers it: soon, not at once
        while time.monotonic() < deadline:
            time.sleep(0.001)
    assert calls == [24]
