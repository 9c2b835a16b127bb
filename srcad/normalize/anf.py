"""Normalize to A-normal form: one operation per statement.

After this pass the function body contains only:

* ``name = <operation>`` where <operation> is an atom, ``atom op atom``,
  ``op atom``, ``atom cmp atom``, ``f(atom, ..., key=atom)``, ``atom.attr``,
  ``atom[index]`` (index made of atoms and slices of atoms) or ``(atom, ...)``;
* ``a, b = atom`` (unpacking);
* ``expression_statement(atom, ...)`` kept for its effect (e.g. ``print``);
* ``for name in range(atom, ...):`` (or ``for name in atom:`` over a range
  object) and ``while atom:`` whose test is recomputed at the end of the body,
  and ``if atom: ... else: ...``, with bodies again in this form;
* a final ``return atom`` (or ``return (atom, atom)`` for has_aux).

An *atom* is a Name, a Constant, or a static reference such as ``np.pi``.
Conditional expressions, ``and``/``or`` and chained comparisons become
``if`` statements (keeping Python's short-circuit evaluation). Augmented
assignments are plain assignments; each statement records the
user statement it came from (annotations.origin), for comments and errors.
A statement that stands for a write into an existing object (``y[i] = v``,
``y += v``, ``items.append(v)``, ``items.pop()``) is marked as one
(annotations.write_kind), for normalize/propagate_writes.py.

Example::

    h = np.tanh(np.dot(x, W1) + b1)      dot = np.dot(x, W1)
                                    ->   add = dot + b1
                                         h = np.tanh(add)
"""

from __future__ import annotations

import gast

import inspect

import numpy as np

from .. import runtime, syntax
from ..annotations import mark_in_place, mark_write, set_not_inlined, set_origin, set_position
from ..errors import UnsupportedSyntaxError
from . import inline
from .lower_comprehensions import is_summation, summation_loop, summed_literal
from .lower_exits import index_loops, lower_exits
from ..naming import Namer
from ..parse import ParsedFunction
from ..resolve import Resolver

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


def is_static_reference(node, local_names) -> bool:
    """``np.pi``, ``math.sqrt``: an attribute chain rooted in a free (non-local) name."""
    if isinstance(node, gast.Attribute):
        return is_static_reference(node.value, local_names)
    return isinstance(node, gast.Name) and node.id not in local_names


class _ToANF:
    def __init__(self, parsed: ParsedFunction, namer: Namer, aliases):
        self.parsed = parsed
        self.source = parsed  # the function whose statements are being normalized (callees too)
        self.namer = namer
        self.aliases = aliases
        self.locals = set(parsed.local_names)
        # what a static reference means (srcad's aliases, then the user's names)
        self.resolve = Resolver(parsed, aliases, namer)
        self.local_functions = {}  # name -> (FunctionDef or Lambda, source it was written in)
        self.inlining = [parsed.function]  # the function and the callees being inlined in it
        self.inlined = []  # every user function inlined (their sources shape the result)
        self.out: list = []
        self.current = None

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
        gast.copy_location(statement, like)
        set_origin(statement, self.source.origin(self.current))
        set_position(statement, self.source.origin(like))
        self.out.append(statement)

    def statement(self, s):
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant):
            return  # docstring or bare constant
        if isinstance(s, gast.FunctionDef):
            self.local_functions[s.name] = (self.with_defaults_evaluated(s), self.source)
            return  # inlined where it is called
        if (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Lambda)):
            self.local_functions[s.targets[0].id] = (self.with_defaults_evaluated(s.value),
                                                     self.source)
            return
        if isinstance(s, gast.Pass):
            return
        if isinstance(s, (gast.Assert, gast.Raise)):
            self.emit(syntax.deepcopy(s), s)  # checks: kept in the primal sweep as written
            return
        if (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute)
                and s.value.func.attr == "pop" and not s.value.args
                and isinstance(s.value.func.value, gast.Name)
                and s.value.func.value.id in self.locals):
            # x = items.pop() on a local list: x = items[-1]; items = items[:-1]
            items = s.value.func.value.id
            last = gast.Subscript(value=syntax.name(items), slice=syntax.constant(-1),
                                  ctx=gast.Load())
            popped = self.atom(gast.copy_location(last, s.value), hint="popped")
            helper = syntax.attribute(self.aliases.name_for(runtime), "all_but_last")
            rest = mark_in_place(gast.Call(func=helper, args=[syntax.name(items)], keywords=[]))
            mark_write(self.assign(items, gast.copy_location(rest, s.value), s), "pop")
            self.emit(gast.Assign(targets=[_store(s.targets[0])], value=popped,
                                  type_comment=None), s)
            return
        if (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Subscript)):
            self.update(s.targets[0], self.atom(s.value), s)
            return
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
            part = self.atom(gast.copy_location(gast.Subscript(
                value=s.target.value, slice=s.target.slice, ctx=gast.Load()), s.target), "part")
            combined = self.atom(gast.copy_location(gast.BinOp(left=part, op=s.op,
                                                                right=s.value), s))
            self.update(s.target, combined, s)
            return
        if isinstance(s, gast.Assign):
            if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                self.assign(s.targets[0].id, self.operation(s.value), s)
                return
            if (len(s.targets) == 1 and isinstance(s.targets[0], (gast.Tuple, gast.List))
                    and isinstance(s.value, (gast.Tuple, gast.List))
                    and len(s.value.elts) == len(s.targets[0].elts)):
                # a, b = b, a: evaluate every right-hand side before assigning any name
                targets = {n.id for n in syntax.names(s.targets[0])}
                values = []
                for target, v in zip(s.targets[0].elts, s.value.elts):
                    value = self.atom(v)
                    if isinstance(value, gast.Name) and value.id in targets or (
                            not isinstance(target, gast.Name) and not isinstance(value,
                                                                                  gast.Name)):
                        # keep the old value (a, b = b, a), or name a nested target's value
                        copy = self.fresh(value.id if isinstance(value, gast.Name) else "item")
                        self.assign(copy, value, s)
                        value = syntax.name(copy)
                    values.append(value)
                for target, value in zip(s.targets[0].elts, values):
                    if isinstance(target, gast.Name):
                        self.assign(target.id, value, s)
                    else:  # (W, b), rest = ...: split_tuples unpacks the name
                        self.emit(gast.Assign(targets=[_store(target)], value=value,
                                              type_comment=None), s)
                return
            value = self.atom(s.value)
            for target in s.targets:
                self.emit(gast.Assign(targets=[_store(target)], value=value, type_comment=None), s)
            return
        if isinstance(s, gast.AnnAssign):
            self.assign(s.target.id, self.operation(s.value), s)
            return
        if isinstance(s, gast.AugAssign):
            name = s.target.id
            operation = gast.BinOp(left=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                  type_comment=None),
                                   op=s.op, right=self.atom(s.value))
            mark_write(self.assign(name, gast.copy_location(operation, s), s), "augmented")
            return
        if isinstance(s, gast.Return):
            value = s.value
            if isinstance(value, gast.Tuple):
                value = gast.Tuple(elts=[self.atom(e) for e in value.elts], ctx=gast.Load())
            else:
                value = self.atom(value, hint="result")
            self.emit(gast.Return(value=value), s)
            return
        if (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
                and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append"
                and isinstance(s.value.func.value, gast.Name)
                and s.value.func.value.id in self.locals
                and len(s.value.args) == 1 and not s.value.keywords):
            # xs.append(v) on a local list: the functional xs = rt.appended(xs, v)
            items = s.value.func.value.id
            helper = syntax.attribute(self.aliases.name_for(runtime), "appended")
            value = self.atom(s.value.args[0])
            mark_write(self.assign(items, mark_in_place(_copy(s.value, gast.Call(
                func=helper, args=[syntax.name(items), value], keywords=[]))), s), "append")
            return
        if (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
                and self.resolve(s.value.func) is runtime.add_at and len(s.value.args) == 3
                and isinstance(s.value.args[0], gast.Name)):
            # srcad's own in-place accumulation, in code being differentiated again:
            # the functional total = rt.added_at(total, index, g)
            total = s.value.args[0].id
            helper = syntax.attribute(self.aliases.name_for(runtime), "added_at")
            args = [syntax.name(total)] + [self.atom(a) for a in s.value.args[1:]]
            mark_write(self.assign(total, mark_in_place(_copy(s.value, gast.Call(
                func=helper, args=args, keywords=[]))), s), "add_at")
            return
        if isinstance(s, gast.Expr):
            self.emit(gast.Expr(value=self.operation(s.value)), s)
            return
        if isinstance(s, gast.For):
            iterator = s.iter
            if isinstance(iterator, gast.Call) and not iterator.keywords:
                iterator = _copy(iterator, gast.Call(func=iterator.func, keywords=[],
                                                     args=[self.atom(a) for a in iterator.args]))
            else:
                iterator = self.atom(iterator, hint="steps")
            loop = gast.For(target=_store(s.target), iter=iterator, body=self.nested(s.body),
                            orelse=[], type_comment=None)
            self.emit(loop, s)
            return
        if isinstance(s, gast.While):
            test_name = self.fresh("more")
            self.assign(test_name, self.operation(s.test), s)
            body = self.nested(s.body)
            outer, self.out = self.out, body
            self.current = s
            self.assign(test_name, self.operation(syntax.deepcopy(s.test)), s)
            self.out = outer
            loop = gast.While(test=syntax.name(test_name), body=body, orelse=[])
            self.emit(loop, s)
            return
        if isinstance(s, gast.If):
            test = self.atom(s.test, hint="cond")
            branch = gast.If(test=test, body=self.nested(s.body), orelse=self.nested(s.orelse))
            self.emit(branch, s)
            return
        raise AssertionError("fence let through %s" % type(s).__name__)

    def with_defaults_evaluated(self, definition):
        """A nested def's (or lambda's) defaults are evaluated where it is defined: each one
        that is not a constant or a static reference is computed here, into a name of its
        own that calls made later read (whatever the variables it read hold by then)."""
        definition = syntax.deepcopy(definition)
        defaults = []
        for default in definition.args.defaults:
            value = self.atom(default, hint="default")
            if isinstance(value, gast.Name) and value.id in self.locals:
                copy = self.fresh("default")
                self.assign(copy, value, default)
                value = syntax.name(copy)
            defaults.append(value)
        definition.args.defaults = defaults
        return definition

    def update(self, target, value, like):
        """``y[index] = value`` as the functional update ``y = rt.updated(y, index, value)``."""
        container = target.value.id
        index = syntax.index_expression(self.index(target.slice))
        helper = syntax.attribute(self.aliases.name_for(runtime), "updated")
        call = gast.copy_location(gast.Call(func=helper, args=[syntax.name(container), index,
                                                               value], keywords=[]), like)
        mark_write(self.assign(container, call, like), "subscript")

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

    def assign(self, name, value, like) -> gast.Assign:
        target = gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
        statement = gast.Assign(targets=[target], value=value, type_comment=None)
        self.emit(statement, like)
        return statement

    def atom(self, node, hint=None):
        if is_atom(node, self.locals):
            return _constant_fold_sign(node)
        operation = self.operation(node)
        if is_atom(operation, self.locals):
            return operation
        name = self.fresh(hint or _describe(operation))
        self.assign(name, operation, node)
        return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)

    def operation(self, node):
        """``node`` as a single operation whose operands are atoms."""
        node = _constant_fold_sign(node)
        if is_atom(node, self.locals):
            return node
        if isinstance(node, gast.BinOp):
            return _copy(node, gast.BinOp(left=self.atom(node.left), op=node.op,
                                          right=self.atom(node.right)))
        if isinstance(node, gast.UnaryOp):
            return _copy(node, gast.UnaryOp(op=node.op, operand=self.atom(node.operand)))
        if isinstance(node, gast.Compare) and len(node.ops) == 1:
            return _copy(node, gast.Compare(left=self.atom(node.left), ops=node.ops,
                                            comparators=[self.atom(c) for c in node.comparators]))
        if isinstance(node, gast.Compare):  # a < b < c: b evaluated once, c only if a < b
            result = self.fresh("cond")
            left = self.atom(node.left)
            self.chain(result, left, list(zip(node.ops, node.comparators)), node)
            return syntax.name(result)
        if isinstance(node, gast.IfExp):
            result = self.fresh("choice")
            test = self.atom(node.test, hint="cond")
            self.branch(test, lambda: self.assign(result, self.operation(node.body), node),
                        lambda: self.assign(result, self.operation(node.orelse), node), node)
            return syntax.name(result)
        if isinstance(node, gast.BoolOp):  # short-circuit: later operands only when needed
            result = self.fresh("both" if isinstance(node.op, gast.And) else "either")
            self.assign(result, self.operation(node.values[0]), node)
            self.bool_rest(result, node.op, node.values[1:], node)
            return syntax.name(result)
        if isinstance(node, gast.Call) and is_summation(node, self.resolve):
            summed = self.summation(node)
            if summed is not None:
                return summed
        if isinstance(node, gast.Call):
            generated = inline.generated_callee(node.func, self.resolve)
            if generated is not None:  # vjp_of(f)(...) in gradient code differentiated again
                node = _copy(node, gast.Call(func=syntax.name(self.aliases.name_for(
                    generated, preferred=generated.__name__)), args=node.args,
                    keywords=node.keywords))
            try:
                inlined = self.inline(node)
            except inline.CannotInline as reason:
                inlined, failure = None, reason.error
            else:
                failure = None
            if inlined is not None:
                return inlined
            func = node.func
            packed = self.array_literal(node)
            if packed is not None:
                return packed
            if not is_static_reference(func, self.locals):
                if isinstance(func, gast.Attribute):  # a method call: x.sum(axis=0)
                    func = _copy(func, gast.Attribute(value=self.atom(func.value), attr=func.attr,
                                                      ctx=gast.Load()))
                else:
                    func = self.atom(func)
            args = [self.atom(a) for a in node.args]
            keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
            call = _copy(node, gast.Call(func=func, args=args, keywords=keywords))
            if failure is not None:  # left as a call; an error only if a gradient flows in
                set_not_inlined(call, failure)
            return call
        if isinstance(node, gast.Attribute):
            return _copy(node, gast.Attribute(value=self.atom(node.value), attr=node.attr,
                                              ctx=gast.Load()))
        if isinstance(node, gast.Subscript):
            joined = self.index_trick(node)
            if joined is not None:
                return joined
            return _copy(node, gast.Subscript(value=self.atom(node.value),
                                              slice=self.index(node.slice), ctx=gast.Load()))
        if isinstance(node, (gast.Tuple, gast.List)):
            return _copy(node, type(node)(elts=[self.atom(e) for e in node.elts], ctx=gast.Load()))
        if isinstance(node, gast.Dict):
            return _copy(node, gast.Dict(keys=[syntax.deepcopy(k) for k in node.keys],
                                         values=[self.atom(v) for v in node.values]))
        raise AssertionError("fence let through %s" % type(node).__name__)

    def inline(self, call):
        """Inline a call to a user function, nested def or lambda; None if it is not one."""
        func = call.func
        if isinstance(func, gast.Name) and func.id in self.local_functions:
            definition, source = self.local_functions[func.id]
            tree, mapping, signature = inline.prepare_local(definition, self.namer)
            function, key, leading = None, definition, []
        else:
            if not is_static_reference(func, self.locals):
                return None
            function, leading = inline.made_callee(
                self.resolve(func), self.parsed.location(self.source.origin(call)))
            if not inline.is_inlinable(function):
                return None
            key = function
            if key in self.inlining or len(self.inlining) >= inline.MAX_DEPTH:
                raise inline.CannotInline(inline.Recursive(function))
            try:
                source, tree, mapping = inline.prepare_callee(function, self.namer, self.aliases)
            except UnsupportedSyntaxError as error:
                raise inline.CannotInline(error) from None
            signature = inspect.signature(function, follow_wrapped=False)
            if function not in self.inlined:
                self.inlined.append(function)
        if key in self.inlining:
            raise inline.recursion_error(self.source, call, function)
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return None
        args = [inline.value_node(value, self.aliases) for value in leading]
        args += [self.atom(a) for a in call.args]
        keywords = {k.arg: self.atom(k.value) for k in call.keywords}

        def error(message):
            return UnsupportedSyntaxError(message, self.parsed.location(self.source.origin(call)),
                                          "Call it with the arguments it declares.")

        pairs = inline.bind_arguments(signature, mapping, args, keywords, self.aliases, error)
        body = lower_exits(tree, self.namer, self.resolve, self.aliases).body
        saved = (self.source, self.current)
        new_locals = {renamed for _, renamed in mapping.items()} | syntax.stored_names(
            gast.Module(body=body, type_ignores=[]))
        new_locals -= set(self.aliases.bindings)
        self.locals |= new_locals
        self.inlining.append(key)
        try:
            for param, value in pairs:
                self.assign(param, self.operation(value), call)
            self.source = source
            for statement in body[:-1]:
                self.current = statement
                self.statement(statement)
            returned = body[-1]
            self.current = returned
            result = self.fresh(getattr(function, "__name__", "result") or "result")
            self.locals.add(result)
            if isinstance(returned, gast.Return):
                value = returned.value if returned.value is not None else syntax.constant(None)
                self.assign(result, self.operation(value), returned)
            else:  # no return statement: the call's value is None
                self.statement(returned)
                self.assign(result, syntax.constant(None), returned)
        finally:
            self.inlining.pop()
            self.source, self.current = saved
        return syntax.name(result)

    def summation(self, call):
        """``sum(... for ...)`` as an accumulating loop emitted here, where Python runs it."""
        literal = summed_literal(call)
        if literal is not None:
            return self.operation(literal)
        lowered = summation_loop(call, self.namer)
        if lowered is None:
            return None
        statements, total = lowered
        statements = index_loops(statements, self.namer, self.resolve, self.aliases)
        self.locals |= syntax.stored_names(gast.Module(body=statements, type_ignores=[]))
        current = self.current
        for statement in statements:
            self.statement(statement)
        self.current = current
        return syntax.name(total)

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
                items.append(self.atom(gast.copy_location(nested, element), hint="row"))
            else:
                items.append(self.atom(element))
        helper = syntax.attribute(self.aliases.name_for(runtime), "array_of")
        return _copy(call, gast.Call(func=helper, args=items, keywords=[]))

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


def _copy(old, new):
    return gast.copy_location(new, old)


def _constant_fold_sign(node):
    """``-2.0`` is an atom, not an operation."""
    if (isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd))
            and isinstance(node.operand, gast.Constant)
            and isinstance(node.operand.value, (int, float, complex))
            and not isinstance(node.operand.value, bool)):
        value = node.operand.value
        return gast.copy_location(gast.Constant(value=-value if isinstance(node.op, gast.USub)
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
    return "tmp"


def to_anf(parsed: ParsedFunction, tree: gast.FunctionDef, namer: Namer,
           aliases, inlined: list | None = None) -> gast.FunctionDef:
    """Return a copy of ``tree`` whose body is in A-normal form, user calls inlined.

    ``inlined``, if given, receives every user function inlined into it.
    """
    normalizer = _ToANF(parsed, namer, aliases)
    # names the earlier passes introduced (loop indices, flags, totals) are locals too
    normalizer.locals |= syntax.stored_names(tree)
    body = normalizer.statements(tree.body)
    if inlined is not None:
        inlined.extend(normalizer.inlined)
    return gast.copy_location(syntax.function_def(tree.name, tree.args, body), tree)
