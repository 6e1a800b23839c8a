"""``python -m localselect``: the command-line interface."""

from localselect.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
