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

from .. import registry, syntax
from .operations import (COMPARISONS, UNRESOLVED, Operation, operation_of,
                         operator_operation_of)

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
    for node in syntax.statements(tree):
        if isinstance(node, gast.Assign):
            targets = node.targets
            if len(targets) == 1 and type(targets[0]) is gast.Name:
                yield [targets[0].id], node
                continue
            yield [n.id for t in targets for n in syntax.walk(t) if isinstance(n, gast.Name)], node


def analyze_activity(tree: gast.FunctionDef, wrt: list[str], outputs: list[str], resolve) -> Activity:
    # both sets are closures over the statements: varied flows from an operation's
    # arguments to its targets, useful from its targets to its arguments; computed as
    # reachability (each name visited once) rather than by re-running every statement
    # until nothing changes, which costs a round per link of the longest chain
    targets_of, arguments_of = {}, {}
    operators = {}  # operator primitive -> whether its result carries a derivative
    for targets, node in assignments(tree):
        operator = operator_operation_of(node.value)
        if operator is not None:  # (the most common statement, read without an Operation)
            primitive, operands = operator
            if primitive not in operators:
                operators[primitive] = carries_gradient(Operation(primitive))
            if not operators[primitive]:
                continue
            arguments = {n.id for n in syntax.names(list(operands))}
        else:
            operation = operation_of(node.value, resolve)
            if not carries_gradient(operation):
                continue
            arguments = operation.argument_names()
        for argument in arguments:
            targets_of.setdefault(argument, []).append(targets)
        for target in targets:
            arguments_of.setdefault(target, []).append(arguments)
    return Activity(_reach(wrt, targets_of), _reach(outputs, arguments_of))


def _reach(start, edges) -> set:
    """``start`` and every name reachable from it through ``edges`` (name -> name groups)."""
    reached = set(start)
    pending = list(reached)
    while pending:
        for group in edges.get(pending.pop(), ()):
            for name in group:
                if name not in reached:
                    reached.add(name)
                    pending.append(name)
    return reached
