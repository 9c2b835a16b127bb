"""jvp, vjp, jacobian, hessian and hvp: the public functions beyond ``grad``.

Each is a thin wrapper over pipeline.py, caching generated code on the
function object like ``grad`` does (srcad/cache.py) and specializing it on
the kinds of the arguments it is called with.
"""

from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from . import arguments, cache, derived, persistent_cache, pipeline, recursion
from .analysis import shapes
from .errors import InvalidArgumentError
from .transform.forward import ForwardRequest
from .transform.reverse import ReverseRequest


class _Specializations:
    """Generated code for one request, one compiled function per tuple of argument kinds."""

    def __init__(self, generate):
        self.generate = generate
        self.functions = {}
        self.lock = threading.Lock()

    def function_for(self, values):
        kinds = tuple(map(shapes.of_value, values))
        generated = self.functions.get(kinds)
        if generated is None:
            with self.lock:
                generated = self.functions.get(kinds)
                if generated is None:
                    generated = self.functions[kinds] = self.generate(kinds)
                    cache.statistics["generated"] += 1
        return generated


def _cached(function, key, make):
    found = cache.lookup(function, key)
    if found is None:
        found = make()
        cache.store(function, key, found)
    return found


def _params(function):
    return list(derived.signature_of_target(function).parameters)


def _forward(function, names, enabled, tangent_only=False) -> _Specializations:
    request = ForwardRequest(wrt=list(names), tangent_only=tangent_only)
    return _cached(function, ("jvp", tuple(names), tangent_only, enabled),
                   lambda: _Specializations(lambda kinds: persistent_cache.generate_forward(
                       function, request, kinds, enabled=enabled)))


def _reverse_vjp(function, enabled, names) -> _Specializations:
    """Cotangents for the parameters ``names`` (not a bound method's self, not a string...)."""
    cotangent = recursion.cotangent_name(_params(function))
    request = ReverseRequest(wrt=list(names), single=False, seed=cotangent,
                             check_scalar_output=False, extra_params=[cotangent])
    return _cached(function, ("vjp", enabled, tuple(names)),
                   lambda: _Specializations(lambda kinds: persistent_cache.generate_reverse(
                       function, request, kinds, name="vjp_" + function.__name__,
                       enabled=enabled)))


def _code(target, args):
    """The plain function to differentiate for these (complete) arguments."""
    if isinstance(target, derived.Made):
        return target.code_for(tuple(map(shapes.of_value, args)))
    return target


def _not_differentiable(what, reason, hint, signature, function):
    """Register ``what`` (a function srcad made) as one srcad cannot differentiate."""
    derived.register(what, derived.Made(
        name=reason[0], signature=signature, origin=derived.origin_of(function),
        reason=reason[1], hint=hint))
    return what


_HIGHER_ORDER_HINT = ("srcad differentiates the functions srcad.grad and srcad.value_and_grad "
                      "return (srcad.jacobian(srcad.grad(f)) is f's Hessian; nest srcad.grad "
                      "for higher derivatives), or a Python function that computes the same.")


def _held(inner, first):
    """``inner`` with its first arguments ``first`` (a bound method's self) given."""

    @functools.wraps(inner)
    def bound(*args, **kwargs):
        return inner(*first, *args, **kwargs)

    del bound.__wrapped__  # srcad made it: a bound derivative, never the function it wraps
    return derived.register_bound(bound, inner, first[0])


def jvp(function, primals, tangents, *, optimize=True):
    """Forward mode: ``(f(*primals), J·tangents)``.

    ``tangents`` has one entry per primal; ``None`` marks an argument that is
    held constant. A tangent has its primal's shape. Parameters with defaults
    that ``primals`` leave out take their defaults, held constant.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise InvalidArgumentError("jvp needs one tangent per primal (None for a constant); "
                                   "got %d primals and %d tangents"
                                   % (len(primals), len(tangents)))
    function, first = derived.split_bound(function)
    if first is not None:  # self is held constant
        primals, tangents = first + primals, (None,) * len(first) + tangents
    target = derived.target_of(function)
    primals = arguments.bind(derived.signature_of_target(target), primals, {})
    tangents = tangents + (None,) * (len(primals) - len(tangents))
    params = _params(target)
    positions = [i for i, t in enumerate(tangents) if t is not None]
    names = [params[i] for i in positions]
    given = [tangents[i] for i in positions]
    arguments.check(derived.origin_of(target), names, [primals[i] for i in positions])
    arguments.check(derived.origin_of(target), names, given, what="take a tangent for")
    code = _code(target, primals)
    specializations = _forward(code, names, pipeline.optimizations(optimize))
    generated = specializations.function_for(primals + tuple(given))
    return generated.function(*primals, *given)


def vjp(function, *primals, optimize=True):
    """Reverse mode for any output: ``(f(*primals), vjp_fn)``.

    ``vjp_fn(cotangent)`` returns a tuple with one cotangent per primal, each
    of its primal's shape (None for a primal that has no derivative: a string,
    a function, None, a bool); ``cotangent`` has the output's shape.
    """
    return _vjp(function, primals, None, optimize)


def _vjp(function, primals, wanted, optimize):
    """vjp, with cotangents for the parameter positions ``wanted`` only (None: every primal)."""
    given = len(primals)
    function, first = derived.split_bound(function)
    held = 0
    if first is not None:  # self is held constant: no cotangent for it
        primals, held = first + tuple(primals), len(first)
        given += held
    target = derived.target_of(function)
    primals = arguments.bind(derived.signature_of_target(target), primals, {})
    params = _params(target)
    if wanted is None:
        wanted = [i for i in range(held, len(primals))
                  if arguments.nondifferentiable(primals[i]) is None]
    code = _code(target, primals)
    output = code(*primals)
    enabled = pipeline.optimizations(optimize)
    specializations = (_reverse_vjp(code, enabled, [params[i] for i in wanted])
                       if wanted else None)

    def vjp_fn(cotangent):
        cotangents = [None] * len(primals)
        if specializations is not None:
            generated = specializations.function_for(primals + (cotangent,))
            for position, value in zip(wanted, generated.function(*primals, cotangent)):
                cotangents[position] = value
        return tuple(cotangents[held:given])

    _not_differentiable(vjp_fn, ("srcad.vjp(%s)" % derived.name_of(target),
                                 "srcad does not differentiate vjp functions"),
                        _HIGHER_ORDER_HINT, inspect.Signature([inspect.Parameter(
                            "cotangent", inspect.Parameter.POSITIONAL_OR_KEYWORD)]), target)
    return output, vjp_fn


def _wrt_positions(target, wrt):
    params = _params(target)
    what = derived.name_of(target)
    single = not isinstance(wrt, (tuple, list))
    if not single and not wrt:
        raise InvalidArgumentError("wrt is empty: name at least one argument to differentiate")
    positions = []
    for item in [wrt] if single else wrt:
        if isinstance(item, str):
            if item not in params:
                raise InvalidArgumentError("wrt=%r is not a parameter of %s" % (item, what))
            item = params.index(item)
        if isinstance(item, bool) or not isinstance(item, int) or not -len(params) <= item < len(
                params):
            raise InvalidArgumentError("wrt=%r is not a parameter position of %s"
                                       % (item, what))
        positions.append(item % len(params))
    return positions, single


def _check_wrt(target, positions, args):
    params = _params(target)
    arguments.check(derived.origin_of(target), [params[p] for p in positions],
                    [args[p] for p in positions])


def jacobian(function, wrt=0, mode: str = "reverse", *, optimize=True):
    """A function of the same arguments returning the Jacobian, shaped output.shape + input.shape.

    ``mode="reverse"`` computes it row by row (one vjp per output element),
    ``mode="forward"`` column by column (one jvp per input element).
    """
    if mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r" % (mode,))
    unbound, first = derived.split_bound(function)
    if first is not None:  # as grad does: self held constant, wrt counted after it
        from .api import _shift_positions

        inner = jacobian(unbound, _shift_positions(wrt, len(first)), mode, optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    positions, single = _wrt_positions(target, wrt)

    def jacobian_function(*args, **kwargs):
        args = arguments.bind(signature, args, kwargs)
        _check_wrt(target, positions, args)
        if mode == "reverse":
            output, vjp_fn = _vjp(function, args, positions, optimize)
            out_shape = np.shape(output)
            blocks = [np.zeros(out_shape + np.shape(args[p])) for p in positions]
            for index in np.ndindex(*out_shape):
                cotangent = np.zeros(out_shape)
                cotangent[index] = 1.0
                cotangents = vjp_fn(cotangent if out_shape else 1.0)
                for block, p in zip(blocks, positions):
                    block[index] = cotangents[p]
        else:
            output = function(*args)
            out_shape = np.shape(output)
            blocks = []
            for p in positions:
                in_shape = np.shape(args[p])
                block = np.zeros(out_shape + in_shape)
                for index in np.ndindex(*in_shape):
                    tangent = np.zeros(in_shape)
                    tangent[index] = 1.0
                    tangents = [None] * len(args)
                    tangents[p] = tangent if in_shape else 1.0
                    _, output_tangent = jvp(function, args, tangents, optimize=optimize)
                    block[(Ellipsis,) + index] = output_tangent
                blocks.append(block)
        blocks = [float(b) if np.ndim(b) == 0 else b for b in blocks]
        return blocks[0] if single else tuple(blocks)

    jacobian_function.__wrapped__ = function
    return _not_differentiable(
        jacobian_function, ("srcad.jacobian(%s)" % derived.name_of(target),
                            "srcad does not differentiate Jacobian functions"),
        _HIGHER_ORDER_HINT, signature, target)


def hvp(function, wrt=0, *, optimize=True):
    """A function ``(*args, v) -> H·v`` for a scalar function, without forming H.

    Forward over reverse: srcad generates the gradient code, then differentiates
    that generated code in forward mode in direction ``v`` (its loops, branches,
    tape and in-place accumulations included). ``v`` is the last positional
    argument; the others (and keywords) bind to the function's parameters.
    """
    from .api import _shift_positions, grad

    unbound, first = derived.split_bound(function)
    if first is not None:
        inner = hvp(unbound, _shift_positions(wrt, len(first)), optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    positions, single = _wrt_positions(target, wrt)
    if not single:
        raise InvalidArgumentError("hvp differentiates with respect to one argument")
    position = positions[0]
    gradient = grad(function, wrt=position, optimize=pipeline.optimizations(optimize))

    def hvp_function(*args_and_v, **kwargs):
        if not args_and_v:
            raise InvalidArgumentError("the hvp function takes the arguments, then v")
        *args, v = args_and_v
        args = arguments.bind(signature, args, kwargs)
        _check_wrt(target, positions, args)
        generated = gradient.generated_for(*args)
        tangents = [None] * len(args)
        tangents[position] = v
        return jvp(generated.function, args, tangents, optimize=optimize)[1]

    hvp_function.__wrapped__ = function
    return _not_differentiable(  # (its signature leaves out v, which comes last)
        hvp_function, ("srcad.hvp(%s)" % derived.name_of(target),
                       "srcad does not differentiate Hessian-vector product functions"),
        _HIGHER_ORDER_HINT, signature, target)


def hessian(function, wrt=0, *, optimize=True):
    """A function of the same arguments returning the Hessian (input.shape * 2)."""
    from .api import _shift_positions

    unbound, first = derived.split_bound(function)
    if first is not None:
        inner = hessian(unbound, _shift_positions(wrt, len(first)), optimize=optimize)
        return _held(inner, first)
    target = derived.target_of(function)
    signature = derived.signature_of_target(target)
    product = hvp(function, wrt, optimize=optimize)
    position = _wrt_positions(target, wrt)[0][0]

    def hessian_function(*args, **kwargs):
        args = arguments.bind(signature, args, kwargs)
        shape = np.shape(args[position])
        result = np.zeros(shape + shape)
        for index in np.ndindex(*shape):
            direction = np.zeros(shape)
            direction[index] = 1.0
            result[(Ellipsis,) + index] = product(*args, direction if shape else 1.0)
        return float(result) if not shape else result

    hessian_function.__wrapped__ = function
    return _not_differentiable(
        hessian_function, ("srcad.hessian(%s)" % derived.name_of(target),
                           "srcad does not differentiate Hessian functions"),
        _HIGHER_ORDER_HINT, signature, target)
