"""Gradient run time: srcad vs the plain forward pass vs a hand-written adjoint.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_gradients.py [WORKLOAD ...]

WORKLOAD is one of mlp, scalar_loop, rnn, lotka_rk4 (benchmarks/workloads.py).
Without names, every workload is tried: those srcad rejects (a SrcadError,
e.g. loops before control flow lands) are listed as skipped with srcad's
reason. A workload whose srcad gradient differs from the hand-written one is
reported as wrong and not timed, and the script exits with status 1.

Method (as shared/bench/perf_bar.py): the three callables are timed
interleaved in one process, 15 rounds; each round times each callable over
enough calls to take >= 20 ms. Ratios are computed round by round (paired)
and the median reported, so drift in machine speed cancels. The srcad
gradient is checked against the hand-written one before timing.

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS are set: on a busy 2-core machine a multi-threaded BLAS made
the MLP forward pass swing between 1.3 ms and 23 ms from run to run, which
drowns the differences being measured.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import timeit

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy is imported; see above

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import handwritten  # noqa: E402
from timing import calls_per_sample  # noqa: E402
import workloads  # noqa: E402

import srcad  # noqa: E402

ROUNDS = 15


class WrongGradient(Exception):
    pass



def measure(name, function, make_args, wrt):
    args = make_args(np)
    started = time.perf_counter()
    gradient_function = srcad.grad(function, wrt=tuple(wrt))
    generic_seconds = time.perf_counter() - started
    started = time.perf_counter()
    gradients = gradient_function(*args)
    first_call_seconds = time.perf_counter() - started
    hand_written = getattr(handwritten, name + "_grad")
    reference = hand_written(*args)
    for position, got, expected in zip(wrt, gradients, reference):
        if not np.allclose(got, expected, rtol=1e-7, atol=1e-9):
            raise WrongGradient("srcad's gradient for argument %d differs from the "
                                "hand-written one (max abs difference %.3g)"
                                % (position, np.max(np.abs(np.asarray(got) - expected))))
    callables = {
        "forward": lambda: function(*args),
        "srcad": lambda: gradient_function(*args),
        "hand": lambda: hand_written(*args),
    }
    numbers = {key: calls_per_sample(fn) for key, fn in callables.items()}
    samples = {key: [] for key in callables}
    for _ in range(ROUNDS):
        for key, fn in callables.items():
            samples[key].append(timeit.timeit(fn, number=numbers[key]) / numbers[key])
    median = {key: statistics.median(values) for key, values in samples.items()}
    return {
        "workload": name,
        "forward_us": median["forward"] * 1e6,
        "srcad_us": median["srcad"] * 1e6,
        "hand_us": median["hand"] * 1e6,
        "srcad_over_hand": statistics.median(
            s / h for s, h in zip(samples["srcad"], samples["hand"])),
        "srcad_over_forward": statistics.median(
            s / f for s, f in zip(samples["srcad"], samples["forward"])),
        "hand_over_forward": statistics.median(
            h / f for h, f in zip(samples["hand"], samples["forward"])),
        "generic_ms": generic_seconds * 1e3,
        "first_call_ms": first_call_seconds * 1e3,
    }


def main(argv) -> int:
    known = {name: (name, f, make, wrt) for name, f, make, wrt in workloads.WORKLOADS}
    unknown = [name for name in argv if name not in known]
    if unknown:
        print("unknown workload(s): %s; choose from %s"
              % (", ".join(unknown), ", ".join(known)), file=sys.stderr)
        return 2
    explicit = bool(argv)
    selected = argv or list(known)
    rows, skipped, wrong = [], [], []
    for name in selected:
        try:
            rows.append(measure(*known[name]))
        except srcad.SrcadError as error:
            if explicit:
                raise
            skipped.append((name, error.message))
        except WrongGradient as error:
            wrong.append((name, str(error)))
    header = ("workload", "forward", "srcad", "hand-written", "srcad/hand", "srcad/fwd",
              "hand/fwd", "grad() ms", "1st call ms")
    print("%-12s %10s %10s %13s %11s %10s %9s %10s %12s" % header)
    for row in rows:
        print("%-12s %8.1fus %8.1fus %11.1fus %10.2fx %9.2fx %8.2fx %10.1f %12.1f" % (
            row["workload"], row["forward_us"], row["srcad_us"], row["hand_us"],
            row["srcad_over_hand"], row["srcad_over_forward"], row["hand_over_forward"],
            row["generic_ms"], row["first_call_ms"]))
    for name, reason in skipped:
        print("%-12s skipped: %s" % (name, reason))
    for name, reason in wrong:
        print("%-12s WRONG: %s" % (name, reason))
    print("(times: median per call over %d interleaved rounds; ratios: median of per-round "
          "ratios; grad() = generic code generation, 1st call = specialized generation + "
          "one run; BLAS threads: %s)" % (ROUNDS, os.environ["OPENBLAS_NUM_THREADS"]))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
