"""The ``train.py`` that ``export_training`` writes beside the programs it exports.

It needs the standard library, NumPy and PaddlePaddle 2.6 only (never paddle_nb), and reads the
folder it sits in. It trains one way or another depending on how it was started:

- ``python DIR/train.py --data b0.npz --data b1.npz --steps 5 --save OUT``: one process, with
  ``paddle.static.Executor`` running the exported training program itself (its backward and
  optimizer ops are paddle_nb's), from the exported parameter values;
- ``PADDLE_WITH_GLOO=1 python -m paddle.distributed.launch --server_num=1 --worker_num=2
  DIR/train.py ...``: Fleet's parameter servers on CPU (gloo makes Fleet's barriers work).
  Fleet takes the forward program and the loss and adds its own backward pass and optimizer
  (made from ``export.json``'s type and settings); worker k takes data files k, k+W, k+2W, ...
  Updates are Fleet's asynchronous mode, run by ``train_from_dataset`` (``--ps-mode``: see
  ``ps_mode`` in the script for geo and sync);
- ``python -m paddle.distributed.launch --gpus 0,1 DIR/train.py ...``: collective training, one
  process per GPU, the same way (not tried here: the CPU build has no collective mode).

Each step prints one JSON line ``{"worker": k, "step": i, "loss": x}``. ``--save OUT`` writes the
trained persistables one file per variable (``paddle.static.save_vars``), the form
``paddle_nb.io.load_persistables`` reads back. The script is kept as text here so that it is
written as it is; ``tests/io/test_export_training.py`` runs its PaddlePaddle-free parts.
"""

__all__ = ["TRAIN_PY"]

TRAIN_PY = r'''"""Train the program paddle_nb exported here (paddle_nb.io.export_training) in PaddlePaddle.

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


def ps_mode(strategy, mode, k_steps):
    """Ask Fleet for async, geo or sync parameter-server updates (as PaddlePaddle 2.6.2 does
    them on CPU, found by running each and reading its Fleet source):

    async: ``a_sync = True``, ``k_steps`` 0; the servers run the optimizer on each gradient as
    it comes, each worker pushes its gradients and pulls the parameters, in
    ``train_from_dataset`` (``dataset_steps``).
    geo: ``a_sync = True`` with ``a_sync_configs = {"k_steps": K}``; each worker runs its own
    optimizer under ``Executor.run``; 2.6.2 exchanges only sparse tables this way, so with
    dense parameters each worker trains its own copy.
    sync: ``a_sync = False`` (``k_steps`` 0): the servers average the workers' gradients and
    apply the optimizer once per step; 2.6.2 needs help to run it (``sync_steps``).
    With protobuf newer than 4.x 2.6.2's ``a_sync`` setter raises TypeError (it cannot read
    its own a_sync_configs back); the same two fields are then set on the strategy's message.
    """
    k_steps = k_steps if mode == "geo" else 0
    try:
        strategy.a_sync = mode != "sync"
        strategy.a_sync_configs = {"k_steps": k_steps}
    except TypeError:
        strategy.strategy.a_sync = mode != "sync"
        strategy.strategy.a_sync_configs.k_steps = k_steps


def sync_steps(paddle, fleet, exe, program, spec, files, worker):
    """Synchronous parameter servers, driven by hand: PaddlePaddle 2.6.2 builds the sync
    trainer program (``send`` ops that push each dense gradient, then ``send_barrier``) and
    sync servers (a dense table that only collects gradients, a barrier table that averages
    and applies them when every worker has reached it), but never makes the communicator its
    ``send_barrier`` op asks for (it makes one in geo mode only): the op crashes. Nothing in
    2.6.2 would pull the new parameters either. So: a communicator is made and left stopped
    (its barrier then returns at once, and the worker's table barrier has a client), and each
    step is

      run the program (its send ops push this worker's gradients to the servers),
      flush the client (the pushes have arrived),
      barrier on the servers' barrier table (when all workers are there, the servers apply
      the mean of their gradients, one optimizer step),
      pull the dense parameters.

    Every worker then computes its next gradients on the same parameters: one step of the
    optimizer on the mean gradient of all workers' batches. It uses 2.6.2's runtime objects
    (``fleet.fleet._runtime_handle``), which later versions may change.
    """
    from paddle.distributed.communicator import Communicator
    from paddle.distributed.ps.utils.public import get_the_one_recv_context
    runtime = fleet.fleet._runtime_handle
    context, role = runtime.context, runtime.role_maker
    dense = get_the_one_recv_context(context, split_dense_table=False)
    scope = paddle.static.global_scope()
    envs = {"need_global_step": "0", "trainer_id": role._role_id(),
            "trainers": role._worker_num(), "pserver_endpoints": role._get_pserver_endpoints(),
            "barrier_table_id": runtime.ps_desc_builder.barrier_table_id}
    communicator = Communicator(context["ps_mode"], envs,
                                context["trainer"].get_communicator_flags())
    communicator.init_with_ctx(runtime._send_ctx, dense,
                               runtime.ps_desc_builder.build_worker_desc(),
                               runtime.string_hosts, scope)
    for step, path in enumerate(files):
        (loss,) = exe.run(program, feed=read_batch(path, spec["feeds"]),
                          fetch_list=[spec["loss"]])
        runtime._worker.client_flush()
        runtime._worker.barrier(0)
        runtime._pull_all_dense([scope], runtime._send_ctx, dense)
        report(worker, step, loss)


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


def dataset_steps(paddle, exe, program, spec, files, worker):
    """Fleet's asynchronous parameter servers: PaddlePaddle 2.6.2 pulls and pushes them only in
    ``train_from_dataset``. Each step is one pass over a one-batch dataset (the batch file as
    MultiSlot text: per row, per feed, the value count then the values); the loss, made
    persistable, is read from the global scope after it."""
    import tempfile
    feeds = [program.global_block().var(name) for name in spec["feeds"]]
    folder = tempfile.mkdtemp(prefix=f"worker{worker}_")
    text = os.path.join(folder, "batch.txt")
    for step, path in enumerate(files):
        batch = read_batch(path, spec["feeds"])
        rows = len(batch[spec["feeds"][0]])
        with open(text, "w") as f:
            for i in range(rows):
                f.write(" ".join(slot_text(batch[name][i]) for name in spec["feeds"]) + "\n")
        dataset = paddle.distributed.QueueDataset()
        dataset.init(batch_size=rows, thread_num=1, use_var=feeds, pipe_command="cat")
        dataset.set_filelist([text])
        exe.train_from_dataset(program=program, dataset=dataset)
        report(worker, step, np.array(paddle.static.global_scope().find_var(LOSS_COPY)
                                      .get_tensor()))


def check_async(program, spec):
    """Stop (saying to use --ps-mode sync) where asynchronous mode's dataset cannot carry the
    program: a feed whose first dimension is not the batch (the dataset cuts every feed into
    rows), or a while loop (2.6.2's dataset trainer runs its gradient without the loop's step
    scopes: "Tensor holds no memory" in the grad ops inside while_grad)."""
    block = program.global_block()
    fixed = [n for n in spec["feeds"] if not block.var(n).shape or block.var(n).shape[0] != -1]
    if fixed:
        sys.exit(f"--ps-mode async: the feeds {', '.join(fixed)} have no batch dimension "
                 "first, and asynchronous mode feeds batches through a dataset of rows; use "
                 "--ps-mode sync")
    if any(op.type == "while" for b in program.blocks for op in b.ops):
        sys.exit("--ps-mode async: PaddlePaddle 2.6.2's dataset trainer cannot run a while "
                 "loop's gradient; use --ps-mode sync")


def slot_text(values):
    flat = np.asarray(values).ravel()
    cast = float if flat.dtype.kind == "f" else int
    return " ".join([str(flat.size)] + [repr(cast(v)) for v in flat])


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


def exported_backward(paddle, spec):
    """The exported training program less its optimizer (the ops, their state and learning
    rates), and its (parameter, gradient) pairs: what Fleet's optimizer takes instead of
    differentiating the forward program itself, where PaddlePaddle 2.6.2 cannot (a StaticRNN's
    ``recurrent`` op: 2.6.2 has no StaticRNN, and no ``rnn_memory_helper_grad`` op for its
    backward pass to write). The gradients are then the ones paddle_nb wrote."""
    program = load_program(paddle, "main.pdmodel")
    block = program.global_block()
    optimizer, pairs = spec["optimizer"], []
    for index in reversed(range(len(block.ops))):
        op = block.ops[index]
        if op.has_attr("op_role") and int(op.attr("op_role")) & (OPTIMIZE | LRSCHED):
            if "Param" in op.input_names and op.input("Grad"):
                pairs.append((op.input("Param")[0], op.input("Param")[0] + "@GRAD"))
            block._remove_op(index)
    dropped = set(spec["optimizer_state"]) | {optimizer["learning_rate_var"]} | \
        {p["learning_rate_var"] for p in optimizer["per_parameter"]}
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for name in dropped - used - {None}:
        if block.has_var(name):
            block._remove_var(name)
    program._sync_with_cpp()
    return program, [(block.var(p), block.var(g)) for p, g in reversed(pairs)]


def server_forward(paddle, forward, loss_name):
    """A parameter server's stand-in for the forward program: its parameters (same names,
    shapes, order) and a loss that reads each, named as the real one. PaddlePaddle 2.6.2's
    servers take only the parameters, their gradients and the optimizer from the program; and
    on a server Fleet points the loss's block at a new program of one block before reading the
    block's ops, so an op with a sub-block (conditional_block, while, recurrent) fails there
    (its sub_block index is out of range). Without such ops nothing changes either way."""
    program, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(program, startup):
        total = paddle.add_n([paddle.mean(paddle.static.create_parameter(p.shape, p.dtype,
                                                                         name=p.name))
                              for p in forward.global_block().all_parameters()])
        loss = program.global_block().create_var(name=loss_name, shape=total.shape,
                                                 dtype=total.dtype)
        paddle.assign(total, output=loss)
    return program, startup


def check_fleet(spec, parameter_servers, ps_mode="async"):
    """Stop (with why, and what to do) before Fleet trains the program otherwise than the
    exported one: Fleet's optimizer is made from the type and learning rate alone, so
    gradient clipping and weight decay ops are refused; on PaddlePaddle 2.6.2's parameter
    servers the optimizer must be SGD or Adam (any other raises in the server process, and the
    workers wait for it forever) at a fixed learning rate (2.6.2 moves a scheduler onto the
    servers, driven by their own step count, for five scheduler classes only). Geo mode is
    let through with a warning: 2.6.2 exchanges no dense parameter in it."""
    optimizer = spec["optimizer"]
    if spec.get("other_optimize_ops"):
        sys.exit(f"the optimizer adds {', '.join(spec['other_optimize_ops'])} ops (gradient "
                 "clipping or weight decay), which train.py cannot give Fleet's optimizer; "
                 "train this program in one process")
    if not parameter_servers:
        return
    if optimizer["type"] not in PS_OPTIMIZERS:
        sys.exit(f"optimizer {optimizer['type']!r}: PaddlePaddle 2.6's parameter servers "
                 f"update dense parameters with {' or '.join(PS_OPTIMIZERS)} only; train this "
                 "program in one process, or collectively on GPUs")
    if optimizer.get("lr_scheduler"):
        sys.exit(f"learning-rate scheduler {optimizer['lr_scheduler']['type']}: train.py runs "
                 "schedulers in one process and collectively, not on parameter servers "
                 "(whose learning rate lives on the servers)")
    if ps_mode == "geo":
        print("train.py: geo mode: PaddlePaddle 2.6.2 exchanges sparse tables only, so each "
              "worker trains its own copy of the dense parameters", file=sys.stderr, flush=True)


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


def main(argv=None):
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
