"""Functions with control flow, each differentiated in tests/test_control_flow.py."""

import math

import numpy as np


def branch_on_value(x, y):
    if x > 0.5:
        z = x * y
    else:
        z = x + y
    return z * z


def branch_without_else(x):
    y = x * 2.0
    if y > 1.0:
        y = np.sin(y)
    return y * x


def elif_chain(x):
    if x < -1.0:
        y = -x
    elif x < 1.0:
        y = x * x
    elif x < 2.0:
        y = np.exp(x)
    else:
        y = 3.0 * x
    return y


def conditional_expression(x, y):
    z = x * y if x > y else x - y
    return z * x


def bool_ops(x, y):
    if x > 0.0 and y > 0.0 or x < -5.0:
        z = x * y
    else:
        z = x
    w = not (x > 10.0)
    if w:
        z = z + 1.0
    return z * z


def chained_comparison(x):
    if 0.0 < x < 1.0:
        return x * x
    return x


def condition_on_integer(x, n):
    y = x
    if n % 2 == 0:
        y = y * x
    return y


def for_range_start_stop_step(x, n):
    s = 0.0
    for i in range(2, n, 3):
        s = s + x ** 2 * i
    return s


def for_negative_step(x):
    s = x
    for i in range(5, -3, -2):
        s = s * x + i
    return s


def for_reversed_range(x):
    s = 0.0
    for i in reversed(range(4)):
        s = s * x + i
    return s


def loop_over_rows(W):
    total = 0.0
    for row in W:
        total = total + np.sum(np.tanh(row)) * row[0]
    return total


def loop_over_list(x):
    s = 0.0
    for c in [1.0, 2.0, 3.0]:
        s = s + c * np.sin(x * c)
    return s


def loop_enumerate_zip(x, y):
    s = 0.0
    for i, xi in enumerate(x):
        s = s + i * xi * xi
    for a, b in zip(x, y):
        s = s + a * b
    for v in reversed(x):
        s = s * 0.5 + v
    return s


def while_on_value(x):
    y = x
    while y < 10.0:
        y = y * 1.5 + 0.1
    return y * x


def while_counter(x, n):
    i = 0
    s = x
    while i < n:
        s = np.sin(s) + x
        i = i + 1
    return s


def nested_loops(A, x):
    y = x
    for k in range(3):
        for i in range(A.shape[0]):
            y = np.tanh(np.dot(A, y)) * 0.5 + y * A[i, i]
    return np.sum(y * y)


def loop_with_branch(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            t = np.sin(x * i)
            s = s + t * t
        else:
            s = s + x * i
    return s


def data_dependent_trip_count(x):
    y = x
    steps = 0
    while y > 0.1:
        y = y * 0.7
        steps = steps + 1
    return y * steps


def break_in_loop(x):
    s = 0.0
    for i in range(100):
        s = s + x * i
        if s > 20.0:
            break
    return s * x


def continue_in_loop(x):
    s = 0.0
    for i in range(10):
        if i % 2 == 1:
            continue
        s = s + x ** i
    return s


def early_return(x):
    if x > 2.0:
        return x * x
    y = np.sin(x)
    if y > 0.5:
        return y * 3.0
    return y


def return_from_nested_loop(x):
    s = x
    for i in range(10):
        for j in range(10):
            s = s * 1.1
            if s > 5.0:
                return s * x
    return s


def for_else(x):
    s = x
    for i in range(5):
        s = s * x
        if s > 100.0:
            break
    else:
        s = s + 1.0
    return s


def while_else(x):
    s = x
    while s < 3.0:
        s = s * 2.0
    else:
        s = s - x
    return s * s


def loop_never_runs(x, n):
    y = x * 2.0
    for i in range(n):
        y = y * x
    return y + x


def loop_carried_array(W, h0):
    h = h0
    for t in range(4):
        h = np.tanh(np.dot(W, h) + h)
    return np.sum(h)


def recurrence(r, x0):
    x = x0
    s = 0.0
    for i in range(50):
        x = r * x * (1.0 - x)
        s = s + x * x
    return s


def math_in_loop(x):
    s = 0.0
    for i in range(1, 6):
        s = s + math.sin(x / i) * math.exp(-x * i)
    return s


def long_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * 1e-5
    return s


def while_inside_for(x):
    s = 0.0
    for i in range(3):
        y = x + i
        while y < 5.0:
            y = y * 1.3
        s = s + y * x
    return s


def for_inside_while(x, w):
    total = 0.0
    k = 0
    while total < 3.0 and k < 10:
        for j in range(3):
            total = total + np.tanh(x * w[j] + k)
        k = k + 1
    return total * x


def branchy_while_with_break(x):
    y = x
    n = 0
    while True:
        if y > 2.0:
            y = np.sqrt(y)
        else:
            y = y * y + 0.5
        n = n + 1
        if n >= 6:
            break
    return y


def array_state_with_branch(W, v):
    h = v
    for i in range(4):
        a = np.dot(W, h)
        if np.sum(a) > 0.0:
            h = np.tanh(a)
        else:
            h = a * 0.5 + h
    return np.sum(h * h)


def end_value_only(x):
    h = x
    for i in range(4):
        h = np.tanh(h * 1.5 + i)
    return h
