"""PaddlePaddle 2.6.2 on integer elementwise_div (run with .venv-interop/bin/python):
int64 / int64 truncates toward zero in int64, broadcast or not. tests/executor/test_agreement.py
holds the numbers printed here."""
import numpy as np
import paddle

paddle.enable_static()
main, start = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, start):
    x = paddle.static.data("x", [2, 3], "int64")
    y = paddle.static.data("y", [3], "int64")
    y2 = paddle.static.data("y2", [2, 3], "int64")
    b = main.global_block()
    outs = []
    for yy, nm in ((y, "o1"), (y2, "o2")):
        o = b.create_var(name=nm, dtype="int64", shape=[2, 3])
        b.append_op(type="elementwise_div", inputs={"X": [x], "Y": [yy]}, outputs={"Out": [o]},
                    attrs={"axis": -1})
        outs.append(o)
    xb = paddle.static.data("xb", [2, 3], "int32")
    yb = paddle.static.data("yb", [2, 3], "int32")
    o3 = b.create_var(name="o3", dtype="int32", shape=[2, 3])
    b.append_op(type="elementwise_div", inputs={"X": [xb], "Y": [yb]}, outputs={"Out": [o3]},
                attrs={"axis": -1})
    outs.append(o3)
print(main)
exe = paddle.static.Executor(paddle.CPUPlace())
X = np.array([[8, 10, -7], [7, -9, 5]], "int64")
Y = np.array([2, 3, 2], "int64")
r = exe.run(main, feed={"x": X, "y": Y, "y2": np.array([[2, 3, 2], [-2, 4, -3]], "int64"),
                        "xb": X.astype("int32"),
                        "yb": np.array([[2, 3, 2], [-2, 4, -3]], "int32")},
            fetch_list=outs)
for a in r:
    print(a.dtype, a)
