"""PaddlePaddle 2.6.2 and paddle_nb in one Python process, imported in either order.

Run with the interop virtual environment, paddle_nb on the path (`make interop` does):

    PYTHONPATH=. .venv-interop/bin/python interop/check_coexist.py

Each order runs in a fresh interpreter. In each, a small static program (fc, relu, a
``set_value`` written by ``paddle.static.setitem``, softmax) is built with PaddlePaddle,
taken into paddle_nb with ``pd.Program.from_paddle`` and printed; a program built with
paddle_nb goes to PaddlePaddle with ``program.to_paddle()`` and runs there, with paddle_nb's
parameters, giving paddle_nb's numbers. It also states which protobuf and NumPy the check
ran with (the interop venv has NumPy 1.x). Exits non-zero on the first failure.
"""
import subprocess
import sys
import textwrap

CHECK = """
import numpy as np
import google.protobuf

def build_in_paddle(paddle):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        y = paddle.static.setitem(paddle.nn.functional.relu(x), (slice(None), 1), 2.5)
        paddle.nn.functional.softmax(y)
    return main

def paddle_side(paddle):
    paddle.enable_static()
    return build_in_paddle(paddle)

def paddle_nb_side(pd, paddle_program):
    theirs = pd.Program.from_paddle(paddle_program)
    ops = [op.type for op in theirs.global_block().ops]
    assert ops == ["relu", "set_value", "softmax"], ops
    assert theirs.global_block().ops[1].attr("values") == [2.5]
    assert "values=[2.5]" in str(theirs)
    ours, startup = pd.Program(), pd.Program()
    with pd.program_guard(ours, startup):
        x = pd.layers.data("x", shape=[3])
        out = pd.layers.softmax(pd.layers.fc(x, size=4, act="relu"))
    feed = {"x": np.arange(6, dtype="float32").reshape(2, 3) / 6}
    scope = pd.Scope()
    exe = pd.Executor()
    exe.run(startup, scope=scope)
    want, = exe.run(ours, feed=feed, fetch_list=[out], scope=scope)
    params = {p.name: np.asarray(scope.find_var(p.name).get_tensor())
              for p in ours.all_parameters()}
    return ours, out.name, feed, params, want

def run_in_paddle(paddle, ours, out_name, feed, params, want):
    program = ours.to_paddle()
    assert isinstance(program, paddle.static.Program), type(program)
    scope = paddle.static.Scope()
    for name, value in params.items():
        scope.var(name).get_tensor().set(value, paddle.CPUPlace())
    exe = paddle.static.Executor(paddle.CPUPlace())
    got, = exe.run(program, feed=feed, fetch_list=[out_name], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
"""

ORDERS = {
    "paddle first": """
        import paddle
        import paddle_nb as pd
        program = paddle_side(paddle)
        run_in_paddle(paddle, *paddle_nb_side(pd, program))
    """,
    "paddle_nb first": """
        import paddle_nb as pd
        import paddle
        program = paddle_side(paddle)
        run_in_paddle(paddle, *paddle_nb_side(pd, program))
    """,
}

VERSIONS = """
import numpy, google.protobuf, paddle, paddle_nb
print(f"paddle {paddle.__version__}, protobuf {google.protobuf.__version__}, "
      f"numpy {numpy.__version__}, paddle_nb from {paddle_nb.__file__}")
"""


def run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def main():
    failed = False
    for order, body in ORDERS.items():
        rc, out = run(CHECK + textwrap.dedent(body))
        print(f"{order}: {'ok' if rc == 0 else 'FAILED'}")
        if rc:
            print(textwrap.indent(out[-4000:], "    "))
            failed = True
    rc, out = run(VERSIONS)
    print(out.strip().splitlines()[-1] if out.strip() else "(no versions)")
    sys.exit(1 if failed or rc else 0)


if __name__ == "__main__":
    main()
