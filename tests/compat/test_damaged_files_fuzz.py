"""Structured damage to PaddlePaddle 2.6.2's own files: each loads, or raises a paddle_nb error.

``test_reader_fuzz.py`` damages bytes; here the damage is to the *meaning* of real programs
and parameter files (``tests/fixtures/paddle26``: the mlp, cnn and ctrl training programs
and inference models), the way a buggy exporter or a hostile file would: an attribute
stored in another type, a sub-block index or a block parent redirected, a variable's type,
dtype or dims changed, an op's variable renamed to one of another block, an op type
swapped; LoD contents, tensor dims and dtypes in the params file, sparse and huge headers.

Each mutated program is parsed, printed (one in eight), serialized, cloned for test, pruned,
re-exported in 2.6's form; mutated mlp and cnn inference models are also loaded with their
parameters and run on the fixture's input, as are the originals with mutated parameter files.
Every step must succeed or raise a ``PaddleNBError``: never a bare KeyError, TypeError,
RecursionError or MemoryError, never a hang (the whole module runs under a time limit); loading
parameters never allocates above ``PEAK`` (tracemalloc). A failed load leaves the scope empty.
The mutations come from a seeded generator: ``MUTATIONS`` programs, ``RUN_MUTATIONS`` models
run and ``PARAM_MUTATIONS`` parameter files, the same ones on every run.
"""

import shutil
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import paddle_nb as pd
from paddle_nb.errors import PaddleNBError
from paddle_nb.io.export26 import normalize
from paddle_nb.ops.machinery import registry
from paddle_nb.proto import framework_pb2

pytestmark = pytest.mark.timeout(120)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paddle26"
PROGRAMS = ["mlp.pdmodel", "cnn.pdmodel", "ctrl.pdmodel", "mlp.main.pb", "mlp.pdmodel",
            "cnn.pdmodel", "cnn.main.pb", "mlp.pdmodel", "cnn.pdmodel", "ctrl.main.pb"]
MODELS = ["mlp", "cnn"]            # inference models run after loading (no loops to spin)
MUTATIONS = 800
RUN_MUTATIONS = 200
PARAM_MUTATIONS = 250
PEAK = 64 << 20
T = framework_pb2.AttrType
V = framework_pb2.VarType
ATTR_TYPES = list(T.values())
VAR_TYPES = list(V.Type.values())
OP_TYPES = sorted(registry.types())


# -- program mutations -----------------------------------------------------------------------------
def retype_attr(rng, desc):
    op = _pick_op(rng, desc, lambda o: len(o.attrs))
    attr = op.attrs[rng.integers(len(op.attrs))]
    attr.type = ATTR_TYPES[rng.integers(len(ATTR_TYPES))]
    if rng.random() < 0.5:                     # and a value in the field it now names
        attr.s, attr.i, attr.f = "x", int(rng.integers(-5, 5)), 0.5
        attr.floats.append(1.5)
        attr.strings.append("y")
    return f"retype {attr.name} to {T.Name(attr.type)}"


def redirect_sub_block(rng, desc):
    owners = [(b, a) for b in desc.blocks for o in b.ops for a in o.attrs
              if a.type in (T.BLOCK, T.BLOCKS)]
    if not owners:
        return retype_attr(rng, desc)
    block, attr = owners[rng.integers(len(owners))]
    target = int(rng.integers(-2, len(desc.blocks) + 2))
    if attr.type == T.BLOCK:
        attr.block_idx = target
    else:
        attr.blocks_idx.append(target)
    return f"sub-block of block {block.idx} -> {target}"


def redirect_parent(rng, desc):
    if len(desc.blocks) < 2:
        return retype_attr(rng, desc)
    block = desc.blocks[rng.integers(1, len(desc.blocks))]
    block.parent_idx = int(rng.integers(-2, len(desc.blocks) + 1))
    return f"parent of block {block.idx} -> {block.parent_idx}"


def change_var(rng, desc):
    block = desc.blocks[rng.integers(len(desc.blocks))]
    if not block.vars:
        return retype_attr(rng, desc)
    var = block.vars[rng.integers(len(block.vars))]
    what = rng.integers(4)
    tensor = var.type.lod_tensor.tensor
    if what == 0:
        var.type.type = VAR_TYPES[rng.integers(len(VAR_TYPES))]
    elif what == 1:
        tensor.data_type = [V.FP16, V.INT8, V.BOOL, V.FP64, V.BF16, V.COMPLEX64,
                            V.UINT8][rng.integers(7)]
    elif what == 2:
        del tensor.dims[:]
        tensor.dims.extend(int(d) for d in rng.choice([-1, 0, 1, 3, 2**31, 2**40, -7],
                                                      rng.integers(0, 5)))
    else:
        var.persistable = not var.persistable
    return f"variable {var.name} changed ({what})"


def rename_arg(rng, desc):
    op = _pick_op(rng, desc, lambda o: any(s.arguments for s in list(o.inputs) + list(o.outputs)))
    slots = [s for s in list(op.inputs) + list(op.outputs) if s.arguments]
    slot = slots[rng.integers(len(slots))]
    names = [v.name for b in desc.blocks for v in b.vars] + ["nowhere", ""]
    slot.arguments[rng.integers(len(slot.arguments))] = names[rng.integers(len(names))]
    return f"{op.type}.{slot.parameter} renamed"


def swap_op_type(rng, desc):
    op = _pick_op(rng, desc, lambda o: True)
    op.type = OP_TYPES[rng.integers(len(OP_TYPES))]
    return f"op type -> {op.type}"


def drop_attr(rng, desc):
    op = _pick_op(rng, desc, lambda o: len(o.attrs))
    name = op.attrs[rng.integers(len(op.attrs))].name
    for k in reversed(range(len(op.attrs))):
        if op.attrs[k].name == name:
            del op.attrs[k]
    return f"{op.type} lost {name}"


def _pick_op(rng, desc, keep):
    ops = [o for b in desc.blocks for o in b.ops if keep(o)]
    return ops[rng.integers(len(ops))]


KINDS = [retype_attr, redirect_sub_block, redirect_parent, change_var, rename_arg,
         swap_op_type, drop_attr]


# -- what a user does with a program ---------------------------------------------------------------
def bounded(fn, *args):
    """fn(*args): its result or its PaddleNBError; anything else fails, as does a peak
    allocation above PEAK."""
    tracemalloc.start()
    try:
        try:
            result = fn(*args)
        except PaddleNBError as err:
            result = err
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK, f"{peak} bytes at the peak"
    return result


def unbounded(fn, *args):
    """fn(*args): its result or its PaddleNBError (programs: tracemalloc would cost 10x, and
    a program's declared sizes allocate nothing until it runs)."""
    try:
        return fn(*args)
    except PaddleNBError as err:
        return err


def use(data, show=True):
    program = pd.Program.parse(data)
    if show:
        str(program)
    program.serialize()
    for var in program.list_vars():
        if var.is_tensor():
            var.shape
            try:
                var.dtype
            except TypeError as err:        # documented: a dtype NumPy has no type for
                assert "is not a tensor dtype paddle_nb can hold" in str(err)
    clone = program.clone(for_test=True)
    fetch = [op for op in clone.global_block().ops if op.type == "fetch"]
    targets = [fetch[0].input("X")[0]] if fetch else \
        [n for op in clone.global_block().ops[-1:] for n in op.output_arg_names][:1]
    if targets:
        clone.prune(targets)
    pd.Program.parse(normalize(clone.desc).SerializeToString())
    return program


@pytest.fixture(scope="module")
def originals():
    return {name: (FIXTURES / name).read_bytes() for name in PROGRAMS}


def test_structured_program_mutations_parse_use_and_export_or_raise_a_paddle_nb_error(
        originals):
    rng = np.random.default_rng(23)
    outcomes = {"ok": 0, "refused": 0}
    for n in range(MUTATIONS):
        name = PROGRAMS[n % len(PROGRAMS)]
        desc = framework_pb2.ProgramDesc.FromString(originals[name])
        kind = KINDS[rng.integers(len(KINDS))]
        what = kind(rng, desc)
        try:
            result = unbounded(use, desc.SerializePartialToString(), n % 8 == 0)
        except AssertionError:
            raise
        except BaseException as err:
            raise AssertionError(f"mutation {n} of {name} ({what}): bare "
                                 f"{type(err).__name__}: {err}") from err
        outcomes["refused" if isinstance(result, PaddleNBError) else "ok"] += 1
    assert sum(outcomes.values()) == MUTATIONS
    assert outcomes["ok"] > MUTATIONS // 10 and outcomes["refused"] > MUTATIONS // 10, outcomes


# -- inference models, their parameters mutated, loaded and run ------------------------------------
def params_mutation(rng, blob):
    """``blob`` (a .pdiparams) with one tensor's LoD, dims, dtype or size claim changed."""
    tensors, at = [], 0
    while at < len(blob):                 # (offset of the header, of the TensorDesc, its end)
        (levels,) = struct.unpack_from("<Q", blob, at + 4)
        pos = at + 12
        for _ in range(levels):
            (size,) = struct.unpack_from("<Q", blob, pos)
            pos += 8 + size
        (desc_size,) = struct.unpack_from("<i", blob, pos + 4)
        desc = framework_pb2.VarType.TensorDesc.FromString(blob[pos + 8:pos + 8 + desc_size])
        count = int(np.prod(desc.dims)) if desc.dims else 1
        end = pos + 8 + desc_size + count * {V.FP32: 4, V.INT64: 8}.get(desc.data_type, 4)
        tensors.append((at, pos, desc, end))
        at = end
    start, pos, desc, end = tensors[rng.integers(len(tensors))]
    data = blob[pos + 8 + len(desc.SerializeToString()):end]
    what = rng.integers(5)
    lod = []
    if what == 0:                       # a LoD, valid or not
        first = desc.dims[0] if desc.dims else 1
        lod = [sorted(rng.integers(0, first + 1, rng.integers(1, 5)).tolist())]
        if rng.random() < 0.5:
            lod[0] = lod[0][::-1]
        if rng.random() < 0.5:
            lod[0] = [0] + lod[0] + [first]
    elif what == 1:
        del desc.dims[:]
        desc.dims.extend(int(d) for d in rng.choice([0, 1, 2, 3, 16, 2**31, 2**40],
                                                    rng.integers(0, 4)))
    elif what == 2:
        desc.data_type = [V.FP64, V.FP16, V.INT64, V.BOOL, V.INT8][rng.integers(5)]
    elif what == 3:                     # a huge claim with the bytes cut short
        del desc.dims[:]
        desc.dims.extend([2**31])
        data = data[:64]
    else:                               # the data cut short
        data = data[:int(rng.integers(0, max(len(data), 1)))]
    head = struct.pack("<IQ", 0, len(lod))
    for level in lod:
        raw = np.asarray(level, "<u8").tobytes()
        head += struct.pack("<Q", len(raw)) + raw
    encoded = desc.SerializeToString()
    head += struct.pack("<Ii", 0, len(encoded)) + encoded
    return blob[:start] + head + data + blob[end:]


def fixture_input(name):
    """The input the fixture's inference model ``name`` (mlp or cnn) was run on."""
    return np.load(FIXTURES / f"{name}_io.npz")[f"infer/{'x' if name == 'mlp' else 'img'}"]


def load_and_run(model_dir, name, feed):
    scope = pd.Scope()
    exe = pd.Executor(pd.CPUPlace())
    try:
        program, feeds, fetches = pd.io.load_inference_model(
            str(model_dir), exe, model_filename=f"{name}.pdmodel",
            params_filename=f"{name}.pdiparams", scope=scope)
    except PaddleNBError:
        assert scope.local_var_names() == [], "a failed load left variables in the scope"
        raise
    return exe.run(program, feed={feeds[0]: feed} if feeds else {}, fetch_list=fetches,
                   scope=scope)


def test_parameter_file_mutations_load_and_run_or_raise_a_paddle_nb_error(tmp_path):
    rng = np.random.default_rng(2326)
    blobs, feeds = {}, {}
    for name in MODELS:
        for suffix in (".pdmodel", ".pdiparams"):
            shutil.copy(FIXTURES / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
        blobs[name] = (FIXTURES / f"{name}.pdiparams").read_bytes()
        feeds[name] = fixture_input(name)
    refused = 0
    for n in range(PARAM_MUTATIONS):
        name = MODELS[n % len(MODELS)]
        (tmp_path / f"{name}.pdiparams").write_bytes(params_mutation(rng, blobs[name]))
        try:
            result = bounded(load_and_run, tmp_path, name, feeds[name])
        except AssertionError:
            raise
        except BaseException as err:
            raise AssertionError(f"params mutation {n} of {name}: bare {type(err).__name__}: "
                                 f"{err}") from err
        refused += isinstance(result, PaddleNBError)
    assert refused > PARAM_MUTATIONS // 2


def test_mutated_inference_models_load_and_run_or_raise_a_paddle_nb_error(tmp_path):
    rng = np.random.default_rng(2327)
    originals, feeds = {}, {}
    for name in MODELS:
        shutil.copy(FIXTURES / f"{name}.pdiparams", tmp_path / f"{name}.pdiparams")
        originals[name] = (FIXTURES / f"{name}.pdmodel").read_bytes()
        feeds[name] = fixture_input(name)
    ran = 0
    for n in range(RUN_MUTATIONS):
        name = MODELS[n % len(MODELS)]
        desc = framework_pb2.ProgramDesc.FromString(originals[name])
        what = KINDS[rng.integers(len(KINDS))](rng, desc)
        (tmp_path / f"{name}.pdmodel").write_bytes(desc.SerializePartialToString())
        try:
            with np.errstate(all="ignore"):      # a swapped op type may take a log of -1
                result = unbounded(load_and_run, tmp_path, name, feeds[name])
        except AssertionError:
            raise
        except BaseException as err:
            raise AssertionError(f"run mutation {n} of {name} ({what}): bare "
                                 f"{type(err).__name__}: {err}") from err
        ran += not isinstance(result, PaddleNBError)
    assert RUN_MUTATIONS // 10 < ran < RUN_MUTATIONS
