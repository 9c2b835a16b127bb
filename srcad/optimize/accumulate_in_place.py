"""Accumulate into an adjoint array in place when nothing else can see it.

``x_bar = x_bar + e`` allocates a new array each time; ``x_bar += e`` reuses
x_bar's memory, which matters inside loops. It is only correct when x_bar's
current value is an array this function created and never shared: not a
copy of another name, not a view (reshape, transpose, broadcast, indexing),
not something a helper may have returned unchanged. After this pass::

    Wx_bar = rt.zeros_like(Wx)                    Wx_bar = rt.zeros_like(Wx)
    for t in reversed(range(n)):          ->      for t in reversed(range(n)):
        Wx_bar = Wx_bar + np.dot(a.T, g)              Wx_bar += np.dot(a.T, g)

Adding the adjoint of an indexing (``rt.unindex(g, x, i)``, an array of x's
shape that is zero but at i) becomes ``rt.add_at(x_bar, i, g)``: no
x-sized array per loop iteration.

Only adjoint variables are rewritten; a name stops being *owned* as soon as
it is used in any way other than as an operand of arithmetic or an argument
of a function known to allocate its result.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, runtime, syntax
from .statement_facts import StatementFacts


def accumulate_in_place(tree: gast.FunctionDef, is_derivative, resolve,
                        facts: StatementFacts | None = None) -> gast.FunctionDef:
    """``facts``: what earlier passes learned about the statements (statement_facts.py)."""
    _InPlace(is_derivative, resolve, facts or StatementFacts(resolve)).block(tree.body, set())
    return tree


_Assign, _Name, _BinOp = gast.Assign, gast.Name, gast.BinOp  # (looked up once)
_ACCUMULATING = (gast.Add, gast.Sub)  # the operators of x = x + e that become x += e


class _InPlace:
    def __init__(self, is_derivative, resolve, facts):
        self.is_derivative = is_derivative
        self.resolve = resolve
        self.facts = facts  # a statement reading no owned name cannot share one: skipped
        self.dry = False  # when set, work out ownership without rewriting anything
        # what a loop's body is walked again for (its fixed point), worked out once: the
        # nodes are never changed here (a statement rewritten is a new one)
        self.escapes = {}  # id(node) -> (node, the names escaping from it)
        self.allocates = {}  # id(value) -> (value, whether evaluating it makes a new object)
        self.derivatives = {}  # name -> whether it is an adjoint (or a tangent)

    def fresh(self, value) -> bool:
        """True if evaluating ``value`` creates a new object nothing else refers to."""
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        if isinstance(value, gast.Call):
            callee = self.resolve(value.func)
            return isinstance(callee, np.ufunc) or registry.fact(callee, "allocating", False)
        return False

    def escaping(self, node) -> set:
        """Names read by ``node`` in a way that may keep a reference to their value."""
        found = self.escapes.get(id(node))
        if found is None:
            names = set()
            self._escaping(node, names, safe=False)
            found = self.escapes[id(node)] = (node, names)
        return found[1]

    def _escaping(self, node, names, safe):
        """Into ``names``: the names read in ``node`` in a way that may keep a reference to
        their value (``safe``: ``node``'s own value is only an operand, never kept)."""
        Name, Load, Attribute, Call = gast.Name, gast.Load, gast.Attribute, gast.Call
        BinOp, UnaryOp, Compare, AST = gast.BinOp, gast.UnaryOp, gast.Compare, gast.AST
        child_fields = syntax.child_fields
        stack = [(node, safe)]
        pop, push = stack.pop, stack.append
        while stack:
            node, safe = pop()
            kind = type(node)
            if kind is Name:
                if type(node.ctx) is Load and not safe:
                    names.add(node.id)
                continue
            if kind is BinOp:  # an operand's value is read, never kept
                push((node.left, True))
                push((node.right, True))
                continue
            if kind is UnaryOp:
                push((node.operand, True))
                continue
            if kind is Compare:
                push((node.left, True))
                for child in node.comparators:
                    push((child, True))
                continue
            if kind is Call and self.fresh(node):  # an allocating call keeps no argument
                push((node.func, False))
                for child in node.args:
                    push((child, True))
                for child in node.keywords:
                    push((child.value, True))
                continue
            if kind is Attribute and node.attr in ("T", "shape", "ndim", "size"):
                # x.T is a view; passed on as an operand it is safe, stored it is not
                push((node.value, safe and node.attr != "T"))
                continue
            for field in child_fields(kind):
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, AST):
                            push((item, False))
                elif isinstance(value, AST):
                    push((value, False))

    def in_place(self, name, value, statement):
        """``x_bar += e``; for ``e = rt.unindex(g, x, i)``, ``rt.add_at(x_bar, i, g)``."""
        right = value.right
        if (isinstance(value.op, gast.Add) and isinstance(right, gast.Call)
                and self.resolve(right.func) is runtime.unindex and len(right.args) == 3):
            g, _, index = right.args
            helper = gast.Attribute(value=right.func.value, attr="add_at", ctx=gast.Load())
            call = gast.Call(func=helper, args=[syntax.name(name), index, g], keywords=[])
            return syntax.copy_location(gast.Expr(value=call), statement)
        return syntax.copy_location(gast.AugAssign(target=syntax.name(name, store=True),
                                                   op=value.op, value=right), statement)

    def block(self, statements, owned: set) -> set:
        for index, statement in enumerate(statements):
            owned = self.statement(statements, index, statement, owned)
        return owned

    def statement(self, statements, index, s, owned) -> set:
        """What is owned after ``s`` (``owned``, what is owned before it, is the caller's to
        change, and changed here: every block is given a set of its own)."""
        # what escapes is read: a statement (a loop's or branch's header) reading no owned
        # name leaves the owned names as they are
        reads_owned = False
        if owned:
            entry = self.facts.entries.get(id(s)) or self.facts.entry(s)
            reads_owned = not owned.isdisjoint(entry.read)
        kind = type(s)
        if kind is _Assign and len(s.targets) == 1 and type(s.targets[0]) is _Name:
            name = s.targets[0].id
            value = s.value
            # (x = x + e: x read once in it, by the left operand, is read nowhere in e)
            if (name in owned and type(value) is _BinOp and type(value.op) in _ACCUMULATING
                    and type(value.left) is _Name and value.left.id == name
                    and entry.loaded.count(name) == 1):
                owned -= self.escaping(value.right)
                if not self.dry:
                    statements[index] = self.in_place(name, value, s)
                    self.facts.rewritten(s, statements[index])
                return owned
            if reads_owned:
                owned -= self.escaping(value)
            owned.discard(name)
            derivative = self.derivatives.get(name)
            if derivative is None:
                derivative = self.derivatives[name] = self.is_derivative(name)
            if derivative:
                allocates = self.allocates.get(id(value))
                if allocates is None:
                    allocates = self.allocates[id(value)] = (value, self.fresh(value))
                if allocates[1]:
                    owned.add(name)
            return owned
        if kind is gast.For or kind is gast.While:
            header = s.iter if kind is gast.For else s.test
            if reads_owned:
                owned -= self.escaping(header)
            # what is owned at the top of every iteration: fixed point over the body
            entry = set(owned)
            dry, self.dry = self.dry, True
            for _ in range(5):
                after = self.block(s.body, set(entry))
                if entry <= after:
                    break
                entry &= after
            self.dry = dry
            self.block(s.body, set(entry))
            return entry
        if kind is gast.If:
            if reads_owned:
                owned -= self.escaping(s.test)
            after_body = self.block(s.body, set(owned))
            after_else = self.block(s.orelse, set(owned))
            return after_body & after_else
        if reads_owned:
            owned -= self.escaping(s)
        return owned
