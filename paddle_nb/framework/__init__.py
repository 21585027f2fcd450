"""The framework layer: Python views that build the descs as the user calls them.

``Program``, ``Block``, ``Operator``, ``Variable`` and ``Parameter`` are thin
views over ProgramDesc, BlockDesc, OpDesc and VarDesc ("Design Doc: Python API"),
plus the construction-time information that document names: the current block, the op
that wrote a variable, a parameter's initializer, the user's line of code.
"""

from paddle_nb.framework import initializer
from paddle_nb.framework.block import Block
from paddle_nb.framework.context import (
    default_main_program, default_startup_program, get_variable, program_guard,
)
from paddle_nb.framework.operator import Operator, OpRole
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Parameter, Variable

__all__ = ["Program", "Block", "Operator", "OpRole", "Variable", "Parameter", "initializer",
           "default_main_program", "default_startup_program", "program_guard", "get_variable"]
