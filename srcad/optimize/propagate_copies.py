"""Copy and constant propagation within each block.

For ``a = b`` (``b`` a name or a constant), later statements of the same block
read ``b`` instead of ``a`` until ``a`` or ``b`` is assigned again. When that
replaced every read of ``a`` in the function, the copy itself goes::

    div_bar = 1.0                  sum_bar = 1.0 / n
    sum_bar = div_bar / n     ->   h_bar = np.dot(add_bar, W2.T)
    out_bar = add_bar
    h_bar = np.dot(out_bar, W2.T)

    x_2_bar = x_bar                    (inside a loop body)
    x_2_bar = x_2_bar + g     ->   x_2_bar = x_bar + g

A loop or branch inside the range is entered only if it assigns neither
name; ``a = a`` left behind by the replacement is removed.
"""

from __future__ import annotations

from collections import Counter

import gast

from .. import syntax


def propagate_copies(tree: gast.FunctionDef) -> gast.FunctionDef:
    params = {a.id for a in tree.args.args}
    for _ in range(4):  # a copy made constant by an outer one propagates on the next round
        reads = Counter(n.id for n in syntax.names(tree) if isinstance(n.ctx, gast.Load))
        changes = [0]
        tree.body = _block(tree.body, params, reads, changes)
        if not changes[0]:
            break
    return tree


def _is_copy(statement, params) -> bool:
    return (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
            and statement.targets[0].id not in params
            and isinstance(statement.value, (gast.Name, gast.Constant)))


def _block(statements, params, reads, changes):
    """One forward walk over the block, carrying the copies in effect (target -> source).

    A copy is in effect from the statement after it until a statement assigns its
    target or its source; a loop or branch assigning neither is replaced in whole.
    """
    statements = list(statements)
    for statement in statements:
        for field in ("body", "orelse"):
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                setattr(statement, field, _block(getattr(statement, field), params, reads, changes)
                        or ([gast.Pass()] if field == "body" else []))
    active = {}  # target -> (source, copy statement, count of reads replaced)
    blocking = {}  # name -> targets of the copies in effect that assigning it ends
    dropped = set()  # ids of copies no read can see any more

    def end(target, overwritten):
        source, copy, replaced = active.pop(target)
        for name in _blockers(target, source):
            blocking[name].discard(target)
        reads[target] -= replaced
        changes[0] += replaced
        if isinstance(source, gast.Name):
            reads[source.id] += replaced
        if reads[target] == 0 or overwritten:
            changes[0] += 1
            dropped.add(id(copy))

    for statement in statements:
        stored = syntax.stored_names(statement)  # replacing never changes them
        compound = isinstance(statement, (gast.For, gast.While, gast.If))
        blocked = sorted({t for name in stored for t in blocking.get(name, ())})
        if compound:
            for target in blocked:
                end(target, False)
            if active:
                _substitute(statement, active)
            continue
        if active and isinstance(statement, (gast.Assign, gast.Expr, gast.Return)) \
                and statement.value is not None:
            statement.value = _substitute(statement.value, active)
        for target in blocked:
            end(target, target in stored and isinstance(statement, gast.Assign))
        if _is_self_assignment(statement):
            changes[0] += 1
            dropped.add(id(statement))
        elif _is_copy(statement, params):
            target = statement.targets[0].id
            active[target] = (statement.value, statement, 0)
            for name in _blockers(target, statement.value):
                blocking.setdefault(name, set()).add(target)
    for target in list(active):
        end(target, False)
    return [s for s in statements if id(s) not in dropped]


def _blockers(target, source) -> tuple:
    """The names whose assignment ends the copy ``target = source``."""
    return (target, source.id) if isinstance(source, gast.Name) else (target,)


def _is_self_assignment(statement) -> bool:
    return (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
            and isinstance(statement.value, gast.Name)
            and statement.value.id == statement.targets[0].id)


def _substitute(node, active):
    """``node`` with every read of a copy's target replaced by its source (counted in
    ``active``); returns the node (a different one when ``node`` itself was replaced)."""
    Name, Load, AST = gast.Name, gast.Load, gast.AST

    def replacement(child):
        if type(child) is Name and type(child.ctx) is Load and child.id in active:
            source, copy, replaced = active[child.id]
            active[child.id] = (source, copy, replaced + 1)
            return gast.copy_location(syntax.deepcopy(source), child)
        return None

    top = replacement(node)
    if top is not None:
        return top
    stack = [node]
    while stack:
        current = stack.pop()
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, AST):
                        new = replacement(item)
                        if new is not None:
                            value[index] = new
                        elif type(item) is not Name:
                            stack.append(item)
            elif isinstance(value, AST):
                new = replacement(value)
                if new is not None:
                    setattr(current, field, new)
                elif type(value) is not Name:
                    stack.append(value)
    return node
