"""The sweep cases' building blocks: fed inputs and how a call is written down."""

__all__ = ["V", "F", "Int", "B", "fn", "cls"]


def V(name):
    """A fed input's place among the arguments."""
    return {"feed": name}


def F(*shape, low=0.2, high=0.8, dtype="float32", grad=True):
    """A floating-point input, uniform in [low, high) (log, sqrt, asin and logit are defined)."""
    return {"shape": list(shape), "dtype": dtype, "low": low, "high": high, "grad": grad}


def Int(*shape, low=0, high=3, dtype="int64"):
    """An integer input (indices, labels) uniform in [low, high)."""
    return {"shape": list(shape), "dtype": dtype, "low": low, "high": high}


def B(*shape):
    """A boolean input."""
    return {"shape": list(shape), "dtype": "bool", "low": 0, "high": 2}


def fn(name, *args, tag="", grad=True, **kwargs):
    """A function case; keyword arguments that are input specs become the feeds."""
    feeds = {k: v for k, v in kwargs.items() if isinstance(v, dict) and "shape" in v}
    kwargs = {k: v for k, v in kwargs.items() if k not in feeds}
    return {"id": name + (f"#{tag}" if tag else ""), "kind": "function", "name": name,
            "args": list(args), "kwargs": kwargs, "feeds": feeds, "grad": grad}


def cls(name, init=(), init_kwargs=None, call=(V("x"),), tag="", grad=True, eval=False, **feeds):
    """A layer case: ``name(*init, **init_kwargs)(*call)`` (after ``.eval()`` when asked)."""
    return {"id": name + (f"#{tag}" if tag else ""), "kind": "class", "name": name,
            "init": list(init), "init_kwargs": dict(init_kwargs or {}), "args": list(call),
            "kwargs": {}, "feeds": feeds, "grad": grad, "eval": eval}
