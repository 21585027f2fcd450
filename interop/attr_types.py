"""A program per attribute type of PaddlePaddle 2.6.2's framework.proto, as PaddlePaddle writes it.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/attr_types.py --out tests/fixtures/paddle26/attr_types.npz

Where a public 2.6 API call writes an op holding an attribute of the type (``paddle.argmax``
writes ``axis`` as LONG, ``paddle.static.setitem`` writes ``set_value``'s ``values`` as
SCALARS, ``paddle.static.nn.cond`` a BLOCK), the program is the one it builds. No op 2.6.2
appends from Python holds a SCALAR, VAR, VARS, BOOLEANS, BLOCKS or FLOAT64 attribute (its op
protos declare SCALAR, VAR and VARS on no op at all), and the one FLOAT64S it writes
(``assign_value``'s ``fp64_values``) is empty; so for those the op is written with
PaddlePaddle's own generated messages into a program PaddlePaddle built, and PaddlePaddle
parses the result back (``Program.parse_from_string``) before it is kept.

The .npz holds, per AttrType name: ``<TYPE>/program`` (the serialized ProgramDesc, uint8),
``<TYPE>/op`` (the op type holding it), ``<TYPE>/attr`` (its name) and ``<TYPE>/value``
(its value as PaddlePaddle's Python messages read it, as JSON text). tests/proto/
test_attr_types.py parses each with paddle_nb and checks the value, the printing and a
byte-exact round trip.
"""

import argparse
import json
import pathlib

import numpy as np
import paddle
from paddle.base.proto import framework_pb2 as fp

paddle.enable_static()


def built(build):
    """The ProgramDesc (PaddlePaddle's message) of the program ``build(x)`` makes."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        build(paddle.static.data("x", [2, 3], "float32"))
    return fp.ProgramDesc.FromString(main.desc.serialize_to_string())


def setitem(x):
    paddle.static.setitem(x * 1.0, (slice(None), 1), 2.5)


def cond(x):
    paddle.static.nn.cond(paddle.sum(x) > 0, lambda: x + 1, lambda: x - 1)


# AttrType -> the public call whose program holds one
BUILT = {
    "INT": lambda x: paddle.concat([x, x], axis=1),
    "FLOAT": lambda x: paddle.scale(x, 2.0),
    "STRING": lambda x: paddle.nn.functional.conv2d(
        paddle.reshape(x, [1, 1, 2, 3]), paddle.ones([1, 1, 1, 1])),
    "INTS": lambda x: paddle.transpose(x, [1, 0]),
    "FLOATS": lambda x: paddle.assign(np.array([1.5, -2.0], "float32")),
    "STRINGS": lambda x: paddle.nn.functional.relu(x),         # op_callstack
    "FLOAT64S": lambda x: paddle.assign(np.array([0.1, 2.0], "float64")),   # written empty
    "BOOLEAN": lambda x: paddle.matmul(x, x, transpose_y=True),
    "BLOCK": cond,
    "LONG": lambda x: paddle.argmax(x, axis=1),
    "LONGS": lambda x: paddle.roll(x, shifts=[1], axis=[0]),
    "SCALARS": setitem,
}


def scalar(message, value):
    if isinstance(value, bool):
        message.type, message.b = fp.Scalar.BOOLEAN, value
    elif isinstance(value, int):
        message.type, message.i = fp.Scalar.LONG, value
    elif isinstance(value, complex):
        message.type, message.c.r, message.c.i = fp.Scalar.COMPLEX128, value.real, value.imag
    else:
        message.type, message.r = fp.Scalar.FLOAT64, value


def set_scalar(attr):
    scalar(attr.scalar, 0.25)


def set_scalars(attr):
    for value in (True, 7, -1.5, complex(1.0, -2.0)):
        scalar(attr.scalars.add(), value)


# AttrType -> (op type, attribute name, how to fill the attribute), for the types no public
# call writes: the op is appended to a program PaddlePaddle built, with its own messages
WRITTEN = {
    "SCALAR": ("full_with_tensor", "value", set_scalar),
    "SCALARS": ("set_value", "values", set_scalars),
    "VAR": ("custom_op", "var", lambda a: setattr(a, "var_name", "x")),
    "VARS": ("custom_op", "vars", lambda a: a.vars_name.extend(["x", "x"])),
    "BOOLEANS": ("share_buffer", "share_dims_and_dtype", lambda a: a.bools.extend([True, False])),
    "BLOCKS": ("pylayer", "blocks", lambda a: a.blocks_idx.extend([1, 2])),
    "FLOAT64": ("memory_efficient_attention", "dropout_p", lambda a: setattr(a, "float64", 0.125)),
    "FLOAT64S": ("assign_value", "fp64_values", lambda a: a.float64s.extend([0.1, -2.0])),
}


def written(type_name, op_type, attr_name, fill):
    desc = built(lambda x: paddle.scale(x, 2.0))
    if type_name == "BLOCKS":                 # two sub-blocks for the attribute to name
        for idx in (1, 2):
            block = desc.blocks.add()
            block.idx, block.parent_idx = idx, 0
    op = desc.blocks[0].ops.add()
    op.type = op_type
    op.inputs.add(parameter="X", arguments=["x"])
    attr = op.attrs.add()
    attr.name, attr.type = attr_name, fp.AttrType.Value(type_name)
    fill(attr)
    data = desc.SerializeToString()
    paddle.static.Program.parse_from_string(data)        # PaddlePaddle reads it
    return fp.ProgramDesc.FromString(data)


def python_value(attr):
    """The attribute's value as JSON-able Python (a complex number as [re, im])."""
    def one(s):
        return {fp.Scalar.BOOLEAN: lambda: s.b, fp.Scalar.LONG: lambda: s.i,
                fp.Scalar.FLOAT64: lambda: s.r,
                fp.Scalar.COMPLEX128: lambda: [s.c.r, s.c.i]}[s.type]()
    field = {"INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints", "FLOATS": "floats",
             "STRINGS": "strings", "BOOLEAN": "b", "BOOLEANS": "bools", "BLOCK": "block_idx",
             "LONG": "l", "BLOCKS": "blocks_idx", "LONGS": "longs", "FLOAT64S": "float64s",
             "VAR": "var_name", "VARS": "vars_name", "FLOAT64": "float64"}
    name = fp.AttrType.Name(attr.type)
    if name == "SCALAR":
        return one(attr.scalar)
    if name == "SCALARS":
        return [one(s) for s in attr.scalars]
    value = getattr(attr, field[name])
    return value if isinstance(value, (int, float, str)) else list(value)


def find(desc, type_name, op_type=None):
    for block in desc.blocks:
        for op in block.ops:
            for attr in op.attrs:
                if fp.AttrType.Name(attr.type) == type_name and op.type == (op_type or op.type):
                    return op, attr
    raise SystemExit(f"no attribute of type {type_name} in the program")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    arrays = {}
    cases = [(t, built(b), None) for t, b in BUILT.items()]
    cases += [(f"{t}_written" if t in BUILT else t, written(t, *spec), spec[0])
              for t, spec in WRITTEN.items()]
    for key, desc, op_type in cases:
        op, attr = find(desc, key.replace("_written", ""), op_type)
        arrays[f"{key}/program"] = np.frombuffer(desc.SerializeToString(), np.uint8)
        arrays[f"{key}/op"] = np.array(op.type)
        arrays[f"{key}/attr"] = np.array(attr.name)
        arrays[f"{key}/value"] = np.array(json.dumps(python_value(attr)))
        print(f"{key:18} {op.type}.{attr.name} = {python_value(attr)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
