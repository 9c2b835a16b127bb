"""The code srcad generates for fuzz programs, to compare two versions of srcad.

A change that should leave the generated code as it is (a speed-up, a refactor) is
checked on far more code than the golden tests hold: take a snapshot with each
version and compare them.

    python tests/fuzz/snapshot.py --n 500 --seed 7 --out before.json   # one version
    python tests/fuzz/snapshot.py --n 500 --seed 7 --out after.json    # the other
    python tests/fuzz/snapshot.py --compare before.json after.json

For every program: the gradient's generic code (``srcad.source``), its code
specialized for the program's arguments, and the jvp's specialized code; an error
is recorded by its type and message. The program's file path is replaced by
``<program>`` so that snapshots from different processes compare.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import srcad  # noqa: E402
from tests.fuzz.check import load_module  # noqa: E402
from tests.fuzz.generate import generate  # noqa: E402
from tests.fuzz.run import program_seed  # noqa: E402


def _text(make, path) -> str:
    try:
        text = make()
    except Exception as error:  # a rejection is part of what srcad does
        text = "error: %s: %s" % (type(error).__name__, error)
    return text.replace(path, "<program>")


def snapshot(seed: int, size: str) -> dict:
    program = generate(seed, size)
    module = load_module(program.source, "snapshot_program")
    function = getattr(module, program.function_name)
    path = module.__file__
    wrt, arguments = program.wrt, program.make_arguments()
    return {
        "generic": _text(lambda: srcad.source(function, wrt=wrt), path),
        "specialized": _text(
            lambda: srcad.source(function, wrt=wrt, example_args=arguments), path),
        "forward": _text(lambda: srcad.source(function, wrt=wrt, mode="forward",
                                              example_args=arguments), path),
    }


def compare(before_path: str, after_path: str) -> int:
    with open(before_path) as file:
        before = json.load(file)
    with open(after_path) as file:
        after = json.load(file)
    differing = [(key, part) for key in sorted(before, key=int) if key in after
                 for part in before[key] if before[key][part] != after[key].get(part)]
    print("%d programs compared, %d generated texts differ"
          % (len(set(before) & set(after)), len(differing)))
    for key, part in differing[:10]:
        print("program %s, %s:\n--- before\n%s\n--- after\n%s\n"
              % (key, part, before[key][part], after[key][part]))
    return 1 if differing else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", default="medium")
    parser.add_argument("--out")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    options = parser.parse_args(argv)
    if options.compare:
        return compare(*options.compare)
    os.environ.setdefault("SRCAD_CACHE", "0")
    result = {str(index): snapshot(program_seed(options.seed, index), options.size)
              for index in range(options.n)}
    with open(options.out, "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
    print("%d programs written to %s" % (options.n, options.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
