"""What a caller asks srcad for: one ``Request`` per derivative, and ``wrt`` read in one place.

Every entry point (grad, value_and_grad, source, jvp, vjp, jacobian, hvp,
hessian, codegen, the command line, and generated code asking for the
derivative of a recursive function) states what it wants as a Request and
hands it to the driver (``pipeline.generate``); every one reads ``wrt``
through ``parse_wrt``, so a bad ``wrt`` gets the same message wherever it is
given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import derived
from .errors import InvalidArgumentError

# Optimizations that can be switched off (srcad.grad(f, optimize=...)), in the order they run.
OPTIMIZATIONS = (
    "recompute",  # transform: recompute cheap loop intermediates instead of recording them
    "specialize",  # specialize code on the argument kinds (analysis/shapes.py)
    "fold_constants",
    "propagate_copies",
    "remove_dead_code",
    "accumulate_in_place",
    "fuse_single_use",
)


def optimizations(optimize) -> frozenset:
    """The set of optimizations meant by an ``optimize=`` option (True, False or names)."""
    if optimize is True:
        return frozenset(OPTIMIZATIONS)
    if optimize is False or optimize is None:
        return frozenset()
    chosen = frozenset([optimize] if isinstance(optimize, str) else optimize)
    unknown = chosen - set(OPTIMIZATIONS)
    if unknown:
        raise InvalidArgumentError("unknown optimization(s) %s; known: %s"
                                   % (", ".join(sorted(unknown)), ", ".join(OPTIMIZATIONS)))
    return chosen


@dataclass(frozen=True)
class Request:
    """One derivative to generate.

    Its ``repr`` (the fields that shape the code, without the function and the
    argument kinds, which the persistent cache describes on its own) is part
    of the persistent cache's key.
    """

    mode: str  # "reverse" (a gradient, a vjp) or "forward" (a jvp)
    wrt: tuple  # parameter names, in the order their derivatives are returned (or passed)
    # reverse mode
    single: bool = True  # return one gradient, not a tuple of them
    seed: object = 1.0  # a constant, or the name of a cotangent parameter (vjp)
    check_scalar_output: bool = True
    return_value: bool = False  # value_and_grad
    has_aux: bool = False
    extra_params: tuple = ()  # parameters after the function's own (a vjp's cotangent)
    # forward mode
    tangent_only: bool = False  # return only the output tangent (to differentiate it again)
    # what to generate it for, and how
    function: object = field(default=None, repr=False, compare=False)  # a plain function
    kinds: tuple | None = field(default=None, repr=False)  # of the parameters; None: any
    name: str | None = field(default=None, repr=False)  # of the generated function
    enabled: frozenset = field(default=frozenset(OPTIMIZATIONS), repr=False)

    def __post_init__(self):
        object.__setattr__(self, "wrt", tuple(self.wrt))
        object.__setattr__(self, "extra_params", tuple(self.extra_params))

    def of(self, function, kinds=None, **changes) -> "Request":
        """This request for ``function`` and arguments of ``kinds`` (None: any)."""
        return replace(self, function=function, kinds=kinds, **changes)


def ReverseRequest(wrt, **options) -> Request:  # noqa: N802 - reads as the request it makes
    """A reverse-mode Request (``single``, ``seed``, ``has_aux``, ... as keywords)."""
    return Request("reverse", wrt, **options)


def ForwardRequest(wrt, **options) -> Request:  # noqa: N802
    """A forward-mode Request: ``wrt`` the parameters with a tangent, in the order passed."""
    return Request("forward", wrt, **options)


@dataclass(frozen=True)
class Wrt:
    names: tuple[str, ...]  # parameter names, in the order the derivatives are returned
    positions: tuple[int, ...]  # their positions among the parameters
    single: bool  # one derivative (wrt was a position or a name), not a tuple of them


def parse_wrt(target, wrt) -> Wrt:
    """``wrt`` (a position, a name, or a tuple/list of them) checked against ``target``.

    ``target`` is a plain function or the registration of a function srcad made
    (srcad/derived.py).
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
    return Wrt(tuple(names), tuple(params.index(name) for name in names), single)


def shift_positions(wrt, offset: int):
    """``wrt`` counted ``offset`` parameters further (a bound method's ``self`` comes first)."""
    if isinstance(wrt, (tuple, list)):
        return tuple(shift_positions(item, offset) for item in wrt)
    if isinstance(wrt, int) and not isinstance(wrt, bool) and wrt >= 0:
        return wrt + offset
    return wrt
