"""Test utilities: check srcad's derivatives against finite differences.

Two checks, both usable on any function srcad can read (defined in a file):

``check_gradient(f, args, wrt)``
    f returns a scalar. srcad's gradient must match central finite differences
    element by element, and have the type and shape of its argument (a Python
    ``float`` for a Python float argument, an array of the argument's shape
    for an array).

``dot_product_test(f, args, wrt)``
    f may return an array. For random input tangents t and a random output
    cotangent c, ``<J t, c>`` (by default: a finite-difference directional
    derivative) must equal ``<t, J^T c>`` (by default: srcad's reverse-mode
    gradient of ``sum(f(x) * c)``; for a scalar-valued f, c times srcad's
    gradient of f). Both sides are pluggable (``jvp=``, ``vjp=``) so forward
    mode can be checked the same way.

Derivatives are computed along one of two code paths (``PATHS``):

``"specialized"``  ``srcad.grad(f, wrt)(*args)``: code specialized on the
                   kinds of the arguments (Python float, array rank...);
``"generic"``      the unspecialized code srcad generates for arguments of any
                   type (``pipeline.generate_reverse(..., kinds=None)``).

Functions with array outputs are differentiated through ``contract(f)``, a
generated copy of f (written to a real file so srcad can read its source)
whose result is ``sum(f(*args) * cotangent)``. f must be a module-level
function (the copy sees f's globals, not a closure).
"""

from __future__ import annotations

import ast
import atexit
import inspect
import itertools
import os
import shutil
import tempfile
import textwrap

import numpy as np

import srcad
from srcad import pipeline
from srcad.request import ReverseRequest

PATHS = ("specialized", "generic")

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7


# ------------------------------------------------------------------ arguments


def wrt_positions(f, wrt) -> tuple[list[int], bool]:
    """``wrt`` (a position, a name, or a tuple of them) as positions, and whether it is single."""
    params = list(inspect.signature(f).parameters)
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    positions = [params.index(w) if isinstance(w, str) else w % len(params) for w in items]
    return positions, single


def is_python_scalar(value) -> bool:
    return isinstance(value, (float, int)) and not isinstance(value, (bool, np.generic))


def perturbed(value, direction, step):
    """``value + step * direction``, keeping a Python float a Python float."""
    if is_python_scalar(value):
        return float(value + step * direction)
    if isinstance(value, np.generic):
        return type(value)(value + step * direction)
    return np.asarray(value, dtype=float) + step * direction


def random_like(value, rng):
    """A random direction shaped like ``value``: a Python float for a scalar."""
    if np.ndim(value) == 0:
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(value))


def snapshot(args):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def assert_unchanged(args, before):
    for position, (arg, old) in enumerate(zip(args, before)):
        if isinstance(arg, np.ndarray):
            np.testing.assert_array_equal(arg, old, err_msg="argument %d was mutated" % position)


# -------------------------------------------------------- finite differences


def numerical_gradient(f, args, position, eps=EPS):
    """Central finite differences of scalar-valued ``f`` with respect to ``args[position]``."""
    x = args[position]
    if np.ndim(x) == 0:
        hi = list(args)
        lo = list(args)
        hi[position] = perturbed(x, 1.0, eps)
        lo[position] = perturbed(x, 1.0, -eps)
        return float((f(*hi) - f(*lo)) / (2 * eps))
    base = np.asarray(x, dtype=float)
    out = np.zeros(base.shape)
    for index in np.ndindex(base.shape):
        values = []
        for sign in (1.0, -1.0):
            moved = base.copy()
            moved[index] += sign * eps
            call = list(args)
            call[position] = moved
            values.append(f(*call))
        out[index] = (values[0] - values[1]) / (2 * eps)
    return out


def fd_jvp(f, args, positions, tangents, eps=EPS):
    """``J t`` by a central finite difference of ``f`` along the tangents (one per position)."""
    hi = list(args)
    lo = list(args)
    for position, tangent in zip(positions, tangents):
        hi[position] = perturbed(args[position], tangent, eps)
        lo[position] = perturbed(args[position], tangent, -eps)
    return (np.asarray(f(*hi), dtype=float) - np.asarray(f(*lo), dtype=float)) / (2 * eps)


# ------------------------------------------------------------- srcad calls

_generic_cache: dict = {}


def reverse_gradient(f, args, wrt, path="specialized"):
    """srcad's gradient of scalar-valued ``f`` at ``args``, along one of ``PATHS``."""
    if path == "specialized":
        return srcad.grad(f, wrt=wrt)(*args)
    if path == "generic":
        params = list(inspect.signature(f).parameters)
        positions, single = wrt_positions(f, wrt)
        names = [params[p] for p in positions]
        key = (f, tuple(names), single)
        generated = _generic_cache.get(key)
        if generated is None:
            request = ReverseRequest(wrt=names, single=single)
            generated = _generic_cache[key] = pipeline.generate_reverse(f, request, None)
        return generated.function(*args)
    raise ValueError("unknown path %r (expected one of %s)" % (path, PATHS))


_COTANGENT = "cotangent_"
_NUMPY_ALIAS = "numpy_contract_"
_contract_directory = None
_contract_cache: dict = {}
_contract_counter = itertools.count()


def contract(f, scalar_output=False):
    """A copy of ``f`` with an extra last parameter c, returning ``sum(f(*args) * c)``.

    For a scalar-valued f (``scalar_output=True``) it returns ``f(*args) * c``.
    The copy lives in a real file, so srcad can read its source; it sees f's
    globals, so names in f's body mean what they mean in f.
    """
    key = (f, scalar_output)
    if key in _contract_cache:
        return _contract_cache[key]
    global _contract_directory
    if _contract_directory is None:
        _contract_directory = tempfile.mkdtemp(prefix="srcad-gradcheck-")
        atexit.register(shutil.rmtree, _contract_directory, True)
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    definition = tree.body[0]
    assert isinstance(definition, ast.FunctionDef), "contract() needs a def function"
    definition.decorator_list = []
    definition.name = f.__name__ + "_contracted"
    definition.args.args.append(ast.arg(arg=_COTANGENT))
    returned = definition.body[-1]
    assert isinstance(returned, ast.Return), "contract() needs a function ending in return"
    product = ast.BinOp(left=returned.value, op=ast.Mult(),
                        right=ast.Name(id=_COTANGENT, ctx=ast.Load()))
    if not scalar_output:
        product = ast.Call(func=ast.Attribute(value=ast.Name(id=_NUMPY_ALIAS, ctx=ast.Load()),
                                              attr="sum", ctx=ast.Load()),
                           args=[product], keywords=[])
    returned.value = product
    source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    path = os.path.join(_contract_directory,
                        "contract_%d_%s.py" % (next(_contract_counter), f.__name__))
    with open(path, "w") as file:
        file.write(source)
    namespace = dict(f.__globals__)
    namespace[_NUMPY_ALIAS] = np
    exec(compile(source, path, "exec"), namespace)
    contracted = namespace[definition.name]
    _contract_cache[key] = contracted
    return contracted


def reverse_vjp(path="specialized"):
    """A ``vjp(f, args, positions, cotangent)`` computing ``J^T c`` as srcad's grad of <f, c>."""

    def vjp(f, args, positions, cotangent):
        single = len(positions) == 1  # as a check_gradient of the same wrt: one code cache entry
        wrt = positions[0] if single else tuple(positions)
        if np.ndim(cotangent) == 0:  # scalar f: J^T c is c times the gradient
            gradients = reverse_gradient(f, args, wrt, path)
            return [cotangent * g for g in ((gradients,) if single else gradients)]
        gradients = reverse_gradient(contract(f), list(args) + [cotangent], wrt, path)
        return [gradients] if single else list(gradients)

    return vjp


# ------------------------------------------------------------------ checks


def assert_gradient_like(gradient, arg, what="gradient"):
    """A gradient has its argument's kind: a Python float for a Python float, else its shape."""
    if is_python_scalar(arg):
        assert type(gradient) is float, (
            "%s of a Python float argument should be a Python float, got %s (%r)"
            % (what, type(gradient).__name__, gradient))
        return
    assert np.shape(gradient) == np.shape(arg), (
        "%s has shape %s, its argument has shape %s" % (what, np.shape(gradient), np.shape(arg)))
    if isinstance(arg, np.ndarray) and arg.ndim:
        assert isinstance(gradient, np.ndarray), (
            "%s of an array argument should be an array, got %s" % (what, type(gradient).__name__))
        assert np.issubdtype(gradient.dtype, np.floating), "%s has dtype %s" % (what, gradient.dtype)


def assert_close(actual, expected, rtol=RTOL, atol=ATOL, what="gradient"):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        raise AssertionError("%s differs from finite differences:\nsrcad:   %r\nnumeric: %r\n"
                             "max abs error %.3g" % (what, actual, expected,
                                                      np.max(np.abs(actual - expected))))


def check_gradient(f, args, wrt=0, path="specialized", eps=EPS, rtol=RTOL, atol=ATOL):
    """srcad's gradient of scalar-valued ``f`` vs central finite differences, with types.

    Returns the numerical gradients (one per wrt argument), so callers can
    check the case is not vacuous.
    """
    args = list(args)
    positions, single = wrt_positions(f, wrt)
    before = snapshot(args)
    gradients = reverse_gradient(f, args, wrt, path)
    assert_unchanged(args, before)
    if single:
        gradients = (gradients,)
    else:
        assert isinstance(gradients, tuple) and len(gradients) == len(positions), (
            "expected a tuple of %d gradients, got %r" % (len(positions), gradients))
    numerics = []
    for position, gradient in zip(positions, gradients):
        what = "gradient for argument %d" % position
        assert_gradient_like(gradient, args[position], what)
        numeric = numerical_gradient(f, args, position, eps)
        assert_close(gradient, numeric, rtol, atol, what)
        numerics.append(numeric)
    return numerics


def dot_product_test(f, args, wrt=0, *, path="specialized", jvp=fd_jvp, vjp=None, rng=None,
                     trials=2, rtol=RTOL, atol=ATOL):
    """Check ``<J t, c> == <t, J^T c>`` for random tangents t and cotangents c.

    ``jvp(f, args, positions, tangents) -> J t`` (default: finite differences);
    ``vjp(f, args, positions, cotangent) -> [J_i^T c]`` (default: srcad's
    reverse mode along ``path``, on ``sum(f(x) * c)``). Checks the types and
    shapes of what vjp returns too.
    """
    args = list(args)
    positions, _ = wrt_positions(f, wrt)
    vjp = vjp or reverse_vjp(path)
    rng = rng if rng is not None else np.random.default_rng(0)
    output = f(*args)
    for _ in range(trials):
        tangents = [random_like(args[p], rng) for p in positions]
        cotangent = random_like(output, rng)
        before = snapshot(args)
        cotangents = vjp(f, args, positions, cotangent)
        assert_unchanged(args, before)
        assert len(cotangents) == len(positions)
        for position, value in zip(positions, cotangents):
            assert_gradient_like(value, args[position], "J^T c for argument %d" % position)
        lhs = float(np.sum(np.asarray(jvp(f, args, positions, tangents)) * cotangent))
        terms = [np.sum(np.asarray(t) * np.asarray(v)) for t, v in zip(tangents, cotangents)]
        rhs = float(np.sum(terms))
        scale = sum(float(np.sum(np.abs(np.asarray(t) * np.asarray(v))))
                    for t, v in zip(tangents, cotangents))
        assert abs(lhs - rhs) <= rtol * max(scale, abs(lhs)) + atol, (
            "dot-product test failed: <J t, c> = %r but <t, J^T c> = %r" % (lhs, rhs))
