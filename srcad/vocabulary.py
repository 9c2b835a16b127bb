"""Rule helpers: most primitives' templates in one line each.

A helper writes the adjoint and tangent templates an author would write by
hand (DESIGN.md's notation), as source text, and registers them on the
primitive's record (registry.Primitive) with the facts that follow from the
kind of rule. Its templates are parsed and pasted like hand-written ones, so
the code they generate is the same. Derivatives are Python expressions over
the template's parameters and ``g``, the derivative flowing through:

* ``elementwise(np.sin, math.sin, "g * xp.cos(x)")``: y = f(x) elementwise. The
  adjoint is ``d[x] += <expression with g = d[y]>``, the tangent ``d[y] =
  <expression with g = d[x]>``; a leading minus makes the adjoint ``d[x] -= ...``.
  ``xp`` is the primitive's own module (NumPy, or ``math`` for a math function),
  so one entry serves np.sin and math.sin.
* ``binary(operator.mul, np.multiply, "g * y", "x * g")``: z = f(x, y), given the
  derivative flowing to x and to y. The adjoints of a NumPy (or operator) function
  are summed back to each argument's shape with ``rt.unbroadcast``; a math
  function's arguments are floats and need none. The tangent is the sum of both
  terms with g = d[x] and g = d[y], unless ``tangent=`` says otherwise.
* ``linear(rt.unbroadcast, "y, g, x", transpose="rt.unbroadcast(g, g)")``: y = f(g,
  ...) linear in its first argument. The adjoint applies the transposed map (an
  expression of g = d[y] and the parameters); the tangent is f applied to the
  argument's tangent, every other argument unchanged (as autograd's ``def_linear``
  and JAX's ``deflinear``). Its record says it is linear in that argument.

Anything these do not fit is written as a pair of templates with ``@adjoint`` and
``@tangent`` (registry.py), in the same file.
"""

from __future__ import annotations

import math
import re
import sys

import numpy as np

from . import registry, runtime
from .analysis import shapes
from .registry import Template, d

_G = re.compile(r"\bg\b")


def elementwise(*primitives: object, derivative: str, shape=None) -> None:
    """y = f(x) applied elementwise; ``derivative`` is what flows through, from g."""
    origin, caller = _caller()
    sign, term = _sign(derivative)
    for primitive in primitives:
        namespace = _namespace(caller, primitive)
        _register(primitive, "adjoint", "y, x",
                  ["d[x] %s= %s" % (sign, _with_g(term, "d[y]"))], namespace, origin)
        _register(primitive, "tangent", "y, x",
                  ["d[y] = %s" % _with_g(derivative, "d[x]")], namespace, origin)
        registry.shape_rule(shape or _elementwise_shape(primitive), primitive)


def binary(*primitives: object, dx: str, dy: str, tangent: str | None = None,
           unbroadcast: bool | None = None, shape=None) -> None:
    """z = f(x, y): ``dx`` and ``dy`` are what flows to x and to y, from g.

    ``unbroadcast=False``: arguments that never broadcast (Python's min and max).
    A math function gets the shape rule of Python floats; others get ``shape``, if
    given.
    """
    origin, caller = _caller()
    (sign_x, term_x), (sign_y, term_y) = _sign(dx), _sign(dy)
    if tangent is None:
        tangent = "%s %s %s" % (_with_g(dx, "d[x]"), "-" if sign_y == "-" else "+",
                                _with_g(term_y, "d[y]"))
    for primitive in primitives:
        namespace = _namespace(caller, primitive)
        summed = namespace["xp"] is not math if unbroadcast is None else unbroadcast
        adjoint = []
        for name, sign, term in (("x", sign_x, term_x), ("y", sign_y, term_y)):
            flowing = _with_g(term, "d[z]")
            if summed:
                flowing = "rt.unbroadcast(%s, %s)" % (flowing, name)
            adjoint.append("d[%s] %s= %s" % (name, sign, flowing))
        _register(primitive, "adjoint", "z, x, y", adjoint, namespace, origin)
        _register(primitive, "tangent", "z, x, y", ["d[z] = %s" % tangent], namespace, origin)
        if namespace["xp"] is math:
            registry.shape_rule(shapes.python_float, primitive)
        elif shape is not None:
            registry.shape_rule(shape, primitive)


def linear(*primitives: object, parameters: str, transpose: str, tangent: str | None = None,
           shape=None) -> None:
    """y = f(a, ...) linear in a: ``parameters`` "y, a, ..." (result first); ``transpose``
    is the adjoint flowing back to a, from g = d[y]."""
    origin, caller = _caller()
    names = [p.split("=")[0].strip(" *") for p in parameters.split(",")]
    result, argument, rest = names[0], names[1], names[2:]
    for primitive in primitives:
        namespace = _namespace(caller, primitive)
        applied = tangent
        if applied is None:
            applied = "%s(%s)" % (_spelling(primitive), ", ".join(
                ["d[%s]" % argument] + rest))
        _register(primitive, "adjoint", parameters,
                  ["d[%s] += %s" % (argument, _with_g(transpose, "d[%s]" % result))],
                  namespace, origin)
        _register(primitive, "tangent", parameters, ["d[%s] = %s" % (result, applied)],
                  namespace, origin)
        registry.facts(primitive, linear_in=(0,))
        if shape is not None:
            registry.shape_rule(shape, primitive)


# ---- helpers of the helpers


def _caller():
    """Where the rule was written ("file:line") and that module's globals."""
    frame = sys._getframe(2)
    return "%s:%d" % (frame.f_code.co_filename, frame.f_lineno), frame.f_globals


def _sign(expression: str):
    """("-", rest) for an expression with a leading minus, else ("+", expression)."""
    expression = expression.strip()
    if expression.startswith("-"):
        return "-", expression[1:].lstrip()
    return "+", expression


def _with_g(expression: str, derivative: str) -> str:
    return _G.sub(derivative, expression)


def _module_of(primitive):
    return math if getattr(primitive, "__module__", None) == "math" else np


def _namespace(caller: dict, primitive) -> dict:
    namespace = dict(caller)
    namespace.update(d=d, rt=runtime, xp=_module_of(primitive))
    return namespace


def _elementwise_shape(primitive):
    return shapes.python_float if _module_of(primitive) is math else shapes.elementwise


def _spelling(primitive) -> str:
    """How a tangent template calls ``primitive`` itself (``rt.unbroadcast``, ``np.sum``)."""
    name = primitive.__name__
    if getattr(runtime, name, None) is primitive:
        return "rt." + name
    if getattr(np, name, None) is primitive:
        return "np." + name
    raise ValueError("linear(%s): give its tangent (tangent=...)" % registry.describe(primitive))


def _register(primitive, kind: str, parameters: str, statements: list, namespace: dict,
              origin: str) -> None:
    name = re.sub(r"\W", "_", getattr(primitive, "__name__", None) or "primitive")
    source = "def %s(%s):\n%s" % (name, parameters, "".join("    %s\n" % s for s in statements))
    scope = {}
    exec(compile(source, "<%s template of %s, %s>" % (kind, registry.describe(primitive),
                                                       origin), "exec"), namespace, scope)
    registry.set_template(primitive, Template(scope[name], kind, source=source, origin=origin))
