"""Inference models: a pruned program with its feed and fetch ops, plus its parameters.

``save_inference_model`` keeps only what computes the targets from the fed
variables (``Program.prune``, cut at the feeds), drops backward, optimizer
and initializer ops, and adds PaddlePaddle's executor ops: ``feed`` (column
``col`` of the persistable FEED_MINIBATCH list ``feed`` -> a data variable)
in front and ``fetch`` (a target -> column ``col`` of the FETCH_LIST
``fetch``) at the end. ``dirname/__model__`` holds the serialized
ProgramDesc; the persistables sit beside it, one file each or combined.
``load_inference_model`` reads the feed and fetch names back from those ops.

PaddlePaddle 2.x's form, ``paddle.static.save_inference_model(path_prefix, ...)``, is
``prefix=True``: ``dirname`` is then a path prefix, and the files are ``<prefix>.pdmodel`` and
``<prefix>.pdiparams``, replaced together (``io/atomic.py``'s ``write_files``: both
temporaries first, then the renames, the first undone if the second fails).
``load_inference_model(path_prefix, exe)`` finds that form by itself when ``path_prefix`` is
not a directory but ``<path_prefix>.pdmodel`` is a file, as PaddlePaddle's loader does.
The model file holds the ops as PaddlePaddle 2.6 writes them (``paddle_nb.io.export26``).
"""

from __future__ import annotations

import os

from paddle_nb.errors import SaveLoadError
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.program import Program
from paddle_nb.framework.captures import op_captures   # what a kept op's sub-blocks read
from paddle_nb.framework.variable import Variable, VarType
from paddle_nb.io.export26 import normalize
from paddle_nb.io.interrupts import deferred_interrupts
from paddle_nb.io.atomic import inside, save_target, staged_directory, write_file, write_files
from paddle_nb.core.scope import global_scope
from paddle_nb.passes import apply_passes
from paddle_nb.io.params import (
    combined_writer, is_persistable, load_vars, os_errors, select_vars, values_from_scope,
    write_values,
)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from paddle_nb.core.scope import Scope
    from paddle_nb.executor.executor import Executor

__all__ = ["save_inference_model", "load_inference_model", "inference_program", "save",
           "load_program"]

MODEL_FILENAME = "__model__"
FEED_HOLDER, FETCH_HOLDER = "feed", "fetch"
MODEL_SUFFIX, PARAMS_SUFFIX = ".pdmodel", ".pdiparams"     # PaddlePaddle 2.x's path_prefix form


def save_inference_model(dirname: Any, feeded_var_names: Sequence[Variable | str],
                         target_vars: Sequence[Variable | str], executor: Executor,
                         main_program: Program | None = None, model_filename: str | None = None,
                         params_filename: str | None = None, scope: Scope | None = None, *,
                         prefix: bool = False) -> list[str]:
    """Write the inference program of ``main_program`` and its persistables to ``dirname``.

    The whole directory is built beside ``dirname`` and swapped in, so the
    model and its parameters change together. Returns the target names.
    With ``prefix=True``, ``dirname`` is a path prefix instead (PaddlePaddle 2.x's
    ``paddle.static.save_inference_model(path_prefix, ...)``): ``<prefix>.pdmodel`` and
    ``<prefix>.pdiparams``, which PaddlePaddle reads with
    ``paddle.static.load_inference_model(path_prefix, exe)``.
    """
    main_program = default_main_program() if main_program is None else main_program
    feeds = _names(feeded_var_names, "feeded_var_names")
    targets = _names(target_vars, "target_vars")
    program = inference_program(main_program, feeds, targets)
    values = values_from_scope(select_vars(program, predicate=is_persistable), scope)
    model = normalize(program.desc).SerializeToString()     # ops as PaddlePaddle 2.6 writes them
    # A model without persistables gets no params file, as PaddlePaddle writes it (Paddle
    # Inference refuses an empty one: its load_combine op wants at least one variable).
    if prefix:
        model_path, params_path = _prefix_paths(dirname, model_filename, params_filename)
        with os_errors("cannot save the inference model to", dirname):
            for path in (model_path, params_path):    # both refused before either is written
                save_target(path, "save the inference model to")
            # both files together or neither: a new .pdiparams beside an old .pdmodel (of
            # the same shapes) would load and compute wrong outputs. A model without
            # persistables removes an older model's params file.
            write_files([(params_path, combined_writer(values) if values else None),
                         (model_path, lambda f: f.write(model))])
        return targets
    with os_errors("cannot save the inference model into", dirname), deferred_interrupts():
        with staged_directory(dirname) as stage:
            model_path = inside(stage, model_filename or MODEL_FILENAME, "model file")
            write_file(model_path, lambda f: f.write(model))
            if values or params_filename is None:
                write_values(stage, values, params_filename)
    return targets


def load_inference_model(dirname: Any, executor: Executor, model_filename: str | None = None,
                         params_filename: str | None = None, scope: Scope | None = None, *,
                         prefix: bool | None = None, optimize: bool = False
                        ) -> tuple[Program | list[Any], ...]:
    """(program, feed names, fetch Variables) of a saved model; its parameters go to ``scope``.

    Run it with ``executor.run(program, feed={name: array}, fetch_list=fetch_vars)``.
    Reads PaddlePaddle's own ``__model__`` / ``.pdmodel`` + ``.pdiparams`` too, and
    PaddlePaddle 2.x's path-prefix form: ``load_inference_model("out/mlp", exe)`` reads
    ``out/mlp.pdmodel`` and ``out/mlp.pdiparams`` (``prefix=None`` decides by what exists:
    a directory ``dirname`` is the directory form).
    ``optimize=True`` rewrites the program with ``paddle_nb.passes.INFERENCE_PASSES`` (batch_norm
    folded into the conv before it, identities and dead ops removed: docs/passes.md), as
    PaddlePaddle Inference's predictor does with its IR passes; the outputs stay the same.
    """
    if prefix is None:
        prefix = (not os.path.isdir(dirname) and model_filename is None
                  and params_filename is None and os.path.isfile(f"{dirname}{MODEL_SUFFIX}"))
    if prefix:
        path, params_path = _prefix_paths(dirname, model_filename, params_filename)
        dirname, params_filename = os.path.split(params_path)
        dirname = dirname or os.curdir
    else:
        path = inside(dirname, model_filename or MODEL_FILENAME, "model file")
    program = load_program(path)
    feed_names = [_one_name(op, "Out") for op in _by_col(program, "feed")]
    glob = program.global_block()
    fetch_vars = [glob.var(_one_name(op, "X")) for op in _by_col(program, "fetch")]
    if select_vars(program, predicate=is_persistable):    # else there is no params file
        load_vars(executor, dirname, program, predicate=is_persistable,
                  filename=params_filename, scope=scope)
    if optimize:
        program = apply_passes(program, global_scope() if scope is None else scope)
        fetch_vars = [program.global_block().var(v.name) for v in fetch_vars]
    return program, feed_names, fetch_vars


def _prefix_paths(path_prefix: str, model_filename: Any, params_filename: Any) -> Any:
    """``<prefix>.pdmodel``, ``<prefix>.pdiparams``: PaddlePaddle 2.x's inference file names."""
    path_prefix = os.fspath(path_prefix)
    if model_filename is not None or params_filename is not None:
        raise SaveLoadError("an inference model saved under a path prefix is named by the prefix "
                            "alone: leave model_filename and params_filename out")
    if not os.path.basename(path_prefix) or os.path.isdir(path_prefix):
        raise SaveLoadError(f"'{path_prefix}' is a directory, not a path prefix such as "
                            f"'{os.path.join(path_prefix, 'model')}'")
    return path_prefix + MODEL_SUFFIX, path_prefix + PARAMS_SUFFIX


def inference_program(main_program: Program, feeds: Sequence[str], targets: Sequence[str]
                     ) -> Program:
    """The program ``save_inference_model`` writes: pruned, for test, with feed and fetch ops."""
    glob = main_program.global_block()
    for name in feeds:
        if glob.find_var(name) is None:
            raise SaveLoadError(f"save_inference_model: feeded variable '{name}' is not in the "
                                "program's global block")
    program = main_program.prune(targets).clone(for_test=True)
    block = program.global_block()
    for k in reversed(range(program.preamble_length())):
        block.remove_op(k)          # initializers: the saved parameters replace them
    _cut_at_feeds(block, set(feeds), targets)
    _add_feed_fetch(block, feeds, targets)
    return program


def _cut_at_feeds(block: Any, feeds: Any, targets: Any) -> None:
    """Drop the ops that only compute fed variables (PaddlePaddle's ``_prune_with_input``)."""
    needed, keep = set(targets) - feeds, set()
    for k in range(len(block.ops) - 1, -1, -1):
        op = block.ops[k]
        if needed.intersection(op.output_arg_names):
            keep.add(k)
            needed.difference_update(op.output_arg_names)
            needed.update(op.input_arg_names)
            needed.update(op_captures(op))
            needed.difference_update(feeds)
    for k in range(len(block.ops) - 1, -1, -1):
        if k not in keep:
            block.remove_op(k)
    used = set(feeds) | set(targets)
    for b in block.program.blocks:
        for op in b.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
    for name in [n for n in block.vars if n not in used]:
        block.remove_var(name)


def _add_feed_fetch(block: Any, feeds: Any, targets: Any) -> None:
    """PaddlePaddle's ``prepend_feed_ops`` and ``append_fetch_ops``."""
    feed = block.create_var(name=FEED_HOLDER, type=VarType.FEED_MINIBATCH, persistable=True)
    for col, name in enumerate(feeds):
        block.insert_op(col, "feed", inputs={"X": feed}, outputs={"Out": name},
                        attrs={"col": col})
    fetch = block.create_var(name=FETCH_HOLDER, type=VarType.FETCH_LIST, persistable=True)
    for col, name in enumerate(targets):
        block.append_op("fetch", inputs={"X": name}, outputs={"Out": fetch}, attrs={"col": col})


def _by_col(program: Any, op_type: str) -> Any:
    """The global block's ``op_type`` ops ordered by their ``col`` attribute."""
    ops = [op for op in program.global_block().ops if op.type == op_type]
    cols = [op.attr("col") for op in ops]
    if any(not isinstance(c, int) or isinstance(c, bool) for c in cols) or \
            sorted(cols) != list(range(len(ops))):
        raise SaveLoadError(f"the model's {op_type} ops have columns {cols}; expected "
                            f"0..{len(ops) - 1}, each once")
    return sorted(ops, key=lambda op: op.attr("col"))


def _one_name(op: Any, slot: str) -> str:
    """The one variable in slot ``slot`` of a feed / fetch op."""
    names = op.output(slot) if slot == "Out" else op.input(slot)
    if len(names) != 1:
        raise SaveLoadError(f"the model's {op.type} op (col {op.attr('col')}) has {len(names)} "
                            f"variables in slot '{slot}': expected one")
    return names[0]


def _names(items: Any, what: str) -> Any:
    """Names from a Variable, a name, or a list of them."""
    items = items if isinstance(items, (list, tuple)) else [items]
    names = []
    for item in items:
        name = item.name if isinstance(item, Variable) else item
        if not isinstance(name, str):
            raise TypeError(f"save_inference_model: {what} takes Variables or names, got {item!r}")
        names.append(name)
    return names


# -- bare programs -------------------------------------------------------------------------------
def save(program: Program, path: Any) -> None:
    """Write ``program``'s serialized ProgramDesc to ``path`` (whole or not at all)."""
    if not isinstance(program, Program):
        raise TypeError(f"save: expected a Program, got {type(program).__name__}")
    data = program.serialize()
    with os_errors("cannot write the program to", path):
        write_file(path, lambda f: f.write(data))


def load_program(path: Any) -> Program:
    """The Program serialized in ``path`` (paddle_nb's or PaddlePaddle's ProgramDesc)."""
    if not os.path.isfile(path):
        raise SaveLoadError(f"cannot load a program: no file '{path}'")
    with os_errors("cannot read the program from", path):
        with open(path, "rb") as f:
            data = f.read()
    return Program.parse(data)
