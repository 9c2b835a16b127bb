"""Normalize to A-normal form: one operation per statement.

After this pass the function body contains only:

* ``name = <operation>`` where <operation> is an atom, ``atom op atom``,
  ``op atom``, ``atom cmp atom``, ``f(atom, ..., key=atom)`` (also ``*atom`` and
  ``**atom`` in a call to a function that is not inlined), ``atom.attr``,
  ``atom[index]`` (index made of atoms and slices of atoms) or ``(atom, ...)``;
* ``a, b = atom`` (unpacking);
* ``expression_statement(atom, ...)`` kept for its effect (e.g. ``print``);
* writes into an existing object, each marked as one (annotations.write_kind)
  for lower_mutations, the next pass: ``name[index] = atom`` (also what
  ``y[i] += v`` becomes: ``part = y[i]``, ``add = part + v``, ``y[i] = add``),
  ``name op= atom``, ``items.append(atom)`` and ``target = items.pop()`` on a
  local list, and srcad's own ``rt.add_at(total, atom, atom)``;
* ``for name in range(atom, ...):`` (or ``for name in atom:`` over a range
  object) and ``while atom:`` whose test is recomputed at the end of the body,
  and ``if atom: ... else: ...``, with bodies again in this form;
* a final ``return atom`` (or ``return (atom, atom)`` for has_aux).

An *atom* is a Name, a Constant, or a static reference such as ``np.pi``.
Conditional expressions, ``and``/``or`` and chained comparisons become
``if`` statements (keeping Python's short-circuit evaluation), a summed
comprehension an accumulating loop where Python evaluates it
(lower_comprehensions.py), and calls to the user's own functions, nested
functions and lambdas their inlined statements (inline.py). Each statement
records the user statement it came from (annotations.origin), for comments
and errors.

Example::

    h = np.tanh(np.dot(x, W1) + b1)      dot = np.dot(x, W1)
                                    ->   add = dot + b1
                                         h = np.tanh(add)
"""

from __future__ import annotations

import functools

from collections import Counter

import gast
import numpy as np

from .. import runtime, syntax
from ..annotations import mark_write, set_not_inlined, set_origin, set_position
from ..naming import Namer
from ..parse import ParsedFunction
from ..resolve import Resolver
from . import calls_by_value, inline
from .inline import is_static_reference
from .lower_comprehensions import (COMPREHENSIONS, comprehension_loop, dict_loop, extremum_loop,
                                   is_summation, summation_loop, summed_literal)
from .lower_exits import index_loops

_BINOP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div",
    gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "power", gast.MatMult: "matmul",
    gast.BitAnd: "bitand", gast.BitOr: "bitor", gast.BitXor: "bitxor",
    gast.LShift: "lshift", gast.RShift: "rshift",
}
_UNARY_NAMES = {gast.USub: "neg", gast.UAdd: "pos", gast.Not: "not", gast.Invert: "invert"}


def is_atom(node, local_names) -> bool:
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return is_static_reference(node, local_names)



# calls whose result is a list (np.asarray of one, given to a ufunc, is an array)
_LIST_MAKERS = (list, np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit,
                runtime.appended)
_LIST_MAKER_IDS = frozenset(id(maker) for maker in _LIST_MAKERS)  # (they live as long)
# the callees whose calls operation_Call lowers or rewrites (summations, maps, lists of
# comprehensions, extrema, dicts, array displays, einsums of many operands)
_LOWERED_CALLEES = (sum, map, list, max, min, dict, np.array, np.asarray, np.einsum)
_LOWERED_CALLEE_IDS = frozenset(id(callee) for callee in _LOWERED_CALLEES)

class _LastAnswerResolver(Resolver):
    """A Resolver that keeps its last answer: normalizing a call asks what its callee means
    about ten times in a row (calls_by_value, lowerings, inlining, array displays...). What
    a node means does not change while to_anf runs (aliases are only ever added for names
    no node means anything else by, and srcad's new names are never the user's), and the
    node asked about is kept with the answer, so its identity is its own."""

    _node = _answer = None

    def __call__(self, node):
        if node is self._node:
            return self._answer
        answer = Resolver.__call__(self, node)
        self._node, self._answer = node, answer
        return answer


class _ToANF:
    def __init__(self, parsed: ParsedFunction, namer: Namer, aliases, values=None,
                 asked=None):
        self.parsed = parsed
        self.source = parsed  # the function whose statements are being normalized (callees too)
        self.namer = namer
        self.aliases = aliases
        self.locals = set(parsed.local_names)
        # what a static reference means (srcad's aliases, then the user's names)
        self.resolve = _LastAnswerResolver(parsed, aliases, namer)
        self.local_functions = {}  # name -> (FunctionDef or Lambda, source it was written in)
        self.inlining = [parsed.function]  # the function and the callees being inlined in it
        self.inlined = []  # every user function inlined (their sources shape the result)
        # the callees fence has accepted (each is checked once), with what renaming them reads
        self.fenced = {}  # (inline.prepare_callee); callee -> its signature (inline_call)
        self.signatures = {}
        self.out: list = []
        self.current = None
        self.current_origin = None  # (current, source, its origin)
        # node type -> the class's operation_<type> (or None); statement type -> visit_<type>:
        # functions, not bound methods, which would make the pass a cycle that holds every
        # tree it made until the garbage collector runs
        self.operations = {}
        self.visitors = {}
        # name -> what the call resolves by value (calls_by_value.py); None: code for any kind
        self.values = values
        self.by_value = {}
        # name -> how many times it is assigned; name -> a container's known length or keys
        self.store_counts = Counter()
        self.fixed_containers = {}  # (both: calls_by_value.note_assignments)
        self.local_values = set()  # local names bound by value (calls_by_value.py)
        self.asked = asked  # receives the names whose value a call was resolved by
        self.lists = set()  # names some assignment binds to a list (ufunc_displays_as_arrays)

    def note_value_asked(self, name):
        if self.asked is not None:
            self.asked.append(name)

    def fresh(self, base: str) -> str:
        """A new temporary: a local name, so ``temporary.attr`` is never taken for ``np.pi``."""
        name = self.namer.fresh(base)
        self.locals.add(name)
        return name

    def statements(self, statements):
        for statement in statements:
            self.current = statement
            self.statement(statement)
        return self.out

    def emit(self, statement, like):
        _copy(like, statement)
        current = self.current_origin  # origin_of_current, its common case inline
        if current is None or current[0] is not self.current or current[1] is not self.source:
            current = self.origin_of_current()
        else:
            current = current[2]
        set_origin(statement, current)  # (an Origin: kept as it is)
        set_position(statement, current if like is self.current else self.source.origin(like))
        self.out.append(statement)
        return statement

    def origin_of_current(self):
        """The origin of the user statement being normalized (most statements it becomes
        ask: made once per statement, an Origin being immutable)."""
        cached = self.current_origin
        if cached is not None and cached[0] is self.current and cached[1] is self.source:
            return cached[2]
        origin = self.source.origin(self.current)
        self.current_origin = (self.current, self.source, origin)
        return origin

    def statement(self, s):
        """Emit ``s`` in A-normal form (a ``visit_<statement type>`` method each)."""
        kind = type(s)
        visit = self.visitors.get(kind)
        if visit is None:
            visit = self.visitors[kind] = getattr(type(self), "visit_" + kind.__name__, None)
        if visit is None:
            raise AssertionError("fence let through %s" % type(s).__name__)
        visit(self, s)

    def visit_FunctionDef(self, s):
        inline.capture_local_function(self, s.name, s)  # inlined where it is called

    def visit_Pass(self, s):
        pass

    def visit_Assert(self, s):
        self.emit(syntax.deepcopy(s), s)  # checks: kept in the primal sweep as written

    visit_Raise = visit_Assert

    def visit_Expr(self, s):
        if isinstance(s.value, gast.Constant):
            return  # docstring or bare constant
        value = s.value
        if (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
                and value.func.attr == "append" and self._is_local_name(value.func.value)
                and len(value.args) == 1 and not value.keywords):
            # xs.append(v) on a local list: a write into xs (lower_mutations)
            call = _copy(value, gast.Call(func=syntax.deepcopy(value.func),
                                          args=[self.atom(value.args[0])], keywords=[]))
            mark_write(self.emit(gast.Expr(value=call), s), "append")
            return
        if (isinstance(value, gast.Call) and self.resolve(value.func) is runtime.add_at
                and len(value.args) == 3 and isinstance(value.args[0], gast.Name)):
            # srcad's own in-place accumulation, in code being differentiated again
            call = _copy(value, gast.Call(func=value.func, args=[syntax.name(value.args[0].id)]
                                          + [self.atom(a) for a in value.args[1:]],
                                          keywords=[]))
            mark_write(self.emit(gast.Expr(value=call), s), "add_at")
            return
        self.emit(gast.Expr(value=self.operation(value)), s)

    def visit_Assign(self, s):
        if len(s.targets) == 1:
            target = s.targets[0]
            if isinstance(target, gast.Name) and isinstance(s.value, gast.Lambda):
                inline.capture_local_function(self, target.id, s.value)
                return
            if (isinstance(target, gast.Name) and isinstance(s.value, gast.Call)
                    and self.resolve(s.value.func) is functools.partial):
                made = inline.partial_as_lambda(self, s.value)
                if made is not None:
                    inline.capture_local_function(self, target.id, made)
                    return
            if self._is_pop_of_local_list(s.value):
                # x = items.pop() on a local list: a write into items (lower_mutations)
                value = _copy(s.value, gast.Call(func=syntax.deepcopy(s.value.func), args=[],
                                                 keywords=[]))
                set_position(value, self.source.origin(s.value))
                mark_write(self.emit(gast.Assign(targets=[_store(target)], value=value,
                                                 type_comment=None), s), "pop")
                return
            if isinstance(target, gast.Subscript):
                self.write_item(target, self.atom(s.value), s)
                return
            if isinstance(target, gast.Name):
                calls_by_value.bind_local_value(self, target.id, s.value)
                self.assign(target.id, self.operation(s.value), s)
                return
            if (isinstance(target, (gast.Tuple, gast.List))
                    and isinstance(s.value, (gast.Tuple, gast.List))
                    and len(s.value.elts) == len(target.elts)):
                self.assign_simultaneously(target, s.value, s)
                return
        value = self.atom(s.value)
        for target in s.targets:
            self.emit(gast.Assign(targets=[_store(target)], value=value, type_comment=None), s)

    def assign_simultaneously(self, target, value, s):
        """``a, b = b, a``: evaluate every right-hand side before assigning any name."""
        targets = {n.id for n in syntax.names(target)}
        values = []
        for element_target, element in zip(target.elts, value.elts):
            element_value = self.atom(element)
            if isinstance(element_value, gast.Name) and element_value.id in targets or (
                    not isinstance(element_target, gast.Name)
                    and not isinstance(element_value, gast.Name)):
                # keep the old value (a, b = b, a), or name a nested target's value
                copy = self.fresh(element_value.id if isinstance(element_value, gast.Name)
                                  else "item")
                self.assign(copy, element_value, s)
                element_value = syntax.name(copy)
            values.append(element_value)
        for element_target, element_value in zip(target.elts, values):
            if isinstance(element_target, gast.Name):
                self.assign(element_target.id, element_value, s)
            else:  # (W, b), rest = ...: split_tuples unpacks the name
                self.emit(gast.Assign(targets=[_store(element_target)], value=element_value,
                                      type_comment=None), s)

    def visit_AnnAssign(self, s):
        self.assign(s.target.id, self.operation(s.value), s)

    def visit_AugAssign(self, s):
        if isinstance(s.target, gast.Subscript):  # y[i] += v: y[i] = y[i] + v
            container = self.container(s.target)
            part = self.atom(syntax.copy_location(gast.Subscript(
                value=container, slice=s.target.slice, ctx=gast.Load()), s.target), "part")
            combined = self.atom(syntax.copy_location(gast.BinOp(left=part, op=s.op,
                                                                right=s.value), s))
            self.write_item(s.target, combined, s, container)
            return
        # y += v: a write into y's object if it is an array or a list (lower_mutations)
        statement = gast.AugAssign(target=_store(s.target), op=s.op, value=self.atom(s.value))
        mark_write(self.emit(statement, s), "augmented")

    def visit_Return(self, s):
        value = s.value
        if isinstance(value, gast.Tuple):
            value = gast.Tuple(elts=[self.atom(e) for e in value.elts], ctx=gast.Load())
        else:
            value = self.atom(value, hint="result")
        self.emit(gast.Return(value=value), s)

    def visit_For(self, s):
        iterator = s.iter
        if isinstance(iterator, gast.Call) and not iterator.keywords:
            iterator = _copy(iterator, gast.Call(func=iterator.func, keywords=[],
                                                 args=[self.atom(a) for a in iterator.args]))
        else:
            iterator = self.atom(iterator, hint="steps")
        loop = gast.For(target=_store(s.target), iter=iterator, body=self.nested(s.body),
                        orelse=[], type_comment=None)
        self.emit(loop, s)

    def visit_While(self, s):
        test_name = self.fresh("more")
        self.assign(test_name, self.operation(s.test), s)
        body = self.nested(s.body)
        outer, self.out = self.out, body
        self.current = s
        self.assign(test_name, self.operation(syntax.deepcopy(s.test)), s)
        self.out = outer
        loop = gast.While(test=syntax.name(test_name), body=body, orelse=[])
        self.emit(loop, s)

    def visit_If(self, s):
        test = self.atom(s.test, hint="cond")
        branch = gast.If(test=test, body=self.nested(s.body), orelse=self.nested(s.orelse))
        self.emit(branch, s)

    def _is_local_name(self, node) -> bool:
        return isinstance(node, gast.Name) and node.id in self.locals

    def _is_pop_of_local_list(self, value) -> bool:
        return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
                and value.func.attr == "pop" and not value.args and not value.keywords
                and self._is_local_name(value.func.value))

    def container(self, target) -> gast.Name:
        """The name of the object ``target`` (``y[index]``) writes into: ``y``; for a nested
        element (``xs[t][k] = v``), a name for ``xs[t]``, the element written into (its
        sharing memory with ``xs`` is what propagate_writes follows, as for any alias)."""
        if isinstance(target.value, gast.Name):
            return syntax.name(target.value.id)
        loaded = syntax.copy_location(gast.Subscript(
            value=_loaded(target.value.value), slice=target.value.slice, ctx=gast.Load()),
            target.value)
        return self.atom(loaded, "element")

    def write_item(self, target, value, like, container=None):
        """``y[index] = value`` with the index's operands atoms: a write into y's object,
        which lower_mutations makes the functional ``y = rt.updated(y, index, value)``."""
        container = container if container is not None else self.container(target)
        item = gast.Subscript(value=syntax.name(container.id), slice=self.index(target.slice),
                              ctx=gast.Store())
        statement = gast.Assign(targets=[item], value=value, type_comment=None)
        mark_write(self.emit(statement, like), "subscript")

    def nested(self, statements):
        """``statements`` (a loop or branch body) in A-normal form."""
        outer, self.out = self.out, []
        current = self.current
        for inner in statements:
            self.current = inner
            self.statement(inner)
        body, self.out = self.out, outer
        self.current = current
        return body or [gast.Pass()]

    def branch(self, test, body, orelse, like):
        """Emit ``if test: body else: orelse`` (body/orelse: callables emitting statements)."""
        parts = []
        for emit_part in (body, orelse):
            outer, self.out = self.out, []
            if emit_part is not None:
                emit_part()
            parts.append(self.out)
            self.out = outer
        self.emit(gast.If(test=test, body=parts[0] or [gast.Pass()], orelse=parts[1]), like)

    def assign(self, name, value, like) -> gast.Assign | None:
        if (isinstance(value, gast.Name) and value.id in self.local_functions
                and self.store_counts.get(name, 0) <= 1):
            # a nested def or lambda under another name (``f = make(W)`` returned it): calls
            # of that name inline it too; it has no value in the generated code
            self.local_functions[name] = self.local_functions[value.id]
            return None
        if self.makes_list(value):
            self.lists.add(name)
        statement = _new(gast.Assign, targets=[syntax.name(name, store=True)], value=value,
                         type_comment=None)
        self.emit(statement, like)
        return statement

    def makes_list(self, value) -> bool:
        """Whether ``value`` (an operation) gives a list: a display, another such name, a
        split of an array, or srcad's appended (a comprehension's list grows by it)."""
        if isinstance(value, (gast.List, gast.ListComp)):
            return True
        if isinstance(value, gast.Name):
            return value.id in self.lists
        if isinstance(value, gast.Call):
            return id(self.resolve(value.func)) in _LIST_MAKER_IDS
        return False

    def atom(self, node, hint=None):
        kind = type(node)
        if kind is gast.Name or kind is gast.Constant:
            return node
        if is_static_reference(node, self.locals):
            return _constant_fold_sign(node)
        operation = self.operation(node)
        if is_atom(operation, self.locals):
            return operation
        name = self.fresh(hint or _describe(operation))
        self.assign(name, operation, node)
        calls_by_value.bind_temporary(self, name, operation)
        return syntax.name(name)

    def operation(self, node):
        """``node`` as a single operation whose operands are atoms (an ``operation_<type>``
        method each; the operands' own operations are emitted first, in Python's order)."""
        kind = type(node)
        if kind is gast.Name or kind is gast.Constant:
            return node
        if kind is gast.UnaryOp:
            node = _constant_fold_sign(node)
            kind = type(node)
        if is_atom(node, self.locals):
            return node
        if kind in self.operations:
            normalize = self.operations[kind]
        else:
            normalize = self.operations[kind] = getattr(
                type(self), "operation_" + kind.__name__, None)
        if normalize is None:
            raise AssertionError("fence let through %s" % type(node).__name__)
        return normalize(self, node)

    def operation_BinOp(self, node):
        return _copy(node, _new(gast.BinOp, left=self.atom(node.left), op=node.op,
                                right=self.atom(node.right)))

    def operation_JoinedStr(self, node):
        """An f-string: what it formats becomes atoms; the text carries no derivative."""
        values = []
        for part in node.values:
            if isinstance(part, gast.FormattedValue):
                spec = part.format_spec
                part = _copy(part, gast.FormattedValue(
                    value=self.atom(part.value), conversion=part.conversion,
                    format_spec=None if spec is None else self.operation_JoinedStr(spec)))
            values.append(part)
        return _copy(node, gast.JoinedStr(values=values))

    def operation_UnaryOp(self, node):
        return _copy(node, _new(gast.UnaryOp, op=node.op, operand=self.atom(node.operand)))

    def operation_Compare(self, node):
        if len(node.ops) == 1:
            return _copy(node, _new(gast.Compare, left=self.atom(node.left), ops=node.ops,
                                    comparators=[self.atom(c) for c in node.comparators]))
        # a < b < c: b evaluated once, c only if a < b
        result = self.fresh("cond")
        left = self.atom(node.left)
        self.chain(result, left, list(zip(node.ops, node.comparators)), node)
        return syntax.name(result)

    def operation_IfExp(self, node):
        result = self.fresh("choice")
        test = self.atom(node.test, hint="cond")
        self.branch(test, lambda: self.assign(result, self.operation(node.body), node),
                    lambda: self.assign(result, self.operation(node.orelse), node), node)
        return syntax.name(result)

    def operation_BoolOp(self, node):  # short-circuit: later operands only when needed
        result = self.fresh("both" if isinstance(node.op, gast.And) else "either")
        self.assign(result, self.operation(node.values[0]), node)
        self.bool_rest(result, node.op, node.values[1:], node)
        return syntax.name(result)

    def operation_Call(self, node):
        if isinstance(node.func, gast.Call) and inline.generated_callee(
                node.func, self.resolve) is None:  # make(W)(x): what make returns, called
            node = _copy(node, gast.Call(func=self.atom(node.func, "function"), args=node.args,
                                         keywords=node.keywords))
        if isinstance(node.func, gast.Lambda):  # (lambda t: t * t)(x): made, then called
            node = _copy(node, gast.Call(func=self.operation_Lambda(node.func), args=node.args,
                                         keywords=node.keywords))
        node = self.named_lambdas(node)
        if len(node.args) == 1 and isinstance(node.args[0], gast.Call):
            inner = self.named_lambdas(node.args[0])  # sum(map(lambda t: ..., xs))
            if inner is not node.args[0]:
                node = _copy(node, gast.Call(func=node.func, args=[inner],
                                             keywords=node.keywords))
        if self.calls_primitive_as_written(node):
            return self.primitive_call(self.ufunc_displays_as_arrays(node), None)
        by_value = None
        for _ in range(8):  # a partial of a bound method...: each step resolves one
            rewritten = calls_by_value.resolved_call(self, node)
            if not isinstance(rewritten, gast.Call):
                by_value = rewritten  # None, or why a derivative cannot flow through it
                break
            node = rewritten
        node = calls_by_value.spread_literals(calls_by_value.spread_known(self, node))
        if len(node.args) == 1 and self.resolve(node.func) is sum:
            mapped = calls_by_value.map_as_generator(node.args[0], self.resolve, self.namer,
                                                      self.aliases)
            if mapped is not None:  # sum(map(f, xs)): sum(f(item) for item in xs)
                node = _copy(node, gast.Call(func=node.func, args=[mapped], keywords=[]))
        if is_summation(node, self.resolve):
            summed = self.summation(node)
            if summed is not None:
                return summed
        mapped = calls_by_value.map_as_loop(node, self.resolve, self.namer, self.aliases)
        if mapped is not None:  # map(f, xs): the list of f's results, built here
            return self.loop_result(*mapped)
        if (len(node.args) == 1 and not node.keywords and self.resolve(node.func) is list
                and calls_by_value.map_as_loop(node.args[0], self.resolve, self.namer,
                                               self.aliases) is not None):
            return self.operation(node.args[0])  # list(map(f, xs)): that new list itself
        lowered = self.lowered_call(node)
        if lowered is not None:
            return lowered
        generated = inline.generated_callee(node.func, self.resolve)
        if generated is not None:  # vjp_of(f)(...) in gradient code differentiated again
            node = _copy(node, gast.Call(func=syntax.name(self.aliases.name_for(
                generated, preferred=generated.__name__)), args=node.args,
                keywords=node.keywords))
        try:
            inlined = inline.inline_call(self, node)
        except inline.CannotInline as reason:
            inlined, failure = None, reason.error
        else:
            failure = None
        if inlined is not None:
            return inlined
        packed = self.array_literal(node)
        if packed is not None:
            return packed
        return self.primitive_call(self.ufunc_displays_as_arrays(self.einsum_in_steps(node)),
                                   failure or by_value)

    def calls_primitive_as_written(self, node) -> bool:
        """Whether ``node`` calls a NumPy or builtin function with templates, by a static
        name (calls_by_value.calls_library_primitive), other than those operation_Call
        lowers (``sum``, ``map``, ``max``, ``np.array``, ``np.einsum``...), with no argument
        spread (``*args``, ``**options``): every step of operation_Call between naming the
        lambdas and ufunc_displays_as_arrays leaves such a call as it is, and none inlines."""
        func = node.func
        if type(func) is gast.Name:
            if func.id in self.local_functions:
                return False
        elif type(func) is not gast.Attribute:
            return False
        for argument in node.args:
            if type(argument) is gast.Starred:
                return False
        for keyword in node.keywords:
            if keyword.arg is None:
                return False
        return (calls_by_value.calls_library_primitive(self, node)
                and id(self.resolve(func)) not in _LOWERED_CALLEE_IDS)

    def primitive_call(self, node, failure):
        """``node`` (a call that stays a call) with its callee, arguments and keywords atoms;
        ``failure``: why a derivative cannot flow through it, if it cannot."""
        func = node.func
        if not is_static_reference(func, self.locals):
            if isinstance(func, gast.Attribute):  # a method call: x.sum(axis=0)
                func = _copy(func, _new(gast.Attribute, value=self.atom(func.value),
                                        attr=func.attr, ctx=syntax.LOAD))
            else:
                func = self.atom(func)
        args = [_copy(a, gast.Starred(value=self.atom(a.value), ctx=gast.Load()))
                if isinstance(a, gast.Starred) else self.atom(a) for a in node.args]
        keywords = [_new(gast.keyword, arg=k.arg, value=self.atom(k.value))
                    for k in node.keywords]
        call = _copy(node, _new(gast.Call, func=func, args=args, keywords=keywords))
        # on the atoms: an argument that builds a nested def (make_rhs(k)) is one by now
        calls_by_value.check_nested_function_passed(self, call, None, ())
        if failure is not None:  # left as a call; an error only if a gradient flows in
            set_not_inlined(call, failure)
        return call

    def operation_Attribute(self, node):
        return _copy(node, _new(gast.Attribute, value=self.atom(node.value), attr=node.attr,
                                ctx=syntax.LOAD))

    def operation_Subscript(self, node):
        joined = self.index_trick(node)
        if joined is not None:
            return joined
        return _copy(node, _new(gast.Subscript, value=self.atom(node.value),
                                slice=self.index(node.slice), ctx=syntax.LOAD))

    def operation_Tuple(self, node):
        return _copy(node, type(node)(elts=[self.atom(e) for e in node.elts], ctx=gast.Load()))

    operation_List = operation_Tuple

    def operation_Dict(self, node):
        if any(key is None for key in node.keys):
            return self.merged_dict(node)
        return _copy(node, gast.Dict(keys=[syntax.deepcopy(k) for k in node.keys],
                                     values=[self.atom(v) for v in node.values]))

    def copied_dict(self, call):
        """``dict(params)``: a new dict of the same entries, ``{**params}``, once the code
        has checked that params is a mapping (pairs by name are not followed)."""
        where = self.parsed.location(self.source.origin(call))
        mapping = self.atom(call.args[0])
        check = gast.Call(func=syntax.attribute(self.aliases.name_for(runtime), "check_mapping"),
                          args=[mapping, syntax.constant(
                              "%s:%d:%d" % (where.filename, where.lineno, where.col))],
                          keywords=[])
        self.emit(gast.Expr(value=_copy(call, check)), self.current)
        return self.merged_dict(_copy(call, gast.Dict(keys=[None], values=[mapping])))

    def merged_dict(self, node):
        """``{**params, "w": v}``: a new dict, ``rt.merged`` of the unpacked dicts and the
        literal entries in between, later ones overriding earlier ones, as Python does."""
        merged = syntax.attribute(self.aliases.name_for(runtime), "merged")
        result = self.atom(_copy(node, gast.Dict(keys=[], values=[])), hint="merged")
        entries = []
        parts = []
        for key, value in zip(node.keys, node.values):
            if key is not None:
                entries.append((key, value))
                continue
            if entries:
                parts.append(_copy(node, gast.Dict(keys=[k for k, _ in entries],
                                                   values=[v for _, v in entries])))
                entries = []
            parts.append(value)
        if entries:
            parts.append(_copy(node, gast.Dict(keys=[k for k, _ in entries],
                                               values=[v for _, v in entries])))
        for position, part in enumerate(parts):
            call = _copy(node, gast.Call(func=syntax.deepcopy(merged),
                                         args=[result, self.atom(part, hint="entries")],
                                         keywords=[]))
            if position == len(parts) - 1:
                return call
            result = self.atom(call, hint="merged")

    def operation_Lambda(self, node):
        """A lambda as a value (``return lambda t: a * t`` in a function inlined): a local
        function of a fresh name, which calls of the name it reaches inline."""
        name = self.fresh("fn")
        inline.capture_local_function(self, name, node)
        self.locals.add(name)
        return syntax.copy_location(syntax.name(name), node)

    def named_lambdas(self, call):
        """``apply(lambda t: t * t, x)``: each lambda argument made where Python makes it, as
        a local function of a fresh name (``fn = lambda t: t * t``), which calls inline."""
        Lambda = gast.Lambda
        for argument in call.args:  # (loops: most calls pass no lambda, and return here)
            if type(argument) is Lambda:
                break
        else:
            for keyword in call.keywords:
                if type(keyword.value) is Lambda:
                    break
            else:
                return call

        def named(value):
            return self.operation_Lambda(value) if isinstance(value, gast.Lambda) else value

        return _copy(call, gast.Call(
            func=call.func, args=[named(a) for a in call.args],
            keywords=[gast.keyword(arg=k.arg, value=named(k.value)) for k in call.keywords]))

    def summation(self, call):
        """``sum(... for ...)`` as an accumulating loop emitted here, where Python runs it."""
        literal = summed_literal(call)
        if literal is not None:
            return self.operation(literal)
        lowered = summation_loop(call, self.namer)
        if lowered is None:
            return None
        return self.loop_result(*lowered)

    def operation_ListComp(self, node):
        """A comprehension as a loop filling a fresh list (or dict), emitted here."""
        return self.loop_result(*comprehension_loop(node, self.namer,
                                                    self.aliases.name_for(runtime)))

    operation_GeneratorExp = operation_DictComp = operation_ListComp

    def lowered_call(self, call):
        """``max(items)``, ``min(items)``, ``dict(pairs)`` and ``list(<comprehension>)`` as
        the loops lower_comprehensions.py makes; ``max(a, b, c)`` as ``max(max(a, b), c)``
        (the first largest, as Python keeps); None for any other call."""
        if (len(call.args) > 2 and not call.keywords and not any(
                isinstance(a, gast.Starred) for a in call.args)
                and self.resolve(call.func) in (max, min)):
            pairwise = functools.reduce(lambda first, then: _copy(call, gast.Call(
                func=syntax.deepcopy(call.func), args=[first, then], keywords=[])), call.args)
            return self.operation(pairwise)
        if call.keywords or len(call.args) != 1 or isinstance(call.args[0], gast.Starred):
            return None
        callee = self.resolve(call.func)
        if callee is max or callee is min:
            return self.loop_result(*extremum_loop(call, self.namer, largest=callee is max))
        if callee is dict:
            lowered = dict_loop(call, self.namer, self.resolve, self.aliases.name_for(runtime))
            if lowered is None:
                return self.copied_dict(call)
            return self.loop_result(*lowered)
        if callee is list and isinstance(call.args[0], COMPREHENSIONS[:2]):
            return self.operation(call.args[0])  # the comprehension's list is a fresh one
        return None

    def loop_result(self, statements, result):
        """Emit the (user-level) statements of a lowered loop; the name of its result."""
        statements = index_loops(statements, self.namer, self.resolve, self.aliases)
        self.locals |= syntax.stored_names(gast.Module(body=statements, type_ignores=[]))
        current = self.current
        for statement in statements:
            self.statement(statement)
        self.current = current
        return syntax.name(result)

    def array_literal(self, call):
        """``np.array([a, b])``: an array built from values, each with its own derivative."""
        if (len(call.args) != 1 or call.keywords
                or not isinstance(call.args[0], (gast.List, gast.Tuple))
                or self.resolve(call.func) not in (np.array, np.asarray)):
            return None
        items = []
        for element in call.args[0].elts:
            if isinstance(element, (gast.List, gast.Tuple)):
                nested = gast.Call(func=call.func, args=[element], keywords=[])
                items.append(self.atom(syntax.copy_location(nested, element), hint="row"))
            else:
                items.append(self.atom(element))
        helper = syntax.attribute(self.aliases.name_for(runtime), "array_of")
        return _copy(call, gast.Call(func=helper, args=items, keywords=[]))

    def einsum_in_steps(self, call):
        """``np.einsum("ij,jk,kl,lm->im", a, b, c, e)`` of more than three operands (its
        templates take one to three): a chain of einsums of two, each keeping the letters a
        later operand or the output still needs (the same sum, grouped)."""
        if (len(call.args) <= 4 or self.resolve(call.func) is not np.einsum
                or not isinstance(call.args[0], gast.Constant)
                or not isinstance(call.args[0].value, str)
                or any(isinstance(a, gast.Starred) for a in call.args)
                or any(k.arg != "optimize" for k in call.keywords)):
            return call
        text = call.args[0].value.replace(" ", "")
        inputs, output = text.split("->") if "->" in text else (text, None)
        specs = inputs.split(",")
        if len(specs) != len(call.args) - 1:
            return call  # NumPy's own error, when it runs
        if output is None:  # implicit: the ellipsis, then the letters seen once, sorted
            counts = Counter(inputs.replace("...", "").replace(",", ""))
            output = ("..." if "..." in inputs else "") + "".join(
                sorted(c for c, n in counts.items() if n == 1))
        operands = list(call.args[1:])
        merged, merged_spec = operands[0], specs[0]
        for position in range(1, len(specs)):
            later = specs[position + 1:] + [output]
            if position == len(specs) - 1:
                kept = output
            else:
                seen = merged_spec.replace("...", "") + specs[position].replace("...", "")
                needed = "".join(later)
                kept = "".join(dict.fromkeys(c for c in seen if c in needed))
                if "..." in merged_spec + specs[position] and "..." in needed:
                    kept = "..." + kept
            step = "%s,%s->%s" % (merged_spec, specs[position], kept)
            merged = _copy(call, gast.Call(func=syntax.deepcopy(call.func),
                                           args=[syntax.constant(step), merged,
                                                 operands[position]], keywords=[]))
            merged_spec = kept
        return merged

    def ufunc_displays_as_arrays(self, call):
        """``np.square([a, b])``: a ufunc converts a list or tuple it is given to an array,
        so its derivatives see an array (``2.0 * [a, b]`` would repeat the list): the
        display is made ``np.asarray([a, b])``, then ``rt.array_of(a, b)`` (array_literal);
        a name some assignment binds to a list (``parts = np.split(x, 2)``) is given as
        ``np.asarray(parts)`` (for an array, np.asarray is the array itself)."""
        if not isinstance(self.resolve(call.func), np.ufunc):
            return call

        def as_array(arg):
            if isinstance(arg, (gast.List, gast.Tuple)):
                return not any(isinstance(e, gast.Starred) for e in arg.elts)
            return self.makes_list(arg)

        if not any(as_array(a) for a in call.args):
            return call
        numpy = syntax.name(self.aliases.name_for(np, preferred="np"))
        args = [_copy(a, gast.Call(func=syntax.attribute(numpy, "asarray"), args=[a],
                                   keywords=[])) if as_array(a) else a
                for a in call.args]
        return _copy(call, gast.Call(func=call.func, args=args, keywords=call.keywords))

    def index_trick(self, node):
        """``np.r_[a, b]`` / ``np.c_[a, b]``: ``rt.concatenated(np.r_, [a, b])``.

        The pieces are values to differentiate, not an index (an index never carries
        a derivative). A slice among them (``np.r_[0:3, x]``) stays its own
        ``np.r_[0:3]``; string directives (``np.r_['0,2', a, b]``) are left alone.
        """
        if not is_static_reference(node.value, self.locals):
            return None
        trick = self.resolve(node.value)
        if not any(trick is known for known in (np.r_, np.c_)):
            return None
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if len(parts) == 1 and isinstance(parts[0], gast.Slice) or any(
                isinstance(p, gast.Constant) and isinstance(p.value, str) for p in parts):
            return None
        pieces = []
        for part in parts:
            if isinstance(part, gast.Slice):
                part = _copy(part, gast.Subscript(value=syntax.deepcopy(node.value), slice=part,
                                                  ctx=gast.Load()))
            pieces.append(self.atom(part))
        listed = self.atom(_copy(node, gast.List(elts=pieces, ctx=gast.Load())), hint="pieces")
        helper = syntax.attribute(self.aliases.name_for(runtime), "concatenated")
        return _copy(node, gast.Call(func=helper, args=[syntax.deepcopy(node.value), listed],
                                     keywords=[]))

    def chain(self, result, left, rest, like):
        op, right = rest[0]
        right = self.atom(right)
        self.assign(result, _copy(like, gast.Compare(left=left, ops=[op], comparators=[right])),
                    like)
        if rest[1:]:
            self.branch(syntax.name(result), lambda: self.chain(result, right, rest[1:], like),
                        None, like)

    def bool_rest(self, result, op, values, like):
        if not values:
            return
        test = syntax.name(result)
        if isinstance(op, gast.Or):
            negated = self.fresh("neither")
            self.assign(negated, gast.UnaryOp(op=gast.Not(), operand=test), like)
            test = syntax.name(negated)

        def rest():
            self.assign(result, self.operation(values[0]), like)
            self.bool_rest(result, op, values[1:], like)

        self.branch(test, rest, None, like)

    def index(self, node):
        if isinstance(node, gast.Slice):
            return gast.Slice(*(None if part is None else self.atom(part)
                                for part in (node.lower, node.upper, node.step)))
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.atom(node)


def _store(target):
    if isinstance(target, gast.Name):
        return gast.Name(id=target.id, ctx=gast.Store(), annotation=None, type_comment=None)
    if isinstance(target, gast.Starred):
        return gast.Starred(value=_store(target.value), ctx=gast.Store())
    return type(target)(elts=[_store(e) for e in target.elts], ctx=gast.Store())


def _loaded(node):
    """``node`` (part of an assignment target) as an expression read: Load contexts."""
    node = syntax.deepcopy(node)
    for inner in syntax.walk(node):
        if hasattr(inner, "ctx") and not isinstance(inner.ctx, gast.Load):
            inner.ctx = gast.Load()
    return node


def _new(kind, **fields):
    """``kind(**fields)``, without gast's constructor (the statements to_anf makes)."""
    node = kind.__new__(kind)
    node.__dict__.update(fields)
    return node


def _copy(old, new):
    """``syntax.copy_location(new, old)``: to_anf locates every node it makes."""
    return syntax.copy_location(new, old)


def _constant_fold_sign(node):
    """``-2.0`` is an atom, not an operation."""
    if (isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd))
            and isinstance(node.operand, gast.Constant)
            and isinstance(node.operand.value, (int, float, complex))
            and not isinstance(node.operand.value, bool)):
        value = node.operand.value
        return syntax.copy_location(gast.Constant(value=-value if isinstance(node.op, gast.USub)
                                                else value, kind=None), node)
    return node


def _describe(node) -> str:
    """A readable base name for a temporary holding ``node``'s value."""
    if isinstance(node, gast.BinOp):
        return _BINOP_NAMES.get(type(node.op), "binop")
    if isinstance(node, gast.UnaryOp):
        return _UNARY_NAMES.get(type(node.op), "unary")
    if isinstance(node, gast.Compare):
        return "cond"
    if isinstance(node, gast.Call):
        func = node.func
        if isinstance(func, gast.Attribute):
            return func.attr
        if isinstance(func, gast.Name):
            return func.id
        return "call"
    if isinstance(node, gast.Attribute):
        base = node.value.id if isinstance(node.value, gast.Name) else "value"
        return "%s_%s" % (base, node.attr)
    if isinstance(node, gast.Subscript):
        base = node.value.id if isinstance(node.value, gast.Name) else "value"
        return "%s_item" % base
    if isinstance(node, (gast.Tuple, gast.List)):
        return "items"
    if isinstance(node, gast.JoinedStr):
        return "text"
    return "tmp"


def to_anf(parsed: ParsedFunction, tree: gast.FunctionDef, namer: Namer,
           aliases, inlined: list | None = None, values=None,
           asked: list | None = None) -> gast.FunctionDef:
    """Return a copy of ``tree`` whose body is in A-normal form, user calls inlined.

    ``inlined``, if given, receives every user function inlined into it. ``values``
    holds the ByValue kinds of the parameters the code is generated for (None: code for
    arguments of any kind); ``asked``, if given, receives the parameters a call was
    resolved by (calls_by_value.py).
    """
    normalizer = _ToANF(parsed, namer, aliases, values, asked)
    assigned = calls_by_value.note_assignments(normalizer, tree.body)
    normalizer.by_value = calls_by_value.parameter_values(parsed, assigned, values)
    # names the earlier passes introduced (loop indices, flags, totals) are locals too
    normalizer.locals |= assigned
    body = normalizer.statements(tree.body)
    if inlined is not None:
        inlined.extend(normalizer.inlined)
    return syntax.copy_location(syntax.function_def(tree.name, syntax.deepcopy(tree.args),
                                                    body), tree)
