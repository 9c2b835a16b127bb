"""Lower ``break``, ``continue``, early ``return`` and loop ``else`` to flags.

Runs first in normalize, on the user's own syntax. After this pass:

* the function has exactly one ``return``, its last statement;
* no ``break`` or ``continue`` remains;
* loops have no ``else`` clause;
* every ``for`` loop iterates over ``range(...)`` with a body that runs to
  its end; a loop that could stop early is a ``while`` loop whose test
  checks the exit flags.

So the reverse transformation handles one small core: straight-line code,
``if``/``else``, ``for i in range(...)`` and ``while``. Example::

    for i in range(n):                 stop = False
        if x > 10.0:                   steps = range(n)
            break              ->      step = 0
        x = x * 2.0                    while step < len(steps) and not stop:
                                           i = steps[step]
                                           if x > 10.0:
                                               stop = True
                                           if not stop:
                                               x = x * 2.0
                                           step = step + 1

Iterating over arrays, lists, ``enumerate``, ``zip`` and ``reversed`` becomes
iterating over indices first (``for row in xs`` → ``for i in range(len(xs)):
row = xs[i]``); ``for a, b in zip(*pairs)`` zips ``pairs[0]`` and ``pairs[1]``,
and any other ``zip(*rows)`` builds each item as ``tuple([row[i] for row in
rows])``.
"""

from __future__ import annotations

import gast

from .. import runtime, syntax
from ..analysis.operations import UNRESOLVED
from ..naming import Namer


def lower_exits(tree: gast.FunctionDef, namer: Namer, resolve, aliases) -> gast.FunctionDef:
    """``tree`` lowered, as a new function node: ``tree`` and the nodes in it stay as they
    are (a statement or an expression this pass changes is a copy), so it may lower the
    parsed function's own tree, which later requests read again."""
    lowering = _LowerExits(namer, resolve, aliases)
    body = lowering.index_loops(tree.body)
    if _has_early_return(body):
        result = namer.fresh("result")
        returned = namer.fresh("returned")
        lowering.return_target = (result, returned)
        last_return = max((n for n in syntax.own_statements(gast.Module(body=body, type_ignores=[]))
                           if isinstance(n, gast.Return)),
                          key=lambda n: (n.lineno, n.col_offset))
        body = [syntax.assign(returned, syntax.constant(False)),
                syntax.assign(result, syntax.constant(None))] + lowering.block(body)
        # the single return stands where the function's last return was written
        body.append(gast.copy_location(gast.Return(value=syntax.name(result)), last_return))
    else:
        body = lowering.block(body)
    tree = syntax.shallow_copy(tree)
    tree.body = body
    return tree


def index_loops(statements, namer: Namer, resolve, aliases) -> list:
    """Only the first step of this pass: loops over sequences become loops over ``range``.

    For loops built after this pass ran (a summed comprehension's, normalize/to_anf.py).
    """
    return _LowerExits(namer, resolve, aliases).index_loops(statements)


def _has_early_return(body) -> bool:
    returns = [n for n in syntax.own_statements(gast.Module(body=body, type_ignores=[]))
               if isinstance(n, gast.Return)]
    return len(returns) > 1 or (returns and body[-1] is not returns[0])


def _not(flag: str):
    return gast.UnaryOp(op=gast.Not(), operand=syntax.name(flag))


def _contains(statements, kinds, stop_at_loops=True) -> bool:
    for statement in statements:
        if isinstance(statement, kinds):
            return True
        if isinstance(statement, gast.If):
            if _contains(statement.body, kinds, stop_at_loops) or \
                    _contains(statement.orelse, kinds, stop_at_loops):
                return True
        if isinstance(statement, (gast.For, gast.While)):
            # a loop's `else` runs after the loop: its break/continue are the enclosing loop's
            if _contains(statement.orelse, kinds, stop_at_loops):
                return True
            if not stop_at_loops and _contains(statement.body, kinds, stop_at_loops):
                return True
    return False


class _LowerExits:
    def __init__(self, namer: Namer, resolve, aliases):
        self.namer = namer
        self.resolve = resolve
        self.aliases = aliases
        self.return_target = None  # (result name, returned flag) when returns are lowered
        self.loop_flags = []  # per enclosing loop: (break flag or None, continue flag or None)

    # ---- iteration over anything becomes iteration over range(...)
    def index_loops(self, statements):
        out = []
        for s in statements:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                s = syntax.shallow_copy(s)
            if isinstance(s, gast.For):
                s.body = self.index_loops(s.body)
                s.orelse = self.index_loops(s.orelse)
                out.extend(self.index_loop(s))
                continue
            if isinstance(s, gast.While):
                s.body = self.index_loops(s.body)
                s.orelse = self.index_loops(s.orelse)
            elif isinstance(s, gast.If):
                s.body = self.index_loops(s.body)
                s.orelse = self.index_loops(s.orelse)
            out.append(s)
        return out

    def index_loop(self, loop):
        prelude = []
        self.dict_views(loop, prelude)
        iterator = loop.iter
        callee = self.resolve(iterator.func) if isinstance(iterator, gast.Call) else None
        # Python evaluates the header once, before the first iteration: a name the body
        # rebinds must not be read again (by the loop, or by its reverse sweep later)
        rebound = syntax.stored_names(gast.Module(body=loop.body, type_ignores=[])) \
            | syntax.stored_names(loop.target)

        def hoist_bound(expression):
            name = self.namer.fresh("bound")
            prelude.append(gast.copy_location(syntax.assign(name, expression), loop))
            return name

        def hoist_arguments(call):
            call.args = [a if isinstance(a, gast.Constant) or not (
                syntax.load_names(a) & rebound) else syntax.name(hoist_bound(a))
                for a in call.args]

        if callee is range:
            loop.iter = syntax.shallow_copy(iterator)
            hoist_arguments(loop.iter)
            return prelude + [loop]
        if callee is reversed and _is_range_call(iterator.args[0], self.resolve):
            steps = syntax.shallow_copy(iterator.args[0])
            hoist_arguments(steps)
            loop.iter = gast.Subscript(value=steps, slice=gast.Slice(
                lower=None, upper=None, step=syntax.constant(-1)), ctx=gast.Load())
            return prelude + [loop]
        rt = self.aliases.name_for(runtime)
        iterated = syntax.attribute(rt, "iterated")

        def hoist(expression, base):
            # what the loop visits, evaluated once into a fresh name (whatever the body
            # rebinds) and indexable: the sequence itself, or a dict's keys
            name = self.namer.fresh(base)
            func = getattr(expression, "func", None)
            if not (isinstance(func, gast.Attribute) and func.attr == "keys_of"
                    and isinstance(func.value, gast.Name) and func.value.id == rt):  # a list
                expression = syntax.call(syntax.deepcopy(iterated), expression)
            prelude.append(gast.copy_location(syntax.assign(name, expression), loop))
            return name

        if callee is zip and len(iterator.args) == 1 and isinstance(iterator.args[0],
                                                                   gast.Starred):
            if not _names_for_each(loop.target):
                return self.transposing_loop(loop, prelude)
            self.spread_zip(loop, prelude)
            iterator = loop.iter  # (a copy, zipping the sequences one by one)
        index = self.namer.fresh("index")
        if callee is reversed:  # visit the sequence's indices backwards
            lengths, item = self.items(iterator.args[0], hoist, prelude, loop)
        else:
            lengths, item = self.items(iterator, hoist, prelude, loop)
        length_calls = [syntax.call(syntax.name("len"), syntax.name(n)) for n in lengths]
        length = length_calls[0] if len(length_calls) == 1 else syntax.call(
            syntax.name("min"), *length_calls)
        if callee is reversed:
            loop.iter = gast.Subscript(value=syntax.call(syntax.name("range"), length),
                                       slice=gast.Slice(lower=None, upper=None,
                                                        step=syntax.constant(-1)),
                                       ctx=gast.Load())
        else:
            loop.iter = syntax.call(syntax.name("range"), length)
        header = [gast.copy_location(statement, loop)
                  for statement in _unpack(loop.target, item(syntax.name(index)))]
        loop.target = syntax.name(index, store=True)
        loop.body = header + loop.body
        return prelude + [loop]

    def spread_zip(self, loop, prelude):
        """``for a, b in zip(*pairs)`` as ``for a, b in zip(pairs[0], pairs[1])``: the
        target (the fence made sure) unpacks each item into one name per sequence, so
        there must be that many, or Python raises ValueError at the first item."""
        count = len(loop.target.elts)
        sequences = self.namer.fresh("sequences")
        prelude.append(gast.copy_location(syntax.assign(sequences, loop.iter.args[0].value),
                                          loop))
        wrong = gast.Compare(left=syntax.call(syntax.name("len"), syntax.name(sequences)),
                             ops=[gast.NotEq()], comparators=[syntax.constant(count)])
        message = "zip(*sequences) unpacked into %d names needs %d sequences" % (count, count)
        prelude.append(gast.copy_location(gast.If(test=wrong, body=[gast.Raise(
            exc=syntax.call(syntax.name("ValueError"), syntax.constant(message)), cause=None)],
            orelse=[]), loop))
        loop.iter = syntax.shallow_copy(loop.iter)
        loop.iter.args = [gast.Subscript(value=syntax.name(sequences), slice=syntax.constant(i),
                                         ctx=gast.Load()) for i in range(count)]

    def transposing_loop(self, loop, prelude):
        """``for column in zip(*rows)`` (a target that is not one name per row) as a loop
        over the shortest row's indices building each item ``tuple([row[i] for row in
        rows])``; no rows, no iteration."""
        sequences, lengths, count = (self.namer.fresh(n) for n in ("sequences", "lengths",
                                                                    "count"))
        row, index = self.namer.fresh("row"), self.namer.fresh("index")

        def each_row(element):  # [element for row in sequences]
            return gast.ListComp(elt=element, generators=[gast.comprehension(
                target=syntax.name(row, store=True), iter=syntax.name(sequences), ifs=[],
                is_async=0)])

        rows_exist = gast.Compare(left=syntax.call(syntax.name("len"), syntax.name(sequences)),
                                  ops=[gast.Gt()], comparators=[syntax.constant(0)])
        prelude += [gast.copy_location(statement, loop) for statement in (
            syntax.assign(sequences, loop.iter.args[0].value),
            syntax.assign(lengths, each_row(syntax.call(syntax.name("len"), syntax.name(row)))),
            syntax.assign(count, gast.IfExp(test=rows_exist, body=syntax.call(
                syntax.name("min"), syntax.name(lengths)), orelse=syntax.constant(0))))]
        item = syntax.call(syntax.name("tuple"), each_row(gast.Subscript(
            value=syntax.name(row), slice=syntax.name(index), ctx=gast.Load())))
        loop.body = [gast.copy_location(gast.Assign(targets=[loop.target], value=item,
                                                    type_comment=None), loop)] + loop.body
        loop.target = syntax.name(index, store=True)
        loop.iter = syntax.call(syntax.name("range"), syntax.name(count))
        return prelude + [loop]

    def items(self, iterable, hoist, prelude, loop):
        """What ``for ... in iterable`` visits, by index: (the sequences whose shortest
        length is the trip count, item(index) -> the expression of the item at index).

        ``enumerate``, ``zip`` and ``reversed`` nest (``enumerate(zip(u, v))``): their
        items are built from the items of what they wrap; anything else is a sequence
        evaluated once (``hoist``) and indexed.
        """
        callee = self.resolve(iterable.func) if isinstance(iterable, gast.Call) else None
        if callee is enumerate and 1 <= len(iterable.args) <= 2 and not iterable.keywords:
            lengths, inner = self.items(iterable.args[0], hoist, prelude, loop)
            start = iterable.args[1] if len(iterable.args) == 2 else None
            if start is not None and not isinstance(start, gast.Constant):
                name = self.namer.fresh("start")
                prelude.append(gast.copy_location(syntax.assign(name, start), loop))
                start = syntax.name(name)

            def counted(index):
                count = index if start is None else gast.BinOp(
                    left=index, op=gast.Add(), right=syntax.deepcopy(start))
                return gast.Tuple(elts=[count, inner(syntax.deepcopy(index))], ctx=gast.Load())
            return lengths, counted
        if callee is zip and iterable.args and not iterable.keywords and not any(
                isinstance(a, gast.Starred) for a in iterable.args):
            parts = [self.items(a, hoist, prelude, loop) for a in iterable.args]
            lengths = [n for part_lengths, _ in parts for n in part_lengths]
            return lengths, lambda index: gast.Tuple(
                elts=[item(syntax.deepcopy(index)) for _, item in parts], ctx=gast.Load())
        if callee is reversed and len(iterable.args) == 1 and not iterable.keywords:
            sequence = hoist(iterable.args[0], "sequence")
            last = gast.BinOp(left=syntax.call(syntax.name("len"), syntax.name(sequence)),
                              op=gast.Sub(), right=syntax.constant(1))
            return [sequence], lambda index: gast.Subscript(
                value=syntax.name(sequence), slice=gast.BinOp(
                    left=syntax.deepcopy(last), op=gast.Sub(), right=index), ctx=gast.Load())
        sequence = hoist(iterable, "sequence")
        return [sequence], lambda index: gast.Subscript(value=syntax.name(sequence),
                                                        slice=index, ctx=gast.Load())

    def dict_views(self, loop, prelude):
        """``for v in d.values()`` and ``for k, v in d.items()`` iterate over d's keys
        (``rt.keys_of(d)``, not differentiated); the loop then reads ``v = d[key]``.
        """
        iterator = loop.iter
        if not (isinstance(iterator, gast.Call) and isinstance(iterator.func, gast.Attribute)
                and iterator.func.attr in ("keys", "values", "items")
                and not iterator.args and not iterator.keywords
                and self.resolve(iterator.func) is UNRESOLVED):
            return
        view = iterator.func.attr
        mapping = iterator.func.value
        if view != "keys" and not isinstance(mapping, gast.Name):
            name = self.namer.fresh("mapping")
            prelude.append(gast.copy_location(syntax.assign(name, mapping), loop))
            mapping = syntax.name(name)
        # the keys are the mapping's structure: never varied, whatever its values are
        loop.iter = syntax.call(syntax.attribute(self.aliases.name_for(runtime), "keys_of"),
                                syntax.deepcopy(mapping))
        if view == "keys":
            return
        key = self.namer.fresh("key")
        value = gast.Subscript(value=syntax.deepcopy(mapping), slice=syntax.name(key),
                               ctx=gast.Load())
        if view == "values":
            header = [gast.Assign(targets=[loop.target], value=value, type_comment=None)]
        elif isinstance(loop.target, (gast.Tuple, gast.List)) and len(loop.target.elts) == 2:
            header = [gast.Assign(targets=[loop.target.elts[0]], value=syntax.name(key),
                                  type_comment=None),
                      gast.Assign(targets=[loop.target.elts[1]], value=value, type_comment=None)]
        else:
            header = [gast.Assign(targets=[loop.target], value=gast.Tuple(
                elts=[syntax.name(key), value], ctx=gast.Load()), type_comment=None)]
        loop.target = syntax.name(key, store=True)
        loop.body = [gast.copy_location(h, loop) for h in header] + loop.body

    # ---- exits become flags
    def block(self, statements):
        """Lower a statement list; statements after one that may exit are guarded."""
        out = []
        for position, s in enumerate(statements):
            flags = self.flags_set_by(s)  # before lowering removes the exits it looks for
            out.extend(self.statement(s))
            if flags and position + 1 < len(statements):
                rest = self.block(statements[position + 1:])
                if rest:
                    out.append(gast.copy_location(gast.If(test=_all_not(flags), body=rest,
                                                          orelse=[]), statements[position + 1]))
                return out
        return out

    def flags_set_by(self, s) -> list:
        """Flags the statement may set that end the rest of the current block."""
        flags = []
        loop_break, loop_continue = self.loop_flags[-1] if self.loop_flags else (None, None)
        if isinstance(s, (gast.If, gast.Break, gast.Continue, gast.Return, gast.For,
                          gast.While)):
            probe = [s]
            if loop_break and _contains(probe, gast.Break):
                flags.append(loop_break)
            if loop_continue and _contains(probe, gast.Continue):
                flags.append(loop_continue)
        if self.return_target and _contains([s], gast.Return, stop_at_loops=False):
            flags.append(self.return_target[1])
        return list(dict.fromkeys(flags))

    def statement(self, s):
        if isinstance(s, gast.Return):
            if self.return_target is None:
                return [s]
            result, returned = self.return_target
            return [gast.copy_location(syntax.assign(result, s.value or syntax.constant(None)), s),
                    gast.copy_location(syntax.assign(returned, syntax.constant(True)), s)]
        if isinstance(s, gast.Break):
            return [gast.copy_location(syntax.assign(self.loop_flags[-1][0],
                                                     syntax.constant(True)), s)]
        if isinstance(s, gast.Continue):
            return [gast.copy_location(syntax.assign(self.loop_flags[-1][1],
                                                     syntax.constant(True)), s)]
        if isinstance(s, gast.If):
            s = syntax.shallow_copy(s)
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s)
        return [s]

    def loop(self, loop):
        loop = syntax.shallow_copy(loop)
        has_break = _contains(loop.body, gast.Break)
        has_return = self.return_target is not None and _contains(
            loop.body, gast.Return, stop_at_loops=False)
        stop = self.namer.fresh("stop") if has_break else None
        skip = self.namer.fresh("skip") if _contains(loop.body, gast.Continue) else None
        self.loop_flags.append((stop, skip))
        body = self.block(loop.body)
        self.loop_flags.pop()
        if skip:
            body.insert(0, syntax.assign(skip, syntax.constant(False)))
        exit_flags = [f for f in (stop, self.return_target[1] if has_return else None) if f]
        orelse = self.block(loop.orelse)
        before, after = [], []
        if stop:
            before.append(syntax.assign(stop, syntax.constant(False)))
        if orelse and exit_flags:
            after.append(gast.If(test=_all_not(exit_flags), body=orelse, orelse=[]))
        else:  # (located at the loop below: copies, the parsed tree's statements stay as they are)
            after.extend(syntax.shallow_copy(statement) for statement in orelse)
        if exit_flags and isinstance(loop, gast.For):
            steps = self.namer.fresh("steps")
            step = self.namer.fresh("step")
            before += [syntax.assign(steps, loop.iter), syntax.assign(step, syntax.constant(0))]
            more = gast.Compare(left=syntax.name(step), ops=[gast.Lt()],
                                comparators=[syntax.call(syntax.name("len"), syntax.name(steps))])
            header = gast.Assign(targets=[loop.target], value=gast.Subscript(
                value=syntax.name(steps), slice=syntax.name(step), ctx=gast.Load()),
                type_comment=None)
            advance = syntax.assign(step, gast.BinOp(left=syntax.name(step), op=gast.Add(),
                                                     right=syntax.constant(1)))
            new = gast.While(test=gast.BoolOp(op=gast.And(), values=[more, _all_not(exit_flags)]),
                             body=[header] + body + [advance], orelse=[])
        elif exit_flags:
            new = gast.While(test=gast.BoolOp(op=gast.And(),
                                              values=[loop.test, _all_not(exit_flags)]),
                             body=body, orelse=[])
        else:
            loop.body = body or [gast.Pass()]
            loop.orelse = []
            new = loop
        for node in before + after + [new]:
            gast.copy_location(node, loop)
        return before + [new] + after


def _unpack(target, value) -> list:
    """``target = value`` as assignments, pairing a tuple target with a tuple value."""
    if (isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, gast.Tuple)
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, gast.Starred) for e in target.elts)):
        return [statement for part, item in zip(target.elts, value.elts)
                for statement in _unpack(part, item)]
    return [gast.Assign(targets=[target], value=value, type_comment=None)]


def _names_for_each(target) -> bool:
    """A tuple or list target of one plain or nested target per element, none starred."""
    return isinstance(target, (gast.Tuple, gast.List)) and not any(
        isinstance(e, gast.Starred) for e in target.elts)


def _all_not(flags):
    if len(flags) == 1:
        return _not(flags[0])
    return gast.BoolOp(op=gast.And(), values=[_not(f) for f in flags])


def _is_range_call(node, resolve) -> bool:
    return isinstance(node, gast.Call) and resolve(node.func) is range
