"""The one resolver: what object a static reference in a function's code means.

A static reference is a Name or a dotted Attribute chain of them (``np``,
``np.linalg.norm``, ``rt.unbroadcast``). It means, in this order:

* the object one of srcad's aliases is bound to (``np``, ``rt``, the free
  names of an inlined callee: srcad/namespace.py);
* nothing static (``UNRESOLVED``) if the name is a local variable: one of the
  user's (parameters and assigned names), one srcad made for the code
  (temporaries, versions, adjoints: every name the Namer handed out), or an
  extra parameter of the generated function (a vjp's cotangent);
* else the object the name is bound to in the function's own closure,
  globals or builtins (never a merged namespace), and an attribute of it.

One resolver serves a whole request: the names srcad makes are local
whenever they are made, so it never needs rebuilding as passes add them.
"""

from __future__ import annotations

import gast

from .analysis.operations import UNRESOLVED
from .namespace import Aliases
from .naming import Namer
from .parse import ParsedFunction

_ATTRIBUTE, _NAME = gast.Attribute, gast.Name


class Resolver:
    def __init__(self, parsed: ParsedFunction, aliases: Aliases | None = None,
                 namer: Namer | None = None, extra_locals=()):
        self.parsed = parsed
        self.aliases = aliases
        self.namer = namer
        self.extra_locals = frozenset(extra_locals)

    def is_local(self, name: str) -> bool:
        return (name in self.parsed.local_names or name in self.extra_locals
                or (self.namer is not None and name in self.namer.made))

    def __call__(self, node):
        """The object ``node`` refers to, or UNRESOLVED when it is not a static reference."""
        attributes = []  # (asked of most calls the passes meet: the chain in a loop)
        while type(node) is _ATTRIBUTE:
            attributes.append(node.attr)
            node = node.value
        if type(node) is not _NAME:
            return UNRESOLVED
        name = node.id
        if self.aliases is not None and name in self.aliases.bindings:
            found = self.aliases.bindings[name]
        elif self.is_local(name):
            return UNRESOLVED
        else:
            found = self.parsed.resolve_name(name, UNRESOLVED)
        for attribute in reversed(attributes):  # the base first: np, then np.linalg...
            if found is UNRESOLVED:
                return UNRESOLVED
            found = getattr(found, attribute, UNRESOLVED)
        return found

    def object_or(self, node, default):
        """``self(node)``, with ``default`` for UNRESOLVED."""
        found = self(node)
        return default if found is UNRESOLVED else found
