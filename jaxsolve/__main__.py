"""``python -m jaxsolve``: Ctrl-C handling first (``jaxsolve.interrupt``), then the command line.

A Ctrl-C while the modules load already ends the command with the one line ``interrupted`` and
status 130: the handler below is in place before anything else is imported, and
``interrupt.install`` replaces it with the full one."""

import os
import signal


def _interrupted_while_starting(signum, frame) -> None:
    """Nothing to save or flush yet: the line and the status (as ``interrupt.exit_interrupted``)."""
    try:
        os.write(2, b"interrupted\n")
    except OSError:
        pass
    os._exit(130)


try:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where Ctrl-C is ignored (nohup, `cmd &`)
        signal.signal(signal.SIGINT, _interrupted_while_starting)
except ValueError:  # imported outside the main thread: signals are the main thread's
    pass

from jaxsolve import interrupt  # noqa: E402  # after the handler above, on purpose

interrupt.install()


def main() -> None:
    interrupt.install()
    from jaxsolve.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
