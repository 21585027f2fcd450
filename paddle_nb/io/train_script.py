"""The ``train.py`` that ``export_training`` writes beside the programs it exports.

It needs the standard library, NumPy and PaddlePaddle 2.6 only (never paddle_nb), and reads the
folder it sits in. It trains one way or another depending on how it was started:

- ``python DIR/train.py --data b0.npz --data b1.npz --steps 5 --save OUT``: one process, with
  ``paddle.static.Executor`` running the exported training program itself (its backward and
  optimizer ops are paddle_nb's), from the exported parameter values;
- ``PADDLE_WITH_GLOO=1 python -m paddle.distributed.launch --server_num=1 --worker_num=2
  DIR/train.py ...``: Fleet's parameter servers on CPU (gloo makes Fleet's barriers work).
  Fleet takes the forward program and the loss and adds its own backward pass and optimizer
  (made from ``export.json``'s type and settings; a program PaddlePaddle 2.6.2 cannot
  differentiate, with a StaticRNN, brings the exported gradients); worker k takes data files
  k, k+W, k+2W, ... ``--ps-mode``: ``async`` (the default, run by ``train_from_dataset``),
  ``sync`` (which 2.6.2 cannot run by itself: ``sync_steps`` drives it) or ``geo`` (see
  ``ps_mode`` in the script);
- ``python -m paddle.distributed.launch --gpus 0,1 DIR/train.py ...``: collective training, one
  process per GPU, the same way (not tried here: no GPU, and the CPU build has no collective
  mode).

A learning-rate scheduler (``export.json``'s ``optimizer.lr_scheduler``) is made again as
PaddlePaddle's own class and stepped once per step.

Each step prints one JSON line ``{"worker": k, "step": i, "loss": x}``. ``--save OUT`` writes the
trained persistables one file per variable (``paddle.static.save_vars``), the form
``paddle_nb.io.load_persistables`` reads back. The script is kept as text here so that it is
written as it is: its start and end here, its parameter-server functions between them in
``train_script_ps.py``; ``tests/io/test_export_training.py`` runs its PaddlePaddle-free parts.
"""

from paddle_nb.io.train_script_ps import PARAMETER_SERVERS

__all__ = ["TRAIN_PY"]

SCRIPT_START = r'''"""Train the program paddle_nb exported here (paddle_nb.io.export_training) in
PaddlePaddle.

One process:        python train.py --data b0.npz [--data b1.npz ...] --steps N [--save OUT]
Parameter servers:  PADDLE_WITH_GLOO=1 python -m paddle.distributed.launch \
                        --server_num=1 --worker_num=2 train.py --data b0.npz --data b1.npz \
                        --steps N [--save OUT] [--ps-mode async|geo|sync] [--k-steps K]
Collective (GPUs):  python -m paddle.distributed.launch --gpus 0,1 train.py ...

Each data file is one batch: an .npz whose arrays are named by the program's feeds (export.json).
Files are used in the order given, cycling; worker k of W takes files k, k+W, k+2W, ...
Each step prints {"worker": k, "step": i, "loss": x}. --save OUT writes the persistables one
file per variable (paddle.static.save_vars), which paddle_nb.io.load_persistables reads.
Needs PaddlePaddle 2.6 and NumPy; Fleet's parameter servers need protobuf 4.x.
"""

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LOSS_COPY = "train_py.loss"
# paddle.optimizer class, and its arguments from the update op's attributes
OPTIMIZERS = {
    "sgd": ("SGD", {}),
    "momentum": ("Momentum", {"momentum": "mu", "use_nesterov": "use_nesterov"}),
    "adam": ("Adam", {"beta1": "beta1", "beta2": "beta2", "epsilon": "epsilon"}),
    "adamw": ("AdamW", {"beta1": "beta1", "beta2": "beta2", "epsilon": "epsilon",
                        "weight_decay": "coeff"}),
    "adamax": ("Adamax", {"beta1": "beta1", "beta2": "beta2", "epsilon": "epsilon"}),
    "adagrad": ("Adagrad", {"epsilon": "epsilon"}),
    "rmsprop": ("RMSProp", {"rho": "decay", "epsilon": "epsilon", "momentum": "momentum",
                            "centered": "centered"}),
}


PS_OPTIMIZERS = ("sgd", "adam")
OPTIMIZE, LRSCHED = 0x0002, 0x0010          # op_role bits
# forward ops whose gradients PaddlePaddle 2.6.2 cannot write: Fleet takes the exported ones
NOT_DIFFERENTIABLE = ("recurrent",)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="Train the program paddle_nb exported here.")
    parser.add_argument("--data", action="append", required=True, metavar="FILE.npz",
                        help="one batch per file, arrays named by the feeds (repeatable)")
    parser.add_argument("--steps", type=int, required=True, help="how many steps to train")
    parser.add_argument("--save", metavar="OUT", help="write the trained persistables here")
    parser.add_argument("--fresh", action="store_true",
                        help="start from the startup program's values, not the exported ones")
    parser.add_argument("--ps-mode", choices=("async", "geo", "sync"), default="async",
                        help="parameter servers: async (the default: the servers update the "
                        "parameters, each worker pushes gradients and pulls parameters), geo "
                        "or sync (see ps_mode below)")
    parser.add_argument("--k-steps", type=int, default=1,
                        help="geo: local steps between exchanges with the servers")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    return args


def mode(env=None):
    """'ps' under launch --server_num, 'collective' under launch --gpus, else 'single'."""
    env = os.environ if env is None else env
    if env.get("TRAINING_ROLE") in ("PSERVER", "TRAINER", "HETER_TRAINER"):
        return "ps"
    if int(env.get("PADDLE_TRAINERS_NUM", "1")) > 1:
        return "collective"
    return "single"


def worker_files(files, steps, worker, workers):
    """The data file of each of this worker's ``steps`` steps: files k, k+W, ..., cycling."""
    mine = list(files)[worker::workers]
    if not mine:
        sys.exit(f"worker {worker} of {workers} has no data file: give at least {workers} "
                 f"--data files (got {len(files)})")
    return [mine[i % len(mine)] for i in range(steps)]


def read_batch(path, feeds):
    with np.load(path) as data:
        missing = [name for name in feeds if name not in data.files]
        if missing:
            sys.exit(f"{path}: no array named {', '.join(missing)} (the program's feeds are "
                     f"{', '.join(feeds)}; the file has {', '.join(data.files)})")
        return {name: data[name] for name in feeds}


def report(worker, step, loss):
    value = float(np.asarray(loss).reshape(-1)[0])
    print(json.dumps({"worker": worker, "step": step, "loss": value}), flush=True)


def manifest():
    with open(os.path.join(HERE, "export.json")) as f:
        return json.load(f)


class LearningRate:
    """The exported learning-rate scheduler (export.json's ``optimizer.lr_scheduler``), made
    in PaddlePaddle: ``before()`` writes its value into the program's learning-rate variable
    (what PaddlePaddle's Executor does for a program whose optimizer was given a scheduler),
    ``after()`` steps it on. Without a scheduler both do nothing."""

    def __init__(self, paddle, spec, write=True):
        self.paddle, self.name = paddle, spec.get("learning_rate_var") if write else None
        self.scheduler = scheduler_from(paddle, spec.get("lr_scheduler"))

    def before(self):
        if self.scheduler is None or self.name is None:
            return
        tensor = self.paddle.static.global_scope().find_var(self.name).get_tensor()
        old = np.array(tensor)
        tensor.set(np.full(old.shape, self.scheduler(), old.dtype), self.paddle.CPUPlace())

    def after(self):
        if self.scheduler is not None:
            self.scheduler.step()


def scheduler_from(paddle, spec, catch_up=True):
    """PaddlePaddle's scheduler of the exported class and arguments, stepped on as far as
    paddle_nb's had gone (an inner scheduler is stepped by the one holding it)."""
    if spec is None:
        return None
    args = {k: scheduler_from(paddle, v, catch_up=False) if isinstance(v, dict) else v
            for k, v in spec["args"].items()}
    made = getattr(paddle.optimizer.lr, spec["type"])(**args)
    for _ in range(spec["last_epoch"] if catch_up else 0):
        made.step()
    return made


def optimizer_from(paddle, spec, scheduler=None):
    """The paddle.optimizer that Fleet uses: the exported update ops' type and settings, and
    the learning rate (or its scheduler)."""
    kind = spec["type"]
    if kind not in OPTIMIZERS:
        sys.exit(f"optimizer {kind!r}: train.py knows {', '.join(sorted(OPTIMIZERS))} for "
                 "Fleet; train in one process instead (it runs the exported update ops)")
    name, arguments = OPTIMIZERS[kind]
    settings = spec["settings"]
    kwargs = {k: settings[a] for k, a in arguments.items() if a in settings}
    rate = spec["learning_rate"] if scheduler is None else scheduler
    return getattr(paddle.optimizer, name)(learning_rate=rate, **kwargs)


def load_program(paddle, name):
    with open(os.path.join(HERE, name), "rb") as f:
        return paddle.static.deserialize_program(f.read())


def persistables(program, names):
    block = program.global_block()
    return [block.var(name) for name in names if block.has_var(name)]


def load_exported(paddle, exe, program, names):
    """Set the exported values (params/) of the persistables ``program`` holds."""
    folder = os.path.join(HERE, "params")
    if os.path.isdir(folder):
        chosen = [v for v in persistables(program, names)
                  if os.path.isfile(os.path.join(folder, v.name))]
        paddle.static.load_vars(exe, folder, program, vars=chosen)


def run_steps(exe, program, spec, files, worker, rate):
    for step, path in enumerate(files):
        rate.before()
        (loss,) = exe.run(program, feed=read_batch(path, spec["feeds"]),
                          fetch_list=[spec["loss"]])
        report(worker, step, loss)
        rate.after()


def train_single(paddle, args, spec):
    main, startup = load_program(paddle, "main.pdmodel"), load_program(paddle, "startup.pdmodel")
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if not args.fresh:
        load_exported(paddle, exe, main, spec["persistables"])
    rate = LearningRate(paddle, spec["optimizer"])
    run_steps(exe, main, spec, worker_files(args.data, args.steps, 0, 1), 0, rate)
    if args.save:
        paddle.static.save_vars(exe, args.save, main,
                                vars=persistables(main, spec["persistables"]))


def fleet_programs(paddle, fleet, spec, strategy, scheduler=None, server=False):
    """The forward program with Fleet's backward pass and optimizer added (on a parameter
    server, ``server_forward``'s stand-in)."""
    main = load_program(paddle, "forward.pdmodel")
    startup = load_program(paddle, "forward_startup.pdmodel")
    pairs = None
    if server:
        main, startup = server_forward(paddle, main, spec["loss"])
    elif any(op.type in NOT_DIFFERENTIABLE for op in main.global_block().ops):
        main, pairs = exported_backward(paddle, spec)
    with paddle.static.program_guard(main, startup):
        loss = main.global_block().var(spec["loss"])
        # a persistable copy of the loss, read from the scope after train_from_dataset
        kept = paddle.static.create_global_var(loss.shape, 0.0, loss.dtype, persistable=True,
                                               name=LOSS_COPY)
        paddle.assign(loss, output=kept)
        inner = optimizer_from(paddle, spec["optimizer"], scheduler)
        if pairs is not None:                # minimize takes the exported gradients
            inner.backward = lambda *args, **kwargs: pairs
        optimizer = fleet.distributed_optimizer(inner, strategy)
        optimizer.minimize(loss)
        # parameter servers: minimize made the trainer's (or server's) own programs, and
        # made them the loss's program and the default startup program
        return loss.block.program, paddle.static.default_startup_program()


def train_fleet(paddle, args, spec, collective):
    # every process (servers too) stops here alike, before any waits for another
    check_fleet(spec, not collective, args.ps_mode)
    if not collective and args.ps_mode == "async":
        check_async(load_program(paddle, "forward.pdmodel"), spec)
    import paddle.distributed.fleet as fleet
    fleet.init(is_collective=collective)
    strategy = fleet.DistributedStrategy()
    if not collective:
        ps_mode(strategy, args.ps_mode, args.k_steps)
    # a scheduler goes to Fleet's optimizer, whose minimize gives it to the program: the
    # Executor writes its value, and the steps only step it on
    rate = LearningRate(paddle, spec["optimizer"], write=False)
    main, startup = fleet_programs(paddle, fleet, spec, strategy, rate.scheduler,
                                   server=not collective and fleet.is_server())
    if not collective and fleet.is_server():
        fleet.init_server()
        fleet.run_server()
        return
    place = paddle.CUDAPlace(int(os.environ.get("FLAGS_selected_gpus", "0").split(",")[0])) \
        if collective else paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    exe.run(startup)
    if not args.fresh:                    # every worker starts from the exported values; the
        load_exported(paddle, exe, main, spec["parameters"])   # first one's go to the servers
    if not collective:
        if os.environ.get("PADDLE_WITH_GLOO", "0") == "0":
            print("train.py: PADDLE_WITH_GLOO is not set: Fleet's barriers do nothing, and a "
                  "worker may pull the parameters before worker 0 has pushed the exported "
                  "ones (launch with PADDLE_WITH_GLOO=1)", file=sys.stderr, flush=True)
        fleet.init_worker()
    worker, workers = fleet.worker_index(), fleet.worker_num()
    files = worker_files(args.data, args.steps, worker, workers)
    if not collective and args.ps_mode == "async":
        dataset_steps(paddle, exe, main, spec, files, worker)
    elif not collective and args.ps_mode == "sync":
        sync_steps(paddle, fleet, exe, main, spec, files, worker)
    else:
        run_steps(exe, main, spec, files, worker, rate)
    if not collective:
        fleet.barrier_worker()
    if args.save and worker == 0:        # worker 0's parameters (Fleet's own save_persistables
        paddle.static.save_vars(exe, args.save, main,        # writes the servers' tables)
                                vars=persistables(main, spec["parameters"]))
    if not collective:
        fleet.stop_worker()


'''

SCRIPT_END = r'''def main(argv=None):
    args = parse_args(argv)
    spec = manifest()
    import paddle
    paddle.enable_static()
    how = mode()
    if how == "single":
        train_single(paddle, args, spec)
    else:
        train_fleet(paddle, args, spec, collective=how == "collective")


if __name__ == "__main__":
    main()
'''

TRAIN_PY = SCRIPT_START + PARAMETER_SERVERS + SCRIPT_END
