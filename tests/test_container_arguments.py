"""Dicts, lists and tuples of arrays as arguments, in every mode.

A derivative for a container argument has the argument's own structure and
types (a dict comes back as a dict, a list of tuples as a list of tuples),
with a float for a float leaf, an array of the leaf's shape for an array, and
None for a leaf held constant (an int, a string...). Checked leaf by leaf:
gradients against central finite differences, forward against reverse by
the dot-product test, hvp against finite differences of the gradient.

The tree helpers here are the tests' own, independent of srcad/trees.py.
"""

import dataclasses
import zlib
from collections import OrderedDict

import numpy as np
import pytest

import srcad
from srcad.errors import InvalidArgumentError, NonScalarOutputError, UnsupportedOperationError
from tests import container_argument_functions as cf

EPS = 1e-6


# ---------------------------------------------------------------- tree helpers


def _children(x):
    if isinstance(x, dict):
        return list(x.items())
    if isinstance(x, (list, tuple)):
        return list(enumerate(x))
    if is_dataclass_instance(x):
        return [(f.name, getattr(x, f.name)) for f in dataclasses.fields(x)]
    return None


def _rebuild(like, items):
    if isinstance(like, dict):
        return type(like)(zip(like, items))
    if is_dataclass_instance(like):
        return dataclasses.replace(like, **{f.name: v for f, v in zip(dataclasses.fields(like),
                                                                        items)})
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


def leaves(x, path=()):
    children = _children(x)
    if children is None:
        return [(path, x)]
    return [item for key, value in children for item in leaves(value, path + (key,))]


def at(x, path):
    for key in path:
        x = dict(_children(x))[key]
    return x


def replaced(x, path, value):
    if not path:
        return value
    return _rebuild(x, [replaced(v, path[1:], value) if k == path[0] else v
                        for k, v in _children(x)])


def is_dataclass_instance(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def differentiable(leaf):
    if type(leaf) is float:
        return True
    return isinstance(getattr(leaf, "dtype", None), np.dtype) and leaf.dtype.kind == "f"


def assert_same_structure(result, like, where="argument"):
    """``result`` has ``like``'s container types, keys and lengths; leaves are typed."""
    children = _children(like)
    if children is not None:
        assert type(result) is type(like), "%s: %s, expected %s" % (
            where, type(result).__name__, type(like).__name__)
        assert [k for k, _ in _children(result)] == [k for k, _ in children], (
            "%s: keys %s" % (where, [k for k, _ in _children(result)]))
        for (key, value), (_, got) in zip(children, _children(result)):
            assert_same_structure(got, value, "%s[%r]" % (where, key))
        return
    if not differentiable(like):
        assert result is None, "%s is held constant, got %r" % (where, result)
    elif type(like) is float:
        assert type(result) is float, "%s: %s, expected float" % (where, type(result).__name__)
    elif isinstance(like, np.generic):
        assert type(result) is type(like), "%s: %s" % (where, type(result).__name__)
    else:
        assert isinstance(result, np.ndarray) and result.shape == like.shape, (
            "%s: %r, expected an array of shape %s" % (where, result, like.shape))


def fresh(tree):
    """A copy of the containers of ``tree`` (the function may append to a list argument)."""
    children = _children(tree)
    if children is None:
        return tree
    return _rebuild(tree, [fresh(v) for _, v in children])


def call(f, args):
    """f(*args) on fresh copies of the containers: Python's own f may change them."""
    return f(*[fresh(a) for a in args])


def numeric_gradient(f, args, position):
    """Central differences of scalar f, leaf by leaf: a tree shaped like args[position]."""
    x = args[position]
    out = []
    for path, leaf in leaves(x):
        if not differentiable(leaf):
            out.append((path, None))
            continue
        base = np.array(leaf, dtype=float)
        grad = np.zeros(base.shape)
        for index in np.ndindex(base.shape):
            values = []
            for sign in (1.0, -1.0):
                moved = base.copy()
                moved[index] += sign * EPS
                value = float(moved) if np.ndim(leaf) == 0 else moved.astype(leaf.dtype)
                moved_args = list(args)
                moved_args[position] = replaced(x, path, value)
                values.append(float(call(f, moved_args)))
            grad[index] = (values[0] - values[1]) / (2 * EPS)
        out.append((path, grad))
    return out


def assert_matches(tree, expected, rtol=1e-5, atol=1e-7):
    for path, value in expected:
        if value is None:
            assert at(tree, path) is None, path
        else:
            np.testing.assert_allclose(at(tree, path), value, rtol=rtol, atol=atol,
                                       err_msg="leaf %r" % (path,))


def random_tangent(x, rng):
    """A random direction shaped like x (None at leaves held constant)."""
    def direction(leaf):
        if not differentiable(leaf):
            return None
        return float(rng.standard_normal()) if np.ndim(leaf) == 0 else rng.standard_normal(
            np.shape(leaf)).astype(leaf.dtype)

    values = iter([direction(leaf) for _, leaf in leaves(x)])

    def build(node):
        children = _children(node)
        if children is None:
            return next(values)
        return _rebuild(node, [build(v) for _, v in children])

    return build(x)


def inner(a, b):
    """Sum over leaves of <a, b>, skipping leaves held constant (None)."""
    return sum(float(np.sum(np.asarray(u) * np.asarray(at(b, path))))
               for path, u in leaves(a) if u is not None and at(b, path) is not None)


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def snapshot(tree):
    return [(path, np.array(leaf, copy=True) if isinstance(leaf, np.ndarray) else leaf)
            for path, leaf in leaves(tree)]


def assert_unchanged(tree, before):
    now = leaves(tree)
    assert [p for p, _ in now] == [p for p, _ in before], "the argument's structure changed"
    for (path, leaf), (_, old) in zip(now, before):
        np.testing.assert_array_equal(leaf, old, err_msg="argument leaf %r mutated" % (path,))


# ----------------------------------------------------------------------- cases

R = np.random.default_rng(zlib.crc32(b"container arguments"))


def normal(*shape):
    return R.standard_normal(shape)


CASES = [  # (function, args, wrt)
    (cf.dict_of_weight_and_bias, ({"w": np.array([1.0, 2.0]), "b": 0.5},), 0),
    (cf.layers_in_a_loop, ([(normal(2), normal(3)), (normal(1), normal(2))],), 0),
    (cf.mlp, ([(normal(3, 2), normal(3)), (normal(2, 3), normal(2))], normal(2)), (0, 1)),
    (cf.key_read_twice, ({"w": normal(3), "b": 0.7},), 0),
    (cf.element_read_in_every_iteration, ([normal(2), normal(2), 0.3], 3), 0),
    (cf.layer_item_read_twice_in_a_loop, ([(normal(3), 0.5), (normal(2), -1.5)],), 0),
    (cf.dict_of_lists, ({"layers": [normal(2, 2), normal(3)], "scale": 1.3},), 0),
    (cf.list_of_dicts, ([{"w": normal(2), "c": 0.1}, {"w": normal(2), "c": -0.2}],
                        normal(2)), (0, 1)),
    (cf.nested_mix, ([(normal(2, 3), normal(2)), [normal(3), {"s": 0.8, "v": normal(2)}]],),
     0),
    (cf.with_constant_leaves, ({"w": normal(3), "b": normal(3), "steps": 2, "mode": "square",
                                "n": 3}, normal(3)), (0, 1)),
    (cf.float_leaves, ((0.7, -1.2, 1.9),), 0),
    (cf.numpy_scalar_and_float32_leaves, ({"a": np.float64(0.4), "v": normal(3)},), 0),
    (cf.unused_entries, ({"used": normal(2), "unused": normal(3), "f": 1.5}, normal(2)), 0),
    (cf.loop_over_keys, ({"a": normal(2), "b": normal(3)},), 0),
    (cf.loop_over_items_and_values, ({"a": normal(2), "b": normal(3)},), 0),
    (cf.loop_over_int_keys, ({0: 1.5, 1: -0.5}, 0.7), (0, 1)),
    (cf.copies_with_entries_changed, ({"w": normal(3), "b": 0.7},
                                      {"e": 1.3, "w": normal(3), "x": normal(2)}), (0, 1)),
    (cf.copied_by_dict, ({"w": normal(3), "b": 0.7},), 0),
    (cf.weighted_by_key_methods, ({"W_1": normal(2, 2), "b": normal(2), "W": normal(3)},), 0),
    (cf.indexed_namedtuple, (cf.Pair(normal(3), 1.5),), 0),
    (cf.dict_of_weight_and_bias, (OrderedDict(b=0.5, w=normal(2)),), 0),
    (cf.list_update_and_append, ([normal(2), normal(2)], normal(2)), (0, 1)),
    (cf.namedtuple_fields, (cf.Pair(normal(2), 0.6),), 0),
    (cf.dataclass_fields, (cf.Layer(normal(3, 2), normal(3)), normal(2)), (0, 1)),
    (cf.frozen_dataclass_of_layers, (cf.Model([cf.Layer(normal(2, 2), normal(2)),
                                               cf.Layer(normal(3, 2), normal(3))], 1.4),
                                     normal(2)), 0),
]


def case_id(case):
    function, args, _ = case
    return "%s-%s" % (function.__name__, type(args[0]).__name__)


def _as_tuple(wrt):
    return wrt if isinstance(wrt, tuple) else (wrt,)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient_has_the_argument_structure_and_matches_finite_differences(case, optimize):
    function, args, wrt = case
    before = [snapshot(a) for a in args]
    gradients = srcad.grad(function, wrt=wrt, optimize=optimize)(*args)
    for a, old in zip(args, before):
        assert_unchanged(a, old)
    if not isinstance(wrt, tuple):
        gradients = (gradients,)
    for position, gradient in zip(_as_tuple(wrt), gradients):
        assert_same_structure(gradient, args[position])
        assert_matches(gradient, numeric_gradient(function, args, position))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_agrees_with_reverse_by_the_dot_product_test(case):
    """jvp with a tangent of the argument's structure gives <grad, t>, leaf by leaf."""
    function, args, wrt = case
    rng = rng_for(case_id(case))
    tangents = [None] * len(args)
    for position in _as_tuple(wrt):
        tangents[position] = random_tangent(args[position], rng)
    before = [snapshot(a) for a in args]
    value, tangent = srcad.jvp(function, args, tangents)
    for a, old in zip(args, before):
        assert_unchanged(a, old)
    assert value == pytest.approx(call(function, args))
    gradients = srcad.grad(function, wrt=tuple(_as_tuple(wrt)))(*args)
    expected = sum(inner(tangents[p], g) for p, g in zip(_as_tuple(wrt), gradients))
    assert tangent == pytest.approx(expected, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hvp_matches_finite_differences_of_the_gradient(case):
    function, args, wrt = case
    position = _as_tuple(wrt)[0]
    direction = random_tangent(args[position], rng_for("hvp " + case_id(case)))
    product = srcad.hvp(function, wrt=position)(*args, direction)
    assert_same_structure(product, args[position])
    gradient = srcad.grad(function, wrt=position)
    shifted = []
    for sign in (1.0, -1.0):
        moved = list(args)
        moved[position] = _along(args[position], direction, sign * 1e-5)
        shifted.append(gradient(*moved))
    expected = [(path, None if g is None else (np.asarray(g) - np.asarray(at(shifted[1], path)))
                 / 2e-5) for path, g in leaves(shifted[0])]
    assert_matches(product, expected, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_and_hvp_without_optimizations_agree(case):
    function, args, wrt = case
    rng = rng_for("unoptimized " + case_id(case))
    position = _as_tuple(wrt)[0]
    tangents = [None] * len(args)
    tangents[position] = random_tangent(args[position], rng)
    _, optimized = srcad.jvp(function, args, tangents)
    _, plain = srcad.jvp(function, args, tangents, optimize=False)
    assert plain == pytest.approx(optimized, rel=1e-12, abs=1e-14)
    product = srcad.hvp(function, wrt=position, optimize=False)(*args, tangents[position])
    _assert_trees_equal(product, srcad.hvp(function, wrt=position)(*args, tangents[position]),
                        rtol=1e-10)


def _along(x, direction, step):
    out = x
    for path, leaf in leaves(x):
        t = at(direction, path)
        if t is not None:
            value = leaf + step * t
            out = replaced(out, path, type(leaf)(value) if np.ndim(leaf) == 0 else value)
    return out


@pytest.mark.parametrize("case", CASES[:6], ids=case_id)
def test_value_and_grad_vjp_and_check_grad_agree_with_grad(case):
    function, args, wrt = case
    gradients = srcad.grad(function, wrt=wrt)(*args)
    value, same = srcad.value_and_grad(function, wrt=wrt)(*args)
    assert value == pytest.approx(call(function, args))
    _assert_trees_equal(same, gradients)
    output, vjp_fn = srcad.vjp(function, *args)
    cotangents = vjp_fn(1.0)
    assert len(cotangents) == len(args)
    for position, gradient in zip(_as_tuple(wrt), (gradients,) if not isinstance(
            wrt, tuple) else gradients):
        assert_same_structure(cotangents[position], args[position])
        _assert_trees_equal(cotangents[position], gradient)
    assert srcad.check_grad(function, *args, wrt=wrt)


def _assert_trees_equal(a, b, rtol=1e-12):
    assert [p for p, _ in leaves(a)] == [p for p, _ in leaves(b)]
    for (path, u), (_, v) in zip(leaves(a), leaves(b)):
        if u is None or v is None:
            assert u is None and v is None, path
        else:
            np.testing.assert_allclose(u, v, rtol=rtol, atol=1e-14, err_msg=str(path))


# ------------------------------------------------ the reproducers, by their own programs


def test_dict_argument_gradient_is_a_dict():
    """repro c8: the gradient with respect to a dict failed in runtime.unindex."""
    g = srcad.grad(cf.dict_of_weight_and_bias)({"w": np.array([1.0, 2.0]), "b": 0.5})
    assert type(g) is dict and list(g) == ["w", "b"]
    np.testing.assert_array_equal(g["w"], [2.0, 4.0])
    assert type(g["b"]) is float and g["b"] == 1.0


def test_list_of_tuples_gradient_is_a_list_of_tuples():
    """repro c9: the gradient was srcad.runtime.Parts; g + g added element by element."""
    params = [(np.ones(2), np.ones(3)), (np.ones(1), np.ones(2))]
    g = srcad.grad(cf.layers_in_a_loop)(params)
    assert type(g) is list and all(type(layer) is tuple for layer in g)
    assert len(g + g) == 4  # concatenates, as for the argument itself
    np.testing.assert_array_equal(g[0][0], [2.0, 2.0])
    np.testing.assert_array_equal(g[1][1], [1.0, 1.0])


def test_hvp_through_list_pop():
    """repro c7: hvp raised IndexError (forward mode popped the list the adjoints read)."""
    x = np.array([0.5, -0.2])
    product = srcad.hvp(cf.list_pop)(x, np.ones(2))
    gradient = srcad.grad(cf.list_pop)
    expected = (gradient(x + 1e-6) - gradient(x - 1e-6)) / 2e-6
    np.testing.assert_allclose(product, expected, rtol=1e-6)
    np.testing.assert_allclose(product, [0.27, 0.27])


def test_jvp_append_to_empty_list():
    """repro w5: the tangent of a value appended to an empty list was lost."""
    x = np.array([0.07, 1.05])
    value, tangent = srcad.jvp(cf.append_to_empty_list, (x,), (np.array([1.0, 10.0]),))
    assert value == 0.07 and tangent == 1.0


@pytest.mark.parametrize("function, args", [
    (cf.list_pop, (np.array([0.5, -0.2]),)),
    (cf.append_to_empty_list, (np.array([0.07, 1.05]),)),
    (cf.append_to_an_alias, (np.array([0.3, -1.1]),)),
    (cf.append_in_a_loop_then_pop, (np.array([0.3, -1.1]), 4)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_list_updates_forward_against_reverse_and_hvp(function, args):
    """In-place list updates in forward mode: dot-product test, and hvp against FD."""
    rng = rng_for(function.__name__)
    t = rng.standard_normal(args[0].shape)
    _, tangent = srcad.jvp(function, args, (t,) + (None,) * (len(args) - 1))
    gradient = srcad.grad(function)
    assert tangent == pytest.approx(float(np.dot(gradient(*args), t)), rel=1e-9)
    if function is not cf.append_to_an_alias:  # srcad does not follow the alias b = a
        numeric = (function(args[0] + 1e-6 * t, *args[1:])
                   - function(args[0] - 1e-6 * t, *args[1:])) / 2e-6
        assert tangent == pytest.approx(numeric, rel=1e-6)
    product = srcad.hvp(function)(*args, t)
    expected = (gradient(args[0] + 1e-6 * t, *args[1:])
                - gradient(args[0] - 1e-6 * t, *args[1:])) / 2e-6
    np.testing.assert_allclose(product, expected, rtol=1e-5, atol=1e-8)


def test_forward_mode_never_appends_to_the_callers_list():
    xs = [np.array([1.0, 2.0]), np.array([0.5, 0.5])]
    y = np.array([3.0, -1.0])
    before = [a.copy() for a in xs]
    tangents = ([np.ones(2), np.zeros(2)], None)
    srcad.jvp(cf.list_update_and_append, (xs, y), tangents)
    assert len(xs) == 2 and len(tangents[0]) == 2
    for a, b in zip(xs, before):
        np.testing.assert_array_equal(a, b)


def test_value_and_grad_returns_the_value_after_the_loop():
    """The adjoint sweep restores loop variables; value_and_grad returned 0.0 here."""
    for optimize in (True, False):
        value, gradient = srcad.value_and_grad(cf.scalar_loop, optimize=optimize)(1.5, 3)
        assert (value, gradient) == (6.75, 9.0)
        (value, aux), gradient = srcad.value_and_grad(cf.scalar_loop_with_aux, has_aux=True,
                                                      optimize=optimize)(1.5, 3)
        assert (value, aux, gradient) == (6.75, 13.5, 9.0)
        gradient, aux = srcad.grad(cf.scalar_loop_with_aux, has_aux=True,
                                   optimize=optimize)(1.5, 3)
        assert (gradient, aux) == (9.0, 13.5)


# --------------------------------------------------------- types, ownership, rules


def test_leaves_held_constant_get_none():
    p = {"w": np.array([0.3, -0.2]), "b": np.array([0.1, 0.0]), "steps": 2,
         "mode": "square", "n": 3}
    g = srcad.grad(cf.with_constant_leaves)(p, np.array([0.5, 1.0]))
    assert g["steps"] is None and g["mode"] is None and g["n"] is None
    assert isinstance(g["w"], np.ndarray) and isinstance(g["b"], np.ndarray)


def test_float_leaves_get_floats_and_numpy_scalars_their_type():
    g = srcad.grad(cf.float_leaves)((0.7, -1.2, 1.9))
    assert type(g) is tuple and all(type(v) is float for v in g)
    p = {"a": np.float64(0.4), "v": np.array([1.0, 2.0], dtype=np.float32)}
    g = srcad.grad(cf.numpy_scalar_and_float32_leaves)(p)
    assert type(g["a"]) is np.float64 and g["v"].shape == (2,)
    exact = srcad.grad(cf.numpy_scalar_and_float32_leaves)({"a": 0.4, "v": np.array([1.0, 2.0])})
    np.testing.assert_allclose(g["v"], exact["v"], rtol=1e-6)


def test_unread_entries_get_zeros_of_their_shape():
    p = {"used": np.ones(2), "unused": np.ones(3), "f": 1.5}
    g = srcad.grad(cf.unused_entries)(p, np.array([2.0, 3.0]))
    np.testing.assert_array_equal(g["unused"], np.zeros(3))
    assert g["f"] == 0.0 and type(g["f"]) is float


def test_gradient_leaves_are_fresh_writable_arrays():
    """Two leaves never share memory, and none is a read-only view."""
    p = {"a": np.ones(3), "b": np.ones(3)}
    for optimize in (True, False):
        g = srcad.grad(cf.same_adjoint_twice, optimize=optimize)(p)
        assert g["a"].flags.writeable and g["b"].flags.writeable
        g["a"][0] = 5.0
        assert g["b"][0] == 1.0


def test_namedtuple_and_ordered_dict_keep_their_types():
    g = srcad.grad(cf.indexed_namedtuple)(cf.Pair(np.array([1.0, 2.0]), 1.5))
    assert type(g) is cf.Pair and type(g.b) is float
    np.testing.assert_array_equal(g.w, [3.0, 6.0])
    g = srcad.grad(cf.dict_of_weight_and_bias)(OrderedDict(b=0.5, w=np.array([1.0, 2.0])))
    assert type(g) is OrderedDict and list(g) == ["b", "w"]


def test_records_keep_their_types():
    layer = cf.Layer(np.eye(2), np.zeros(2))
    g = srcad.grad(cf.dataclass_fields)(layer, np.array([0.5, -0.5]))
    assert type(g) is cf.Layer and g.name is None and g.W.shape == (2, 2)
    model = cf.Model([layer], 2.0)
    g = srcad.grad(cf.frozen_dataclass_of_layers)(model, np.array([0.5, -0.5]))
    assert type(g) is cf.Model and type(g.layers[0]) is cf.Layer and type(g.scale) is float
    assert model.scale == 2.0 and model.layers[0] is layer  # the argument is as it was


def test_an_attribute_of_another_object_is_an_error_when_the_gradient_runs():
    class Plain:
        def __init__(self, W, b):
            self.W, self.b = W, b

    with pytest.raises(UnsupportedOperationError, match=r"reading the attribute \.b of a "
                                                        "namedtuple or a dataclass, not of a "
                                                        "Plain"):
        srcad.grad(cf.dataclass_fields)(Plain(np.eye(2), np.ones(2)), np.ones(2))


def test_loop_over_an_int_keyed_dict_visits_its_keys():
    """for k in d iterates over the keys (it read d[0], d[1]... before: the values here)."""
    d = {0: 1.5, 1: -0.5}
    g = srcad.grad(cf.loop_over_int_keys, wrt=(0, 1))(d, 0.7)
    assert g == ({0: 0.0, 1: 0.7}, 1.0 + d[1])


# --------------------------------------------------------------------- Jacobians


def test_jacobian_of_a_dict_argument_has_one_block_per_leaf():
    p = {"W": normal(3, 2), "x": normal(2), "s": 0.9, "label": "layer"}
    for mode in ("reverse", "forward"):
        jac = srcad.jacobian(cf.vector_of_dict, mode=mode)(p)
        assert type(jac) is dict and list(jac) == list(p)
        assert jac["W"].shape == (3, 3, 2) and jac["x"].shape == (3, 2)
        assert jac["s"].shape == (3,) and jac["label"] is None
        for key in ("W", "x", "s"):
            leaf = p[key]
            for index in np.ndindex(np.shape(leaf)):
                hi, lo = dict(p), dict(p)
                if np.ndim(leaf) == 0:
                    hi[key], lo[key] = leaf + EPS, leaf - EPS
                else:
                    hi[key], lo[key] = leaf.copy(), leaf.copy()
                    hi[key][index] += EPS
                    lo[key][index] -= EPS
                column = (cf.vector_of_dict(hi) - cf.vector_of_dict(lo)) / (2 * EPS)
                np.testing.assert_allclose(jac[key][(Ellipsis,) + index], column, rtol=1e-5,
                                           atol=1e-8)


def test_hessian_of_a_dict_argument_is_a_tree_of_blocks():
    p = {"w": np.array([0.3, -0.4]), "b": 0.2, "n": 1}

    h = srcad.hessian(cf.key_read_twice)(p)
    assert list(h) == ["w", "b", "n"] and h["n"] is None
    assert h["w"]["w"].shape == (2, 2) and h["w"]["b"].shape == (2,)
    assert type(h["b"]["b"]) is float and h["w"]["n"] is None
    gradient = srcad.grad(cf.key_read_twice)
    for column_key in ("w", "b"):
        leaf = p[column_key]
        for index in np.ndindex(np.shape(leaf)):
            hi, lo = dict(p), dict(p)
            if np.ndim(leaf) == 0:
                hi[column_key], lo[column_key] = leaf + EPS, leaf - EPS
            else:
                hi[column_key], lo[column_key] = leaf.copy(), leaf.copy()
                hi[column_key][index] += EPS
                lo[column_key][index] -= EPS
            g_hi, g_lo = gradient(hi), gradient(lo)
            for row_key in ("w", "b"):
                column = (np.asarray(g_hi[row_key]) - np.asarray(g_lo[row_key])) / (2 * EPS)
                np.testing.assert_allclose(
                    np.asarray(h[row_key][column_key])[(Ellipsis,) + index], column,
                    rtol=1e-5, atol=1e-7)


# --------------------------------------------------------------- container outputs


def test_dict_output_forward_and_reverse():
    """jvp gives a dict of output tangents, vjp takes a dict cotangent: dot-product test."""
    rng = rng_for("dict output")
    p = {"w": rng.standard_normal(3), "c": 0.4}
    x = rng.standard_normal(3)
    t = random_tangent(p, rng)
    value, tangent = srcad.jvp(cf.dict_output, (p, x), (t, None))
    assert type(tangent) is dict and list(tangent) == ["y", "s"]
    assert type(tangent["s"]) is type(value["s"])
    numeric = {key: (cf.dict_output(_along(p, t, 1e-6), x)[key]
                     - cf.dict_output(_along(p, t, -1e-6), x)[key]) / 2e-6 for key in value}
    for key in value:
        np.testing.assert_allclose(tangent[key], numeric[key], rtol=1e-6, atol=1e-9)
    cotangent = {"y": rng.standard_normal(3), "s": 0.7}
    output, vjp_fn = srcad.vjp(cf.dict_output, p, x)
    p_bar, x_bar = vjp_fn(cotangent)
    assert_same_structure(p_bar, p)
    assert inner(tangent, cotangent) == pytest.approx(inner(t, p_bar), rel=1e-9)
    p_bar_without_s, _ = vjp_fn({"y": cotangent["y"], "s": None})  # None: a zero cotangent
    np.testing.assert_allclose(p_bar_without_s["w"], p_bar["w"] - 0.7 * p["c"])


def test_a_dict_output_is_not_a_scalar_or_an_array():
    p = {"w": np.ones(3), "c": 0.4}
    for function in (cf.dict_output, cf.returns_its_argument):
        with pytest.raises(NonScalarOutputError, match="this return gave a dict"):
            srcad.grad(function)(p, np.ones(3)) if function is cf.dict_output else srcad.grad(
                function)(p)
    with pytest.raises(InvalidArgumentError, match="not a dict"):
        srcad.jacobian(cf.dict_output)(p, np.ones(3))


def test_vjp_calls_the_function_on_copies_of_its_arrays():
    """vjp ran f on the caller's array, which f changed, so c·J was taken at x[0] = 10."""
    x = np.array([1.0, 2.0])
    output, vjp_fn = srcad.vjp(cf.writes_into_its_argument, x)
    np.testing.assert_array_equal(x, [1.0, 2.0])
    assert output == 5.0
    np.testing.assert_array_equal(vjp_fn(1.0)[0], [2.0, 4.0])


def test_vjp_and_jacobian_call_the_function_on_copies_of_its_containers():
    """The function appends to its list argument; the caller's list stays as it was."""
    xs, y = [np.array([1.0, 2.0]), np.array([0.5, -1.0])], np.array([3.0, 1.0])
    output, vjp_fn = srcad.vjp(cf.list_update_and_append, xs, y)
    assert len(xs) == 2
    xs_bar, y_bar = vjp_fn(1.0)
    expected = srcad.grad(cf.list_update_and_append, wrt=(0, 1))(xs, y)
    _assert_trees_equal(xs_bar, expected[0])
    np.testing.assert_array_equal(y_bar, expected[1])
    for mode in ("reverse", "forward"):
        jac = srcad.jacobian(cf.list_update_and_append, wrt=1, mode=mode)(xs, y)
        assert len(xs) == 2
        np.testing.assert_allclose(jac, expected[1])


# ----------------------------------------------------------------------- errors


def test_a_tangent_for_a_leaf_held_constant_must_be_none():
    p = {"w": np.array([1.0, 2.0]), "b": 0.5, "n": 2}
    with pytest.raises(InvalidArgumentError, match=r"p\['n'\] is an int, which is held "):
        srcad.jvp(cf.dict_of_weight_and_bias, (p,), ({"w": np.ones(2), "b": 1.0, "n": 1.0},))
    value, tangent = srcad.jvp(cf.dict_of_weight_and_bias, (p,),
                               ({"w": np.ones(2), "b": None, "n": None},))
    assert tangent == pytest.approx(2.0 + 4.0)


def test_a_tangent_must_have_the_primal_structure():
    p = {"w": np.array([1.0, 2.0]), "b": 0.5}
    with pytest.raises(InvalidArgumentError, match="must be a dict with the keys"):
        srcad.jvp(cf.dict_of_weight_and_bias, (p,), ({"w": np.ones(2)},))
    with pytest.raises(InvalidArgumentError, match=r"the tangent for p\['w'\] has shape \(3,\)"):
        srcad.jvp(cf.dict_of_weight_and_bias, (p,), ({"w": np.ones(3), "b": 1.0},))
    with pytest.raises(InvalidArgumentError, match="must be a list of length 2"):
        srcad.hvp(cf.layers_in_a_loop)([(np.ones(2), np.ones(3)), (np.ones(1), np.ones(2))],
                                       [(np.ones(2), np.ones(3))])


# ------------------------------------------------------------------ documentation


def test_readme_example_prints_what_the_readme_shows():
    """README.md, "Dicts, lists, tuples and dataclasses as arguments": every value shown."""
    params = {"layers": [(np.array([[1.0, -0.5], [0.3, 0.8]]), np.zeros(2)),
                         (np.array([[0.7, -1.2]]), np.array([0.1]))],
              "scale": 0.5, "name": "tiny"}
    x, y = np.array([0.5, -1.0]), np.array([0.2])
    g = srcad.grad(cf.readme_loss)(params, x, y)
    assert type(g) is dict and type(g["layers"]) is list
    assert all(type(layer) is tuple for layer in g["layers"])
    assert repr(g["layers"][1][0]) == "array([[ 0.12643848, -0.09490761]])"
    assert repr(g["scale"]) == "0.4443087469101062"
    assert g["name"] is None
    v = {"layers": [(np.ones((2, 2)), None), (None, None)], "scale": None, "name": None}
    value, tangent = srcad.jvp(cf.readme_loss, (params, x, y), (v, None, None))
    assert (repr(float(value)), repr(float(tangent))) == ("0.2221543734550531",
                                                          "0.0426542298822172")
    assert repr(srcad.hvp(cf.readme_loss)(params, x, y, v)["scale"]) == "0.0853084597644344"
    assert_matches(g, numeric_gradient(cf.readme_loss, (params, x, y), 0))


def _normalized(function):
    text = srcad.source(function, stages=True)
    return text.split("# ---- after normalize ----\n")[1].split("# ---- after")[0].strip()


def test_how_it_works_shows_the_normalized_loop_over_a_sequence():
    """docs/how-it-works.md, "break, continue, return": clipped_sum after normalize."""
    assert _normalized(cf.clipped_sum) == """def clipped_sum(xs):
    s = 0.0
    sequence = rt.iterated(xs)
    length = len(sequence)
    for index in range(length):
        skip = False
        v = sequence[index]
        cond = v < 0.0
        if cond:
            skip_2 = True
            skip_3 = skip_2
        else:
            skip_3 = skip
        cond_2 = not skip_3
        if cond_2:
            mul = v * v
            s_2 = s + mul
            s_3 = s_2
        else:
            s_3 = s
        s = s_3
    return s"""


def test_how_it_works_shows_the_tape_popped_in_place_in_forward_mode():
    """docs/how-it-works.md, "Higher derivatives": the reverse loop of hvp's forward code."""
    generated = srcad.grad(cf.decay).generated_for(0.8, 3)
    text = srcad.source(generated.function, mode="forward", example_args=(0.8, 3))
    assert """    for i in steps:
        # y = _tape.pop()
        popped = _tape[-1]
        popped_dot = tape_dot[-1]
        tape_2_dot = rt.pop_in_place(tape_dot)
        tape_2 = rt.pop_in_place(_tape)
        # sin = np.sin(y)
        sin_2 = np.sin(popped)
        sin_2_dot = popped_dot * np.cos(popped)
""" in text


def test_check_grad_names_the_leaf_that_differs():
    """srcad treats p["w"] as a constant (stop_gradient); finite differences do not."""
    with pytest.raises(AssertionError, match=r"gradient for p\['w'\] differs"):
        srcad.check_grad(cf.stopped, {"w": np.array([1.0, 2.0]), "b": 0.5})


def test_a_list_tangent_for_a_tuple_and_zero_for_a_leaf_held_constant():
    t = (0.7, -1.2, 1.9)
    value, tangent = srcad.jvp(cf.float_leaves, (t,), ([1.0, 0.0, 0.0],))
    assert tangent == pytest.approx(srcad.grad(cf.float_leaves)(t)[0])
    p = {"w": np.array([1.0, 2.0]), "b": 0.5, "n": 2}
    _, tangent = srcad.jvp(cf.dict_of_weight_and_bias, (p,),
                           ({"w": np.ones(2), "b": 0.0, "n": 0},))
    assert tangent == pytest.approx(6.0)


def test_dict_of_pairs_held_by_a_name_is_a_located_error():
    with pytest.raises(UnsupportedOperationError) as caught:
        srcad.grad(cf.dict_of_pairs_by_name)(np.array([0.5, 1.5]))
    assert "dict(x) for a dict x, and this x is a list" in str(caught.value)
    assert "entries = dict(pairs)" in caught.value.location.line
