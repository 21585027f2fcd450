"""``paddle.nn.Layer`` in static mode: an object that builds ops when called.

A Layer holds Parameters (made once, in ``__init__``, in the global block, with their
initializers in the startup program) and sublayers; calling it runs ``forward`` on static
Variables, which appends ops to the current block, exactly as PaddlePaddle 2.x's static mode
does. Nothing is computed here: values live in a Scope, and ``state_dict(scope)`` /
``set_state_dict(values, scope)`` read and write them there.

Names follow PaddlePaddle: a ``Linear`` is ``linear_0`` (the class name in snake case,
counted by ``paddle_nb.framework.unique_name``), its weight ``linear_0.w_0``, its bias
``linear_0.b_0``; ``named_parameters()`` gives the structured names (``0.weight``).

>>> import paddle_nb as pd
>>> from paddle_nb.framework import unique_name
>>> class Scale(Layer):
...     def __init__(self):
...         super().__init__()
...         self.w = self.create_parameter([3])
...     def forward(self, x):
...         return x * self.w
>>> with unique_name.guard(), pd.program_guard(pd.Program(), pd.Program()):
...     layer = Scale()
>>> layer.full_name(), [name for name, _ in layer.named_parameters()], layer.w.name
('scale_0', ['w'], 'scale_0.w_0')
"""

from __future__ import annotations

import collections
import re

import numpy

from paddle_nb.core import CPUPlace, global_scope
from paddle_nb.framework import unique_name
from paddle_nb.framework.variable import Parameter, Variable
from paddle_nb.layers.helper import ParamAttr, layer_helper
from typing import TYPE_CHECKING, Any, Literal, overload

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.core.scope import Scope
    from paddle_nb.framework.initializer import Initializer
    from paddle_nb.framework.variable import Parameter, Tensor

__all__ = ["Layer", "snake_case"]


def snake_case(class_name: str) -> str:
    """PaddlePaddle's layer name for a class: ``BatchNorm2D`` -> ``batch_norm2d``,
    ``PReLU`` -> ``p_re_lu``.

    >>> snake_case("Conv2DTranspose"), snake_case("LayerNorm"), snake_case("ReLU")
    ('conv2d_transpose', 'layer_norm', 're_lu')
    """
    words = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", words).lower()


class Layer:
    """Parameters, sublayers and buffers, and a ``forward`` that appends ops.

    Subclasses call ``super().__init__()`` first, make their parameters with
    ``create_parameter`` and assign parameters and sublayers as attributes; the order of
    assignment is the order of ``parameters()`` and ``named_sublayers()``.
    """

    def __init__(self, name_scope: str | None = None, dtype: DTypeLike = "float32") -> None:
        # (plain values: __setattr__ keeps them as attributes)
        self._parameters: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self._sub_layers: collections.OrderedDict[str, Layer | None] = collections.OrderedDict()
        self._buffers: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self._non_persistable_buffers: set[str] = set()
        self.training = True
        self._dtype = dtype
        self._full_name = unique_name.generate(name_scope or snake_case(type(self).__name__))
        self._forward_pre_hooks: list[Callable[..., Any]] = []
        self._forward_post_hooks: list[Callable[..., Any]] = []

    # -- building ----------------------------------------------------------------------------
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        for hook in self._forward_pre_hooks:
            changed = hook(self, inputs)
            if changed is not None:
                inputs = changed if isinstance(changed, tuple) else (changed,)
        outputs = self.forward(*inputs, **kwargs)
        for hook in self._forward_post_hooks:
            changed = hook(self, inputs, outputs)
            if changed is not None:
                outputs = changed
        return outputs

    def register_forward_pre_hook(self, hook: Any) -> Any:
        """``hook(layer, inputs)`` runs before ``forward``; a value it returns replaces the
        inputs."""
        self._forward_pre_hooks.append(hook)
        return _HookRemover(self._forward_pre_hooks, hook)

    def register_forward_post_hook(self, hook: Callable[..., Any]) -> Any:
        """``hook(layer, inputs, outputs)`` runs after ``forward``; a value it returns replaces
        the outputs."""
        self._forward_post_hooks.append(hook)
        return _HookRemover(self._forward_post_hooks, hook)

    def full_name(self) -> str:
        """This layer's unique name, the prefix of its parameters' names (``linear_0``)."""
        return self._full_name

    @overload
    def create_parameter(self, shape: Sequence[int], attr: Literal[False],
                         dtype: DTypeLike | None = None, is_bias: bool = False,
                         default_initializer: Initializer | None = None) -> None: ...
    @overload
    def create_parameter(self, shape: Sequence[int], attr: Any = None,
                         dtype: DTypeLike | None = None, is_bias: bool = False,
                         default_initializer: Initializer | None = None) -> Parameter: ...
    def create_parameter(self, shape: Sequence[int], attr: Any = None,
                         dtype: DTypeLike | None = None, is_bias: bool = False,
                         default_initializer: Initializer | None = None) -> Parameter | None:
        """A Parameter named after this layer (``linear_0.w_0``), in the global block of the
        current main program; its initializer goes to the startup program. ``attr`` is a
        ParamAttr, a name, an initializer, or False (returns None: no parameter)."""
        attr = ParamAttr.of(attr)
        if attr is None:
            return None
        helper = layer_helper(self._full_name, name=self._full_name)
        return helper.param(attr, list(shape), dtype or self._dtype, is_bias=is_bias,
                            default_initializer=default_initializer)

    def add_sublayer(self, name: str, sublayer: Any) -> Any:
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(f"add_sublayer: '{name}' must be a Layer, got "
                            f"{type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer   # (None: a slot kept empty, as PaddlePaddle)
        return sublayer

    def add_parameter(self, name: str, parameter: Tensor) -> Tensor:
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: '{name}' must be a Parameter, got "
                            f"{type(parameter).__name__}")
        self._parameters[str(name)] = parameter
        return parameter

    def register_buffer(self, name: str | None, tensor: Any, persistable: bool = True) -> Any:
        """A non-parameter Variable this layer keeps (BatchNorm's running mean); a persistable
        buffer is part of ``state_dict``."""
        if tensor is not None and not isinstance(tensor, Variable):
            raise TypeError(f"register_buffer: '{name}' must be a Variable, got "
                            f"{type(tensor).__name__}")
        self._buffers[str(name)] = tensor
        if tensor is not None and not persistable:
            self._non_persistable_buffers.add(str(name))
        return tensor

    # -- attributes register parameters and sublayers -----------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        for table in ("_parameters", "_sub_layers", "_buffers"):
            self.__dict__.get(table, {}).pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_sub_layers", "_buffers"):
            found = self.__dict__.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' layer has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_sub_layers", "_buffers"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    # -- walking the tree --------------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False, layers_set: Any = None
                       ) -> Iterator[Any]:
        """(structured name, layer) for every sublayer, depth first, each once."""
        seen = layers_set if layers_set is not None else set()
        if include_self and id(self) not in seen:
            seen.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in seen:
                continue
            name = f"{prefix}.{key}" if prefix else key
            seen.add(id(layer))
            yield name, layer
            yield from layer.named_sublayers(name, False, seen)

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self) -> Iterator[Any]:
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self) -> Any:
        return [layer for _, layer in self.named_children()]

    def _named_members(self, table: Any, prefix: str, include_sublayers: Any) -> Iterator[Any]:
        layers = [(prefix, self)]
        if include_sublayers:
            layers += list(self.named_sublayers(prefix))
        seen = set()
        for layer_prefix, layer in layers:
            for key, value in getattr(layer, table).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (f"{layer_prefix}.{key}" if layer_prefix else key), value

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True
                        ) -> Iterator[tuple[str, Parameter]]:
        """(structured name, Parameter), each parameter once (a shared one under its first name)."""
        yield from self._named_members("_parameters", prefix, include_sublayers)

    def parameters(self, include_sublayers: bool = True) -> list[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[Any]:
        yield from self._named_members("_buffers", prefix, include_sublayers)

    def buffers(self, include_sublayers: bool = True) -> Any:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn: Any) -> Any:
        """``fn(layer)`` for every sublayer, then for this layer."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # -- modes -------------------------------------------------------------------------------
    def train(self) -> Any:
        """Training mode for this layer and its sublayers (dropout drops, batch norm updates its
        statistics) for the ops built *after* this call: a static program is fixed once built."""
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self) -> Any:
        """Evaluation mode for the ops built after this call (see ``train``); for a program
        already built, ``program.clone(for_test=True)``."""
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    # -- values, in a scope ------------------------------------------------------------------
    def _state_variables(self, include_sublayers: bool = True) -> Any:
        items = list(self.named_parameters(include_sublayers=include_sublayers))
        for layer_prefix, layer in [("", self)] + (list(self.named_sublayers())
                                                   if include_sublayers else []):
            hidden = layer._non_persistable_buffers
            for key, buf in layer._buffers.items():
                if buf is not None and key not in hidden:
                    items.append((f"{layer_prefix}.{key}" if layer_prefix else key, buf))
        return items

    def state_dict(self, scope: Scope | None = None, include_sublayers: bool = True,
                   structured_name_prefix: str = "", use_hook: bool = True) -> Any:
        """{structured name: a copy of the value in ``scope``} (the global scope by default)
        for every parameter and persistable buffer. Run the startup program first."""
        scope = scope or global_scope()
        values = collections.OrderedDict()
        for name, var in self._state_variables(include_sublayers):
            found = scope.find_var(var.name)
            if found is None or not found.is_initialized():
                raise ValueError(f"state_dict: '{var.name}' ({structured_name_prefix}{name}) has "
                                 "no value in the scope: run the startup program first")
            values[structured_name_prefix + name] = numpy.array(found.get_tensor().numpy())
        return values

    def set_state_dict(self, state_dict: Any, use_structured_name: bool = True, scope: Any = None
                      ) -> Any:
        """Write each value of ``state_dict`` (structured names, or parameter names when
        ``use_structured_name`` is False) into ``scope``; returns (missing keys, unexpected
        keys)."""
        scope = scope or global_scope()
        targets = {(name if use_structured_name else var.name): var
                   for name, var in self._state_variables()}
        for key, value in state_dict.items():
            var = targets.get(key)
            if var is None:
                continue
            array = numpy.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if tuple(array.shape) != tuple(var.shape):
                raise ValueError(f"set_state_dict: '{key}' ({var.name}) has shape "
                                 f"{tuple(var.shape)}, the value {tuple(array.shape)}")
            scope.var(var.name).get_tensor().set(array.astype(var.dtype, copy=False), CPUPlace())
        missing = [k for k in targets if k not in state_dict]
        unexpected = [k for k in state_dict if k not in targets]
        return missing, unexpected

    load_dict = set_state_dict
    set_dict = set_state_dict

    # -- printing ----------------------------------------------------------------------------
    def extra_repr(self) -> Any:
        return ""

    def __repr__(self) -> str:
        lines = [f"({name}): " + repr(layer).replace("\n", "\n  ")
                 for name, layer in self._sub_layers.items()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> Any:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))


class _HookRemover:
    """What ``register_forward_*_hook`` returns: ``remove()`` takes the hook away."""

    def __init__(self, hooks: list[Callable[..., Any]], hook: Callable[..., Any]) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
