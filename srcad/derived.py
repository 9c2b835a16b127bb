"""Functions srcad makes, and the plain code srcad differentiates in their place.

``srcad.grad(f)`` returns a small dispatcher written inside srcad: for its
arguments' kinds it picks generated code and runs it. The dispatcher's own
source says nothing about the mathematics, and its ``__wrapped__`` (set by
functools.wraps, for users) leads back to ``f``, whose derivative is not the
dispatcher's. So srcad never reads such a function's source nor follows
``__wrapped__``. Each function srcad makes is registered here with

* the parameters it takes, and
* ``code_for(kinds)``: a plain Python function with a source file of its own,
  taking the same parameters and computing the same values for arguments of
  those kinds (``analysis/shapes.of_value`` of each parameter; ``None``: any
  kinds). It is the generated code the dispatcher runs, and srcad
  differentiates it in the dispatcher's place: ``grad(grad(f))``, ``jvp`` of
  a gradient, a gradient called inside a differentiated function.

A function srcad makes but cannot differentiate (the function ``jacobian``
returns, ...) is registered with the reason, so every entry point raises the
same error instead of differentiating srcad's own dispatch code. A bound
derivative (``srcad.grad(model.loss)``) is registered with the derivative it
calls and the ``self`` it passes first, as a bound method would be.
"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import dataclass
from typing import Callable

from .errors import InvalidArgumentError, SrcadError
from .parse import parse_function, signature_of


@dataclass
class Made:
    name: str  # how messages name it: "srcad.grad(f)"
    signature: inspect.Signature
    origin: object  # the user's function whose parameters these are (errors point at it)
    code_for: Callable | None = None  # kinds -> plain Python function; None: not differentiable
    reason: str = ""  # why it cannot be differentiated, when code_for is None
    hint: str = ""
    function: object = None  # for a bound derivative: the derivative it calls
    first: object = None  # ... with this first argument (a bound method's self)
    owner: object = None  # a weak reference to the function registered with this

    @property
    def description(self) -> str:
        return "the function %s returned" % self.name

    @property
    def bound(self) -> bool:
        return self.function is not None

    def error(self, location=None, kind=InvalidArgumentError) -> SrcadError:
        return kind("srcad cannot differentiate %s: %s" % (self.description, self.reason),
                    location, self.hint)


# The registration lives in the function's own __dict__ (so it goes away with the function,
# cycles included) and names its owner: functools.wraps copies __dict__ into a wrapper, which
# srcad did not make.
_ATTRIBUTE = "__srcad_made__"


def register(function, made: Made):
    """Record that srcad made ``function``, and how to differentiate it; returns ``function``."""
    made.owner = weakref.ref(function)
    function.__dict__[_ATTRIBUTE] = made
    return function


def register_bound(bound, function, first):
    """Register ``bound``, which calls the srcad-made ``function`` with ``first`` first."""
    inner = lookup(function)
    parameters = list(inner.signature.parameters.values())[1:]
    return register(bound, Made(
        name="%s of a bound method" % inner.name,
        signature=inner.signature.replace(parameters=parameters), origin=inner.origin,
        function=function, first=first))


def lookup(function) -> Made | None:
    """The registration of a function srcad made; None for anything else."""
    try:
        made = vars(function).get(_ATTRIBUTE)
    except TypeError:  # no __dict__ (an int, a builtin...): srcad did not make it
        return None
    if isinstance(made, Made) and made.owner() is function:
        return made
    return None


def split_bound(function):
    """``(function, first)`` for a bound method or bound derivative, else ``(function, None)``.

    srcad differentiates the function with ``first`` (``self``) held constant
    and passed first, counting ``wrt`` positions after it.
    """
    if inspect.ismethod(function):
        return function.__func__, (function.__self__,)
    made = lookup(function)
    if made is not None and made.bound:
        return made.function, (made.first,)
    return function, None


def target_of(function):
    """What srcad differentiates when asked to differentiate ``function`` (not bound).

    A plain Python function, or the Made entry of a function srcad made; a
    SrcadError for anything else (a builtin, a C function, a function srcad
    made but cannot differentiate).
    """
    made = lookup(function)
    if made is not None:
        if made.code_for is None:
            raise made.error()
        return made
    if not inspect.isfunction(function):
        parse_function(function)  # SourceUnavailableError for builtins, C functions...
    return function


def signature_of_target(target) -> inspect.Signature:
    return target.signature if isinstance(target, Made) else signature_of(target)


def name_of(target) -> str:
    """``f``'s qualified name, or ``srcad.grad(f)`` for a function srcad made."""
    if isinstance(target, Made):
        return target.name
    return getattr(target, "__qualname__", repr(target))


def call_signature(function) -> inspect.Signature:
    """The parameters a call of ``function`` takes (without a bound method's ``self``)."""
    unbound, first = split_bound(function)
    if first is not None:
        return call_signature(unbound).replace(
            parameters=list(call_signature(unbound).parameters.values())[len(first):])
    return signature_of_target(target_of(function))


def origin_of(target):
    """The user's function whose definition declares ``target``'s parameters."""
    return target.origin if isinstance(target, Made) else target


def code_of(target, kinds):
    """The plain function srcad differentiates for arguments of ``kinds`` (None: any)."""
    return target.code_for(kinds) if isinstance(target, Made) else target
