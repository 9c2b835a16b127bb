"""What a caller asks srcad for: which arguments to differentiate (``wrt``), in one place.

Every entry point (grad, value_and_grad, source, jacobian, hvp, hessian,
codegen, the command line) reads ``wrt`` through ``parse_wrt``, so a bad
``wrt`` gets the same message wherever it is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import derived
from .errors import InvalidArgumentError


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
