"""Fold constant arithmetic and drop identities that templates leave behind.

After this pass no operator has only constant operands, and none of these
remain: ``e * 1.0``, ``1.0 * e``, ``e / 1.0``, ``e ** 1``, ``e + 0`` (with
a literal zero), ``--e``::

    pow_bar * 2 * x ** (2 - 1)   ->   pow_bar * 2 * x
    5.0 * (4 * a ** 3)           ->   20.0 * a ** 3
    div_bar = 1.0 / n            ->   (unchanged: n is not a constant)

A multiplication by one is dropped only when the other operand cannot be an
integer (an adjoint or tangent, or a variable known to be a float), so value
types never change.
"""

from __future__ import annotations

import operator

import gast

from .. import syntax
from ..analysis.operations import BINARY_OPERATORS, COMPARISONS, UNARY_OPERATORS

_FOLDABLE = (int, float, complex)


def fold_constants(tree: gast.FunctionDef, is_floating) -> gast.FunctionDef:
    """``is_floating(name)`` tells variables known to hold floats (adjoints, tangents...)."""
    return _Fold(is_floating).visit(tree)


def _number(node):
    return (isinstance(node, gast.Constant) and isinstance(node.value, _FOLDABLE)
            and not isinstance(node.value, bool))


_SIMPLE_STATEMENTS = (gast.Assign, gast.AugAssign, gast.Expr, gast.Return, gast.Delete)


def _foldable(node) -> bool:
    """Whether ``node`` holds a constant or a unary operator: every fold needs one."""
    return syntax.holds(node, lambda n: type(n) is gast.Constant or type(n) is gast.UnaryOp)


class _Fold(gast.NodeTransformer):
    def __init__(self, is_floating):
        self.is_floating = is_floating

    def visit(self, node):
        if isinstance(node, _SIMPLE_STATEMENTS) and not _foldable(node):
            return node  # most statements: nothing to fold, no need for the visitor
        return super().visit(node)

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

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if _number(left) and _number(right):
            try:
                value = BINARY_OPERATORS[type(op)](left.value, right.value)
            except (ArithmeticError, ValueError, TypeError):
                return node
            if isinstance(value, _FOLDABLE):
                return gast.copy_location(syntax.constant(value), node)
        if isinstance(op, gast.Mult) and _number(left) and isinstance(right, gast.BinOp) \
                and isinstance(right.op, gast.Mult) and _number(right.left):
            # c1 * (c2 * e) -> (c1 * c2) * e: templates multiply a constant by a
            # coefficient (5.0 * (4 * a ** 3) is 20.0 * a ** 3)
            folded = self.visit_BinOp(gast.BinOp(left=left, op=gast.Mult(), right=right.left))
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

    def visit_Compare(self, node):
        self.generic_visit(node)
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

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
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


def _constant(node) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, (bool, int, float, str,
                                                                       type(None)))


def _is(node, value) -> bool:
    return _number(node) and node.value == value and operator.not_(isinstance(node.value, complex))
