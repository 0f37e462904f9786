"""Progress display for long solves, on stderr (stdout stays the answer): one bar per layer with
a bar over all of them (``layer_bars``), or one bar over a count (``steps_bar``); each shows what
is done of the total, the time elapsed and an estimate of the time left. Silent if quiet.

Whoever wants to follow every bar (a server that reports a job's progress) registers a callback
with ``listening``: it receives ``(label, done, total)`` on every update of every bar, also of a
quiet one.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Hashable, Iterator, Mapping

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def _progress() -> Progress:
    """A display on stderr: description, bar, done of total, time elapsed, time left."""
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("left"), TimeRemainingColumn(),
    )
    return Progress(*columns, console=Console(stderr=True), transient=False)


Listener = Callable[[str, int, int], None]
_listeners = threading.local()


@contextlib.contextmanager
def listening(callback: Listener) -> Iterator[None]:
    """While inside, every progress bar of this module opened on the current thread calls
    ``callback(label, done, total)`` on each update: ``label`` names what is being done (the
    layer), ``done`` of ``total`` how far the display is (``layer_bars``: layers done of its
    layers). Nested uses all hear; other threads hear nothing."""
    stack = getattr(_listeners, "stack", None)
    if stack is None:
        stack = _listeners.stack = []
    stack.append(callback)
    try:
        yield
    finally:
        stack.remove(callback)


def _tell(label: str, done: int, total: int) -> None:
    for callback in tuple(getattr(_listeners, "stack", ())):
        callback(label, done, total)


@contextlib.contextmanager
def layer_bars(layers: Mapping[Any, int], quiet: bool = False, label: str = "layer") -> Iterator[Callable[[Hashable, int], None]]:
    """Yield ``advance(layer, n)``: one bar per layer (a number or a name), sized by
    ``layers[layer]`` work units, below a bar over all of them (layers done of layers, the time
    left estimated from the work units done; ``listening`` hears every advance, quiet or not:
    the layer, and the layers whose units are all done of all the layers)."""
    total = sum(int(n) for n in layers.values())
    state = {"units": 0, "finished": 0}
    counts: dict[Hashable, int] = {}
    overall = f"{label}s done" if not label.endswith(":") else f"{label} done"

    def account(layer: Hashable, n: int) -> None:
        counts[layer] = counts.get(layer, 0) + n
        state["units"] += n
        if counts[layer] >= layers[layer] and counts[layer] - n < layers[layer]:
            state["finished"] += 1
        _tell(f"{label} {layer}", state["finished"], len(layers))

    if quiet:
        yield account
        return
    with _progress() as progress:
        tasks = {}
        whole = progress.add_task(f"{overall} 0/{len(layers)}", total=total)

        def advance(layer: Hashable, n: int) -> None:
            if layer not in tasks:
                tasks[layer] = progress.add_task(f"{label} {layer:>2}", total=layers[layer])
            account(layer, n)
            progress.advance(tasks[layer], n)
            progress.update(whole, advance=n, description=f"{overall} {state['finished']}/{len(layers)}")

        yield advance


class Steps:
    """What ``steps_bar`` yields: ``advance(n)`` counts ``n`` more steps done, ``update(done)``
    sets the count (a callback that reports how many are done of how many)."""

    def __init__(self, label: str, total: int | None, progress: Progress | None):
        self.label, self.total, self.done = label, int(total or 0), 0
        self._progress = progress
        self._task = progress.add_task(label, total=total or None) if progress is not None else None

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def update(self, done: int, total: int | None = None) -> None:
        if total is not None and int(total) != self.total:
            self.total = int(total)
            if self._progress is not None:
                self._progress.update(self._task, total=self.total)  # type: ignore[arg-type]  # set with the display
        self.done = int(done)
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done)  # type: ignore[arg-type]  # set with the display
        _tell(self.label, self.done, self.total)

    __call__ = update


@contextlib.contextmanager
def steps_bar(total: int | None, label: str, quiet: bool = False) -> Iterator[Steps]:
    """Yield a ``Steps`` over ``total`` steps (layers of a solve, games of a simulation) shown as
    one bar on stderr: ``label``, done of total, time elapsed and time left (``total`` None or
    0: not known until the first ``update`` says it). Calling it as ``steps(done, total)`` fits
    a solver's ``progress`` callback."""
    if quiet:
        yield Steps(label, total, None)
        return
    with _progress() as progress:
        yield Steps(label, total, progress)
