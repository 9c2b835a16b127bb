"""Names in generated code: fresh temporaries, adjoints (``x_bar``), tangents (``x_dot``).

One Namer serves a whole generation, so no generated name collides with a
user name, a builtin, or another generated name.
"""

from __future__ import annotations

import builtins
import keyword
import re

_RESERVED = set(dir(builtins)) | set(keyword.kwlist)
# readable stand-ins for temporaries named after a builtin (or keyword) they would shadow
_INSTEAD_OF_BUILTIN = {"sum": "total", "abs": "absolute", "max": "maximum", "min": "minimum",
                       "pow": "power", "len": "length", "round": "rounded", "float": "as_float",
                       "int": "as_int", "range": "span", "type": "kind", "slice": "part",
                       "lambda": "lambda_result"}


def identifier(text: str) -> str:
    """``text`` as a Python identifier: names made from a function's ``__name__`` meet
    ``"<lambda>"`` (``vjp_<lambda>`` becomes ``vjp_lambda``)."""
    if text.isidentifier():
        return text
    return re.sub(r"_*\W+_*", "_", text).strip("_") or "function"


_BASES: dict = {}  # (text, private) -> the base fresh() builds names from


def _base_name(text: str, private: bool) -> str:
    """The base of the names ``fresh(text, private)`` makes (found once per text)."""
    base = _BASES.get((text, private))
    if base is None:
        base = ("_" if private else "") + (identifier(text).strip("_") or "tmp")
        if base in _RESERVED:
            base = _INSTEAD_OF_BUILTIN.get(base, base + "_value")
        if base[0].isdigit():
            base = "v" + base
        if len(_BASES) >= 65536:
            _BASES.clear()
        _BASES[(text, private)] = base
    return base


class Namer:
    def __init__(self, taken=()):
        self.taken = set(taken)
        self.made: set[str] = set()  # the names fresh() handed out: local variables
        self._derived: dict[tuple[str, str], str] = {}
        self._owner: dict[str, tuple[str, str]] = {}
        # base -> the counter of the last name fresh() made from it: every name before it
        # is taken (names are never given back), so the search starts there
        self._counter: dict[str, int] = {}

    def copy(self) -> "Namer":
        """A Namer that has handed out what this one has, and goes on independently."""
        twin = Namer.__new__(Namer)
        twin.taken, twin.made = set(self.taken), set(self.made)
        twin._derived, twin._owner = dict(self._derived), dict(self._owner)
        twin._counter = dict(self._counter)
        return twin

    def reserve(self, name: str) -> None:
        self.taken.add(name)

    def fresh(self, base: str, private: bool = False) -> str:
        """A new name built from ``base``: ``base``, else ``base_2``, ``base_3``...

        ``private`` keeps a leading underscore (``_tape``): srcad's own bookkeeping.
        """
        base = _base_name(base, private)
        counter = self._counter.get(base, 1)
        name = base if counter == 1 else "%s_%d" % (base, counter)
        while name in self.taken or name in _RESERVED:
            counter += 1
            name = "%s_%d" % (base, counter)
        self._counter[base] = counter
        self.taken.add(name)
        self.made.add(name)
        return name

    def derived(self, name: str, suffix: str) -> str:
        """The stable derived name of ``name`` (e.g. suffix "bar" gives ``x_bar``)."""
        key = (name, suffix)
        if key not in self._derived:
            derived = self.fresh("%s_%s" % (name, suffix))
            self._derived[key] = derived
            self._owner[derived] = key
        return self._derived[key]

    def adjoint(self, name: str) -> str:
        return self.derived(name, "bar")

    def tangent(self, name: str) -> str:
        return self.derived(name, "dot")

    def primal_of(self, derived_name: str) -> str | None:
        owner = self._owner.get(derived_name)
        return owner[0] if owner else None
