"""Functions whose generated source tests/test_golden.py pins down.

They live in their own module so that editing test_golden.py does not move
their line numbers (generic generated code quotes file:line of the return).
Append new functions at the end; do not reorder.
"""

import numpy as np


def scalar(x, y):
    z = x * y + np.sin(x)
    return z ** 2.0


def mlp(W1, b1, W2, b2, x, y):
    # copied from /work/shared/bench/workloads.py
    h = np.tanh(np.dot(x, W1) + b1)
    out = np.dot(h, W2) + b2
    d = out - y
    return np.sum(d * d) / y.shape[0]


def broadcast(A, b):
    z = A + b
    return np.sum(z * z)


def generic(x, w):
    s = np.exp(x * w)
    return np.sum(s) - w


# ---- subjects of the to_anf / rename_versions pass tests


def anf_nested(x, W1, b1):
    h = np.tanh(np.dot(x, W1) + b1)
    return h


def anf_mixed(x, y):
    """A docstring is dropped."""
    a = -2.0 * x
    a += y
    b = x[1:3, 0]
    c = x.sum(axis=0) + np.pi
    print(c)
    pass
    return a * b + c


def anf_swap(a, b):
    a, b = b, a
    return a * 2.0 + b


def anf_redefine(x):
    x = x * 2.0
    x = np.sin(x)
    return x


# ---- control flow: one branch, one loop (appended; keep at the end)


def branch(x, y):
    if x > y:
        z = x * y
    else:
        z = np.sin(x)
    return z * z


def loop(r, x0):
    x = x0
    s = 0.0
    for i in range(1000):
        x = r * x * (1.0 - x)
        s = s + x * x
    return s


# ---- a method srcad cannot resolve, reached by a varied value (appended; keep at the end)


def unresolved_method(x, names):
    total = 0.0
    for name in names:
        scale = name.count("_")
        rounded = (x * 2.0).round_to(3)  # noqa: F841 - read by the check srcad inserts
        total = total + scale * np.sum(x)
    return total
