"""PaddlePaddle 2.6.2's own numbers for the op tests: the files interop/ops/*_refs.py write.

Each ``test_*_paddle.py`` reads its files from tests/fixtures/paddle26/ops. A file that is
absent skips the test (the scripts need the interop venv, which not every machine has), and
the skip names the script that writes it.
"""

import pathlib

import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "paddle26" / "ops"


def fixture(name, writer):
    """The path of fixture file ``name``; skips the test when it is absent, naming
    ``writer``, the interop script that writes it."""
    found = FIXTURES / name
    if not found.is_file():
        pytest.skip(f"{found} is absent ({writer} writes it)")
    return found
