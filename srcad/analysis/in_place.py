"""Which updates forward mode may run in place.

Normalize turns ``items.append(v)`` and ``v = items.pop()`` into the functional
``items_2 = rt.appended(items, v)`` and ``rt.all_but_last(items)``, and srcad's
own ``rt.add_at(total, i, g)`` into ``rt.added_at``: reverse mode keeps every
version of a value. Forward mode never needs an old version of what the
*source* updated in place, so it runs those updates in place again (a
Hessian-vector product then stays linear in the trip count of a taped loop),
when that cannot change what any other name sees:

* only updates the source made in place (annotations.is_in_place): an
  ``rt.appended(...)`` call written as such in generated code stays a copy,
  since that code may read the old list later (its adjoints read it);
* ``rt.add_at`` ran in place in the source, so it runs in place again;
* a list is updated in place only if it is the function's own (made by a list
  literal or a list update in the function, never an argument, which srcad
  must not change) and never aliased: its name is only indexed, measured
  with ``len``, updated, or carried to the next loop iteration.
"""

from __future__ import annotations

import gast

from .. import runtime, syntax
from ..annotations import is_carry, is_in_place

_LIST_UPDATES = (runtime.appended, runtime.all_but_last)


def updates_in_place(body: list, params: list, resolve) -> set[int]:
    """The ids of the update calls (``rt.appended``...) in ``body`` that may run in place.

    ``body`` is a normalized function body, ``params`` its parameter names.
    """
    tree = gast.Module(body=body, type_ignores=[])
    owned = _owned_lists(tree, set(params), resolve)
    escaped = _escaped_names(tree, resolve)
    chosen = set()
    for node in syntax.walk(tree):
        if not (isinstance(node, gast.Assign) and isinstance(node.value, gast.Call)
                and is_in_place(node.value)):
            continue
        primitive = resolve(node.value.func)
        if primitive is runtime.added_at:
            chosen.add(id(node.value))
        elif primitive in _LIST_UPDATES:
            items = _list_operand(node.value, resolve)
            if items in owned and items not in escaped:
                chosen.add(id(node.value))
    return chosen


def _list_operand(value, resolve) -> str | None:
    """``items`` in ``rt.appended(items, v)`` or ``rt.all_but_last(items)``."""
    if (isinstance(value, gast.Call) and value.args and isinstance(value.args[0], gast.Name)
            and resolve(value.func) in _LIST_UPDATES):
        return value.args[0].id
    return None


def _owned_lists(tree, params, resolve) -> set[str]:
    """Names every definition of which is a list this function made (a greatest fixed point)."""
    definitions, other_stores = {}, set()
    for node in syntax.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            definitions.setdefault(node.targets[0].id, []).append(node)
        elif isinstance(node, (gast.Assign, gast.For)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            other_stores |= {n.id for t in targets for n in syntax.names(t)}
    owned = set(definitions) - params - other_stores

    def made_here(node) -> bool:
        value = node.value
        if isinstance(value, gast.List):
            return True
        if _list_operand(value, resolve) is not None:
            return True  # a copy, or (in place) the same list as its operand, itself owned
        return is_carry(node) and isinstance(value, gast.Name) and value.id in owned

    changed = True
    while changed:
        changed = False
        for name in sorted(owned):
            if not all(made_here(node) for node in definitions[name]):
                owned.discard(name)
                changed = True
    return owned


def _escaped_names(tree, resolve) -> set[str]:
    """Names read other than by indexing, ``len``, a list update or a loop carry."""
    harmless = set()
    for node in syntax.walk(tree):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            harmless.add(id(node.value))
        elif isinstance(node, gast.Call) and node.args and isinstance(node.args[0], gast.Name) \
                and (resolve(node.func) is len or _list_operand(node, resolve) is not None):
            harmless.add(id(node.args[0]))
        elif isinstance(node, gast.Assign) and is_carry(node) and isinstance(node.value,
                                                                             gast.Name):
            harmless.add(id(node.value))
    return {n.id for n in syntax.names(tree)
            if isinstance(n.ctx, gast.Load) and id(n) not in harmless}
