"""Functions for tests/test_modes.py: array outputs, Hessians, third derivatives."""

import math

import numpy as np


def affine_tanh(W, x, b):
    return np.tanh(np.dot(W, x) + b)


def elementwise_mix(x, y):
    return np.sin(x) * y + x ** 3 - np.exp(-y * x)


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(np.dot(x, W1) + b1)
    out = np.dot(h, W2) + b2
    d = out - y
    return np.sum(d * d) / y.shape[0]


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock_vectorized(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def quartic(x):
    return np.sum(x ** 4) + np.sum(x[:-1] * x[1:]) * 3.0


def sine(x):
    return math.sin(x)


def exp_square(x):
    return np.exp(x * x)


def cubic_log(x):
    return x ** 3 * np.log(x)


def with_branch_and_loop(x, n):
    y = x
    for i in range(n):
        if y > 1.0:
            y = np.sqrt(y) + x
        else:
            y = y * y + 0.5 * x
    return y
