"""A block's steps written out as one Python function: the interpreter's loop, unrolled.

A run on an env keeps a block's values in a list (``env``). Looping
over the steps costs a few hundred nanoseconds an op (unpacking each step,
choosing how to call its kernel, counting bytes, releasing), as much as a
small kernel, and an RNN runs its step block once per time step. So each
block is written out once as the source of one function, one line per op,
and compiled; ``Interpreter.source`` shows it::

    def block_1(env, made=0, scope=None):
        ...
            # #0 mul
            out = f0(env[0], env[1])
            if out is not None:
                env[2] = out; made += out.nbytes

``f0``... are the steps' kernels, bound to their context and attributes (a raw
op's: the interpreter's ``run_raw`` for it, given the run scope ``scope``).
It is the compiled form of ``Interpreter.interpret`` (executor/interpreter.py)
for a plan whose first run has passed its checks: the same steps, kernels,
skips, releases and errors, without the checks. A watched run has its own
compiled form, the same lines with the observer's notes written in.
``made`` counts the bytes the run holds (the feeds, then each value an op
makes, less each one released) and ``peak`` its highest value, as the
scope loop's tensors count them. When an op fails, the line it failed on says which
one (``_owner``: each line's step), so a line costs nothing to say so.
"""

from __future__ import annotations

import linecache
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from paddle_nb.errors import OpRunError
from paddle_nb.executor.plan import flat_positions, output_values


__all__ = ["unroll", "compiled"]

_INDENT = "        "
# linecache names of collected block functions, dropped at the next unroll
_FORGOTTEN: list[str] = []


def unroll(name: str, steps: list, kernels: list, store: Callable, fail: Callable,
           observed: list[str] | None = None) -> tuple[Callable, str]:
    """(function, source) for running ``steps`` with ``kernels`` (one per step) on an env.

    ``store(env, outs, out)`` puts a multi-output result in place and returns
    its bytes; ``fail(k, env, err)`` makes the error raised when step ``k`` fails.
    The function returns the peak bytes held: ``made`` (the bytes of the values
    it starts with, which the run counts as its own: the feeds) plus those made since.

    ``observed`` (the names of the env's positions) adds an argument, ``observer``
    (a Recorder's ``EnvWatch``), told of each op what the watched interpreter tells
    it (``interpreter.WatchedInterpreter``), written out: the step index appended to
    ``observer.steps`` and the clock to ``observer.starts`` and ``observer.ends``
    around the op, and an event tuple to ``observer.events`` for each value made
    and each temporary released.
    """
    owner: list[int] = []           # owner[n]: the step whose lines hold line n (1-based)
    namespace: dict[str, Any] = {"_store": store, "_fail": fail, "_OpRunError": OpRunError,
                                 "_owner": owner}
    if observed is not None:
        namespace["_store"] = _observed_store
        namespace["_clock"] = time.perf_counter
        lines = [f"def {name}(env, made=0, observer=None):", "    peak = 0",
                 "    at = -1                      # the op's position in the record",
                 "    _step, _start, _end = observer.steps.append, observer.starts.append, "
                 "observer.ends.append",
                 "    _event, _sid, _place = observer.events.append, observer.scope_ids, "
                 "observer.place", "    try:"]
    else:
        lines = [f"def {name}(env, made=0, scope=None):", "    peak = 0", "    try:"]
    for k, (step, kernel) in enumerate(zip(steps, kernels)):
        owner.extend([max(k - 1, 0)] * (len(lines) + 1 - len(owner)))  # the lines before it
        namespace[f"f{k}"] = kernel
        body = _op_lines(k, step, observed, returns_value(kernel))
        indent = _INDENT
        if step.initializer:        # a preamble initializer: skipped when its outputs exist
            have = " and ".join(f"env[{p}] is not None" for p in flat_positions(step.outs))
            lines.append(f"{indent}if not ({have or 'False'}):")
            lines.extend(indent + "    " + line for line in body)
            if observed is not None:
                lines += [f"{indent}else:", f"{indent}    at += 1; observer.skipped({k})"]
            continue
        lines.extend(indent + line for line in body)
    if not steps:
        lines.append(_INDENT + "pass")
    owner.extend([max(len(steps) - 1, 0)] * (len(lines) + 1 - len(owner)))
    lines += ["    except _OpRunError:",         # an op's own OpRunError names it already
              "        raise",
              "    except Exception as err:",   # the failing step: the one whose line it is
              "        raise _fail(_owner[err.__traceback__.tb_lineno], env, err) from err",
              "    return peak if peak > made else made", ""]
    source = "\n".join(lines)
    return compiled(name, source, namespace), source


def compiled(name: str, source: str, namespace: dict[str, Any]) -> Callable:
    """The function ``name`` that ``source`` (Python written out by the executor) defines,
    made in ``namespace``; tracebacks through it show its lines while it lives (linecache)."""
    while True:         # not in the finalizer: a collection inside linecache.checkcache's
        try:            # loop over the cache made it fail. (pop, not a test then pop:
            forgotten = _FORGOTTEN.pop()    # another thread may be unrolling too)
        except IndexError:
            break
        linecache.cache.pop(forgotten, None)
    filename = f"<paddle_nb {name} {id(namespace):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    # tracebacks show the source while the function lives; then linecache forgets it
    weakref.finalize(function, _FORGOTTEN.append, filename)
    return function


def returns_value(kernel: Any) -> bool:
    """True for a kernel that always returns an array: a NumPy ufunc, which a prepared
    kernel binds for plain elementwise arithmetic. Any other kernel may return None for an
    output it leaves absent, so its line tests the result first (a test costs about 3% of
    a chain of tiny adds, each a ufunc)."""
    return isinstance(kernel, numpy.ufunc)


def _op_lines(k: int, step: Any, observed: list[str] | None = None,
              sure: bool = False) -> list[str]:
    """Interpreter.run_op and release for step ``k``, as lines of Python (with the
    observer's hooks, written out, when ``observed``); ``sure``: its kernel always returns
    a value (no test for None)."""
    args = ", ".join(_arg(i) for i in step.ins)
    outs = step.outs
    body = [f"# #{step.index} {step.op.type}"]
    if observed is not None:
        body.append(f"at += 1; _step({k}); _start(_clock())")
    if step.raw:      # (its "kernel": the interpreter's run_raw for it, in the run's scope)
        if observed is not None:
            raise ValueError(f"op #{step.index} '{step.op.type}' reads scopes: a watched "
                             "run of its block is interpreted")
        body.append(f"made += f{k}(env, scope)")
    elif len(outs) == 1 and not isinstance(outs[0], tuple):
        if outs[0] >= 0 and sure:
            body.append(f"out = f{k}({args})")
            body += [line[4:] for line in _allocated(outs[0], observed)]
        elif outs[0] >= 0:
            body += [f"out = f{k}({args})", "if out is not None:"]
            body += _allocated(outs[0], observed)
        else:
            body.append(f"f{k}({args})")
    elif all(isinstance(pos, int) for pos in outs):      # several outputs, one value each
        body += [f"outs = f{k}({args})"]
        for i, pos in enumerate(outs):
            if pos >= 0:
                body += [f"out = outs[{i}]", "if out is not None:"]
                body += _allocated(pos, observed)
    elif observed is not None:
        body.append(f"made += _store(env, {outs!r}, f{k}({args}), observer)")
    else:
        body.append(f"made += _store(env, {outs!r}, f{k}({args}))")
    if step.release:
        body.append("if made > peak: peak = made")
        for pos in step.release:
            body += [f"out = env[{pos}]", "if out is not None:"]
            if observed is not None:
                body.append(f"    _event((at, 'tensor_freed', _sid[{pos}], "
                            f"{observed[pos]!r}, out.nbytes, _place))")
            body.append(f"    made -= out.nbytes; env[{pos}] = None")
    if observed is not None:
        body.append("_end(_clock())")
    return body


def _allocated(pos: int, observed: list[str] | None) -> list[str]:
    """The lines putting ``out`` at ``pos`` (telling the observer, when ``observed``)."""
    if observed is None:
        return [f"    env[{pos}] = out; made += out.nbytes"]
    name = repr(observed[pos])
    return [f"    if env[{pos}] is not None: _event((at, 'tensor_freed', _sid[{pos}], {name}, "
            f"env[{pos}].nbytes, _place))",
            f"    _event((at, 'tensor_allocated', _sid[{pos}], {name}, out.nbytes, _place))",
            f"    env[{pos}] = out; made += out.nbytes"]


def _observed_store(env: list, outs: tuple, out: object, observer: object) -> int:
    """``store`` for a multi-slot result, telling ``observer`` of each value."""
    nbytes = 0
    for pos, value in output_values(outs, out):
        observer.allocated(pos, value, env[pos])  # type: ignore[attr-defined]
        env[pos] = value
        nbytes += value.nbytes
    return nbytes


def _arg(slot: int | tuple[int, ...]) -> str:
    if isinstance(slot, tuple):
        return "[" + ", ".join(f"env[{p}]" for p in slot) + "]"
    return f"env[{slot}]" if slot >= 0 else "None"
