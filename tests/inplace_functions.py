"""In-place array updates, differentiated in tests/test_inplace.py."""

import numpy as np


def set_element(x, v):
    y = x * 2.0
    y[1] = v * v
    return np.sum(y * y)


def add_to_element(x, v):
    y = x * 1.0
    y[0] += v
    y[2] -= 2.0 * v
    return np.sum(np.sin(y))


def slice_and_rows(A, r):
    B = A.copy()
    B[0] = r
    B[:, 1] = B[:, 1] * 3.0
    B[1:3, 0:2] += 1.5 * r[0]
    return np.sum(B * B)


def mask_and_fancy(x, v):
    y = np.exp(x)
    y[y > 2.0] = v
    y[[0, 2]] = y[[0, 2]] * v
    return np.sum(y)


def inplace_operators(x, z):
    y = x * 1.0
    y *= 2.0
    y += z
    y /= 3.0
    y -= x * x
    return np.sum(y * y)


def fill_in_loop(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * x[i]
    return np.sum(y * y)


def overwrite_then_read(x):
    y = x * 1.0
    a = y[0] * 3.0
    y[0] = 5.0  # the old y[0] still feeds a; the overwritten value gets no gradient from y
    return a + np.sum(y * y)


def mutates_argument_copy(x):
    x[0] = x[0] * 3.0
    return np.sum(x * x)
