"""Why an op failed at run time, said in the user's terms.

A kernel fails with whatever NumPy raises: a broadcasting message when a
parameter was never initialized, ``MemoryError`` for a huge output, a
``None`` where a variable was erased under the run's feet. The executor
turns every such failure into one :class:`~paddle_nb.errors.OpRunError`
that names the op, its block, the user's line that built it and its
inputs, and, when the cause is one of the misuses below, says so first:
a persistable with no value (run the startup program), a variable or scope
destroyed during the run, an allocation too big for the place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_nb.errors import NotAllocatedError, OpRunError, OutOfMemoryError


__all__ = ["op_run_error", "op_plan_error", "missing_persistable", "describe_bytes",
           "destroyed_during_run"]


def op_run_error(step: Any, plan: Any, value_at: Callable[[int], Any], err: BaseException,
                 state: Any = None) -> OpRunError:
    """The OpRunError for ``step`` failing with ``err``; ``value_at(pos)`` reads the
    value (an array, a Variable, or a desc with a shape) at a plan position."""
    op = step.op
    where = f"op #{step.index} '{op.type}' in block {op.block.idx}, built at {op.site()}"
    reads, missing = _describe_inputs(op, plan, value_at)
    inputs = f"\n  inputs: {', '.join(reads) or 'none'}"
    gone = destroyed_during_run(state)
    if gone:                    # (the inputs' values went with it: not worth listing)
        return OpRunError(f"while running {where}: {gone}")
    if isinstance(err, MemoryError):
        return OutOfMemoryError(f"while running {where}: {_memory_message(op, err)}{inputs}")
    for name in missing:
        pos = plan.position(name)
        if pos is not None and plan.persistable[pos]:
            return OpRunError(missing_persistable(name, step) + inputs)
    if missing and isinstance(err, (TypeError, AttributeError)):
        err = NotAllocatedError("an input has no value: it is read before any op writes it")
    return OpRunError(f"while running {where}: {type(err).__name__}: {err}{inputs}")


def op_plan_error(step: Any, plan: Any, err: BaseException) -> OpRunError:
    """The OpRunError for ``step`` failing while its kernel is made for a plan (a constant
    too big for memory, made once): inputs are shown as declared."""
    op = step.op
    reads = [f"{slot}={n} (declared {_declared(plan, n)})"
             for slot, names in op.inputs.items() for n in names]
    where = f"op #{step.index} '{op.type}' in block {op.block.idx}, built at {op.site()}"
    inputs = f"\n  inputs: {', '.join(reads) or 'none'}"
    if isinstance(err, MemoryError):
        return OutOfMemoryError(f"while preparing {where}: {_memory_message(op, err)}{inputs}")
    return OpRunError(f"while preparing {where}: {type(err).__name__}: {err}{inputs}")


def _declared(plan: Any, name: str) -> Any:
    pos = plan.position(name)
    var = plan.vars[pos] if pos is not None else None
    try:
        return f"{var.dtype}{list(var.shape)}" if var is not None and var.is_tensor() else "?"
    except Exception:             # a desc paddle_nb cannot read: say nothing more
        return "?"


def missing_persistable(name: str, step: Any) -> str:
    """What to say when ``step`` reads persistable ``name`` and the scope has no value."""
    return (f"'{name}' is persistable but has no value in the scope, and op #{step.index} "
            f"'{step.op.type}' in block {step.op.block.idx} (built at {step.op.site()}) reads "
            "it: run the startup program in this scope first")


def _describe_inputs(op: Any, plan: Any, value_at: Callable[[int], Any]
                     ) -> tuple[list[str], list[str]]:
    """'Slot=name dtype[shape]' for each input, and the names that had no value."""
    reads, missing = [], []
    for slot, names in op.inputs.items():
        for n in names:
            pos = plan.position(n)
            value = value_at(pos) if pos is not None else None
            if value is None:
                reads.append(f"{slot}={n} (no value yet)")
                missing.append(n)
            elif hasattr(value, "dtype") and hasattr(value, "shape"):
                reads.append(f"{slot}={n} {value.dtype}{list(value.shape)}")
    return reads, missing


def destroyed_during_run(state: Any) -> str | None:
    """Why the run lost its variables, when a listener, a kernel or another thread
    destroyed the run's scope (else None). (A variable erased from it meanwhile is not
    lost: the run read the persistables once, as it started.)"""
    if state is None:
        return None
    if not state.user_scope.is_alive():
        return (f"the scope of the run (scope {state.user_scope.id}) was destroyed while the "
                "program ran (by a listener, a kernel or another thread); nothing can run in "
                "it any more")
    return None


def _memory_message(op: Any, err: BaseException) -> str:
    """Name the outputs, and the shape, dtype and bytes NumPy (or CuPy) could not get."""
    outs = ", ".join(f"{slot}={n}" for slot, names in op.outputs.items() for n in names)
    shape, dtype = getattr(err, "shape", None), getattr(err, "dtype", None)
    size = getattr(err, "_total_size", None)
    asked = ""
    if shape is not None and dtype is not None:
        asked = f" an array of {dtype}{list(shape)}"
        if size is not None:
            asked += f" ({describe_bytes(size)})"
    return (f"out of memory: could not allocate{asked or ' its result'} for its output(s) "
            f"{outs or '(none)'}; expected sizes that fit the place's memory "
            f"(MemoryError: {err})")


def describe_bytes(n: int) -> str:
    """``1234567`` -> ``'1234567 bytes, 1.2 MiB'``."""
    size, unit = float(n), "bytes"
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        size /= 1024
        if size < 1024:
            break
    return f"{int(n)} bytes, {size:.1f} {unit}"
