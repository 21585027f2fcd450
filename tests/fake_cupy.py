"""A stand-in for CuPy that keeps its arrays on the host but keeps them apart from NumPy's.

CI has no GPU, so the GPU path of the executor (feeds moved to the device,
kernels on ``xp``, fetches brought back with ``.get()``) would never run
there. This module behaves like CuPy where that path can go wrong: its
``ndarray`` is not a NumPy array; mixing one with a NumPy array in an
operation raises TypeError, and so does turning one into a NumPy array
implicitly (``numpy.asarray(x)``), as CuPy does; ``asarray`` copies to
the "device" and ``.get()`` / ``asnumpy`` copy back. Reductions give 0-d
arrays, as CuPy's do. Everything else is NumPy's arithmetic, so results
equal the CPU's exactly.

``install(monkeypatch)`` makes ``pd.GPUPlace(0)`` use it for one test.
"""

import contextlib
import sys
import types

import numpy
from numpy.lib.mixins import NDArrayOperatorsMixin

__all__ = ["ndarray", "asarray", "asnumpy", "install"]

_MIXED = ("fake cupy: a NumPy array was mixed with a device array ({}); "
          "move it with xp.asarray first")


def _host(value, what):
    """The NumPy value behind ``value`` (device arrays unwrapped, containers walked);
    a NumPy array (not a scalar) among them is refused."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, numpy.ndarray):
        raise TypeError(_MIXED.format(what))
    if isinstance(value, (list, tuple)):
        return type(value)(_host(v, what) for v in value)
    if isinstance(value, dict):
        return {k: _host(v, what) for k, v in value.items()}
    return value


def _device(value):
    """Results back on the "device": arrays and NumPy scalars become ndarrays."""
    if isinstance(value, numpy.ndarray):
        return ndarray(value)
    if isinstance(value, numpy.generic):
        return ndarray(numpy.asarray(value))
    if isinstance(value, tuple):
        return tuple(_device(v) for v in value)
    if isinstance(value, list):
        return [_device(v) for v in value]
    return value


class ndarray(NDArrayOperatorsMixin):
    """A device array: NumPy's values, behind a wall."""

    __slots__ = ("_a",)

    def __init__(self, array):
        self._a = array

    # -- the wall ---------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("fake cupy: implicit conversion to a NumPy array is not allowed; "
                        "use .get() or cupy.asnumpy()")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        what = f"numpy.{ufunc.__name__}.{method}" if method != "__call__" else \
            f"numpy.{ufunc.__name__}"
        inputs = _host(inputs, what)
        if "out" in kwargs:
            kwargs["out"] = _host(kwargs["out"], what)
        return _device(getattr(ufunc, method)(*inputs, **kwargs))

    def __array_function__(self, func, types_, args, kwargs):
        what = f"numpy.{func.__name__}"
        return _device(func(*_host(args, what), **_host(kwargs, what)))

    # -- what CuPy's ndarray offers ---------------------------------------------------------
    def get(self):
        return self._a.copy()

    @property
    def __cuda_array_interface__(self):
        face = self._a.__array_interface__
        return {"shape": face["shape"], "typestr": face["typestr"], "data": face["data"],
                "strides": face["strides"], "version": 3}

    def __getattr__(self, name):
        if name.startswith("__"):          # not NumPy's __array_interface__ and friends
            raise AttributeError(name)
        value = getattr(self._a, name)
        if not callable(value):
            return _device(value) if name in ("T", "real", "imag", "flat") else value
        def method(*args, **kwargs):
            return _device(value(*_host(args, f"ndarray.{name}"),
                                 **_host(kwargs, f"ndarray.{name}")))
        return method

    def __getitem__(self, index):
        return _device(self._a[_host(index, "indexing")])

    def __setitem__(self, index, value):
        value = value._a if isinstance(value, ndarray) else value   # CuPy copies host values in
        self._a[_host(index, "indexing")] = value

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (ndarray(row) if isinstance(row, numpy.ndarray) else _device(row)
                for row in self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __bool__(self):
        return bool(self._a)

    def __complex__(self):
        return complex(self._a)

    def __repr__(self):
        return f"fake_cupy.ndarray({self._a!r})"

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())


def asarray(value, dtype=None):
    """Host (or device) values on the device: a copy, as a transfer is."""
    if isinstance(value, ndarray):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    return ndarray(numpy.array(value, dtype=dtype, copy=True))


def array(value, dtype=None, copy=True, **kwargs):
    """Like ``asarray``, copying unless told not to; host values are welcome (a transfer)."""
    if isinstance(value, ndarray):
        return ndarray(numpy.array(value._a, dtype=dtype, copy=copy, **kwargs))
    if isinstance(value, (list, tuple)):
        value = [v._a if isinstance(v, ndarray) else v for v in value]
    return ndarray(numpy.array(value, dtype=dtype, copy=True, **kwargs))


def asnumpy(value):
    return value.get() if isinstance(value, ndarray) else numpy.asarray(value)


# ufuncs whose ``at`` CuPy implements (seen on CuPy 14: ``multiply.at`` raises
# NotImplementedError, as it does here); a kernel needing another must do without it
_CUPY_AT = ("add", "subtract", "maximum", "minimum")


class _Ufunc:
    """A ufunc of the device: NumPy arrays among its operands are refused, as CuPy's are."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return self._apply(self._ufunc, f"cupy.{self.__name__}", args, kwargs)

    def __getattr__(self, method):            # reduce, accumulate, outer, at
        if method == "at" and self.__name__ not in _CUPY_AT:
            raise NotImplementedError(f"`cupy_{self.__name__}.at` is not supported yet")
        bound = getattr(self._ufunc, method)
        if not callable(bound):
            return bound
        return lambda *args, **kwargs: self._apply(
            bound, f"cupy.{self.__name__}.{method}", args, kwargs)

    @staticmethod
    def _apply(function, what, args, kwargs):
        return _device(function(*_host(args, what), **_host(kwargs, what)))


class _Device(contextlib.nullcontext):
    def __init__(self, device_id=0):
        super().__init__()
        self.id = device_id


def _module():
    """The ``cupy`` module look-alike: the names above, ``cuda``, and every other NumPy
    function, taking and giving device arrays."""
    module = types.ModuleType("fake_cupy_module")
    module.__dict__.update(ndarray=ndarray, asarray=asarray, array=array, asnumpy=asnumpy,
                           __name__="cupy")
    module.cuda = types.SimpleNamespace(
        Device=_Device,
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1,
                                      getDeviceProperties=lambda i: {"name": b"fake CuPy"}))

    module.__getattr__ = lambda name: _on_device(getattr(numpy, name), f"cupy.{name}")
    return module


def _on_device(value, what):
    """NumPy's ``value`` as the fake module offers it: functions and ufuncs take and give
    device arrays, submodules (lib.stride_tricks, linalg) likewise; types and constants
    as they are."""
    if isinstance(value, numpy.ufunc):
        return _Ufunc(value)
    if isinstance(value, types.ModuleType):
        return _Namespace(value, what)
    if isinstance(value, type) or not callable(value):
        return value

    def function(*args, **kwargs):
        return _device(value(*_host(args, what), **_host(kwargs, what)))
    function.__name__ = getattr(value, "__name__", what)
    return function


class _Namespace:
    def __init__(self, module, what):
        self._module, self._what = module, what

    def __getattr__(self, name):
        return _on_device(getattr(self._module, name), f"{self._what}.{name}")


MODULE = _module()


def install(monkeypatch):
    """Make paddle_nb's GPUPlace use this module for the rest of the test."""
    from paddle_nb.core import place
    monkeypatch.setattr(place, "_CUPY", [MODULE])
    monkeypatch.setitem(sys.modules, "cupy", MODULE)
    return MODULE
