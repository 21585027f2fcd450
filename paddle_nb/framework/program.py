"""Programs: a list of blocks, the first one global ("Design Doc: Python API").

A Program is a view over a ProgramDesc. It keeps that document's
construction-time state: the current block (``create_block`` makes a kid of
it current, ``rollback`` returns to the parent), a unique-name counter, the
role of the ops being appended (forward, backward, optimize), and a
``version`` that changes whenever the program does, so that an executor can
cache what it prepared.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

from paddle_nb.errors import ProtoDecodeError
from paddle_nb.framework.attrs import write_attr
from paddle_nb.framework.block import Block
from paddle_nb.framework.names import ProgramNames
from paddle_nb.framework.operator import Operator, OpRole
from paddle_nb.framework.printer import program_to_text
from paddle_nb.framework.prune import prune
from paddle_nb.framework.validate import validate_program_desc
from paddle_nb.framework.variable import Parameter, Variable
from paddle_nb.proto import framework_pb2

__all__ = ["Program", "INITIALIZES_ONCE"]

# The OpDesc attribute (BOOLEAN, true) that marks an initializer of the preamble: paddle_nb's
# own, kept as it came by PaddlePaddle 2.6.2 (an attribute its op does not declare is an
# "extra" one: ``parse_from_string``, ``clone`` and ``serialize_to_string`` keep it, and its
# executor runs the op as usual, every run), so the mark survives a save and a parse.
INITIALIZES_ONCE = "initializes_once"


class Program:
    """A program of nested blocks.

    >>> p = Program()
    >>> b = p.create_block()
    >>> p.current_block().idx, b.parent_idx
    (1, 0)
    >>> p.rollback(); p.current_block().idx
    0
    """

    def __init__(self) -> None:
        self._set_fields(framework_pb2.ProgramDesc())
        self._add_block(-1)

    def _set_fields(self, desc: Any) -> None:
        """Every field of a Program, over ``desc`` and with no blocks yet: the one place both
        constructors (``Program()`` and ``from_desc``) set them."""
        self.desc = desc
        self.blocks: list[Block] = []
        self._current = 0
        self.names = ProgramNames()      # both APIs' names in this program (names.py)
        self._role = OpRole.FORWARD
        self._startup: Program | None = None   # set by program_guard: gets the initializers
        self.version = 0
        self.random_seed = 0
        self.lr_scheduler: Any = None    # a paddle.optimizer.lr scheduler: the Executor writes its
        self.lr_var_name: str | None = None     # value into this variable before each run
        # the preamble's ops (see preamble_length): those whose desc has INITIALIZES_ONCE
        self._initializers: weakref.WeakSet[Operator] = weakref.WeakSet()
        self._preamble = 0                       # their count, as last seen

    # -- blocks -------------------------------------------------------------------------------
    def _add_block(self, parent_idx: int) -> Block:
        desc = self.desc.blocks.add()
        desc.idx = len(self.blocks)
        desc.parent_idx = parent_idx
        block = Block(self, desc)
        self.blocks.append(block)
        self.bump_version()
        return block

    def global_block(self) -> Block:
        return self.blocks[0]

    def current_block(self) -> Block:
        return self.blocks[self._current]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def create_block(self, parent_idx: int | None = None) -> Block:
        """A new block whose parent is the current block (or ``parent_idx``); it becomes current."""
        parent = self._current if parent_idx is None else parent_idx
        block = self._add_block(parent)
        self._current = block.idx
        return block

    def rollback(self) -> None:
        """Make the current block's parent current again."""
        parent = self.current_block().parent_idx
        self._current = max(parent, 0)

    @contextlib.contextmanager
    def block_guard(self, parent_idx: int | None = None) -> Iterator[Block]:
        """Create a block, make it current, and make the block that was current before
        current again in ``finally`` (the new block's parent, unless ``parent_idx`` said
        otherwise, as a grad block made for a sub-block does)."""
        before = self._current
        block = self.create_block(parent_idx)
        try:
            yield block
        finally:
            self._current = before

    _block_guard = block_guard   # the older name, which tests and notebooks still use

    @property
    def role(self) -> int:
        """The OpRole that ops appended now get (``role_guard`` changes it)."""
        return self._role

    @contextlib.contextmanager
    def role_guard(self, role: int) -> Iterator[None]:
        """Mark the ops appended in the with-block with ``role`` (OpRole: backward, optimize)."""
        old, self._role = self._role, role
        try:
            yield
        finally:
            self._role = old

    @contextlib.contextmanager
    def startup_guard(self, startup: Program | None) -> Iterator[None]:
        """Put the initializer ops of persistables declared in the with-block in program
        ``startup`` (None: in this program's preamble), as ``program_guard`` does."""
        old, self._startup = self._startup, startup
        try:
            yield
        finally:
            self._startup = old

    @property
    def startup_program(self) -> Program | None:
        """Where initializer ops go now: the startup program ``program_guard`` gave, or None
        (this program's preamble)."""
        return self._startup

    def initializers_to(self, startup: Program | None) -> contextlib.AbstractContextManager[None]:
        """``startup_guard(startup)``, except that None leaves the initializers where they
        go now (an optimizer's ``minimize(startup_program=None)``)."""
        return self.startup_guard(startup if startup is not None else self._startup)

    # -- names and versions -------------------------------------------------------------------
    def unique_name(self, prefix: str) -> str:
        """``prefix_N`` from this program's counter (the Fluid-1.8 layers' names), skipping a
        name the 2.x generator already gave in this program."""
        return self.names.fluid(prefix)

    def unique_tmp(self, prefix: str) -> str:
        """A fresh temporary's name: ``relu_0.tmp_0``."""
        return f"{self.unique_name(prefix)}.tmp_0"

    def bump_version(self) -> None:
        """Mark the program changed: an executor re-prepares a program whose version moved.
        Blocks, variables and operators call this whenever they change the desc."""
        self.version += 1

    def initialize(self, param: Variable, initializer: Any = None) -> None:
        """Put ``param``'s initializer op in the startup program or the preamble.

        ``initializer`` serves persistables that are not Parameters (an
        optimizer's learning rate and accumulators); a Parameter has its own. An op put
        in the preamble carries the attribute ``initializes_once`` (``INITIALIZES_ONCE``).
        """
        init: Any = initializer or getattr(param, "initializer", None)
        if self._startup is not None:
            glob = self._startup.global_block()
            target = glob.create_var(name=param.name, shape=param.shape, dtype=param.dtype,
                                     persistable=True)
            init.append_to(glob, target, index=len(glob.ops))
        else:
            glob = self.global_block()
            n = self.preamble_length()
            init.append_to(glob, param, index=n)
            op = glob.ops[n]
            write_attr(op.desc.attrs.add(), INITIALIZES_ONCE, framework_pb2.AttrType.BOOLEAN,
                       True)
            self._initializers.add(op)
            self._preamble = n + 1

    def initializes_once(self, op: Operator) -> bool:
        """True for an initializer this program's builder put in its preamble
        (:meth:`initialize` without a startup program): it runs once per scope, skipped
        where its outputs already have values, so training never re-initializes. A fact of
        construction, recorded when the op is made in its desc (the attribute
        ``initializes_once``), so ``clone``, ``prune``, ``serialize`` and ``Program.parse``
        keep it; every interpreter asks this, none looks at the ops to guess."""
        return op in self._initializers

    def preamble_length(self) -> int:
        """How many leading ops of the global block are initializers the framework put there.

        Without a startup program, making a parameter (or an optimizer's state) puts its
        initializer in the global block's preamble ("Design Doc: Python API"); the executor runs
        each of those once per scope (skipped when its outputs already have values
        there), so training never re-initializes. Only those: any other op, even one
        that reads nothing and writes a persistable, runs on every run, as in
        PaddlePaddle. Which ops they are is construction-time information, which the
        ops' descs carry (``initializes_once``): a parsed program, a clone and a pruned
        program have the same preamble as the program they came from.
        """
        ops, marked = self.global_block().ops, self._initializers
        n = self._preamble          # re-checked at its edges, so making many parameters is linear
        if n <= len(ops) and (n == 0 or (ops[0] in marked and ops[n - 1] in marked)) \
                and (n == len(ops) or ops[n] not in marked):
            return n
        n = 0
        while n < len(ops) and ops[n] in marked:
            n += 1
        self._preamble = n
        return n

    # -- views ----------------------------------------------------------------------------------
    def list_vars(self) -> Iterator[Variable]:
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self) -> list[Parameter]:
        return self.global_block().all_parameters()

    # -- serialization ---------------------------------------------------------------------------
    def serialize(self) -> bytes:
        """The ProgramDesc as bytes (PaddlePaddle's ``__model__`` / ``.pdmodel`` format)."""
        return self.desc.SerializeToString()

    @classmethod
    def parse(cls, data: bytes | bytearray | memoryview) -> Program:
        """A Program from serialized ProgramDesc bytes (also PaddlePaddle's)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Program.parse: expected bytes, got {type(data).__name__}")
        desc = framework_pb2.ProgramDesc()
        try:
            desc.ParseFromString(bytes(data))
        except Exception as err:
            raise ProtoDecodeError(f"cannot decode a ProgramDesc from {len(data)} bytes: "
                                   f"{err}") from None
        return cls.from_desc(desc)

    @classmethod
    def from_paddle(cls, program: Any) -> Program:
        """A Program from a PaddlePaddle ``paddle.static.Program``, through its serialized
        desc (``program.desc.serialize_to_string()``): paddle itself is not imported."""
        serialize = getattr(getattr(program, "desc", None), "serialize_to_string", None)
        if serialize is None:
            raise TypeError("Program.from_paddle: expected a PaddlePaddle paddle.static.Program "
                            f"(with .desc.serialize_to_string()), got {type(program).__name__}")
        return cls.parse(serialize())

    def to_paddle(self) -> Any:
        """This program as a PaddlePaddle ``paddle.static.Program`` (made with
        ``Program.parse_from_string`` from the serialized desc); needs PaddlePaddle installed."""
        try:
            import paddle
        except ImportError:
            raise ImportError("Program.to_paddle needs PaddlePaddle, which is not installed "
                              "(pip install paddlepaddle==2.6.2); Program.serialize() gives the "
                              "bytes PaddlePaddle reads") from None
        return paddle.static.Program.parse_from_string(self.serialize())

    @classmethod
    def from_desc(cls, desc: Any, source: Program | None = None, *,
                  validate: bool = True) -> Program:
        """A Program over ``desc`` (validated, not copied). With ``source``, it also takes
        source's construction-time information, which the desc does not hold: what
        ``clone`` and ``prune`` return. ``validate=False`` is for an exact copy of a
        program already held (``clone``): it was checked when it was parsed.
        """
        program = cls._view(desc, validate)
        if source is not None:
            program._copy_construction_info(source)
        else:       # names made here from now on pass over the names the desc holds
            program.names.hold(name for block in program.blocks for name in block.vars)
        return program

    @classmethod
    def _view(cls, desc: Any, validate: bool = True) -> Program:
        if validate:
            validate_program_desc(desc)
        program = cls.__new__(cls)
        program._set_fields(desc)
        for block_desc in desc.blocks:
            block = Block(program, block_desc)
            program.blocks.append(block)
        for block in program.blocks:
            for var_desc in block.desc.vars:
                kind = Parameter if var_desc.is_parameter else Variable
                var = kind(block, var_desc) if kind is Variable else \
                    Parameter(block, var_desc, trainable=not var_desc.stop_gradient)
                block.vars[var_desc.name] = var
            for op_desc in block.desc.ops:
                op = Operator(block, op_desc)
                block.ops.append(op)
                if block.idx == 0 and _marked_once(op_desc):
                    program._initializers.add(op)
                for name in op.output_arg_names:
                    written = block.find_var(name)
                    if written is not None:
                        written.writer = op
        return program

    def clone(self, for_test: bool = False) -> Program:
        """A deep copy. ``for_test`` sets ``is_test`` on ops whose desc holds it (dropout,
        batch_norm), as PaddlePaddle's clone does: PaddlePaddle 2.6 writes no ``is_test`` on
        ``conv2d`` or ``pool2d``, whose kernels do not use it, and none is added. It also
        leaves out backward and optimizer ops, and the gradient variables no op uses."""
        other = Program.from_desc(framework_pb2.ProgramDesc.FromString(self.serialize()), self,
                                  validate=False)
        if for_test:
            for block in other.blocks:
                for k in reversed(range(len(block.ops))):
                    op = block.ops[k]
                    if op.role & (OpRole.BACKWARD | OpRole.OPTIMIZE):
                        block.remove_op(k)
                    elif op.has_attr("is_test"):
                        op.set_attr("is_test", True)
            for block in other.blocks:        # and the gradients no op uses any more
                used = {n for b in other.blocks for op in b.ops
                        for n in op.input_arg_names + op.output_arg_names}
                for name in [n for n in block.vars if "@GRAD" in n and n not in used]:
                    block.remove_var(name)
        return other

    def _copy_construction_info(self, source: Program) -> None:
        """Take ``source``'s names counter and its parameters' Python-side information."""
        self.names = source.names.copy()
        self.random_seed = source.random_seed
        self.lr_scheduler, self.lr_var_name = source.lr_scheduler, source.lr_var_name
        for param in source.all_parameters():
            copy = self.global_block().vars.get(param.name)
            if isinstance(copy, Parameter):
                copy.trainable = param.trainable
                copy.optimize_attr = dict(param.optimize_attr)
                copy.initializer = param.initializer
                copy.regularizer = param.regularizer
                copy.need_clip = param.need_clip

    def prune(self, targets: Iterable[Variable | str]) -> Program:
        """The minimal program that computes ``targets`` ("Design Doc: Block and Scope": Prune)."""
        return prune(self, targets)

    def __str__(self) -> str:
        return program_to_text(self)

    def __repr__(self) -> str:
        n_ops = sum(len(b.ops) for b in self.blocks)
        return f"<Program: {len(self.blocks)} blocks, {n_ops} ops>"


def _marked_once(op_desc: Any) -> bool:
    """Whether an OpDesc carries ``initializes_once`` = true (written by ``initialize``)."""
    return any(a.name == INITIALIZES_ONCE and a.b for a in op_desc.attrs)


def is_initializer(op: Operator) -> bool:
    """True for an op that reads nothing and writes only persistable variables."""
    if op.input_arg_names:
        return False
    names = op.output_arg_names
    if not names:
        return False
    for name in names:
        var = op.block.find_var(name)
        if var is None or not var.persistable:
            return False
    return True
