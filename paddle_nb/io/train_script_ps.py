"""The parameter-server part of the ``train.py`` that ``export_training`` writes.

Text, like the rest of the script (``train_script.py`` puts it between the script's start and
its ``main``): the functions through which the script asks PaddlePaddle 2.6.2's Fleet for
asynchronous, synchronous or geo updates on CPU parameter servers, what it does where 2.6.2
cannot do a thing by itself (synchronous steps; a server's program; the gradients of a
StaticRNN), and what it refuses before any process waits for another. Each function says what
it found in 2.6.2 by running it and reading its Fleet source.
"""

__all__ = ["PARAMETER_SERVERS"]

PARAMETER_SERVERS = r'''def ps_mode(strategy, mode, k_steps):
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


'''
