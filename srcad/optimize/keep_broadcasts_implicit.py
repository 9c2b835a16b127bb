"""Read a broadcast's operand where the broadcast's reader broadcasts it anyway.

The adjoint of a reduction is its adjoint spread over the reduced array's shape: once
specialized, ``v = np.broadcast_to(a, x.shape)``. Making that view costs more than the
arithmetic on small arrays (``np.broadcast_to`` is Python-level code), and where every
reader of ``v`` broadcasts ``a`` to the same shape itself, the view is not needed::

    exp_bar = np.broadcast_to(total_bar, x.shape)
    shifted_bar = log_probs_bar + exp_bar * exp       (exp: x's shape)
 -> shifted_bar = log_probs_bar + total_bar * exp

After this pass a name defined once by ``np.broadcast_to(a, n.shape)`` is still read only
where the broadcast array itself is needed: a read in ``v op w`` (``op`` elementwise
arithmetic, ``w`` known to have n's shape: the same kind, fully known, reached from n by
elementwise operations, optimize/specialize_runtime_calls.py's ``shape_source``) or as the
adjoint ``g`` of ``rt.unindex(g, x, index)`` (which adds g at ``index``: an adjoint of
``x[index]``'s shape, as any ``a`` broadcast to it) reads ``a`` instead. The results are
the same arrays, element for element; the definition is left to remove_dead_code.
"""

from __future__ import annotations

from collections import Counter

import gast
import numpy as np

from .. import runtime, syntax
from ..analysis import shapes
from .specialize_runtime_calls import shape_sources

_ELEMENTWISE_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def keep_broadcasts_implicit(tree: gast.FunctionDef, env: dict, resolve, aliases
                             ) -> gast.FunctionDef:
    stores = Counter(node.id for node in syntax.names(tree)
                     if type(node.ctx) in (gast.Store, gast.Del))
    broadcasts = _broadcasts(tree, stores, resolve)
    if not broadcasts:
        return tree
    shape_source = shape_sources(tree, env, resolve, aliases)
    loads = Counter(node.id for node in syntax.names(tree)
                    if type(node.ctx) is gast.Load and node.id in broadcasts)
    # the reads of each broadcast that broadcast its operand themselves: (node, field, index)
    replaceable = {name: [] for name in broadcasts}
    for node in syntax.walk(tree):
        kind = type(node)
        if kind is gast.BinOp and isinstance(node.op, _ELEMENTWISE_OPERATORS):
            for field, other in (("left", node.right), ("right", node.left)):
                operand = getattr(node, field)
                if (type(operand) is gast.Name and operand.id in broadcasts
                        and _has_shape_of(other, broadcasts[operand.id][1], env,
                                          shape_source)):
                    replaceable[operand.id].append((node, field))
        elif kind is gast.Call and node.args and type(node.args[0]) is gast.Name and (
                node.args[0].id in broadcasts) and len(node.args) == 3 and (
                not node.keywords) and resolve(node.func) is runtime.unindex and isinstance(
                shapes.plain(shapes.evaluate(node.args[1], env, resolve)), shapes.Array):
            replaceable[node.args[0].id].append((node.args, 0))
    for name, (operand, _) in broadcasts.items():
        places = replaceable[name]
        if not places or len(places) != loads[name]:
            continue  # some reader needs the broadcast array itself
        for holder, field in places:
            if type(holder) is list:
                holder[field] = syntax.deepcopy(operand)
            else:
                setattr(holder, field, syntax.deepcopy(operand))
    return tree


def _broadcasts(tree, stores, resolve) -> dict:
    """{v: (a, n)} for the top-level ``v = np.broadcast_to(a, n.shape)``, v assigned there
    only, ``a`` a constant or a name assigned once (so every read of v may read it)."""
    found = {}
    for statement in tree.body:
        if not (type(statement) is gast.Assign and len(statement.targets) == 1
                and type(statement.targets[0]) is gast.Name):
            continue
        value, name = statement.value, statement.targets[0].id
        if not (type(value) is gast.Call and len(value.args) == 2 and not value.keywords
                and stores[name] == 1 and resolve(value.func) is np.broadcast_to):
            continue
        operand, shape = value.args
        if not (type(operand) is gast.Constant or (
                type(operand) is gast.Name and stores[operand.id] <= 1)):
            continue
        if type(shape) is gast.Attribute and shape.attr == "shape" and type(
                shape.value) is gast.Name and stores[shape.value.id] <= 1:
            found[name] = (operand, shape.value.id)
    return found


def _has_shape_of(node, name, env, shape_source) -> bool:
    """Whether ``node`` is known to have the shape of the array ``name``."""
    if type(node) is not gast.Name:
        return False
    if node.id == name:
        return True
    kind = shapes.plain(env.get(node.id))
    if not isinstance(kind, shapes.Array) or None in kind.ones or kind != shapes.plain(
            env.get(name)):
        return False
    source = shape_source(node)
    return source.id == name or source.id == shape_source(syntax.name(name)).id
