"""Exporting a training program for PaddlePaddle 2.6 to train, on one process or many.

A notebook is where a model is built and looked at; more data and more machines are
PaddlePaddle's. ``export_training(dirname, main, startup, scope)`` writes a folder that needs
only PaddlePaddle 2.6 (and NumPy) to go on training::

    main.pdmodel      the whole training program (forward, backward, optimizer), in 2.6's forms
    startup.pdmodel   its startup program (parameters and optimizer state)
    forward.pdmodel   the forward part alone, ending in the loss, and
    forward_startup.pdmodel  the startup ops of its parameters: what Fleet takes to add its own
                      backward and optimizer ops
    export.json       the feed names, the loss name, the persistables, and the optimizer's type,
                      settings and learning rate or learning-rate scheduler (class, arguments,
                      steps taken): what Fleet's optimizer is made from
    params/           the persistables' values from ``scope``, one file per variable in
                      PaddlePaddle's tensor format (``paddle.static.load_vars`` reads them)
    train.py          the training script (``io/train_script.py``, ``io/train_script_ps.py``)

Every program is written by ``export26.normalize``: the op forms PaddlePaddle 2.6.2 writes.
The program the user holds is not changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paddle_nb.framework.attrs import read_attr
from paddle_nb.framework.operator import OpRole
from paddle_nb.framework.program import Program
from paddle_nb.io.atomic import staged_directory
from paddle_nb.io.export26 import normalize
from paddle_nb.io.export26_grads import normalize_training
from paddle_nb.io.params import is_persistable, os_errors, values_from_scope, write_values
from paddle_nb.io.train_script import TRAIN_PY
from paddle_nb.proto import framework_pb2

if TYPE_CHECKING:
    from paddle_nb.core.scope import Scope
    from paddle_nb.framework.block import Block
    from paddle_nb.framework.operator import Operator
    from paddle_nb.framework.variable import Variable

__all__ = ["export_training", "training_manifest", "forward_desc", "MANIFEST"]

MANIFEST = "export.json"
PARAMS_DIR = "params"
# An update op's input slots that are not optimizer state: the parameter, its gradient, the
# learning rate (listed apart) and the master weight of mixed precision.
_NOT_STATE = ("Param", "Grad", "LearningRate", "MasterParam", "SkipUpdate")
# schedulers whose step needs more than a count: what export_training says of each
_UNEXPORTED_SCHEDULERS = {
    "ReduceOnPlateau": "its step takes a metric the training script would have to choose",
    "LambdaDecay": "its lr_lambda is a Python function",
    "MultiplicativeDecay": "its lr_lambda is a Python function",
}
_SETTINGS_HIDDEN = ("op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
                    "with_quant_attr")


def export_training(dirname: str, main_program: Program, startup_program: Program,
                    scope: Scope | None = None, loss: Variable | str | None = None,
                    feed_names: Iterable[str] | None = None,
                    parameter_servers: str | None = None) -> dict[str, Any]:
    """Write ``main_program`` (trained by an optimizer's ``minimize``), ``startup_program`` and
    their persistables' values in ``scope`` (none written when ``scope`` is None) to
    ``dirname`` with ``train.py``; returns the manifest (``export.json``'s content).

    ``loss`` (a Variable or name) and ``feed_names`` are read from the program when omitted:
    the loss is what ``append_backward`` started from, the feeds are the variables its ops read
    that nothing writes. ``parameter_servers`` ("async", "sync" or "geo") says the folder is
    for Fleet's parameter servers in that mode: what PaddlePaddle 2.6.2 cannot do there is
    refused now (``check_parameter_servers``) rather than in the cluster.
    """
    for what, program in (("main_program", main_program), ("startup_program", startup_program)):
        if not isinstance(program, Program):
            raise TypeError(f"export_training: {what} must be a Program, got "
                            f"{type(program).__name__}")
    manifest = training_manifest(main_program, startup_program, scope, loss, feed_names)
    if parameter_servers is not None:
        check_parameter_servers(manifest, main_program, parameter_servers)
        manifest["parameter_servers"] = parameter_servers
    files = {
        "main.pdmodel": normalize_training(normalize(main_program.desc)).SerializeToString(),
        "startup.pdmodel": normalize(startup_program.desc).SerializeToString(),
    }
    forward, forward_startup = forward_desc(main_program.desc, startup_program.desc,
                                            manifest["optimizer_state"])
    files["forward.pdmodel"] = normalize(forward).SerializeToString()
    files["forward_startup.pdmodel"] = normalize(forward_startup).SerializeToString()
    files[MANIFEST] = (json.dumps(manifest, indent=1) + "\n").encode()
    files["train.py"] = TRAIN_PY.encode()
    values = None
    if scope is not None:
        chosen = [main_program.global_block().var(n) for n in manifest["persistables"]]
        values = values_from_scope(chosen, scope)
    with os_errors("cannot export into", dirname), staged_directory(dirname) as stage:
        for name, data in files.items():
            with open(os.path.join(stage, name), "wb") as f:
                f.write(data)
        if values is not None:
            os.mkdir(os.path.join(stage, PARAMS_DIR))
            write_values(os.path.join(stage, PARAMS_DIR), values)
    return manifest


def training_manifest(main_program: Program, startup_program: Program,
                      scope: Scope | None = None, loss: Variable | str | None = None,
                      feed_names: Iterable[str] | None = None) -> dict[str, Any]:
    """What ``export.json`` says of a training program: feeds, loss, persistables, optimizer."""
    block = main_program.global_block()
    loss_name = loss if isinstance(loss, str) or loss is None else loss.name
    loss_name = loss_name or _loss_name(block)
    updates = [op for op in block.ops if op.role & OpRole.OPTIMIZE and "Param" in op.inputs
               and "ParamOut" in op.outputs]
    if not updates:
        raise ValueError("export_training: the program has no optimizer update ops; call an "
                         "optimizer's minimize(loss) on it before exporting")
    lr_values = _learning_rates(updates, startup_program, scope)
    state = sorted({n for op in updates for slot in op.inputs if slot not in _NOT_STATE
                    for n in op.input(slot)})
    persistables = sorted(v.name for v in main_program.list_vars() if is_persistable(v)
                          and v.block.idx == 0)
    optimizer = _optimizer(updates, lr_values)
    if main_program.lr_scheduler is not None:
        optimizer["lr_scheduler"] = scheduler_spec(main_program.lr_scheduler)
    return {
        "format": "paddle_nb export_training 1",
        "feeds": list(feed_names) if feed_names is not None else _feeds(block),
        "loss": loss_name,
        "parameters": sorted(p.name for p in main_program.all_parameters()),
        "persistables": persistables,
        "optimizer": optimizer,
        "optimizer_state": state,
        "other_optimize_ops": sorted({op.type for op in block.ops if op.role & OpRole.OPTIMIZE
                                      and op not in updates}),
    }


PS_MODES = ("async", "sync", "geo")
PS_OPTIMIZERS = ("sgd", "adam")
_SPARSE_LOOKUPS = ("lookup_table", "lookup_table_v2")


def check_parameter_servers(manifest: Mapping[str, Any], main_program: Program,
                            mode: str) -> None:
    """Refuse (ValueError, naming what is supported) what PaddlePaddle 2.6.2's parameter
    servers cannot train as paddle_nb does, in mode ``mode``:

    - an optimizer other than SGD or Adam (the servers' dense tables have these two rules);
    - a learning-rate scheduler (the servers hold the learning rate; 2.6.2 moves only five
      scheduler classes there, driven by the servers' own step count);
    - gradient clipping or weight decay ops (train.py gives Fleet the optimizer's type and
      learning rate, not these);
    - geo mode with dense parameters: 2.6.2's geo mode exchanges sparse tables only (its send
      ops skip dense gradients), so each worker would train its own copy.
    """
    if mode not in PS_MODES:
        raise ValueError(f"export_training: parameter_servers must be one of "
                         f"{', '.join(PS_MODES)} (or None), got {mode!r}")
    optimizer, problems = manifest["optimizer"], []
    if optimizer["type"] not in PS_OPTIMIZERS:
        problems.append(f"the optimizer is {optimizer['type']}, and the servers update dense "
                        f"parameters with {' or '.join(PS_OPTIMIZERS)} only")
    if optimizer.get("lr_scheduler"):
        problems.append(f"the learning rate follows {optimizer['lr_scheduler']['type']}, and "
                        "on parameter servers it must be fixed")
    if manifest["other_optimize_ops"]:
        problems.append(f"the optimizer adds {', '.join(manifest['other_optimize_ops'])} ops "
                        "(gradient clipping or weight decay), which Fleet's optimizer is not "
                        "given")
    if mode == "geo":
        sparse = {op.input("W")[0] for op in main_program.global_block().ops
                  if op.type in _SPARSE_LOOKUPS and op.attrs.get("is_sparse")}
        dense = [n for n in manifest["parameters"] if n not in sparse]
        if dense:
            problems.append(f"geo mode exchanges sparse tables only, and {', '.join(dense)} "
                            "are dense (each worker would train its own copy; use 'async' or "
                            "'sync')")
    if problems:
        raise ValueError(f"export_training(parameter_servers={mode!r}): PaddlePaddle 2.6.2's "
                         "parameter servers cannot train this program as paddle_nb does: "
                         + "; ".join(problems) + ". Export without parameter_servers to train "
                         "in one process or collectively on GPUs")


def _loss_name(block: Block) -> str:
    """The loss: the variable whose gradient the backward pass seeds with 1."""
    for op in block.ops:
        if op.role & OpRole.LOSS and op.role & OpRole.BACKWARD and op.type == "fill_constant":
            name = op.output("Out")[0]
            if name.endswith("@GRAD"):
                return name[:-len("@GRAD")]
    raise ValueError("export_training: no loss found (no backward pass seeded from a loss); "
                     "pass loss= or call an optimizer's minimize(loss) first")


def _feeds(block: Block) -> list[str]:
    """Non-persistable variables the forward ops read that no op writes before: the data."""
    written, feeds = set(), []
    for op in block.ops:
        if op.role & (OpRole.BACKWARD | OpRole.OPTIMIZE):
            break
        for name in op.input_arg_names:
            var = block.find_var(name)
            if name not in written and name not in feeds and var is not None \
                    and not var.persistable:
                feeds.append(name)
        written.update(op.output_arg_names)
    return feeds


def _learning_rates(updates: Sequence[Operator], startup: Program, scope: Scope | None
                    ) -> dict[str, float]:
    """The value of each learning-rate variable: from ``scope`` when given, else the
    ``fill_constant`` of the startup program that sets it."""
    names = {n for op in updates for n in op.input("LearningRate")}
    values = {}
    if scope is not None:
        for name in names:
            found = scope.find_var(name)
            if found is not None and found.is_initialized():
                values[name] = float(found.get_tensor().numpy().reshape(-1)[0])
    for op in startup.global_block().ops:
        outs = op.output_arg_names
        if op.type == "fill_constant" and outs and outs[0] in names and outs[0] not in values:
            values[outs[0]] = float(op.attr("value"))
    return values


def _optimizer(updates: Sequence[Operator], lr_values: Mapping[str, float]
               ) -> dict[str, Any]:
    """The optimizer's type and settings (the update ops' attributes) and learning rate."""
    kinds = sorted({op.type for op in updates})
    first = updates[0]
    settings = {a: _plain(v) for a, v in first.attrs.items() if a not in _SETTINGS_HIDDEN}
    lr_name = _lr_var(first)
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "settings": settings,
            "learning_rate_var": lr_name,
            "learning_rate": None if lr_name is None else lr_values.get(lr_name),
            "per_parameter": [{"param": op.input("Param")[0], "type": op.type,
                               "learning_rate_var": _lr_var(op)} for op in updates]}


def _lr_var(op: Operator) -> str | None:
    """The learning-rate variable an update op reads, None when it reads none."""
    names = op.input("LearningRate")
    return names[0] if names else None


def scheduler_spec(scheduler: Any) -> dict[str, Any]:
    """``export.json``'s account of a learning-rate scheduler (``paddle.optimizer.lr``): its
    class, the arguments it was made with and the steps it has taken, from which ``train.py``
    makes PaddlePaddle's own and steps it on. A program keeps only the learning-rate variable;
    the Executor writes the scheduler's value into it before each run, as PaddlePaddle's does.
    """
    name = type(scheduler).__name__
    args = getattr(scheduler, "init_args", None)
    if name in _UNEXPORTED_SCHEDULERS or args is None:
        why = _UNEXPORTED_SCHEDULERS.get(name, "it was not made by paddle.optimizer.lr")
        raise ValueError(f"export_training: the learning rate follows {name}, which the "
                         f"export cannot carry ({why}); every other paddle.optimizer.lr "
                         "scheduler is exported")
    plain = {}
    for key, value in args.items():
        if key in ("last_epoch", "verbose"):
            continue
        if hasattr(value, "last_lr"):                   # LinearWarmup's inner scheduler
            plain[key] = scheduler_spec(value)
        elif callable(value):
            raise ValueError(f"export_training: {name}'s {key} is a Python function, which "
                             "the exported folder cannot carry; use a scheduler made of "
                             "numbers (StepDecay, PiecewiseDecay, CosineAnnealingDecay, ...)")
        else:
            plain[key] = _plain(value)
    return {"type": name, "args": plain, "last_epoch": int(scheduler.last_epoch)}


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, list)) or value is None \
        else str(value)


# -- the forward part ------------------------------------------------------------------------
def forward_desc(main_desc: Any, startup_desc: Any, optimizer_state: Collection[str] = ()
                 ) -> tuple[Any, Any]:
    """Copies of ``main_desc`` holding only its forward ops (and the variables they use) and of
    ``startup_desc`` holding only the startup ops of those variables: what PaddlePaddle's
    Fleet takes to add its own backward pass and optimizer. Sub-blocks stay where they are (an
    op's ``sub_block`` keeps its index); the ones only the backward pass used stay unused."""
    forward = framework_pb2.ProgramDesc()
    forward.CopyFrom(main_desc)
    block = forward.blocks[0]
    keep = [op for op in block.ops if not _role(op) & (OpRole.BACKWARD | OpRole.OPTIMIZE
                                                        | OpRole.LRSCHED)]
    del block.ops[:]
    block.ops.extend(keep)
    used = _names_used(forward, keep)
    kept_vars = [v for v in block.vars if (v.name in used or _is_param(v))
                 and not v.name.endswith("@GRAD") and v.name not in optimizer_state]
    del block.vars[:]
    block.vars.extend(kept_vars)
    persistable = {v.name for v in kept_vars if v.persistable}
    startup = framework_pb2.ProgramDesc()
    startup.CopyFrom(startup_desc)
    sblock = startup.blocks[0]
    sops = [op for op in sblock.ops if _op_outputs(op) and _op_outputs(op) <= persistable]
    del sblock.ops[:]
    sblock.ops.extend(sops)
    made = set().union(*(_op_outputs(op) for op in sops)) if sops else set()
    svars = [v for v in sblock.vars if v.name in made or v.name in _op_inputs(sops)]
    del sblock.vars[:]
    sblock.vars.extend(svars)
    return forward, startup


def _role(op: Any) -> int:
    attr = next((a for a in op.attrs if a.name == "op_role"), None)
    return 0 if attr is None else int(read_attr(attr))


def _is_param(var: Any) -> bool:
    return var.HasField("is_parameter") and var.is_parameter


def _op_outputs(op: Any) -> set[str]:
    return {n for v in op.outputs for n in v.arguments}


def _op_inputs(ops: Iterable[Any]) -> set[str]:
    return {n for op in ops for v in op.inputs for n in v.arguments}


def _names_used(program: Any, ops: Iterable[Any]) -> set[str]:
    """Every variable name ``ops`` and the sub-blocks they run read or write."""
    used, seen, todo = set(), set(), list(ops)
    while todo:
        op = todo.pop()
        used |= _op_outputs(op) | _op_inputs([op])
        for attr in op.attrs:
            ids = [attr.block_idx] if attr.HasField("block_idx") else list(attr.blocks_idx)
            for idx in ids:
                if idx not in seen and 0 < idx < len(program.blocks):
                    seen.add(idx)
                    todo.extend(program.blocks[idx].ops)
    return used

