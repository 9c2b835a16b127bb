"""Comprehensions, generator expressions and unpacking loop targets, differentiated in
tests/test_comprehensions.py (module-level functions in a file: srcad reads their source)."""

import numpy as np


def square(t):
    return t * t


def total_of_squares(values):
    s = 0.0
    for v in values:
        s = s + v * v
    return s


def sines(values):
    return [np.sin(v) for v in values]


# ---- list comprehensions


def array_of_user_calls(x):
    ys = np.array([square(v) * 2.0 for v in x])  # f(x) for x in xs: f inlined
    return np.sum(ys * x)


def filtered(x):
    ys = [v * v for v in x if v > 0.0]  # the condition per element
    return sum(ys) + len(ys)


def two_clauses_and_a_condition(x, y):
    products = [a * b for a in x for b in y if a != b]
    return np.sum(np.array(products) ** 2)


def comprehension_in_a_comprehension(x, y):
    table = np.array([[a * b for b in y] for a in x])
    return np.sum(np.tanh(table))


def inner_iterable_reads_outer_variable(x):
    return sum([sum([x[i] * x[j] for j in range(i + 1)]) for i in range(len(x))])


def variable_does_not_leak(x):
    v = 2.0
    ys = [v * v for v in x]  # this v is the comprehension's own
    return sum(ys) * v


def comprehension_returned_by_a_helper(x):
    return np.sum(np.array(sines(x)) * x)


def comprehension_passed_to_a_helper(x):
    return total_of_squares([np.cos(v) for v in x])


def comprehension_returned(x):
    return [v * v for v in x]


def concatenated_and_stacked(x):
    flat = np.concatenate([x * k for k in (1.0, 2.0)])
    stacked = np.stack([x ** k for k in range(1, 3)])
    return np.sum(flat ** 2) + np.sum(stacked * 0.5)


def comprehension_in_a_while_test(x, a):
    while max([a * v for v in x]) < 3.0:  # evaluated again in every iteration
        a = a * 1.5
    return a * np.sum(x)


def comprehension_in_a_conditional_expression(x, n):
    # the comprehension divides by n: it runs only when n > 0, as in Python
    return np.sum(x) if n == 0 else sum([v / n for v in x])


def enumerated_comprehension(x):
    return sum([i * v for i, v in enumerate(x)])


def rows_of_a_matrix(m):
    norms = [np.sqrt(np.sum(row * row)) for row in m]
    return sum(norms)


# ---- generator expressions, consumed where they are made


def tuple_of_generator(x):
    t = tuple(np.sin(v) for v in x)
    return t[0] * t[1] + t[2]


def list_of_generator(x):
    ys = list(np.exp(v) for v in x)  # noqa: C400 - list(generator)
    return ys[0] + ys[-1] * ys[1]


def max_and_min_of_generators(x):
    return max(v * v for v in x) - min(np.cos(v) for v in x)


def max_and_min_of_a_list(x):
    ys = [np.sin(v) for v in x]
    return max(ys) * min(ys)


def generator_passed_to_a_helper(x):
    return total_of_squares(v * 3.0 for v in x)


def generators_zipped_in_a_loop(x, y):
    s = 0.0
    for a, b in zip([v * 2.0 for v in x], (w + 1.0 for w in y)):
        s = s + a * b
    return s


def loop_over_a_generator(x, w):
    s = 0.0
    for v in (w * t for t in x):  # the body writes nothing the generator reads
        s = s + v * v
    return s


def tuple_of_a_list_argument(x):
    t = tuple(x)
    return t[0] * t[1]


# ---- dict comprehensions and dict(...)


def dict_comprehension(x):
    d = {k: x[i] * x[i] for i, k in enumerate(["a", "b", "c"])}
    return d["a"] * d["c"] + d["b"]


def dict_comprehension_with_computed_keys(x):
    d = {i * 2: np.sin(v) for i, v in enumerate(x) if i != 1}
    return sum(d[k] * k for k in d)


def dict_of_zip(x):
    d = dict(zip(["a", "b", "c"], [v * 2.0 for v in x]))
    return d["a"] * d["b"] + d["c"]


def dict_of_generated_pairs(x):
    d = dict((k, v * v) for k, v in zip(("u", "w", "z"), x))  # noqa: C402 - dict(generator)
    return d["u"] - d["w"] * d["z"]


# ---- loop targets of any unpacking shape


def layers(x):
    params = [(x[0], x[1]), (x[1], x[2])]
    s = 0.0
    for w, b in params:
        s = np.tanh(w * s + b)
    return s


def enumerate_zip_nested_target(x, y):
    s = 0.0
    for i, (u, v) in enumerate(zip(x, y)):
        s = s + (i + 1.0) * u * v
    return s


def zip_of_starred_pairs(x, y):
    pairs = [x, y * 2.0]
    s = 0.0
    for a, b in zip(*pairs):
        s = s + a * b
    return s


def columns_of_rows(x, y):
    s = 0.0
    for column in zip(*[x, y, x * y]):  # a tuple of one element per row
        s = s + column[0] * column[2] + np.sin(column[1])
    for first, *rest in zip(*[x, y, x * y]):
        s = s + first * rest[1]
    return s + sum([c[0] * c[1] for c in zip(*(x, y))])


def columns_of_no_rows(x):
    rows = []
    s = 1.0
    for column in zip(*rows):  # zip() gives nothing
        s = s + column[0]
    return s * np.sum(x)


def starred_target(x):
    rows = [(x[0], x[1], x[2]), (x[1], x[2], x[0])]
    s = 0.0
    for first, *rest in rows:
        s = s + first * rest[0] + rest[1] * rest[1]
    return s


def starred_target_in_the_middle(x):
    rows = [x, x * 2.0]
    s = 0.0
    for first, *middle, last in rows:
        s = s + first * last + np.sum(np.array(middle) ** 2)
    return s


def starred_unpacking_of_a_row(x):
    first, *rest = x
    return first * np.sum(np.array(rest))


def targets_inside_comprehensions(x, y):
    pairs = [(u, v) for u, v in zip(x, y)]
    return sum([i * u * v for i, (u, v) in enumerate(pairs)]) + sum(
        [first * rest[0] for first, *rest in [x, y]])


def zip_of_starred_pairs_in_a_comprehension(x, y):
    return sum([a * b * b for a, b in zip(*[x, y])])


def enumerate_with_a_starred_target(x):
    rows = [x, x * 2.0]
    s = 0.0
    for i, (first, *rest) in enumerate(rows):
        s = s + i * first * rest[-1] + rest[0]
    return s


def nested_target_with_a_starred_name(x):
    rows = [((x[0], x[1], x[2]), x[0]), ((x[2], x[1], x[0]), x[1])]
    s = 0.0
    for (a, *b), c in rows:
        s = s + a * c + b[0] * b[1]
    return s


# ---- as autograd's examples write them

SHAPES = (("W", (2, 3)), ("b", (2,)))


def flatten(params):
    return np.concatenate([np.ravel(params[name]) for name, _ in SHAPES])


def unflatten(flat):
    sizes = {name: int(np.prod(shape)) for name, shape in SHAPES}
    starts = {"W": 0, "b": sizes["W"]}
    return {name: flat[starts[name]:starts[name] + sizes[name]].reshape(shape)
            for name, shape in SHAPES}


def loss_of_flattened_parameters(W, b, x):
    params = unflatten(flatten({"W": W, "b": b}) * 1.0)
    return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)


def mixture_negative_log_likelihood(means, xs):
    logs = [np.log(sum(np.exp(-0.5 * (x - m) ** 2) for m in means)) for x in xs]
    return -sum(logs)
