"""Draw the README's Dashboard picture (docs/images/dashboard.png) as a reader's browser would.

The program of tests/browser/widgets_fixture.ipynb (an RNN, its mean, one appended op) runs
three times on an executor a Dashboard follows; Chromium draws the Dashboard from its
state with its own front end (tools/static_outputs.py's Painter), block 0 selected, so the
picture shows the whole program (the step block inside its recurrent op) and the scopes of
the last run. Re-run it after a change to the drawing:

    .venv/bin/python tools/dashboard_picture.py [out.png]
"""
import base64
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import numpy as np  # noqa: E402

import paddle_nb as pd  # noqa: E402
from paddle_nb.viz import Dashboard  # noqa: E402
from static_outputs import Painter  # noqa: E402


def fixture_dashboard():
    """The fixture's program run three times (startup, main, main with an op appended)."""
    prog, startup = pd.Program(), pd.Program()
    with pd.program_guard(prog, startup):
        x = pd.layers.data("x", shape=[3, 2, 4], append_batch_size=False)
        h0 = pd.layers.fill_constant(shape=[2, 5], dtype="float32", value=0.0)
        rnn = pd.layers.StaticRNN()
        with rnn.step():
            x_t = rnn.step_input(x)
            h_pre = rnn.memory(init=h0)
            h = pd.layers.fc(input=[x_t, h_pre], size=5, act="tanh")
            rnn.update_memory(h_pre, h)
            rnn.step_output(h)
        loss = pd.layers.mean(rnn())
    scope, exe = pd.Scope(), pd.Executor(pd.CPUPlace(), seed=0)
    dash = Dashboard(prog, scope, exe)
    exe.run(startup, scope=scope)
    feed = {"x": np.random.RandomState(0).rand(3, 2, 4).astype("float32")}
    exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    with pd.program_guard(prog, startup):
        doubled = pd.layers.scale(loss, scale=2.0)
    exe.run(prog, feed=feed, fetch_list=[doubled], scope=scope)
    return dash


def main(out=ROOT / "docs" / "images" / "dashboard.png"):
    dash = fixture_dashboard()
    state = json.loads(json.dumps(dash.get_state(), default=list))
    with Painter() as painter:
        png = painter.widget_png(state, window_height=1300)   # a tall screen: a readable graph
    pathlib.Path(out).write_bytes(base64.b64decode(png))
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
