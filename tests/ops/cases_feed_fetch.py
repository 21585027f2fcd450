"""feed, fetch and load are raw ops (they reach the scope): the executor tests cover them."""

RAW = {
    "feed": "tests/test_io.py and tests/executor: programs with feed ops (inference models)",
    "fetch": "tests/test_io.py and tests/executor: programs with fetch ops (inference models)",
    "load": "tests/framework: the Load initializer; tests/test_io.py: pickled .npy refused",
}
