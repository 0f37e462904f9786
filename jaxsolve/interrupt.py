"""Ctrl-C for the command line: one line ``interrupted`` on stderr and exit status 130, at any
moment -- start-up, compiling, solving, writing, waiting for input.

Python runs a signal handler only between bytecodes of the main thread; while the main thread
is inside native code (XLA compiling or running a program, which can take seconds) it waits,
and a ``KeyboardInterrupt`` raised from a callback that native code made aborts the process
(``terminate called after throwing ...``) or is swallowed. So the command line does not raise
``KeyboardInterrupt`` at all: ``install`` registers a wakeup file descriptor
(``signal.set_wakeup_fd``), which the interpreter's C-level handler writes at once, and a
watcher thread that reads it runs the registered ``on_interrupt`` hooks (e.g. ``play``'s
last save), flushes stdout, writes the line and ends the process with ``os._exit(130)``. The
Python-level handler does the same when it gets to run first.

Files stay consistent because every file jaxsolve writes is written to a temporary file and
renamed into place (``jaxsolve.io.export``): an interrupted write leaves the old file (or
none) and a temporary file, which the next write of the same target removes.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
from typing import Callable

EXIT_STATUS = 130  # 128 + SIGINT, as shells report it
FINISH_SECONDS = 3.0  # the most the hooks and the stdout flush may take before the process ends
_hooks: list[Callable[[], None]] = []
_exiting = threading.Lock()
_installed = False


def on_interrupt(fn: Callable[[], None]) -> Callable[[], None]:
    """Run ``fn`` (no arguments; errors ignored) before the process ends on Ctrl-C."""
    _hooks.append(fn)
    return fn


def remove_hook(fn: Callable[[], None]) -> None:
    try:
        _hooks.remove(fn)
    except ValueError:
        pass


def exit_interrupted() -> None:
    """Run the hooks, flush stdout, write ``interrupted`` and end the process (status 130).
    Only the first caller does it; a second one waits for the end."""
    if not _exiting.acquire(blocking=False):
        while True:
            time.sleep(60)
    # the hooks and the flush may block (a full pipe whose reader stopped): give them a moment
    finisher = threading.Thread(target=_finish, name="jaxsolve-interrupt-finish", daemon=True)
    finisher.start()
    finisher.join(FINISH_SECONDS)
    try:
        text = b"interrupted\n"
        if os.isatty(2):
            text = b"\r\x1b[?25h\x1b[K" + text  # a progress display may have hidden the cursor
        os.write(2, text)
    except OSError:
        pass
    os._exit(EXIT_STATUS)


def _finish() -> None:
    for fn in list(_hooks):
        try:
            fn()
        except BaseException:
            pass
    try:
        sys.stdout.flush()
    except BaseException:
        pass


def _handler(signum, frame) -> None:
    exit_interrupted()


def _watch(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            exit_interrupted()


def _ignore_late_interrupts() -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (OSError, ValueError):
        pass


def install() -> None:
    """Handle Ctrl-C (SIGINT) as above, for this process (a command-line entry point calls it
    first; the library itself never changes signal handling). Main thread only; once. A process
started with SIGINT ignored (a background job of a shell without job control) keeps ignoring it."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # started with Ctrl-C ignored (nohup, `cmd &`): keep it so
        return
    signal.signal(signal.SIGINT, _handler)
    # The interpreter's finalisation puts SIGINT back to the default action (die by the signal,
    # no line); from the last exit hook on, the command is done and a late Ctrl-C is ignored.
    atexit.register(_ignore_late_interrupts)
    try:
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except (OSError, ValueError):
        return
    threading.Thread(target=_watch, args=(read,), name="jaxsolve-interrupt", daemon=True).start()
