"""Turn ``sum`` over a generator expression or list comprehension into a loop.

Used by to_anf (normalize/to_anf.py) at the very point where the sum is evaluated,
so a sum inside a loop header, a ``while`` test, a conditional expression, an
``and``/``or`` operand or another sum's element runs exactly when Python would
run it (a ``while`` test's sum in every iteration, a nested sum once per outer
element). After to_anf no comprehension is summed: each one became an
accumulating loop, and ``sum`` of a literal list or tuple a chain of additions::

    total = sum(w[i] * x[i] for i in range(n) if i != k)

        total_sum = 0
        for i_2 in range(n):
            if i_2 != k:
                total_sum = total_sum + w[i_2] * x[i_2]
        total = total_sum

The comprehension's own variables get fresh names (in Python they do not
leak out of it). Other uses of comprehensions are rejected by the fence.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..naming import Namer


def is_summation(call, resolve) -> bool:
    """``sum(...)`` with one or two positional arguments: what this module lowers."""
    return (isinstance(call, gast.Call) and not call.keywords and 1 <= len(call.args) <= 2
            and resolve(call.func) is sum)


def summed_literal(call):
    """``sum((a, b), start)`` as ``start + a + b``; None if the items are not a literal."""
    items = call.args[0]
    if not isinstance(items, (gast.List, gast.Tuple)) or any(
            isinstance(e, gast.Starred) for e in items.elts):
        return None
    total = call.args[1] if len(call.args) > 1 else syntax.constant(0)
    for element in items.elts:
        total = gast.BinOp(left=total, op=gast.Add(), right=element)
    return gast.copy_location(total, call)


def summation_loop(call, namer: Namer):
    """``sum(<comprehension>, start)`` as (statements computing it, the total's name).

    None if the argument is not a comprehension. The statements are user-level
    Python (the loop iterates over whatever the comprehension did); the caller
    normalizes them like any other statements.
    """
    generator = call.args[0]
    if not isinstance(generator, (gast.GeneratorExp, gast.ListComp)) or any(
            clause.is_async for clause in generator.generators):
        return None
    result = namer.fresh("total")
    start = call.args[1] if len(call.args) > 1 else syntax.constant(0)
    statements = [syntax.assign(result, syntax.deepcopy(start))]
    renames = {}
    for clause in generator.generators:
        for n in syntax.names(clause.target):
            renames.setdefault(n.id, namer.fresh(n.id))

    def renamed(node):
        return syntax.rename(syntax.deepcopy(node), renames)

    element = renamed(generator.elt)
    body = [syntax.assign(result, gast.BinOp(left=syntax.name(result), op=gast.Add(),
                                             right=element))]
    for position, clause in reversed(list(enumerate(generator.generators))):
        for condition in reversed(clause.ifs):
            body = [gast.If(test=renamed(condition), body=body, orelse=[])]
        target = renamed(clause.target)
        for n in syntax.names(target):
            n.ctx = gast.Store()
        # the first clause's iterable is evaluated where the generator is made, in the
        # enclosing scope; later ones inside it, where the earlier targets are bound
        iterator = syntax.deepcopy(clause.iter) if position == 0 else renamed(clause.iter)
        body = [gast.For(target=target, iter=iterator, body=body, orelse=[],
                         type_comment=None)]
    statements.extend(body)
    for statement in statements:
        for node in syntax.walk(statement):
            if isinstance(node, gast.stmt):
                gast.copy_location(node, call)
    return statements, result
