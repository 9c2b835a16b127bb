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

from .. import registry, runtime, syntax
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
    forms = {}  # name -> (form, sources) of the assignments _element_form knows
    element_reads = []  # (targets, tuple name, index) of each ``x = t[k]``
    for targets, node in assignments(tree):
        value = node.value
        if len(node.targets) == 1 and type(node.targets[0]) is gast.Name:
            form = _element_form(value, resolve)
            if form is not None:
                forms.setdefault(targets[0], []).append(form)
                if form[0] == "element":  # (its edges once the followed names are known)
                    element_reads.append((targets, form[1][0], _constant_index(value.slice)))
                    continue
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
    _element_edges(tree, forms, element_reads, targets_of, arguments_of)
    # (the nodes of element positions are no names: the sets hold names only)
    varied = {name for name in _reach(wrt, targets_of) if type(name) is str}
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


# ---- elements of tuples, and of the tuples a list holds: followed one by one
#
# Generated code records values in a loop on a tape and reads them back in the adjoint loop
# (transform/reverse.py). Differentiated again (hvp, grad of grad), normalized, that is
#
#     items = a, b               tape = rt.appended(_tape, items)       _tape = tape
#     popped = _tape[-1]         tape_2 = rt.all_but_last(_tape)        b_2 = popped[1]
#
# Taken whole, the tape is varied as soon as one recorded value is, and so is every value
# read back: a value that is no derivative's (a constant array, a count) would then need one,
# and a function without a derivative in that argument (scipy.stats.dirichlet.pdf's x, a
# Bessel function's order) could not be differentiated again. So for the names made and read
# only this way, each element position has its own node, (name, k), with (name, "*") for
# elements that are not tuples made here: ``b_2 = popped[1]`` reads (popped, 1) and
# (popped, "*"), which only b's node and whole values appended reach. Every other
# reading of those names still reads the whole name, which every edge reaches as before.

_ANY = "*"  # the node of the elements of unknown position (whole values appended)


def _element_edges(tree, forms: dict, element_reads: list, targets_of: dict,
                   arguments_of: dict) -> None:
    """Add the edges of the element reads ``x = t[k]`` (``element_reads``: targets, t, k) to
    ``targets_of`` (varied: from t's node of element k where t is followed, else from t) and
    ``arguments_of`` (useful: t whole), and the edges between the element positions of the
    followed names (``forms``: how each name is assigned, where _element_form knows it)."""
    followed = set()
    if any(name in forms for _, name, _ in element_reads):
        # a name assigned any other way (a loop's target, unpacking, del...) or a parameter
        # is not followed
        stored_otherwise = {a.id for a in syntax.parameters(tree.args)} | {
            name for name, count in syntax.assignment_counts(tree).items()
            if count != len(forms.get(name, ()))}
        tuples, lists = _followed(forms, stored_otherwise)
        followed = tuples
        _link_positions(forms, tuples, lists, targets_of)
    for targets, name, index in element_reads:
        if name in followed and index >= 0:
            sources = ((name, index), (name, _ANY))
        else:
            sources = (name,)  # (operation_of's: t[k] reads t)
        for source in sources:
            targets_of.setdefault(source, []).append(targets)
        arguments_of.setdefault(targets[0], []).append({name})


def _link_positions(forms, tuples, lists, edges) -> None:
    """The edges between the element positions of the followed ``tuples`` and ``lists``."""
    width = max([len(sources) for name in tuples for form, sources in forms[name]
                 if form == "tuple"], default=0)
    positions = list(range(width)) + [_ANY]

    def link(source, target):
        edges.setdefault(source, []).append([target])

    for name in tuples | lists:
        for form, sources in forms[name]:
            if form == "tuple":  # t = (a, b): a's node reaches (t, 0)
                for position, source in enumerate(sources):
                    if source is not None:
                        link(source, (name, position))
            elif form == "appended":  # L2 = rt.appended(L, e)
                listed, element = sources
                for position in positions:
                    link((listed, position), (name, position))
                if element in tuples:
                    for position in positions:
                        link((element, position), (name, position))
                elif element is not None:
                    link(element, (name, _ANY))
            elif form in ("copy", "all_but_last", "element"):  # a list's element is a tuple
                for position in positions:
                    link((sources[0], position), (name, position))


def _element_form(value, resolve):
    """(form, source names) of an assignment's value, if it is one of the forms whose
    elements are followed: ``(a, b)``, ``[]``, ``rt.appended(L, e)``,
    ``rt.all_but_last(L)``, a copy ``L2 = L``, an element read ``t[k]`` (k a constant)."""
    kind = type(value)
    if kind is gast.Name:
        return "copy", [value.id]
    if kind is gast.Tuple:
        if not all(type(e) in (gast.Name, gast.Constant) for e in value.elts):
            return None
        return "tuple", [e.id if type(e) is gast.Name else None for e in value.elts]
    if kind is gast.List:
        return ("empty", []) if not value.elts else None
    if kind is gast.Subscript:
        if type(value.value) is gast.Name and _constant_index(value.slice) is not None:
            return "element", [value.value.id]
        return None
    if kind is gast.Call and type(value.func) is gast.Attribute and value.func.attr in (
            "appended", "all_but_last") and not value.keywords and all(
            type(a) in (gast.Name, gast.Constant) for a in value.args):
        function = resolve(value.func)
        names = [a.id if type(a) is gast.Name else None for a in value.args]
        if function is runtime.appended and len(names) == 2 and names[0] is not None:
            return "appended", names
        if function is runtime.all_but_last and len(names) == 1 and names[0] is not None:
            return "all_but_last", names
    return None


def _constant_index(node):
    """The int ``node`` writes (``1``, ``-1``), else None."""
    if type(node) is gast.UnaryOp and type(node.op) is gast.USub:
        index = _constant_index(node.operand)
        return None if index is None else -index
    if type(node) is gast.Constant and type(node.value) is int:
        return node.value
    return None


def _followed(forms: dict, stored_otherwise: set) -> tuple[set, set]:
    """(the tuples, the lists of tuples) whose elements are followed: names every assignment
    of which makes one of them from followed names (tuples: a tuple literal, a copy of a
    followed tuple, an element of a followed list; lists: ``[]``, appending to or dropping
    from a followed list, a copy of one), never assigned otherwise, nor parameters."""
    tuples, lists = set(), set()
    for name, made in forms.items():
        if name in stored_otherwise:
            continue
        kinds = {form for form, _ in made}
        if kinds <= {"tuple", "copy", "element"}:
            tuples.add(name)
        if kinds <= {"empty", "appended", "all_but_last", "copy"}:
            lists.add(name)
    while True:  # drop a name made from one not followed (or of the other sort)
        dropped = False
        for name in list(tuples | lists):
            is_tuple = name in tuples
            for form, sources in forms[name]:
                if form == "copy":
                    ok = sources[0] in (tuples if is_tuple else lists)
                elif form == "element":
                    ok = sources[0] in lists
                elif form in ("appended", "all_but_last"):
                    ok = sources[0] in lists
                else:
                    ok = True
                if not ok:
                    (tuples if is_tuple else lists).discard(name)
                    dropped = True
                    break
        if not dropped:
            return tuples, lists
