"""Containers, comprehensions, builtins and methods, differentiated in tests/test_containers.py."""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

Point = namedtuple("Point", ["x", "y"])


@dataclass
class Settings:
    scale: float
    shift: float


def tuple_literal_and_index(a, b):
    t = (a * b, a + b, b)
    return t[0] * t[1] - t[-1]


def unpacking(a, b):
    p, q = a * b, a - b
    first, second, third = (p, q, p * q)
    return first + second * third


def dict_with_string_keys(a, b):
    d = {"left": a * 2.0, "right": np.sin(b)}
    d["left"] = d["left"] + d["right"]
    return d["left"] * d["right"]


def returns_pair(a):
    return a * 2.0, a * a


def tuple_from_helper(a):
    u, v = returns_pair(a)
    pair = returns_pair(u + v)
    return pair[0] + pair[1] * len(pair)


def summed_generator(w, x):
    return sum(w[i] * x[i] * x[i] for i in range(x.shape[0]) if i != 1)


def summed_list_comprehension(x):
    return sum([np.tanh(v) for v in x]) + sum((x[0], x[1] * 2.0))


def builtins_of_two(a, b):
    return max(a, b) * min(a * 2.0, b) + abs(a - b) + float(a) * int(3.7)


def reductions_max_min(x):
    return x.max() + np.min(x, axis=0).sum() + np.max(x, axis=1, keepdims=True).mean()


def astype_and_norm(x):
    y = x.astype(np.float64) * 2.0
    return np.linalg.norm(y) + np.linalg.norm(x, axis=1).sum()


def array_methods(x, w):
    return x.T.dot(w).sum() + x.reshape(-1).mean() + x.copy().sum()


def namedtuple_fields(a, b):
    p = Point(a * 2.0, b)
    return p.x * p.y + p[0]


def dataclass_fields(a, cfg):
    return (a * cfg.scale + cfg.shift) ** 2


def varargs_helper(*values):
    total = 0.0
    total = total + values[0] * values[1]
    return total + len(values)


def kwargs_helper(x, **options):
    return x * options["scale"] + options["shift"]


def calls_varargs_and_kwargs(a, b):
    return varargs_helper(a, b, a) + kwargs_helper(a, scale=b, shift=2.0)


def list_append_in_loop(x, n):
    values = []
    for i in range(n):
        values.append(np.sin(x * i) + x)
    total = 0.0
    for v in values:
        total = total + v * v
    return total + sum(values) + values[1] * np.sum(np.array(values))


def list_of_arrays(w, n):
    rows = []
    h = w
    for i in range(n):
        h = np.tanh(h * 1.5 + i)
        rows.append(h)
    stacked = np.array(rows)
    return np.sum(stacked * stacked) + np.sum(rows[0])


def starred_unpacking(a, b, c):
    first, *rest = (a * 2.0, b * a, c, a + c)
    *front, last = rest
    return first * last + front[0] * front[1] + len(rest)


def sum_all(*values):
    total = 0.0
    for v in values:
        total = total + v * v
    return total


def loop_over_varargs(a, b):
    return sum_all(a, b, a * b)


def loop_over_active_tuple(a, b):
    total = 0.0
    for i, v in enumerate((a, b * 2.0, a * b)):
        total = total + v * (i + 1)
    return total


def integer_bookkeeping(x, n):
    count = 0
    total = 0.0
    for i in range(n):
        if i % 2 == 0:
            count = count + 1
        total = total + x * count
    return total
