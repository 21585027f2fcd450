"""Exported training programs: paddle_nb's losses are PaddlePaddle 2.6.2's, without PaddlePaddle.

``make interop`` trains each exported folder of ``interop/export/models.py`` in PaddlePaddle
2.6.2 (``train.py``, 5 steps from the exported values) and, run with
``INTEROP_FIXTURES=tests/fixtures/paddle26``, records PaddlePaddle's losses and a digest of the
weights it saved in ``tests/fixtures/paddle26/export/losses.json``. Here paddle_nb builds and
trains the same programs on the same batches (``check_export.nb_train``) and must reach the
same losses (1e-4) and weights (per variable: its shape, and its sum and sum of absolute
values within 1e-4 of each element's size).
"""

import json
import pathlib

import numpy as np
import pytest

from interop.export import check_export, models

FIXTURE = pathlib.Path(__file__).parents[1] / "fixtures/paddle26/export/losses.json"
RECORDED = json.loads(FIXTURE.read_text())


def test_fixture_covers_every_program():
    assert sorted(RECORDED) == sorted(models.programs())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_losses_and_weights_are_paddles(tmp_path, name):
    build, batches = models.programs()[name]
    _, _, _, losses, values = check_export.nb_train(name, build, batches, tmp_path)
    want = RECORDED[name]
    assert len(losses) == want["steps"] == len(want["losses"])
    np.testing.assert_allclose(losses, want["losses"], rtol=0, atol=check_export.TOL)
    got = check_export.digest(values)
    assert sorted(got) == sorted(want["weights"])
    for var, recorded in want["weights"].items():
        assert got[var]["shape"] == recorded["shape"], var
        slack = check_export.TOL * (np.prod(recorded["shape"], dtype=int) + recorded["abs_sum"])
        for key in ("sum", "abs_sum"):
            assert abs(got[var][key] - recorded[key]) <= slack, (var, key)
