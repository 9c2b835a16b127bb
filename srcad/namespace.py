"""The names generated code uses for srcad's own helpers (``np``, ``math``, ``rt``).

Generated code never relies on the user's aliases: every object a template
refers to gets an alias here, bound as a closure variable of the generated
function. An alias never shadows a user name that means something else.
"""

from __future__ import annotations

import types

_PREFERRED = {"numpy": "np", "math": "math", "srcad.runtime": "rt", "operator": "operator"}


class Aliases:
    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer
        self.bindings: dict[str, object] = {}
        self._by_id: dict[int, str] = {}

    def copy(self, namer) -> "Aliases":
        """These aliases, going on independently with ``namer`` (a copy of theirs)."""
        twin = Aliases(self.parsed, namer)
        twin.bindings, twin._by_id = dict(self.bindings), dict(self._by_id)
        return twin

    def name_for(self, obj, preferred: str | None = None) -> str:
        """The alias generated code uses for ``obj``, creating it on first use."""
        if id(obj) in self._by_id:
            return self._by_id[id(obj)]
        if preferred is None:
            if isinstance(obj, types.ModuleType):
                preferred = _PREFERRED.get(obj.__name__, obj.__name__.split(".")[-1])
            else:
                preferred = getattr(obj, "__name__", "helper")
        alias, counter = preferred, 1
        while not self._usable(alias, obj):
            counter += 1
            alias = "%s_%d" % (preferred, counter)
        self.bindings[alias] = obj
        self._by_id[id(obj)] = alias
        self.namer.reserve(alias)
        return alias

    def _usable(self, alias, obj) -> bool:
        if alias in self.bindings:
            return False
        if alias in self.parsed.local_names:
            return False
        if alias in self.parsed.identifiers:
            # a free name of the user's: fine only if it means the same object
            return self.parsed.resolve_name(alias) is obj
        return alias not in self.namer.taken

    def resolve(self, node):
        """The object an alias Name refers to, or None."""
        return self.bindings.get(getattr(node, "id", None))
