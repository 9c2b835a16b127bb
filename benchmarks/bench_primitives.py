"""The cost of each primitive's adjoint, as a multiple of the primitive's own time.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_primitives.py [--size N] [NAME ...]

For every registered primitive (docs/primitives.md) it can call on simple inputs, N x N
arrays (N = 1000: 10^6 elements) of values in (0.1, 0.9), it times srcad's vector-Jacobian
product of the call (``srcad.vjp``: the generated code, specialized for these arguments,
which recomputes whatever forward values the adjoint reads) against the call itself, and
flags the adjoints above 3x. NAME restricts the run to primitives whose name contains it.

How a primitive is called: a recipe of ``RECIPES`` when it has one, else the first of
``f(x)``, ``f(x, y)`` that runs on 10 x 10 inputs and gives a result no larger than 4
times its inputs (so a new primitive is tried without a recipe, and one like np.outer is
never called on 10^6-element inputs). Python's scalar functions (math, builtins), srcad's
own helpers and primitives no recipe fits are listed as not measured.

Method: each primitive runs in this process, interleaved with its adjoint, 5 rounds, each
round timing each over enough calls to take >= 20 ms; the ratio is the median of the
per-round ratios. BLAS runs single-threaded unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS
/ MKL_NUM_THREADS are set.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import timeit
import warnings

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy is imported

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad import docs_primitives, registry  # noqa: E402

ROUNDS = 5
FLAG = 3.0
# a primitive faster than this on 10^6 elements made a view; its adjoint's ratio measures
# srcad.vjp's call overhead, not the adjoint (not counted among the flagged)
CONSTANT_TIME_MS = 0.05

# name -> arguments from x, y (two N x N arrays); the rest are tried as f(x), then f(x, y)
RECIPES = {
    "numpy.reshape": lambda x, y: (x, (x.size,)),
    "ndarray.reshape": lambda x, y: (x, x.size),
    "numpy.expand_dims": lambda x, y: (x, 0),
    "numpy.concatenate": lambda x, y: ([x, y],),
    "numpy.stack": lambda x, y: ([x, y],),
    "numpy.split": lambda x, y: (x, 2),
    "numpy.broadcast_to": lambda x, y: (x[0], x.shape),
    "numpy.outer": lambda x, y: (x[0], y[0]),
    "numpy.full_like": lambda x, y: (x, 0.5),
    "numpy.full": lambda x, y: (x.shape, 0.5),
    "numpy.linspace": lambda x, y: (0.5, 2.5, x.size),
    "numpy.arange": lambda x, y: (0.5, x.size + 0.5),
    "ndarray.astype": lambda x, y: (x, np.float64),
    "a[index] (operator.getitem)": lambda x, y: (x, slice(None, None, 2)),
    "numpy.linalg.norm": lambda x, y: (x,),
    # a signal and a short filter (a kernel of the size of the image: O(N^4) in direct mode)
    "numpy.convolve": lambda x, y: (np.ravel(x), y[0, :16]),
    "numpy.correlate": lambda x, y: (np.ravel(x), y[0, :16]),
    "scipy.signal.convolve": lambda x, y: (x, y[:5, :5]),
    "scipy.signal.correlate": lambda x, y: (x, y[:5, :5]),
    "scipy.signal.convolve2d": lambda x, y: (x, y[:3, :3]),
    "scipy.signal.correlate2d": lambda x, y: (x, y[:3, :3]),
    "numpy.polyval": lambda x, y: (y[0, :6], x),
    "numpy.logspace": lambda x, y: (x[0], y[0], x.shape[0]),
}
SKIPPED_MODULES = ("math", "builtins")


def inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.1, 0.9, (size, size)), rng.uniform(0.1, 0.9, (size, size))


def recipe_for(primitive, name):
    """A function (x, y) -> arguments for ``primitive``, or (None, why not)."""
    if name in RECIPES:
        return RECIPES[name], None
    small_x, small_y = inputs(10)
    function = primitive.obj
    if _method_name(function) is not None and not callable(function):
        function = function.__get__  # x.T: the attribute of x
    for make in (lambda x, y: (x,), lambda x, y: (x, y)):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = function(*make(small_x, small_y))
        except Exception:  # noqa: BLE001 - trying a call shape: any failure means "not this"
            continue
        if np.size(result) <= 4 * small_x.size * len(make(small_x, small_y)):
            return make, None
        return None, "its result is much larger than its inputs"
    return None, "no recipe (add one to RECIPES)"


_module_counter = [0]


def calls_per_sample(function, minimum_seconds=0.02) -> int:
    number = 1
    while timeit.timeit(function, number=number) < minimum_seconds:
        number *= 2
    return number


def measure(primitive, name, make, size):
    x, y = inputs(size)
    args = make(x, y)
    parameters = ["a%d" % i for i in range(len(args))]
    method = _method_name(primitive.obj)
    if method is None:
        called = "primitive(%s)" % ", ".join(parameters)
    elif callable(primitive.obj):  # x.sum(), as users write it
        called = "a0.%s(%s)" % (method, ", ".join(parameters[1:]))
    else:  # x.T
        called = "a0.%s" % method
    source = "def call(%s):\n    return %s\n" % (", ".join(parameters), called)
    call = _compiled_in_file(source, primitive.obj)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        output, vjp_fn = srcad.vjp(call, *args)
        cotangent = (np.ones_like(output) if not isinstance(output, list)
                     else [np.ones_like(part) for part in output])
        vjp_fn(cotangent)
        callables = {"primitive": lambda: call(*args),
                     "adjoint": lambda: vjp_fn(cotangent)}
        numbers = {key: calls_per_sample(function) for key, function in callables.items()}
        samples = {key: [] for key in callables}
        for _ in range(ROUNDS):
            for key, function in callables.items():
                samples[key].append(timeit.timeit(function, number=numbers[key])
                                    / numbers[key])
    return {"name": name,
            "primitive_ms": statistics.median(samples["primitive"]) * 1e3,
            "adjoint_ms": statistics.median(samples["adjoint"]) * 1e3,
            "ratio": statistics.median(a / p for a, p in zip(samples["adjoint"],
                                                             samples["primitive"]))}


def _method_name(obj):
    """The name of an ndarray method or attribute ``obj`` is, or None."""
    name = getattr(obj, "__name__", None)
    return name if name and getattr(np.ndarray, name, None) is obj else None


def _compiled_in_file(source, obj):
    _module_counter[0] += 1
    directory = tempfile.mkdtemp(prefix="srcad-bench-primitives-")
    module_name = "srcad_bench_call_%d" % _module_counter[0]
    path = os.path.join(directory, module_name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    module.primitive = obj
    spec.loader.exec_module(module)
    return module.call


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="N: inputs are N x N")
    parser.add_argument("names", nargs="*", help="only primitives whose name contains one")
    options = parser.parse_args(argv)
    rows, not_measured = [], []
    for primitive in registry.registered():
        if not docs_primitives.is_differentiable(primitive) or docs_primitives.is_internal(
                primitive):
            continue
        name = docs_primitives._name(primitive)
        if options.names and not any(part in name for part in options.names):
            continue
        module = getattr(primitive.obj, "__module__", None) or "builtins"
        if module in SKIPPED_MODULES and _method_name(primitive.obj) is None:
            not_measured.append((name, "a function of Python scalars"))
            continue
        make, why = recipe_for(primitive, name)
        if make is None:
            not_measured.append((name, why))
            continue
        try:
            rows.append(measure(primitive, name, make, options.size))
        except Exception as error:  # noqa: BLE001 - reported, the others still measured
            not_measured.append((name, "%s: %s" % (type(error).__name__,
                                                   str(error).splitlines()[0][:80])))
    print("%-34s %12s %12s %9s" % ("primitive", "primitive", "adjoint", "ratio"))
    for row in sorted(rows, key=lambda r: -r["ratio"]):
        flag = "  above %.0fx" % FLAG if row["ratio"] > FLAG else ""
        if row["primitive_ms"] < CONSTANT_TIME_MS:
            flag += " (a view: the primitive costs no pass over the data)"
        print("%-34s %10.2fms %10.2fms %8.2fx%s" % (row["name"], row["primitive_ms"],
                                                    row["adjoint_ms"], row["ratio"], flag))
    flagged = [row["name"] for row in rows
               if row["ratio"] > FLAG and row["primitive_ms"] >= CONSTANT_TIME_MS]
    print("\n%d measured, %d above %.0fx (views aside)%s" % (len(rows), len(flagged), FLAG,
                                             (": " + ", ".join(flagged)) if flagged else ""))
    if not_measured:
        print("not measured:")
        for name, why in not_measured:
            print("  %-32s %s" % (name, why))
    print("(inputs %d x %d; median of %d interleaved rounds; adjoint = srcad.vjp's function, "
          "which recomputes the forward values it reads; BLAS threads: %s)"
          % (options.size, options.size, ROUNDS, os.environ["OPENBLAS_NUM_THREADS"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
