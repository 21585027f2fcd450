"""Staging a run's changes to persistable variables, so a failed run changes nothing.

Before a block runs in the scope path, every persistable variable it binds is
staged: the array its tensor holds is remembered (kernels never write into
an array; they return new ones). If the run fails, each tensor gets its old
array back and variables the run created in the user's scope are erased.
"""

from paddle_nb.core.tensor import LoDTensor

__all__ = ["RunState"]


class RunState:
    """What one run must undo if it fails: persistables it changed or created."""

    def __init__(self, program, user_scope, run_scope, recorder):
        self.program = program
        self.user_scope = user_scope
        self.run_scope = run_scope
        self.recorder = recorder
        self.saved = {}
        self.created = []

    def stage(self, var):
        if id(var) not in self.saved:
            held = var.holder
            self.saved[id(var)] = (var, held, held.snapshot() if isinstance(held, LoDTensor)
                                   else None)

    def restore(self):
        for var, held, snapshot in self.saved.values():
            if var.destroyed_why is not None:
                continue
            if isinstance(held, LoDTensor) and var.holder is held:
                held.restore(snapshot)
            elif var.holder is not held:
                var.restore_holder(held)
        for name in self.created:
            if self.user_scope.is_alive():
                self.user_scope.erase(name)
