"""Activity analysis: which variables need derivatives.

A variable is *varied* if its value depends on a ``wrt`` argument through
differentiable operations, and *useful* if the function's output depends on
it. Only *active* variables (varied and useful) get adjoints or tangents.
Integers from ``len``/``.shape``, comparisons, and results of functions
declared non-differentiable are never varied.

The analysis works on the normalized (A-normal form) function and is
flow-insensitive per name: iterating the statements to a fixed point makes
it correct for loops and branches as well as for straight-line code.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from .. import registry
from .operations import COMPARISONS, UNRESOLVED, Operation, operation_of

_COMPARISON_PRIMITIVES = set(COMPARISONS.values())


@dataclass
class Activity:
    varied: set
    useful: set

    @property
    def active(self) -> set:
        return self.varied & self.useful

    def is_active(self, name: str) -> bool:
        return name in self.varied and name in self.useful


def carries_gradient(operation: Operation) -> bool:
    """False for operations whose result never carries a derivative."""
    if operation.primitive in _COMPARISON_PRIMITIVES:
        return False
    if operation.primitive is UNRESOLVED:
        return True
    entry = registry.lookup(operation.primitive)
    return entry is None or entry.differentiable


def assignments(tree):
    """(target names, Operation, statement) for every assignment in ``tree``, in order."""
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign):
            targets = [n.id for t in node.targets for n in gast.walk(t) if isinstance(n, gast.Name)]
            yield targets, node


def analyze_activity(tree: gast.FunctionDef, wrt: list[str], outputs: list[str], resolve) -> Activity:
    statements = [(targets, operation_of(node.value, resolve)) for targets, node in assignments(tree)]
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for targets, operation in statements:
            if not carries_gradient(operation):
                continue
            if operation.argument_names() & varied and not set(targets) <= varied:
                varied |= set(targets)
                changed = True
    useful = set(outputs)
    changed = True
    while changed:
        changed = False
        for targets, operation in statements:
            if not carries_gradient(operation) or not set(targets) & useful:
                continue
            needed = operation.argument_names() - useful
            if needed:
                useful |= needed
                changed = True
    return Activity(varied, useful)
