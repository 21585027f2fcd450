"""``paddle.static``'s saving and loading, with PaddlePaddle 2.x's signatures.

``save_inference_model(path_prefix, feed_vars, fetch_vars, executor)`` writes
``<prefix>.pdmodel`` (the pruned program with feed and fetch ops, as PaddlePaddle 2.6
writes it) and ``<prefix>.pdiparams`` (the persistables, combined, sorted by name); both
frameworks load either's files. It is paddle_nb.io's Fluid-1.8 form with ``prefix=True``.

``save(program, model_path)`` is PaddlePaddle's training checkpoint. PaddlePaddle pickles
the values into ``<model_path>.pdparams`` / ``.pdopt``; paddle_nb writes no pickle, so the
values go to the directory ``<model_path>/`` instead, one file per persistable variable in
PaddlePaddle's tensor format, which PaddlePaddle's ``paddle.static.load(program,
model_path, exe)`` reads too (its "saved with save_persistables" path); the program goes to
``<model_path>.pdmodel`` as in PaddlePaddle. A pickled ``.pdparams`` is refused by name.
"""

from __future__ import annotations

import io as bytes_io
import os

from paddle_nb.core.scope import global_scope
from paddle_nb.errors import SaveLoadError
from paddle_nb.executor import Executor
from paddle_nb.framework import context
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import Variable, tensor_dtype
from paddle_nb.framework.program import Program
from paddle_nb.io import inference as fluid_io
from paddle_nb.io.atomic import write_file
from paddle_nb.io.export26 import normalize
from paddle_nb.io.interrupts import deferred_interrupts
from paddle_nb.io.params import (
    check_lod, check_value, header_check, is_persistable, load_vars, os_errors,
    save_persistables, select_vars, stored_bytes_check, values_from_scope,
)
from paddle_nb.layers.helper import layer_helper
from paddle_nb.ops.machinery.tensor_stream import read_tensor, tensor_bytes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    import numpy

    from paddle_nb.core.scope import Scope
    from paddle_nb.framework.variable import Tensor

__all__ = ["save_inference_model", "load_inference_model", "save", "load",
           "serialize_program", "deserialize_program", "serialize_persistables",
           "deserialize_persistables", "load_program_state", "set_program_state",
           "normalize_program", "save_to_file", "load_from_file"]


def _var_list(items: Any) -> Any:
    return list(items) if isinstance(items, (list, tuple)) else [items]


def save_inference_model(path_prefix: str, feed_vars: Tensor | Sequence[Tensor],
                         fetch_vars: Tensor | Sequence[Tensor], executor: Executor,
                         program: Program | None = None, **kwargs: Any) -> None:
    """Write ``<path_prefix>.pdmodel`` and ``<path_prefix>.pdiparams``: the program pruned to
    compute ``fetch_vars`` from ``feed_vars`` (Variables), with its persistables from the
    global scope (or ``scope=``)."""
    if not path_prefix or os.path.basename(path_prefix) == "":
        raise SaveLoadError(f"save_inference_model: path_prefix must end in a file name "
                            f"prefix (such as 'out/model'), got {path_prefix!r}")
    program = default_main_program() if program is None else program
    fluid_io.save_inference_model(path_prefix, _var_list(feed_vars),
                                  _scaled_fetches(program, fetch_vars), executor,
                                  main_program=program, scope=kwargs.get("scope"),
                                  prefix=True)


def load_inference_model(path_prefix: str, executor: Executor, **kwargs: Any
                        ) -> list[Program | list[Any]]:
    """``[program, feed_target_names, fetch_targets]`` of ``<path_prefix>.pdmodel`` /
    ``.pdiparams`` (PaddlePaddle's or paddle_nb's); the parameters go to the global scope
    (or ``scope=``). ``model_filename`` / ``params_filename`` name other files."""
    model, params = kwargs.get("model_filename"), kwargs.get("params_filename")
    program, feeds, fetches = fluid_io.load_inference_model(
        path_prefix, executor, model_filename=model, params_filename=params,
        scope=kwargs.get("scope"), prefix=None if (model or params) else True,
        optimize=kwargs.get("optimize", False))    # paddle_nb's: the passes of docs/passes.md
    return [program, feeds, fetches]


def normalize_program(program: Program, feed_vars: Sequence[Tensor], fetch_vars: Sequence[Tensor],
                      **kwargs: Any) -> Program:
    """The inference program save_inference_model writes (pruned, feed and fetch ops),
    fetching the ``save_infer_model/scale_i`` copies (``_scaled_fetches``)."""
    feeds = [v.name if hasattr(v, "name") else v for v in _var_list(feed_vars)]
    return fluid_io.inference_program(program, feeds, _scaled_fetches(program, fetch_vars))


def _scaled_fetches(program: Any, fetch_vars: Any) -> Any:
    """The names to fetch: as PaddlePaddle 2.6 does, each non-bool fetch Variable gets a
    ``scale`` by 1.0 appended to ``program`` itself (``save_infer_model/scale_i.tmp_0``), so
    that an activation's output stays a fetchable variable after inference passes fuse the
    activation away."""
    fetches = []
    with context.program_guard(program):
        for i, var in enumerate(_var_list(fetch_vars)):
            if isinstance(var, Variable) and tensor_dtype(var).kind != "b":
                helper = layer_helper("scale", f"save_infer_model/scale_{i}")
                var = helper.out("scale", {"X": var},
                                 {"scale": 1.0, "bias": 0.0, "bias_after_scale": True})
            fetches.append(var.name if isinstance(var, Variable) else var)
    return fetches


def serialize_program(feed_vars: Sequence[Tensor], fetch_vars: Sequence[Tensor], **kwargs: Any
                     ) -> bytes:
    """The bytes of ``<prefix>.pdmodel`` for these feeds and fetches (``program=``, default
    the default main program)."""
    program = kwargs.get("program") or default_main_program()
    return normalize(normalize_program(program, feed_vars, fetch_vars).desc).SerializeToString()


def deserialize_program(data: bytes) -> Program:
    """The Program of ``serialize_program``'s bytes (or any ProgramDesc's)."""
    return Program.parse(data)


def serialize_persistables(feed_vars: Sequence[Tensor], fetch_vars: Sequence[Tensor],
                           executor: Executor, **kwargs: Any) -> bytes:
    """The bytes of ``<prefix>.pdiparams``: the inference program's persistables, sorted by
    name, back to back in PaddlePaddle's tensor format."""
    program = normalize_program(kwargs.get("program") or default_main_program(),
                                feed_vars, fetch_vars)
    values = values_from_scope(select_vars(program, predicate=is_persistable), kwargs.get("scope"))
    return b"".join(tensor_bytes(*values[name]) for name in sorted(values))


def deserialize_persistables(program: Program, data: bytes, executor: Executor,
                             scope: Scope | None = None) -> None:
    """Put the values in ``data`` (``serialize_persistables``'s bytes) into the global scope
    (or ``scope``), one per persistable of ``program`` in name order."""
    variables = select_vars(program, predicate=is_persistable)
    stream = bytes_io.BytesIO(data)
    scope = global_scope() if scope is None else scope
    values = {}                     # all read and checked first: all of them are set, or none
    for var in variables:
        values[var.name] = read_tensor(stream, name=f"variable '{var.name}'", limit=len(data),
                                       check=header_check(var, "the bytes", stream))
        array, lod = values[var.name]
        check_value(var, array)
        check_lod(var, array, lod, "the bytes")
    if stream.tell() != len(data):
        raise SaveLoadError(f"deserialize_persistables: {len(data) - stream.tell()} bytes "
                            f"are left after the program's {len(variables)} persistables")
    with deferred_interrupts():
        for var in variables:
            tensor = scope.var(var.name).get_tensor()
            tensor.set(values[var.name][0], executor.place)
            tensor.set_lod(values[var.name][1])


def save(program: Program, model_path: str, protocol: int = 4, **configs: Any) -> None:
    """Checkpoint ``program``: ``<model_path>.pdmodel`` and the directory ``<model_path>/``
    of its persistables (global scope), one file each (see the module's note on pickle)."""
    if not isinstance(program, Program):
        raise TypeError(f"paddle.static.save: expected a Program, got {program!r}")
    if os.path.basename(model_path) == "":
        raise SaveLoadError(f"paddle.static.save: model_path must end in a name, got "
                            f"{model_path!r}")
    with deferred_interrupts():     # Ctrl-C: before the values or after both, not between
        save_persistables(Executor(), model_path, main_program=program,
                          scope=configs.get("scope"))
        fluid_io.save(program, model_path + fluid_io.MODEL_SUFFIX)


def load(program: Program, model_path: str, executor: Executor | None = None, var_list: Any = None
        ) -> None:
    """Load what ``save`` wrote (or PaddlePaddle's ``save_persistables`` directory) into the
    global scope. A pickled ``<model_path>.pdparams`` of PaddlePaddle is refused."""
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        if model_path.endswith(suffix):
            model_path = model_path[:-len(suffix)]
    if not os.path.isdir(model_path):
        if os.path.isfile(model_path + ".pdparams"):
            raise SaveLoadError(
                f"paddle.static.load: '{model_path}.pdparams' is a pickle (PaddlePaddle's "
                "paddle.static.save), which paddle_nb does not read; in PaddlePaddle save with "
                "paddle.distributed.io.save_persistables(exe, dirname, program) (one file a "
                "variable) or paddle.static.save_inference_model, or here with paddle_nb's "
                "paddle.static.save")
        raise SaveLoadError(f"paddle.static.load: no directory '{model_path}' (what "
                            "paddle.static.save writes)")
    names = None if var_list is None else [v.name for v in var_list]
    chosen = [v for v in select_vars(program, predicate=is_persistable)
              if (names is None or v.name in names)
              and os.path.isfile(os.path.join(model_path, v.name))]
    if not chosen:
        raise SaveLoadError(f"paddle.static.load: '{model_path}' holds none of the program's "
                            "persistable variables")
    load_vars(executor or Executor(), model_path, main_program=program, vars=chosen)


def load_program_state(model_path: str, var_list: Any = None) -> dict[str, numpy.ndarray]:
    """{name: array} of the variables ``save`` wrote to ``model_path`` (all files there that
    are variables of ``var_list`` when given, else every file)."""
    if not os.path.isdir(model_path):
        raise SaveLoadError(f"load_program_state: no directory '{model_path}'")
    variables = {v.name: v for v in var_list or ()}
    names = sorted(os.listdir(model_path)) if var_list is None else list(variables)
    state = {}
    for name in names:
        path = os.path.join(model_path, name)
        with os_errors("cannot read", path), open(path, "rb") as f:
            check = header_check(variables[name], path, f) if name in variables else \
                stored_bytes_check(f"variable '{name}' in '{path}'", f)
            state[name] = read_tensor(f, name=f"variable '{name}'",
                                      limit=os.path.getsize(path), check=check)[0]
    return state


def set_program_state(program: Program, state_dict: Mapping[str, Any], scope: Scope | None = None
                     ) -> None:
    """Put ``state_dict``'s arrays (name -> array) into the global scope (or ``scope``) for
    the program's persistables named there; each must match its VarDesc's shape."""
    scope = global_scope() if scope is None else scope
    chosen = [v for v in select_vars(program, predicate=is_persistable) if v.name in state_dict]
    for var in chosen:                     # all checked first: all of them are set, or none
        check_value(var, state_dict[var.name])
    with deferred_interrupts():
        for var in chosen:
            scope.var(var.name).get_tensor().set(state_dict[var.name])


def save_to_file(path: str, content: bytes) -> None:
    """Write the bytes ``content`` to the file ``path`` (the companion of
    ``serialize_program`` / ``serialize_persistables``)."""
    if not isinstance(content, bytes):
        raise TypeError(f"save_to_file: content must be bytes, got {type(content).__name__}")
    with os_errors("cannot write", path):
        write_file(path, lambda f: f.write(content))     # whole or not at all


def load_from_file(path: str) -> bytes:
    """The bytes of the file ``path`` (for ``deserialize_program`` /
    ``deserialize_persistables``)."""
    if not os.path.isfile(path):
        raise SaveLoadError(f"load_from_file: no file '{path}'")
    with os_errors("cannot read", path), open(path, "rb") as f:
        return f.read()
