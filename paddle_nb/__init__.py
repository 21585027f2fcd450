"""paddle_nb: PaddlePaddle's block-and-scope core, in Python, to watch in a notebook.

>>> import paddle_nb as pd
>>> scope = pd.Scope()
>>> t = scope.var("w").get_tensor()
>>> t.is_allocated()
False
"""

from types import ModuleType

from paddle_nb import errors
from paddle_nb import core
from paddle_nb.core import (
    CPUPlace, GPUPlace, LoDTensor, Place, Scope, global_scope, gpu_available, memory_stats,
    scope_guard,
)
from paddle_nb.ops.machinery import registry
from paddle_nb import framework
from paddle_nb.framework import (
    Block, Operator, Parameter, Program, Variable, default_main_program,
    default_startup_program, get_variable, initializer, program_guard,
)
from paddle_nb import executor
from paddle_nb.executor import Executor
from paddle_nb import layers
from paddle_nb.layers import ParamAttr, create_ifelseop, create_rnn, data_layer, fc_layer
from paddle_nb import io
from paddle_nb.backward import append_backward, gradients
from paddle_nb import optimizer, regularizer
from paddle_nb import nn, static, tensor, utils, vision, linalg
from paddle_nb import display_hook

__all__ = [
    "errors", "core", "registry", "framework", "initializer",
    "CPUPlace", "GPUPlace", "Place", "gpu_available", "LoDTensor", "Scope", "global_scope",
    "scope_guard", "memory_stats",
    "Program", "Block", "Operator", "Variable", "Parameter", "default_main_program",
    "default_startup_program", "program_guard", "get_variable",
    "executor", "Executor", "layers", "ParamAttr", "data_layer", "fc_layer", "create_rnn",
    "create_ifelseop",
    "io",
    "append_backward", "gradients",
    "optimizer", "regularizer",
    "nn", "static", "tensor", "utils", "vision", "linalg",
]

# PaddlePaddle 2.x's top level also holds its tensor functions (``paddle.reshape``), its mode,
# device, seed and dtype functions (``paddle.enable_static``, ``paddle.float32``) and its
# tensor-array functions. Each is listed once, in its module's ``__all__``, and none may hide
# a name above.
_TOP_LEVEL = [(tensor, tensor.__all__), (static.mode, static.mode.__all__),
              (static, ["create_array", "array_write", "array_read", "array_length"])]
for _module, _names in _TOP_LEVEL:
    _taken = set(__all__) & set(_names)
    if _taken:
        raise ImportError(f"{_module.__name__} would hide top-level names: {sorted(_taken)}")
    globals().update({_name: getattr(_module, _name) for _name in _names})
    __all__ += _names
del _TOP_LEVEL, _module, _names, _taken


def __getattr__(name: str) -> ModuleType:
    """``pd.viz`` loads the viewer on first use: it needs graphviz and IPython, the rest not.

    Importing ``paddle_nb.viz`` also registers its HTML formatters with the running IPython,
    so Programs, Scopes and RunRecords then show themselves (docs/viz.md).
    """
    if name == "viz":
        import importlib
        return importlib.import_module("paddle_nb.viz")
    raise AttributeError(f"module 'paddle_nb' has no attribute {name!r}")


display_hook.install()   # inside IPython: these objects show themselves (the viewer loads on use)
