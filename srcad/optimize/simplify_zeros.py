"""Drop terms that multiply a zero tangent (forward mode, when argument kinds are known).

Tangent templates read an explicit zero (``rt.zeros_like(W)``) for an
argument that has no tangent. A product, quotient or matrix product with
such a zero is zero, and adding a zero changes nothing, provided the sum
keeps its shape: shape inference decides that. After this pass::

    dot_dot = np.dot(rt.zeros_like(x), W1) + np.dot(x, W1_dot)
 -> dot_dot = np.dot(x, W1_dot)

    result_dot = z_dot * 2.0 * z + 0.0 * result * rt.log_of_base(z)
 -> result_dot = z_dot * 2.0 * z

A tangent that is zero as a whole becomes ``rt.zeros_like(value)``; in code specialized on
known kinds, every ``rt.zeros_like`` call left then becomes what it reduces to for its
argument's kind (``0.0``, or ``np.zeros(x.shape, ...)``: specialize_runtime_calls leaves
an array's for this pass, which reads the call as a zero).
"""

from __future__ import annotations

import gast

from .. import registry, runtime, syntax
from ..analysis import shapes
from .specialize_runtime_calls import specialize_zeros


def simplify_zeros(tree: gast.FunctionDef, env: dict, resolve, primal_of,
                   aliases, stored: dict | None = None) -> gast.FunctionDef:
    """``primal_of(name)`` gives the value a tangent variable belongs to (None otherwise);
    ``stored``: how often each name is assigned in ``tree``, if counted already (this pass
    never assigns nor drops an assignment)."""
    simplify = _Simplify(env, resolve, primal_of, aliases)
    simplify.visit(tree)
    if simplify.zeros:
        # zeros outside an assignment (a returned tuple) stay; an assignment's value has its
        # own put back, and a statement that held no zero holds no placeholder
        tree = _Restore(simplify.without_zero).visit(tree)
    if env:  # specialized code: the zeros left, as what rt.zeros_like reduces to for their kinds
        tree = specialize_zeros(tree, env, resolve, aliases, simplify.without_zero, stored)
    return tree


_SIMPLE_STATEMENTS = (gast.Assign, gast.AugAssign, gast.Expr, gast.Return, gast.Delete)


class _Zero(gast.AST):
    """Placeholder for a zero subexpression while simplifying (never emitted).

    ``product`` is True for a product with a zero factor: tangent templates write
    every such term with the shape of the whole result, so dropping it from a sum
    never changes the sum's shape (0 * log(x) must go even where log(x) is nan).
    """

    _fields = ()

    def __init__(self, original, product=True):
        super().__init__()
        self.original = original
        self.product = product


class _Restore(gast.NodeTransformer):
    """Put back the zero subexpressions no enclosing expression could drop (not looking into
    assignments, nor into the statements whose ids are in ``without_zero``)."""

    def __init__(self, without_zero=frozenset()):
        super().__init__()
        self.without_zero = without_zero

    def visit(self, node):
        if type(node) is gast.Assign or id(node) in self.without_zero:
            return node
        return super().visit(node)

    def visit__Zero(self, node):  # noqa: N802 - NodeTransformer's naming
        return self.visit(node.original)


class _Simplify(gast.NodeTransformer):
    def __init__(self, env, resolve, primal_of, aliases):
        self.env = env
        self.resolve = resolve
        self.primal_of = primal_of
        self.aliases = aliases
        self.zeros = 0  # zero subexpressions found (placeholders to restore)
        self.without_zero = set()  # ids of the statements left as they were: no zero in them
        self._zeros_like_callees = {}  # callee "f" or ("m", "f") -> whether rt.zeros_like
        self._linear_callees = {}  # callee "f" or ("m", "f") -> linear_in (linear_in)
        self._evaluated = {}  # shapes.evaluate's cache for the pass

    def visit(self, node):
        # most statements hold no zero at all: nothing to simplify there
        if isinstance(node, _SIMPLE_STATEMENTS) and not self.holds_zero(node):
            self.without_zero.add(id(node))
            return node
        return super().visit(node)

    def holds_zero(self, node) -> bool:
        """Whether ``node`` holds a constant 0 or a call of rt.zeros_like (fast: no visitor;
        names, operators and contexts are not looked into), but a constant where none of the
        rewrites below reads it (those read the operands of an operator, and a call's arguments
        at the positions it is linear in): an index (``x[0]``), a keyword (``axis=0``), a
        comparison's operand (``t > 0.0``), another argument of a call."""
        kind = type(node)
        Constant = gast.Constant
        if kind is gast.Name:
            if getattr(node, "annotation", None) is None:
                return False
        elif kind is Constant:
            return self.is_zero(node)
        elif kind is gast.BinOp:
            return self.holds_zero(node.left) or self.holds_zero(node.right)
        elif kind is gast.Call:
            if self.calls_zeros_like(node) or self.holds_zero(node.func):
                return True
            linear = None
            for position, argument in enumerate(node.args):
                if type(argument) is Constant:
                    if linear is None:
                        linear = self.linear_in(node)
                    if position in linear and self.is_zero(argument):
                        return True
                elif self.holds_zero(argument):
                    return True
            for keyword in node.keywords:
                if type(keyword.value) is not Constant and self.holds_zero(keyword.value):
                    return True
            return False
        elif kind is gast.Attribute:
            return self.holds_zero(node.value)
        elif kind is gast.Subscript:
            return (type(node.value) is not Constant and self.holds_zero(node.value)) or (
                type(node.slice) is not Constant and self.holds_zero(node.slice))
        elif kind is gast.Compare:
            for operand in [node.left] + node.comparators:
                if type(operand) is not Constant and self.holds_zero(operand):
                    return True
            return False
        elif kind is gast.Expr:
            return self.holds_zero(node.value)
        elif kind is gast.Assign:
            for target in node.targets:
                if self.holds_zero(target):
                    return True
            return self.holds_zero(node.value)
        return self._holds_zero_anywhere(node)  # (the other forms: every field looked into)

    def _holds_zero_anywhere(self, node) -> bool:
        """``holds_zero`` for any node: every child looked into."""
        stack = [node]
        pop, extend = stack.pop, stack.extend
        Constant, Call, Name = gast.Constant, gast.Call, gast.Name
        while stack:
            current = pop()
            kind = type(current)
            if kind is Name and getattr(current, "annotation", None) is None:
                continue
            if kind is Constant:
                if self.is_zero(current):
                    return True
                continue
            if kind is Call and self.calls_zeros_like(current):
                return True
            extend(syntax.children(current))
        return False

    def calls_zeros_like(self, call) -> bool:
        """Whether ``call`` calls rt.zeros_like (kept per callee ``f`` or ``m.f``: what a
        name refers to stays the same during the pass)."""
        return _per_callee(call.func, self._zeros_like_callees,
                           lambda func: self.resolve(func) is runtime.zeros_like)

    def linear_in(self, call) -> tuple:
        """The argument positions ``call``'s callee is linear in, where visit_Call reads a zero
        (none for a callee with an effect), kept per callee ``f`` or ``m.f``."""
        return _per_callee(call.func, self._linear_callees, self._linear_in)

    def _linear_in(self, func) -> tuple:
        entry = registry.lookup(self.resolve(func))
        return tuple(entry.linear_in) if entry is not None and entry.pure else ()

    def zero(self, original, product=True):
        self.zeros += 1
        return _Zero(original, product)

    def kind(self, node):
        return shapes.plain(shapes.evaluate(node, self.env, self.resolve, self._evaluated))

    def is_zero(self, node) -> bool:
        if isinstance(node, _Zero):
            return True
        if isinstance(node, gast.Constant) and not isinstance(node.value, bool) and isinstance(
                node.value, (int, float)) and node.value == 0:
            return True
        return (isinstance(node, gast.Call) and self.resolve(node.func) is runtime.zeros_like
                and len(node.args) == 1)

    def visit_Assign(self, node):
        original = syntax.deepcopy(node.value)
        value = self.visit(node.value)
        target = node.targets[0]
        primal = self.primal_of(target.id) if isinstance(target, gast.Name) else None
        if isinstance(value, _Zero):
            value = original if primal is None else syntax.call(
                syntax.attribute(self.aliases.name_for(runtime), "zeros_like"),
                syntax.name(primal))
        node.value = _Restore().visit(value)
        return node

    def visit_BinOp(self, node):
        whole = self.kind(node)
        self.generic_visit(node)
        left_zero, right_zero = self.is_zero(node.left), self.is_zero(node.right)
        if isinstance(node.op, (gast.Mult, gast.MatMult)) and (left_zero or right_zero):
            return self.zero(node)
        if isinstance(node.op, gast.Div) and left_zero:
            return self.zero(node)
        if isinstance(node.op, (gast.Add, gast.Sub)):
            if left_zero and right_zero:
                return self.zero(node, product=self.product(node.left) and self.product(node.right))
            if right_zero and (self.product(node.right) or self.same_kind(node.left, whole)):
                return node.left
            if left_zero and (self.product(node.left) or self.same_kind(node.right, whole)):
                if isinstance(node.op, gast.Sub):
                    return gast.UnaryOp(op=gast.USub(), operand=node.right)
                return node.right
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (gast.USub, gast.UAdd)) and self.is_zero(node.operand):
            return self.zero(node, product=self.product(node.operand))
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        callee = self.resolve(node.func)
        # linear in each of these positions: a zero argument there makes the result zero (a
        # call with an effect, such as a check, stays)
        entry = registry.lookup(callee)
        positions = entry.linear_in if entry is not None and entry.pure else ()
        if any(p < len(node.args) and self.is_zero(node.args[p]) for p in positions):
            return self.zero(node)
        return node

    @staticmethod
    def product(node) -> bool:
        return isinstance(node, _Zero) and node.product

    def same_kind(self, part, whole) -> bool:
        if isinstance(part, _Zero):
            return False
        kind = self.kind(part)
        if isinstance(kind, shapes.Scalar) and isinstance(whole, shapes.Scalar):
            return True
        return isinstance(kind, shapes.Array) and kind == whole and None not in kind.ones


def _per_callee(func, kept: dict, answer):
    """``answer(func)``, kept in ``kept`` per callee ``f`` or ``m.f`` (other callees are
    answered each time)."""
    if type(func) is gast.Attribute and type(func.value) is gast.Name:
        key = (func.value.id, func.attr)
    elif type(func) is gast.Name:
        key = func.id
    else:
        return answer(func)
    found = kept.get(key)
    if found is None:
        found = kept[key] = answer(func)
    return found
