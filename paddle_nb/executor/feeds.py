"""Feeds and fetches: checked before anything runs, put in and read out the same way.

A feed is checked against its data variable (name, dtype, every dimension
but -1) before any op runs, and a data variable some op reads before any op
writes it must be fed; both errors name the variable and the shapes. A
program with PaddlePaddle's ``feed`` / ``fetch`` ops (a saved inference
model) gets its feeds through the ``feed`` list variable those ops read.
A feed becomes an array of the run's env on the place by :func:`to_place`
(its LoD, if it has one, kept beside it), and a fetch target's value becomes
what ``run`` returns by :func:`fetched`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy

from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import FeedError, FetchError
from paddle_nb.framework.variable import Variable


__all__ = ["lod_fits", "feed_dict", "fetch_targets", "fetch_name", "check_feed", "fill_feed_list",
           "to_place", "env_value", "fetched", "scalar_shape"]


def lod_fits(lod: Any, array: Any) -> bool:
    """Whether ``lod`` (a LoD, or None) still describes ``array``: its last level ends at the
    array's rows (a LoD an op's new value no longer fits is left behind, not set)."""
    return bool(lod) and array is not None and array.ndim > 0 and lod[-1][-1] == array.shape[0]


def feed_dict(feed: Any) -> dict:
    """``feed`` as a new dict of name -> value; a Variable key stands for its name."""
    if feed is None:
        return {}
    if type(feed) is not dict and not isinstance(feed, Mapping):
        raise FeedError(f"Executor.run: feed must be a dict of {{name: array}}, got a "
                        f"{type(feed).__name__}" + (f" of {len(feed)} items" if
                                                    isinstance(feed, (list, tuple)) else "") +
                        "; for example feed={'x': x_array, 'label': label_array}")
    out = {}
    for key, value in feed.items():
        if type(key) is not str:          # (a str key, the usual one, needs no other test)
            name = key.name if isinstance(key, Variable) else key
            if not isinstance(name, str):
                raise FeedError(f"Executor.run: a feed key must be a variable's name, got "
                                f"{key!r} ({type(key).__name__})")
            key = name
        out[key] = value
    return out


def fetch_targets(fetch_list: Any) -> list:
    """The fetch list as a list: one Variable or name alone is a list of one, as PaddlePaddle
    takes it."""
    if type(fetch_list) is list:         # the usual form: read, never changed, by the caller
        return fetch_list
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (str, Variable)):
        return [fetch_list]
    if not isinstance(fetch_list, (list, tuple)):
        raise FetchError(f"Executor.run: fetch_list must be a list of Variables or names, got "
                         f"a {type(fetch_list).__name__}")
    return list(fetch_list)


def fetch_name(program: Any, target: Any) -> str:
    name = target.name if isinstance(target, Variable) else target
    if not isinstance(name, str):
        raise FetchError(f"fetch_list: expected Variables or names, got {target!r}")
    if program.global_block().find_var(name) is None:
        raise FetchError(f"fetch target '{name}' is not a variable of the program's global "
                         "block")
    return name

def check_feed(program: Any, plan: Any, feed: dict) -> dict[str, list] | None:
    """Check every feed against its data variable before anything runs; return the LoDs
    of the fed LoDTensors that have one (name -> LoD), or None when none has."""
    lods = None
    for name, value in feed.items():
        lod = _check_value(plan, program, name, value)
        if lod:
            lods = lods or {}
            lods[name] = lod
    fed_by_op = plan.fed_by_op
    for pos in plan.must_feed:
        name = plan.names[pos]
        if name not in feed:
            step = plan.first_reader(pos)
            raise FeedError(f"missing feed for '{name}' ({_shape_text(plan.vars[pos])}), read "
                            f"by op #{step.index} '{step.op.type}' built at {step.op.site()}")
    for name, op in fed_by_op.items():
        if name not in feed:
            raise FeedError(f"missing feed for '{name}' (the program's feed op "
                            f"#{op.index()} reads it)")
    return lods


def fill_feed_list(scope: Any, plan: Any, feed: dict) -> None:
    """Put the values of the program's ``feed`` ops (a saved inference model has them) in
    the feed list variable they read, in ``scope`` (the user's), in their columns; take
    them out of ``feed``."""
    feed_ops = plan.feed_ops
    if not feed_ops[0].input("X"):
        raise FeedError(f"feed op #{feed_ops[0].index()} has no X (feed list) variable")
    holder_name = feed_ops[0].input("X")[0]
    columns = {}
    for op in feed_ops:
        columns[op.attr("col", 0)] = feed.get(op.output("Out")[0])
    feed_list = [columns.get(c) for c in range(max(columns) + 1)]
    scope.var(holder_name).set_value(feed_list)
    for op in feed_ops:
        feed.pop(op.output("Out")[0], None)


def to_place(value: Any, place: Any) -> Any:
    """A fed value as an array on ``place``, not copied if it is one already: a run only
    reads its feeds (the commit copies what a scope keeps: staging.env_writes)."""
    if type(value) is numpy.ndarray and not place.is_gpu():
        return value
    if isinstance(value, LoDTensor):
        value = value.array()
    if place.is_gpu():
        with place.device_guard():
            return place.xp.asarray(value)
    if hasattr(value, "get") and not isinstance(value, numpy.ndarray):
        return value.get()
    return numpy.asarray(value)


def env_value(plan: Any, env: list, scope: Any, feed: dict, name: str, place: Any) -> Any:
    """Fetch target ``name``'s value after a run on ``env``: computed, fed, or in the
    user's ``scope``."""
    pos = plan.position(name)
    array = env[pos] if pos is not None else None
    if array is None and name in feed:
        array = to_place(feed[name], place)
    if array is None:
        var = scope.find_var(name)
        if var is not None and isinstance(var.holder, LoDTensor):
            array = var.holder.data
    if array is None:
        raise FetchError(f"fetch target '{name}' has no value after the run: no op "
                         "of the program computes it and it was not fed")
    return array


def fetched(plan: Any, name: str, array: Any, lod: Any, place: Any,
            return_numpy: bool) -> Any:
    """What ``Executor.run`` returns for fetch target ``name`` holding ``array`` (and
    ``lod``), whichever store it was read from: a host copy, shaped [1] where the program
    declares a one-value tensor so (:func:`scalar_shape`), or a LoDTensor of it on
    ``place``."""
    if array.ndim == 0:
        pos = plan.position(name)
        shape = plan.scalar_shape(pos) if pos is not None else \
            scalar_shape(plan.block.find_var(name))
        if shape is not None:
            array = array.reshape(shape)
    host = array.get() if place.is_gpu() else numpy.array(array, copy=True)
    if return_numpy:
        return host
    tensor = LoDTensor()
    tensor.set(host, place)
    if lod_fits(lod, host):
        tensor.set_lod(lod)
    return tensor


def scalar_shape(var: Any) -> tuple | None:
    """The [1] (or [1, 1]) shape ``var`` declares for a one-value tensor, or None.

    Full reductions give 0-D tensors, as in PaddlePaddle 2.5+; a program written by
    PaddlePaddle 1.x declares shape [1] for them, and its fetches keep that shape."""
    if var is not None and var.is_tensor():
        shape = var.shape
        if shape and all(d == 1 for d in shape):
            return tuple(shape)
    return None


# -- errors ----------------------------------------------------------------------------------------


def _data_names(program: Any) -> list[str]:
    glob = program.global_block()
    return [v.name for v in glob.vars.values() if not v.persistable and v.writer is None
            and v.is_tensor()]

def _shape_text(var: Any) -> str:
    try:
        return f"{var.dtype}{list(var.shape)}"
    except Exception:
        return "?"

def _check_value(plan: Any, program: Any, name: str, value: Any) -> list | None:
    """Check a feed's dtype and shape against its variable; return its LoD, if it has one."""
    want, shape, exact = plan.feed_meta.get(name) or _feed_meta(plan, program, name)
    lod = None
    if isinstance(value, numpy.ndarray):
        array = value
    elif isinstance(value, LoDTensor):
        array = value.array()
        lod = value.lod()
    else:
        array = value if (hasattr(value, "__array_interface__")
                          or hasattr(value, "__cuda_array_interface__")) \
            else numpy.asarray(value)
    if array.dtype != want:
        raise FeedError(f"feed '{name}': expected dtype {want}, got {array.dtype} "
                        f"(cast it with .astype('{want}'))")
    got = array.shape
    if got != shape and (exact or len(got) != len(shape) or
                         any(s >= 0 and s != g for s, g in zip(shape, got))):
        raise FeedError(f"feed '{name}': expected shape {list(shape)} (-1 is any size), "
                        f"got {list(got)}")
    return lod


def _feed_meta(plan: Any, program: Any, name: str) -> tuple:
    """(dtype, shape, whether the shape has no -1) of data variable ``name``, read from its
    desc once per plan."""
    var = program.global_block().find_var(name)
    if var is None:
        raise FeedError(f"feed '{name}': the program has no such variable (data "
                        f"variables: {', '.join(_data_names(program)) or 'none'})")
    if not var.is_tensor():
        raise FeedError(f"feed '{name}': the variable is not a tensor, it cannot be fed")
    try:
        shape = tuple(var.shape)
        meta = plan.feed_meta[name] = (var.dtype, shape, all(d >= 0 for d in shape))
    except Exception as err:
        raise FeedError(f"feed '{name}': its VarDesc cannot be read: {err}") from None
    return meta
