"""``paddle.static``: building and running static programs with PaddlePaddle 2.x's names.

Programs, scopes, the executor and autodiff are paddle_nb's own (re-exported here with
PaddlePaddle 2.x's signatures); ``program.py`` holds ``data``, ``program_guard`` and
``InputSpec``, ``autodiff.py`` append_backward and gradients, ``executor.py`` the 2.x
``Executor`` and ``CompiledProgram``, ``io.py`` saving and loading, ``array.py`` tensor
arrays, ``nn/`` the static layers and control flow, and ``mode.py`` the top-level mode,
device, seed and dtype functions (docs/static_2x.md).
"""

from __future__ import annotations

from paddle_nb.core.scope import global_scope, scope_guard
from paddle_nb.framework.context import default_main_program, default_startup_program
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Variable
from paddle_nb.layers.helper import ParamAttr
from paddle_nb.static import nn
from paddle_nb.static.autodiff import append_backward, gradients
from paddle_nb.static.array import (
    array_length, array_read, array_write, create_array, tensor_array_to_tensor,
)
from paddle_nb.static.ema import ExponentialMovingAverage, WeightNormParamAttr
from paddle_nb.static.executor import BuildStrategy, CompiledProgram, ExecutionStrategy, Executor
from paddle_nb.tensor.indexing import setitem
from paddle_nb.static.io import (
    deserialize_persistables, deserialize_program, load, load_from_file, load_inference_model,
    load_program_state, normalize_program, save, save_inference_model, save_to_file,
    serialize_persistables, serialize_program, set_program_state,
)
from paddle_nb.static.mode import create_parameter
from paddle_nb.static.program import (
    InputSpec, Print, accuracy, auc, cpu_places, create_global_var, cuda_places, data, device_guard,
    name_scope, program_guard, py_func,
)

__all__ = [
    "Program", "Variable", "default_main_program", "default_startup_program", "program_guard",
    "data", "InputSpec", "global_scope", "scope_guard", "Executor", "CompiledProgram",
    "BuildStrategy", "ExecutionStrategy", "append_backward", "gradients", "ParamAttr",
    "save_inference_model", "load_inference_model", "save", "load", "serialize_program",
    "deserialize_program", "serialize_persistables", "deserialize_persistables",
    "load_program_state", "set_program_state", "normalize_program", "save_to_file",
    "load_from_file",
    "name_scope", "device_guard", "cpu_places", "cuda_places", "create_global_var",
    "create_parameter", "accuracy", "py_func", "Print", "auc", "nn",
    "create_array", "array_write", "array_read", "array_length", "tensor_array_to_tensor",
    "setitem", "ExponentialMovingAverage", "WeightNormParamAttr",
]
