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

import builtins
import functools
import hashlib
import inspect
import linecache
import weakref
from dataclasses import dataclass
from typing import Callable

from .errors import InvalidArgumentError, SrcadError
from .naming import identifier
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
    made but cannot differentiate). A ``functools.partial`` is differentiated as the
    plain function ``function_of_partial`` writes for it.
    """
    if type(function) is functools.partial:
        return function_of_partial(function)
    made = lookup(function)
    if made is not None:
        if made.code_for is None:
            raise made.error()
        return made
    if not inspect.isfunction(function):
        parse_function(function)  # SourceUnavailableError for builtins, C functions...
    return function


_PARTIAL_FUNCTION = "__srcad_function__"


def function_of_partial(partial):
    """A plain function computing what ``partial`` computes, with a source file srcad reads.

    ``partial(f, a, k=2.0)`` for ``def f(a, x, k=1.0)`` becomes::

        def partial_f(x, k=2.0):
            return f(bound_0, x, k=k)

    with ``bound_0`` the object ``a``: the values bound by keyword are parameters whose
    defaults they are (so they are arguments of the derivative, whose kinds key its code,
    and may still be passed), those bound by position are held constant. ``f`` is then
    inlined into it as any function is. Made once per partial object.
    """
    made = partial.__dict__.get(_PARTIAL_FUNCTION)
    if made is not None:
        return made
    function = partial.func
    what = "functools.partial(%s, ...)" % getattr(function, "__qualname__", repr(function))
    try:
        signature = inspect.signature(partial)
    except (TypeError, ValueError) as error:
        raise InvalidArgumentError("cannot read the parameters of %s: %s" % (what, error))
    params, arguments, defaults = [], [], []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise InvalidArgumentError(
                "srcad cannot differentiate %s: the function it calls takes *args or **kwargs"
                % what, hint="Bind the arguments in a def of your own and differentiate it.")
        if parameter.default is not parameter.empty:
            defaults.append(parameter.default)
        elif defaults:
            raise InvalidArgumentError(
                "srcad cannot differentiate %s: its parameter %r, without a default, follows "
                "parameters bound by keyword" % (what, name),
                hint="Bind the arguments in a def of your own and differentiate it.")
        params.append(name)
        arguments.append(name if parameter.kind is not parameter.KEYWORD_ONLY
                         else "%s=%s" % (name, name))
    namespace = {"bound_%d" % i: value for i, value in enumerate(partial.args)}
    callee = "function_" if "function_" not in params else "function_of_partial_"
    namespace[callee] = function
    name = "partial_%s" % identifier(getattr(function, "__name__", "function"))
    text = "def %s(%s):\n    return %s(%s)\n" % (
        name, ", ".join(params), callee,
        ", ".join(["bound_%d" % i for i in range(len(partial.args))] + arguments))
    # its source lives in linecache, where inspect finds it (and pdb, tracebacks)
    filename = "<srcad %s %s>" % (name, hashlib.sha256(text.encode()).hexdigest()[:12])
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    namespace["__builtins__"] = builtins
    exec(compile(text, filename, "exec"), namespace)
    made = namespace[name]
    made.__defaults__ = tuple(defaults) or None
    partial.__dict__[_PARTIAL_FUNCTION] = made
    return made


def called_with_bound_arguments(function):
    """What to call with arguments bound to ``call_signature(function)``: a partial's
    keyword-bound parameters are positional in the function srcad writes for it."""
    return function_of_partial(function) if type(function) is functools.partial else function


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
