"""The public functions: thin wrappers over pipeline.py."""

from __future__ import annotations

import functools
import types

import numpy as np

from . import arguments, cache, derived, pipeline, trees
from .analysis import shapes
from .cache import disk, generation
from .cache.specializations import Specializations
from .errors import InvalidArgumentError, NonScalarOutputError, ValueDependentCallError
from .request import (
    ForwardRequest,
    Request,
    ReverseRequest,
    optimizations,
    parse_wrt,
    shift_positions,
)


def _derivative(function, wrt, *, kind, has_aux=False, optimize=True, **options):
    if function is None:  # @srcad.grad(wrt=...)
        return lambda f: _derivative(f, wrt, kind=kind, has_aux=has_aux, optimize=optimize,
                                     **options)
    if options:
        raise InvalidArgumentError("unknown option(s): %s" % ", ".join(sorted(options)))
    enabled = optimizations(optimize)
    unbound, first = derived.split_bound(function)
    if first is not None:
        # a bound method (or a bound derivative): differentiate the function, with `self`
        # passed first, and count wrt positions from the first argument after it
        offset_wrt = shift_positions(wrt, len(first))
        inner = _derivative(unbound, offset_wrt, kind=kind, has_aux=has_aux, optimize=enabled)
        return BoundDerivative(inner, first[0])
    target = derived.target_of(function)
    wrt = parse_wrt(target, wrt)
    key = (kind, wrt.names, wrt.single, has_aux, enabled)
    derivative = cache.lookup(function, key)
    if derivative is None:
        request = ReverseRequest(wrt.names, single=wrt.single, has_aux=has_aux,
                                 return_value=(kind == "value_and_grad"), enabled=enabled)
        derivative = Derivative(function, target, request, kind)
        cache.store(function, key, derivative)
    return derivative


class Derivative:
    """What ``srcad.grad(f)`` and ``srcad.value_and_grad(f)`` return.

    Calling it runs the code generated for the arguments' kinds (made at the
    first call with such arguments). ``source`` is the generic code (for
    arguments of any kind), generated when first read; ``source_for(*args)``
    and ``generated_for(*args)`` are the code a call with ``args`` runs.
    ``f``'s unsupported syntax is reported when the Derivative is made.

    ``target`` is what is differentiated: the user's function, or the
    registration of a function srcad made (then its generated code for the
    arguments' kinds is differentiated, srcad/derived.py).
    """

    def __init__(self, function, target, request: Request, kind: str = "grad"):
        functools.update_wrapper(self, function, updated=())
        self.function = function
        self.target = target
        self.kind = kind
        self.request = request
        self.signature = derived.signature_of_target(target)
        params = list(self.signature.parameters)
        self.nparams = len(params)
        self.wrt_positions = tuple(params.index(name) for name in request.wrt)
        self.specialized = Specializations(self.generate)
        self.specializations = self.specialized.table
        self._generic = Specializations(self.generate)  # the code for kinds None, when asked
        # What srcad cannot differentiate fails now, not at the first call. With the
        # persistent cache on, the generic code is made (once per machine: a later process
        # reads it back, the cheapest check there is); off, only the stages that can fail
        # run, and code is generated for the kinds calls bring.
        try:
            if isinstance(target, derived.Made):
                pass  # code srcad generated: differentiated when called
            elif disk.enabled():
                self._generic.for_kinds(None)
            else:
                pipeline.check(request.of(target))
        except ValueDependentCallError:
            pass  # a call through an argument: resolved for the values calls bring
        derived.register(self, derived.Made(
            name="srcad.%s(%s)" % (kind, derived.name_of(target)),
            signature=self.signature, origin=derived.origin_of(target),
            code_for=self.code_for))

    def generate(self, kinds):
        return generation.generate(self.request.of(derived.code_of(self.target, kinds), kinds))

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != self.nparams:
            args = arguments.bind(self.signature, args, kwargs)
        for position in self.wrt_positions:
            if not arguments.plainly_differentiable(args[position]):  # the rest is checked
                self.check(args)
                break
        generated = self.specializations.get(tuple(map(shapes.of_value, args)))
        if generated is None:
            generated = self.specialized.for_values(args)
        try:
            return generated.function(*args)
        except NonScalarOutputError as error:
            if isinstance(self.target, derived.Made):  # say which function is not scalar
                raise self.not_scalar(error) from None
            raise

    def __get__(self, instance, owner=None):
        """As a function would: ``@srcad.grad(wrt=1)`` on a method binds to its instance."""
        return self if instance is None else types.MethodType(self, instance)

    @property
    def generic(self):
        """The generated code for arguments of any kind."""
        return self._generic.for_kinds(None)

    @property
    def source(self) -> str:
        return self.generic.source

    def generated_for(self, *args, **kwargs):
        """The generated code a call with these arguments runs (``.source``, ``.function``)."""
        return self.specialized.for_values(arguments.bind(self.signature, args, kwargs))

    def source_for(self, *args, **kwargs) -> str:
        return self.generated_for(*args, **kwargs).source

    def code_for(self, kinds):
        """The generated code run for arguments of ``kinds`` (None: the generic code)."""
        return (self.generic if kinds is None else self.specialized.for_kinds(kinds)).function

    def check(self, args):
        params = list(self.signature.parameters)
        arguments.check(derived.origin_of(self.target), [params[p] for p in self.wrt_positions],
                        [args[p] for p in self.wrt_positions])

    def not_scalar(self, error):
        name = derived.name_of(self.target)
        return NonScalarOutputError(
            "srcad.%s(%s) differentiates %s, whose result must then be a scalar: %s"
            % (self.kind, name, name, error.message), error.location,
            "Its derivative is a Jacobian: use srcad.jacobian(%s) (for a gradient "
            "srcad.grad(f), srcad.hessian(f) is the same matrix)." % name)

    def __repr__(self):
        return "<srcad.%s(%s)>" % (self.kind, derived.name_of(self.target))


class BoundDerivative:
    """``srcad.grad(obj.method)``: the derivative of the method's function, ``obj`` passed first.

    It has the same attributes as a Derivative, each taking the method's
    arguments (without ``self``); ``source`` and ``specializations`` are those
    of the function's derivative, which has ``self`` as its first parameter.
    """

    def __init__(self, derivative, first):
        functools.update_wrapper(self, derivative, updated=())
        self.derivative = derivative
        self.first = first
        derived.register_bound(self, derivative, first)

    def __call__(self, *args, **kwargs):
        return self.derivative(self.first, *args, **kwargs)

    @property
    def source(self) -> str:
        return self.derivative.source

    @property
    def specializations(self) -> dict:
        return self.derivative.specializations

    def generated_for(self, *args, **kwargs):
        return self.derivative.generated_for(self.first, *args, **kwargs)

    def source_for(self, *args, **kwargs) -> str:
        return self.derivative.source_for(self.first, *args, **kwargs)

    def __repr__(self):
        return "<%r bound to %r>" % (self.derivative, self.first)


def grad(function=None, wrt=0, *, has_aux: bool = False, optimize=True, **options):
    """The gradient of a scalar function with respect to the argument(s) ``wrt``.

    Use as ``srcad.grad(f)``, ``@srcad.grad`` or ``@srcad.grad(wrt=(0, "b"))``.
    ``wrt`` is a position or a parameter name (one gradient), or a tuple of
    them (a tuple of gradients). With ``has_aux=True`` the function returns
    ``(loss, aux)`` and the gradient function returns ``(gradient, aux)``.
    The returned function carries its generated source as ``.source``.
    ``optimize=False`` (or a collection of names from
    ``srcad.pipeline.OPTIMIZATIONS``) turns optimizations off, e.g. to read
    the code exactly as the templates produced it.
    """
    return _derivative(function, wrt, kind="grad", has_aux=has_aux, optimize=optimize,
                       **options)


def value_and_grad(function=None, wrt=0, *, has_aux: bool = False, optimize=True, **options):
    """Like ``grad`` but returns ``(value, gradient)``; with has_aux ``((value, aux), gradient)``."""
    return _derivative(function, wrt, kind="value_and_grad", has_aux=has_aux,
                       optimize=optimize, **options)


def source(function, wrt=0, mode: str = "reverse", *, example_args=None, stages: bool = False,
           has_aux: bool = False, optimize=True, **options) -> str:
    """The generated source of ``function``'s derivative.

    With ``example_args`` the code is specialized for arguments like those
    (as a call with them would run); without, it is the code for arguments
    of any type. ``stages=True`` returns the source after every pipeline stage.
    """
    if mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r" % (mode,))
    if options:
        raise InvalidArgumentError("unknown option(s): %s" % ", ".join(sorted(options)))
    unbound, first = derived.split_bound(function)
    if first is not None:  # as grad does: self first, wrt counted after it
        if example_args is not None:
            example_args = first + tuple(example_args)
        return source(unbound, shift_positions(wrt, len(first)), mode,
                      example_args=example_args, stages=stages, has_aux=has_aux,
                      optimize=optimize)
    generated = generate(function, wrt, mode, example_args=example_args, has_aux=has_aux,
                         optimize=optimize, keep_stages=stages)
    if not stages:
        return generated.source
    parts = []
    for stage in pipeline.STAGES:
        if stage in generated.stages:
            parts.append("# ---- after %s ----\n%s" % (stage, generated.stages[stage].rstrip()))
    return "\n\n".join(parts) + "\n"


def generate(function, wrt=0, mode: str = "reverse", *, example_args=None,
             has_aux: bool = False, optimize=True, name: str | None = None,
             keep_stages: bool = False) -> pipeline.Generated:
    """The derivative ``source`` prints (and ``srcad.codegen`` writes), freshly generated.

    ``function`` is a function (not a bound method) or a function srcad made; the
    code is for arguments of any type, or specialized for arguments like
    ``example_args``; ``name`` names the generated function.
    """
    target = derived.target_of(function)
    wrt = parse_wrt(target, wrt)
    kinds = None
    if example_args is not None:
        example_args = arguments.bind(derived.signature_of_target(target), example_args, {})
        kinds = tuple(shapes.of_value(a) for a in example_args)
    code = derived.code_of(target, kinds)
    if mode == "forward":
        if kinds is not None:  # tangents have their primals' kinds
            kinds = kinds + tuple(kinds[position] for position in wrt.positions)
        request = ForwardRequest(wrt.names)
    else:
        request = ReverseRequest(wrt.names, single=wrt.single, has_aux=has_aux)
    return pipeline.generate(request.of(code, kinds, name=name,
                                        enabled=optimizations(optimize)),
                             keep_stages=keep_stages)


def check_grad(function, *args, wrt=0, eps: float = 1e-6, rtol: float = 1e-5,
               atol: float = 1e-8) -> bool:
    """Compare srcad's gradient with central finite differences; raise AssertionError if off.

    A list, tuple, dict or dataclass argument is checked leaf by leaf.
    """
    signature = derived.call_signature(function)
    args = arguments.bind(signature, args, {})
    gradient = grad(function, wrt=wrt)(*args)
    params = list(signature.parameters)
    parsed_wrt = parse_wrt(derived.Made(derived.name_of(function), signature, function), wrt)
    names, single = parsed_wrt.names, parsed_wrt.single
    gradients = (gradient,) if single else gradient
    for name, g in zip(names, gradients):
        index = params.index(name)
        for path, leaf in trees.leaves(args[index]):
            computed = trees.at(g, path)
            where = trees.path_text(name, path)
            if not trees.differentiable(path, leaf):
                if computed is not None:
                    raise AssertionError("%s is held constant, but its gradient is %r"
                                         % (where, computed))
                continue
            numeric = _finite_difference(function, args, index, path, eps)
            if not np.allclose(computed, numeric, rtol=rtol, atol=atol):
                raise AssertionError("gradient for %s differs from finite differences:\n"
                                     "srcad:   %r\nnumeric: %r" % (where, computed, numeric))
    return True


def _finite_difference(function, args, index, path, eps):
    x = trees.at(args[index], path)
    scalar = np.ndim(x) == 0
    base = np.array(x, dtype=float)
    out = np.zeros_like(base)
    for position in np.ndindex(base.shape):
        shifted = []
        for sign in (1, -1):
            moved = base.copy()
            moved[position] += sign * eps
            call_args = list(args)
            call_args[index] = trees.replaced(args[index], path,
                                              float(moved) if scalar else moved)
            shifted.append(derived.called_with_bound_arguments(function)(*call_args))
        out[position] = (shifted[0] - shifted[1]) / (2 * eps)
    return float(out) if scalar else out
