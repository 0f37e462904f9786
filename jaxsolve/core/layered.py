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
wrote, as the value solve does) runs as one program per layer and device instead of one call
per chunk:
the layer is cut into one contiguous share per device, each share travels as one
``[1 + components, K, size]`` array and a loop inside the program computes and writes its
chunks; with several devices each then writes the others' results into its own copy of the
carry. A layer is dispatched before the previous one is waited on, so the host prepares the
next layer while the devices compute. This takes the interpreter off the per-chunk path (a
call and a transfer cost tens of microseconds each, as much as a few hundred states), which
on a CPU is what let small chunks and a second core pay. (An accelerator keeps one call per
chunk: its loops and conditionals would read their predicates on the host, a synchronisation
per chunk, and its chunks are large enough to hide the calls.)

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

    ``whole_layer``: run as one program per layer and device that loops over its chunks
    (``_run_whole_layers``) instead of one call per chunk; for steps whose compute reads the
    carry only where the layer does not write (the value solve).
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


def _take(part, i):
    """Chunk ``i`` of a part ``[1 + components, K, size]`` as a buffer of its own: the taken
    branch of a conditional that is true at run time (a dynamic slice fused into the step's many
    consumers of the states would be recomputed in each, about a third slower on a CPU)."""

    def take(p, j):
        return jax.lax.dynamic_index_in_dim(p, j, axis=1, keepdims=False)

    def never(p, j):
        return jnp.zeros((p.shape[0], p.shape[2]), p.dtype)

    return jax.lax.cond(i >= 0, take, never, part, i)


def _chunk_count(part):
    """The part's chunks in use: the others' first row is -1 (``_parts``)."""
    return jnp.sum(part[0, :, 0] >= 0)


def _layer_program(step: SplitStep, collect: bool) -> Callable:
    """``(carry, operands, part) -> (carry, done)`` (``collect``: ``(carry, done, outs)``):
    compute and write the chunks of ``part`` (``_parts``) in one loop; ``done`` counts them (a
    small output to wait on: the carry goes on to the next layer); ``outs`` holds each chunk's
    results (leading axis: the part's chunk slots) for the other devices."""

    def program(carry, operands, part):
        def body(i, state):
            carry, outs, done = state
            chunk = _take(part, i)
            rows, states = chunk[0], tuple(chunk[1:])
            out = step.compute(carry, operands, rows, *states)
            carry = step.write(carry, operands, rows, states, out)
            if collect:
                outs = jax.tree_util.tree_map(lambda o, x: o.at[i].set(x), outs, out)
            return carry, outs, done + 1

        outs = None
        if collect:
            shapes = jax.eval_shape(step.compute, carry, operands, part[0, 0], *part[1:, 0])
            outs = jax.tree_util.tree_map(lambda s: jnp.zeros((part.shape[1],) + s.shape, s.dtype), shapes)
        carry, outs, done = jax.lax.fori_loop(0, _chunk_count(part), body, (carry, outs, jnp.zeros((), jnp.int32)))
        return (carry, done, outs) if collect else (carry, done)

    return program


def _layer_write(step: SplitStep) -> Callable:
    """``(carry, operands, (part, outs)) -> carry``: another device's results written."""

    def program(carry, operands, theirs):
        part, outs = theirs

        def body(i, carry):
            chunk = _take(part, i)
            out = jax.tree_util.tree_map(lambda o: jax.lax.dynamic_index_in_dim(o, i, keepdims=False), outs)
            return step.write(carry, operands, chunk[0], tuple(chunk[1:]), out)

        return jax.lax.fori_loop(0, _chunk_count(part), body, carry)

    return program


def _parts(states: tuple, parts: int, size: int, slots: int) -> list:
    """The layer cut into ``parts`` contiguous shares of nearly equal size, each as one int32
    array ``[1 + components, slots, size]``: per chunk slot its rows (the layer's own), then its
    states' components. A share's last chunk is padded like ``_chunks`` (the layer's first state,
    row 0); the slots past the share's chunks have row -1. An empty share is None."""
    n, width = len(states[0]), 1 + len(states)
    share = -(-n // parts)
    out = []
    for p in range(parts):
        lo, hi = min(n, p * share), min(n, (p + 1) * share)
        if lo == hi:
            out.append(None)
            continue
        used = -(-(hi - lo) // size) * size
        flat = np.zeros((width, slots * size), np.int32)
        flat[0, : hi - lo] = np.arange(lo, hi)
        flat[0, used:] = -1
        for j, a in enumerate(states, 1):
            flat[j, : hi - lo] = a[lo:hi]
            flat[j, hi - lo : used] = a[0]
        out.append(flat.reshape(width, slots, size))
    return out


def _run_whole_layers(key, step: SplitStep, layers, carry, operands, devices, chunk, begin_layer, end_layer, on_layer) -> LayeredRun:
    """``run_layers`` of a whole-layer ``SplitStep``: per layer and device one program that loops
    over the device's share of the layer; with several devices each then writes the others'
    results into its copy of the carry."""
    shardings = [jax.sharding.SingleDeviceSharding(d) for d in devices]
    n_dev = len(devices)

    def place(tree, d):
        return jax.device_put(tree, shardings[d])

    def send(tree, d):  # host arrays as a copy owned by JAX (cheaper than an alias here)
        return jax.device_put(tree, shardings[d], may_alias=False)

    carries = [place(carry, d) for d in range(n_dev)]
    ops = [place(operands, d) for d in range(n_dev)]
    compile_seconds, timings = 0.0, {}
    size = int(chunk)
    # The same number of chunk slots for every layer of a chunk size: one program serves all.
    widest = max(len(layer.states[0]) for layer in layers)
    programs = {}  # by device, kind and the shapes they take (a look-up per layer, no specs built)
    held = _shapes((carries[0], ops[0]))  # the carry's and operands' shapes, changed only by begin_layer

    def program(kind, d, *args):
        nonlocal compile_seconds
        shapes = (kind, held) + _shapes(args[2:])
        exes = programs.get(shapes)
        if exes is None:  # every device's program at once (threads; XLA compiles without the GIL)
            from concurrent.futures import ThreadPoolExecutor

            fn = _layer_program(step, n_dev > 1) if kind == "layer" else _layer_write(step)

            def one(e):  # device e's program: the same shapes, placed on e
                spec = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=shardings[e]), args)
                return compiled(("layered-" + kind, key, n_dev > 1), fn, *spec, donate_argnums=0)

            t0 = time.perf_counter()
            with ThreadPoolExecutor(n_dev) as pool:
                done = list(pool.map(one, range(n_dev)))
            compile_seconds += time.perf_counter() - t0 if any(seconds for _, seconds in done) else 0.0
            exes = programs[shapes] = [exe for exe, _ in done]
        return exes[d]

    t_all = time.perf_counter()
    waiting = []  # (layer, its programs' ``done``): a layer is dispatched before the last is waited on
    last_done = t_all

    def finish():
        nonlocal last_done
        layer, done = waiting.pop(0)
        jax.block_until_ready(done)
        now = time.perf_counter()
        n = len(layer.states[0])
        timings[layer.index] = {"states": n, "chunk": size, "seconds": round(now - last_done, 4)}
        last_done = now
        if on_layer is not None:
            on_layer(layer.index, n)

    for layer in layers:
        if begin_layer is not None:
            setup = begin_layer(layer, carries[0])
            carries = [place(setup.carry, d) for d in range(n_dev)]
            ops, size = [place(setup.operands, d) for d in range(n_dev)], setup.chunk
            held = _shapes((carries[0], ops[0]))
        parts = _parts(layer.states, n_dev, size, -(-(-(-widest // n_dev)) // size))
        outs, done = [None] * n_dev, []
        for d, part in enumerate(parts):
            if part is not None:
                args = (carries[d], ops[d], send(part, d))
                got = program("layer", d, *args)(*args)
                carries[d] = got[0]
                done.append(got[1])
                outs[d] = got[2] if n_dev > 1 else None
        for d, part in enumerate(parts):  # each device writes the others' results
            for e in range(n_dev) if part is not None else ():
                if e != d:
                    args = (carries[e], ops[e], (send(part, e), place(outs[d], e)))
                    carries[e] = program("write", e, *args)(*args)
        if end_layer is not None:
            carry = end_layer(layer, carries[0])
            carries = [place(carry, d) for d in range(n_dev)]
            held = _shapes((carries[0], ops[0]))
        waiting.append((layer, done))
        if len(waiting) > 1:
            finish()
    while waiting:
        finish()
    jax.block_until_ready(carries)
    seconds = time.perf_counter() - t_all - compile_seconds
    return LayeredRun(carries[0], compile_seconds, seconds, timings)
