"""Calls resolved by value (issue 11, item 5) and library code (item 6).

A call through an argument or a default (``f(x)``, ``nonlinearity=np.tanh``), a method of
an object of the user's class (``self.helper(x)``, ``model.predict(w)``), a
``functools.partial``, ``map(f, xs)`` and starred arguments: each checked by the gradient
against finite differences, forward mode against reverse (the dot-product test), hvp
against finite differences of the gradient, and ``optimize=False`` agreeing. The callable
or the object's class is part of the specialization key: one derivative called with two
of them runs the code made for each.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np
import pytest

import srcad
from srcad import errors
from tests import gradcheck

EPS = 1e-6


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def check_all_modes(function, args, wrt=0, name=None):
    """Gradient vs finite differences, jvp vs the gradient (dot-product test), hvp vs
    finite differences of the gradient, optimize=False agreeing; returns the gradient."""
    rng = _rng(name or getattr(function, "__name__", "partial"))
    args = list(args)
    x = args[wrt]
    gradient = srcad.grad(function, wrt=wrt)(*args)
    numeric = gradcheck.numerical_gradient(function, args, wrt)
    gradcheck.assert_close(gradient, numeric)
    assert np.max(np.abs(numeric)) > 1e-3  # not vacuous
    unoptimized = srcad.grad(function, wrt=wrt, optimize=False)(*args)
    gradcheck.assert_close(unoptimized, gradient, rtol=1e-10, atol=1e-12)
    tangent = rng.normal(size=np.shape(x)) if np.ndim(x) else float(rng.normal())
    tangents = [None] * len(args)
    tangents[wrt] = tangent
    _, output_tangent = srcad.jvp(function, args, tangents)
    gradcheck.assert_close(output_tangent, np.sum(np.asarray(gradient) * tangent),
                           what="jvp against <t, gradient>")
    product = srcad.hvp(function, wrt=wrt)(*args, tangent)

    def shifted(sign):
        moved = list(args)
        moved[wrt] = x + sign * EPS * tangent
        return np.asarray(srcad.grad(function, wrt=wrt)(*moved))

    gradcheck.assert_close(product, (shifted(1) - shifted(-1)) / (2 * EPS), rtol=1e-4,
                           atol=1e-6, what="hvp")
    return gradient


# ---- methods of the user's objects


class Model:
    def __init__(self, scale, activation=np.tanh):
        self.scale = scale
        self.activation = activation
        self.layers = [np.array([[0.5, -0.3], [0.2, 0.8]]), np.array([[1.1, 0.4]])]

    def helper(self, x):
        return self.activation(x) * self.scale

    def forward(self, w, x):
        h = x * w
        for W in self.layers:
            h = self.activation(W @ h)
        return h

    def loss(self, w, x):
        return np.sum(self.helper(self.forward(w, x)) ** 2)

    @staticmethod
    def penalty(w):
        return np.sum(w ** 4)

    @classmethod
    def weight(cls, w):
        return cls.WEIGHT * np.sum(w * w)

    WEIGHT = 0.25

    def regularized(self, w, x):
        return self.loss(w, x) + self.penalty(w) + self.weight(w)


    def passes_its_method(self, w, x):
        return apply_sum(self.helper, w * x)

    def through_local_names(self, w, x):
        act = self.activation
        forward = self.forward
        total = 0.0
        for _ in range(2):
            total = total + np.sum(act(forward(w, x)))
        return total


class Sigmoid:
    def __call__(self, z):
        return 1.0 / (1.0 + np.exp(-z))


W0 = np.array([0.3, -0.7])
X0 = np.array([0.9, 0.4])


def test_method_calling_methods_of_self():
    model = Model(1.5)
    check_all_modes(model.loss, [W0, X0], name="method")


def test_static_and_class_methods_called_on_self():
    check_all_modes(Model(0.5).regularized, [W0, X0], name="static")


class Dense:
    def __init__(self, W, activation=np.tanh):
        self.W = W
        self.activation = activation

    def __call__(self, h):
        return self.activation(self.W @ h)


class Network:
    def __init__(self, layers):
        self.layers = layers

    def loss(self, w, x):
        h = x * w
        for layer in self.layers:
            h = layer(h)
        return np.sum(h ** 2)


def loss_of_layers(w, layers, x):
    h = x * w
    for layer in layers:
        h = layer(h)
    return np.sum(np.sin(h))


LAYERS = [Dense(np.array([[0.5, -0.3], [0.2, 0.8]])), Dense(np.array([[1.1, 0.4]]))]


def test_list_of_objects_of_one_kind():
    check_all_modes(Network(LAYERS).loss, [W0, X0], name="network")
    check_all_modes(loss_of_layers, [W0, LAYERS, X0], name="layers")
    gradient = srcad.grad(loss_of_layers)
    other = [Dense(layer.W, np.sin) for layer in LAYERS]
    expected = gradcheck.numerical_gradient(loss_of_layers, [W0, other, X0], 0)
    gradcheck.assert_close(gradient(W0, other, X0), expected)


def test_list_of_objects_of_several_kinds_is_not_resolved():
    mixed = [LAYERS[0], Dense(LAYERS[1].W, np.sin)]
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(loss_of_layers)(W0, mixed, X0)
    assert "h = layer(h)" in str(info.value)


def test_local_names_bound_to_an_objects_functions():
    check_all_modes(Model(0.8, np.sin).through_local_names, [W0, X0], name="local")
    check_all_modes(Model(0.8, np.sin).passes_its_method, [W0, X0], name="passed")


def loss_of_model(w, model, x):
    return model.loss(w, x) + np.sum(model.helper(w))


def test_method_of_an_argument():
    check_all_modes(loss_of_model, [W0, Model(2.0), X0], name="argument")


GLOBAL_MODEL = Model(0.7, np.sin)


def loss_of_global_model(w):
    return GLOBAL_MODEL.loss(w, X0)


def test_method_of_a_global_object():
    check_all_modes(loss_of_global_model, [W0])


def applies_callable_object(w, activation):
    return np.sum(activation(w) * w)


def test_callable_object():
    check_all_modes(applies_callable_object, [W0, Sigmoid()])


def test_the_class_and_the_callables_an_object_holds_key_the_code():
    gradient = srcad.grad(loss_of_model)
    for activation in (np.tanh, np.sin, Sigmoid()):
        model = Model(1.3, activation)
        expected = gradcheck.numerical_gradient(loss_of_model, [W0, model, X0], 0)
        gradcheck.assert_close(gradient(W0, model, X0), expected)
    assert len(gradient.specializations) == 3
    gradient(W0, Model(9.0, np.sin), X0)  # same class, same callable: the same code
    assert len(gradient.specializations) == 3


class Other(Model):
    def helper(self, x):
        return np.cos(x) * self.scale


def test_a_subclass_overriding_a_method_gets_its_own_code():
    gradient = srcad.grad(loss_of_model)
    for model in (Model(1.3), Other(1.3), Model(0.4)):
        expected = gradcheck.numerical_gradient(loss_of_model, [W0, model, X0], 0)
        gradcheck.assert_close(gradient(W0, model, X0), expected)


# ---- functions passed as arguments and defaults


def square_sum(v):
    return np.sum(v * v)


def apply(f, x):
    return f(x)


def apply_sum(f, x):
    return np.sum(f(x))


def layer(x, nonlinearity=np.tanh):
    return np.sum(nonlinearity(x) * x)


def passes_on(x, f):
    return np.sum(apply(f, x)) + layer(x, f)


def uses_default_of_callee(x):
    return layer(x) + layer(x, np.sin)


def nested_def_passed(x):
    def cube(z):
        return z * z * z

    return apply_sum(cube, x)


@pytest.mark.parametrize("function, args, wrt", [
    (apply, [square_sum, W0], 1),
    (apply_sum, [np.sin, W0], 1),
    (apply_sum, [np.exp, W0], 1),
    (layer, [W0], 0),
    (layer, [W0, np.arctan], 0),
    (passes_on, [W0, np.sin], 0),
    (uses_default_of_callee, [W0], 0),
    (nested_def_passed, [W0], 0),
], ids=["user-function", "sin", "exp", "default", "default-overridden", "passed-on",
        "callee-default", "nested-def"])
def test_functions_passed_as_arguments_and_defaults(function, args, wrt):
    check_all_modes(function, args, wrt, name=function.__name__ + str(len(args)))


def test_the_callable_keys_the_code():
    gradient = srcad.grad(apply_sum, wrt=1)
    gradcheck.assert_close(gradient(np.sin, W0), np.cos(W0))
    gradcheck.assert_close(gradient(np.cos, W0), -np.sin(W0))
    gradcheck.assert_close(gradient(np.sin, W0), np.cos(W0))
    gradcheck.assert_close(gradient(np.exp, W0), np.exp(W0))
    assert len(gradient.specializations) == 3
    assert "np.cos" in gradient.source_for(np.sin, W0)
    assert "np.cos" not in gradient.source_for(np.exp, W0)


CUBE = lambda z: z ** 3  # noqa: E731 - a lambda passed as an argument


def test_a_lambda_passed_as_an_argument():
    check_all_modes(apply_sum, [CUBE, W0], wrt=1, name="lambda")
    gradcheck.assert_close(srcad.grad(apply_sum, wrt=1)(lambda z: np.sin(z) * 2.0, W0),
                           2.0 * np.cos(W0))


def test_generic_code_of_a_call_by_value_names_the_call():
    with pytest.raises(errors.ValueDependentCallError) as info:
        srcad.grad(apply_sum, wrt=1).source
    assert "return np.sum(f(x))" in str(info.value)
    assert "source_for" in str(info.value)


# ---- functools.partial


def scaled(x, a=1.0, b=0.0):
    return np.sum(np.sin(x) * a + b * x * x)


SCALED_TWICE = functools.partial(scaled, a=2.0)


def calls_global_partial(x):
    return SCALED_TWICE(x, b=0.5)


def calls_partial_argument(x, f):
    return f(x) * 2.0


def test_grad_of_a_partial():
    check_all_modes(functools.partial(scaled, a=2.0, b=0.3), [W0], name="partial-kw")
    check_all_modes(functools.partial(scaled, W0), [1.5], name="partial-positional")
    assert srcad.grad(functools.partial(scaled, b=2.0), wrt="b")(W0) == pytest.approx(
        float(np.sum(W0 * W0)))


def test_partial_of_a_bound_method():
    model = Model(1.5)
    partial = functools.partial(model.loss, x=X0)
    gradient = check_all_modes(partial, [W0], name="partial-method")
    gradcheck.assert_close(gradient, srcad.grad(model.loss)(W0, X0), rtol=1e-12, atol=1e-14)


def test_partial_called_inside():
    check_all_modes(calls_global_partial, [W0])
    check_all_modes(calls_partial_argument, [W0, functools.partial(scaled, b=1.5)])


def partials_made_inside(x):
    """Partials made in the function: bound by keyword (overridden at a call), by position
    from a value computed before (rebound later: the partial keeps the first value), passed
    to map and to a function of the user's."""
    weight = x[0] * 2.0
    by_keyword = functools.partial(scaled, a=weight)
    by_position = functools.partial(scaled, x * x)
    weight = weight * 100.0  # the partial bound the value before this
    total = by_keyword(x) + by_keyword(x, a=0.5, b=x[1]) + by_position(b=weight * 0.01)
    return total + sum(map(by_keyword, [x, x * 3.0])) + calls_partial_argument(x, by_keyword)


def with_varied_parameters(x):
    """Nested functions and lambdas with *args, keyword-only parameters and **kwargs."""
    def combine(first, *rest, scale=1.0, **named):
        return scale * (first + sum(rest)) + named["shift"]
    spread = lambda *parts, power=2.0: sum(p ** power for p in parts)  # noqa: E731
    return np.sum(combine(x, x * x, np.sin(x), scale=x[0], shift=x[1])) + np.sum(spread(x, x[0]))


def test_partials_made_inside_the_function():
    check_all_modes(partials_made_inside, [W0])


def test_nested_functions_with_any_parameters():
    check_all_modes(with_varied_parameters, [W0])


def test_partials_binding_other_values_get_other_code():
    gradient = srcad.grad(calls_partial_argument)
    before = len(gradient.specializations)
    for a in (1.0, 3.0, 1.0):
        expected = 2.0 * a * np.cos(W0)
        gradcheck.assert_close(gradient(W0, functools.partial(scaled, a=a)), expected)
    assert len(gradient.specializations) == before + 2


# ---- map


def sine(v):
    return np.sin(v) * v


def sums_map_of_user_function(x):
    return sum(map(sine, x))


def sums_map_of_ufunc(x):
    return sum(map(np.tanh, x)) + sum(map(np.multiply, x, x))


def sums_map_of_argument(x, f):
    return sum(map(f, x))


def lists_a_map(x):
    return np.sum(np.array(list(map(np.sin, x))))


def loops_over_a_map(x):
    total = 0.0
    for v in map(sine, x):
        total = total + v * v
    return total


def sums_a_named_map(x):
    values = map(np.multiply, x, np.cos(x))
    return sum(values)


def stacks_a_map_of_an_argument(x, f):
    return np.sum(np.stack(list(map(f, [x, 2.0 * x]))) ** 2)


def maps_a_method(w, model):
    return sum(map(model.helper, w))


@pytest.mark.parametrize("function, args", [
    (sums_map_of_user_function, [W0]),
    (sums_map_of_ufunc, [W0]),
    (sums_map_of_argument, [W0, np.sin]),
    (sums_map_of_argument, [W0, sine]),
    (lists_a_map, [W0]),
    (loops_over_a_map, [W0]),
    (sums_a_named_map, [W0]),
    (stacks_a_map_of_an_argument, [W0, np.tanh]),
    (maps_a_method, [W0, Model(1.2)]),
], ids=["user", "ufunc", "argument-ufunc", "argument-user", "list", "loop", "named",
        "stack", "method"])
def test_map(function, args):
    check_all_modes(function, args, name=function.__name__ + repr(args[-1])[:12])


# ---- starred arguments


def pair_product(a, b):
    return a * b


def random_projection(x):
    rs = np.random.RandomState(0)
    return np.sum(x * rs.randn(*x.shape))


def spreads_tuple(x):
    args = (x, np.cos(x))
    return np.sum(pair_product(*args))


def spreads_literals(x):
    return np.sum(pair_product(*[x, x], **{})) + np.sum(scaled(x, **{"a": 3.0, "b": 0.5}))


def spreads_named_containers(x):
    options = {"a": 2.0, "b": 0.5}
    pair = [x, np.sin(x)]
    return scaled(x, **options) + np.sum(np.maximum(*pair)) + np.sum(pair_product(*pair))


def spreads_after_first(x):
    rest = (np.exp(x),)
    return np.sum(pair_product(x, *rest))


def takes_default(a, b=2.0):
    return a * b


def spreads_to_defaults(x):
    args = (x,)  # known length: takes_default(args[0])
    return np.sum(takes_default(*args))


@pytest.mark.parametrize("function", [random_projection, spreads_tuple, spreads_literals,
                                      spreads_after_first, spreads_named_containers,
                                      spreads_to_defaults])
def test_starred_arguments(function):
    check_all_modes(function, [W0])


def spreads_unknown_length_to_defaults(x, args):
    return np.sum(takes_default(x, *args))


def spreads_into_primitive(x, pair):
    return np.sum(np.maximum(*pair)) * x


def spreads_a_changed_dict(x):
    options = {"a": 2.0}
    options["b"] = 0.5  # keys not known where it is spread: left to Python
    return scaled(x, **options)


def test_starred_argument_of_unknown_length_is_rejected_at_the_call():
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(spreads_unknown_length_to_defaults)
    assert "how many arguments `*args` passes" in str(info.value)
    assert "takes_default(x, *args)" in str(info.value)


def test_starred_argument_carrying_a_derivative_into_a_primitive_is_rejected():
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(spreads_into_primitive, wrt=1)(1.5, (W0, X0))
    assert "starred argument" in str(info.value)
    assert "np.maximum(*pair)" in str(info.value)


def test_keywords_spread_from_a_changed_dict_are_rejected_at_the_call():
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(spreads_a_changed_dict)
    assert "which keywords `**options` passes" in str(info.value)


# ---- library code


def uses_entropy(x):  # scipy.stats.entropy: library code with no template
    import_free = STATS.entropy(x)
    return import_free * 2.0


try:
    import scipy.special as SPECIAL  # noqa: N812
    import scipy.stats as STATS  # noqa: N812
except ImportError:  # pragma: no cover - scipy is in the test extra
    SPECIAL = STATS = None


def test_library_function_is_not_inlined_and_the_error_is_at_the_users_call():
    pytest.importorskip("scipy")
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(uses_entropy)
    message = str(info.value)
    assert "no gradient template for scipy.stats.entropy" in message
    assert message.startswith(__file__)
    assert "_entropy.py" not in message
    assert "library code" in message


def test_library_function_is_fine_where_no_derivative_flows():
    pytest.importorskip("scipy")

    def normalizer_of_data(x, data):
        return np.sum(x) * SPECIAL.logsumexp(data)

    data = np.array([0.1, 0.5])
    assert srcad.grad(normalizer_of_data)(W0, data) == pytest.approx(
        np.full(2, SPECIAL.logsumexp(data)))


# ---- regressions


def recursive_with_array_default(u, depth, scale=np.array([1.0, 0.5])):
    if depth <= 0:
        return np.sum(np.sin(u) * scale)
    return recursive_with_array_default(u * 0.9, depth - 1)


def calls_recursive_with_array_default(x):
    return recursive_with_array_default(x, 2)


def test_recursive_call_leaving_a_non_literal_default_out():
    # the call's adjoint passed the default as a constant node holding the array, which
    # printed as invalid code (reverse._adjoint_of_recursive_call, forward.recursive_call)
    check_all_modes(calls_recursive_with_array_default, [W0])


def vector_valued(x, a=1.0, b=0.0):
    return np.sin(x) * a + b * x * x


def test_check_grad_and_jacobians_of_a_partial():
    assert srcad.check_grad(functools.partial(scaled, a=2.0), W0)
    partial = functools.partial(vector_valued, b=0.7)
    expected = np.diag(np.cos(W0) + 1.4 * W0)
    for mode in ("reverse", "forward"):
        gradcheck.assert_close(srcad.jacobian(partial, mode=mode)(W0), expected)
    assert srcad.check_grad(apply_sum, np.sin, W0, wrt=1)


def chain(u, stages):
    for stage in stages:
        u = stage(u)
    return u


def chains_global_layers(w):
    return np.sum(chain(X0 * w, LAYERS) ** 2)


def test_global_list_of_objects_passed_to_a_helper():
    check_all_modes(chains_global_layers, [W0])


def apply_or_identity(f, x):
    if f is None:
        return x
    return f(x)


def passes_nested_def_read_as_value(x):
    def square(z):
        return z * z

    return np.sum(apply_or_identity(square, x))


def test_nested_def_passed_to_a_function_reading_it_as_a_value_is_rejected():
    # it has no value in the generated code (it was a NameError when the derivative ran)
    with pytest.raises(errors.UnsupportedSyntaxError) as info:
        srcad.grad(passes_nested_def_read_as_value)
    assert "apply_or_identity(square, x)" in str(info.value)
    assert "module level" in str(info.value)


def chooses_function(x):
    return np.sin if x[0] > 0.0 else np.cos


def maps_a_made_function(x):
    values = map(chooses_function(x), x)
    return sum(values)


def test_map_of_a_function_made_at_the_call_says_so():
    with pytest.raises(errors.MissingTemplateError) as info:
        srcad.grad(maps_a_made_function)
    assert "map(f, ...) with f a name or an attribute" in str(info.value)
    assert "values = map(chooses_function(x), x)" in str(info.value)


# ---- methods srcad cannot resolve: results that need no derivative, checked when run


def weighted_by_name(x, names):
    """String methods of the items of a list of names: counts and booleans, no derivative."""
    total = 0.0
    for position, name in enumerate(names):
        if name.startswith("w"):
            total = total + x[position] * name.count("_") + np.sin(x[position])
    return total


def keys_by_method(params):
    total = 0.0
    for key, value in params.items():
        scale = float(len(key.split("_")))
        if key.endswith("W"):
            total = total + scale * np.sum(value ** 2)
    return total


class Doubler:
    def scale(self, x):
        return 2.0 * x


def method_of_an_object_in_a_dict(x, holder):
    return np.sum(holder["doubler"].scale(x))


def test_string_methods_of_list_items_need_no_derivative():
    x = np.array([0.3, -1.2, 0.7])
    check_all_modes(weighted_by_name, (x, ["w_a", "b", "w_b_c"]))


def test_string_methods_of_dict_keys_need_no_derivative():
    params = {"a_W": np.array([0.5, -1.5]), "b": np.array([2.0]), "c_d_W": np.array([1.3])}
    gradient = srcad.grad(keys_by_method)(params)
    numeric = {key: gradcheck.numerical_gradient(
        lambda v, key=key: keys_by_method({**params, key: v}), [params[key]], 0)
        for key in params}
    for key in params:
        gradcheck.assert_close(gradient[key], numeric[key])
    tangent = {key: np.ones_like(value) for key, value in params.items()}
    product = srcad.hvp(keys_by_method)(params, tangent)
    gradcheck.assert_close(product["a_W"], 4.0 * tangent["a_W"])
    gradcheck.assert_close(product["c_d_W"], 6.0 * tangent["c_d_W"])
    gradcheck.assert_close(product["b"], 0.0 * tangent["b"])


def test_an_unresolved_method_giving_floats_is_a_located_error_when_run():
    """An object's method srcad cannot resolve (the object is a value in a dict) must not
    be taken for a constant: its result is checked, and a float array raises."""
    x = np.array([1.0, 2.0])
    for mode in (lambda: srcad.grad(method_of_an_object_in_a_dict)(x, {"doubler": Doubler()}),
                 lambda: srcad.jvp(method_of_an_object_in_a_dict, (x, {"doubler": Doubler()}),
                                   (x, None))):
        with pytest.raises(errors.MissingTemplateError) as raised:
            mode()
        message = str(raised.value)
        assert ".scale()" in message and "an array of float64" in message
        assert 'holder["doubler"].scale(x)' in message and "test_calls_by_value.py" in message
