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

import inspect
import threading

from . import cache

_lock = threading.RLock()


def vjp_of(function):
    """The generated vector-Jacobian product of ``function`` (cached on the function)."""
    cached = cache.lookup(function, "vjp_of")
    if cached is not None:
        return cached
    with _lock:
        from .pipeline import generate_reverse
        from .transform.reverse import ReverseRequest

        params = list(inspect.signature(function, follow_wrapped=False).parameters)
        cotangent = cotangent_name(params)
        request = ReverseRequest(wrt=params, single=False, seed=cotangent,
                                 check_scalar_output=False, extra_params=[cotangent])
        generated = generate_reverse(function, request, None,
                                     name="vjp_%s" % function.__name__)
        cache.store(function, "vjp_of", generated.function)
        return generated.function


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
    cached = cache.lookup(function, "jvp_of")
    if cached is not None:
        return cached
    with _lock:
        from .pipeline import generate_forward
        from .transform.forward import ForwardRequest

        params = list(inspect.signature(function, follow_wrapped=False).parameters)
        generated = generate_forward(function, ForwardRequest(wrt=params), None,
                                     name="jvp_%s" % function.__name__)
        cache.store(function, "jvp_of", generated.function)
        return generated.function
