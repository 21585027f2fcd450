"""Check, by running PaddlePaddle 2.6.2, claims the tour makes about PaddlePaddle itself.

Run with the interop environment (``make interop`` creates it), never with paddle_nb's:

    .venv-interop/bin/python interop/tour_claims.py --out tests/fixtures/paddle26/tour_claims.json

Each claim is a sentence of a notebook that says what PaddlePaddle does; this script asks
PaddlePaddle and writes what it answered to a small JSON file, which
``tests/notebooks/test_tour_claims.py`` reads (so ``make test`` needs no PaddlePaddle):

- notebook 01 section 5 and its Exercise 2: ``DenseTensor::mutable_data`` reallocates only
  when there is no memory, the place differs or the block is too small. Each request sequence
  is replayed with ``LoDTensor.set`` (which resizes, then calls ``mutable_data``); while a
  slice of the tensor keeps the old block alive, a new allocation cannot land at the old
  address, so "the data pointer did not move" means "the block was reused".
- notebook 01 section 3: PaddlePaddle's ``Variable`` can be made outside any scope (its
  constructor is public), unlike the design's private constructor.
- notebook 08 section 7: ``StaticRNN`` and ``IfElse`` are gone from 2.6.2's static API.
"""
import argparse
import json
import pathlib

import numpy as np
import paddle

REQUESTS = {
    # notebook 01 section 5: (dtype, shape) requests, in order
    "section5": [("float32", (2, 3)), ("float32", (2, 3)), ("float32", (3, 2)),
                 ("float64", (3, 2)), ("float64", (3, 2))],
    # notebook 01 Exercise 2
    "exercise2": [("float32", (10, 10)), ("float32", (100,)),
                  ("float64", (10, 10)), ("float64", (10, 10))],
}


def allocations(requests):
    """How many of ``requests`` made PaddlePaddle's tensor take a new block."""
    core = paddle.base.core
    place = core.CPUPlace()
    tensor = core.LoDTensor()
    keep, count = [], 0
    for dtype, shape in requests:
        before = tensor._ptr() if keep else None
        tensor.set(np.zeros(shape, dtype), place)
        if before is None or tensor._ptr() != before:
            count += 1
        # a view sharing the block: the old block stays alive, so a fresh one moves the pointer
        keep.append(tensor._slice(0, 1))
    return count


def variable_outside_a_scope():
    """True when ``core.Variable()`` makes a variable that belongs to no scope."""
    try:
        var = paddle.base.core.Variable()
    except Exception:  # noqa: BLE001 (any refusal answers the question)
        return False
    return not var.is_initialized() if hasattr(var, "is_initialized") else True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/interop/tour_claims.json")
    args = parser.parse_args()
    paddle.enable_static()
    control_flow = dir(paddle.static.nn)
    answers = {
        "paddle_version": paddle.__version__,
        "mutable_data_allocations": {k: allocations(v) for k, v in REQUESTS.items()},
        "variable_outside_a_scope": variable_outside_a_scope(),
        "static_nn_has_StaticRNN": "StaticRNN" in control_flow,
        "static_nn_has_IfElse": "IfElse" in control_flow,
    }
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(answers, sort_keys=True))


if __name__ == "__main__":
    main()
