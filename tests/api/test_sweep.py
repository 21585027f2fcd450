"""The API sweep: PaddlePaddle 2.6.2's public callables, checked against its own numbers.

``interop/sweep/make_sweep.py`` (in PaddlePaddle's venv) called every public class and function
it could on small inputs and committed the programs, inputs, outputs and gradients in
``tests/fixtures/paddle26/sweep``. Here each case is checked twice (``interop/sweep/check.py``):
PaddlePaddle's own programs run op by op in paddle_nb, and the same call made through
paddle_nb's API must append the same op types, name the same persistables and compute the same
values. ``tests/api/sweep_gaps.json`` (written by ``tools/api_coverage.py``) lists the cases
that do not pass yet and why; every other case must pass, and a listed case that passes must
leave the list, so the list only shrinks.
"""

import json
import pathlib

import pytest

from interop.sweep import check

GAPS = pathlib.Path(__file__).with_name("sweep_gaps.json")


def _load():
    if not (check.FIXTURE / "manifest.json").is_file():
        return [], {}
    ran, _, _, values = check.load()
    return ran, values


RAN, VALUES = _load()
KNOWN = json.loads(GAPS.read_text()) if GAPS.is_file() else {"op_level": {}, "api_level": {}}
IDS = [case["id"] for case in RAN]


def _expect(level, case, result):
    known = KNOWN[level].get(case["id"])
    if known is None:
        assert result.status in ("ok", "absent"), \
            f"{case['id']} ({level}): {result.status}: {result.detail}"
    else:
        assert result.status != "ok", (f"{case['id']} now passes at the {level} (it was "
                                       f"'{known}'): run tools/api_coverage.py to update the gaps")


def test_the_sweep_is_committed():
    assert RAN, f"{check.FIXTURE} is missing: interop/sweep/make_sweep.py writes it"


@pytest.mark.parametrize("case", RAN, ids=IDS)
def test_paddle_program_runs_here(case):
    _expect("op_level", case, check.op_level(case, VALUES))


@pytest.mark.parametrize("case", RAN, ids=IDS)
def test_same_call_builds_the_same_program(case):
    _expect("api_level", case, check.api_level(case, VALUES))
