"""Saving and loading the values of persistable variables (PaddlePaddle 1.8's ``save_vars``).

The program says which variables (its Parameters, or all its persistables);
the scope holds their values. With ``filename=None`` each variable is one
file named after it, ``dirname/fc_0.w_0``, in PaddlePaddle's tensor format
(``ops/machinery/tensor_stream.py``); with a filename, the tensors sit back to back in
one file, sorted by name: PaddlePaddle's ``save_combine`` / ``.pdiparams``.
Loading reads and checks every tensor against its VarDesc (shape, dtype)
before it changes the scope, so a failed load leaves the scope as it was.
"""

from __future__ import annotations

import contextlib
import os

from numpy.lib import format as npy_format
from typing import Any

from paddle_nb.core.place import CPUPlace
from paddle_nb.core.scope import global_scope
from paddle_nb.core.tensor import LoDTensor
from paddle_nb.errors import ProtoDecodeError, SaveLoadError
from paddle_nb.framework.context import default_main_program
from paddle_nb.framework.variable import Parameter, Variable, VarType, tensor_shape
from paddle_nb.io.atomic import inside, staged_directory, write_file
from paddle_nb.io.interrupts import deferred_interrupts, interruption_point
from paddle_nb.ops.feed_fetch import read_npy
from paddle_nb.ops.machinery.tensor_stream import read_tensor, write_tensor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    import numpy

    from paddle_nb.core.dtypes import DTypeLike
    from paddle_nb.core.scope import Scope
    from paddle_nb.executor.executor import Executor
    from paddle_nb.framework.program import Program

__all__ = ["save_vars", "load_vars", "save_params", "load_params", "save_persistables",
           "load_persistables", "is_parameter", "is_persistable", "combined_writer", "header_check",
           "stored_bytes_check", "check_lod", "check_value"]

_NPY_MAGIC = b"\x93NUMPY"


def is_parameter(var: Variable) -> bool:
    """True for a Parameter (or a VarDesc marked ``is_parameter``)."""
    return isinstance(var, Parameter) or var.is_parameter


def is_persistable(var: Variable) -> bool:
    """True for a persistable tensor; the executor's ``feed`` / ``fetch`` lists are not saved."""
    return var.persistable and var.type == VarType.LOD_TENSOR


# -- the public functions ---------------------------------------------------------------------
def save_vars(executor: Executor, dirname: Any, main_program: Program | None = None,
              vars: Any = None, predicate: Callable[..., Any] | None = None,
              filename: str | None = None, scope: Scope | None = None) -> list[str]:
    """Write ``vars`` (or the program's variables for which ``predicate`` holds) from ``scope``.

    Returns the names written. The files appear whole or not at all.
    """
    chosen = select_vars(main_program, vars, predicate)
    values = values_from_scope(chosen, scope)
    with os_errors("cannot save into", dirname), deferred_interrupts():
        if filename is None:
            with staged_directory(dirname) as stage:
                write_values(stage, values)
        else:
            write_values(dirname, values, filename)
    return [v.name for v in chosen]


def load_vars(executor: Executor, dirname: Any, main_program: Program | None = None,
              vars: Sequence[Variable] | None = None, predicate: Callable[..., Any] | None = None,
              filename: str | None = None, scope: Scope | None = None) -> list[str]:
    """Read ``vars`` (or those for which ``predicate`` holds) into ``scope``; all or none.

    Returns the names loaded.
    """
    chosen = select_vars(main_program, vars, predicate)
    with os_errors("cannot load from", dirname):
        values = read_values(dirname, chosen, filename)
    scope = global_scope() if scope is None else scope
    place = getattr(executor, "place", None) or CPUPlace()
    with deferred_interrupts():             # Ctrl-C: after every variable is set, not between
        for var in chosen:
            array, lod = values[var.name]
            tensor = scope.var(var.name).get_tensor()
            tensor.set(array, place)
            tensor.set_lod(lod)
    return [v.name for v in chosen]


def save_params(executor: Executor, dirname: Any, main_program: Program | None = None,
                scope: Scope | None = None, filename: str | None = None) -> list[str]:
    """Save every Parameter of ``main_program`` (default: the default main program)."""
    return save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename,
                     scope=scope)


def load_params(executor: Executor, dirname: Any, main_program: Program | None = None,
                scope: Scope | None = None, filename: str | None = None) -> list[str]:
    """Load every Parameter of ``main_program`` from what ``save_params`` wrote."""
    return load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename,
                     scope=scope)


def save_persistables(executor: Executor, dirname: Any, main_program: Program | None = None,
                      scope: Scope | None = None, filename: str | None = None) -> list[str]:
    """Save every persistable tensor (parameters, optimizer state, counters)."""
    return save_vars(executor, dirname, main_program, predicate=is_persistable,
                     filename=filename, scope=scope)


def load_persistables(executor: Executor, dirname: Any, main_program: Program | None = None,
                      scope: Scope | None = None, filename: str | None = None) -> list[str]:
    """Load every persistable tensor from what ``save_persistables`` wrote."""
    return load_vars(executor, dirname, main_program, predicate=is_persistable,
                     filename=filename, scope=scope)


# -- choosing variables and reading them from a scope -------------------------------------------
def select_vars(program: Program | None, vars: Sequence[Variable] | None = None,
                predicate: Callable[..., Any] | None = None) -> list[Variable]:
    """The program's variables to save or load, one per name, sorted by name."""
    program = default_main_program() if program is None else program
    if vars is not None:
        candidates = [program.global_block().var(v) if isinstance(v, str) else v for v in vars]
        for var in candidates:
            if not isinstance(var, Variable):
                raise TypeError(f"vars: expected Variables or names, got {var!r}")
    else:
        candidates = [v for v in program.list_vars() if (predicate or is_persistable)(v)]
    chosen: dict[str, Any] = {}
    for var in candidates:
        if var.type != VarType.LOD_TENSOR:
            raise SaveLoadError(f"variable '{var.name}' is a {VarType.Type.Name(var.type)}; only "
                                "LoD tensors can be saved")
        chosen.setdefault(var.name, var)
    return [chosen[name] for name in sorted(chosen)]


def values_from_scope(variables: Sequence[Variable], scope: Scope | None = None
                     ) -> dict[str, tuple[Any, ...]]:
    """{name: (host array, lod)} of each variable's tensor in ``scope``."""
    scope = global_scope() if scope is None else scope
    values = {}
    for var in variables:
        held = scope.find_var(var.name)
        if held is None or not held.is_type(LoDTensor) or not held.get_tensor().is_allocated():
            what = "is not in the scope" if held is None else "has no tensor value in the scope"
            raise SaveLoadError(f"cannot save '{var.name}': it {what} (run the startup program, "
                                "or the main program once, before saving)")
        tensor = held.get_tensor()
        values[var.name] = (tensor.numpy(), tensor.lod())
    return values


# -- the two file layouts -------------------------------------------------------------------------
def write_values(dirname: Any, values: Mapping[str, Any], filename: str | None = None) -> None:
    """One file per name in ``dirname``, or all of them sorted by name in ``filename``.
    Ctrl-C is taken between two tensors (``io/interrupts.py``)."""
    if filename is not None:
        write_file(inside(dirname, filename, "params file"), combined_writer(values))
        return
    for name in sorted(values):
        array, lod = values[name]
        interruption_point()
        write_file(inside(dirname, name, "variable"), lambda f: write_tensor(f, array, lod))


def combined_writer(values: Mapping[str, Any]) -> Callable[..., Any]:
    """``write(f)``: the tensors of ``values`` sorted by name, back to back (``.pdiparams``)."""
    def write_all(f: Any) -> None:
        for name in sorted(values):
            interruption_point()
            write_tensor(f, *values[name])
    return write_all


def read_values(dirname: Any, variables: Sequence[Variable], filename: str | None = None
               ) -> dict[str, tuple[Any, ...]]:
    """{name: (array, lod)} for ``variables``, each checked against its VarDesc.

    Every header is compared with the variable's declaration (and with the bytes the file
    really holds) before its data is read, and every value and LoD is checked before any
    is returned: the caller writes all of them into a scope, or none.
    """
    if not os.path.isdir(dirname):
        raise SaveLoadError(f"cannot load: '{dirname}' is not a directory")
    if filename is not None:
        path = inside(dirname, filename, "params file")
        values = _read_combined(path, variables)
        paths = dict.fromkeys(values, path)
    else:
        paths = {v.name: inside(dirname, v.name, "variable") for v in variables}
        values = {v.name: _read_one(paths[v.name], v) for v in variables}
    for var in variables:
        array, lod = values[var.name]
        check_value(var, array)
        check_lod(var, array, lod, paths[var.name])
    return values


def _read_one(path: str, var: Variable) -> Any:
    """One variable's file: PaddlePaddle's tensor format, or a ``.npy`` (never pickled)."""
    name = var.name
    if not os.path.isfile(path):
        raise SaveLoadError(f"cannot load variable '{name}': no file '{path}'")
    with open(path, "rb") as f:
        if f.read(len(_NPY_MAGIC)) == _NPY_MAGIC:
            f.seek(0)
            return _read_npy(f, path, var), []
        f.seek(0)
        size = os.fstat(f.fileno()).st_size
        value = read_tensor(f, name=f"variable '{name}' in '{path}'", limit=size,
                            check=header_check(var, path, f))
        if f.read(1):
            raise ProtoDecodeError(f"variable '{name}': '{path}' has bytes after its tensor")
    return value


def _read_npy(f: Any, path: str, var: Variable) -> Any:
    """A ``.npy`` file's array, its header checked like a tensor's before the data is read."""
    try:
        version = npy_format.read_magic(f)
        read_header = npy_format.read_array_header_1_0 if version == (1, 0) \
            else npy_format.read_array_header_2_0
        shape, fortran, dtype = read_header(f)
    except (ValueError, OSError, SyntaxError) as err:
        raise SaveLoadError(f"variable '{var.name}': '{path}' is not a .npy file paddle_nb can "
                            f"read: {err}") from None
    if dtype.hasobject:
        raise SaveLoadError(f"variable '{var.name}': '{path}' holds pickled objects, which "
                            "paddle_nb never reads")
    count = 1
    for d in shape:
        count *= d
    header_check(var, path, f)(dtype, list(shape), count * dtype.itemsize)
    left = os.fstat(f.fileno()).st_size - f.tell()
    if count * dtype.itemsize > left:
        raise SaveLoadError(f"variable '{var.name}' in '{path}': the .npy header claims shape "
                            f"{list(shape)} ({count * dtype.itemsize} bytes) but only {left} "
                            "bytes follow it")
    f.seek(0)
    return read_npy(path)


def _read_combined(path: str, variables: Any) -> Any:
    """The tensors of one ``save_combine`` file, in the order of the sorted names."""
    if not os.path.isfile(path):
        raise SaveLoadError(f"cannot load parameters: no file '{path}'")
    values = {}
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        for k, var in enumerate(variables):
            if f.tell() == size:
                raise SaveLoadError(f"'{path}' ends after {k} tensors, before variable "
                                    f"'{var.name}': the program needs {len(variables)} "
                                    "(sorted by name)")
            values[var.name] = read_tensor(f, name=f"variable '{var.name}' in '{path}'",
                                           limit=size - f.tell(),
                                           check=header_check(var, path, f))
        if f.tell() != size:
            raise SaveLoadError(f"'{path}' has {size - f.tell()} bytes after the "
                                f"{len(variables)} tensors the program needs: it holds more "
                                "variables than the program, or others")
    return values


_SPARSE_CHECK = 64 << 20     # tensors this big must be stored on disk, not a hole in the file


def header_check(var: Variable, path: str, f: Any) -> Callable[..., Any]:
    """``check(dtype, dims, nbytes)`` for ``read_tensor``: a SaveLoadError naming the file
    and ``var`` when a tensor header does not fit the variable's declaration, or claims
    more bytes than ``f`` really holds, before anything is allocated for its data."""
    def check(dtype: DTypeLike, dims: Sequence[int], nbytes: int) -> None:
        where = f"variable '{var.name}' in '{path}'"
        want = tensor_shape(var)
        if len(want) != len(dims) or any(w >= 0 and w != d for w, d in zip(want, dims)):
            raise SaveLoadError(f"{where}: the program declares shape {list(want)}, the "
                                f"file's header claims shape {list(dims)}; nothing was read")
        try:
            declared = var.dtype
        except TypeError:
            declared = None                   # check_value names the corrupt VarDesc
        if declared is not None and declared != dtype:
            raise SaveLoadError(f"{where}: the program declares dtype {declared}, the "
                                f"file's header claims {dtype}; nothing was read")
        if any(w < 0 for w in want):
            stored_bytes_check(where, f)(dtype, dims, nbytes)
    return check


def stored_bytes_check(where: str, f: Any) -> Callable[..., Any]:
    """``check(dtype, dims, nbytes)`` for ``read_tensor`` where no declaration fixes the
    size: a tensor above 64 MiB must be stored in ``f`` on disk, not in a hole of a sparse
    file (whose apparent size passes any size check)."""
    def check(dtype: DTypeLike, dims: Sequence[int], nbytes: int) -> None:
        if nbytes >= _SPARSE_CHECK:
            stored = _stored_bytes(f)
            if stored is not None and stored < nbytes:
                raise SaveLoadError(f"{where}: the header claims shape {list(dims)} "
                                    f"({nbytes} bytes) but the file stores only {stored} "
                                    "bytes on disk (a sparse file): refused before reading")
    return check


def _stored_bytes(f: Any) -> int | None:
    """The bytes a file really occupies on disk (holes of a sparse file excluded), or None."""
    try:
        blocks = os.fstat(f.fileno()).st_blocks
    except (AttributeError, OSError, ValueError):
        return None
    return blocks * 512


def check_lod(var: Variable, array: numpy.ndarray, lod: Sequence[list[Any]], path: str) -> None:
    """Raise SaveLoadError naming ``var`` and ``path`` when ``lod`` is not a valid LoD of
    ``array``: offsets from 0, never decreasing, each level ending where the next begins,
    the last one at the first dimension (as ``LoDTensor.set_lod`` requires)."""
    for k, level in enumerate(lod):
        problem = None
        if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
            problem = f"level {k} is {_short(level)}: expected offsets from 0, never decreasing"
        elif k + 1 < len(lod) and len(lod[k + 1]) != level[-1] + 1:
            problem = (f"level {k} ends at {level[-1]}, so level {k + 1} needs "
                       f"{level[-1] + 1} offsets; it has {len(lod[k + 1])}")
        elif k + 1 == len(lod) and (array.ndim == 0 or level[-1] != array.shape[0]):
            first = array.shape[0] if array.ndim else "none (a 0-D tensor)"
            problem = f"the last level ends at {level[-1]}; the first dimension is {first}"
        if problem:
            raise SaveLoadError(f"variable '{var.name}' in '{path}': its LoD is not valid: "
                                f"{problem}; nothing was loaded")


def _short(level: Any) -> str:
    return str(level) if len(level) <= 8 else f"[{', '.join(map(str, level[:8]))}, ...]"


def check_value(var: Variable, array: numpy.ndarray) -> None:
    """Raise SaveLoadError naming ``var`` when ``array`` does not fit its VarDesc."""
    try:
        want_dtype = var.dtype
    except TypeError as err:            # a VarType that is no NumPy dtype (a corrupt VarDesc)
        raise SaveLoadError(f"variable '{var.name}': the program declares no tensor dtype "
                            f"paddle_nb can load into: {err}") from None
    if array.dtype != want_dtype:
        raise SaveLoadError(f"variable '{var.name}': the program declares dtype {var.dtype}, "
                            f"the file holds {array.dtype}")
    want, got = tensor_shape(var), tuple(array.shape)
    if len(want) != len(got) or any(w >= 0 and w != g for w, g in zip(want, got)):
        raise SaveLoadError(f"variable '{var.name}': the program declares shape {list(want)}, "
                            f"the file holds shape {list(got)}")


@contextlib.contextmanager
def os_errors(action: Any, path: Any) -> Iterator[Any]:
    """Report an operating-system failure as a SaveLoadError naming the path."""
    try:
        yield
    except SaveLoadError:
        raise
    except OSError as err:
        raise SaveLoadError(f"{action} '{path}': {err}") from err
