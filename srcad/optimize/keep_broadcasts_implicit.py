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


import gast
import numpy as np

from .. import runtime, syntax
from ..analysis import shapes
from .specialize_runtime_calls import shape_sources

_ELEMENTWISE_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def keep_broadcasts_implicit(tree: gast.FunctionDef, env: dict, resolve, aliases,
                             stored: dict | None = None) -> gast.FunctionDef:
    """``stored``: how often each name is assigned (Store or Del) in ``tree``, if counted
    already (shapes.infer counts them)."""
    candidates = [(index, statement) for index, statement in enumerate(tree.body)
                  if _may_broadcast(statement, resolve)]
    if not candidates:
        return tree  # no broadcast to look for (the walk below is the pass's cost)
    if stored is None:
        stored = syntax.assignment_counts(tree)
    broadcasts, first = _broadcasts(candidates, stored)
    if not broadcasts:
        return tree
    # one walk: how often each broadcast is read, and the reads of broadcasts that may
    # stand for their operand: (holder, field, name, the other operand or the call). From
    # the first broadcast on (``first``): a top-level statement before it cannot read one
    loads, reads = {}, []
    Name, BinOp, Call, Load, AST = gast.Name, gast.BinOp, gast.Call, gast.Load, gast.AST
    stack = list(reversed(tree.body[first:]))
    pop, push = stack.pop, stack.append
    fields_of = _CHILD_FIELDS
    while stack:  # (the nodes syntax.nodes gives, in another order)
        node = pop()
        kind = type(node)
        if kind is Name:
            if type(node.ctx) is Load and node.id in broadcasts:
                loads[node.id] = loads.get(node.id, 0) + 1
            if getattr(node, "annotation", None) is None:
                continue
        elif kind is BinOp and isinstance(node.op, _ELEMENTWISE_OPERATORS):
            for field, other in (("left", node.right), ("right", node.left)):
                operand = getattr(node, field)
                if type(operand) is Name and operand.id in broadcasts:
                    reads.append((node, field, operand.id, other))
        elif kind is Call and node.args and type(node.args[0]) is Name and len(
                node.args) == 3 and not node.keywords and node.args[0].id in broadcasts:
            reads.append((node.args, 0, node.args[0].id, node))  # maybe rt.unindex(v, x, i)
        elif kind is gast.Constant:
            continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = syntax.child_fields(kind)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    shape_source = shape_sources(tree, env, resolve, aliases, stored)
    sources = {}  # name -> the name shape_source gives (the tree is not changed meanwhile)

    def source_of(identifier):
        if identifier not in sources:
            sources[identifier] = shape_source(syntax.name(identifier)).id
        return sources[identifier]

    # the reads of each broadcast that broadcast its operand themselves: (node, field, index)
    replaceable = {name: [] for name in broadcasts}
    for holder, field, name, other in reads:
        if name not in broadcasts:
            continue
        if type(holder) is list:  # other: the call
            if resolve(other.func) is runtime.unindex and isinstance(
                    shapes.plain(shapes.evaluate(holder[1], env, resolve)), shapes.Array):
                replaceable[name].append((holder, field))
        elif _has_shape_of(other, broadcasts[name][1], env, source_of):
            replaceable[name].append((holder, field))
    for name, (operand, _) in broadcasts.items():
        places = replaceable[name]
        if not places or len(places) != loads.get(name, 0):
            continue  # some reader needs the broadcast array itself
        for holder, field in places:
            if type(holder) is list:
                holder[field] = syntax.deepcopy(operand)
            else:
                setattr(holder, field, syntax.deepcopy(operand))
    return tree


_CHILD_FIELDS: dict = {}  # node type -> syntax.child_fields(type)


def _may_broadcast(statement, resolve) -> bool:
    """Whether ``statement`` may be a ``v = np.broadcast_to(a, n.shape)`` ``_broadcasts``
    finds (its form alone, without the counts)."""
    if type(statement) is not gast.Assign:
        return False
    value = statement.value
    return (type(value) is gast.Call and len(value.args) == 2 and not value.keywords
            and resolve(value.func) is np.broadcast_to)


def _broadcasts(candidates, stores) -> tuple:
    """({v: (a, n)} for the top-level ``v = np.broadcast_to(a, n.shape)``, v assigned there
    only, ``a`` a constant or a name assigned once (so every read of v may read it); the
    position in the body of the first). ``candidates``: the (position, statement) of the
    body's statements of that form (``_may_broadcast``), in order."""
    found, first = {}, None
    for index, statement in candidates:
        if not (len(statement.targets) == 1 and type(statement.targets[0]) is gast.Name):
            continue
        value, name = statement.value, statement.targets[0].id
        if stores.get(name, 0) != 1:
            continue
        operand, shape = value.args
        if not (type(operand) is gast.Constant or (
                type(operand) is gast.Name and stores.get(operand.id, 0) <= 1)):
            continue
        if type(shape) is gast.Attribute and shape.attr == "shape" and type(
                shape.value) is gast.Name and stores.get(shape.value.id, 0) <= 1:
            found[name] = (operand, shape.value.id)
            if first is None:
                first = index
    return found, first


def _has_shape_of(node, name, env, source_of) -> bool:
    """Whether ``node`` is known to have the shape of the array ``name`` (``source_of``:
    a name -> the name of its shape source)."""
    if type(node) is not gast.Name:
        return False
    if node.id == name:
        return True
    kind = shapes.plain(env.get(node.id))
    if not isinstance(kind, shapes.Array) or None in kind.ones or kind != shapes.plain(
            env.get(name)):
        return False
    source = source_of(node.id)
    return source == name or source == source_of(name)
