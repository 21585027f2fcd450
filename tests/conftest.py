"""Fixtures shared by several test modules."""

import gc

import pytest


@pytest.fixture
def quiet_gc():
    """No cycle collection during the test, so that only this test moves the memory counters.

    Scopes, variables and tensors form reference cycles; a collection in the middle of a test
    could free an earlier test's tensors and change the counts the test compares.
    """
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
