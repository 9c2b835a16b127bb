"""Cost of a Hessian-vector product relative to a gradient (Rosenbrock, n = 1000).

Usage: python benchmarks/bench_hvp.py [N]

Interleaved rounds in one process, median of paired ratios. The target of
issue 5 is hvp <= 5x grad.
"""

import os
import statistics
import sys
import timeit

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

import srcad  # noqa: E402


def rosenbrock(x):
    total = 0.0
    for i in range(x.shape[0] - 1):
        total = total + 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return total


def rosenbrock_vectorized(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def main(n):
    rng = np.random.RandomState(0)
    x, v = rng.randn(n), rng.randn(n)
    for function in (rosenbrock, rosenbrock_vectorized):
        gradient, product = srcad.grad(function), srcad.hvp(function)
        gradient(x), product(x, v)
        ratios = []
        for _ in range(9):
            g = timeit.timeit(lambda gradient=gradient: gradient(x), number=5)
            h = timeit.timeit(lambda product=product: product(x, v), number=5)
            ratios.append(h / g)
        print("%-22s n=%d  hvp / grad = %.2f" % (function.__name__, n, statistics.median(ratios)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
