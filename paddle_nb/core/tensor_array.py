"""LoDTensorArray: the value of a LOD_TENSOR_ARRAY variable, a growing list of tensors.

A loop writes one tensor per step into an array (``write_to_array`` at index i grows the
list to i + 1, filling any gap with empty tensors) and reads them back or stacks them after
(``read_from_array``, ``tensor_array_to_tensor``). A Variable holds the array as it holds a
LoDTensor; each element is a LoDTensor of its own.

>>> import numpy as np
>>> a = LoDTensorArray()
>>> a.write(1, np.ones(2, "float32")); len(a), a[0].is_allocated()
(2, False)
"""

from typing import Any

from paddle_nb.core.place import Place
from paddle_nb.core.tensor import LoDTensor

__all__ = ["LoDTensorArray"]


class LoDTensorArray(list[LoDTensor]):
    """A list of LoDTensors (PaddlePaddle's ``LoDTensorArray``, a ``std::vector<LoDTensor>``)."""

    def write(self, index: int, array: Any, place: Place | None = None) -> None:
        """Put a copy of ``array`` at ``index``, growing the list to ``index + 1`` if shorter."""
        while len(self) <= index:
            self.append(LoDTensor())
        self[index].set(array, place)

    def shapes(self) -> list[tuple[int, ...] | None]:
        """Each element's shape (None for an element never written), for display."""
        return [t.shape if t.is_allocated() else None for t in self]
