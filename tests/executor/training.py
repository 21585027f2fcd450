"""Training steps run the same way watched and unwatched, for the tests that compare the
executor's paths bit for bit."""

import paddle_nb as pd


def train(prog, feed, fetch, observed, steps, seed):
    """(fetched values of each of ``steps`` runs, {name: value} of the user's scope after
    them, the scope) of a fresh executor, a listener attached when ``observed``."""
    exe = pd.Executor(pd.CPUPlace(), seed=seed)
    if observed:
        exe.subscribe(lambda record: None)
    scope = pd.Scope()
    fetched = [exe.run(prog, feed=feed, fetch_list=fetch, scope=scope) for _ in range(steps)]
    params = {n: scope.find_var(n).get_tensor().numpy() for n in scope.local_var_names()}
    assert scope.kids == []
    return fetched, params, scope
