"""paddle_nb's generated framework_pb2 under the installed protobuf, beside PaddlePaddle's.

PaddlePaddle's own framework_pb2 registers ``paddle/fluid/framework/framework.proto``
(package ``paddle.framework.proto``) in protobuf's default descriptor pool. These tests
register a file just like it (paddle_nb's schema under PaddlePaddle's file and package
names) in a fresh interpreter, before and after importing paddle_nb, so the promise "both
import into one process, in either order" is checked without PaddlePaddle installed
(interop/check_coexist.py checks it with PaddlePaddle itself).
"""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Registers paddle_nb's schema as PaddlePaddle's generated module does: default pool, its names.
AS_PADDLE = """
from google.protobuf import descriptor_pb2, descriptor_pool
def register_as_paddle():
    import ast, pathlib
    source = pathlib.Path({module!r}).read_text()
    data = next(n.args[0].value for n in ast.walk(ast.parse(source))
                if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "AddSerializedFile")
    file = descriptor_pb2.FileDescriptorProto.FromString(data)
    todo = list(file.message_type)
    while todo:
        message = todo.pop()
        todo.extend(message.nested_type)
        for field in (f for f in message.field if f.type_name):
            field.type_name = field.type_name.replace(".paddle_nb.proto.",
                                                      ".paddle.framework.proto.")
    file.name, file.package = "paddle/fluid/framework/framework.proto", "paddle.framework.proto"
    descriptor_pool.Default().AddSerializedFile(file.SerializeToString())
"""

USE_PADDLE_NB = """
import paddle_nb as pd
from paddle_nb.proto import framework_pb2 as fp
desc = fp.OpDesc(type="set_value")
attr = desc.attrs.add(name="values", type=fp.SCALARS)
attr.scalars.add(type=fp.Scalar.FLOAT64, r=2.5)
assert fp.OpDesc.FromString(desc.SerializeToString()) == desc
with pd.program_guard(pd.Program()):
    y = pd.layers.relu(pd.layers.data("x", shape=[3]))
assert pd.Program.parse(y.block.program.serialize()).global_block().ops[-1].type == "relu"
"""


def run(body):
    module = REPO / "paddle_nb" / "proto" / "framework_pb2.py"
    code = AS_PADDLE.format(module=str(module)) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("order", ["paddle_first", "paddle_nb_first"])
def test_imports_beside_paddles_framework_proto(order):
    first, second = "register_as_paddle()", USE_PADDLE_NB
    if order == "paddle_nb_first":
        first, second = second, first
    run(first + "\n" + second + "\n")


def test_it_has_a_pool_and_names_of_its_own():
    # (protobuf 3.20's pure-Python runtime also lists generated messages in the default pool,
    # under their own names: paddle_nb.proto.*, which PaddlePaddle does not use)
    out = run("""
        from google.protobuf import descriptor_pool
        import paddle_nb.proto.framework_pb2 as fp
        try:
            descriptor_pool.Default().FindMessageTypeByName("paddle.framework.proto.OpDesc")
            print("taken")
        except KeyError:
            pass
        print(fp.OpDesc.DESCRIPTOR.full_name, fp.POOL is not descriptor_pool.Default())
    """)
    assert out.split() == ["paddle_nb.proto.OpDesc", "True"]
