"""Functions for tests/test_constructs.py: Python constructs normalize must keep exactly."""

import numpy as np


def all_three_positive(x, y, z):
    if x > 0 and y > 0 and z > 0:
        return x * y * z
    return x + y + z


def any_of_three(x, y, z):
    if x > 5.0 or y > 5.0 or z > 0:
        return x * y * z
    return x - y - z


def flag_of_three(x, y, z):
    flag = x > 0 and y > 0 and z > 0
    if flag:
        return x * y
    return x * z


def nested_def_with_default(x):
    def scaled(y, s=3.0):
        return y * s
    return scaled(x) + scaled(x, 0.5) * x


def summed_generator_with_start(x):
    return sum((x * i for i in range(3)), 1.5)


def summed_list_with_start(x, y):
    return sum([x * y, y, x], 2.0)


def checked_square(x):
    assert x > 0, "x must be positive"
    if x > 10.0:
        raise ValueError("x is too large")
    return x * x


def annotated_assignment(x):
    y: float = x * 3.0
    return y * x


def triangular_loops(x, n):
    s = 1.0
    for i in range(n):
        for j in range(i + 1):
            s = s * x + 0.1 * j
    return s


def inner_loop_reads_outer_value(x, n):
    s = x
    for i in range(n):
        a = np.sin(x * (i + 1.0))
        for j in range(2):
            b = a + s
            c = np.cos(s)
            s = b * c
    return s


def inner_loop_in_branch_reads_outer_value(x, n):
    s = x
    for i in range(n):
        a = np.sin(x * (i + 1.0))
        if i % 2 == 0:
            for j in range(2):
                b = a + s
                c = np.cos(s)
                s = b * c
        else:
            s = s * 1.1
    return s


def parameter_rebound_in_loop(x, y):
    for i in range(3):
        y = y * x + 1.0
    return y


def scaled_sum(x, s):
    return np.sum(x) * s
