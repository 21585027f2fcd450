"""Feed, fetch and load: the ops through which data enters and leaves a program.

PaddlePaddle's executor adds ``feed`` ops that copy column ``col`` of the
persistable ``feed`` list (FEED_MINIBATCH) into a data variable, and
``fetch`` ops that copy a target into column ``col`` of the ``fetch`` list
(FETCH_LIST). Saved inference models keep them, so paddle_nb runs them too.
``load`` gives a variable the contents of a file: a ``.npy`` file (read
without pickle), or one tensor in PaddlePaddle's binary tensor format.
"""

import numpy

from paddle_nb.errors import FeedError, SaveLoadError
from paddle_nb.ops.machinery.registry import Attr, OpDef, register
from paddle_nb.ops.machinery.tensor_stream import read_tensor

__all__ = ["read_npy"]


def _feed(ctx):
    col = ctx.attrs["col"]
    feed_list = ctx.scope.find_var(ctx.input_names("X")[0]).get(list)
    if col >= len(feed_list) or feed_list[col] is None:
        raise FeedError(f"feed op: column {col} ('{ctx.output_names('Out')[0]}') was not fed")
    ctx.tensor(ctx.output_names("Out")[0]).set(feed_list[col], ctx.place)


def _fetch(ctx):
    col = ctx.attrs["col"]
    var = ctx.scope.find_var(ctx.output_names("Out")[0])
    fetch_list = var.get(list) if var.is_initialized() else var.set_value([])
    while len(fetch_list) <= col:
        fetch_list.append(None)
    fetch_list[col] = ctx.tensor(ctx.input_names("X")[0]).numpy()


def read_npy(path):
    """A NumPy array from a ``.npy`` file; object (pickled) arrays are refused."""
    try:
        return numpy.load(path, allow_pickle=False)
    except ValueError as err:
        raise SaveLoadError(f"load: '{path}' holds pickled objects, which paddle_nb never "
                            f"reads ({err})") from None
    except OSError as err:
        raise SaveLoadError(f"load: cannot read '{path}': {err}") from None


def _load(ctx):
    path = ctx.attrs["file_path"]
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic == b"\x93NUMPY":
        array = read_npy(path)
    else:
        with open(path, "rb") as f:
            array, _ = read_tensor(f, name=path)
    name = ctx.output_names("Out")[0]
    declared = _declared_dtype(ctx.op, name)
    if declared is not None and array.dtype != declared and array.dtype.kind == declared.kind:
        array = array.astype(declared)   # np.save writes float64 by default: the variable decides
    ctx.tensor(name).set(array, ctx.place)


def _declared_dtype(op, name):
    """The dtype the program declares for tensor variable ``name``, if it says."""
    block = getattr(op, "block", None)
    var = block.find_var(name) if block is not None else None
    return var.dtype_or_none() if var is not None else None


register(OpDef("feed", inputs=["X"], outputs=["Out"], attrs={"col": Attr("int", 0)},
               kernel=_feed, raw=True,
               doc="Out = column `col` of the feed list X (added by the executor)"))
register(OpDef("fetch", inputs=["X"], outputs=["Out"], attrs={"col": Attr("int", 0)},
               kernel=_fetch, raw=True,
               doc="column `col` of the fetch list Out = X (added by the executor)"))
register(OpDef("load", outputs=["Out"], attrs={"file_path": Attr("str"),
                                                "load_as_fp16": Attr("bool", False),
                                                "seek": Attr("long", -1),
                                                "shape": Attr("longs", [])},
               kernel=_load, raw=True,
               doc="Out = the tensor stored in file_path (.npy or PaddlePaddle's tensor format)"))
