"""PaddlePaddle 2.6.2's own numbers for exact constants, integer scale, empty batches, float16
optimizer state and data redefinition (paddle_nb/ops/{creation,math,norm,optimizers,
adam}.py, layers/io.py).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/numerics_refs.py --out tests/fixtures/paddle26/ops

It writes ``numerics.npz``:

- ``<case>/program`` (and ``<case>/startup``): the serialized ProgramDescs as uint8, with the
  ``op_callstack`` attributes removed; ``<case>/feed/<name>``; ``<case>/fetch/<name>``, what
  PaddlePaddle fetched after running the startup program (if any) and the main program once.
  The cases: fill_constant of big integers and of 0.1 in float64 (``str_value``), full_like
  (a float32 ``value`` only), a Constant initializer on float64/int64/float16 parameters, and
  ``scale`` on int32/int64 (the factor truncated to the integer type, wrapping products).
- ``fp16_<optimizer>/program`` and ``/startup``: a float16 parameter minimized by each
  optimizer (multi_precision False), and ``fp16_<optimizer>/declared``, JSON of the dtype the
  main program declares for every persistable; ``fp16mp_<optimizer>/...`` the same with
  multi_precision=True (a float32 master weight), and ``/slots``, JSON of the update op's
  inputs and outputs. PaddlePaddle 2.6's CPU build has no float16 kernels, so these programs
  are compared by what they declare, and run by paddle_nb alone.
- ``errors/<case>``: the message PaddlePaddle raises, as uint8 text: batch_norm on a 0-row
  batch (training and inference), ``static.data`` redefined with another shape or dtype.
"""

import argparse
import json
import pathlib

import numpy as np
import paddle
from paddle.base.proto import framework_pb2

paddle.enable_static()
OPTIMIZERS = ["Adam", "AdamW", "Adamax", "Lamb", "Momentum", "RMSProp", "Adagrad", "Adadelta",
              "SGD"]
MASTERS = ["Adam", "AdamW", "Lamb", "Momentum", "SGD"]      # those taking multi_precision


def _bytes(program):
    desc = framework_pb2.ProgramDesc.FromString(program.desc.serialize_to_string())
    for block in desc.blocks:
        for op in block.ops:
            keep = [a for a in op.attrs if a.name != "op_callstack"]
            del op.attrs[:]
            op.attrs.extend(keep)
    return np.frombuffer(desc.SerializeToString(), np.uint8)


def _text(message):
    return np.frombuffer(message.encode(), np.uint8)


def _fills():
    from paddle.tensor.creation import fill_constant
    x64 = paddle.static.data("x64", [2], "float64")
    xi = paddle.static.data("xi", [2], "int32")
    return [fill_constant([1], "int64", 123456789), fill_constant([2], "int32", 2 ** 31 - 1),
            fill_constant([1], "int64", -(2 ** 53)), paddle.full([2], 0.1, "float64"),
            paddle.full([1], 1 / 3, "float64"), paddle.full([1], 123456789, "int64"),
            paddle.full([2], True, "bool"), paddle.full([1], 2.5, "int32"),
            paddle.full_like(x64, 0.1), paddle.full_like(xi, 2 ** 31 - 1),
            paddle.full_like(xi, 16777217)]


def _constant_params():
    init = paddle.nn.initializer.Constant
    return [paddle.static.create_parameter([2], "float64", default_initializer=init(0.1)),
            paddle.static.create_parameter([2], "int64", default_initializer=init(123456789)),
            paddle.static.create_parameter([3], "float16", default_initializer=init(0.1))]


def _scales():
    xi = paddle.static.data("xi", [4], "int32")
    xl = paddle.static.data("xl", [3], "int64")
    # the operators write scale too: an integer factor keeps int32, a float one casts first;
    # 123456789 reaches the op as the float32 123456792, 2**31 - 1 as 2**31 (out of range)
    return [paddle.scale(xi, 2.5), paddle.scale(xi, 2.5, bias=1.7),
            paddle.scale(xi, 3.0, bias=0.5, bias_after_scale=False),
            paddle.scale(xi, -1.5, bias=-0.9), paddle.scale(xl, -2.5, bias=-1.5),
            xi * 3, xi * 2.5, xi * 123456789, xi * 0 + (2 ** 31 - 1)]


CASES = {
    "fill_exact": ({"x64": np.zeros(2), "xi": np.zeros(2, "int32")}, _fills),
    "constant_init": ({}, _constant_params),
    "scale_int": ({"xi": np.array([1, -3, 2 ** 30, 7], "int32"),
                   "xl": np.array([1, -3, 2 ** 62], "int64")}, _scales),
}


def run_case(name, feed, build):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        outs = build()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    got = exe.run(main, feed=feed, fetch_list=[o.name for o in outs], scope=scope)
    record = {f"{name}/program": _bytes(main), f"{name}/startup": _bytes(startup)}
    record.update({f"{name}/feed/{k}": v for k, v in feed.items()})
    record.update({f"{name}/fetch/{o.name}": np.asarray(v) for o, v in zip(outs, got)})
    return record


def fp16_case(name, multi_precision=False):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [2, 3], "float16")
        w = paddle.static.create_parameter(
            [3], "float16", name="w", default_initializer=paddle.nn.initializer.Constant(0.5))
        kwargs = {"multi_precision": True} if multi_precision else {}
        getattr(paddle.optimizer, name)(0.1, **kwargs).minimize(paddle.sum(x * w))
    declared = {v.name: str(v.dtype).replace("paddle.", "")
                for v in main.global_block().vars.values() if v.persistable}
    key = f"fp16{'mp' if multi_precision else ''}_{name.lower()}"
    update = main.global_block().ops[-1]
    slots = {"inputs": {k: update.input(k) for k in update.input_names},
             "outputs": {k: update.output(k) for k in update.output_names}}
    return {f"{key}/program": _bytes(main), f"{key}/startup": _bytes(startup),
            f"{key}/declared": _text(json.dumps(declared, sort_keys=True)),
            f"{key}/slots": _text(json.dumps(slots, sort_keys=True))}


def _refused(build, run=None):
    """The message of the error ``build`` (and then ``run(exe, main, startup)``) raises."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    try:
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            built = build()
        if run is not None:
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup, scope=paddle.static.Scope())
            run(exe, main, startup, built)
    except Exception as err:          # noqa: BLE001 -- the message is what is recorded
        return str(err).strip().splitlines()[-3:]
    raise AssertionError("PaddlePaddle accepted it")


def _batch_norm(training):
    def build():
        x = paddle.static.data("x", [-1, 3], "float32")
        layer = paddle.nn.BatchNorm1D(3)
        if not training:
            layer.eval()
        return layer(x)

    def run(exe, main, startup, y):
        scope = paddle.static.Scope()
        exe.run(startup, scope=scope)
        exe.run(main, feed={"x": np.zeros((0, 3), "float32")}, fetch_list=[y], scope=scope)
    return build, run


def _redefined(shape, dtype):
    def build():
        paddle.static.data("x", [3], "float32")
        return paddle.static.data("x", shape, dtype)
    return build


def errors():
    found = {"batch_norm_train": _refused(*_batch_norm(True)),
             "batch_norm_eval": _refused(*_batch_norm(False)),
             "data_shape": _refused(_redefined([4], "float32")),
             "data_dtype": _refused(_redefined([3], "int64")),
             "data_batch": _refused(_redefined([-1, 3], "float32"))}
    return {f"errors/{k}": _text("\n".join(v)) for k, v in found.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feed, build) in CASES.items():
        record.update(run_case(name, feed, build))
        print(name, "ok")
    for name in OPTIMIZERS:
        record.update(fp16_case(name))
        print("fp16", name, "ok")
    for name in MASTERS:
        record.update(fp16_case(name, multi_precision=True))
        print("fp16 multi_precision", name, "ok")
    record.update(errors())
    np.savez_compressed(out / "numerics.npz", **record)
    print("paddle", paddle.__version__, "->", out / "numerics.npz")


if __name__ == "__main__":
    main()
