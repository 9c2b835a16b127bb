"""What each optimization buys: gradient time with all optimizations, with each one
switched off in turn, and with none, as a multiple of the hand-written adjoint.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_passes.py [WORKLOAD ...]

Timings are interleaved round by round in one process (median of paired
ratios over 9 rounds), so drift in machine speed cancels.
"""

from __future__ import annotations

import os
import statistics
import sys
import timeit

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad.pipeline import OPTIMIZATIONS  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handwritten  # noqa: E402
import workloads  # noqa: E402


def per_call(function):
    number = 1
    while timeit.timeit(function, number=number) < 0.02:
        number *= 2
    return number


def main(names):
    variants = {"all": True, "none": False}
    for name in OPTIMIZATIONS:
        variants["without " + name] = tuple(o for o in OPTIMIZATIONS if o != name)
    print("%-12s %s" % ("workload", "  ".join("%18s" % v for v in variants)))
    for name, function, make, wrt in workloads.WORKLOADS:
        if names and name not in names:
            continue
        args = make(np)
        hand = getattr(handwritten, name + "_grad")
        calls = {"hand": lambda hand=hand, args=args: hand(*args)}
        for label, optimize in variants.items():
            gradient = srcad.grad(function, wrt=tuple(wrt), optimize=optimize)
            gradient(*args)
            calls[label] = (lambda g=gradient, args=args: g(*args))
        numbers = {k: per_call(f) for k, f in calls.items()}
        samples = {k: [] for k in calls}
        for _ in range(9):
            for k, f in calls.items():
                samples[k].append(timeit.timeit(f, number=numbers[k]) / numbers[k])
        ratios = {k: statistics.median(a / b for a, b in zip(samples[k], samples["hand"]))
                  for k in variants}
        print("%-12s %s" % (name, "  ".join("%17.2fx" % ratios[v] for v in variants)))
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
