"""Parameter values as a pass reads and writes them.

A pass computes new parameters (a folded filter, a cropped one, a folded constant) from the
values in the scope the program will run in. That scope may belong to a GPU executor and hold
device arrays: a pass reads host copies to compute with, writes each new value on the place
where the value it replaces lives, and runs the program (to fold constants, to confirm image
sizes) on that same place, so that the rewritten program runs where the original did.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from paddle_nb.core.place import CPUPlace, Place
from paddle_nb.core.scope import Scope
from paddle_nb.core.tensor import LoDTensor

__all__ = ["host_value", "place_of", "set_like", "new_param"]


def _tensor(scope: Scope | None, name: str) -> LoDTensor | None:
    var = scope.find_var(name) if scope is not None else None
    if var is None or not isinstance(var.holder, LoDTensor) or not var.holder.is_allocated():
        return None
    return var.holder


def host_value(scope: Scope | None, name: str) -> np.ndarray | None:
    """A host copy of ``name``'s tensor in ``scope`` (None when it holds none)."""
    tensor = _tensor(scope, name)
    return None if tensor is None else np.asarray(tensor.numpy())


def place_of(scope: Scope | None, names: Iterable[str]) -> Place:
    """The place of the first of ``names`` whose tensor ``scope`` holds; the CPU when none."""
    for name in names:
        tensor = _tensor(scope, name)
        if tensor is not None and tensor.place is not None:
            return tensor.place
    return CPUPlace()


def set_like(scope: Scope, name: str, value: np.ndarray, like: str) -> None:
    """Write ``value`` as ``name``'s tensor, with the dtype and on the place of ``like``'s."""
    tensor = _tensor(scope, like)
    if tensor is None or tensor.dtype is None:
        scope.var(name).get_tensor().set(value)
        return
    scope.var(name).get_tensor().set(value.astype(tensor.dtype, copy=False), tensor.place)


def new_param(glob: Any, scope: Scope, like: str, suffix: str, value: np.ndarray) -> str:
    """Declare a new persistable ``<like>.<suffix>`` (``_1``, ``_2``... while the name is
    taken) shaped as ``value`` with ``like``'s dtype in block ``glob``, and write ``value``
    to it (:func:`set_like`); return its name."""
    name, k = f"{like}.{suffix}", 0
    while glob.find_var(name) is not None:
        k += 1
        name = f"{like}.{suffix}_{k}"
    glob.create_var(name, shape=list(value.shape), dtype=glob.var(like).dtype, persistable=True)
    set_like(scope, name, value, like)
    return name
