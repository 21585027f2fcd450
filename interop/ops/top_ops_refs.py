"""PaddlePaddle 2.6.2's own numbers for the ops of paddle's top-level functions added with
them: addmm, renorm and fill_diagonal_tensor (paddle_nb/ops/{addmm,renorm,
fill_diagonal_tensor}.py), and increment's backward (an ``increment`` by -step).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/ops/top_ops_refs.py --out tests/fixtures/paddle26/ops

Each case builds a small static program with paddle's public API (``paddle.addmm``,
``paddle.renorm``, ``paddle.diagonal_scatter``, ``paddle.increment``), adds ``sum(out * w)``
and ``append_backward`` (tensor_refs.py's ``run_case``), runs it on the CPU and stores the
program, feeds and fetches in ``top_ops_refs.npz``; tests/ops/test_top_ops_paddle.py runs
each program in paddle_nb.
"""

import argparse
import pathlib
import sys

import numpy as np
import paddle

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tensor_refs import run_case   # noqa: E402  (the shared builder: feeds, loss, backward)

rng = np.random.default_rng(2611)


def normal(*shape):
    return rng.standard_normal(shape).astype("float32")


CASES = {
    "addmm": ({"i": (normal(2, 4), True), "x": (normal(2, 3), True), "y": (normal(3, 4), True)},
              lambda v: [paddle.addmm(v["i"], v["x"], v["y"], beta=0.5, alpha=2.0)]),
    "addmm_row": ({"i": (normal(4), True), "x": (normal(2, 3), True), "y": (normal(3, 4), True)},
                  lambda v: [paddle.addmm(v["i"], v["x"], v["y"])]),
    "renorm": ({"x": (normal(3, 4), True)},
               lambda v: [paddle.renorm(v["x"], 2.0, 0, 1.0), paddle.renorm(v["x"], 1.5, 1, 0.8)]),
    # 2.6 gives Y no gradient (fill_diagonal_tensor_grad writes X@GRAD only)
    "diagonal_scatter": ({"x": (normal(3, 3), True), "y": (normal(3), False),
                          "b": (normal(2, 3, 4), True), "d": (normal(2, 3), False)},
                         lambda v: [paddle.diagonal_scatter(v["x"], v["y"]),
                                    paddle.diagonal_scatter(v["b"], v["d"], offset=1, axis1=1,
                                                            axis2=2)]),
    "increment": ({"x": (normal(1), True)},
                  lambda v: [paddle.increment(v["x"], 2.0) * 3.0]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/fixtures/paddle26/ops")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    record = {}
    for name, (feeds, build) in CASES.items():
        record.update(run_case(name, feeds, build))
        print(name, "ok")
    np.savez_compressed(out / "top_ops_refs.npz", **record)
    print("paddle", paddle.__version__, "->", out / "top_ops_refs.npz")


if __name__ == "__main__":
    main()
