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

Method: each primitive runs in this process, interleaved with its adjoint (in alternating
order), 7 rounds, each round timing each over enough calls to take >= 20 ms; the ratio is
that of the fastest round of each (on a shared machine other work only adds time: the
minimum is the least disturbed measurement). BLAS runs single-threaded unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS
/ MKL_NUM_THREADS are set.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import warnings

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before NumPy is imported

import numpy as np  # noqa: E402

import srcad  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_samples  # noqa: E402
from srcad import docs_primitives, registry  # noqa: E402

ROUNDS = 7
FLAG = 3.0
# a primitive faster than this on 10^6 elements made a view: its ratio measures srcad.vjp's
# call overhead against nothing; its adjoint is flagged against a copy of its result instead
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
    # primitives added since the first recipes (docs/primitives.md)
    "numpy.where": lambda x, y: (x > 0.5, x, y),
    "numpy.ldexp": lambda x, y: (x, 3),
    "numpy.linalg.cholesky": lambda x, y: (_positive_definite(x),),
    "numpy.cross": lambda x, y: (_rows_of_3(x), _rows_of_3(y)),
    "numpy.linalg.svd": lambda x, y: (x, False),
    "numpy.linalg.matrix_power": lambda x, y: (x / x.shape[0], 3),
    "numpy.einsum": lambda x, y: ("ij,ij->i", x, y),
    "numpy.quantile": lambda x, y: (x, 0.3),
    "numpy.percentile": lambda x, y: (x, 30.0),
    "numpy.roll": lambda x, y: (x, 3),
    "numpy.swapaxes": lambda x, y: (x, 0, 1),
    "ndarray.swapaxes": lambda x, y: (x, 0, 1),
    "numpy.moveaxis": lambda x, y: (x, 0, 1),
    "numpy.rollaxis": lambda x, y: (x, 1),
    "numpy.tile": lambda x, y: (x, (1, 2)),
    "numpy.repeat": lambda x, y: (x, 2),
    "ndarray.repeat": lambda x, y: (x, 2),
    "numpy.take": lambda x, y: (x, _positions(y, x.size)),
    "ndarray.take": lambda x, y: (x, _positions(y, x.size)),
    "numpy.take_along_axis": lambda x, y: (x, _positions(y, x.shape[1]), 1),
    "numpy.pad": lambda x, y: (x, 1),
    "numpy.array_split": lambda x, y: (x, 3),
    "numpy.hsplit": lambda x, y: (x, 2),
    "numpy.vsplit": lambda x, y: (x, 2),
    "numpy.dsplit": lambda x, y: (x.reshape(x.shape[0], -1, 2), 2),
    "numpy.partition": lambda x, y: (x, x.shape[1] // 2),
    "numpy.select": lambda x, y: ([x > 0.6, x < 0.3], [x, y]),
    "numpy.delete": lambda x, y: (x, np.arange(0, x.shape[1], 2), 1),
    "numpy.insert": lambda x, y: (x, 1, y[:, 0], 1),
    "numpy.compress": lambda x, y: (y[0] > 0.5, x, 1),
    "ndarray.compress": lambda x, y: (x, y[0] > 0.5, 1),
    "numpy.choose": lambda x, y: ((x > 0.5).astype(np.intp), [x, y]),
    "scipy.special.polygamma": lambda x, y: (1, x),
    "scipy.special.multigammaln": lambda x, y: (x + 3.0, 3),
    "scipy.stats.beta.logpdf": lambda x, y: (x, 2.0, 3.0),
    "scipy.stats.poisson.logpmf": lambda x, y: (np.floor(10 * x), 5.0 * y),
    "scipy.stats.dirichlet.logpdf": lambda x, y: (x / x.sum(axis=0), 1.0 + y[:, 0]),
    "scipy.stats.multivariate_normal.logpdf": lambda x, y: (
        x, y[0], _positive_definite(y)),
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


# Why an adjoint stays above 3x where that is the nature of the derivative, not srcad's code
# (the adjoint is timed as srcad.vjp's function, which first recomputes what it reads)
_REDUCTION = ("a reduction reads 10^6 values and writes a few; its adjoint writes 10^6 (a "
              "fresh array: page faults and at least one pass)")
_EXTREMUM = _REDUCTION + ", after finding the extremes again (a comparison pass)"
_TWO_ADJOINTS = ("one pass over the data; its adjoint writes two arrays (one per operand), "
                 "each at least a pass, from a comparison or a derivative of its own")
_DERIVATIVE = ("one pass; its adjoint recomputes it (the derivative reads it) or computes "
               "a derivative costlier than the function, then multiplies by g")
_FACTORIZATION = ("its adjoint needs solves with the factors or an inverse: several "
                  "times the factorization's O(n^3)")
_SCATTER = ("its adjoint scatters g through a permutation it recomputes (argsort costs "
            "more than sort, and a scatter more than a gather)")
WHY_ABOVE = {
    **dict.fromkeys(("numpy.max", "numpy.min", "numpy.amax", "numpy.amin", "ndarray.max",
                     "ndarray.min", "numpy.nanmax", "numpy.nanmin", "numpy.ptp"), _EXTREMUM),
    **dict.fromkeys(("numpy.linalg.norm", "numpy.vdot", "numpy.prod", "ndarray.prod",
                     "numpy.mean", "ndarray.mean", "numpy.average", "ndarray.std",
                     "numpy.median", "numpy.quantile", "numpy.percentile", "numpy.std",
                     "numpy.var", "ndarray.var", "numpy.nanmean", "numpy.nansum",
                     "numpy.tensordot", "numpy.einsum", "numpy.inner"), _REDUCTION),
    **dict.fromkeys(("numpy.maximum", "numpy.minimum", "numpy.fmax", "numpy.fmin",
                     "numpy.multiply", "a * b (operator.mul)", "numpy.divide",
                     "a / b (operator.truediv)", "numpy.power", "a ** b (operator.pow)",
                     "numpy.arctan2", "numpy.copysign", "numpy.hypot", "numpy.where",
                     "numpy.float_power", "numpy.cross"), _TWO_ADJOINTS),
    **dict.fromkeys(("numpy.exp", "numpy.exp2", "numpy.expm1", "numpy.log2", "numpy.log10",
                     "numpy.sqrt", "numpy.cbrt", "numpy.square", "numpy.reciprocal",
                     "numpy.absolute", "numpy.negative", "numpy.tan", "numpy.arcsin",
                     "numpy.arccos", "numpy.clip", "ndarray.clip", "numpy.rad2deg",
                     "numpy.degrees", "numpy.log1p", "numpy.arctan", "numpy.sinh",
                     "numpy.cosh", "numpy.tanh"), _DERIVATIVE),
    **dict.fromkeys(("numpy.linalg.det", "numpy.linalg.slogdet", "scipy.linalg.det",
                     "numpy.linalg.qr", "numpy.linalg.cholesky", "numpy.linalg.lstsq",
                     "numpy.linalg.eigh", "numpy.linalg.svd", "numpy.linalg.pinv"),
                    _FACTORIZATION),
    "scipy.linalg.solve_triangular": "a triangular solve is n^3 flops; its adjoint is a "
                                     "second solve and a full product g x^T (2 n^3 more)",
    "scipy.linalg.expm": "its adjoint is the Frechet derivative, an expm of a 2n x 2n block "
                         "matrix (8 times the flops)",
    "numpy.linalg.matrix_power": "k - 1 products; its adjoint 2 (k - 1) products, after "
                                 "recomputing the powers it reads",
    **dict.fromkeys(("numpy.sort", "numpy.partition", "numpy.take_along_axis",
                     "numpy.take", "ndarray.take"), _SCATTER),
    **dict.fromkeys(("numpy.cumprod", "ndarray.cumprod"),
                    "its adjoint is a backward linear recurrence with no division (exact "
                    "where x has zeros): a Python loop over sqrt(n) blocks of the scan"),
    **dict.fromkeys(("numpy.full_like", "numpy.full", "numpy.arange", "numpy.linspace"),
                    "the primitive only writes 10^6 values; its adjoint reads g and "
                    "reduces it against weights it builds as the primitive does"),
    **dict.fromkeys(("numpy.nancumprod",),
                    "as np.cumprod's (a backward linear recurrence, no division: a Python loop "
                    "over sqrt(n) blocks of the scan), with the nan masks"),
    **dict.fromkeys(("numpy.nanprod",),
                    "the product of 10^6 values in (0.1, 0.9) underflows to 0: the adjoint "
                    "takes the exact path (prefix and suffix products, no division), as np.prod"),
    "scipy.special.psi": ("its derivative polygamma(1, x) is SciPy's Hurwitz zeta(2, x): about "
                          "20 times psi's own time on these inputs, by itself"),
    "scipy.special.j1": ("j1 is the cheapest Bessel function here (~10 ns an element): its "
                         "derivative j0 - j1/x adds j0 (as costly) to j1 recomputed (2x "
                         "already), then j1/x (0 at 0 replaced, the series near 0) and the "
                         "product with g: a few passes over 10^6 values"),
    "numpy.sinc": ("its derivative (cos(pi x) - sinc(x)) / x adds cos(pi x) (as costly as "
                   "sinc's own sin) and sinc recomputed, and the exact series near 0 is "
                   "evaluated everywhere (np.where): ~15 elementwise passes"),
    **dict.fromkeys(("numpy.diagonal", "ndarray.diagonal", "numpy.diag", "numpy.trace",
                     "ndarray.trace"),
                    "its result is a small part of x; its adjoint writes all of x (zeros, g "
                    "where the part was): an array of x's size against a copy of the part"),
    **dict.fromkeys(("numpy.compress", "ndarray.compress"),
                    "its result is the kept part of x (half here); its adjoint writes all of x "
                    "(zeros, then g at the kept positions): twice the gather's size, two passes"),
    "a[index] (operator.getitem)": ("x[::2] is half of x; its adjoint writes all of x "
                                    "(zeros, then g every other row): twice the copy's size, "
                                    "two passes"),
}

# name -> positions of the recipe's arguments held constant (srcad has no derivative in them)
HELD = {
    "numpy.linalg.svd": (1,),
    "numpy.quantile": (1,),
    "numpy.percentile": (1,),
    "scipy.special.polygamma": (0,),
    "scipy.special.multigammaln": (1,),
    "scipy.stats.poisson.logpmf": (0,),
    "scipy.stats.dirichlet.logpdf": (0,),
}


def _positive_definite(x):
    return x @ x.T / x.shape[0] + np.eye(x.shape[0])


def _rows_of_3(x):
    return x.reshape(-1)[: x.size - x.size % 3].reshape(-1, 3)


def _positions(y, size):
    return (y * size).astype(np.intp) % size


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
        if _size(result) <= 4 * small_x.size * len(make(small_x, small_y)):
            return make, None
        return None, "its result is much larger than its inputs"
    return None, "no recipe (add one to RECIPES)"


def _size(result) -> int:
    """The number of elements in a result: an array's, or a tuple's (np.linalg.eigh...) in all."""
    if isinstance(result, (tuple, list)):
        return sum(_size(part) for part in result)
    return np.size(result)


def _ones_like(output):
    """A cotangent of ones for ``output``, of its structure (an array, a tuple, a namedtuple)."""
    if isinstance(output, (tuple, list)):
        parts = [_ones_like(part) for part in output]
        if hasattr(output, "_fields"):
            return type(output)(*parts)
        return type(output)(parts)
    if np.asarray(output).dtype.kind not in "fc":
        return None  # an integer or bool output (lstsq's rank) has no cotangent
    return np.ones_like(output)


_module_counter = [0]


def measure(primitive, name, make, size):
    x, y = inputs(size)
    every = make(x, y)
    held = HELD.get(name, ())
    # a held argument is a literal of the call (srcad sees its value), or a constant global
    names = [repr(a) if i in held and type(a) in (bool, int, float) else
             "c%d" % i if i in held else "a%d" % i for i, a in enumerate(every)]
    constants = {"c%d" % i: a for i, a in enumerate(every) if i in held}
    args = tuple(a for i, a in enumerate(every) if i not in held)
    parameters = [n for i, n in enumerate(names) if i not in held]
    method = _method_name(primitive.obj)
    if method is None:
        called = "primitive(%s)" % ", ".join(names)
    elif callable(primitive.obj):  # x.sum(), as users write it
        called = "%s.%s(%s)" % (names[0], method, ", ".join(names[1:]))
    else:  # x.T
        called = "%s.%s" % (names[0], method)
    source = "def call(%s):\n    return %s\n" % (", ".join(parameters), called)
    call = _compiled_in_file(source, primitive.obj, constants)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        output, vjp_fn = srcad.vjp(call, *args)
        cotangent = _ones_like(output)
        vjp_fn(cotangent)
        callables = {"primitive": lambda: call(*args),
                     "adjoint": lambda: vjp_fn(cotangent)}
        samples = interleaved_samples(callables, ROUNDS)
    # the least disturbed round of each: on a shared machine, other work only adds time
    primitive, adjoint = min(samples["primitive"]), min(samples["adjoint"])
    row = {"name": name, "primitive_ms": primitive * 1e3, "adjoint_ms": adjoint * 1e3,
           "ratio": adjoint / primitive}
    if row["primitive_ms"] < CONSTANT_TIME_MS:
        # a view: its adjoint is measured against a copy of its result instead (what the
        # primitive costs where NumPy copies, and what its adjoint must at least write)
        copying = interleaved_samples({"copy": lambda: _copied(output)}, ROUNDS)
        row["copy_ms"] = min(copying["copy"]) * 1e3
    return row


def _copied(output):
    """A copy of every array of ``output`` (an array, or a tuple or list of them)."""
    if isinstance(output, (tuple, list)):
        return [_copied(part) for part in output]
    return np.array(output, copy=True)


def _above(row) -> bool:
    """Above the bar: the ratio to the primitive's time, or for a view to a copy of its result."""
    if "copy_ms" in row:
        return row["adjoint_ms"] > FLAG * max(row["copy_ms"], CONSTANT_TIME_MS)
    return row["ratio"] > FLAG


def _method_name(obj):
    """The name of an ndarray method or attribute ``obj`` is, or None."""
    name = getattr(obj, "__name__", None)
    return name if name and getattr(np.ndarray, name, None) is obj else None


def _compiled_in_file(source, obj, constants):
    _module_counter[0] += 1
    directory = tempfile.mkdtemp(prefix="srcad-bench-primitives-")
    module_name = "srcad_bench_call_%d" % _module_counter[0]
    path = os.path.join(directory, module_name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    module.primitive = obj
    vars(module).update(constants)
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
        if module in SKIPPED_MODULES and _method_name(primitive.obj) is None and not isinstance(
                primitive.obj, np.ufunc):  # (SciPy's ufuncs have no __module__)
            not_measured.append((name, "a function of Python scalars"))
            continue
        make, why = recipe_for(primitive, name)
        if make is None:
            not_measured.append((name, why))
            continue
        try:
            rows.append(measure(primitive, name, make, options.size))
        except Exception as error:  # noqa: BLE001 - reported, the others still measured
            message = str(error).splitlines()[0]
            message = message.split(" error: ", 1)[-1]  # (srcad's errors start with a location)
            not_measured.append((name, "%s: %s" % (type(error).__name__, message[:100])))
    print("%-34s %12s %12s %9s" % ("primitive", "primitive", "adjoint", "ratio"))
    for row in sorted(rows, key=lambda r: -r["ratio"]):
        flag = "  above %.0fx" % FLAG if row["ratio"] > FLAG else ""
        if "copy_ms" in row:
            flag = " (a view, costing no pass over the data: %.2fx a copy of its result%s)" % (
                row["adjoint_ms"] / max(row["copy_ms"], CONSTANT_TIME_MS),
                ", above %.0fx" % FLAG if _above(row) else "")
        print("%-34s %10.2fms %10.2fms %8.2fx%s" % (row["name"], row["primitive_ms"],
                                                    row["adjoint_ms"], row["ratio"], flag))
    flagged = [row["name"] for row in rows if _above(row)]
    print("\n%d measured, %d above %.0fx (views: against a copy of their result)%s" % (
        len(rows), len(flagged), FLAG, (": " + ", ".join(flagged)) if flagged else ""))
    if flagged:
        print("why above %.0fx:" % FLAG)
        for name in flagged:
            print("  %-32s %s" % (name, WHY_ABOVE.get(name, "srcad's cost: not explained by "
                                                            "the derivative (to improve)")))
    if not_measured:
        print("not measured:")
        for name, why in not_measured:
            print("  %-32s %s" % (name, why))
    print("(inputs %d x %d; fastest of %d interleaved rounds; adjoint = srcad.vjp's function, "
          "which recomputes the forward values it reads; BLAS threads: %s)"
          % (options.size, options.size, ROUNDS, os.environ["OPENBLAS_NUM_THREADS"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
