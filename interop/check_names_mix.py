"""What names PaddlePaddle 2.6.2 gives when a script mixes its layer families.

PaddlePaddle 2.6 has no ``paddle.fluid`` (so no Fluid-1.8 ``layers``); its static layers
(``paddle.static.nn``), its ``paddle.nn`` layers and its tensor functions all draw their names
from one process-wide generator, so a mix never gives two variables one name. Run with the
interop python; it prints each program's variable and parameter names and checks they are
distinct (the paddle_nb side is tests/framework/test_mixed_names.py).
"""

import paddle
import paddle.nn.functional as F

paddle.enable_static()


def build(title, body):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4], "float32")
        outs = body(x)
    names = [v.name for v in main.list_vars()]
    assert len(names) == len(set(names)), names
    print(title, [o.name for o in outs], [p.name for p in main.all_parameters()])


build("static.nn.fc, nn.Linear, static.nn.fc:",
      lambda x: [paddle.static.nn.fc(x, 3), paddle.nn.Linear(4, 3)(x), paddle.static.nn.fc(x, 3)])
build("full, full, fill_constant-like full:",
      lambda x: [paddle.full([2], 1.0), paddle.full([2], 2.0), paddle.full([2], 3, "int64")])
build("F.relu, nn.ReLU, F.relu:",
      lambda x: [F.relu(x), paddle.nn.ReLU()(x), F.relu(x)])
build("static.nn.conv2d, nn.Conv2D:",
      lambda x: [paddle.static.nn.conv2d(paddle.reshape(x, [2, 1, 2, 2]), 2, 1),
                 paddle.nn.Conv2D(1, 2, 1)(paddle.reshape(x, [2, 1, 2, 2]))])
