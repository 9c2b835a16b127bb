"""The primitive record (registry.Primitive) and the rule helpers (srcad/vocabulary.py).

Every fact about a primitive is read from its record; the rule helpers write the
templates an author would write by hand; the templates live inside the srcad package
and import nothing above the registry.
"""

import ast
import math
import operator
import os

import numpy as np
import pytest

import srcad
from srcad import registry, runtime, vocabulary
from srcad.errors import TemplateError

try:
    from ._fd import assert_close, numeric_grad
except ImportError:
    from _fd import assert_close, numeric_grad

TEMPLATES = os.path.join(os.path.dirname(srcad.__file__), "templates")


def test_the_record_holds_templates_shape_rule_specializer_and_facts():
    unbroadcast = registry.lookup(runtime.unbroadcast)
    assert unbroadcast.adjoint is not None and unbroadcast.tangent is not None
    assert unbroadcast.shape_rule is not None and unbroadcast.specializer is not None
    assert unbroadcast.linear_in == (0,) and unbroadcast.pure
    assert registry.lookup(np.dot).linear_in == (0, 1) and registry.lookup(np.dot).allocating
    assert not registry.lookup(runtime.check_unshared).pure
    assert not registry.lookup(np.argmax).differentiable


def test_facts_of_an_unknown_function_are_the_defaults():
    def unknown(x):
        return x

    assert registry.fact(unknown, "linear_in", ()) == ()
    assert registry.fact(unknown, "pure", True) is True
    assert registry.lookup(unknown) is None  # asking does not create a record


def test_a_numpy_function_and_its_math_twin_come_from_one_entry():
    numpy_sin, math_sin = registry.lookup(np.sin), registry.lookup(math.sin)
    assert numpy_sin.adjoint.source == math_sin.adjoint.source == (
        "def sin(y, x):\n    d[x] += d[y] * xp.cos(x)\n")
    assert numpy_sin.adjoint.namespace["xp"] is np
    assert math_sin.adjoint.namespace["xp"] is math


def test_binary_sums_numpy_adjoints_back_and_derives_the_tangent():
    multiply = registry.lookup(np.multiply)
    assert multiply.adjoint.source == (
        "def multiply(z, x, y):\n"
        "    d[x] += rt.unbroadcast(d[z] * y, x)\n"
        "    d[y] += rt.unbroadcast(x * d[z], y)\n")
    assert multiply.tangent.source == "def multiply(z, x, y):\n    d[z] = d[x] * y + x * d[y]\n"
    subtract = registry.lookup(operator.sub)
    assert "d[y] -= rt.unbroadcast(d[z], y)" in subtract.adjoint.source
    assert "d[z] = d[x] - d[y]" in subtract.tangent.source
    # a math function's arguments are floats: nothing to sum back
    assert "unbroadcast" not in registry.lookup(math.pow).adjoint.source


def test_multilinear_tangent_puts_one_tangent_at_a_time():
    assert registry.lookup(np.outer).tangent.source.endswith(
        "d[z] = np.outer(d[x], y) + np.outer(x, d[y])\n")
    assert registry.lookup(runtime.dot_adjoint_left).linear_in == (0, 2)


def test_template_location_names_the_rule_helper_line():
    where = registry.lookup(np.tanh).adjoint.where
    assert where.startswith(os.path.join(TEMPLATES, "numpy_elementwise.py") + ":")


def test_no_template_module_imports_the_api():
    """Templates sit at the lowest layer: they may import the registry, the runtime and
    analysis helpers, never srcad.api (or anything that imports it)."""
    for name in sorted(os.listdir(TEMPLATES)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(TEMPLATES, name)) as stream:
            tree = ast.parse(stream.read())
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] + [
                    "%s.%s" % (node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                assert module.split(".")[:2] not in (["srcad", "api"], ["srcad", "modes"],
                                                     ["srcad", "pipeline"]), (name, module)


# ---- the helpers used for a user's own function


def cube(x):
    return x * x * x


def cubed_sum(x):
    return np.sum(cube(x))


def _register_cube():
    if registry.lookup(cube) is None:
        vocabulary.elementwise(cube, derivative="g * 3.0 * x * x")


def test_elementwise_registers_a_working_adjoint_and_tangent_for_a_user_function():
    _register_cube()
    x = np.array([0.5, -1.0, 2.0])
    assert_close(srcad.grad(cubed_sum)(x), numeric_grad(cubed_sum, (x,), 0))
    t = np.array([1.0, 0.5, -2.0])
    _, forward = srcad.jvp(cubed_sum, (x,), (t,))
    assert_close(forward, np.dot(3.0 * x * x, t))
    assert "3.0 * " in srcad.source(cubed_sum)  # called, not inlined: its template is pasted


def test_linear_needs_a_tangent_when_it_cannot_spell_the_function():
    def scaled(x):
        return 2.0 * x

    with pytest.raises(ValueError, match="give its tangent"):
        vocabulary.linear(scaled, parameters="y, x", transpose="2.0 * g")


def test_a_malformed_rule_is_a_template_error_when_first_used():
    def halved(x):
        return 0.5 * x

    vocabulary.linear(halved, parameters="y, x", transpose="0.5 * g", tangent="0.5 * d[x]")
    template = registry.lookup(halved).adjoint
    assert template.body  # well formed
    template.source = "def halved(y, x):\n    if x:\n        d[x] += d[y]\n"
    template._body = None
    with pytest.raises(TemplateError, match="cannot paste"):
        template.body


def log_gaussian(x):
    return -0.5 * x * x


def gaussian(x):
    return np.exp(-0.5 * x * x)


def gaussian_sum(x):
    return np.sum(gaussian(x))


def test_exp_of_makes_a_density_from_its_log_density():
    if registry.lookup(log_gaussian) is None:
        vocabulary.elementwise(log_gaussian, derivative="-g * x")
        vocabulary.exp_of((gaussian, log_gaussian))
    x = np.array([0.5, -1.0, 2.0])
    assert_close(srcad.grad(gaussian_sum)(x), numeric_grad(gaussian_sum, (x,), 0))
    t = np.array([1.0, 0.5, -2.0])
    _, forward = srcad.jvp(gaussian_sum, (x,), (t,))
    assert_close(forward, np.dot(-x * gaussian(x), t))
    assert registry.lookup(gaussian).shape_rule is registry.lookup(log_gaussian).shape_rule


def test_exp_of_refuses_a_log_density_template_that_reads_its_own_value():
    def log_twice(x):
        return 2.0 * x

    def twice(x):
        return np.exp(2.0 * x)

    vocabulary.elementwise(log_twice, derivative="g * y / x")  # reads y itself
    with pytest.raises(ValueError, match="reads y itself"):
        vocabulary.exp_of((twice, log_twice))
