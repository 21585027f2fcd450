"""Places: where a tensor's memory lives (paddle_nb/core/place.py).

Places compare by kind and device id, so they work as dict keys (the memory counters
are keyed by place). A GPUPlace can always be made; using it without CuPy or a device
raises PlaceUnavailableError that says how to get CuPy.
"""
import numpy as np
import pytest

import paddle_nb as pd

no_gpu = pytest.mark.skipif(pd.gpu_available(), reason="a GPU is present here")


def test_cpu_places_are_equal_and_hash_alike():
    assert pd.CPUPlace() == pd.CPUPlace()
    assert hash(pd.CPUPlace()) == hash(pd.CPUPlace())
    assert {pd.CPUPlace(): "host"}[pd.CPUPlace()] == "host"


def test_gpu_places_compare_by_device_id():
    assert pd.GPUPlace(0) == pd.GPUPlace(0)
    assert pd.GPUPlace() == pd.GPUPlace(0)
    assert pd.GPUPlace(0) != pd.GPUPlace(1)
    assert hash(pd.GPUPlace(1)) == hash(pd.GPUPlace(1))
    assert len({pd.GPUPlace(0), pd.GPUPlace(0), pd.GPUPlace(1)}) == 2


def test_cpu_and_gpu_places_differ():
    assert pd.CPUPlace() != pd.GPUPlace(0)
    assert pd.GPUPlace(0) != pd.CPUPlace()
    assert len({pd.CPUPlace(), pd.GPUPlace(0)}) == 2


def test_a_place_is_not_equal_to_other_objects():
    assert pd.CPUPlace() != "cpu"
    assert pd.GPUPlace(0) != 0


def test_places_are_places_and_say_which_is_a_gpu():
    assert isinstance(pd.CPUPlace(), pd.Place)
    assert isinstance(pd.GPUPlace(0), pd.Place)
    assert not pd.CPUPlace().is_gpu()
    assert pd.GPUPlace(0).is_gpu()


def test_place_reprs_read_like_the_call_that_made_them():
    assert repr(pd.CPUPlace()) == "CPUPlace()"
    assert repr(pd.GPUPlace(2)) == "GPUPlace(2)"


@pytest.mark.parametrize("device_id", [-1, 1.5, "0", None])
def test_gpu_place_refuses_a_bad_device_id(device_id):
    with pytest.raises(ValueError, match="device_id"):
        pd.GPUPlace(device_id)


def test_cpu_place_array_module_is_numpy():
    assert pd.CPUPlace().xp is np


def test_gpu_available_is_a_bool():
    assert isinstance(pd.gpu_available(), bool)


@no_gpu
def test_gpu_is_not_available_on_this_machine():
    assert pd.gpu_available() is False


@no_gpu
def test_making_a_gpu_place_works_without_a_gpu():
    place = pd.GPUPlace(0)              # making one never fails; using one does
    assert place.kind == "gpu" and place.device_id == 0


@no_gpu
def test_using_a_gpu_place_says_how_to_get_cupy():
    with pytest.raises(pd.errors.PlaceUnavailableError) as info:
        pd.GPUPlace(0).xp
    message = str(info.value)
    assert "GPUPlace(0)" in message
    assert "CuPy" in message
    assert "pip install" in message or "conda install" in message
    assert "CPUPlace" in message        # and says what to use instead


@no_gpu
def test_allocating_on_a_gpu_place_raises_place_unavailable():
    tensor = pd.LoDTensor()
    with pytest.raises(pd.errors.PlaceUnavailableError, match="CuPy"):
        tensor.mutable_data(pd.GPUPlace(0), "float32", (2, 3))
    with pytest.raises(pd.errors.PlaceUnavailableError, match="CuPy"):
        tensor.set(np.zeros(3, "float32"), pd.GPUPlace(0))
    assert not tensor.is_allocated()    # a failed allocation leaves the tensor empty


def test_place_unavailable_is_a_runtime_error():
    assert issubclass(pd.errors.PlaceUnavailableError, RuntimeError)
    assert issubclass(pd.errors.PlaceUnavailableError, pd.errors.PaddleNBError)


@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_gpu_place_array_module_is_cupy():
    import cupy
    assert pd.GPUPlace(0).xp is cupy


@pytest.mark.gpu
@pytest.mark.skipif(not pd.gpu_available(), reason="needs CuPy and a CUDA device")
def test_a_gpu_beyond_the_visible_ones_is_unavailable():
    import cupy
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(pd.errors.PlaceUnavailableError, match="device id below"):
        pd.GPUPlace(count).xp
