"""Progress display for long solves: one bar per layer or a bar over iterations; silent if quiet.

Whoever runs a solve for someone else (the page's server) can follow it: ``listening(callback)``
has every bar opened on this thread, quiet or not, call ``callback(label, done, total)``.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Hashable, Iterator, Mapping

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

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
def layer_bars(layers: Mapping[Any, int], quiet: bool = False, label: str = "layer"):
    """Yield ``advance(layer, n)``: one bar per layer (a number or a name), sized by
    ``layers[layer]`` work units (``listening`` hears every advance, quiet or not: the layer,
    and the layers whose units are all done of all the layers)."""
    left = {layer: int(units) for layer, units in layers.items()}
    done = sum(units <= 0 for units in left.values())

    def tell(layer: Hashable, n: int) -> None:
        nonlocal done
        if left.get(layer, 0) > 0:
            left[layer] -= int(n)
            done += left[layer] <= 0
        _tell(f"{label} {layer}", done, len(left))

    if quiet:
        yield tell
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=False) as progress:
        tasks = {}

        def advance(layer: Hashable, n: int) -> None:
            if layer not in tasks:
                tasks[layer] = progress.add_task(f"{label} {layer:>2}", total=layers[layer])
            progress.advance(tasks[layer], n)
            tell(layer, n)

        yield advance
