"""Turn ``sum`` over a generator expression or list comprehension into a loop.

Runs first in normalize. After this pass no comprehension is summed: each
``sum(...)`` of one becomes an accumulating loop placed just before the
statement that used it, and ``sum`` of a literal list or tuple becomes a
chain of additions::

    total = sum(w[i] * x[i] for i in range(n) if i != k)

        total_sum = 0
        for i_2 in range(n):
            if i_2 != k:
                total_sum = total_sum + w[i_2] * x[i_2]
        total = total_sum

The comprehension's own variables get fresh names (in Python they do not
leak out of it). Other uses of comprehensions are left for the fence to
report.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..naming import Namer


def lower_comprehensions(statements, namer: Namer, resolve) -> list:
    lowering = _Lower(namer, resolve)
    return lowering.block(statements)


class _Lower:
    def __init__(self, namer, resolve):
        self.namer = namer
        self.resolve = resolve

    def block(self, statements):
        out = []
        for statement in statements:
            for field in ("body", "orelse"):
                if isinstance(statement, (gast.For, gast.While, gast.If, gast.FunctionDef)) \
                        and hasattr(statement, field):
                    setattr(statement, field, self.block(getattr(statement, field)))
            if isinstance(statement, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return,
                                      gast.Expr, gast.If)):
                hoisted = []
                rewriter = _Rewrite(self, hoisted)
                if isinstance(statement, gast.If):
                    statement.test = rewriter.visit(statement.test)
                else:
                    for field in ("value", "targets", "target"):
                        part = getattr(statement, field, None)
                        if isinstance(part, list):
                            setattr(statement, field, [rewriter.visit(p) for p in part])
                        elif part is not None:
                            setattr(statement, field, rewriter.visit(part))
                for node in hoisted:
                    gast.copy_location(node, statement)
                    for inner in gast.walk(node):
                        if isinstance(inner, gast.stmt) and not hasattr(inner, "lineno"):
                            gast.copy_location(inner, statement)
                out.extend(hoisted)
            out.append(statement)
        return out

    def is_sum(self, node) -> bool:
        return (isinstance(node, gast.Call) and self.resolve(node.func) is sum
                and not node.keywords and 1 <= len(node.args) <= 2)

    def loop(self, comprehension, hoisted):
        result = self.namer.fresh("total")
        start = (comprehension.args[1] if len(comprehension.args) > 1
                 else syntax.constant(0))
        hoisted.append(syntax.assign(result, start))
        generator = comprehension.args[0]
        renames = {}
        for clause in generator.generators:
            for n in syntax.names(clause.target):
                renames[n.id] = self.namer.fresh(n.id)
        def renamed(node):
            return syntax.rename(syntax.deepcopy(node), renames)

        element = renamed(generator.elt)
        body = [syntax.assign(result, gast.BinOp(left=syntax.name(result), op=gast.Add(),
                                                 right=element))]
        for clause in reversed(generator.generators):
            for condition in reversed(clause.ifs):
                body = [gast.If(test=renamed(condition), body=body, orelse=[])]
            target = renamed(clause.target)
            for n in syntax.names(target):
                n.ctx = gast.Store()
            iterator = renamed(clause.iter)
            body = [gast.For(target=target, iter=iterator, body=body, orelse=[],
                             type_comment=None)]
        hoisted.extend(body)
        return syntax.name(result)


class _Rewrite(gast.NodeTransformer):
    def __init__(self, lowering, hoisted):
        self.lowering = lowering
        self.hoisted = hoisted

    def visit_Lambda(self, node):
        return node  # its body runs later, when called: leave it alone

    def visit_Call(self, node):
        self.generic_visit(node)
        if not self.lowering.is_sum(node):
            return node
        items = node.args[0]
        if isinstance(items, (gast.GeneratorExp, gast.ListComp)) and all(
                not clause.is_async for clause in items.generators):
            return gast.copy_location(self.lowering.loop(node, self.hoisted), node)
        if isinstance(items, (gast.List, gast.Tuple)) and not any(
                isinstance(e, gast.Starred) for e in items.elts):
            total = node.args[1] if len(node.args) > 1 else syntax.constant(0)
            for element in items.elts:
                total = gast.BinOp(left=total, op=gast.Add(), right=element)
            return gast.copy_location(total, node)
        return node
