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
rows, states, out) -> carry``. On a mesh it runs as one chunk stream per device: each device
keeps its own copy of the carry and computes every n-th chunk whole; a chunk's results (not
the carry) are copied to the other devices a few chunks later (``LAG``), when they are long
done, and written into their copies, the rest when the layer ends. The states of a layer do not
read each other, so no stream waits for another and the copies agree at the end of every
layer; no collective, no host synchronisation per chunk, and the devices (the cores of a CPU
shown as several devices, ``runtime.host_devices``) work at once. A chunk travels as one
``[1 + components, size]`` int32 array (its rows, then its states' components): one transfer.
A plain step on a mesh is left to JAX's automatic sharding of one program.

On a CPU a ``SplitStep`` marked ``whole_layer`` (its compute reads only what earlier layers
wrote, as the value solve and the policy evaluation do) runs as one program per layer instead
of one call per chunk, one SPMD program for all the devices (``shard_map`` over the mesh,
everything replicated): the layer is cut into one contiguous share per device, the layers'
states travel packed in a few buffers, each sent while the layer before its first computes,
each device finds its share through a plan and a layer counter kept on the device, and a loop
inside the program computes and writes the share's chunks; with several devices the shares'
results are then gathered inside the program (``all_gather``: the devices meet once per layer,
without the host) and each writes the others' into its own copy of the carry. A layer is
dispatched before the previous one is waited on, so the host prepares the next layer while the
devices compute. This takes the interpreter off the per-chunk path (a call and a transfer cost
tens of microseconds each, as much as a few hundred states), which on a CPU is what let small
chunks and a second core pay. (An accelerator keeps one call per chunk: its loops and
conditionals would read their predicates on the host, a synchronisation per chunk, and its
chunks are large enough to hide the calls.)

The driver compiles ``step`` once per key and shapes through the shared compile cache (compile
time is reported apart), places chunks on one device or shards them over a
``jax.sharding.Mesh`` along the state axis (carry and operands replicated), and reports
progress per layer. ``begin_layer`` may replace the carry, the operands and the chunk size at
the start of a layer (e.g. a fresh output buffer sized for the layer's memory budget);
``end_layer`` sees the carry when a layer is done (e.g. to move the layer's rows to the host).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Hashable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsolve.core.compile import abstract, compiled
from jaxsolve.errors import JaxsolveError

AXIS = "states"


class Layer(NamedTuple):
    """One layer: its index and its states as equal-length int32 component arrays."""

    index: int
    states: tuple


class SplitStep(NamedTuple):
    """A step as ``compute`` then ``write`` (see module docs); callable as a plain step.

    ``whole_layer``: on a CPU, run as one program per layer for all devices that loops over
    each device's share of chunks (``_run_whole_layers``) instead of one call per chunk; for steps whose compute reads the
    carry only where the layer does not write (the value solve, the policy evaluation).
    """

    compute: Callable
    write: Callable
    whole_layer: bool = False

    def __call__(self, carry, operands, rows, *states):
        return self.write(carry, operands, rows, states, self.compute(carry, operands, rows, *states))


def _packed(step: Callable) -> Callable:
    """``step`` as a program of ``(carry, operands, chunk)``: ``chunk`` ``[1 + components, size]``
    int32 holds the rows and the states' components (one transfer per chunk, not one per array)."""

    def program(carry, operands, chunk):
        return step(carry, operands, chunk[0], *chunk[1:])

    return program


def _compute_write(step: SplitStep) -> Callable:
    def program(carry, operands, chunk):
        rows, states = chunk[0], tuple(chunk[1:])
        out = step.compute(carry, operands, rows, *states)
        return step.write(carry, operands, rows, states, out), out

    return program


def _write(step: SplitStep) -> Callable:
    def program(carry, operands, chunk, out):
        return step.write(carry, operands, chunk[0], tuple(chunk[1:]), out)

    return program


class LayerSetup(NamedTuple):
    """What ``begin_layer`` returns: the carry, the operands and the chunk size of the layer."""

    carry: Any
    operands: Any
    chunk: int


class LayeredRun(NamedTuple):
    carry: Any
    compile_seconds: float
    seconds: float
    timings: dict


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


def chunk_for(device, chunk: int) -> int:
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


def real_rows(rows):
    """``[chunk]`` bool: the chunk's own states, False for the padding of a layer's last chunk.

    Padding repeats row 0 after the layer's last state, and rows increase along a chunk, so a
    row 0 anywhere but at the chunk's start is padding. A step that adds (rather than sets)
    per-state results masks with this.
    """
    return (rows > 0) | (jnp.arange(rows.shape[0]) == 0)


def run_layers(
    key: Hashable,
    step: Callable,
    layers: Sequence[Layer],
    carry,
    operands=(),
    *,
    chunk: int = 1024,
    mesh: Mesh | None = None,
    device=None,
    begin_layer: Callable[[Layer, Any], LayerSetup] | None = None,
    end_layer: Callable[[Layer, Any], Any] | None = None,
    on_layer: Callable[[int, int], None] | None = None,
) -> LayeredRun:
    """Run ``step`` over every chunk of every layer, in the order given (see module docs).

    ``key`` names ``step`` with everything it closes over (rules, objective, settings);
    ``mesh`` shards the chunks (default: one ``device``, JAX's default if None).
    """
    if int(chunk) < 1:
        raise JaxsolveError(f"chunk must be >= 1, got {chunk}")
    if mesh is not None:
        rep, batch = NamedSharding(mesh, PartitionSpec()), NamedSharding(mesh, PartitionSpec(AXIS))
        ndev = mesh.devices.size
    else:
        device = device or jax.devices()[0]
        rep = batch = jax.sharding.SingleDeviceSharding(device)
        ndev = 1

    def place(tree, sharding):
        return jax.tree_util.tree_map(lambda a: jax.device_put(a, sharding), tree)

    devices = list(mesh.devices.flat) if mesh is not None else [device]
    if isinstance(step, SplitStep) and step.whole_layer and all(d.platform == "cpu" for d in devices):
        return _run_whole_layers(key, step, layers, carry, operands, devices, int(chunk), begin_layer, end_layer, on_layer)
    if mesh is not None and isinstance(step, SplitStep) and ndev > 1:
        return _run_streams(key, step, layers, carry, operands, list(mesh.devices.flat), int(chunk), begin_layer, end_layer, on_layer)
    jit_options = {"donate_argnums": 0}
    program = _packed(step)
    if mesh is not None:
        batch = NamedSharding(mesh, PartitionSpec(None, AXIS))  # a chunk's states, split over the mesh
        jit_options.update(in_shardings=(rep, rep, batch), out_shardings=rep)
    carry, operands = place(carry, rep), place(operands, rep)
    compile_seconds, timings = 0.0, {}
    t_all = time.perf_counter()
    size = max(ndev, int(chunk) // ndev * ndev)
    for layer in layers:
        t0 = time.perf_counter()
        if begin_layer is not None:
            setup = begin_layer(layer, carry)
            carry, operands, size = place(setup.carry, rep), place(setup.operands, rep), setup.chunk
        n = len(layer.states[0])
        exe = None
        for chunk_h in _chunks(layer.states, size):
            chunk_d = jax.device_put(chunk_h, batch)
            if exe is None:  # the carry keeps its shape within a layer: one look-up per layer
                exe, seconds = compiled(("layered", key), program, abstract(carry), abstract(operands), abstract(chunk_d), **jit_options)
                compile_seconds += seconds
            carry = exe(carry, operands, chunk_d)
        if end_layer is not None:
            carry = end_layer(layer, carry)
        jax.block_until_ready(carry)
        timings[layer.index] = {"states": n, "chunk": size, "seconds": round(time.perf_counter() - t0, 4)}
        if on_layer is not None:
            on_layer(layer.index, n)
    seconds = time.perf_counter() - t_all - compile_seconds
    return LayeredRun(carry, compile_seconds, seconds, timings)


def _compile_streams(key, step: SplitStep, carries, ops, chunk, shardings):
    """``((programs, compile seconds), writes)``: the compute-and-write program and the write
    program for every device, the devices' programs compiled at once (threads; XLA compiles
    without the interpreter lock)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(e):
        head = (abstract(carries[e]), abstract(ops[e]), jax.ShapeDtypeStruct(chunk.shape, chunk.dtype, sharding=shardings[e]))
        exe, seconds = compiled(("layered-stream", key), _compute_write(step), *head, donate_argnums=0)
        out_spec = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=shardings[e]), exe.out_info[1])
        write, more = compiled(("layered-write", key), _write(step), *head, out_spec, donate_argnums=0)
        return exe, write, seconds + more

    with ThreadPoolExecutor(len(carries)) as pool:
        done = list(pool.map(one, range(len(carries))))
    return ([d[0] for d in done], [d[2] for d in done]), [d[1] for d in done]


# Chunks per stream a chunk's results wait before they are copied to the other streams.
LAG = 2


def _shapes(tree) -> tuple:
    """A hashable summary of a pytree's structure and its arrays' shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return (treedef,) + tuple((np.shape(a), str(getattr(a, "dtype", type(a)))) for a in leaves)


def _run_streams(key, step: SplitStep, layers, carry, operands, devices, chunk, begin_layer, end_layer, on_layer) -> LayeredRun:
    """``run_layers`` of a ``SplitStep`` as one chunk stream per device (see module docs)."""
    shardings = [jax.sharding.SingleDeviceSharding(d) for d in devices]

    def place(tree, d):
        return jax.tree_util.tree_map(lambda a: jax.device_put(a, shardings[d]), tree)

    n_dev = len(devices)
    carries = [place(carry, d) for d in range(n_dev)]
    ops = [place(operands, d) for d in range(n_dev)]
    compile_seconds, timings = 0.0, {}
    t_all = time.perf_counter()
    size = int(chunk)
    programs = {}  # the streams' programs by the shapes they take: most layers share them
    for layer in layers:
        t0 = time.perf_counter()
        if begin_layer is not None:
            setup = begin_layer(layer, carries[0])
            carries = [place(setup.carry, d) for d in range(n_dev)]
            ops, size = [place(setup.operands, d) for d in range(n_dev)], setup.chunk
        n = len(layer.states[0])
        shapes = (size, len(layer.states)) + _shapes((carries[0], ops[0]))
        both, writes = programs.get(shapes, (None, None))
        pending = []  # (device, chunk, out) of chunks whose results the other streams still need

        def exchange(upto):  # the other streams write the results of pending[:upto] into their copies
            for d, chunk_h, out in pending[:upto]:
                for e in range(n_dev):
                    if e != d:
                        carries[e] = writes[e](carries[e], ops[e], place(chunk_h, e), place(out, e))
            del pending[:upto]

        for i, chunk_h in enumerate(_chunks(layer.states, size)):
            d = i % n_dev
            if both is None:  # one look-up per shape: most layers share the programs
                t_compile = time.perf_counter()
                both, writes = _compile_streams(key, step, carries, ops, chunk_h, shardings)
                compile_seconds += time.perf_counter() - t_compile if any(s for s in both[1]) else 0.0
                both = both[0]
                programs[shapes] = both, writes
            carries[d], out = both[d](carries[d], ops[d], place(chunk_h, d))
            pending.append((d, chunk_h, out))
            # A chunk's results go to the other streams a few chunks later, when they are long
            # done: a stream never waits for another, and the copies overlap the computing. (A
            # layer's states do not read each other, so the copies need only be whole when the
            # layer ends.)
            if len(pending) > LAG * n_dev:
                exchange(n_dev)
        exchange(len(pending))
        if end_layer is not None:
            carry = end_layer(layer, carries[0])
            carries = [place(carry, d) for d in range(n_dev)]
        jax.block_until_ready(carries)
        timings[layer.index] = {"states": n, "chunk": size, "seconds": round(time.perf_counter() - t0, 4)}
        if on_layer is not None:
            on_layer(layer.index, n)
    seconds = time.perf_counter() - t_all - compile_seconds
    return LayeredRun(carries[0], compile_seconds, seconds, timings)


def _take(states, where, i, size: int):
    """Chunk ``i`` of a share, ``[1 + components, size]`` int32: its rows in the layer, then its
    states' components, gathered from ``states`` ``[components, capacity]`` (``_Groups``) at
    ``where`` = (share's first position, share's end, layer's first position); positions past the
    share's end are padding: the layer's first state, row 0 (as ``_chunks`` pads).

    Computed as the taken branch of a conditional that is true at run time, so the chunk is a
    buffer of its own (gathered into the step's many consumers of the states it would be
    recomputed in each, about a third slower on a CPU)."""

    def take(states, where, i):
        pos = where[0] + i * size + jnp.arange(size, dtype=jnp.int32)
        real = pos < where[1]
        pos = jnp.where(real, pos, where[2])
        return jnp.concatenate([jnp.where(real, pos - where[2], 0)[None], states[:, pos]])

    def never(states, where, i):
        return jnp.zeros((1 + states.shape[0], size), states.dtype)

    return jax.lax.cond(i >= 0, take, never, states, where, i)


def _share(plan, layer, share, size: int):
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

    def program(carry, operands, states, plan, at):
        me = jax.lax.axis_index(AXIS)
        where, chunks = _share(plan, at[0], me, size)
        outs = None
        if n_dev > 1:
            head = jnp.zeros(size, jnp.int32)
            shapes = jax.eval_shape(step.compute, carry, operands, head, *[head] * states.shape[0])
            outs = jax.tree_util.tree_map(lambda s: jnp.zeros((slots,) + s.shape, s.dtype), shapes)

        def body(i, state):
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

                def write(i, carry, where_e=where_e, e=e):
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

    def __init__(self, layers):
        sizes = [len(layer.states[0]) for layer in layers]
        self.capacity = max(sizes)
        self.where = []  # per layer: (buffer number, first position)
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


def _run_whole_layers(key, step: SplitStep, layers, carry, operands, devices, chunk, begin_layer, end_layer, on_layer) -> LayeredRun:
    """``run_layers`` of a whole-layer ``SplitStep``: per layer one program for all devices
    (``_layer_program``) that loops over each device's share of the layer."""
    n_dev = len(devices)
    mesh = make_mesh(devices)
    rep = NamedSharding(mesh, PartitionSpec())

    def place(tree):
        return jax.device_put(tree, rep)

    def send(tree):  # host arrays as a copy owned by JAX (cheaper than an alias here)
        return jax.device_put(tree, rep, may_alias=False)

    carry, operands = place(carry), place(operands)
    compile_seconds, timings = 0.0, {}
    size = int(chunk)
    layers = list(layers)
    if not layers:
        return LayeredRun(carry, 0.0, 0.0, {})
    groups = _Groups(layers)
    widest = max(len(layer.states[0]) for layer in layers)
    programs = {}  # by the shapes they take (a look-up per layer, no specs built)

    def program(*args):
        nonlocal compile_seconds
        slots = -(-(-(-widest // n_dev)) // size)  # the most chunks of a share
        shapes = (size,) + _shapes(args)
        exe = programs.get(shapes)
        if exe is None:
            fn = jax.shard_map(
                _layer_program(step, size, slots, n_dev), mesh=mesh, in_specs=PartitionSpec(), out_specs=PartitionSpec(), check_vma=False
            )
            exe, seconds = compiled(("layered-layer", key, size, slots, n_dev), fn, *abstract(args), donate_argnums=0)
            compile_seconds += seconds
            programs[shapes] = exe
        return exe

    # The next layer is dispatched before the last is waited on (the host prepares it while the
    # devices compute), and no further: XLA's CPU client holds at most 32 computations in
    # flight per device, and a caller blocked on that limit halfway through dispatching a
    # program whose devices meet inside (the gather) never gets the program going.
    ahead = 1
    t_all = time.perf_counter()
    waiting = []  # (layer, its ``at``, its chunk)
    last_done = t_all

    def finish():
        nonlocal last_done
        layer, done, its_size = waiting.pop(0)
        jax.block_until_ready(done)
        now = time.perf_counter()
        n = len(layer.states[0])
        timings[layer.index] = {"states": n, "chunk": its_size, "seconds": round(now - last_done, 4)}
        last_done = now
        if on_layer is not None:
            on_layer(layer.index, n)

    plan = send(groups.plan(n_dev))
    at = send(np.zeros(1, np.int32))
    buffers = {}  # buffer number -> its states on the devices, sent one layer ahead of its use

    def states(k):
        b = groups.where[k][0]
        if b not in buffers:
            buffers.clear()  # layers use the buffers in order: the earlier ones are done with
            buffers[b] = send(groups.buffer(b))
        return buffers[b]

    for k, layer in enumerate(layers):
        if begin_layer is not None:
            setup = begin_layer(layer, carry)
            carry, operands, size = place(setup.carry), place(setup.operands), setup.chunk
        args = (carry, operands, states(k), plan, at)
        carry, at = program(*args)(*args)
        if end_layer is not None:
            carry = place(end_layer(layer, carry))
        waiting.append((layer, at, size))
        if k + 1 < len(layers):
            states(k + 1)  # packed and sent while the devices compute
        if len(waiting) > ahead:
            finish()
    while waiting:
        finish()
    jax.block_until_ready(carry)
    seconds = time.perf_counter() - t_all - compile_seconds
    return LayeredRun(carry, compile_seconds, seconds, timings)
