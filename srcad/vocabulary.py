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
* ``linear(rt.unbroadcast, parameters="y, a, x", transpose="rt.unbroadcast(g, a)")``:
  y = f(a, ...) linear in its first argument. The adjoint applies the transposed
  map (an expression of g = d[y] and the parameters); the tangent is f applied to
  the argument's tangent, every other argument unchanged (as autograd's
  ``def_linear`` and JAX's ``deflinear``). Its record says it is linear there.
* ``multilinear(np.outer, parameters="z, x, y", transposes={"x": ..., "y": ...})``:
  linear in each of several arguments (JAX's ``defbilinear``); the tangent is the
  sum of f with one argument's tangent in its place at a time.
* ``reduction(np.sum, np.ndarray.sum, transpose="rt.expand_reduced(g, x, axis,
  keepdims)")``: a linear reduction with NumPy's ``axis``/``keepdims`` parameters.

Anything these do not fit is written as a pair of templates with ``@adjoint`` and
``@tangent`` (registry.py), in the same file.
"""

from __future__ import annotations

import ast
import math
import re
import sys

import gast
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
           call: str | None = None, shape=None, _depth: int = 2) -> None:
    """y = f(a, ...) linear in a: ``parameters`` "y, a, ..." (result first); ``transpose``
    is the adjoint flowing back to a, from g = d[y]."""
    argument = _names(parameters)[1]
    multilinear(*primitives, parameters=parameters, transposes={argument: transpose},
                tangent=tangent, call=call, shape=shape, _depth=_depth + 1)


def multilinear(*primitives: object, parameters: str, transposes: dict,
                tangent: str | None = None, call: str | None = None, shape=None,
                _depth: int = 2) -> None:
    """y = f(...) linear in each argument named in ``transposes`` separately (a product,
    np.dot, the dot-adjoint helpers). ``transposes`` maps each to the adjoint flowing back
    to it, from g = d[y]. Unless given, the tangent is the sum over those arguments of f
    applied with that argument's tangent in its place (``call`` spells f, when it is not
    ``np.name`` or ``rt.name``)."""
    origin, caller = _caller(_depth)
    names = _names(parameters)
    result, arguments = names[0], names[1:]
    for primitive in primitives:
        namespace = _namespace(caller, primitive)
        applied = tangent
        if applied is None:
            spelled = call or _spelling(primitive)
            applied = " + ".join("%s(%s)" % (spelled, ", ".join(
                "d[%s]" % a if a == linear_argument else a for a in arguments))
                for linear_argument in transposes)
        adjoint = ["d[%s] += %s" % (argument, _with_g(transpose, "d[%s]" % result))
                   for argument, transpose in transposes.items()]
        _register(primitive, "adjoint", parameters, adjoint, namespace, origin)
        _register(primitive, "tangent", parameters, ["d[%s] = %s" % (result, applied)],
                  namespace, origin)
        registry.facts(primitive, linear_in=[arguments.index(a) for a in transposes])
        if shape is not None:
            registry.shape_rule(shape, primitive)


def reduction(*primitives: object, transpose: str) -> None:
    """y = f(x, axis=None, dtype=None, out=None, keepdims=False), linear in x (np.sum,
    np.mean and their methods): ``transpose`` spreads g = d[y] back over x's shape. The
    tangent reduces the tangent the same way; the result is a fresh array."""
    name = primitives[0].__name__
    linear(*primitives, parameters="y, x, axis=None, dtype=None, out=None, keepdims=False",
           transpose=transpose, tangent="np.%s(d[x], axis=axis, keepdims=keepdims)" % name,
           shape=shapes.reduction, _depth=3)
    registry.facts(*primitives, allocating=True)


# ---- helpers of the helpers


def formula(*primitives: object, kind: str, parameters: str, lines: list) -> None:
    """A template written as text (``kind`` "adjoint" or "tangent", with ``d[...]`` as in a
    decorated one): one formula for several primitives, or a family of formulas made by a
    function (a density and its log share all but a factor)."""
    origin, caller = _caller()
    for primitive in primitives:
        _register(primitive, kind, parameters, lines, _namespace(caller, primitive), origin)


def exp_of(*pairs: tuple) -> None:
    """Each ``(density, log_density)`` pair, density = exp(log_density) (a pdf and its
    logpdf): the log density's templates, the derivative flowing in multiplied by y in the
    adjoint, the tangent multiplied by y; its shape rule and constraints (those registered
    before the call). The log density's templates may read y only in d[y]."""
    origin, _ = _caller()
    for density, log_density in pairs:
        entry = registry.lookup(log_density)
        for kind in ("adjoint", "tangent"):
            template = getattr(entry, kind)
            result = next(iter(template.signature.parameters))
            lines = [ast.unparse(_ScaledByResult(result, kind).visit(gast.gast_to_ast(
                statement))) for statement in template.body]
            _register(density, kind, str(template.signature)[1:-1], lines,
                      _namespace(template.function.__globals__, density), origin)
        if entry.shape_rule is not None:
            registry.shape_rule(entry.shape_rule, density)
        for check in entry.constraints:
            registry.constraint(check, density)


class _ScaledByResult(ast.NodeTransformer):
    """A log density's template statement as its density's: d[y] read becomes y * d[y]
    (adjoint); d[y] = e becomes d[y] = y * (e) (tangent)."""

    def __init__(self, result: str, kind: str):
        self.result, self.kind = result, kind

    def _is_derivative(self, node) -> bool:
        return (type(node) is ast.Subscript and type(node.value) is ast.Name
                and node.value.id == "d" and type(node.slice) is ast.Name
                and node.slice.id == self.result)

    def visit_Assign(self, node):
        if self.kind == "tangent" and len(node.targets) == 1 and self._is_derivative(
                node.targets[0]):
            node.value = ast.BinOp(ast.Name(self.result, ast.Load()), ast.Mult(),
                                   self.visit(node.value))
            return node
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if self._is_derivative(node) and type(node.ctx) is ast.Load:
            return ast.BinOp(ast.Name(self.result, ast.Load()), ast.Mult(), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.result:  # the log density's own value: not the density's
            raise ValueError("exp_of: the template reads %s itself" % self.result)
        return node


def no_derivative_in(*names: str, why: str):
    """A constraint (registry.constraint): no derivative may flow into the parameters
    ``names`` of a call, ``why`` saying what they are; the error names the first that
    would get one."""
    def check(arguments, carries, resolve):
        for name in names:
            if name in arguments and carries(arguments[name]):
                return (("srcad has no derivative of this function in its argument %r (%s)"
                         % (name, why)),
                        "Hold %s constant (srcad.stop_gradient), or write the function out "
                        "with functions srcad differentiates." % name)
        return None
    return check


def _names(parameters: str) -> list:
    return [p.split("=")[0].strip(" *") for p in parameters.split(",")]


def _caller(depth: int = 2):
    """Where the rule was written ("file:line") and that module's globals (``depth``
    frames up: the helper's caller, past helpers that call helpers)."""
    frame = sys._getframe(depth)
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


_RESERVED = frozenset(("g", "d", "rt", "xp"))


def _register(primitive, kind: str, parameters: str, statements: list, namespace: dict,
              origin: str) -> None:
    clashing = _RESERVED.intersection(_names(parameters))
    if clashing:  # g would be replaced by the derivative flowing through, d/rt/xp shadowed
        raise ValueError("%s (%s): a parameter may not be named %s: the rule helpers use "
                         "that name; rename it" % (registry.describe(primitive), origin,
                                                   ", ".join(sorted(clashing))))
    name = re.sub(r"\W", "_", getattr(primitive, "__name__", None) or "primitive")
    source = "def %s(%s):\n%s" % (name, parameters, "".join("    %s\n" % s for s in statements))
    scope = {}
    exec(compile(source, "<%s template of %s, %s>" % (kind, registry.describe(primitive),
                                                       origin), "exec"), namespace, scope)
    registry.set_template(primitive, Template(scope[name], kind, source=source, origin=origin))
