"""A block's steps written out as one Python function: the fast path's loop, unrolled.

The fast path runs a block's steps on a list of values (``env``). Looping
over the steps costs a few hundred nanoseconds an op (unpacking each step,
choosing how to call its kernel, counting bytes, releasing), as much as a
small kernel, and an RNN runs its step block once per time step. So each
block is written out once as the source of one function, one line per op,
and compiled; ``FastBlock.source`` shows it::

    def block_1(env, made=0):
        ...
            k = 0                      # #0 mul
            out = f0(env[0], env[1])
            env[2] = out
            made += out.nbytes

``f0``... are the steps' kernels, bound to their context and attributes.
It is the compiled form of ``Interpreter.interpret`` (executor/interpreter.py)
for a plan whose first run has passed its checks: the same steps, kernels,
skips, releases and errors, without the checks.
``made`` counts the bytes the run holds (the feeds, then each value an op
makes, less each one released) and ``peak`` its highest value, as the
scope loop's tensors count them. When an op fails, ``k`` says which one.
"""

from __future__ import annotations

import linecache
import weakref
from collections.abc import Callable

from paddle_nb.errors import OpRunError
from paddle_nb.executor.plan import flat_positions


__all__ = ["unroll"]

_INDENT = "        "
_FORGOTTEN: list[str] = []   # linecache names of collected block functions, dropped at the next unroll


def unroll(name: str, steps: list, kernels: list, store: Callable, fail: Callable
           ) -> tuple[Callable, str]:
    """(function, source) for running ``steps`` with ``kernels`` (one per step) on an env.

    ``store(env, outs, out)`` puts a multi-output result in place and returns
    its bytes; ``fail(k, env, err)`` makes the error raised when step ``k`` fails.
    The function returns the peak bytes held: ``made`` (the bytes of the values
    it starts with, which the run counts as its own: the feeds) plus those made since.
    """
    while True:         # not in the finalizer: a collection inside linecache.checkcache's
        try:            # loop over the cache made it fail. (pop, not a test then pop:
            forgotten = _FORGOTTEN.pop()    # another thread may be unrolling too)
        except IndexError:
            break
        linecache.cache.pop(forgotten, None)
    namespace = {"_store": store, "_fail": fail, "_OpRunError": OpRunError}
    lines = [f"def {name}(env, made=0):", "    k = 0", "    peak = 0", "    try:"]
    for k, (step, kernel) in enumerate(zip(steps, kernels)):
        namespace[f"f{k}"] = kernel
        body = _op_lines(k, step)
        indent = _INDENT
        if step.initializer:        # a preamble initializer: skipped when its outputs exist
            have = " and ".join(f"env[{p}] is not None" for p in flat_positions(step.outs))
            lines.append(f"{indent}if not ({have or 'False'}):")
            indent += "    "
        lines.extend(indent + line for line in body)
    if not steps:
        lines.append(_INDENT + "pass")
    lines += ["    except _OpRunError:",         # an op's own OpRunError names it already
              "        raise",
              "    except Exception as err:",
              "        raise _fail(k, env, err) from err",
              "    return peak if peak > made else made", ""]
    source = "\n".join(lines)
    filename = f"<paddle_nb {name} {id(namespace):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    # tracebacks show the source while the function lives; then linecache forgets it
    weakref.finalize(function, _FORGOTTEN.append, filename)
    return function, source


def _op_lines(k, step):
    """Interpreter.run_op and release for step ``k``, as lines of Python."""
    args = ", ".join(_arg(i) for i in step.ins)
    outs = step.outs
    body = [f"k = {k:<22} # #{step.index} {step.op.type}"]
    if len(outs) == 1 and not isinstance(outs[0], tuple):
        if outs[0] >= 0:
            body += [f"out = f{k}({args})", "if out is not None:",
                     f"    env[{outs[0]}] = out; made += out.nbytes"]
        else:
            body.append(f"f{k}({args})")
    elif all(isinstance(pos, int) for pos in outs):      # several outputs, one value each
        body += [f"outs = f{k}({args})"]
        for i, pos in enumerate(outs):
            if pos >= 0:
                body += [f"out = outs[{i}]", "if out is not None:",
                         f"    env[{pos}] = out; made += out.nbytes"]
    else:
        body.append(f"made += _store(env, {outs!r}, f{k}({args}))")
    if step.release:
        body.append("if made > peak: peak = made")
        for pos in step.release:
            body += [f"out = env[{pos}]", "if out is not None:",
                     f"    made -= out.nbytes; env[{pos}] = None"]
    return body


def _arg(slot):
    if isinstance(slot, tuple):
        return "[" + ", ".join(f"env[{p}]" for p in slot) + "]"
    return f"env[{slot}]" if slot >= 0 else "None"
