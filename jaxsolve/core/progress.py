"""Progress display for long solves: one bar per layer or a bar over iterations; silent if quiet."""

from __future__ import annotations

import contextlib
from typing import Any, Hashable, Mapping

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextlib.contextmanager
def layer_bars(layers: Mapping[Any, int], quiet: bool = False, label: str = "layer"):
    """Yield ``advance(layer, n)``: one bar per layer (a number or a name), sized by
    ``layers[layer]`` work units."""
    if quiet:
        yield lambda layer, n: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=False) as progress:
        tasks = {}

        def advance(layer: Hashable, n: int) -> None:
            if layer not in tasks:
                tasks[layer] = progress.add_task(f"{label} {layer:>2}", total=layers[layer])
            progress.advance(tasks[layer], n)

        yield advance
