"""Fold constant arithmetic and drop identities that templates leave behind.

After this pass no operator has only constant operands, and none of these
remain: ``e * 1.0``, ``1.0 * e``, ``e / 1.0``, ``e ** 1``, ``e + 0`` (with
a literal zero), ``--e``::

    pow_bar * 2 * x ** (2 - 1)   ->   pow_bar * 2 * x
    5.0 * (4 * a ** 3)           ->   20.0 * a ** 3
    div_bar = 1.0 / n            ->   (unchanged: n is not a constant)

A multiplication by one is dropped only when the other operand cannot be an
integer (an adjoint or tangent, or a variable known to be a float), so value
types never change. Folding only ever drops constants and operators: every name
read or assigned before is read or assigned after (propagate_copies relies on it
to keep what it learned about the statements between its runs).
"""

from __future__ import annotations

import operator

import gast

from .. import syntax
from ..analysis.operations import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS

_FOLDABLE = (int, float, complex)


def fold_constants(tree: gast.FunctionDef, is_floating, only=None,
                   changed: set | None = None, statements=None) -> gast.FunctionDef:
    """``is_floating(name)`` tells variables known to hold floats (adjoints, tangents...).

    Folding a statement depends on nothing but the statement: ``only`` (ids of statements)
    limits the work to those (the others are known to hold nothing to fold: a previous
    run changed nothing in them and nothing else has since); the ids of the statements a
    fold changed (or whose blocks it changed) are added to ``changed``. ``statements``: the
    statements of ``only`` themselves, when known: their own expressions (a loop's or
    branch's header, never its blocks) are folded without a walk over the tree, and only
    their ids are added (one no longer in the tree may be among them only if folding leaves
    it as it is: a copy, whose value is a name or a constant).
    """
    fold = _Fold(is_floating)
    changed = changed if changed is not None else set()
    if statements is None:
        fold.statements([tree], only, changed)
        return tree
    for statement in statements:
        before = fold.replaced
        fold.own(statement)
        if fold.replaced != before:
            changed.add(id(statement))
    return tree


# the statement types that may hold blocks of statements
_HOLDS_BLOCKS = frozenset(kind for kind in vars(gast).values() if isinstance(kind, type)
                          and issubclass(kind, gast.stmt)
                          and {"body", "orelse", "finalbody"} & set(kind._fields))


def _number(node):
    return (type(node) is gast.Constant and isinstance(node.value, _FOLDABLE)
            and not isinstance(node.value, bool))


class _Fold:
    """Folds bottom-up (children first), as a NodeTransformer would, without one: a
    walk that looks each node type's fields up once and skips names and constants."""

    def __init__(self, is_floating):
        self.is_floating = is_floating
        self.replaced = 0  # folds made so far

    def statements(self, block, only, changed):
        """Fold the statements of ``block`` (those in ``only``, when given) and their blocks."""
        stmt = gast.stmt
        for statement in block:
            own = only is None or id(statement) in only
            kind = type(statement)
            if not own and kind not in _HOLDS_BLOCKS:
                continue  # nothing of its own to fold, no block to go into
            before = self.replaced
            for field in syntax.child_fields(kind):
                value = getattr(statement, field, None)
                if type(value) is list and value and isinstance(value[0], stmt):
                    self.statements(value, only, changed)
                elif own:
                    self.field(statement, field, value)
            if self.replaced != before:
                changed.add(id(statement))

    def own(self, statement):
        """Fold ``statement``'s own expressions (not its blocks)."""
        stmt = gast.stmt
        for field in syntax.child_fields(type(statement)):
            value = getattr(statement, field, None)
            if type(value) is list and value and isinstance(value[0], stmt):
                continue  # a block
            self.field(statement, field, value)

    def field(self, statement, field, value):
        """Fold the expressions of ``statement.field`` (its ``value``: a node or a list; the
        statement may be any node)."""
        if type(value) is list:
            for index, item in enumerate(value):
                if isinstance(item, gast.AST):
                    new = self.fold(item)
                    if new is not item:
                        value[index] = new
                        self.replaced += 1
        elif isinstance(value, gast.AST):
            new = self.fold(value)
            if new is not value:
                setattr(statement, field, new)
                self.replaced += 1

    def fold(self, node):
        """``node`` folded (its children in place); the node to put where it stood."""
        kind = type(node)
        if kind is gast.Constant or (
                kind is gast.Name and getattr(node, "annotation", None) is None):
            return node  # (a parameter's annotation is an expression like any other)
        for field in syntax.child_fields(kind):  # children first
            self.field(node, field, getattr(node, field, None))
        rule = _AFTER_CHILDREN.get(kind)
        return node if rule is None else rule(self, node)

    def floating(self, node) -> bool:
        """True if ``node`` certainly evaluates to a float or float array (not an int)."""
        if isinstance(node, gast.Constant):
            return isinstance(node.value, float)
        if isinstance(node, gast.Name):
            return self.is_floating(node.id)
        if isinstance(node, gast.BinOp):
            return self.floating(node.left) or self.floating(node.right)
        if isinstance(node, gast.UnaryOp):
            return self.floating(node.operand)
        return False

    def binary(self, node):
        left, right, op = node.left, node.right, node.op
        left_number, right_number = _number(left), _number(right)
        if not (left_number or right_number):
            return node  # every rule below needs a constant operand
        if left_number and right_number:
            try:
                value = BINARY_OPERATORS[type(op)](left.value, right.value)
            except (ArithmeticError, ValueError, TypeError):
                return node
            if isinstance(value, _FOLDABLE):
                return gast.copy_location(syntax.constant(value), node)
        if isinstance(op, gast.Mult) and left_number and isinstance(right, gast.BinOp) \
                and isinstance(right.op, gast.Mult) and _number(right.left):
            # c1 * (c2 * e) -> (c1 * c2) * e: templates multiply a constant by a
            # coefficient (5.0 * (4 * a ** 3) is 20.0 * a ** 3)
            folded = self.binary(gast.BinOp(left=left, op=gast.Mult(), right=right.left))
            if _number(folded):
                return gast.copy_location(
                    gast.BinOp(left=folded, op=gast.Mult(), right=right.right), node)
        if isinstance(op, gast.Mult):
            if _is(right, 1) and (self.floating(left) or isinstance(right.value, int)):
                return left
            if _is(left, 1) and (self.floating(right) or isinstance(left.value, int)):
                return right
        if isinstance(op, gast.Div) and _is(right, 1) and self.floating(left):
            return left
        if isinstance(op, gast.Pow) and _is(right, 1) and (isinstance(right.value, int)
                                                            or self.floating(left)):
            return left
        if isinstance(op, (gast.Add, gast.Sub)) and _is(right, 0) and self.floating(left):
            return left
        if isinstance(op, gast.Add) and _is(left, 0) and self.floating(right):
            return right
        return node

    def compare(self, node):
        if len(node.ops) == 1 and _constant(node.left) and _constant(node.comparators[0]):
            try:
                value = COMPARISONS[type(node.ops[0])](node.left.value,
                                                        node.comparators[0].value)
            except TypeError:
                return node
            if isinstance(node.ops[0], gast.NotIn):
                value = not value
            if isinstance(value, bool):
                return gast.copy_location(syntax.constant(value), node)
        return node

    def unary(self, node):
        operand = node.operand
        if isinstance(node.op, gast.Not) and _constant(operand):
            return gast.copy_location(syntax.constant(not operand.value), node)
        if _number(operand) and type(node.op) in UNARY_OPERATORS:
            return gast.copy_location(
                syntax.constant(UNARY_OPERATORS[type(node.op)](operand.value)), node)
        if isinstance(node.op, gast.USub) and isinstance(operand, gast.UnaryOp) \
                and isinstance(operand.op, gast.USub):
            return operand.operand
        return node


# the fold of a node once its children are folded, by node type (functions of the class, not
# bound methods: a table of those would make each _Fold a cycle, freed only by the collector)
_AFTER_CHILDREN = {gast.BinOp: _Fold.binary, gast.Compare: _Fold.compare,
                   gast.UnaryOp: _Fold.unary}


def _constant(node) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, (bool, int, float, str,
                                                                       type(None)))


def _is(node, value) -> bool:
    return _number(node) and node.value == value and operator.not_(isinstance(node.value, complex))
