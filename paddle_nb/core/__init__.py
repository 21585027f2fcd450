"""The run-time core: places, dtypes, lazily allocated tensors, variables, scopes.

This layer knows nothing of programs, ops or widgets. It implements seeds
000, 001 and 004: a Scope maps names to Variables and looks names up through
its parents; a Variable holds one value of any type; a LoDTensor gets memory
only when ``mutable_data`` or ``set`` asks for it; memory is counted per place.
"""

from paddle_nb.core.dtypes import convert_dtype, dtype_name, from_var_type, to_var_type
from paddle_nb.core.events import EVENTS, Event, EventBus
from paddle_nb.core.memory import MEMORY, memory_stats
from paddle_nb.core.place import CPUPlace, GPUPlace, Place, gpu_available
from paddle_nb.core.scope import Scope, StepScopes, global_scope, scope_guard
from paddle_nb.core.tensor import LoDTensor, memory_reuse, memory_reuse_rule
from paddle_nb.core.variable import Variable

__all__ = [
    "CPUPlace", "GPUPlace", "Place", "gpu_available", "convert_dtype", "dtype_name",
    "to_var_type", "from_var_type", "LoDTensor", "Variable", "Scope", "StepScopes", "global_scope",
    "scope_guard", "EVENTS", "Event", "EventBus", "MEMORY", "memory_stats",
    "memory_reuse", "memory_reuse_rule",
]
