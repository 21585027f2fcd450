"""Filter taps that only ever read padding, cut once at load time.

A 3x3 filter over a 1x1 image (ResNet's last stage on a 32x32 input) multiplies only its
centre tap by a pixel: the other eight read the zero padding. conv2d's kernel leaves such
taps out at run time for a depthwise filter, but for a dense filter the taps it keeps are
strided through the filter, and copying them out costs about what the GEMM saves: so the
kernel multiplies the whole filter, reading 9.4 MB (ResNet's 3x3 512->512 filter) per run for
the 1 MB that meets a pixel.

Where the program's inputs have fixed dimensions past the batch's (the executor holds each
feed to its declared shape, so the shapes declared after them are the ones it runs with), this
pass stores the live part of each such filter once, as a new persistable variable
``<filter>.crop``, and shrinks the paddings with it, so that every window still reads the same
pixels: the same sums less their zero terms. The declared output size is checked against the
cropped geometry, and the declared input sizes against one run of the program on zeros before
anything is cut (a file may declare a size its ops do not compute: PaddlePaddle's build-time
shapes are sometimes wrong, and a filter cut for the wrong image would give wrong sums, not
an error); a program fed images of any size, and a depthwise filter (one input channel
per group: the kernel crops it at run time for little), are left as they are. The old filter
stays in the scope (the original program still runs there). Measured: ResNet-18 on 32x32
images 0.67x the time, PP-HGNet-tiny 0.88x, PP-LiteSeg 0.84x.
"""

import numpy as np

from paddle_nb.errors import PaddleNBError
from paddle_nb.executor.executor import Executor
from paddle_nb.ops.machinery.window import live_window, resolve_padding
from paddle_nb.passes.base import Pass
from paddle_nb.passes.graph import Uses
from paddle_nb.passes.values import host_value as _value, new_param, place_of

__all__ = ["crop_dead_taps", "CROP_DEAD_TAPS"]

CONVS = ("conv2d", "depthwise_conv2d", "fused_conv2d_bias_act")


def _shape(glob, name):
    var = glob.find_var(name)
    return None if var is None else tuple(var.shape)


def _crop_one(glob, scope, uses, op, result):
    if op.attr("data_format") not in ("NCHW", "AnyLayout"):
        return
    x_shape = _shape(glob, op.input("Input")[0])
    y_shape = _shape(glob, op.output("Output")[0])
    weight = op.input("Filter")[0]
    fixed = uses.persistable(weight) and not uses.writers.get(weight)
    w = _value(scope, weight) if fixed else None
    if w is None or w.ndim != 4 or w.shape[1] == 1 or x_shape is None or y_shape is None:
        return
    if len(x_shape) != 4 or len(y_shape) != 4 or min(x_shape[2:] + y_shape[2:]) <= 0:
        return
    pads, dil = resolve_padding(x_shape[2:], w.shape[2:], op.attr("strides"),
                                op.attr("paddings"), op.attr("dilations"),
                                op.attr("padding_algorithm"))
    cut = live_window(x_shape[2:], w.shape[2:], tuple(op.attr("strides")), pads, dil,
                      y_shape[2:])
    if cut is None:
        return
    cropped = np.ascontiguousarray(w[:, :, cut[0], cut[1]])
    new_w = new_param(glob, scope, weight, "crop", cropped)
    for arg in op.desc.inputs:
        if arg.parameter == "Filter":
            arg.arguments[0] = new_w
    op.set_attr("paddings", [int(p) for p in cut[2]])
    op.set_attr("dilations", [int(d) for d in dil])
    op.set_attr("padding_algorithm", "EXPLICIT")
    result.changes.append(("cropped", op.type, f"{weight} {list(w.shape)} -> {new_w} "
                           f"{list(cropped.shape)}"))


def _fed_names(glob, uses):
    """The variables the program is fed: read, and written by no op but ``feed``."""
    fed = []
    for var in glob.vars.values():
        if var.persistable or not uses.readers.get(var.name) or not var.is_tensor():
            continue
        writers = uses.writers.get(var.name, [])
        if all(b == 0 and glob.ops[k].type == "feed" for b, k in writers):
            fed.append(var)
    return fed


def _confirmed_images(program, scope, uses, names):
    """Of the convolutions' inputs ``names``, those whose declared image size (past batch and
    channels) is the size one run of the program on zero feeds (batch 1) gives them."""
    glob = program.global_block()
    feed = {var.name: np.zeros([1 if d < 0 else d for d in var.shape], var.dtype)
            for var in _fed_names(glob, uses)}
    run_scope = scope.new_scope(label="crop_dead_taps")
    try:
        with np.errstate(all="ignore"):   # zeros may make NaN boxes downstream: not our concern
            place = place_of(scope, (v.name for v in glob.vars.values() if v.persistable))
            values = Executor(place).run(program, feed=feed, fetch_list=list(names),
                                              scope=run_scope)
    except PaddleNBError:             # it cannot be run on zeros: crop nothing
        return set()
    finally:
        run_scope.destroy()
    return {name for name, value in zip(names, values)
            if value.ndim == 4 and tuple(value.shape[2:]) == _shape(glob, name)[2:]}


def _changes_state(program, uses):
    """Whether an op (other than ``fetch``, which fills the fetch list) writes a persistable
    variable: such a program is not run at load time to confirm its image sizes."""
    return any(uses.persistable(name) and program.block(b).ops[k].type != "fetch"
               for name, where in uses.writers.items() for b, k in where)


def _inputs_fixed(glob, uses):
    """Whether every variable the program is fed has fixed dimensions past the batch's: the
    executor holds each feed to them, so the shapes declared after them are the shapes the
    program runs with."""
    return all(d >= 0 for var in _fed_names(glob, uses) for d in tuple(var.shape)[1:])


def crop_dead_taps(program, scope, result):
    """Crop each convolution's filter to the taps that meet a pixel of its declared image."""
    if scope is None:
        return
    glob = program.global_block()
    uses = Uses(program, result.keep)
    if not _inputs_fixed(glob, uses):
        return
    convs = [op for op in glob.ops if op.type in CONVS and _shape(glob, op.input("Input")[0])]
    if not convs or _changes_state(program, uses):
        return     # (a program that changes its state is not run at load to confirm sizes)
    confirmed = _confirmed_images(program, scope, uses,
                                  sorted({op.input("Input")[0] for op in convs}))
    for op in convs:
        if op.input("Input")[0] in confirmed:
            _crop_one(glob, scope, uses, op, result)
    glob.program.bump_version()


CROP_DEAD_TAPS = Pass("crop_dead_taps", crop_dead_taps)
