"""The layered core: backward induction over layers of states in fixed-size chunks.

An acyclic game is solved layer by layer (Kniffel: the number of filled boxes, from the last
layer to the first): every state of a layer depends only on later layers. ``run_layers`` is
the one driver for every such computation: optimal values, policy evaluation, exact score
distributions and the target objective differ only in the per-chunk ``step`` they pass.

``step(carry, operands, rows, *states) -> carry`` is a pure function of arrays:

* ``carry``: what the computation builds (a flat value table, a layer's output rows); it is
  donated, so an update in place costs no copy;
* ``operands``: read-only arrays of the layer (tables of later layers, constants);
* ``rows``: ``[chunk]`` position of each state within its layer (for per-layer outputs);
* ``states``: ``[chunk]`` int32 components of the chunk's states (the last chunk of a layer is
  padded by repeating the layer's first state, so one compiled program serves every chunk;
  a step that adds rather than sets masks the padding with ``real_rows(rows)``).

A ``SplitStep(compute, write)`` is a step in two parts: ``compute(carry, operands, rows,
*states) -> out`` (per-state results, the chunk axis leading) and ``write(carry, operands,
rows, states, out) -> carry``. The states of a layer do not read each other, so a split step's
chunks may be computed anywhere in any order once the layer before is written.

How a layer's chunks reach the devices is a schedule, named by the caller (``schedule=``) or
chosen by ``choose_schedule`` (``"auto"``, the default). All schedules run the same layer loop
(``_loop``: layer order, ``begin_layer`` / ``end_layer``, progress, timings) and give the same
values, bit for bit:

* ``per-chunk`` (``PerChunk``): one program call per chunk, on one device, or one program
  sharded by JAX over a mesh (a chunk's states split along the mesh, carry and operands
  replicated). The reference, and the only schedule of a plain step.
* ``streams`` (``Streams``): one chunk stream per device. Each device keeps its own copy of the
  carry and computes every n-th chunk whole; a chunk's results (not the carry) are copied to
  the other devices a few chunks later (``LAG``), when they are long done, and written into
  their copies, the rest when the layer ends. No stream waits for another and the copies agree
  at the end of every layer: no collective, no host synchronisation per chunk.
* ``whole-layer`` (``WholeLayer``): one program per layer for all the devices, one SPMD program
  (``shard_map`` over the mesh, everything replicated): the layer is cut into one contiguous
  share per device, the layers' states travel packed in a few buffers, each sent while the
  layer before its first computes, each device finds its share through a plan and a layer
  counter kept on the device, and a loop inside the program computes and writes the share's
  chunks; with several devices the shares' results are then gathered inside the program
  (``all_gather``: the devices meet once per layer, without the host) and each writes the
  others' into its own copy of the carry. A layer is dispatched before the previous one is
  waited on, so the host prepares the next layer while the devices compute. This takes the
  interpreter off the per-chunk path (a call and a transfer per chunk cost as much as computing
  many states), which on a CPU is what let small chunks and a second core pay.

A chunk travels as one ``[1 + components, size]`` int32 array (its rows, then its states'
components): one transfer. The driver compiles each schedule's programs once per key and
shapes through the shared compile cache (compile time is reported apart) and reports progress
per layer. ``begin_layer`` may replace the carry, the operands and the chunk size at the start
of a layer (e.g. a fresh output buffer sized for the layer's memory budget); ``end_layer`` sees
the carry when a layer is done (e.g. to move the layer's rows to the host).

A layer's time (``timings[index]["seconds"]``) means the same in every schedule: the wall
seconds from the previous layer's results being ready (the run's start for the first layer) to
this layer's results being ready, less the compile time spent in between. The layers' times add
up to the run's ``seconds``; where a layer is dispatched ahead (``whole-layer``), the host's
work for the next layer falls in the time of the layer it overlaps.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Hashable, NamedTuple, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsolve.core.arrays import Array
from jaxsolve.core.compile import abstract, compiled
from jaxsolve.errors import JaxsolveError

AXIS = "states"


@dataclass(frozen=True)
class Layer:
    """One layer: its index and its states as equal-length int32 component arrays."""

    index: int
    states: tuple


class SplitStep(NamedTuple):
    """A step as ``compute`` then ``write`` (see module docs); callable as a plain step."""

    compute: Callable
    write: Callable

    def __call__(self, carry: Any, operands: Any, rows: Array, *states: Array) -> Any:
        return self.write(carry, operands, rows, states, self.compute(carry, operands, rows, *states))


Step = Union[Callable, SplitStep]  # a plain step or a split one


def _packed(step: Step) -> Callable:
    """``step`` as a program of ``(carry, operands, chunk)``: ``chunk`` ``[1 + components, size]``
    int32 holds the rows and the states' components (one transfer per chunk, not one per array)."""

    def program(carry: Any, operands: Any, chunk: Array) -> Any:
        return step(carry, operands, chunk[0], *chunk[1:])

    return program


def _compute_write(step: SplitStep) -> Callable:
    def program(carry: Any, operands: Any, chunk: Array) -> tuple[Any, Any]:
        rows, states = chunk[0], tuple(chunk[1:])
        out = step.compute(carry, operands, rows, *states)
        return step.write(carry, operands, rows, states, out), out

    return program


def _write(step: SplitStep) -> Callable:
    def program(carry: Any, operands: Any, chunk: Array, out: Any) -> Any:
        return step.write(carry, operands, chunk[0], tuple(chunk[1:]), out)

    return program


class LayerSetup(NamedTuple):
    """What ``begin_layer`` returns: the carry, the operands and the chunk size of the layer."""

    carry: Any
    operands: Any
    chunk: int


class LayeredRun(NamedTuple):
    """What ``run_layers`` gives: the final ``carry``; ``compile_seconds``; ``seconds``, the run
    without compiling; ``timings``, per layer index ``{"states", "chunk", "seconds"}`` (a layer's
    time as the module docs define it); ``schedule``, the name of the schedule that ran."""

    carry: Any
    compile_seconds: float
    seconds: float
    timings: dict
    schedule: str


def make_mesh(devices: Sequence | int | None = None) -> Mesh:
    """A 1-d mesh over the state batch: ``devices`` (list), the first n visible, or all."""
    if devices is None:
        devices = jax.devices()
    elif isinstance(devices, int):
        visible = jax.devices()
        if not 1 <= devices <= len(visible):
            raise JaxsolveError(f"asked for {devices} devices, {len(visible)} visible")
        devices = visible[:devices]
    return Mesh(np.asarray(list(devices)), (AXIS,))


# Fewest states per chunk on an accelerator: a CPU core is busy with 1,024 states, a GPU needs
# tens of thousands of threads' work per program to hide its launch and memory latency.
CHUNK_FLOOR = {"gpu": 16384, "cuda": 16384, "rocm": 16384, "tpu": 16384}


def chunk_for(device: Any, chunk: int) -> int:
    """The chunk size a solve uses on ``device``: ``chunk``, raised to the device kind's floor
    (``CHUNK_FLOOR``; none on a CPU)."""
    return max(int(chunk), CHUNK_FLOOR.get(getattr(device, "platform", "cpu"), 0))


def plan_chunk(per_state_bytes: int, fixed_bytes: int, max_memory: int | None, chunk: int, num_devices: int) -> int:
    """Chunk size (a multiple of the device count) whose working set fits ``max_memory``."""
    if max_memory is not None:
        room = max_memory - fixed_bytes
        if room < per_state_bytes * num_devices:
            raise JaxsolveError(
                f"max_memory {max_memory / 2**20:.0f} MiB is too small: the fixed tables alone need {fixed_bytes / 2**20:.0f} MiB"
            )
        chunk = min(chunk, room // per_state_bytes)
    return max(num_devices, chunk // num_devices * num_devices)


def _chunks(states: tuple, chunk: int) -> np.ndarray:
    """``[chunks, 1 + components, chunk]`` int32: each chunk's rows and states' components, the
    layer padded once to a multiple of ``chunk`` (one contiguous array to transfer per chunk)."""
    n = len(states[0])
    pad = (-n) % chunk
    rows = np.arange(n + pad, dtype=np.int32)
    rows[n:] = 0
    padded = [np.concatenate([np.asarray(a, np.int32), np.repeat(np.asarray(a[:1], np.int32), pad)]) for a in states]
    packed = np.stack([rows] + padded)
    return np.ascontiguousarray(packed.reshape(len(packed), -1, chunk).transpose(1, 0, 2))


def real_rows(rows: Array) -> Array:
    """``[chunk]`` bool: the chunk's own states, False for the padding of a layer's last chunk.

    Padding repeats row 0 after the layer's last state, and rows increase along a chunk, so a
    row 0 anywhere but at the chunk's start is padding. A step that adds (rather than sets)
    per-state results masks with this.
    """
    return (rows > 0) | (jnp.arange(rows.shape[0]) == 0)


def _place(tree: Any, sharding: jax.sharding.Sharding) -> Any:
    return jax.tree_util.tree_map(lambda a: jax.device_put(a, sharding), tree)


def _shapes(tree: Any) -> tuple:
    """A hashable summary of a pytree's structure and its arrays' shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return (treedef,) + tuple((np.shape(a), str(getattr(a, "dtype", type(a)))) for a in leaves)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# ----------------------------------------------------------------------------- schedules


class Schedule(ABC):
    """How the chunks of a layer reach the devices: one object per run, driven by ``_loop``.

    ``start`` places the first carry and operands (and whatever the schedule prepares for all
    layers); ``adopt_carry`` / ``adopt_operands`` place the ones ``begin_layer`` or ``end_layer``
    give (replicated on ``rep``, unless a schedule keeps copies of its own); ``dispatch`` sends a
    layer's programs and returns what to wait on for its results; ``prepare`` may send a later
    layer's inputs ahead; ``carry`` is the carry as the caller sees it. ``ahead`` layers may be
    dispatched before the oldest is waited on; ``compile_seconds`` adds up the compile time of
    the programs the schedule looked up.
    """

    name: ClassVar[str]
    ahead: ClassVar[int] = 0
    rep: jax.sharding.Sharding

    def __init__(self, key: Hashable, step: Step, devices: list, mesh: Mesh | None):
        self.key, self.step, self.devices, self.mesh = key, step, devices, mesh
        self.compile_seconds = 0.0
        self._carry: Any = None
        self.operands: Any = None

    def size(self, chunk: int) -> int:
        """The chunk size of a layer that ``begin_layer`` does not size."""
        return chunk

    def start(self, layers: list[Layer], carry: Any, operands: Any) -> None:
        self.adopt_carry(carry)
        self.adopt_operands(operands)

    @property
    def carry(self) -> Any:
        return self._carry

    def adopt_carry(self, carry: Any) -> None:
        self._carry = _place(carry, self.rep)

    def adopt_operands(self, operands: Any) -> None:
        self.operands = _place(operands, self.rep)

    @abstractmethod
    def dispatch(self, k: int, layer: Layer, size: int) -> Any: ...

    def prepare(self, k: int) -> None:  # noqa: B027 (optional: most schedules send nothing ahead)
        """Send layer ``k``'s inputs ahead of its dispatch (nothing to send by default)."""


# Programs in flight at most before the host waits, where the devices of a program meet inside
# it (a sharded chunk's results gathered, a whole layer's shares): XLA's CPU client holds at most
# 32 computations in flight per device, and a caller blocked on that limit halfway through
# dispatching such a program never gets it going (the devices that started wait for the others).
IN_FLIGHT = 16


class PerChunk(Schedule):
    """One program call per chunk: on one device, or one program that JAX shards over the mesh
    (a chunk's states split along ``AXIS``, carry and operands replicated; the chunk a multiple
    of the device count; on several devices the host waits every ``IN_FLIGHT`` chunks). The
    reference every schedule agrees with."""

    name = "per-chunk"

    def __init__(self, key: Hashable, step: Step, devices: list, mesh: Mesh | None):
        super().__init__(key, step, devices, mesh)
        self.options: dict[str, Any] = {"donate_argnums": 0}
        self.batch: jax.sharding.Sharding
        if mesh is not None:
            self.rep, self.batch = NamedSharding(mesh, PartitionSpec()), NamedSharding(mesh, PartitionSpec(None, AXIS))
            self.options.update(in_shardings=(self.rep, self.rep, self.batch), out_shardings=self.rep)
        else:
            self.rep = self.batch = jax.sharding.SingleDeviceSharding(devices[0])
        self.program = _packed(step)

    def size(self, chunk: int) -> int:
        n = len(self.devices)
        return max(n, chunk // n * n)

    def dispatch(self, k: int, layer: Layer, size: int) -> Any:
        exe = None
        for i, chunk_h in enumerate(_chunks(layer.states, size)):
            chunk_d = jax.device_put(chunk_h, self.batch)
            if exe is None:  # the carry keeps its shape within a layer: one look-up per layer
                specs = abstract(self._carry), abstract(self.operands), abstract(chunk_d)
                exe, seconds = compiled(("layered", self.key), self.program, *specs, **self.options)
                self.compile_seconds += seconds
            if len(self.devices) > 1 and i and i % IN_FLIGHT == 0:
                jax.block_until_ready(self._carry)  # see IN_FLIGHT
            self._carry = exe(self._carry, self.operands, chunk_d)
        return self._carry


# Chunks per stream a chunk's results wait before they are copied to the other streams.
LAG = 2


class Streams(Schedule):
    """One chunk stream per device (see module docs): chunk i is computed whole on device
    i mod n, its results written into the other devices' copies of the carry ``LAG`` chunks
    per stream later, the rest when the layer ends."""

    name = "streams"

    def __init__(self, key: Hashable, step: Step, devices: list, mesh: Mesh | None):
        super().__init__(key, step, devices, mesh)
        self.shardings = [jax.sharding.SingleDeviceSharding(d) for d in devices]
        self.programs: dict[tuple, tuple[list, list]] = {}  # (computes, writes) by the shapes they take
        self.pending: list[tuple[int, np.ndarray, Any]] = []  # (device, chunk, out) the other streams still need
        self.carries: list = []
        self.ops: list = []

    @property
    def carry(self) -> Any:
        return self.carries[0]

    def adopt_carry(self, carry: Any) -> None:
        self.carries = [_place(carry, s) for s in self.shardings]

    def adopt_operands(self, operands: Any) -> None:
        self.ops = [_place(operands, s) for s in self.shardings]

    def _compile(self, chunk: np.ndarray) -> tuple[list, list]:
        """The compute-and-write program and the write program of every device, the devices'
        programs compiled at once (threads; XLA compiles without the interpreter lock)."""
        from concurrent.futures import ThreadPoolExecutor

        assert isinstance(self.step, SplitStep)
        step = self.step

        def one(e: int) -> tuple[jax.stages.Compiled, jax.stages.Compiled, float]:
            head = (abstract(self.carries[e]), abstract(self.ops[e]), jax.ShapeDtypeStruct(chunk.shape, chunk.dtype, sharding=self.shardings[e]))
            exe, seconds = compiled(("layered-stream", self.key), _compute_write(step), *head, donate_argnums=0)
            out_spec = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=self.shardings[e]), exe.out_info[1])
            write, more = compiled(("layered-write", self.key), _write(step), *head, out_spec, donate_argnums=0)
            return exe, write, seconds + more

        t0 = time.perf_counter()
        with ThreadPoolExecutor(len(self.devices)) as pool:
            done = list(pool.map(one, range(len(self.devices))))
        if any(d[2] for d in done):
            self.compile_seconds += time.perf_counter() - t0
        return [d[0] for d in done], [d[1] for d in done]

    def _exchange(self, writes: list, upto: int) -> None:
        """The other streams write the results of the first ``upto`` pending chunks into their copies."""
        for d, chunk_h, out in self.pending[:upto]:
            for e, sharding in enumerate(self.shardings):
                if e != d:
                    self.carries[e] = writes[e](self.carries[e], self.ops[e], _place(chunk_h, sharding), _place(out, sharding))
        del self.pending[:upto]

    def dispatch(self, k: int, layer: Layer, size: int) -> list[Any]:
        n_dev = len(self.devices)
        shapes = (size, len(layer.states)) + _shapes((self.carries[0], self.ops[0]))
        programs = self.programs.get(shapes)  # one look-up per layer: most layers share the programs
        for i, chunk_h in enumerate(_chunks(layer.states, size)):
            d = i % n_dev
            if programs is None:
                programs = self.programs[shapes] = self._compile(chunk_h)
            self.carries[d], out = programs[0][d](self.carries[d], self.ops[d], _place(chunk_h, self.shardings[d]))
            self.pending.append((d, chunk_h, out))
            # A chunk's results go to the other streams a few chunks later, when they are long
            # done: a stream never waits for another, and the copies overlap the computing. (A
            # layer's states do not read each other, so the copies need only be whole when the
            # layer ends.)
            if len(self.pending) > LAG * n_dev:
                self._exchange(programs[1], n_dev)
        if programs is not None:
            self._exchange(programs[1], len(self.pending))
        return list(self.carries)


def _take(states: jax.Array, where: jax.Array, i: Array, size: int) -> jax.Array:
    """Chunk ``i`` of a share, ``[1 + components, size]`` int32: its rows in the layer, then its
    states' components, gathered from ``states`` ``[components, capacity]`` (``_Groups``) at
    ``where`` = (share's first position, share's end, layer's first position); positions past the
    share's end are padding: the layer's first state, row 0 (as ``_chunks`` pads).

    Computed as the taken branch of a conditional that is true at run time, so the chunk is a
    buffer of its own (gathered into the step's many consumers of the states it would be
    recomputed in each, which is slower on a CPU)."""

    def take(states: jax.Array, where: jax.Array, i: Array) -> jax.Array:
        pos = where[0] + i * size + jnp.arange(size, dtype=jnp.int32)
        real = pos < where[1]
        pos = jnp.where(real, pos, where[2])
        return jnp.concatenate([jnp.where(real, pos - where[2], 0)[None], states[:, pos]])

    def never(states: jax.Array, where: jax.Array, i: Array) -> jax.Array:
        return jnp.zeros((1 + states.shape[0], size), states.dtype)

    return jax.lax.cond(i >= 0, take, never, states, where, i)


def _share(plan: jax.Array, layer: Array, share: Array, size: int) -> tuple[jax.Array, jax.Array]:
    """``(where, chunks)`` of share ``share`` of layer ``layer`` in ``plan`` ``[layers, shares, 3]``."""
    where = plan[layer, share]
    return where, (where[1] - where[0] + size - 1) // size


def _layer_program(step: SplitStep, size: int, slots: int, n_dev: int) -> Callable:
    """``(carry, operands, states, plan, at) -> (carry, next at)``, one SPMD program over the
    mesh of ``n_dev`` devices (``shard_map``, everything replicated): each device computes and
    writes its share of layer ``at[0]`` (``plan``, ``_take``) in one loop; with several devices
    the shares' results (``slots`` chunks at most each) are then gathered (``all_gather``: the
    devices meet once per layer, inside the program) and each device writes the others' into
    its copy of the carry. ``at`` is a counter kept on the device (no transfer per layer), and
    the next one is what the host waits on."""

    def program(carry: Any, operands: Any, states: jax.Array, plan: jax.Array, at: jax.Array) -> tuple[Any, jax.Array]:
        me = jax.lax.axis_index(AXIS)
        where, chunks = _share(plan, at[0], me, size)
        outs = None
        if n_dev > 1:
            head = jnp.zeros(size, jnp.int32)
            shapes = jax.eval_shape(step.compute, carry, operands, head, *[head] * states.shape[0])
            outs = jax.tree_util.tree_map(lambda s: jnp.zeros((slots,) + s.shape, s.dtype), shapes)

        def body(i: Array, state: tuple[Any, Any]) -> tuple[Any, Any]:
            carry, outs = state
            chunk = _take(states, where, i, size)
            rows, components = chunk[0], tuple(chunk[1:])
            out = step.compute(carry, operands, rows, *components)
            carry = step.write(carry, operands, rows, components, out)
            if n_dev > 1:
                outs = jax.tree_util.tree_map(lambda o, x: o.at[i].set(x), outs, out)
            return carry, outs

        carry, outs = jax.lax.fori_loop(0, chunks, body, (carry, outs))
        if n_dev > 1:
            every = jax.tree_util.tree_map(lambda o: jax.lax.all_gather(o, AXIS), outs)
            for e in range(n_dev):  # the others' shares (its own share has no chunks to write)
                where_e, chunks_e = _share(plan, at[0], e, size)

                def write(i: Array, carry: Any, where_e: jax.Array = where_e, e: int = e) -> Any:
                    chunk = _take(states, where_e, i, size)
                    out = jax.tree_util.tree_map(lambda o: jax.lax.dynamic_index_in_dim(o[e], i, keepdims=False), every)
                    return step.write(carry, operands, chunk[0], tuple(chunk[1:]), out)

                carry = jax.lax.fori_loop(0, jnp.where(me == e, 0, chunks_e), write, carry)
        return carry, at.at[0].add(1)

    return program


class _Groups:
    """The layers' states packed into buffers of one shape, ``[components, capacity]`` int32, the
    capacity that of the widest layer, consecutive layers together while they fit: one transfer
    per device and buffer, not one per layer or chunk, and the first layers (the smallest,
    from the game's end) start computing while the host packs the later ones."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        sizes = [len(layer.states[0]) for layer in layers]
        self.capacity = max(sizes)
        self.where: list[tuple[int, int]] = []  # per layer: (buffer number, first position)
        used, number = self.capacity, -1
        for n in sizes:
            if used + n > self.capacity:
                number, used = number + 1, 0
            self.where.append((number, used))
            used += n
        self.layers = layers

    def plan(self, parts: int) -> np.ndarray:
        """``[layers, parts, 3]`` int32: per layer its ``parts`` contiguous shares of nearly equal
        size as (first position, end, layer's first position) in the layer's buffer; a share
        past the layer's end is empty (first position = end)."""
        out = np.zeros((len(self.layers), parts, 3), np.int32)
        for k, (layer, (_, first)) in enumerate(zip(self.layers, self.where)):
            n = len(layer.states[0])
            share = -(-n // parts)
            lo = np.minimum(n, np.arange(parts) * share)
            out[k, :, 0], out[k, :, 1], out[k, :, 2] = first + lo, first + np.minimum(n, lo + share), first
        return out

    def buffer(self, number: int) -> np.ndarray:
        out = np.zeros((len(self.layers[0].states), self.capacity), np.int32)
        for layer, (b, first) in zip(self.layers, self.where):
            if b == number:
                for j, a in enumerate(layer.states):
                    out[j, first : first + len(a)] = a
        return out


class WholeLayer(Schedule):
    """One SPMD program per layer for all the devices (``_layer_program``, see module docs),
    the next layer dispatched before the last is waited on, and no further (``IN_FLIGHT``)."""

    name = "whole-layer"
    ahead = 1

    def __init__(self, key: Hashable, step: Step, devices: list, mesh: Mesh | None):
        super().__init__(key, step, devices, mesh)
        self.spmd_mesh = make_mesh(devices)
        self.rep = NamedSharding(self.spmd_mesh, PartitionSpec())
        self.programs: dict[tuple, Any] = {}  # by the shapes they take (a look-up per layer, no specs built)
        self.buffers: dict[int, Any] = {}  # buffer number -> its states on the devices, sent one layer ahead of its use

    def _send(self, tree: Any) -> Any:
        """Host arrays as a copy owned by JAX (cheaper than an alias here)."""
        return jax.device_put(tree, self.rep, may_alias=False)

    def start(self, layers: list[Layer], carry: Any, operands: Any) -> None:
        super().start(layers, carry, operands)
        if layers:
            self.groups = _Groups(layers)
            self.widest = max(len(layer.states[0]) for layer in layers)
            self.plan = self._send(self.groups.plan(len(self.devices)))
            self.at = self._send(np.zeros(1, np.int32))

    def prepare(self, k: int) -> None:
        """Pack and send the buffer of layer ``k``'s states, while the devices compute."""
        b = self.groups.where[k][0]
        if b not in self.buffers:
            self.buffers.clear()  # layers use the buffers in order: the earlier ones are done with
            self.buffers[b] = self._send(self.groups.buffer(b))

    def _program(self, size: int, args: tuple) -> jax.stages.Compiled:
        assert isinstance(self.step, SplitStep)
        n_dev = len(self.devices)
        shapes = (size,) + _shapes(args)
        exe = self.programs.get(shapes)
        if exe is None:
            slots = _ceil_div(_ceil_div(self.widest, n_dev), size)  # the most chunks of a share
            fn = jax.shard_map(
                _layer_program(self.step, size, slots, n_dev), mesh=self.spmd_mesh, in_specs=PartitionSpec(), out_specs=PartitionSpec(), check_vma=False
            )
            exe, seconds = compiled(("layered-layer", self.key, size, slots, n_dev), fn, *abstract(args), donate_argnums=0)
            self.compile_seconds += seconds
            self.programs[shapes] = exe
        return exe

    def dispatch(self, k: int, layer: Layer, size: int) -> Any:
        self.prepare(k)
        args = (self._carry, self.operands, self.buffers[self.groups.where[k][0]], self.plan, self.at)
        self._carry, self.at = self._program(size, args)(*args)
        return self.at  # the carry is donated to the next layer's program before this one is waited on


SCHEDULES: dict[str, type[Schedule]] = {s.name: s for s in (PerChunk, Streams, WholeLayer)}


def choose_schedule(step: Step, devices: Sequence, per_layer_setup: bool) -> tuple[str, str]:
    """The schedule ``"auto"`` stands for, and why: the one rule of the layered core.

    * a plain step (not a ``SplitStep``): ``per-chunk``, the only schedule that runs it;
    * a split step on CPU devices only, without per-layer setup: ``whole-layer``. On a CPU a
      call and a transfer per chunk cost as much as a few hundred states, and one program per
      layer takes the interpreter off that path (and lets a second core pay);
    * a split step on several devices otherwise: ``streams``, one chunk stream per device;
    * otherwise (one accelerator): ``per-chunk``; an accelerator's chunks are large enough to hide
      a call each, and its loops would read their predicates on the host, a synchronisation per
      chunk.

    A step with per-layer setup (``begin_layer``: the distribution, the target objective, the
    saved-throw solve) builds each layer's output in a carry of its own, with a chunk sized to a
    memory budget; the whole-layer schedule would hold a device's results for its whole share
    (gathered with several devices), so such a step keeps to the chunk-by-chunk schedules.
    """
    if not isinstance(step, SplitStep):
        return "per-chunk", "a plain step: one program per chunk"
    if all(getattr(d, "platform", "cpu") == "cpu" for d in devices) and not per_layer_setup:
        return "whole-layer", "CPU devices: one program per layer instead of one call per chunk"
    if len(devices) > 1:
        return "streams", f"{len(devices)} devices: one chunk stream each"
    return "per-chunk", "one accelerator: its chunks hide a call each"


def _loop(
    schedule: Schedule,
    layers: list[Layer],
    carry: Any,
    operands: Any,
    chunk: int,
    begin_layer: Callable[[Layer, Any], LayerSetup] | None,
    end_layer: Callable[[Layer, Any], Any] | None,
    on_layer: Callable[[int, int], None] | None,
) -> LayeredRun:
    """The layer loop every schedule runs: layers in order, per-layer setup and end, progress
    and timings (a layer's time as the module docs define it)."""
    schedule.start(layers, carry, operands)
    size = schedule.size(chunk)
    timings: dict = {}
    waiting: deque[tuple[Layer, Any, int]] = deque()  # (layer, what its results are, its chunk)
    t_all = time.perf_counter()
    last_done, last_compile = t_all, 0.0  # when the last layer was ready, compile seconds until then

    def finish() -> None:
        nonlocal last_done, last_compile
        layer, ready, its_size = waiting.popleft()
        jax.block_until_ready(ready)
        now, compile_seconds = time.perf_counter(), schedule.compile_seconds
        n = len(layer.states[0])
        seconds = now - last_done - (compile_seconds - last_compile)
        timings[layer.index] = {"states": n, "chunk": its_size, "seconds": round(seconds, 4)}
        last_done, last_compile = now, compile_seconds
        if on_layer is not None:
            on_layer(layer.index, n)

    for k, layer in enumerate(layers):
        if begin_layer is not None:
            setup = begin_layer(layer, schedule.carry)
            schedule.adopt_carry(setup.carry)
            schedule.adopt_operands(setup.operands)
            size = setup.chunk
        ready = schedule.dispatch(k, layer, size)
        if end_layer is not None:
            schedule.adopt_carry(end_layer(layer, schedule.carry))
        waiting.append((layer, ready, size))
        if k + 1 < len(layers):
            schedule.prepare(k + 1)
        while len(waiting) > schedule.ahead:
            finish()
    while waiting:
        finish()
    jax.block_until_ready(schedule.carry)
    seconds = time.perf_counter() - t_all - schedule.compile_seconds
    return LayeredRun(schedule.carry, schedule.compile_seconds, seconds, timings, schedule.name)


def run_layers(
    key: Hashable,
    step: Step,
    layers: Sequence[Layer],
    carry: Any,
    operands: Any = (),
    *,
    chunk: int = 1024,
    mesh: Mesh | None = None,
    device: jax.Device | None = None,
    schedule: str = "auto",
    begin_layer: Callable[[Layer, Any], LayerSetup] | None = None,
    end_layer: Callable[[Layer, Any], Any] | None = None,
    on_layer: Callable[[int, int], None] | None = None,
) -> LayeredRun:
    """Run ``step`` over every chunk of every layer, in the order given (see module docs).

    ``key`` names ``step`` with everything it closes over (rules, objective, settings);
    ``mesh`` spreads the chunks over its devices (default: one ``device``, JAX's default if
    None); ``schedule`` names how (``per-chunk``, ``streams``, ``whole-layer``), ``auto``
    (default) leaves it to ``choose_schedule``.
    """
    if int(chunk) < 1:
        raise JaxsolveError(f"chunk must be >= 1, got {chunk}")
    devices = list(mesh.devices.flat) if mesh is not None else [device or jax.devices()[0]]
    if schedule == "auto":
        schedule = choose_schedule(step, devices, begin_layer is not None)[0]
    if schedule not in SCHEDULES:
        raise JaxsolveError(f"unknown schedule {schedule!r}: auto, {', '.join(SCHEDULES)}")
    if schedule != PerChunk.name and not isinstance(step, SplitStep):
        raise JaxsolveError(f"the {schedule} schedule needs a SplitStep(compute, write), not a plain step")
    return _loop(SCHEDULES[schedule](key, step, devices, mesh), list(layers), carry, operands, int(chunk), begin_layer, end_layer, on_layer)


# ----------------------------------------------------------------------------- vector layers


@dataclass(frozen=True)
class VectorLayer:
    """One layer of a vector solve: ``key`` names it (timings, progress, ``on_values``), ``rows``
    its states, ``width`` the channels of each state's vector, ``states(rows)`` the int32
    components of the states at those row indices (the step's ``*states``)."""

    key: int
    rows: int
    width: int
    states: Callable[[np.ndarray], tuple]


class VectorSolve(NamedTuple):
    """What ``solve_vector_layers`` gives: ``layers``, the kept layers' ``[rows, width]`` host
    values by key; ``seconds`` without compiling, ``compile_seconds``; ``device``, the devices
    (and process) that ran it; ``timings`` by key, a layer's pieces summed."""

    layers: dict
    seconds: float
    compile_seconds: float
    device: str
    timings: dict


def local_devices(devices: Sequence | int | None) -> list:
    """This process's devices a solve under ``jax.distributed`` uses: ``devices`` (a list of
    this process's devices, as given; a count of the first local ones; None: all local ones)."""
    if devices is not None and not isinstance(devices, int):
        return list(devices)
    local = jax.local_devices()
    n = len(local) if devices is None else int(devices)
    if not 1 <= n <= len(local):
        raise JaxsolveError(f"asked for {n} devices in this process, {len(local)} visible")
    return local[:n]


def process_share(rows: int, chunk: int, processes: int, rank: int) -> tuple[int, int, int]:
    """``(first, stop, height)``: the rows ``first:stop`` of a layer that process ``rank`` of
    ``processes`` solves, and the rows every process's share is sized for. The layer's chunks
    (``chunk`` rows each, as one process cuts them) are dealt in contiguous runs of
    ``ceil(chunks / processes)``, so a process computes exactly one process's chunks; a
    process past the layer's end has an empty share (``first == stop``)."""
    chunks = -(-rows // chunk)
    run = -(-chunks // processes) * chunk
    first = min(rows, rank * run)
    return first, min(rows, first + run), run


def gather_shares(share: np.ndarray, where: tuple[int, int, int], rows: int, width: int) -> np.ndarray:
    """``[rows, width]``: every process's rows of a layer (``process_share``), this process's
    given as ``share`` (its first rows, columns from the first), gathered across the processes
    (``multihost_utils.process_allgather``: each process sends its share and receives the others')."""
    from jax.experimental import multihost_utils

    first, stop, height = where
    mine = np.zeros((height, width), share.dtype)
    mine[: stop - first] = share[: stop - first, :width]
    return np.asarray(multihost_utils.process_allgather(mine)).reshape(-1, width)[:rows]


def solve_vector_layers(
    key: Hashable,
    turn: Callable[..., Any],
    layers: Sequence[VectorLayer],
    end: np.ndarray,
    prepare: Callable[[np.ndarray, VectorLayer, int, int], tuple],
    *,
    dtype: Any,
    per_state_bytes: Callable[[int], int],
    fixed_bytes: Callable[[VectorLayer, int, int], int],
    chunk: int,
    devices: Sequence | int | None = 1,
    max_memory: int | None = None,
    shared: tuple = (),
    uniform: tuple[int, int] | None = None,
    keep: Callable[[VectorLayer], bool] = lambda layer: True,
    finish: Callable[[np.ndarray], np.ndarray] | None = None,
    on_layer: Callable[[int, int], None] | None = None,
    on_values: Callable[[int, np.ndarray], None] | None = None,
    sink: Callable[[VectorLayer], np.ndarray] | None = None,
    slice_bytes: int = 1 << 30,
    progress: str | None = None,
) -> VectorSolve:
    """The one driver of every layered vector solve (the distribution, the target objective, the
    two-player lead): each layer a ``[rows, width]`` table whose rows are computed from the layer
    solved before it (the first from ``end``), on ``run_layers``.

    ``turn(operands, *states, width=)`` gives a chunk's ``[B, width]`` rows; ``operands`` are
    ``shared`` (device arrays every layer reads) then ``prepare(prev, layer, width, height)``,
    the layer's own, built from the host values ``prev`` of the layer before when the layer
    starts (those of the layer before that are deleted first, so two layers' tables are never
    on a device at once). ``width`` and ``height`` are the shapes the program sees: the layer's
    own, or with ``uniform = (height, width)`` one shape for every layer (one compiled program;
    the rows and channels past a layer's own are computed for nothing and cut off).

    The driver owns what every such solve needs:

    * the chunk of each layer: a chunk's working set (``per_state_bytes(width)`` a state) beside
      the layer's tables (``fixed_bytes(layer, width, height)``) within ``max_memory``;
    * the devices (``devices``: a count or a list, the mesh of ``run_layers``) and, under
      ``jax.distributed`` with several processes (every process calls it alike), one
      contiguous share of every layer's chunks per process (``process_share``), gathered to
      every process when the layer is done (``gather_shares``): the values bit for bit those of
      one process (the same chunks, computed by the same program);
    * layers larger than memory: with ``sink(layer)`` (a ``[rows, width]`` array to assemble the
      layer in, e.g. a memory-mapped file) a layer of more than ``slice_bytes`` is solved in
      slices of whole chunks, each written into the sink as it is done;
    * ``finish`` (a done layer's host rows, e.g. its channels turned round), ``keep`` (which
      layers the result holds), ``on_values(key, values)`` (each layer as soon as it is known),
      ``on_layer(key, rows)`` (each layer done), per-layer timings, and with ``progress`` (a
      label) bars per layer with the time left on stderr (``core.progress.layer_bars``).
    Ctrl-C ends the solve between two programs (the command line's handler, ``jaxsolve.interrupt``).
    """
    run = _VectorRun(layers, end, prepare, dtype=dtype, per_state_bytes=per_state_bytes, fixed_bytes=fixed_bytes, chunk=chunk, devices=devices,
                     max_memory=max_memory, shared=shared, uniform=uniform, keep=keep, finish=finish, on_values=on_values, sink=sink,
                     slice_bytes=slice_bytes)
    return run.run(key, turn, on_layer, progress)


class _VectorRun:
    """The state of one ``solve_vector_layers`` call: each layer's chunk and this process's share,
    the pieces the layers are solved in, the layer before's values and operands, the kept layers."""

    def __init__(self, layers: Sequence[VectorLayer], end: np.ndarray, prepare: Callable[[np.ndarray, VectorLayer, int, int], tuple], *,
                 dtype: Any, per_state_bytes: Callable[[int], int], fixed_bytes: Callable[[VectorLayer, int, int], int], chunk: int,
                 devices: Sequence | int | None, max_memory: int | None, shared: tuple, uniform: tuple[int, int] | None,
                 keep: Callable[[VectorLayer], bool], finish: Callable[[np.ndarray], np.ndarray] | None,
                 on_values: Callable[[int, np.ndarray], None] | None, sink: Callable[[VectorLayer], np.ndarray] | None, slice_bytes: int):
        self.dtype = jnp.dtype(dtype)
        self.layers = list(layers)
        self.prepare, self.shared, self.uniform, self.keep, self.finish = prepare, tuple(shared), uniform, keep, finish
        self.on_values, self.sink, self.slice_bytes, self.chunk = on_values, sink, int(slice_bytes), int(chunk)
        self.processes, self.rank = jax.process_count(), jax.process_index()
        self.mesh = make_mesh(local_devices(devices) if self.processes > 1 else devices)
        if sink is not None and (self.processes > 1 or uniform is not None):
            raise JaxsolveError("a sink assembles the layers of one process solving one layer shape at a time")
        ndev = self.mesh.devices.size
        self.sizes: dict[int, int] = {}
        for layer in self.layers:
            height, width = self.shape_of(layer)
            if sink is not None:  # the layer held a slice at a time
                height = min(height, max(1, self.slice_bytes // (width * self.dtype.itemsize)))
            size = plan_chunk(per_state_bytes(width), fixed_bytes(layer, width, height), max_memory, chunk, ndev)
            self.sizes[layer.key] = min(size, -(-height // ndev) * ndev) if uniform is None else size
        self.shares = {layer.key: process_share(layer.rows, self.sizes[layer.key], self.processes, self.rank) for layer in self.layers}
        self.share_height = max((h for _, _, h in self.shares.values()), default=1)
        self.pieces = [(layer, r0, r1) for layer in self.layers for r0, r1 in self.slices(layer)]
        self.held: dict = {"prev": end, "own": (), "key": None}
        self.kept: dict = {}

    def shape_of(self, layer: VectorLayer) -> tuple[int, int]:
        """``(height, width)`` of a layer as its program sees it."""
        return (layer.rows, layer.width) if self.uniform is None else self.uniform

    def slices(self, layer: VectorLayer) -> list[tuple[int, int]]:
        """The rows ``first:stop`` of each piece a layer is solved in: this process's share, or
        with a sink slices of at most ``slice_bytes`` (whole chunks)."""
        first, stop, _ = self.shares[layer.key]
        if self.sink is None:
            return [(first, stop)]
        size = self.sizes[layer.key]
        rows = max(size, self.slice_bytes // max(1, layer.width * self.dtype.itemsize) // size * size)
        return [(r, min(stop, r + rows)) for r in range(first, max(stop, first + 1), rows)]

    def release(self) -> None:
        """Delete the device tables of the layer before (before the next are made)."""
        for a in self.held["own"]:
            if isinstance(a, jax.Array) and not a.is_deleted():
                a.delete()
        self.held["own"] = ()

    def begin_layer(self, piece: Layer, carry: Any) -> LayerSetup:
        del carry
        layer, first, stop = self.pieces[piece.index]
        height, width = self.shape_of(layer)
        if self.processes > 1:
            height = self.shares[layer.key][2] if self.uniform is None else self.share_height
        if self.sink is not None:
            height = stop - first
        if self.held["key"] != layer.key:  # the layer's first piece: its own operands from the layer before
            self.release()
            self.held["own"], self.held["key"] = tuple(self.prepare(self.held.pop("prev"), layer, width, height)), layer.key
        return LayerSetup(jnp.zeros((height, width), self.dtype), self.shared + self.held["own"], self.sizes[layer.key])

    def end_layer(self, piece: Layer, carry: Any) -> Any:
        layer, first, stop = self.pieces[piece.index]
        part = np.asarray(carry)
        if self.sink is not None:
            if first == 0:
                self.held["sunk"] = self.sink(layer)
            got = part[: stop - first, : layer.width]
            self.held["sunk"][first:stop] = got if self.finish is None else self.finish(got)
            if stop < layer.rows:
                return jnp.zeros((1, 1), self.dtype)
            values = self.held.pop("sunk")
        else:
            if self.processes > 1:
                part = gather_shares(part, self.shares[layer.key], layer.rows, layer.width)
            got = part[: layer.rows, : layer.width]
            values = np.ascontiguousarray(got if self.finish is None else self.finish(got))
        self.held["prev"] = values
        if self.keep(layer):
            self.kept[layer.key] = values
        if self.on_values is not None:
            self.on_values(layer.key, values)
        return jnp.zeros((1, 1), self.dtype)

    def run(self, key: Hashable, turn: Callable[..., Any], on_layer: Callable[[int, int], None] | None, progress: str | None) -> VectorSolve:
        def compute(out: jax.Array, operands: Any, rows_in_layer: jax.Array, *states: jax.Array) -> jax.Array:
            return turn(operands, *states, width=out.shape[1])

        def write(out: jax.Array, operands: Any, rows_in_layer: jax.Array, states: tuple[jax.Array, ...], got: jax.Array) -> jax.Array:
            return out.at[rows_in_layer].set(got)

        bars: Any = contextlib.nullcontext(None)
        if progress is not None:
            from jaxsolve.core.progress import layer_bars

            bars = layer_bars({layer.key: layer.rows for layer in self.layers}, label=progress)
        with bars as advance:

            def piece_done(index: int, count: int) -> None:
                layer, r0, r1 = self.pieces[index]
                if advance is not None:
                    advance(layer.key, layer.rows if self.sink is None else r1 - r0)
                if on_layer is not None and r1 >= self.shares[layer.key][1]:  # the last piece of this process's share
                    on_layer(layer.key, layer.rows)

            work = [Layer(k, layer.states(np.arange(r0, max(r1, r0 + 1)) % layer.rows)) for k, (layer, r0, r1) in enumerate(self.pieces)]
            try:
                done = run_layers(key, SplitStep(compute, write), work, jnp.zeros((1, 1), self.dtype), (), chunk=self.chunk, mesh=self.mesh, begin_layer=self.begin_layer, end_layer=self.end_layer, on_layer=piece_done)
            finally:
                self.release()
        timings: dict = {}
        for k, t in done.timings.items():  # per layer: its pieces summed
            got = timings.setdefault(self.pieces[k][0].key, {"states": 0, "chunk": t["chunk"], "seconds": 0.0})
            got["states"] += t["states"]
            got["seconds"] = round(got["seconds"] + t["seconds"], 4)
        device = ", ".join(str(d) for d in self.mesh.devices.flat)
        if self.processes > 1:
            device += f" (process {self.rank} of {self.processes})"
        return VectorSolve(self.kept, done.seconds, done.compile_seconds, device, timings)
