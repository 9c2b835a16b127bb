"""Give each layout of a tape its own list, in code srcad generated.

Gradient code records values in its loops on one list and reads them back in reverse
(transform/reverse.py, ``_Sweeps.push`` and ``pop``): a push and the pop that reads its
record back come from one plan, so they have one *layout* (one value, or a tuple of n), and
the pushes and pops of one layout pair among themselves, last in first out. Differentiated
again (hvp, hessian), that code is normalized like any other, and the analyses would see one
list holding every record: an element read back could be any value recorded anywhere. After
this pass, in code srcad generated, each layout has a list of its own::

    _tape = []                         _tape = []
    ...                                _tape_2 = []
    _tape.append((a, b))         ->    _tape.append((a, b))
    _tape.append(c)                    _tape_2.append(c)
    c = _tape.pop()                    c = _tape_2.pop()
    a, b = _tape.pop()                 a, b = _tape.pop()

The values read back are the same; what a list holds is then records of one layout, whose
elements the activity analysis follows one by one (analysis/activity.py): a constant
recorded beside varied values stays without a derivative. A list used any other way, or a
pop of a layout no push records, is left as it is. Nothing else changes. The tree given is
not changed: the statements this pass rewrites are new, and so are the blocks holding them.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..naming import Namer


def split_tapes(tree: gast.FunctionDef, namer: Namer) -> gast.FunctionDef:
    """``tree`` with each tape's layouts on lists of their own (a new function node, when
    there is one to split; ``tree`` itself otherwise)."""
    renames = {}  # id(push, pop or the list's creation) -> its replacement statement(s)
    for tape, uses in tapes(tree).items():
        layouts = {}  # layout -> the list holding it, in the order pushes are met
        for statement in uses["push"]:
            layouts.setdefault(layout(statement.value.args[0]), None)
        popped = {layout(statement.targets[0]) for statement in uses["pop"]}
        if len(layouts) < 2 or not popped <= set(layouts):
            continue
        for index, names in enumerate(layouts):
            layouts[names] = tape if index == 0 else namer.fresh(tape, private=True)
        for statement in uses["push"]:
            renames[id(statement)] = [_on_list(statement, layouts[layout(
                statement.value.args[0])])]
        for statement in uses["pop"]:
            renames[id(statement)] = [_on_list(statement, layouts[layout(
                statement.targets[0])])]
        made = uses["made"]
        renames[id(made)] = [made] + [
            gast.copy_location(syntax.assign(name, gast.List(elts=[], ctx=gast.Load())), made)
            for name in list(layouts.values())[1:]]
    if not renames:
        return tree
    function = syntax.shallow_copy(tree)
    function.body = _rewritten(tree.body, renames)
    return function


def tapes(tree) -> dict:
    """Each list made by ``name = []`` at the top of the function and used only by
    ``name.append(names)`` statements and ``names = name.pop()`` assignments: name ->
    {"made": the statement making it, "push": [...], "pop": [...]}."""
    found = {}
    for statement in tree.body:
        if (type(statement) is gast.Assign and len(statement.targets) == 1
                and type(statement.targets[0]) is gast.Name
                and type(statement.value) is gast.List and not statement.value.elts):
            found.setdefault(statement.targets[0].id, {"made": statement, "push": [],
                                                       "pop": [], "uses": 0})
    if not found:
        return {}
    for statement in syntax.statements(tree):
        for use, tape in (("push", _pushed_onto(statement)), ("pop", _popped_from(statement))):
            if tape in found:
                found[tape][use].append(statement)
    for node in syntax.names(tree):
        if node.id in found:
            found[node.id]["uses"] += 1
    # (every use of the name is its creation, a push or a pop)
    return {name: uses for name, uses in found.items()
            if uses["uses"] == 1 + len(uses["push"]) + len(uses["pop"])}


def _pushed_onto(statement):
    """``name`` for ``name.append(x)`` with x a name or a tuple of names, else None."""
    if type(statement) is not gast.Expr:
        return None
    call = statement.value
    if not (type(call) is gast.Call and type(call.func) is gast.Attribute
            and call.func.attr == "append" and type(call.func.value) is gast.Name
            and len(call.args) == 1 and not call.keywords):
        return None
    return call.func.value.id if layout(call.args[0]) is not None else None


def _popped_from(statement):
    """``name`` for ``x = name.pop()`` with x a name or a tuple of names, else None."""
    if type(statement) is not gast.Assign or len(statement.targets) != 1:
        return None
    call = statement.value
    if not (type(call) is gast.Call and type(call.func) is gast.Attribute
            and call.func.attr == "pop" and type(call.func.value) is gast.Name
            and not call.args and not call.keywords):
        return None
    return call.func.value.id if layout(statement.targets[0]) is not None else None


def layout(node):
    """The layout of a record: ``1`` for a single value (``_tape.append(x)``), ``(n,)`` for a
    tuple of n names or constants; None for anything else. A pop has its push's layout:
    both come from one plan of the reverse transform (the names may differ: a branch's value
    is restored into the name its merge assigns)."""
    if type(node) is gast.Name:
        return 1
    if type(node) is gast.Tuple and node.elts and all(
            type(e) is gast.Name or type(e) is gast.Constant for e in node.elts):
        return (len(node.elts),)  # (a constant: a recorded value the optimizer folded)
    return None


def _on_list(statement, name):
    """A copy of the push or pop ``statement`` on the list ``name``."""
    copy = syntax.deepcopy(statement)
    call = copy.value
    call.func.value.id = name
    return copy


def _rewritten(statements, renames) -> list:
    """``statements`` with the replacements of ``renames`` put in, copying the blocks on
    the way (the statements themselves, and those holding none to replace, stay)."""
    out = []
    for statement in statements:
        if id(statement) in renames:
            out.extend(renames[id(statement)])
            continue
        if isinstance(statement, (gast.For, gast.While, gast.If)):
            body = _rewritten(statement.body, renames)
            orelse = _rewritten(statement.orelse, renames)
            # (nodes compare by identity: equal lists hold the same statements)
            if body != statement.body or orelse != statement.orelse:
                statement = syntax.shallow_copy(statement)
                statement.body, statement.orelse = body, orelse
        out.append(statement)
    return out
