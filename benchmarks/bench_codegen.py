"""Code generation time for a ~20-line straight-line NumPy function.

Usage (from the repository root, with srcad installed):

    python benchmarks/bench_codegen.py [REPEATS]

``srcad.grad(f)`` checks f (the stages up to the transform, so unsupported
code fails early; with the persistent cache on it makes the *generic* code
that ``.source`` shows instead), and the first call with arguments of new
kinds generates code *specialized* for them (what actually runs). The
persistent cache is off (``SRCAD_CACHE=0``) in every row: generation is
measured, never a disk hit. Reported, as the median over REPEATS (default 15)
in milliseconds:

  cold, fresh process   a new Python process: import srcad, then grad() and the
                        first call; includes loading and parsing the templates
  warm, cache cleared   in one process after srcad.cache.clear() (which forgets
                        the function's parse too): grad() alone, and
                        source_for() (a specialization) alone
  cached                grad() on a function already generated (a cache hit),
                        and a call that reuses an existing specialization
"""

from __future__ import annotations

import inspect
import json
import os
import statistics
import subprocess
import sys
import time

os.environ["SRCAD_CACHE"] = "0"  # measure generation (every row), never the disk cache
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # as bench_gradients.py: stable timings

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad import cache  # noqa: E402


def layer_norm_mlp(W1, b1, W2, b2, gain, x, y):
    z1 = np.dot(x, W1) + b1
    h1 = np.tanh(z1)
    mean = np.mean(h1, axis=1, keepdims=True)
    centered = h1 - mean
    variance = np.mean(centered * centered, axis=1, keepdims=True)
    normed = centered / np.sqrt(variance + 1e-5)
    scaled = gain * normed
    z2 = np.dot(scaled, W2) + b2
    gate = 1.0 / (1.0 + np.exp(-z2))
    logits = gate * z2
    shifted = logits - np.mean(logits, axis=1, keepdims=True)
    exps = np.exp(shifted)
    partition = np.sum(exps, axis=1, keepdims=True)
    log_probs = shifted - np.log(partition)
    nll = -np.sum(y * log_probs) / x.shape[0]
    penalty = 1e-3 * (np.sum(W1 * W1) + np.sum(W2 * W2))
    smooth = 0.5 * np.mean(np.abs(z2)) ** 2
    total = nll + penalty
    return total + 1e-4 * smooth


WRT = (0, 1, 2, 3, 4)


def make_args():
    rng = np.random.default_rng(0)
    y = np.zeros((32, 10))
    y[np.arange(32), rng.integers(0, 10, 32)] = 1.0
    return (rng.normal(size=(16, 64)) * 0.2, np.zeros(64), rng.normal(size=(64, 10)) * 0.2,
            np.zeros(10), np.ones(64), rng.normal(size=(32, 16)), y)


def milliseconds(function, repeats):
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1e3)
    return statistics.median(samples)


def cold_child() -> None:
    """Run in a fresh process: time the very first grad() and first call."""
    args = make_args()
    started = time.perf_counter()
    gradient_function = srcad.grad(layer_norm_mlp, wrt=WRT)
    generic = time.perf_counter() - started
    started = time.perf_counter()
    gradient_function(*args)
    first_call = time.perf_counter() - started
    started = time.perf_counter()
    gradient_function(*args)
    second_call = time.perf_counter() - started
    print(json.dumps({"generic": generic * 1e3, "first_call": first_call * 1e3,
                      "second_call": second_call * 1e3}))


def cold(repeats):
    results = []
    for _ in range(repeats):
        # a truly cold start: no disk cache (srcad/cache/disk.py)
        environment = dict(os.environ, SRCAD_CACHE="0")
        completed = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold-child"],
                                   check=True, capture_output=True, text=True, env=environment)
        results.append(json.loads(completed.stdout))
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def main(argv) -> int:
    if argv[:1] == ["--cold-child"]:
        cold_child()
        return 0
    repeats = int(argv[0]) if argv else 15
    args = make_args()
    srcad.check_grad(layer_norm_mlp, *args, wrt=WRT, rtol=1e-4, atol=1e-6)

    fresh = cold(repeats)

    def generic_uncached():
        cache.clear()
        srcad.grad(layer_norm_mlp, wrt=WRT)

    def specialized_uncached():
        cache.clear()
        gradient_function = srcad.grad(layer_norm_mlp, wrt=WRT)
        started = time.perf_counter()
        gradient_function.source_for(*args)
        return (time.perf_counter() - started) * 1e3

    generic_ms = milliseconds(generic_uncached, repeats)
    specialized_ms = statistics.median(specialized_uncached() for _ in range(repeats))

    cache.clear()
    gradient_function = srcad.grad(layer_norm_mlp, wrt=WRT)
    gradient_function(*args)
    cached_grad_ms = milliseconds(lambda: srcad.grad(layer_norm_mlp, wrt=WRT), repeats * 20)
    call_ms = milliseconds(lambda: gradient_function(*args), repeats * 20)
    plain_ms = milliseconds(lambda: layer_norm_mlp(*args), repeats * 20)
    generated_lines = len(gradient_function.source_for(*args).splitlines())

    print("subject: layer_norm_mlp, %d source lines, gradient w.r.t. %d arguments; "
          "specialized gradient: %d lines; median of %d repeats"
          % (len(_body_lines(layer_norm_mlp)), len(WRT), generated_lines, repeats))
    rows = [
        ("cold, fresh process: grad() (check, templates loaded)", fresh["generic"]),
        ("cold, fresh process: first call (specialized generation + run)", fresh["first_call"]),
        ("cold, fresh process: second call (run only)", fresh["second_call"]),
        ("warm, cache cleared: grad() (check)", generic_ms),
        ("warm, cache cleared: source_for() (specialized generation)", specialized_ms),
        ("cached: grad() on an already generated function", cached_grad_ms),
        ("cached: gradient call reusing its specialization", call_ms),
        ("reference: plain forward call", plain_ms),
    ]
    for label, value in rows:
        print("%-70s %9.3f ms" % (label, value))
    return 0


def _body_lines(function):
    return [line for line in inspect.getsource(function).splitlines()[1:] if line.strip()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
