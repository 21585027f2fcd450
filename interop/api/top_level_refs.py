"""PaddlePaddle 2.6.2's behaviour of the top-level names that build no ops (mode, dtype and
grad-mode functions, ``finfo`` / ``iinfo``, ``broadcast_shape``, ``check_shape``).

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/top_level_refs.py --out tests/fixtures/paddle26/api

It writes ``top_level.json``: each fact as PaddlePaddle reports it (numbers, names, the
exception class a bad call raises); tests/api/test_top_level.py asks paddle_nb the same.
"""

import argparse
import json
import pathlib
import warnings

import paddle

paddle.enable_static()

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
SHAPES = [([2, 1, 3], [4, 1]), ([3], [2, 3]), ([], [2]), ([1, 5], [4, 1])]


def error_of(call):
    try:
        call()
    except Exception as error:     # the class a bad call raises is the fact recorded
        return [c.__name__ for c in type(error).__mro__]
    return None


def grad_mode():
    seen = {"outside": paddle.is_grad_enabled()}
    with paddle.set_grad_enabled(True):
        seen["set_grad_enabled(True)"] = paddle.is_grad_enabled()
    with paddle.set_grad_enabled(False):
        seen["set_grad_enabled(False)"] = paddle.is_grad_enabled()
    with paddle.enable_grad():
        seen["enable_grad"] = paddle.is_grad_enabled()
    with paddle.no_grad():
        seen["no_grad"] = paddle.is_grad_enabled()

    @paddle.no_grad()
    def decorated(a):
        return a + 1
    seen["no_grad decorator"] = decorated(1)
    return seen


def param_attr_facts(pd):
    """What a ParamAttr sets on the parameters a layer makes (names, init, trainability)."""
    main, startup = pd.static.Program(), pd.static.Program()
    with pd.static.program_guard(main, startup), pd.utils.unique_name.guard():
        weight = pd.ParamAttr(name="w", initializer=pd.nn.initializer.Constant(0.5),
                              learning_rate=0.5, trainable=False)
        bias = pd.ParamAttr(initializer=pd.nn.initializer.Constant(0.25))
        pd.nn.Linear(3, 2, weight_attr=weight, bias_attr=bias)
    params = main.global_block().all_parameters()
    return {"names": [p.name for p in params],
            "trainable": [bool(p.trainable) for p in params],
            "learning_rate": [float(p.optimize_attr["learning_rate"]) for p in params],
            "startup": [[op.type, op.output("Out")[0], float(op.attr("value"))]
                        for op in startup.global_block().ops]}


def summary_nets(pd):
    """Two networks for ``paddle.summary``: a CNN (a frozen weight, BatchNorm statistics, a
    nested Sequential) and an MLP with a layer of over a thousand parameters."""
    class Net(pd.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = pd.nn.Conv2D(3, 4, 3, padding=1)
            self.bn = pd.nn.BatchNorm2D(4)
            self.pool = pd.nn.MaxPool2D(2)
            self.seq = pd.nn.Sequential(pd.nn.Flatten(), pd.nn.Linear(64, 10))
            self.seq[1].weight.trainable = False

        def forward(self, x):
            return self.seq(self.pool(pd.nn.functional.relu(self.bn(self.conv(x)))))

    mlp = [lambda: pd.nn.Sequential(pd.nn.Linear(3, 4), pd.nn.ReLU(), pd.nn.Linear(4, 1200)),
           (None, 3)]
    return {"cnn": [Net, (2, 3, 8, 8)], "mlp": mlp}


def summary_facts(pd):
    import contextlib
    import io
    found = {}
    for key, (make, size) in summary_nets(pd).items():
        main, startup = pd.static.Program(), pd.static.Program()
        text = io.StringIO()
        with pd.static.program_guard(main, startup), pd.utils.unique_name.guard(), \
                contextlib.redirect_stdout(text):
            result = pd.summary(make(), size)
        found[key] = {"text": text.getvalue(), "result": {k: int(v) for k, v in result.items()}}
    return found


def flops_nets(pd):
    """Networks for ``paddle.flops``: every layer kind its counting rules cover, and some
    it counts as zero (max pooling, Flatten, LayerNorm, BatchNorm1D, PReLU, Sigmoid)."""
    nn = pd.nn
    return {
        "cnn": [lambda: nn.Sequential(
            nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
            nn.Flatten(), nn.Linear(64, 10), nn.Dropout(0.5), nn.Linear(10, 3)), [2, 3, 8, 8]],
        "mixed": [lambda: nn.Sequential(
            nn.Conv2D(4, 4, 3, groups=2, bias_attr=False), nn.ReLU6(), nn.LeakyReLU(),
            nn.AdaptiveAvgPool2D(2), nn.AvgPool2D(2), nn.Flatten(), nn.Linear(4, 3),
            nn.LayerNorm(3), nn.BatchNorm1D(3), nn.PReLU(), nn.Sigmoid()), [1, 4, 6, 6]],
    }


def flops_facts(pd):
    """``paddle.flops`` runs in dynamic mode only in 2.6 (a static network's buffers stop
    it): its counts and printout for the same networks, from dynamic mode."""
    import contextlib
    import io
    found = {}
    pd.disable_static()
    try:
        for key, (make, size) in flops_nets(pd).items():
            for detail in (False, True):
                text = io.StringIO()
                with pd.utils.unique_name.guard(), contextlib.redirect_stdout(text):
                    count = pd.flops(make(), size, print_detail=detail)
                found[f"{key}/{detail}"] = {"text": text.getvalue(), "flops": int(count)}
    finally:
        pd.enable_static()
    return found


def facts():
    out = {
        "finfo": {d: {k: (str(v) if k == "dtype" else v) for k, v in (
            (a, getattr(paddle.finfo(getattr(paddle, d)), a)) for a in
            ("bits", "eps", "min", "max", "tiny", "smallest_normal", "resolution", "dtype"))}
            for d in FLOATS},
        "iinfo": {d: {a: (str(getattr(paddle.iinfo(getattr(paddle, d)), a)) if a == "dtype"
                          else getattr(paddle.iinfo(getattr(paddle, d)), a))
                      for a in ("bits", "min", "max", "dtype")} for d in INTS},
        "iinfo_float_error": error_of(lambda: paddle.iinfo(paddle.float32)),
        "dtype_isinstance": {d: isinstance(getattr(paddle, d), paddle.dtype)
                             for d in FLOATS + INTS + ["bool"]},
        "grad_mode": grad_mode(),
        "broadcast_shape": [[a, b, paddle.broadcast_shape(a, b)] for a, b in SHAPES],
        "broadcast_shape_error": error_of(lambda: paddle.broadcast_shape([2, 3], [4])),
        "in_dynamic_mode": paddle.in_dynamic_mode(),
        "enable_static": paddle.enable_static(),
        "default_dtype": paddle.get_default_dtype(),
    }
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        shape_t = paddle.static.data("s", [2], "int64")
        bad_t = paddle.static.data("f", [2], "float32")
        out["check_shape"] = {
            "list": error_of(lambda: paddle.check_shape([2, 3], "op")),
            "tensor": error_of(lambda: paddle.check_shape(shape_t, "op")),
            "tensor_in_list": error_of(lambda: paddle.check_shape([2, shape_t], "op")),
            "string": error_of(lambda: paddle.check_shape("2,3", "op")),
            "float_element": error_of(lambda: paddle.check_shape([2.0, 3], "op")),
            "float_tensor": error_of(lambda: paddle.check_shape(bad_t, "op")),
        }
    out["param_attr"] = param_attr_facts(paddle)
    out["summary"] = summary_facts(paddle)
    out["flops"] = flops_facts(paddle)
    paddle.set_default_dtype("float64")
    out["default_dtype_after_set"] = paddle.get_default_dtype()
    out["set_default_dtype_int_error"] = error_of(lambda: paddle.set_default_dtype("int32"))
    paddle.set_default_dtype("float32")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = facts()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "top_level.json").write_text(json.dumps(found, indent=1) + "\n")
    print(f"wrote {args.out / 'top_level.json'}")


if __name__ == "__main__":
    main()
