"""PaddlePaddle 2.6.2 on ``Program.random_seed``: which seed its random ops get, and what it
means for the parameters. Writes tests/fixtures/paddle26/ops/seed_refs.json, which
tests/framework/test_block.py compares with paddle_nb's own build of the same program.

    .venv-interop/bin/python interop/ops/seed_refs.py
"""
import json
import pathlib

import numpy as np
import paddle

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/paddle26/ops/seed_refs.json"


def build(startup_seed, main_seed):
    """Two same-shaped fc layers (3 -> 3 -> 3), then dropout, with the programs' seeds set."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed, startup.random_seed = main_seed, startup_seed
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3])
        y = paddle.static.nn.fc(paddle.static.nn.fc(x, 3), 3)
        paddle.nn.functional.dropout(y, 0.5)
    return main, startup


def seeds(program):
    return [[op.type, op.attr("seed"), op.attr("fix_seed") if op.has_attr("fix_seed") else None]
            for op in program.global_block().ops if op.has_attr("seed")]


def weights_equal(startup, main):
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        w = [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()
             if len(p.shape) == 2]
    return bool(np.array_equal(w[0], w[1]))


def main():
    paddle.enable_static()
    refs = {"paddle": paddle.__version__, "cases": []}
    for startup_seed, main_seed in ((90, 7), (0, 0)):
        main, startup = build(startup_seed, main_seed)
        refs["cases"].append({"startup_seed": startup_seed, "main_seed": main_seed,
                              "startup_ops": seeds(startup), "main_ops": seeds(main),
                              "same_shaped_weights_equal": weights_equal(startup, main)})
    OUT.write_text(json.dumps(refs, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
