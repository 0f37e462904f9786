"""Progress display for long solves, on stderr (stdout stays the answer): one bar per layer with
a bar over all of them (``layer_bars``), or one bar over a count (``steps_bar``); each shows what
is done of the total, the time elapsed and an estimate of the time left. Silent if quiet.

Where stderr is no terminal (a log file, a pipe), the bars are plain lines instead, each whole
(``PlainLines``): one per layer done, and one at least every ``PLAIN_EVERY`` seconds while work
goes on, each with done of total, the time elapsed and the time left.

Whoever wants to follow every bar (a server that reports a job's progress) registers a callback
with ``listening``: it receives ``(label, done, total)`` on every update of every bar, also of a
quiet one.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Any, Callable, Hashable, Iterator, Mapping

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn


PLAIN_EVERY = 10.0
"""Seconds between two plain progress lines of one bar while nothing finishes (off a terminal)."""


def _progress() -> Progress | PlainLines:
    """A display on stderr: description, bar, done of total, time elapsed, time left; plain
    lines where stderr is no terminal (rich's test, which ``FORCE_TERMINAL`` and ``TTY_COMPATIBLE`` override)."""
    console = Console(stderr=True)
    if not console.is_terminal:
        return PlainLines()
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("left"), TimeRemainingColumn(),
    )
    return Progress(*columns, console=console, transient=False)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


EARLIEST = 0.01
"""Share of the work done before a time left is estimated off a terminal."""


class PlainLines:
    """The part of ``rich.progress.Progress`` the bars use, written as whole lines on stderr: a
    task's line when it is done, and at most every ``PLAIN_EVERY`` seconds while it is not
    (its description, done of total, time elapsed, time left at the rate so far)."""

    def __init__(self) -> None:
        self._start = self._finished = time.monotonic()  # the last time a task was done: where the next one's work began
        self._tasks: dict[TaskID, dict] = {}

    def __enter__(self) -> PlainLines:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, **_: Any) -> TaskID:
        now, task = time.monotonic(), TaskID(len(self._tasks))
        # a task added at its first step (a layer) began when the one before it was done
        self._tasks[task] = {"description": description, "total": total, "completed": 0, "start": self._finished, "said": now, "done": False}
        if task == 0:  # the display's first task: the log shows the work began
            self._say(self._tasks[task], now)
        return task

    def advance(self, task: TaskID, advance: float = 1) -> None:
        self.update(task, completed=self._tasks[task]["completed"] + advance)

    def update(self, task: TaskID, *, total: float | None = None, completed: float | None = None, advance: float | None = None, description: str | None = None) -> None:
        t = self._tasks[task]
        if total is not None:
            t["total"] = total
        if advance is not None:
            t["completed"] += advance
        if completed is not None:
            t["completed"] = completed
        news = description is not None and description != t["description"]  # e.g. layers done 3/13
        if description is not None:
            t["description"] = description
        now = time.monotonic()
        finished = bool(t["total"]) and t["completed"] >= t["total"]
        first = not t.get("lines") and t["completed"] > 0  # the first step: the log shows the work began
        if (finished and not t["done"]) or news or first or now - t["said"] >= PLAIN_EVERY:
            t["lines"] = t.get("lines", 0) + 1
            if finished:
                self._finished = now
            t["done"], t["said"] = finished, now
            self._say(t, now)

    def _say(self, t: dict, now: float) -> None:
        done, total, spent = t["completed"], t["total"], now - t["start"]
        if total and done >= total:
            left = ", 0:00:00 left"
        elif total and done >= EARLIEST * total:
            left = f", about {_clock(spent * (total - done) / done)} left"
        else:  # no rate yet, or one from the first hundredth of the work (its set-up), which misleads
            left = ", time left unknown"
        of = f"{int(done):,}/{int(total):,}" if total else f"{int(done):,}"
        since = f" ({_clock(now - self._start)} since the start)" if now - self._start - spent >= 1 else ""
        line = f"{t['description']}: {of}, {_clock(spent)} elapsed{left}{since}\n"
        try:
            sys.stderr.write(line)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


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

    def __init__(self, label: str, total: int | None, progress: Progress | PlainLines | None):
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
