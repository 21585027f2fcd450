"""PaddlePaddle 2.6.2 keeps paddle_nb's preamble mark, and runs what carries it.

Run with the interop virtual environment, paddle_nb on the path:

    PYTHONPATH=. .venv-interop/bin/python interop/check_initializes_once.py [--out DIR]

With ``--out`` it also writes PaddlePaddle's own serialization of the program it cloned
(``DIR/initializes_once.pb``), which tests/framework/test_initializes_once.py reads back.

A program built by paddle_nb without a startup program marks its initializers with the op
attribute ``initializes_once`` (``paddle_nb/framework/program.py``). PaddlePaddle 2.6.2 does
not declare it, so to PaddlePaddle it is an extra attribute. This checks that PaddlePaddle
parses such a program, keeps the attribute through ``clone`` and ``serialize_to_string``,
and runs it (every op on every run, as PaddlePaddle runs any program), and that an inference
model paddle_nb saves from such a program (which holds no initializer) loads and runs there
with paddle_nb's values. Exits non-zero on the first failure.
"""
import sys
import tempfile

import numpy as np
import paddle

import paddle_nb as pd
from paddle_nb.framework.program import INITIALIZES_ONCE


def build():
    prog = pd.Program()
    with pd.program_guard(prog):
        x = pd.layers.data("x", shape=[3])
        h = pd.layers.fc(x, 4, act="relu")
        loss = pd.layers.mean(h)
        pd.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return prog, h, loss


def marks(program):
    return [op.desc.has_attr(INITIALIZES_ONCE) and op.desc.attr(INITIALIZES_ONCE)
            for op in program.global_block().ops]


def main(argv=None):
    args = argv if argv is not None else sys.argv[1:]
    out = args[args.index("--out") + 1] if "--out" in args else None
    paddle.enable_static()
    prog, h, loss = build()
    ours = [prog.initializes_once(op) for op in prog.global_block().ops]
    assert sum(ours) >= 3, ours
    theirs = paddle.static.Program.parse_from_string(prog.serialize())
    assert marks(theirs) == ours, (marks(theirs), ours)
    again = paddle.static.Program.parse_from_string(theirs.desc.serialize_to_string())
    assert marks(again) == ours and marks(theirs.clone()) == ours
    assert pd.Program.parse(theirs.desc.serialize_to_string()).preamble_length() == sum(ours)
    if out is not None:        # (without the call sites: they name this machine's files)
        kept = theirs.clone()
        for op in kept.global_block().ops:
            op.desc.remove_attr("op_callstack")
        with open(f"{out}/initializes_once.pb", "wb") as f:
            f.write(kept.desc.serialize_to_string())
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {"x": np.ones((2, 3), "float32")}
    with paddle.static.scope_guard(paddle.static.Scope()):
        for _ in range(2):
            value, = exe.run(theirs, feed=feed, fetch_list=[loss.name])
            assert np.isfinite(value).all() and value.shape == (), value

    scope, nb_exe = pd.Scope(), pd.Executor()
    nb_exe.run(prog, feed=feed, scope=scope)
    expected, = nb_exe.run(prog.clone(for_test=True), feed=feed, fetch_list=[h], scope=scope)
    with tempfile.TemporaryDirectory() as tmp:
        pd.io.save_inference_model(tmp, ["x"], [h], nb_exe, main_program=prog, scope=scope)
        with paddle.static.scope_guard(paddle.static.Scope()):
            program, feeds, fetches = paddle.static.load_inference_model(
                tmp, exe, model_filename="__model__", params_filename=None)
            assert not any(marks(program)), marks(program)
            got, = exe.run(program, feed=feed, fetch_list=fetches)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    print(f"ok: {sum(ours)} marked initializers kept by PaddlePaddle {paddle.__version__}; "
          "the program runs there, and the inference model gives paddle_nb's values")


if __name__ == "__main__":
    sys.exit(main())
