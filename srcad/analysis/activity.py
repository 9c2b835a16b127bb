"""Activity analysis: which variables need derivatives.

A variable is *varied* if its value depends on a ``wrt`` argument through
differentiable operations, and *useful* if the function's output depends on
it. Only *active* variables (varied and useful) get adjoints or tangents.
Integers from ``len``/``.shape``, comparisons, and results of functions
declared non-differentiable are never varied.

A method srcad cannot resolve (``key.startswith("W")`` on a dict's key, ``name.split()``)
is taken to give a result that needs no derivative (a string, a boolean, an integer):
its target is not varied, and where a varied value reaches it the statement is listed in
``Activity.discrete`` so that the code checks the result when it runs
(transform/insert_discrete_checks.py puts the checks in: runtime.check_discrete raises the
located MissingTemplateError if it is a float after all).

The analysis works on the normalized (A-normal form) function and is
flow-insensitive per name: iterating the statements to a fixed point makes
it correct for loops and branches as well as for straight-line code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from .. import registry, syntax
from ..annotations import not_inlined
from .operations import (COMPARISONS, IDENTITY, UNRESOLVED, Operation, operation_of,
                         operator_operation_of)

_COMPARISON_PRIMITIVES = set(COMPARISONS.values())


@dataclass
class Activity:
    varied: set
    useful: set
    discrete: list = field(default_factory=list)  # unresolved method calls a varied value reaches

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
        return not _is_unresolved_method(operation)  # (checked when the code runs)
    entry = registry.lookup(operation.primitive)
    return entry is None or entry.differentiable


def assignments(tree):
    """(target names, statement) for every assignment in ``tree`` (normalized: only ``if``,
    ``for`` and ``while`` statements hold others), each block's before the blocks nested in
    its statements."""
    Assign, Name, holders = gast.Assign, gast.Name, (gast.If, gast.For, gast.While)
    blocks = [tree.body]
    while blocks:
        nested = []
        for node in blocks.pop():
            kind = type(node)
            if kind is Assign:
                targets = node.targets
                if len(targets) == 1 and type(targets[0]) is Name:
                    yield [targets[0].id], node
                    continue
                yield [n.id for t in targets for n in syntax.walk(t)
                       if isinstance(n, Name)], node
            elif kind in holders:
                nested.append(node.orelse)
                nested.append(node.body)
        blocks.extend(nested)


def analyze_activity(tree: gast.FunctionDef, wrt: list[str], outputs: list[str], resolve) -> Activity:
    # both sets are closures over the statements: varied flows from an operation's
    # arguments to its targets, useful from its targets to its arguments; computed as
    # reachability (each name visited once) rather than by re-running every statement
    # until nothing changes, which costs a round per link of the longest chain
    targets_of, arguments_of = {}, {}
    carries = {}  # id of a resolved primitive -> (it, whether its result carries a derivative)
    unresolved_methods = []  # (statement, argument names)
    for targets, node in assignments(tree):
        value = node.value
        operator = operator_operation_of(value)
        if operator is None and type(value) is gast.Name:  # a copy: operation_of's IDENTITY
            operator = IDENTITY, (value,)
        if operator is not None:  # (the most common statements, read without an Operation)
            primitive, operands = operator
            known = carries.get(id(primitive))
            if known is None:
                known = carries[id(primitive)] = (primitive,
                                                  carries_gradient(Operation(primitive)))
            if not known[1]:
                continue
            arguments = _names_in(operands)
        elif type(value) is gast.Call and (callee := resolve(value.func)) is not UNRESOLVED:
            # a call of a resolved function (most calls): operation_of's primitive and
            # arguments, without building the Operation
            known = carries.get(id(callee))
            if known is None:
                known = carries[id(callee)] = (callee, carries_gradient(Operation(callee)))
            if not known[1]:
                continue
            arguments = _names_in(value.args)
            if value.keywords:
                arguments |= _names_in({k.arg: k.value for k in value.keywords}.values())
        else:
            operation = operation_of(node.value, resolve)
            if _is_unresolved_method(operation):
                unresolved_methods.append((node, operation.argument_names()))
                continue
            if not _carries(operation, carries):
                continue
            arguments = _names_in(operation.args)
            if operation.keywords:
                arguments |= _names_in(operation.keywords.values())
        for argument in arguments:
            targets_of.setdefault(argument, []).append(targets)
        for target in targets:
            arguments_of.setdefault(target, []).append(arguments)
    varied = _reach(wrt, targets_of)
    return Activity(varied, _reach(outputs, arguments_of),
                    [node for node, arguments in unresolved_methods if arguments & varied])


def _carries(operation: Operation, known: dict) -> bool:
    """``carries_gradient(operation)``, remembered in ``known`` per resolved primitive."""
    primitive = operation.primitive
    if primitive is UNRESOLVED:
        return carries_gradient(operation)
    found = known.get(id(primitive))  # (by identity: any callee, hashable or not)
    if found is None:
        # the primitive kept with the answer: its id stays its own while ``known`` lives
        found = known[id(primitive)] = (primitive, carries_gradient(operation))
    return found[1]


def _names_in(nodes) -> set:
    """The identifiers of the names inside ``nodes`` (operands: mostly names and constants,
    read without a walk)."""
    found = set()
    Name, Constant = gast.Name, gast.Constant
    for node in nodes:
        kind = type(node)
        if kind is Name:
            found.add(node.id)
        elif kind is not Constant:
            found.update(n.id for n in syntax.names(node))
    return found


def _is_unresolved_method(operation: Operation) -> bool:
    """A method call on a value of unknown type, not one that waits for an argument's value
    (code for any kind: that call is resolved in the code generated for the values)."""
    call = operation.node
    return (operation.primitive is UNRESOLVED and isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute) and not_inlined(call) is None)


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
