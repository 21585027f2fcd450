"""An RNN's step loops written out: one Python function per step block and slot layout.

A FramedSteps (executor/step_runs.py) runs an RNN's forward steps and its backward
steps each as one loop over envs. A loop written with lists of positions spends, at
every time step, more on ``zip``, ``enumerate`` and slicing than on putting the
step's values in place. So, as executor/unroll.py writes a block's ops out as one
function, this module writes each loop out once for its positions, and a block keeps
it (``FramedBlock.written``) for all its runs. For an RNN with one step input x at env
position 2, one memory at 5 updated from 11, and one output at 10, the forward loop is::

    def forward(order, rows, carried, template, run_env, Frame, index, place, outputs,
                kids, frames, fail):
        r0, = rows
        c0, = carried
        s0 = c0.shape
        o0, = outputs
        for t, kid in zip(order, kids):
            env = template.copy()
            env[2] = r0[t]
            if frames:
                if c0 is None or c0.shape != s0: raise fail(kids[len(frames) - 1], 1)
            env[5] = c0
            made = run_env(env)
            frames.append(frame := Frame(index, env, place, made))
            kid.attach_frame(frame)
            o0[t] = value = env[10]
            if value is None: raise fail(kid, 0)
            c0 = env[11]

``kids`` are the step scopes, made before the first step (as PaddlePaddle's ``recurrent``
makes its step scopes); each step's env is kept in its scope as a StepFrame whose bytes the
caller counts, all at once, when the loop ends (``frames``).

Only integers (env positions and counts) are written into the source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paddle_nb.executor.unroll import compiled

__all__ = ["backward_loop", "forward_loop"]


def forward_loop(in_pos: Sequence[int], n_rows: int, out_pos: Sequence[int]) -> Callable:
    """The forward loop (the module's example) for a block whose ins lie at ``in_pos``
    (the first ``n_rows`` rows' slices, then the carried values) and whose outs lie at
    ``out_pos`` (the outputs, then the carried values' updates, as many as carried)."""
    n_carried = len(in_pos) - n_rows
    n_out = len(out_pos) - n_carried
    rows = [f"r{k}" for k in range(n_rows)]
    carried = [f"c{k}" for k in range(n_carried)]
    lines = ["def forward(order, rows, carried, template, run_env, Frame, index, place, "
             "outputs, kids, frames, fail):"]
    lines += [f"    {_unpacked(rows)} = rows", f"    {_unpacked(carried)} = carried"]
    lines += [f"    s{k} = c{k}.shape" for k in range(n_carried)]
    lines += [f"    {_unpacked([f'o{k}' for k in range(n_out)])} = outputs",
              "    for t, kid in zip(order, kids):", "        env = template.copy()"]
    lines += [f"        env[{int(in_pos[k])}] = r{k}[t]" for k in range(n_rows)]
    if n_carried:
        lines.append("        if frames:")
        lines += [f"            if c{k} is None or c{k}.shape != s{k}: "
                  f"raise fail(kids[len(frames) - 1], {n_out + k})" for k in range(n_carried)]
    lines += [f"        env[{int(in_pos[n_rows + k])}] = c{k}" for k in range(n_carried)]
    lines += ["        made = run_env(env)",
              "        frames.append(frame := Frame(index, env, place, made))",
              "        kid.attach_frame(frame)"]
    for k in range(n_out):
        lines += [f"        o{k}[t] = value = env[{int(out_pos[k])}]",
                  f"        if value is None: raise fail(kid, {k})"]
    lines += [f"        c{k} = env[{int(out_pos[n_out + k])}]" for k in range(n_carried)]
    return _compiled(lines, "forward")


def backward_loop(n_in: int, row_slots: Sequence[int], links: Sequence[int],
                  out_pos: Sequence[int], n_each: int, n_sum: int,
                  env_links: Sequence[tuple[int, int]], in_pos: Sequence[int]) -> Callable:
    """The backward loop for a grad block of ``n_in`` ins (at env positions ``in_pos``)
    whose outs lie at ``out_pos``: ``n_each`` kept per time step, ``n_sum`` summed over the
    steps, then the values carried to the step before. It is::

        backward(parents, order, rows, zero, run_env, template_of, fallback, FrameScope,
                 each, note, layout) -> (sums, carried)

    Step k (the last first) gets its ins as StepRunner.run_back says (``rows[r][t]`` in
    slot ``row_slots[r]``, the carried value j added in slot ``links[j]``, else
    ``zero(k, j)``). A step scope holding a frame of layout ``layout`` (the forward
    block's) has its grad block run on a copy of ``template_of(parent, frame)`` (found
    again when the scope above changes) with the frame's values put in (``arrays[at]`` at
    ``pos`` for each pair of ``env_links``) and the ins; the largest env's bytes are
    given to ``note`` at the end. Any other goes through ``fallback(parent, "grad", ins)``."""
    n_carried = len(out_pos) - n_each - n_sum
    got = [f"g{k}" for k in range(len(out_pos))]
    sums = [f"S{k}" for k in range(n_sum)]
    carried = [f"c{k}" for k in range(n_carried)]
    lines = ["def backward(parents, order, rows, zero, run_env, template_of, fallback, "
             "FrameScope, each, note, layout):",
             f"    {_unpacked([f'R{r}' for r in range(len(row_slots))])} = rows",
             f"    {_unpacked([f'e{k}' for k in range(n_each)])} = each"]
    lines += [f"    {name} = None" for name in sums + carried]
    lines += ["    peak = 0", "    anchor = template = None", "    try:",
              "        for k in range(len(parents) - 1, -1, -1):",
              "            t = order[k]",
              "            parent = parents[k]"]
    lines += ["            " + line for line in _ins_lines(n_in, row_slots, links)]
    lines += ["            frame = parent.frame if isinstance(parent, FrameScope) else None",
              "            if frame is None or parent.own_vars or frame.index is not layout:",
              f"                {_unpacked(got)} = fallback(parent, 'grad', "
              f"[{', '.join(f'i{s}' for s in range(n_in))}])[1]",
              "            else:",
              "                if parent.up is not anchor:",
              "                    template, anchor = template_of(parent, frame), parent.up",
              "                env = template.copy()",
              "                arrays = frame.arrays"]
    lines += [f"                env[{int(pos)}] = arrays[{int(at)}]" for pos, at in env_links]
    lines += [f"                env[{int(pos)}] = i{s}" for s, pos in enumerate(in_pos)]
    lines += ["                made = run_env(env)",
              "                if made > peak: peak = made"]
    lines += [f"                g{k} = env[{int(pos)}]" for k, pos in enumerate(out_pos)]
    lines += ["            " + line for line in _kept_lines(n_each, n_sum, n_carried)]
    lines += ["    finally:", "        note(peak)",
              f"    return [{', '.join(sums)}], [{', '.join(carried)}]"]
    return _compiled(lines, "backward")


def _kept_lines(n_each: int, n_sum: int, n_carried: int) -> list[str]:
    """The lines keeping a backward step's outs ``g0``...: each kept per step in ``e<k>``,
    summed into ``S<k>`` (a copy first, then in place), carried in ``c<k>``."""
    lines = [f"e{k}[t] = g{k}" for k in range(n_each)]
    for k in range(n_sum):
        value = f"g{n_each + k}"
        lines += [f"if {value} is not None:",
                  f"    if S{k} is None: S{k} = {value}.copy()",
                  f"    else: S{k} += {value}"]
    return lines + [f"c{k} = g{n_each + n_sum + k}" for k in range(n_carried)]


def _ins_lines(n_in: int, row_slots: Sequence[int], links: Sequence[int]) -> list[str]:
    """The lines setting ``i0``... (a backward step's ins) as context.back_ins does."""
    filled = [False] * n_in                  # (whether i<slot> may hold a value already)
    lines = [f"i{s} = None" for s in range(n_in) if s not in row_slots]
    for r, slot in enumerate(row_slots):
        lines.append(f"i{int(slot)} = R{r}[t]")
        filled[slot] = True
    for j, slot in enumerate(links):
        name, carried = f"i{int(slot)}", f"c{j}"
        if not filled[slot]:
            lines.append(f"{name} = {carried} if {carried} is not None else zero(k, {j})")
        else:
            lines += [f"if {carried} is not None: {name} = {carried} if {name} is None "
                      f"else {name} + {carried}",
                      f"elif {name} is None: {name} = zero(k, {j})"]
        filled[slot] = True
    return lines


def _unpacked(names: list[str]) -> str:
    """The target of unpacking a sequence of len(names) values (``_`` for none)."""
    if not names:
        return "_"
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _compiled(lines: list[str], name: str) -> Callable:
    return compiled(name, "\n".join(lines) + "\n", {})
