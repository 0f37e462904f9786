"""``python -m jaxsolve``: Ctrl-C handling first (``jaxsolve.interrupt``), then the command line."""

from jaxsolve import interrupt

interrupt.install()


def main() -> None:
    interrupt.install()
    from jaxsolve.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
