"""Functions of dicts, lists and tuples of arrays, differentiated in test_container_arguments.py."""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

import srcad

Pair = namedtuple("Pair", ["w", "b"])


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    name: str = "dense"


@dataclass(frozen=True)
class Model:
    layers: list
    scale: float


def dict_of_weight_and_bias(p):  # /work/shared/repro/c8_dict_argument.py
    return np.sum(p["w"] ** 2) + p["b"]


def layers_in_a_loop(params):  # /work/shared/repro/c9_list_of_tuples_gradient_type.py
    total = 0.0
    for layer in params:
        total = total + np.sum(layer[0] ** 2) + np.sum(layer[1])
    return total


def mlp(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x * x)


def key_read_twice(p):
    return np.sum(np.sin(p["w"]) * p["w"]) + p["w"][0] * p["b"]


def element_read_in_every_iteration(xs, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(xs[0] * xs[1]) * (i + 1.0) + xs[2] * i
    return total


def layer_item_read_twice_in_a_loop(layers):
    total = 0.0
    for layer in layers:
        total = total + np.sum(layer[0] * layer[0]) * layer[1] + np.sum(layer[0])
    return total


def dict_of_lists(p):
    total = p["scale"]
    for W in p["layers"]:
        total = total * np.sum(np.tanh(W))
    return total + np.sum(p["layers"][0])


def list_of_dicts(ps, x):
    total = 0.0
    for p in ps:
        total = total + np.sum(p["w"] * x) ** 2 + p["c"]
    return total


def nested_mix(tree):
    (W, b), rest = tree[0], tree[1]
    return np.sum(np.tanh(W @ rest[0] + b)) * rest[1]["s"] + np.sum(rest[1]["v"] ** 3)


def with_constant_leaves(p, x):
    y = x
    for i in range(p["steps"]):
        y = np.tanh(p["w"] * y + p["b"])
    if p["mode"] == "square":
        return np.sum(y * y) * p["n"]
    return np.sum(y)


def float_leaves(t):
    return t[0] * t[1] + t[2] ** 2 - t[0] / t[2]


def numpy_scalar_and_float32_leaves(p):
    return p["a"] * np.sum(p["v"] ** 2) + np.sum(np.cos(p["v"]))


def unused_entries(p, x):
    return np.sum(p["used"] * x)


def same_adjoint_twice(p):
    return np.sum(p["a"] + p["b"])


def loop_over_keys(p):
    total = 0.0
    for k in p:
        total = total + np.sum(p[k] ** 2)
    return total


def loop_over_items_and_values(p):
    total = 0.0
    for k, v in p.items():
        total = total + np.sum(np.sin(v))
    for v in p.values():
        total = total + np.sum(v * v)
    return total


def loop_over_int_keys(d, x):
    total = 0.0
    for k in d:  # the keys 0 and 1, not d[0] and d[1]
        total = total + k * x
    return total + d[1] * x


def indexed_namedtuple(p):
    return np.sum(p[0] ** 2) * p[1]


def vector_of_dict(p):
    return np.tanh(p["W"] @ p["x"]) * p["s"]


def list_update_and_append(xs, y):
    xs[0] = xs[0] * 3.0
    xs.append(y * 2.0)
    return np.sum(xs[0] * xs[-1]) + np.sum(xs[1])


def list_pop(x):  # /work/shared/repro/c7_hvp_list_pop.py
    lst = [x * x[0], x * x[1]]
    v = lst.pop()
    return np.sum(v * lst[0])


def append_to_empty_list(x):  # /work/shared/repro/w5_jvp_append_to_empty_list.py
    lst = []
    lst.append(x[0])
    return lst[0]


def append_to_an_alias(x):
    a = [x[0]]
    b = a
    a.append(x[1] * 2.0)
    return b[0] * len(b) + a[-1]


def append_in_a_loop_then_pop(x, n):
    stack = []
    for i in range(n):
        stack.append(np.sin(x * (i + 1.0)))
    total = 0.0
    for i in range(n):
        top = stack.pop()
        total = total + np.sum(top * x) * (i + 1.0)
    return total


def scalar_loop(x, n):
    total = 0.0
    for i in range(n):
        total = total + x * x
    return total


def scalar_loop_with_aux(x, n):
    total = 0.0
    for i in range(n):
        total = total + x * x
    return total, total * 2.0


def namedtuple_fields(p):
    return np.sum(p.w ** 2) * p.b + p[0][0] * p.w[1]


def dataclass_fields(layer, x):
    return np.sum(np.tanh(layer.W @ x + layer.b) ** 2)


def frozen_dataclass_of_layers(model, x):
    for layer in model.layers:
        x = np.tanh(layer.W @ x + layer.b)
    return np.sum(x) * model.scale


def dict_output(p, x):
    return {"y": np.tanh(p["w"] * x), "s": np.sum(p["w"]) * p["c"]}


def returns_its_argument(p):
    return p


def readme_loss(params, x, y):  # README.md, "Dicts, lists, tuples and dataclasses as arguments"
    for W, b in params["layers"]:
        x = np.tanh(W @ x + b)
    return params["scale"] * np.sum((x - y) ** 2)


def clipped_sum(xs):  # docs/how-it-works.md, "break, continue, return"
    s = 0.0
    for v in xs:
        if v < 0.0:
            continue
        s = s + v * v
    return s


def decay(x, n):  # docs/how-it-works.md, "Higher derivatives"
    y = x
    for i in range(n):
        y = y * np.sin(y)
    return y


def stopped(p):
    return np.sum(srcad.stop_gradient(p["w"]) ** 2) + p["b"]


def writes_into_its_argument(x):
    y = x * x
    x[0] = 10.0  # Python changes the caller's array; srcad's derivatives never do
    return np.sum(y)


def copies_with_entries_changed(params, extra):
    """Dicts copied by unpacking: later entries override earlier ones, as in Python."""
    both = {"c": 1.5, **params, **extra, "b": params["b"] * extra["e"]}
    scaled = {**both, "w": both["w"] * 2.0}
    total = scaled["c"] * np.sum(scaled["w"] * params["w"])
    for key, value in both.items():
        total = total + np.sum(np.sin(value)) * (1.0 + len(key))
    return total


def weighted_by_key_methods(params):
    """String methods of a dict's keys choose and weight its entries."""
    total = 0.0
    for key in params:
        if key.startswith("W"):
            total = total + float(key.count("_") + 1) * np.sum(np.tanh(params[key]) ** 2)
    return total


def copied_by_dict(params):
    """dict(params): a new dict of the same entries, changed without touching params."""
    scaled = dict(params)
    scaled["w"] = params["w"] * 2.0
    return np.sum(scaled["w"] * params["w"]) + scaled["b"] ** 2


def dict_of_pairs_by_name(x):
    pairs = [("a", x), ("b", x * 2.0)]
    entries = dict(pairs)
    return np.sum(entries["a"] * entries["b"])
