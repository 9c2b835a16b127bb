"""The public functions: thin wrappers over pipeline.py."""

from __future__ import annotations

import functools

import numpy as np

from . import arguments, cache, derived, pipeline, trees
from .analysis import shapes
from .cache import generation
from .cache.specializations import Specializations
from .errors import InvalidArgumentError, NonScalarOutputError
from .transform.forward import ForwardRequest
from .transform.reverse import ReverseRequest


def wrt_names(target, wrt) -> tuple[list[str], bool]:
    """``wrt`` as parameter names, and whether a single gradient (not a tuple) is wanted.

    ``target`` is a plain function or the registration of a function srcad made.
    """
    params = list(derived.signature_of_target(target).parameters)
    what = derived.name_of(target)
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise InvalidArgumentError("wrt is empty: name at least one argument to differentiate")
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise InvalidArgumentError(
                "wrt must be argument positions or parameter names, got %r" % (item,))
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise InvalidArgumentError(
                    "wrt=%d is out of range: %s has %d parameter(s) (%s)"
                    % (item, what, len(params), ", ".join(params)))
            item = params[item]
        elif item not in params:
            raise InvalidArgumentError(
                "wrt=%r is not a parameter of %s; its parameters are: %s"
                % (item, what, ", ".join(params)))
        if item in names:
            raise InvalidArgumentError("wrt names %r twice" % item)
        names.append(item)
    return names, single


def _derivative(function, wrt, *, kind, has_aux=False, optimize=True, **options):
    if function is None:  # @srcad.grad(wrt=...)
        return lambda f: _derivative(f, wrt, kind=kind, has_aux=has_aux, optimize=optimize,
                                     **options)
    if options:
        raise InvalidArgumentError("unknown option(s): %s" % ", ".join(sorted(options)))
    enabled = pipeline.optimizations(optimize)
    unbound, first = derived.split_bound(function)
    if first is not None:
        # a bound method (or a bound derivative): differentiate the function, with `self`
        # passed first, and count wrt positions from the first argument after it
        offset_wrt = _shift_positions(wrt, len(first))
        inner = _derivative(unbound, offset_wrt, kind=kind, has_aux=has_aux, optimize=enabled)
        return _bind_first(inner, first[0])
    target = derived.target_of(function)
    names, single = wrt_names(target, wrt)
    key = (kind, tuple(names), single, has_aux, enabled)
    wrapper = cache.lookup(function, key)
    if wrapper is None:
        request = ReverseRequest(wrt=names, single=single,
                                 return_value=(kind == "value_and_grad"), has_aux=has_aux)
        wrapper = _Derivative(function, target, request, enabled, kind).wrapper()
        cache.store(function, key, wrapper)
    return wrapper


def _shift_positions(wrt, offset):
    if isinstance(wrt, (tuple, list)):
        return tuple(_shift_positions(item, offset) for item in wrt)
    if isinstance(wrt, int) and not isinstance(wrt, bool) and wrt >= 0:
        return wrt + offset
    return wrt


def _bind_first(derivative, first):
    """``derivative`` with its first argument (a bound method's ``self``) given."""

    @functools.wraps(derivative)
    def bound(*args, **kwargs):
        return derivative(first, *args, **kwargs)

    bound.source = derivative.source
    bound.source_for = lambda *args, **kwargs: derivative.source_for(first, *args, **kwargs)
    bound.generated_for = lambda *args, **kwargs: derivative.generated_for(first, *args,
                                                                           **kwargs)
    bound.specializations = derivative.specializations
    return derived.register_bound(bound, derivative, first)


class _Derivative:
    """One requested derivative of one function: its specializations, made on demand.

    ``target`` is what is differentiated: the user's function, or the
    registration of a function srcad made (then its generated code for the
    arguments' kinds is differentiated, srcad/derived.py).
    """

    def __init__(self, function, target, request: ReverseRequest, enabled: frozenset,
                 kind: str = "grad"):
        self.function = function
        self.target = target
        self.kind = kind
        self.request = request
        self.enabled = enabled
        self.signature = derived.signature_of_target(target)
        params = list(self.signature.parameters)
        self.nparams = len(params)
        self.wrt_positions = tuple(params.index(name) for name in request.wrt)
        self.generic = self.generate(None)  # fails now, not at the first call, on bad code
        self.specializations = Specializations(self.generate)

    def generate(self, kinds):
        return generation.generate_reverse(derived.code_of(self.target, kinds), self.request,
                                           kinds, enabled=self.enabled)

    def specialize(self, args):
        return self.specializations.for_values(args)

    def specialize_kinds(self, kinds):
        return self.specializations.get(kinds)

    def code_for(self, kinds):
        """The generated code run for arguments of ``kinds`` (None: the generic code)."""
        return (self.generic if kinds is None else self.specialize_kinds(kinds)).function

    def bind(self, args, kwargs):
        return arguments.bind(self.signature, args, kwargs)

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

    def wrapper(self):
        specialized = self.specializations.by_kinds
        of_value = shapes.of_value
        nparams = self.nparams
        positions = self.wrt_positions
        check = self.check

        @functools.wraps(self.function)
        def derivative(*args, **kwargs):
            if kwargs or len(args) != nparams:
                args = self.bind(args, kwargs)
            for position in positions:
                if type(args[position]) is not float:  # anything else is checked
                    check(args)
                    break
            generated = specialized.get(tuple(map(of_value, args)))
            if generated is None:
                generated = self.specialize(args)
            try:
                return generated.function(*args)
            except NonScalarOutputError as error:
                if isinstance(self.target, derived.Made):  # say which function is not scalar
                    raise self.not_scalar(error) from None
                raise

        derivative.__wrapped__ = self.function
        derivative.source = self.generic.source
        derivative.source_for = lambda *args, **kwargs: self.specialize(
            self.bind(args, kwargs)).source
        derivative.generated_for = lambda *args, **kwargs: self.specialize(
            self.bind(args, kwargs))
        derivative.specializations = specialized
        return derived.register(derivative, derived.Made(
            name="srcad.%s(%s)" % (self.kind, derived.name_of(self.target)),
            signature=self.signature, origin=derived.origin_of(self.target),
            code_for=self.code_for))


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
        return source(unbound, _shift_positions(wrt, len(first)), mode,
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
    if mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r" % (mode,))
    target = derived.target_of(function)
    names, single = wrt_names(target, wrt)
    kinds = None
    if example_args is not None:
        example_args = arguments.bind(derived.signature_of_target(target), example_args, {})
        kinds = tuple(shapes.of_value(a) for a in example_args)
    code = derived.code_of(target, kinds)
    enabled = pipeline.optimizations(optimize)
    if mode == "forward":  # tangents have their primals' kinds
        params = list(derived.signature_of_target(target).parameters)
        if kinds is not None:
            kinds = kinds + tuple(kinds[params.index(n)] for n in names)
        return pipeline.generate_forward(code, ForwardRequest(wrt=names), kinds, name=name,
                                         keep_stages=keep_stages, enabled=enabled)
    request = ReverseRequest(wrt=names, single=single, has_aux=has_aux)
    return pipeline.generate_reverse(code, request, kinds, name=name, keep_stages=keep_stages,
                                     enabled=enabled)


def stop_gradient(x):
    """Return ``x`` unchanged; no gradient flows through it."""
    return x


def check_grad(function, *args, wrt=0, eps: float = 1e-6, rtol: float = 1e-5,
               atol: float = 1e-8) -> bool:
    """Compare srcad's gradient with central finite differences; raise AssertionError if off.

    A list, tuple, dict or dataclass argument is checked leaf by leaf.
    """
    signature = derived.call_signature(function)
    args = arguments.bind(signature, args, {})
    gradient = grad(function, wrt=wrt)(*args)
    params = list(signature.parameters)
    names, single = wrt_names(derived.Made(derived.name_of(function), signature, function),
                               wrt)
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
            shifted.append(function(*call_args))
        out[position] = (shifted[0] - shifted[1]) / (2 * eps)
    return float(out) if scalar else out
