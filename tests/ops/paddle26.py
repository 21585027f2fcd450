"""PaddlePaddle 2.6.2's own numbers for the op tests: the files interop/ops/*_refs.py write.

Each ``test_*_paddle.py`` reads its files from tests/fixtures/paddle26/ops. They are committed
(the scripts need the interop venv, which not every machine has), so a missing one fails the
test, naming the script that writes it again.
"""

import pathlib

import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops"


def fixture(name, writer):
    """The path of committed fixture file ``name``; fails the test when it is missing, naming
    ``writer``, the interop script that writes it."""
    found = FIXTURES / name
    if not found.is_file():
        pytest.fail(f"{found} is absent ({writer} writes it)")
    return found


def program_cases(name):
    """``{case: {"program": bytes, "feed": {name: array}, "fetch": {name: array}}}`` from the
    fixture ``name`` as the interop ``*_refs.py`` scripts write it (keys ``case/program``,
    ``case/feed/<var>``, ``case/fetch/<var>``); empty when the file is absent."""
    import numpy as np
    path = FIXTURES / name
    if not path.is_file():
        return {}
    cases = {}
    with np.load(path) as values:
        for key in values.files:
            case_name, kind, *rest = key.split("/")
            case = cases.setdefault(case_name, {"feed": {}, "fetch": {}})
            if kind == "program":
                case["program"] = values[key].tobytes()
            else:
                case[kind]["/".join(rest)] = values[key]
    return cases


def run_case(case, place):
    """Parse a case's program and run it on its feeds; (program, fetched names, values)."""
    import paddle_nb as pd
    program = pd.Program.parse(case["program"])
    names = list(case["fetch"])
    got = pd.Executor(place).run(program, feed=case["feed"], fetch_list=names, scope=pd.Scope())
    return program, names, got
