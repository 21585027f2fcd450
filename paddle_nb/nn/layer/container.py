"""Containers of paddle.nn: Sequential, LayerList, LayerDict, ParameterList.

A container holds layers (or parameters) as its sublayers under the keys ``"0"``, ``"1"``,
... (or the names given), so a model's ``state_dict`` reads ``0.weight``, ``1.bias`` as
PaddlePaddle's does. Containers build nothing themselves; ``Sequential`` calls its layers in
order.

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> from paddle_nb.nn.layer.common import Linear
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     model = Sequential(Linear(4, 3), Linear(3, 2))
>>> [name for name, _ in model.named_parameters()]
['0.weight', '0.bias', '1.weight', '1.bias']
"""

from __future__ import annotations

from paddle_nb.framework.variable import Parameter
from paddle_nb.nn.layer_base import Layer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from paddle_nb.framework.variable import Tensor

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _children(layer: Any) -> Any:
    """(key, sublayer) of ``layer``'s own sublayers, in order (Layer's public view)."""
    return list(layer.named_children())


def _replace_all(layer: Any, pairs: Any) -> None:
    """Make ``pairs`` (key, sublayer) ``layer``'s sublayers, in that order."""
    for key, _ in _children(layer):
        delattr(layer, key)
    for key, sublayer in pairs:
        layer.add_sublayer(key, sublayer)


def _index(i: int, n: int, what: str) -> int:
    """``i`` as an index in [0, n), negative counting from the end; an IndexError otherwise."""
    if not -n <= i < n:
        raise IndexError(f"{what}: index {i} is out of range for {n} entries")
    return i % n


class Sequential(Layer):
    """Layers called one after the other: ``Sequential(a, b)`` or
    ``Sequential(("first", a), ("second", b))``; indexing gives a layer (or a Sequential of a
    slice), ``len`` counts them."""

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) > 0 and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for k, layer in enumerate(layers):
                self.add_sublayer(str(k), layer)

    def __getitem__(self, name: int | slice | str) -> Layer:
        if isinstance(name, slice):
            return type(self)(*[layer for _, layer in _children(self)][name])
        if isinstance(name, str):
            return getattr(self, name)
        values = [layer for _, layer in _children(self)]
        return values[_index(name, len(values), "Sequential")]

    def __setitem__(self, name: str | None, layer: Any) -> None:
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name: str | None) -> None:
        delattr(self, str(name))

    def __len__(self) -> int:
        return len(_children(self))

    def __iter__(self) -> Any:
        return iter([layer for _, layer in _children(self)])

    def forward(self, input: Tensor) -> Tensor:
        for _, layer in _children(self):
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of layers, each a sublayer under its position (``"0"``, ``"1"``...)."""

    def __init__(self, sublayers: Sequence[Layer] | None = None) -> None:
        super().__init__()
        for k, layer in enumerate(sublayers or []):
            self.add_sublayer(str(k), layer)

    def _values(self) -> Any:
        return [layer for _, layer in _children(self)]

    def __getitem__(self, idx: int) -> Layer:
        if isinstance(idx, slice):
            return type(self)(self._values()[idx])
        return getattr(self, str(_index(idx, len(self), "LayerList")))

    def __setitem__(self, idx: Any, sublayer: Any) -> None:
        values = self._values()
        values[_index(idx, len(values), "LayerList")] = sublayer
        self._renumber(values)

    def __delitem__(self, idx: int) -> None:
        values = self._values()
        indices = range(len(values))[idx] if isinstance(idx, slice) else [
            _index(idx, len(values), "LayerList")]
        kept = [v for k, v in enumerate(values) if k not in set(indices)]
        self._renumber(kept)

    def _renumber(self, values: Any) -> None:
        _replace_all(self, [(str(k), layer) for k, layer in enumerate(values)])

    def __len__(self) -> int:
        return len(_children(self))

    def __iter__(self) -> Any:
        return iter(self._values())

    def append(self, sublayer: Layer) -> LayerList:
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index: int, sublayer: Layer) -> None:
        values = self._values()
        values.insert(index, sublayer)
        self._renumber(values)

    def extend(self, sublayers: Sequence[Layer]) -> LayerList:
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """Layers by name, in insertion order: ``LayerDict({"fc": Linear(2, 2)})``."""

    def __init__(self, sublayers: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: Any) -> Any:
        if key not in self:
            raise KeyError(f"LayerDict has no layer {key!r}; it holds {list(self.keys())}")
        return getattr(self, key)

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key: Any) -> None:
        delattr(self, key)

    def __len__(self) -> Any:
        return len(_children(self))

    def __iter__(self) -> Any:
        return iter(self.keys())

    def __contains__(self, key: str) -> bool:
        return key in self.keys()

    def clear(self) -> None:
        _replace_all(self, [])

    def pop(self, key: Any) -> Any:
        layer = self[key]
        del self[key]
        return layer

    def keys(self) -> list[str]:
        return [key for key, _ in _children(self)]

    def items(self) -> Any:
        return _children(self)

    def values(self) -> Any:
        return [layer for _, layer in _children(self)]

    def update(self, sublayers: Mapping[str, Any]) -> None:
        """Add (key, layer) pairs from a mapping or an iterable of pairs; a plain dict's order
        is kept as given."""
        pairs = sublayers.items() if isinstance(sublayers, (dict, LayerDict)) else sublayers
        for item in pairs:
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise ValueError(f"LayerDict.update: expected (key, layer) pairs, got {item!r}")
            self.add_sublayer(item[0], item[1])


class ParameterList(Layer):
    """A list of Parameters, each under its position (``"0"``, ``"1"``...)."""

    def __init__(self, parameters: Sequence[Tensor] | None = None) -> None:
        super().__init__()
        for k, param in enumerate(parameters or []):
            self.add_parameter(str(k), param)

    def _own(self) -> Any:
        return list(self.named_parameters(include_sublayers=False))

    def __getitem__(self, idx: Any) -> Any:
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: Any, param: Any) -> None:
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList: expected a Parameter, got {type(param).__name__}")
        self.add_parameter(str(_index(idx, len(self), "ParameterList")), param)

    def __len__(self) -> int:
        return len(self._own())

    def __iter__(self) -> Any:
        return iter([param for _, param in self._own()])

    def append(self, parameter: Any) -> Any:
        self.add_parameter(str(len(self)), parameter)
        return self
