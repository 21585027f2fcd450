"""paddle.static.py_func: a Python function as an op, forward and backward, as in 2.6.2.

PaddlePaddle 2.6.2 ran the script of ``_build`` (recorded below): its program holds a
``py_func`` op (X -> Out, the function's number and its backward one) and, after
``gradients``, a second ``py_func`` that calls the backward function with the input, the
output and the output's gradient; it fetched these numbers.
"""

import numpy as np

import paddle_nb as paddle

COVERED = ["paddle.static.py_func", "paddle.static.nn.py_func"]

# PaddlePaddle 2.6.2's two py_func ops: (inputs, outputs, backward id == -1?)
PADDLE_OPS = [({"X": ["x"]}, {"Out": ["y"]}, False),
              ({"X": ["x", "y", "y@GRAD"]}, {"Out": ["x@GRAD"]}, True)]
PADDLE_Y = [[0.49963048, 0.6139206, 0.539013], [0.4966755, 0.40000492, 0.5688994]]
PADDLE_DX = [[0.7498148, 0.7650697, 0.7648217], [0.7483046, 0.6720051, 0.76955414]]


def _build():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        out = main.current_block().create_var(name="y", dtype="float32", shape=[2, 3])
        y = paddle.static.py_func(lambda a: np.tanh(a), x, out,
                                  backward_func=lambda a, b, db: db * (1 - np.square(b)))
        loss = paddle.sum(y * y)
        grad = paddle.static.gradients([loss], [x])[0]
    return main, startup, y, grad


def test_py_func_builds_and_computes_what_paddle_does():
    main, startup, y, grad = _build()
    ops = [op for op in main.global_block().ops if op.type == "py_func"]
    assert [(op.inputs, op.outputs, op.attr("backward_callable_id") == -1) for op in ops] \
        == PADDLE_OPS
    assert ops[1].attr("forward_callable_id") == ops[0].attr("backward_callable_id")
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.Scope()
    exe.run(startup, scope=scope)
    x = np.random.RandomState(0).rand(2, 3).astype("float32")
    got_y, got_dx = exe.run(main, feed={"x": x}, fetch_list=[y, grad], scope=scope)
    np.testing.assert_allclose(got_y, PADDLE_Y, rtol=1e-6)
    np.testing.assert_allclose(got_dx, PADDLE_DX, rtol=1e-6)


def test_static_nn_py_func_is_the_same_function():
    assert paddle.static.nn.py_func is paddle.static.py_func
