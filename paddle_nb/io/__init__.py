"""Saving: programs, parameters and inference models, in PaddlePaddle's file formats.

- A program is its serialized ProgramDesc (``__model__``, ``.pdmodel``): ``save`` /
  ``load_program``.
- A tensor is: uint32 0, the LoD (uint64 level count; per level a uint64 byte size and the
  uint64 offsets), uint32 0, an int32 size and a ``VarType.TensorDesc`` message, the raw
  little-endian data (``ops/machinery/tensor_stream.py``).
- Parameters are one such file per variable, named after it (PaddlePaddle 1.8's layout),
  or all of them back to back sorted by name in one file (``save_combine``, ``.pdiparams``).
- An inference model is a directory: ``__model__`` (the pruned program with ``feed`` /
  ``fetch`` ops) beside its persistables. Files are written whole or not at all
  (``io/atomic.py``), Ctrl-C never leaves half a save (``io/interrupts.py``), every header
  of a file read is checked before its data is allocated, and nothing is ever read with
  pickle (docs/robustness.md).
"""

from __future__ import annotations

from paddle_nb.io.inference import (
    inference_program, load_inference_model, load_program, save, save_inference_model,
)
from paddle_nb.io.params import (
    is_parameter, is_persistable, load_params, load_persistables, load_vars, save_params,
    save_persistables, save_vars,
)
from paddle_nb.io.training_export import export_training

__all__ = [
    "save_params", "load_params", "save_persistables", "load_persistables", "save_vars",
    "load_vars", "is_parameter", "is_persistable",
    "save_inference_model", "load_inference_model", "inference_program", "save", "load_program",
    "export_training",
]
