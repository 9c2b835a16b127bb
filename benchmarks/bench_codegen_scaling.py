"""How code generation time grows with the length of the differentiated function.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_codegen_scaling.py [LINES ...] [--rounds N] [--stages] [--opcodes]

For each size (default 50, 200, 800 lines) a realistic function is generated
deterministically: blocks of scalar and array math, ``for`` loops with
branches inside, ``if``/``else`` on scalars, and calls of a small helper
(inlined by srcad), all feeding one scalar result. It is written to a file
(srcad reads the source) and imported.

Measured in one warm process with the disk cache off (``SRCAD_CACHE=0``),
after a warm-up generation of an unrelated function, in paired rounds (each
round times every size once, so drift in machine speed hits all sizes alike);
the median over the rounds is reported:

  grad+call     ``srcad.grad(f)`` then the first call: what a user waits for
                (after ``srcad.cache.clear()``, which forgets the function's
                parse too: reading and parsing its source is counted)
  specialized   ``pipeline.generate_reverse`` for the arguments' kinds alone
                (the code that runs), as the first call makes it: from the
                normalized front grad()'s check kept, when that front does not
                depend on the kinds (pipeline._front)

``--stages`` adds the time per pipeline stage of the specialized generation.
``--opcodes`` adds the Python bytecode instructions one grad+call executes (counted
with sys.settrace, so slowly): the same on every machine and every run, a measure of
the work that a shared, noisy machine's times blur (it leaves out what C code does:
parsing, compiling, NumPy).
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import tempfile
import time
import zlib

os.environ["SRCAD_CACHE"] = "0"  # measure generation, never the disk cache
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad import cache, pipeline  # noqa: E402

HELPER = '''

def smooth_step(u, width):
    t = np.tanh(u / width)
    return 0.5 * (1.0 + t) * u
'''


def _blocks(seed):
    """Deterministic pseudo-random choice of code blocks (each returns its lines)."""
    state = zlib.crc32(b"srcad-codegen-scaling") ^ seed
    index = 0
    while True:
        state = (1103515245 * state + 12345) & 0x7FFFFFFF
        index += 1
        yield state % 5, index


def _block(kind, k):
    v, s = "v", "s"
    if kind == 0:  # array math
        return ["a%d = np.tanh(np.dot(W, %s) + b * %.2f)" % (k, v, 0.1 * (k % 7 + 1)),
                "%s = 0.5 * %s + 0.5 * a%d" % (v, v, k),
                "%s = %s + np.sum(a%d * a%d) * %.3f" % (s, s, k, k, 0.001 * (k % 5 + 1))]
    if kind == 1:  # scalar math
        return ["c%d = np.sin(%s) * %.2f + np.cos(x[%d])" % (k, s, 0.5 + k % 3, k % 4),
                "d%d = c%d * c%d + np.exp(-np.abs(c%d))" % (k, k, k, k),
                "%s = %s + 0.1 * d%d" % (s, s, k)]
    if kind == 2:  # a loop with a branch
        return ["for i%d in range(3):" % k,
                "    e%d = np.dot(W, %s) * %.2f" % (k, v, 0.2 + 0.1 * (k % 3)),
                "    if %s > %.1f:" % (s, k % 3 - 1.0),
                "        %s = %s + np.mean(e%d) * 0.1" % (s, s, k),
                "    else:",
                "        %s = %s - np.mean(e%d * e%d) * 0.1" % (s, s, k, k),
                "    %s = np.tanh(%s + e%d * 0.1)" % (v, v, k)]
    if kind == 3:  # a branch on a scalar
        return ["if np.sum(%s) > %.1f:" % (v, 0.5 * (k % 3)),
                "    f%d = %s * %s + x[%d]" % (k, s, s, k % 4),
                "else:",
                "    f%d = np.log(1.0 + %s * %s)" % (k, s, s),
                "%s = %s * 0.5 + f%d * 0.1" % (s, s, k)]
    # a helper call (inlined) on arrays and scalars
    return ["g%d = smooth_step(%s, %.1f)" % (k, v, 1.0 + k % 4),
            "%s = %s + np.sum(g%d * x) * 0.01" % (s, s, k),
            "%s = g%d" % (v, k)]


def source_of(lines: int, name: str) -> str:
    """The source of a function of about ``lines`` body lines."""
    body = ["s = np.sum(x * x) * 0.1", "v = x"]
    for kind, k in _blocks(lines):
        if len(body) >= lines - 1:
            break
        body.extend(_block(kind, k))
    body.append("return s + np.sum(v * v)")
    return "def %s(W, b, x):\n%s\n" % (name, "\n".join("    " + line for line in body))


def make_function(lines: int, directory: str):
    name = "f%d" % lines
    path = os.path.join(directory, "scaling_%d.py" % lines)
    with open(path, "w") as file:
        file.write("import numpy as np\n" + HELPER + "\n\n" + source_of(lines, name))
    spec = importlib.util.spec_from_file_location("scaling_%d" % lines, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module, name)
    return function, len(source_of(lines, name).splitlines()) - 1


def make_args():
    rng = np.random.default_rng(0)
    return rng.normal(size=(4, 4)) * 0.3, rng.normal(size=4) * 0.1, rng.normal(size=4)


def _kinds(args):
    from srcad.analysis import shapes
    return tuple(shapes.of_value(a) for a in args)


def grad_and_call(function, args) -> float:
    cache.clear()
    started = time.process_time()
    srcad.grad(function, wrt=(0, 1, 2))(*args)
    return (time.process_time() - started) * 1e3


def specialized(function, args) -> float:
    from srcad.request import ReverseRequest
    request = ReverseRequest(wrt=["W", "b", "x"], single=False)
    kinds = _kinds(args)
    started = time.process_time()
    pipeline.generate_reverse(function, request, kinds)
    return (time.process_time() - started) * 1e3


def opcodes(function, args) -> int:
    """Python bytecode instructions executed by ``grad_and_call``'s generation and call."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
        return tracer

    cache.clear()
    sys.settrace(tracer)
    try:
        srcad.grad(function, wrt=(0, 1, 2))(*args)
    finally:
        sys.settrace(None)
    return count


def stage_times(function, args, rounds) -> dict:
    """Milliseconds per stage of a specialized generation (the pipeline's functions wrapped)."""
    import srcad.emit as emit_module
    # pipeline.py imports each stage and pass by name: wrapping its attributes times them
    # (a nested stage counts in its caller too: normalize includes its passes)
    wrapped = {stage: (pipeline, attribute) for stage, attribute in (
        ("parse", "parse_function"), ("fence", "fence"), ("normalize", "normalize"),
        ("  lower_exits", "lower_exits"), ("  to_anf", "to_anf"),
        ("  propagate_writes", "propagate_writes"), ("  split_tuples", "split_tuples"),
        ("  rename_versions", "rename_versions"), ("activity", "analyze_activity"),
        ("reverse", "reverse"), ("lower_accumulations", "lower_accumulations"),
        ("optimize", "optimize"), ("  specialize_calls", "specialize_runtime_calls"),
        ("  keep_broadcasts_implicit", "keep_broadcasts_implicit"),
        ("  simplify_zeros", "simplify_zeros"), ("  fold_constants", "fold_constants"),
        ("  propagate_copies", "propagate_copies"), ("  remove_dead_code", "remove_dead_code"),
        ("  accumulate_in_place", "accumulate_in_place"),
        ("  fuse_single_use", "fuse_single_use"), ("make_resolver (all)", "make_resolver"))
        if hasattr(pipeline, attribute)}
    wrapped["to_source"] = (emit_module, "to_source")
    wrapped["compile"] = (emit_module, "compile_function")
    if hasattr(pipeline, "shapes"):
        wrapped["shapes.infer (all)"] = (pipeline.shapes, "infer")
    spent = {stage: [] for stage in wrapped}
    current = {stage: 0.0 for stage in wrapped}
    originals = {}
    for stage, (module, attribute) in wrapped.items():
        original = originals[stage] = getattr(module, attribute)

        def timed(*a, _original=original, _stage=stage, **k):
            started = time.process_time()
            try:
                return _original(*a, **k)
            finally:
                current[_stage] += time.process_time() - started
        setattr(module, attribute, timed)
    try:
        for _ in range(rounds):
            for stage in current:
                current[stage] = 0.0
            specialized(function, args)
            for stage in current:
                spent[stage].append(current[stage] * 1e3)
    finally:
        for stage, (module, attribute) in wrapped.items():
            setattr(module, attribute, originals[stage])
    return {stage: statistics.median(values) for stage, values in spent.items()}


def main(argv) -> int:
    rounds, show_stages, show_opcodes, sizes = 5, False, False, []
    arguments = list(argv)
    while arguments:
        item = arguments.pop(0)
        if item == "--rounds":
            rounds = int(arguments.pop(0))
        elif item == "--stages":
            show_stages = True
        elif item == "--opcodes":
            show_opcodes = True
        else:
            sizes.append(int(item))
    sizes = sizes or [50, 200, 800]
    args = make_args()
    directory = tempfile.mkdtemp(prefix="srcad-bench-")
    functions = {size: make_function(size, directory) for size in sizes}
    warm, _ = make_function(10, directory)
    grad_and_call(warm, args)  # templates loaded, modules imported
    for size, (function, _) in functions.items():  # every function is differentiable
        gradient = srcad.grad(function, wrt=(0, 1, 2))(*args)
        assert all(np.all(np.isfinite(g)) for g in gradient), size
    totals = {size: [] for size in sizes}
    alone = {size: [] for size in sizes}
    for _ in range(rounds):
        for size, (function, _) in functions.items():
            totals[size].append(grad_and_call(function, args))
            alone[size].append(specialized(function, args))
    print("disk cache off; median of %d paired rounds" % rounds)
    print("%8s %12s %12s %14s %14s" % ("lines", "grad+call", "ms/line", "specialized",
                                       "ms/line"))
    for size, (function, lines) in functions.items():
        total, only = statistics.median(totals[size]), statistics.median(alone[size])
        print("%8d %9.1f ms %12.3f %11.1f ms %14.3f"
              % (lines, total, total / lines, only, only / lines))
    if show_opcodes:
        print("\nPython bytecode instructions executed by grad+call")
        for size, (function, lines) in functions.items():
            count = opcodes(function, args)
            print("%8d %12d %12d per line" % (lines, count, count // lines))
    if show_stages:
        print("\nspecialized generation, ms per stage (median of %d)" % rounds)
        per_size = {size: stage_times(function, args, rounds)
                    for size, (function, _) in functions.items()}
        stages = list(next(iter(per_size.values())))
        print("%-28s %s" % ("stage", "".join("%10d" % s for s in sizes)))
        for stage in stages:
            print("%-28s %s" % (stage, "".join("%10.1f" % per_size[s][stage] for s in sizes)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
