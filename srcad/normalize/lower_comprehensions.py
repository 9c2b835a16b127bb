"""Lower comprehensions, and ``sum``/``max``/``min``/``dict`` over an iterable, to loops.

Used by to_anf (normalize/to_anf.py) at the very point where the expression is
evaluated, so a comprehension inside a loop header, a ``while`` test, a
conditional expression, an ``and``/``or`` operand or another comprehension's
element runs exactly when Python would run it (a ``while`` test's in every
iteration, a nested one once per outer element). After to_anf no
comprehension remains:

* a list comprehension, or a generator expression (which the fence lets
  through only where it is consumed at once: a call's argument, a loop's
  iterable), is a loop appending to a fresh list::

      ys = [f(x) for x in xs if x > 0.0]       items = []
                                               for x_2 in xs:
                                    ->             if x_2 > 0.0:
                                                       items = rt.appended(items, f(x_2))
                                               ys = items

* a dict comprehension a loop storing ``entries = rt.updated(entries, key,
  value)`` in a fresh dict, and ``dict(pairs)`` of a ``zip``, a comprehension or a literal list
  the same loop over the pairs;
* ``sum`` of a comprehension an accumulating loop (no list), ``sum`` of a
  literal list or tuple a chain of additions;
* ``max(items)`` and ``min(items)`` (one iterable, no keywords) a loop keeping
  the first extreme element, as Python's do.

The comprehension's own variables get fresh names (in Python they do not leak
out of it, and a user variable of the same name keeps its value). Its first
iterable is evaluated in the enclosing scope, later ones where the earlier
targets are bound, and its ``if`` conditions once per element.
"""

from __future__ import annotations

import gast

from .. import syntax
from ..naming import Namer

COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.DictComp)


def is_summation(call, resolve) -> bool:
    """``sum(...)`` with one or two positional arguments: what this module lowers."""
    return (isinstance(call, gast.Call) and not call.keywords and 1 <= len(call.args) <= 2
            and resolve(call.func) is sum)


def summed_literal(call):
    """``sum((a, b), start)`` as ``start + a + b``; None if the items are not a literal."""
    items = call.args[0]
    if not isinstance(items, (gast.List, gast.Tuple)) or any(
            isinstance(e, gast.Starred) for e in items.elts):
        return None
    total = call.args[1] if len(call.args) > 1 else syntax.constant(0)
    for element in items.elts:
        total = gast.BinOp(left=total, op=gast.Add(), right=element)
    return gast.copy_location(total, call)


def summation_loop(call, namer: Namer):
    """``sum(<comprehension>, start)`` as (statements computing it, the total's name).

    None if the argument is not a comprehension. The statements are user-level
    Python (the loop iterates over whatever the comprehension did); the caller
    normalizes them like any other statements.
    """
    generator = call.args[0]
    if not isinstance(generator, (gast.GeneratorExp, gast.ListComp)):
        return None
    result = namer.fresh("total")
    start = call.args[1] if len(call.args) > 1 else syntax.constant(0)

    def accumulate(renamed):
        return [syntax.assign(result, gast.BinOp(left=syntax.name(result), op=gast.Add(),
                                                 right=renamed(generator.elt)))]

    statements = [syntax.assign(result, syntax.deepcopy(start))]
    statements += _loops(generator, namer, accumulate)
    return _located(statements, call), result


def comprehension_loop(comprehension, namer: Namer, runtime_name: str):
    """A list, generator or dict comprehension as (statements computing it, the name of
    the fresh list or dict they fill).

    The list grows by ``items = rt.appended(items, element)`` (a dict by
    ``entries = rt.updated(entries, key, value)``), what lower_mutations makes of
    ``items.append(element)``, written so directly: the list is the comprehension's own
    until it is complete, so no write into it can reach another name (propagate_writes
    has nothing to follow, even for an inner list an outer one holds).
    """
    if isinstance(comprehension, gast.DictComp):
        result = namer.fresh("entries")

        def store(renamed):
            updated = syntax.call(syntax.attribute(runtime_name, "updated"), syntax.name(result),
                                  renamed(comprehension.key), renamed(comprehension.value))
            return [syntax.assign(result, updated)]

        start = gast.Dict(keys=[], values=[])
    else:
        result = namer.fresh("items")

        def store(renamed):
            appended = syntax.call(syntax.attribute(runtime_name, "appended"),
                                   syntax.name(result), renamed(comprehension.elt))
            return [syntax.assign(result, appended)]

        start = gast.List(elts=[], ctx=gast.Load())
    statements = [syntax.assign(result, start)] + _loops(comprehension, namer, store)
    return _located(statements, comprehension), result


def dict_loop(call, namer: Namer, resolve, runtime_name: str):
    """``dict(pairs)`` as (statements filling a fresh dict from the pairs, its name), for
    pairs Python iterates as pairs whatever their type: a ``zip(...)``, a comprehension
    or a literal list or tuple. None for anything else (a mapping, keywords)."""
    if call.keywords or len(call.args) != 1:
        return None
    pairs = call.args[0]
    if not (isinstance(pairs, (gast.ListComp, gast.GeneratorExp, gast.List, gast.Tuple))
            or isinstance(pairs, gast.Call) and resolve(pairs.func) is zip):
        return None
    result = namer.fresh("entries")
    key, value = namer.fresh("key"), namer.fresh("value")
    target = gast.Tuple(elts=[syntax.name(key, store=True), syntax.name(value, store=True)],
                        ctx=gast.Store())
    write = syntax.assign(result, syntax.call(syntax.attribute(runtime_name, "updated"),
                                              syntax.name(result), syntax.name(key),
                                              syntax.name(value)))
    statements = [syntax.assign(result, gast.Dict(keys=[], values=[])),
                  gast.For(target=target, iter=syntax.deepcopy(pairs), body=[write], orelse=[],
                           type_comment=None)]
    return _located(statements, call), result


def extremum_loop(call, namer: Namer, largest: bool):
    """``max(items)`` / ``min(items)`` as (statements, the result's name): the first
    element no later one beats strictly, as Python's ``max`` and ``min`` keep. An empty
    iterable raises Python's ValueError."""
    items = namer.fresh("candidates")
    best, index = namer.fresh("largest" if largest else "smallest"), namer.fresh("position")
    candidate = gast.Subscript(value=syntax.name(items), slice=syntax.name(index),
                               ctx=gast.Load())
    better = gast.Compare(left=candidate, ops=[gast.Gt() if largest else gast.Lt()],
                          comparators=[syntax.name(best)])
    empty = gast.Compare(left=syntax.call(syntax.name("len"), syntax.name(items)),
                         ops=[gast.Eq()], comparators=[syntax.constant(0)])
    message = "%s() iterable argument is empty" % ("max" if largest else "min")
    iterable = syntax.deepcopy(call.args[0])
    if not isinstance(iterable, COMPREHENSIONS):  # (a comprehension makes a fresh list)
        iterable = syntax.call(syntax.name("list"), iterable)
    statements = [
        syntax.assign(items, iterable),
        gast.If(test=empty, body=[gast.Raise(exc=syntax.call(syntax.name("ValueError"),
                                                             syntax.constant(message)),
                                             cause=None)], orelse=[]),
        syntax.assign(best, gast.Subscript(value=syntax.name(items), slice=syntax.constant(0),
                                           ctx=gast.Load())),
        gast.For(target=syntax.name(index, store=True),
                 iter=syntax.call(syntax.name("range"), syntax.constant(1),
                                  syntax.call(syntax.name("len"), syntax.name(items))),
                 body=[gast.If(test=better, body=[syntax.assign(best, syntax.deepcopy(
                     candidate))], orelse=[])],
                 orelse=[], type_comment=None)]
    return _located(statements, call), best


def _loops(comprehension, namer: Namer, store) -> list:
    """The nested ``for``/``if`` statements a comprehension's clauses stand for, around
    ``store(renamed)`` (renamed: a node copied with the comprehension's variables renamed)."""
    renames = {}
    for clause in comprehension.generators:
        for n in syntax.names(clause.target):
            renames.setdefault(n.id, namer.fresh(n.id))

    def renamed(node):
        return syntax.rename(syntax.deepcopy(node), renames)

    body = store(renamed)
    for position, clause in reversed(list(enumerate(comprehension.generators))):
        for condition in reversed(clause.ifs):
            body = [gast.If(test=renamed(condition), body=body, orelse=[])]
        target = renamed(clause.target)
        for n in syntax.names(target):
            n.ctx = gast.Store()
        # the first clause's iterable is evaluated where the comprehension is made, in the
        # enclosing scope; later ones inside it, where the earlier targets are bound
        iterator = syntax.deepcopy(clause.iter) if position == 0 else renamed(clause.iter)
        body = [gast.For(target=target, iter=iterator, body=body, orelse=[],
                         type_comment=None)]
    return body


def _located(statements, like) -> list:
    for statement in statements:
        for node in syntax.walk(statement):
            if isinstance(node, gast.stmt):
                gast.copy_location(node, like)
    return statements
