"""Vector-Jacobian products of recursive functions, for the calls srcad cannot inline.

Generated code differentiates a call ``y = f(a, b)`` to a recursive function
(one that calls itself, directly or through helpers) with::

    f_grads = vjp_of(f)(a, b, y_bar)        # recomputes f(a, b), then its adjoint
    a_bar = a_bar + f_grads[0]

``vjp_of(f)`` generates, once per function, ``vjp_f(a, b, cotangent)``: f's
primal sweep and its adjoint seeded with ``cotangent``, returning the
adjoint of every parameter. Inside it, f's own recursive call is again
differentiated this way, so each level recomputes the level below it: the
cost grows with the square of the depth, which is fine for the shallow
recursions (a function calling itself with a decreasing integer) it is for.
"""

from __future__ import annotations

import threading

from .cache import memory

_lock = threading.RLock()

# How to generate the derivative of one function, installed by the driver (srcad/pipeline.py)
# when it is imported: generated code calls vjp_of and jvp_of at run time, the transforms
# name them in the code they write, and neither may import the driver above them.
_generators: dict = {}


def install_generators(*, vjp, jvp) -> None:
    """The driver's ``vjp(function)`` and ``jvp(function)``, each giving a compiled function."""
    _generators["vjp"] = vjp
    _generators["jvp"] = jvp


def vjp_of(function):
    """The generated vector-Jacobian product of ``function`` (cached per function)."""
    return _made("vjp_of", function)


def _made(kind, function):
    """The generated ``kind`` of ``function``, made once per function (cache/memory.py)."""
    made = memory.lookup(function, kind, counted=False)
    if made is not None:
        return made
    with _lock:
        made = memory.lookup(function, kind, counted=False)
        if made is None:
            made = _generators[kind[:3]](function)
            memory.store(function, kind, made)
        return made


def cotangent_name(params) -> str:
    """The name of a vjp's cotangent parameter: ``cotangent``, unless a parameter has it.

    (The vjp of generated vjp code, e.g. grad of grad of a recursive function, has one.)
    """
    name, number = "cotangent", 1
    while name in params:
        number += 1
        name = "cotangent_%d" % number
    return name


def jvp_of(function):
    """The generated jvp of ``function`` (all parameters with tangents), cached per function.

    ``jvp_f(a, b, a_dot, b_dot) -> (value, tangent)``; forward mode through a
    recursive call calls it.
    """
    return _made("jvp_of", function)
