"""save_inference_model writes ops as PaddlePaddle 2.6.2 writes them (paddle_nb/io/export26.py).

Each case builds the op that ``interop/ops/export_refs.py`` built with PaddlePaddle 2.6.2's
own API (recorded in tests/fixtures/paddle26/export/op_forms.json), runs ``normalize`` over
paddle_nb's program and checks the op's slots and attributes against PaddlePaddle's. Then:
the user's program is unchanged by a save, and the StaticRNN / IfElse / cond / While models,
rewritten at save time, run back in paddle_nb to the outputs of the programs they came from.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.io.export26 import normalize
from paddle_nb.io.inference import inference_program
from paddle_nb.layers.helper import LayerHelper
from paddle_nb.proto import framework_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFS = json.loads((ROOT / "tests/fixtures/paddle26/export/op_forms.json").read_text())
L = pd.layers
sys.path.insert(0, str(ROOT / "interop"))
import nb_models  # noqa: E402  (interop/ is not a package)
from op_cases26 import OP_FORM_CASES  # noqa: E402


def _op(op_type, inputs, attrs=None, **outputs):
    """Append ``op_type`` writing ``outputs[slot]`` new variables per output slot (one "Out"
    when none is given); the first is returned."""
    helper = LayerHelper(op_type)
    names = {slot: [helper.tmp_name() for _ in range(n)]
             for slot, n in (outputs or {"Out": 1}).items()}
    helper.append(op_type, inputs, names, attrs)
    return helper.block.var(next(iter(names.values()))[0])


def nb_cases(x, y, ids, img):
    """The same ops as interop/ops/export_refs.py's cases, built with paddle_nb."""
    topk = lambda: L.accuracy(L.softmax(L.reshape(x, [-1, 24])), ids)     # noqa: E731
    cases = {
        "split_num_negative_axis": lambda: L.split(x, 2, dim=-1),
        "split_sections": lambda: L.split(x, [1, 3, 2], dim=1),
        "split_sections_minus_one": lambda: L.split(x, [1, -1, 2], dim=-2),
        "concat_negative_axis": lambda: L.concat([x, y], axis=-1),
        "stack_negative_axis": lambda: L.stack([x, y], axis=-1),
        "slice_negative_axes": lambda: L.slice(x, axes=[1, -1], starts=[1, 0], ends=[-1, 3]),
        "unsqueeze2_negative_axis": lambda: _op("unsqueeze2", {"X": x}, {"axes": [-1]},
                                                Out=1, XShape=1),
        "squeeze2_negative_axis": lambda: _op("squeeze2", {"X": x}, {"axes": [-1]},
                                              Out=1, XShape=1),
        "softmax_negative_axis": lambda: L.softmax(x, axis=-1),
        "log_softmax_negative_axis": lambda: _op("log_softmax", {"X": x}, {"axis": -1}),
        "reduce_sum_negative_dim": lambda: L.reduce_sum(x, dim=-1),
        "reduce_mean_keep_dim": lambda: L.reduce_mean(x, dim=[1, 2], keep_dim=True),
        "reduce_max_all": lambda: L.reduce_max(x),
        "reduce_min_dim": lambda: L.reduce_min(x, dim=1),
        "arg_max_negative_axis": lambda: L.argmax(x, axis=-1),
        "transpose2": lambda: L.transpose(x, [0, 2, 1]),
        "reshape2": lambda: L.reshape(x, [0, -1]),
        "assign": lambda: L.assign(x),
        "cast": lambda: L.cast(x, "int32"),
        "scale": lambda: L.scale(x, 2.0, bias=1.0, bias_after_scale=False),
        "mean": lambda: L.mean(x),
        "sum": lambda: L.sums([x, y]),
        "top_k": lambda: _op("top_k", {"X": x}, {"k": 2}, Out=1, Indices=1),
        "lookup_table_v2": lambda: L.embedding(ids, size=[10, 4]),
        "fill_constant": lambda: L.fill_constant([2, 3], "float32", 1.5),
        "fill_constant_int": lambda: L.fill_constant([1], "int64", 3),
        "conv2d": lambda: L.conv2d(img, 6, 3, stride=2, padding=1, groups=2, bias_attr=False),
        "pool2d_max": lambda: L.pool2d(img, 2, "max", pool_stride=2),
        "pool2d_avg": lambda: L.pool2d(img, 2, "avg", pool_stride=1),
        "batch_norm": lambda: L.batch_norm(img, is_test=True),
        "dropout": lambda: L.dropout(x, 0.3, is_test=True),
        "matmul_v2": lambda: _op("matmul_v2", {"X": x, "Y": y}, {"trans_y": True}),
        "matmul": lambda: L.matmul(x, y, transpose_y=True, alpha=0.5),
        "mul": lambda: _op("mul", {"X": x, "Y": L.fill_constant([4, 3], "float32", 0.5)},
                           {"x_num_col_dims": 2}),
        "logical_and": lambda: L.logical_and(L.greater_than(x, y), L.greater_than(y, x)),
        "logical_or": lambda: L.logical_or(L.greater_than(x, y), L.greater_than(y, x)),
        "logical_xor": lambda: _op("logical_xor", {"X": L.greater_than(x, y),
                                                   "Y": L.greater_than(y, x)}),
        "logical_not": lambda: L.logical_not(L.greater_than(x, y)),
        "increment": lambda: L.increment(L.fill_constant([1], "int64", 0)),
        "fill_zeros_like": lambda: _op("fill_zeros_like", {"X": x}),
        "fill_constant_batch_size_like": lambda: _op(
            "fill_constant_batch_size_like", {"Input": x},
            {"shape": [-1, 3], "value": 2.5, "dtype": "float32"}),
        "accuracy": topk,
        "cross_entropy": lambda: L.cross_entropy(L.softmax(L.reshape(x, [-1, 24])), ids),
        "softmax_with_cross_entropy": lambda: L.softmax_with_cross_entropy(
            L.reshape(x, [-1, 24]), ids),
    }
    cases.update({"feed": lambda: L.relu(x), "fetch": lambda: L.relu(x),
                  "select_output": lambda: _op(
                      "select_output", {"X": x, "Mask": L.fill_constant([1], "int32", 1)},
                      Out=2),
                  "conditional_block": lambda: _cond(x), "select_input": lambda: _cond(x),
                  "while": lambda: _while(), "split_lod_tensor": lambda: _ifelse(x),
                  "merge_lod_tensor": lambda: _ifelse(x)})
    feeds = {"x": x, "y": y, "ids": ids, "img": img}
    for name, spec in OP_FORM_CASES.items():
        cases[name] = lambda spec=spec: _from_spec(feeds, *spec)
    for op_type in ("elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
                    "elementwise_max", "elementwise_min", "elementwise_pow"):
        cases[op_type] = lambda op_type=op_type: getattr(L, op_type)(x, y, axis=-1)
    for op_type in ("less_than", "less_equal", "greater_than", "greater_equal", "equal",
                    "not_equal"):
        cases[op_type] = lambda op_type=op_type: _op(op_type, {"X": x, "Y": y})
    for op_type in ("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "square", "abs", "sign"):
        cases[op_type] = lambda op_type=op_type: _op(op_type, {"X": x})
    return cases


def _from_spec(feeds, op_type, inputs, outputs, attrs):
    """An op of interop/op_cases26.py: feeds by name, constants by fill_constant."""
    def var(spec):
        return feeds[spec] if isinstance(spec, str) else L.fill_constant(*spec)
    ins = {slot: [var(s) for s in spec] if isinstance(spec, list) else var(spec)
           for slot, spec in inputs.items()}
    return _op(op_type, ins, attrs, **outputs)


def _cond(x):
    return L.cond(L.greater_than(L.reduce_sum(x), L.fill_constant([1], "float32", 0.0)),
                  lambda: L.scale(x, 2.0), lambda: L.scale(x, -1.0))


def _while():
    i, n = L.fill_constant([1], "int64", 0), L.fill_constant([1], "int64", 3)
    c = L.less_than(i, n)
    with L.While(c).block():
        L.increment(i)
        L.less_than(i, n, cond=c)


def _ifelse(x):
    rows = L.reshape(x, [-1, 24])
    ie = L.IfElse(L.greater_than(L.reduce_sum(rows, dim=1, keep_dim=True),
                                 L.fill_constant([1], "float32", 0.0)))
    with ie.true_block():
        ie.output(L.scale(ie.input(rows), 2.0))
    with ie.false_block():
        ie.output(ie.input(rows))
    return ie()


# Ops whose slots hold what the sub-block captures: their number of variables differs with
# the body, so only the slot names are compared.
CAPTURING = {"conditional_block", "while"}
# Attributes paddle_nb keeps that PaddlePaddle 2.6 does not declare (and ignores, as
# check_both_ways shows): While's guards against a loop that never ends (count, bytes).
KEPT = {"while": {"max_iterations", "max_step_scope_bytes"}}


def _normalized_op(name, op_type):
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x, y = L.data("x", shape=[6, 4]), L.data("y", shape=[6, 4])
        ids = L.data("ids", shape=[1], dtype="int64")
        img = L.data("img", shape=[4, 9, 9])
        out = nb_cases(x, y, ids, img)[name]()
    if op_type in ("feed", "fetch"):       # added by save_inference_model
        main = inference_program(main, ["x"], [out.name])
    desc = normalize(main.desc)
    return next(op for op in desc.blocks[0].ops if op.type == op_type)


def _form(op):
    """An OpDesc as export_refs.py records one."""
    from paddle_nb.framework.attrs import read_attr
    T = framework_pb2.AttrType
    return {"type": op.type,
            "inputs": {v.parameter: len(v.arguments) for v in op.inputs},
            "outputs": {v.parameter: len(v.arguments) for v in op.outputs},
            "attrs": {a.name: read_attr(a) for a in op.attrs
                      if a.name != "op_callstack" and a.type not in (T.BLOCK, T.BLOCKS)}}


def _same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return not isinstance(a, (list, str)) and np.isclose(a, b, rtol=1e-6)
    return a == b


def test_every_case_is_built_both_ways():
    assert sorted(nb_cases(None, None, None, None)) == sorted(REFS["forms"])


@pytest.mark.parametrize("name", sorted(REFS["forms"]))
def test_op_is_written_as_paddle26_writes_it(name):
    want = REFS["forms"][name]
    got = _form(_normalized_op(name, want["type"]))
    if want["type"] in CAPTURING:
        for form in (got, want):
            form["inputs"], form["outputs"] = sorted(form["inputs"]), sorted(form["outputs"])
    assert got["inputs"] == want["inputs"], "input slots (name: number of variables)"
    assert got["outputs"] == want["outputs"], "output slots"
    missing = set(want["attrs"]) - set(got["attrs"])
    extra = set(got["attrs"]) - set(want["attrs"]) - KEPT.get(want["type"], set())
    assert not missing and not extra, f"attributes 2.6 writes and paddle_nb does not: " \
        f"{sorted(missing)}; the other way: {sorted(extra)}"
    differ = {k: (got["attrs"][k], v) for k, v in want["attrs"].items()
              if not _same(got["attrs"][k], v)}
    assert not differ, f"attributes (paddle_nb, PaddlePaddle 2.6.2): {differ}"


def test_control_flow_ops_written_are_registered_in_paddle26():
    """What 2.6.2 registers (export_refs.py asked it): all but rnn_memory_helper, rewritten."""
    registered = REFS["registered"]
    assert not registered["rnn_memory_helper"]
    assert all(v for k, v in registered.items() if k != "rnn_memory_helper")


def _build(build):
    main, startup = pd.Program(), pd.Program()
    with pd.program_guard(main, startup):
        feeds, targets, runs = build(pd, np.random.default_rng(3))
    exe, scope = pd.Executor(pd.CPUPlace(), seed=3), pd.Scope()
    exe.run(startup, scope=scope)
    return main, feeds, targets, runs, exe, scope


@pytest.mark.parametrize("name", ["static_rnn", "seed_rnn", "ifelse", "ifelse_layers",
                                  "cond_model", "select_ops", "while_model", "tensor_ops",
                                  "activations", "conv_norms", "index_ops", "rnn_op"])
def test_saved_model_runs_back_to_the_same_outputs(name, tmp_path):
    """The rewritten model (assign for rnn_memory_helper, positive axes...) runs in paddle_nb
    to what the program it came from computes; the user's program is not changed by saving."""
    main, feeds, targets, runs, exe, scope = _build(nb_models.MODELS[name])
    before = main.serialize()
    want = [exe.run(main.clone(for_test=True), feed=feed, fetch_list=[t.name for t in targets],
                    scope=scope) for feed in runs]
    pd.io.save_inference_model(str(tmp_path / name), [v.name for v in feeds], targets, exe,
                               main_program=main, scope=scope, prefix=True)
    assert main.serialize() == before, "save_inference_model changed the user's program"
    program, feed_names, fetches = pd.io.load_inference_model(str(tmp_path / name), exe,
                                                              scope=(loaded := pd.Scope()))
    types = {op.type for b in program.blocks for op in b.ops}
    assert "rnn_memory_helper" not in types
    assert types <= set(REFS["registered"]) | _paddle26_forward_types(), types
    for feed, outputs in zip(runs, want):
        got = exe.run(program, feed=feed, fetch_list=fetches, scope=loaded)
        for g, w in zip(got, outputs):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


def _paddle26_forward_types():
    """The op types the captured forms show 2.6 writing, plus its executor ops."""
    return {f["type"] for f in REFS["forms"].values()} | {"feed", "fetch"}


def test_normalize_does_not_change_its_argument():
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        L.split(L.data("x", shape=[6, 4]), 2, dim=-1)
    before = main.desc.SerializeToString()
    out = normalize(main.desc)
    assert main.desc.SerializeToString() == before
    assert [a.i for a in out.blocks[0].ops[0].attrs if a.name == "axis"] == [2]


def test_split_axis_inside_a_sub_block_uses_the_outer_variable_rank():
    """A split in a While body of an outer variable: its rank comes from the parent block."""
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        x = L.data("x", shape=[6, 4])
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", 2)
        c = L.less_than(i, n)
        loop = L.While(c)
        with loop.block():
            a, _ = L.split(x, 2, dim=-1)
            L.assign(L.concat([a, a], axis=-1), x)
            L.increment(i)
            L.less_than(i, n, cond=c)
    out = normalize(main.desc)
    split = next(op for b in out.blocks for op in b.ops if op.type == "split")
    assert [a.i for a in split.attrs if a.name == "axis"] == [2]


def test_model_without_parameters_gets_no_params_file(tmp_path):
    """As PaddlePaddle writes it: Paddle Inference refuses an empty .pdiparams. An older
    model's params file under the same prefix goes; the directory layout writes none."""
    main, feeds, targets, runs, exe, scope = _build(nb_models.tensor_ops)
    prefix = tmp_path / "shapes"
    pathlib.Path(f"{prefix}.pdiparams").write_bytes(b"an older model's parameters")
    save = dict(feeded_var_names=["x"], target_vars=targets, executor=exe, main_program=main,
                scope=scope)
    pd.io.save_inference_model(str(prefix), prefix=True, **save)
    pd.io.save_inference_model(str(tmp_path / "dir"), model_filename="m.pdmodel",
                               params_filename="m.pdiparams", **save)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "shapes.pdmodel"]
    assert sorted(p.name for p in (tmp_path / "dir").iterdir()) == ["m.pdmodel"]
    for path, kwargs in ((str(prefix), {}), (str(tmp_path / "dir"),
                                             {"model_filename": "m.pdmodel",
                                              "params_filename": "m.pdiparams"})):
        program, _, fetches = pd.io.load_inference_model(path, exe, scope=pd.Scope(), **kwargs)
        got = exe.run(program, feed=runs[0], fetch_list=fetches, scope=pd.Scope())
        assert len(got) == len(targets)


def test_version_stamps_are_paddle26s():
    """OP_VERSIONS lists every op type paddle_nb registers that 2.6.2 gives a version, with
    2.6.2's number; a normalized program carries 2.6.2's version and those of its op types."""
    from paddle_nb.io.export26 import OP_VERSIONS, PROGRAM_VERSION
    from paddle_nb.ops.machinery import registry
    ours = {t: v for t, v in REFS["op_versions"].items() if registry.exists(t)}
    assert OP_VERSIONS == ours
    assert PROGRAM_VERSION == REFS["program_version"]
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        L.elementwise_add(L.data("x", shape=[4]), L.fill_constant([4], "float32", 1.0))
    desc = normalize(main.desc)
    assert desc.version.version == 2006002
    assert {p.op_name: p.op_version.version for p in desc.op_version_map.pair} == \
        {"elementwise_add": 1, "fill_constant": 2}


def test_attribute_26_fixes_is_refused_at_another_value():
    """relu6's threshold and swish's beta are not in 2.6's ops: only 2.6's value exports."""
    main = pd.Program()
    with pd.program_guard(main, pd.Program()):
        _op("relu6", {"X": L.data("x", shape=[4])}, {"threshold": 3.0})
    with pytest.raises(ValueError, match="relu6.*threshold"):
        normalize(main.desc)
