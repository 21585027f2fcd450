"""PaddlePaddle 2.6.2's behaviour for the ``paddle.static`` names that build no ops.

Run with the interop virtual environment, never with paddle_nb's:

    .venv-interop/bin/python interop/api/static_names_refs.py --out tests/fixtures/paddle26/api

One small model (``fc`` with relu under ``name_scope`` and ``device_guard``, a mean, and
``append_backward``) with set parameters. ``static_names.npz`` stores: the bytes of
``serialize_program`` / ``serialize_persistables`` (uint8), the persistables directory
``save_vars`` writes (``dir/<name>``, the files ``paddle.static.load`` and
``load_program_state`` read), the feed and the fetched output, and ``facts``: a JSON string
of what the other names return (append_backward's pairs, op types, places, InputSpec,
scopes, normalize_program's ops), the program ``static.nn.sparse_embedding`` writes, and
``ema/...``: three SGD steps with ``ExponentialMovingAverage`` (parameters trained, applied,
restored).
tests/static/test_static_names_paddle.py and test_nn_layers.py read it.
"""

import argparse
import json
import os
import pathlib
import tempfile

import numpy as np
import paddle

paddle.enable_static()
S = paddle.static
FEED = np.arange(6, dtype="float32").reshape(2, 3) / 4 - 0.5
PARAMS = {"fc_0.w_0": np.array([[0.5, -1.0], [0.25, 0.75], [-0.5, 0.1]], "float32"),
          "fc_0.b_0": np.array([0.1, -0.2], "float32")}


def build(facts):
    main, startup = S.Program(), S.Program()
    with paddle.base.unique_name.guard(), S.program_guard(main, startup):
        x = S.data("x", [None, 3], "float32")
        with S.name_scope("block"):
            y = S.nn.fc(x, 2, activation="relu")
        with S.device_guard("cpu"):
            loss = paddle.mean(y)
        facts["startup_is_default"] = S.default_startup_program() is startup
        facts["startup_ops"] = [op.type for op in S.default_startup_program().global_block().ops]
        facts["x_is_variable"] = isinstance(x, S.Variable)
        pairs = S.append_backward(loss)
        facts["append_backward"] = [[p.name, g.name] for p, g in pairs]
    facts["main_ops"] = [op.type for op in main.global_block().ops]
    return main, startup, x, y


def other_facts(facts):
    facts["cpu_places"] = [len(S.cpu_places()), len(S.cpu_places(3))]
    try:           # (this 2.6.2 is built without CUDA)
        facts["cuda_places"] = len(S.cuda_places())
    except AssertionError:
        facts["cuda_places"] = "refused"
    spec = S.InputSpec([None, 3], "float32", "x")
    facts["input_spec"] = [list(spec.shape), str(spec.dtype).split(".")[-1], spec.name,
                           spec.stop_gradient, list(spec.batch(4).shape)]
    from_numpy = S.InputSpec.from_numpy(np.zeros((2, 3), "int64"), name="a")
    facts["input_spec_numpy"] = [list(from_numpy.shape), str(from_numpy.dtype).split(".")[-1]]
    scope = paddle.base.core.Scope()
    with S.scope_guard(scope):
        inside = S.global_scope() is scope
    facts["scope_guard"] = [inside, S.global_scope() is scope]
    try:
        with S.device_guard("tpu"):
            pass
        facts["device_guard_bad"] = "accepted"
    except ValueError:
        facts["device_guard_bad"] = "ValueError"
    build, execution = S.BuildStrategy(), S.ExecutionStrategy()
    facts["strategies"] = [build.fuse_elewise_add_act_ops, build.enable_inplace,
                           execution.num_threads, execution.num_iteration_per_drop_scope]
    path = os.path.join(tempfile.mkdtemp(), "blob.bin")
    S.save_to_file(path, b"paddle bytes")
    facts["file_round_trip"] = S.load_from_file(path).decode()


def sparse_embedding_program():
    """The program ``static.nn.sparse_embedding`` writes (2.6.2's executor cannot run it: its
    table is a SelectedRows), as uint8."""
    main = S.Program()
    with paddle.base.unique_name.guard(), S.program_guard(main, S.Program()):
        S.nn.sparse_embedding(S.data("i", [3, 1], "int64"), [5, 4], padding_idx=-2)
    return np.frombuffer(main.desc.serialize_to_string(), np.uint8)


EMA_FEEDS = [np.arange(6, dtype="float32").reshape(2, 3) * (k + 1) / 10 for k in range(3)]


def ema_record():
    """Three SGD steps with ``ExponentialMovingAverage(0.9)``: the op types of the main
    program, the parameters after training, under ``apply`` and after ``restore``."""
    main, startup = S.Program(), S.Program()
    with paddle.base.unique_name.guard(), S.program_guard(main, startup):
        x = S.data("x", [None, 3], "float32")
        loss = paddle.mean(S.nn.fc(x, 2))
        paddle.optimizer.SGD(0.1).minimize(loss)
        ema = S.ExponentialMovingAverage(0.9)
        ema.update()
    record = {"ema/ops": np.array(" ".join(op.type for op in main.global_block().ops))}
    exe, scope = S.Executor(paddle.CPUPlace()), paddle.base.core.Scope()
    with S.scope_guard(scope):
        exe.run(startup)
        for name, value in PARAMS.items():
            scope.var(name).get_tensor().set(value, paddle.CPUPlace())
        for feed in EMA_FEEDS:
            exe.run(main, feed={"x": feed})

        def read(n):
            return np.array(scope.find_var(n).get_tensor())

        for name in PARAMS:
            record[f"ema/trained/{name}"] = read(name)
        with ema.apply(exe):
            for name in PARAMS:
                record[f"ema/applied/{name}"] = read(name)
        for name in PARAMS:
            record[f"ema/restored/{name}"] = read(name)
    return record


def main_(out):
    facts = {}
    main, startup, x, y = build(facts)
    exe, scope = S.Executor(paddle.CPUPlace()), paddle.base.core.Scope()
    record = {"feed/x": FEED}
    with S.scope_guard(scope):
        exe.run(startup)
        for name, value in PARAMS.items():
            scope.var(name).get_tensor().set(value, paddle.CPUPlace())
        record["fetch/y"] = exe.run(main, feed={"x": FEED}, fetch_list=[y])[0]
        compiled = S.CompiledProgram(main, build_strategy=S.BuildStrategy())
        record["fetch/y_compiled"] = exe.run(compiled, feed={"x": FEED}, fetch_list=[y])[0]
        program_bytes = S.serialize_program([x], [y], program=main)
        record["serialized/program"] = np.frombuffer(program_bytes, np.uint8)
        record["serialized/persistables"] = np.frombuffer(
            S.serialize_persistables([x], [y], exe, program=main), np.uint8)
        with tempfile.TemporaryDirectory() as tmp:
            S.io.save_vars(exe, tmp, main, predicate=lambda v: v.persistable
                                     and v.name in PARAMS)
            for name in sorted(os.listdir(tmp)):
                record[f"dir/{name}"] = np.frombuffer(
                    pathlib.Path(tmp, name).read_bytes(), np.uint8)
    normalized = S.normalize_program(main, [x], [y])
    facts["normalized_ops"] = [op.type for op in normalized.global_block().ops]
    facts["deserialized_ops"] = [op.type for op in
                                 S.deserialize_program(program_bytes).global_block().ops]
    other_facts(facts)
    record["sparse_embedding/program"] = sparse_embedding_program()
    record.update(ema_record())
    record["facts"] = np.array(json.dumps(facts))
    os.makedirs(out, exist_ok=True)
    np.savez(os.path.join(out, "static_names.npz"), **record)
    print(json.dumps(facts, indent=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/fixtures/paddle26/api")
    main_(parser.parse_args().out)
