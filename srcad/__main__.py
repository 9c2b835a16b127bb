"""``python -m srcad``: the srcad command line (srcad/cli.py)."""

from .cli import console_main

if __name__ == "__main__":
    console_main()
