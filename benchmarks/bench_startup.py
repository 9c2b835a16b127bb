"""Time to the first gradient in a new process: cold vs warm persistent cache.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_startup.py [RUNS]

Each run starts a new Python process that imports srcad, differentiates a
~50-line function with loops (``workload`` below, written to a temporary
module: srcad reads functions from files) and calls the gradient once.

  cold   every process starts with an empty cache directory: srcad parses,
         normalizes, transforms and optimizes the function (twice: the generic
         code when grad() is called, the code specialized for the arguments at
         the first call), then stores both in the cache
  warm   every process finds both entries in the cache: it only compiles them

Reported, as the median over RUNS (default 9) processes, in milliseconds:

  first gradient   from just before ``import srcad`` to the first gradient returned
  of which srcad   grad() plus the first call (the part the cache speeds up)
  process          the whole process, as the shell sees it (interpreter start included)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

WORKLOAD = textwrap.dedent('''\
    import numpy as np


    def workload(w, x, steps):
        """A ~50-line loss: a small recurrent model unrolled over a loop, with branches."""
        hidden = np.zeros(4)
        total = 0.0
        scale = np.sum(w * w) + 1.0
        for t in range(steps):
            u = x[t] * w
            pre = u + 0.5 * hidden
            if t % 2 == 0:
                act = np.tanh(pre)
            else:
                act = pre / (1.0 + np.abs(pre))
            gate = 1.0 / (1.0 + np.exp(-pre))
            hidden = gate * act + (1.0 - gate) * hidden
            energy = np.sum(hidden * hidden)
            total = total + energy / scale
            drift = 0.0
            for k in range(3):
                drift = drift + np.sin(hidden[k] * w[k])
            total = total + 0.1 * drift
        smooth = 0.0
        previous = w[0]
        for value in w:
            delta = value - previous
            smooth = smooth + delta * delta
            previous = value
        penalty = 0.01 * np.sum(w * w)
        peak = np.max(hidden)
        if peak > 0.5:
            penalty = penalty + 0.1 * (peak - 0.5) ** 2
        norm = np.sqrt(np.sum(hidden * hidden) + 1e-8)
        direction = hidden / norm
        alignment = np.dot(direction, w)
        log_term = np.log(1.0 + alignment * alignment)
        mean = np.mean(hidden)
        spread = np.mean((hidden - mean) ** 2)
        ratio = spread / (1.0 + mean * mean)
        state = w[1]
        trace = 0.0
        n = 0
        while n < 10:
            state = state - 0.1 * (state * state * state - w[2])
            trace = trace + state * state
            n = n + 1
        soft = np.log(np.sum(np.exp(w - np.max(w))))
        squashed = hidden / np.sqrt(1.0 + hidden * hidden)
        tail = np.sum(squashed * w) * soft
        result = total + penalty + 0.5 * smooth
        result = result + 0.2 * log_term + 0.05 * ratio
        result = result + 0.01 * trace + 0.1 * tail
        return result
''')

CHILD = textwrap.dedent('''\
    import json, sys, time
    started = time.perf_counter()
    import numpy as np
    import srcad
    from srcad.cache import disk
    imported = time.perf_counter()
    sys.path.insert(0, sys.argv[1])
    from bench_workload import workload
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=4), rng.normal(size=(20, 4))
    before = time.perf_counter()
    gradient = srcad.grad(workload)(w, x, 20)
    done = time.perf_counter()
    print(json.dumps({"first": (done - started) * 1e3, "srcad": (done - before) * 1e3,
                      "import": (imported - started) * 1e3,
                      "hits": disk.statistics["hits"],
                      "stored": disk.statistics["stored"],
                      "gradient": gradient.tolist()}))
''')


def run_child(folder, cache_dir):
    # TMPDIR: srcad writes the generated sources it compiles under the temporary directory
    # (for tracebacks, cache/generated_files.py), pruned once per process; give the benchmark
    # its own, so the numbers do not depend on how many files earlier runs left there
    environment = dict(os.environ, SRCAD_CACHE_DIR=cache_dir, OPENBLAS_NUM_THREADS="1",
                       OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                       TMPDIR=os.path.join(folder, "tmp"))
    environment.pop("SRCAD_CACHE", None)
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", CHILD, folder], env=environment,
                               capture_output=True, text=True)
    if completed.returncode:
        raise SystemExit("the benchmark process failed:\n" + completed.stderr)
    result = json.loads(completed.stdout)
    result["process"] = (time.perf_counter() - started) * 1e3
    return result


def main(argv) -> int:
    runs = int(argv[0]) if argv else 9
    folder = tempfile.mkdtemp(prefix="srcad-bench-startup-")
    try:
        os.mkdir(os.path.join(folder, "tmp"))
        with open(os.path.join(folder, "bench_workload.py"), "w") as stream:
            stream.write(WORKLOAD)
        lines = len(WORKLOAD.split("def workload", 1)[1].splitlines()) + 1
        cold, warm = [], []
        warm_cache = os.path.join(folder, "warm-cache")
        reference = run_child(folder, warm_cache)  # fills the warm cache
        assert reference["stored"] == 2, reference
        for run in range(runs):
            cold_cache = os.path.join(folder, "cold-cache-%d" % run)
            cold.append(run_child(folder, cold_cache))
            warm.append(run_child(folder, warm_cache))
        for result in cold:
            assert result["hits"] == 0 and result["stored"] == 2, result
        for result in warm:
            assert result["hits"] == 2 and result["stored"] == 0, result
            assert result["gradient"] == reference["gradient"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def median(results, key):
        return statistics.median(r[key] for r in results)

    print("time to the first gradient in a new process (%d-line function with loops), "
          "median of %d processes, ms" % (lines, runs))
    print("%-14s %16s %16s %12s %12s" % ("", "first gradient", "of which srcad",
                                          "process", "imports"))
    for label, results in (("cold cache", cold), ("warm cache", warm)):
        print("%-14s %16.1f %16.1f %12.1f %12.1f"
              % (label, median(results, "first"), median(results, "srcad"),
                 median(results, "process"), median(results, "import")))
    print("speed-up of grad()+first call: %.1fx" % (median(cold, "srcad") /
                                                    median(warm, "srcad")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
