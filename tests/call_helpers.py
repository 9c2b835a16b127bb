"""Helpers in another module, called by tests/call_functions.py."""

import math

import numpy as np

SCALE = 3.0


def rhs(x, y, a, b):
    return a * x - b * x * y, x * y - a * y


def sigmoid(t):
    return 1.0 / (1.0 + np.exp(-t))


def scaled_norm(v):
    return SCALE * np.sqrt(np.sum(v * v))


def piecewise(x):
    if x > 1.0:
        return x * x
    return 2.0 * x - 1.0


def iterate(x, n):
    y = x
    for i in range(n):
        y = np.sin(y) + x
    return y


def clipped(x):
    if x > 5.0:
        return 5.0
    if x < -5.0:
        return -5.0
    return x


def inner_helper(t):
    return t * SCALE


def outer_helper(t):
    return inner_helper(t) * inner_helper(t + 1.0)


def angle(a, b):
    return math.atan2(a, b) * math.hypot(a, b)


def pair(x):
    return x + 1.0, x * 3.0


def log_value(n):
    try:
        return n + 1
    except ValueError:
        return 0


def frozen(x):
    return x * 2.0
