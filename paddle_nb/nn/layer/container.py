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

import collections

from paddle_nb.framework.variable import Parameter
from paddle_nb.nn.layer_base import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _index(i, n, what):
    """``i`` as an index in [0, n), negative counting from the end; an IndexError otherwise."""
    if not -n <= i < n:
        raise IndexError(f"{what}: index {i} is out of range for {n} entries")
    return i % n


class Sequential(Layer):
    """Layers called one after the other: ``Sequential(a, b)`` or
    ``Sequential(("first", a), ("second", b))``; indexing gives a layer (or a Sequential of a
    slice), ``len`` counts them."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) > 0 and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for k, layer in enumerate(layers):
                self.add_sublayer(str(k), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return type(self)(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        values = list(self._sub_layers.values())
        return values[_index(name, len(values), "Sequential")]

    def __setitem__(self, name, layer):
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name):
        del self._sub_layers[str(name)]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of layers, each a sublayer under its position (``"0"``, ``"1"``...)."""

    def __init__(self, sublayers=None):
        super().__init__()
        for k, layer in enumerate(sublayers or []):
            self.add_sublayer(str(k), layer)

    def _values(self):
        return list(self._sub_layers.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(self._values()[idx])
        return self._sub_layers[str(_index(idx, len(self), "LayerList"))]

    def __setitem__(self, idx, sublayer):
        self._sub_layers[str(_index(idx, len(self), "LayerList"))] = sublayer

    def __delitem__(self, idx):
        values = self._values()
        indices = range(len(values))[idx] if isinstance(idx, slice) else [
            _index(idx, len(values), "LayerList")]
        kept = [v for k, v in enumerate(values) if k not in set(indices)]
        self._renumber(kept)

    def _renumber(self, values):
        self._sub_layers.clear()
        for k, layer in enumerate(values):
            self._sub_layers[str(k)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        values = self._values()
        values.insert(index, sublayer)
        self._renumber(values)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """Layers by name, in insertion order: ``LayerDict({"fc": Linear(2, 2)})``."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        """Add (key, layer) pairs from a mapping or an iterable of pairs; a plain dict's order
        is kept as given."""
        pairs = sublayers.items() if isinstance(sublayers, (dict, collections.OrderedDict,
                                                            LayerDict)) else sublayers
        for item in pairs:
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise ValueError(f"LayerDict.update: expected (key, layer) pairs, got {item!r}")
            self.add_sublayer(item[0], item[1])


class ParameterList(Layer):
    """A list of Parameters, each under its position (``"0"``, ``"1"``...)."""

    def __init__(self, parameters=None):
        super().__init__()
        for k, param in enumerate(parameters or []):
            self.add_parameter(str(k), param)

    def __getitem__(self, idx):
        return self._parameters[str(_index(idx, len(self), "ParameterList"))]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList: expected a Parameter, got {type(param).__name__}")
        self._parameters[str(_index(idx, len(self), "ParameterList"))] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self)), parameter)
        return self
