"""The default programs and ``program_guard``: explicit context, kept per thread.

``default_main_program()`` is where layers append ops; ``program_guard(main,
startup)`` swaps it (and, when given, the startup program that receives
parameter initializers) inside a ``with`` block. The default pair is one per
process, as PaddlePaddle's; the stack of guards lives in a ``ContextVar``, so
two threads (or asyncio tasks) each inside their own ``program_guard`` never
see each other's programs, and a new thread starts from the defaults.
"""

import contextlib
import contextvars
from collections.abc import Iterator

from paddle_nb.errors import VarNotFoundError
from paddle_nb.framework.program import Program
from paddle_nb.framework.variable import Variable

__all__ = ["default_main_program", "default_startup_program", "program_guard", "get_variable"]


class _ProgramContext:
    """The process's default (main, startup) pair."""

    def __init__(self) -> None:
        self.default_main = Program()
        self.default_startup = Program()


_CONTEXT = _ProgramContext()
# the (main, startup) pairs that the enclosing program_guards pushed, innermost last: a tuple,
# never mutated, so a thread's stack is its own even when a context is copied
_GUARDS: contextvars.ContextVar[tuple[tuple[Program, Program | None], ...]] = \
    contextvars.ContextVar("paddle_nb_program_guards", default=())


def default_main_program() -> Program:
    """The program layers append to: the innermost ``program_guard``'s main, or the default."""
    guards = _GUARDS.get()
    return guards[-1][0] if guards else _CONTEXT.default_main


def default_startup_program() -> Program:
    """The innermost ``program_guard``'s startup program, or the default one."""
    for _, startup in reversed(_GUARDS.get()):
        if startup is not None:
            return startup
    return _CONTEXT.default_startup


@contextlib.contextmanager
def program_guard(main_program: Program,
                  startup_program: Program | None = None) -> Iterator[Program]:
    """Append to ``main_program`` inside the ``with``; initializers go to ``startup_program``.

    Without a startup program, each parameter's initializer is put in the
    main program's preamble and runs once per scope. The guard holds for the
    calling thread only.
    """
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: expected a Program, got {main_program!r}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: expected a startup Program, got {startup_program!r}")
    token = _GUARDS.set(_GUARDS.get() + ((main_program, startup_program),))
    try:
        with main_program.startup_guard(startup_program):
            yield main_program
    finally:
        _GUARDS.reset(token)


def get_variable(name: str) -> Variable:
    """The variable ``name`` in the current block of the main program or its ancestors."""
    block = default_main_program().current_block()
    var = block.find_var(name)
    if var is None:
        raise VarNotFoundError(f"get_variable: no variable '{name}' in block {block.idx} or "
                               "its ancestors")
    return var
