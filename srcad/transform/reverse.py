"""Reverse mode: build the primal sweep and the adjoint sweep from templates.

Input: the normalized (A-normal form) function and its activity. Output: a
function with the same parameters whose body is

    <primal statements>                 the user's computation, one op per line
    <output check>                      grad only: the output must be a scalar
    <output>_bar += <seed>              1.0 for grad; the cotangent for vjp
    # grad of: <user line>              for each active statement, last first:
    <template statements>               the primitive's adjoint template
    del <target>_bar                    the target's adjoint is consumed
    return <adjoints of wrt>

in the intermediate accumulation form (``x_bar += e``, ``del x_bar``) that
lower_accumulations.py turns into plain Python.
"""

from __future__ import annotations

import builtins
import collections
import inspect
import operator
from dataclasses import dataclass

import gast

from .. import registry, runtime, syntax
from ..analysis import shapes
from ..analysis.activity import carries_gradient
from ..analysis.operations import IDENTITY, TUPLE, operation_of
from ..annotations import comment, is_carry, is_restore, mark_restore, not_inlined, origin, position
from ..errors import UnsupportedSyntaxError
from ..normalize.inline import Recursive, value_node
from ..recursion import vjp_of
from ..request import Request
from .context import TransformContext
from .templates import (
    bind_template,
    check_instantiable,
    instantiate,
    part_parameters,
    new_node,
    result_parameter,
    shape_of,
    template_for,
    template_of,
)


def reverse(tree: gast.FunctionDef, context: TransformContext, request: Request,
            name: str, check_only: bool = False, reads: dict | None = None,
            primal: list | None = None) -> gast.FunctionDef | None:
    """The gradient function of the normalized ``tree``, which stays as it is (the primal
    sweep is made of copies of its statements: the tree may be the front kept for later
    requests, pipeline._front).

    ``check_only``: raise what the transform would raise (every adjoint's template looked
    up, bound and checked), but make nothing (None): ``srcad.grad(f)``'s early check.
    ``reads``: if given, filled with adjoint statement -> the names its value reads
    (lower_accumulations' ``reads``: found here anyway, to decide what to record).
    ``primal``: if given, filled with the statements of the primal sweep, which read and
    write no adjoint (lower_accumulations' ``primal``).
    """
    body = list(tree.body)
    returned = body.pop()
    assert isinstance(returned, gast.Return)
    if request.has_aux:
        output, aux = returned.value.elts
    else:
        output, aux = returned.value, None
    rt = context.aliases.name_for(runtime)
    sweeps = _Sweeps(context, body, check_only, reads)
    if check_only:
        return None

    statements = sweeps.forward(body)
    if sweeps.uses_tape:
        statements.insert(0, syntax.assign(sweeps.tape, gast.List(elts=[], ctx=gast.Load())))
    # grad of a function returning a tuple, list or dict: rt.check_scalar_output raises
    # when the code runs, so no adjoint is seeded (it would index the seed 1.0)
    no_adjoint = request.check_scalar_output and _returns_a_literal_container(output, body)
    if request.check_scalar_output:
        where = context.parsed.location(origin(returned) or returned)
        statements.append(gast.Expr(value=syntax.call(
            syntax.attribute(rt, "check_scalar_output"), syntax.deepcopy(output),
            syntax.constant("%s:%d:%d" % (where.filename, where.lineno, where.col)))))

    if request.return_value or request.has_aux:
        # the adjoint sweep restores loop variables to earlier values: read the returned
        # value (and aux) now, as the primal sweep left them
        kept, returned_value = _keep_loop_results(returned.value, body, context.namer)
        statements.extend(kept)
        if request.has_aux:
            aux = returned_value.elts[1]
    if primal is not None:
        primal.extend(statements)

    seed = (syntax.name(request.seed) if isinstance(request.seed, str)
            else syntax.constant(request.seed))
    if request.check_scalar_output and isinstance(output, gast.Name):
        # an array holding one number is a scalar output too: its adjoint has its shape
        seed = syntax.call(syntax.attribute(rt, "unit_seed"), syntax.name(output.id))
    if no_adjoint:
        pass
    elif isinstance(output, gast.Name) and context.activity.is_active(output.id):
        statements.append(gast.AugAssign(target=syntax.name(context.namer.adjoint(output.id), True),
                                         op=gast.Add(), value=seed))
    elif isinstance(output, (gast.Tuple, gast.List)) and isinstance(request.seed, str):
        for index, element in enumerate(output.elts):  # several outputs: one cotangent each
            if isinstance(element, gast.Name) and context.activity.is_active(element.id):
                part = gast.Subscript(value=syntax.deepcopy(seed), slice=syntax.constant(index),
                                      ctx=gast.Load())
                statements.append(gast.AugAssign(
                    target=syntax.name(context.namer.adjoint(element.id), True), op=gast.Add(),
                    value=part))
    if not no_adjoint:
        statements.extend(sweeps.adjoint(body))

    # a gradient has its argument's type: read it from the argument as passed, not from a
    # loop variable of the same name that the sweeps left holding another value
    rebound = sweeps.stored
    arguments = {}
    for param in request.wrt:
        if param in rebound:
            arguments[param] = context.namer.fresh(param + "_argument")
            statements.insert(0, syntax.assign(arguments[param], syntax.name(param)))
    results = [syntax.call(syntax.attribute(rt, "match_type"),
                           syntax.name(context.namer.adjoint(param)),
                           syntax.name(arguments.get(param, param)))
               for param in request.wrt]
    # gradients are fresh, writable arrays: never a read-only view, never one object twice
    gradients = syntax.call(syntax.attribute(rt, "owned"), *results)
    if not request.single:
        gradients = syntax.call(syntax.attribute(rt, "owned_tuple"), *results)
    if request.return_value:
        gradients = gast.Tuple(elts=[returned_value, gradients], ctx=gast.Load())
    elif request.has_aux:
        gradients = gast.Tuple(elts=[gradients, syntax.deepcopy(aux)], ctx=gast.Load())
    statements.append(gast.Return(value=gradients))
    args = syntax.arguments(context.parsed.params + list(request.extra_params))
    return syntax.function_def(name, args, statements)




def _returns_a_literal_container(output, body) -> bool:
    """The output is a tuple, list or dict written as such (``return a, b``, ``y = {...}``)."""
    if isinstance(output, (gast.Tuple, gast.List, gast.Dict)):
        return True
    return isinstance(output, gast.Name) and any(
        isinstance(statement, gast.Assign)
        and isinstance(statement.value, (gast.Tuple, gast.List, gast.Dict))
        and syntax.stored_names(statement) == {output.id}
        for statement in body)


def _keep_loop_results(returned, body, namer) -> tuple[list, gast.expr]:
    """``c_result = c`` for each returned name a loop assigns, and ``returned`` reading those."""
    returned = syntax.deepcopy(returned)
    in_loops = set()
    for node in syntax.nodes(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, (gast.For, gast.While)):
            in_loops |= syntax.stored_names(node)
    kept, renames = [], {}
    for node in syntax.names(returned):
        if node.id in in_loops and node.id not in renames:
            renames[node.id] = namer.fresh(node.id + "_result")
            kept.append(syntax.assign(renames[node.id], syntax.name(node.id)))
    syntax.rename(returned, renames)
    return kept, returned


def _is_active_assignment(statement, context) -> bool:
    if not isinstance(statement, gast.Assign):
        return False
    targets = statement.targets
    if len(targets) == 1 and type(targets[0]) is gast.Name:
        return context.activity.is_active(targets[0].id)
    return any(context.activity.is_active(n.id) for t in targets for n in syntax.names(t))


_IN_PLACE = (runtime.add_at, runtime.append_in_place, runtime.pop_in_place)
_BLOCK_FIELDS = frozenset(("body", "orelse", "finalbody", "handlers", "cases"))
_EXPRESSION_FIELDS: dict = {}  # node type -> its fields that may hold expressions (not blocks)
_BLOCKS_OF: dict = {}  # statement type -> its fields that hold statements


def _blocks_of(kind) -> tuple:
    fields = _BLOCKS_OF[kind] = tuple(f for f in kind._fields if f in _BLOCK_FIELDS)
    return fields


def _primal_names_read(adjoints: dict, context, loop_stored: set, reads: dict,
                       shapes: dict) -> set:
    """Primal variables the adjoint statements read (what the reverse sweep needs).

    Only names a loop body assigns can be overwritten before the adjoint sweep reads
    them, so only those decide what is recorded: a statement reading none of them is
    not asked about (``reads_once_optimized``, which specializes a copy of each one it
    is given: specialization only removes reads, and the names it brings in, NumPy's
    alias and builtins, are never assigned in a loop, which is checked).

    ``reads`` holds what the statements made from templates read, and is filled with what
    each other assignment's value reads (``x_bar += e``, ``t = e``: its targets read
    nothing). ``shapes``: what tells the shapes of the statements made from templates
    (templates.shape_of; passed on to ``reads_once_optimized``: statements of one shape
    are specialized alike).
    """
    optimized = context.reads_once_optimized
    if optimized is not None and _named_like_what_specialization_brings(loop_stored, context):
        loop_stored = None  # (a user variable named like a builtin): ask about all of them
    read, asked, asked_read, asked_shapes = set(), [], set(), {}
    for statements in adjoints.values():
        for statement in statements:
            if type(statement) is gast.Delete and _deletes_names(statement):
                continue  # del x_bar (_reset): reads nothing
            names = reads.get(statement)
            if names is None and _targets_are_names(statement):
                names = reads[statement] = syntax.load_names(statement.value)
            elif names is None:
                names = syntax.load_names(statement)
            if optimized is not None and (loop_stored is None
                                          or not loop_stored.isdisjoint(names)):
                asked.append(statement)
                asked_read |= names
                use = shapes.get(statement)
                if use is not None:
                    shape = shape_of(use)
                    if shape is not None:
                        asked_shapes[statement] = shape
            else:
                read |= names
    if asked:
        read |= optimized(asked, asked_read, asked_shapes)
    primal_of = context.namer.primal_of
    return {n for n in read if primal_of(n) is None}


def _deletes_names(delete) -> bool:
    targets = delete.targets
    if len(targets) == 1:
        return type(targets[0]) is gast.Name
    return all(type(target) is gast.Name for target in targets)


def _targets_are_names(statement) -> bool:
    """``x += e`` or ``x = e`` (its targets names): what it reads, its value reads."""
    kind = type(statement)
    if kind is gast.AugAssign:
        return type(statement.target) is gast.Name
    return kind is gast.Assign and all(type(t) is gast.Name for t in statement.targets)


def _named_like_what_specialization_brings(names, context) -> bool:
    """One of ``names`` is an alias (NumPy's...) or a builtin's name."""
    bindings, builtin_names = context.aliases.bindings, vars(builtins)
    return any(name in bindings or name in builtin_names for name in names)


def _stored_in_loops(statements) -> set:
    """Every name assigned inside a loop body (at any depth) of ``statements``."""
    stored = set()
    for statement in statements:
        if isinstance(statement, (gast.For, gast.While)):
            stored |= syntax.stored_names(gast.Module(body=statement.body, type_ignores=[]))
        elif isinstance(statement, gast.If):
            stored |= _stored_in_loops(statement.body) | _stored_in_loops(statement.orelse)
    return stored


class _Sweeps:
    """The primal sweep (with tape pushes) and the adjoint sweep of a function body.

    Outside loops nothing is ever overwritten (normalize gave every value its
    own name), so straight-line code and branches need no tape: the reverse
    sweep reads primal values where they are, and branches on the same test.
    Inside a loop, each block (the body, or a branch within it) records at its
    end what the reverse sweep will read of its values: the loop body records
    the carried variables' start values and the costly intermediates (cheap
    ones are recomputed in the reverse iteration), a branch records what it
    computed. The reverse block pops them back first. A ``while`` loop counts
    its iterations; its reverse is a ``for`` over that count.
    """

    def __init__(self, context: TransformContext, body: list, check_only: bool = False,
                 reads: dict | None = None):
        self.context = context
        self.check_only = check_only  # generate no adjoint, only raise what generating raises
        self.uses_tape = False
        self.tape = context.namer.fresh("tape", private=True)  # _tape, unless that is taken
        self.trip_counters = {}
        self.reads = reads if reads is not None else {}  # see _primal_names_read
        self.shapes = {}  # adjoint statement -> its shape's makings (templates.instantiate)
        self.active = {}  # id(assignment) -> whether it assigns an active variable
        self.derivative_names = _DerivativeNames(context.namer, context.activity)
        self.body = body
        self._parts_read = None  # see parts_read
        tested = set()  # what loops iterate over and branches test
        self.stored = set()  # every name the body assigns (or deletes)
        surveyed = context.template_uses.get(_Survey)
        if surveyed is not None and surveyed.body == body:
            # an earlier transform of this tree surveyed it (and raised what it found): only
            # the trip counters' names are this transform's
            self.stored, self.active, tested = surveyed.stored, surveyed.active, surveyed.tested
            for loop in surveyed.loops:
                self.trip_counters[id(loop)] = context.namer.fresh("trips")
        else:
            if self._survey(body, tested):
                self._raise_in_place(body)
            context.template_uses[_Survey] = _Survey(list(body), self.stored, self.active,
                                                     tested, self.loops)
        # every adjoint is generated once, here, in the order of the adjoint sweep (which
        # then places them): what they read decides what the primal sweep records
        self.adjoints = {}  # id(assignment) -> its adjoint statements
        self.generate_adjoints(body)
        if check_only:
            return
        self.needed = _primal_names_read(self.adjoints, context, _stored_in_loops(body),
                                         self.reads, self.shapes)
        self.needed |= set(self.trip_counters.values())
        self.needed |= tested
        self.plans = {}
        self.kept = {}  # loop -> (name, copy) pairs: see keep_overwritten
        self.prepare(body, in_loop=False)

    def _survey(self, body, tested) -> bool:
        """Fill ``stored``, ``active`` (every assignment), ``trip_counters`` (``while`` loops, in
        the order ``syntax.nodes`` meets them: statements first by depth, as their counters are
        named) and ``tested``; whether a call to an in-place operation is inside (then
        ``_raise_in_place`` says where). One walk without a generator: statements, then each
        one's expressions (blocks hold statements only)."""
        context = self.context
        stored, active, resolve = self.stored, self.active, context.resolve
        activity = context.activity
        Name, Store, Del, Call, AST = gast.Name, gast.Store, gast.Del, gast.Call, gast.AST
        Load, Constant = gast.Load, gast.Constant
        fields_of = _EXPRESSION_FIELDS
        in_place = False
        self.loops = []  # the while loops, in the order their trip counters are named
        holders = (gast.stmt, gast.excepthandler, gast.match_case)
        queue = collections.deque(body)
        while queue:
            statement = queue.popleft()
            kind = type(statement)
            if kind is not gast.Assign:  # (an assignment holds no statements)
                blocks = _BLOCKS_OF.get(kind)
                if blocks is None:
                    blocks = _blocks_of(kind)
                for field in blocks:
                    queue.extend(child for child in getattr(statement, field, None) or ()
                                 if isinstance(child, holders))
            if kind is gast.Assign:
                targets = statement.targets
                if len(targets) == 1 and type(targets[0]) is Name:
                    identifier = targets[0].id
                    stored.add(identifier)  # (a Store name: the walk below skips it)
                    active[id(statement)] = activity.is_active(identifier)
                    value = statement.value
                    value_kind = type(value)
                    if value_kind is gast.BinOp:
                        left, right = value.left, value.right
                        if (type(left) is Constant or type(left) is Name
                                and type(left.ctx) is Load) and (
                                type(right) is Constant or type(right) is Name
                                and type(right.ctx) is Load):
                            continue  # operands read: no call, nothing assigned
                    elif value_kind is Constant or value_kind is Name and type(
                            value.ctx) is Load:
                        continue
                    stack = [value]
                else:
                    active[id(statement)] = _is_active_assignment(statement, context)
                    stack = [targets, statement.value]
            else:
                if kind is gast.While:
                    self.trip_counters[id(statement)] = context.namer.fresh("trips")
                    self.loops.append(statement)
                elif kind is gast.For:
                    tested |= syntax.load_names(statement.iter)
                elif kind is gast.If:
                    tested |= syntax.load_names(statement.test)
                fields = fields_of.get(kind)
                if fields is None:
                    fields = fields_of[kind] = tuple(
                        f for f in syntax.child_fields(kind) if f not in _BLOCK_FIELDS)
                stack = [getattr(statement, f, None) for f in fields]
            pop, push, extend = stack.pop, stack.append, stack.extend
            while stack:
                node = pop()
                node_kind = type(node)
                if node_kind is Name:
                    context_kind = type(node.ctx)
                    if context_kind is Store or context_kind is Del:
                        stored.add(node.id)
                    continue
                if node_kind is list:
                    extend(node)
                    continue
                if node is None or node_kind is Constant:
                    continue
                if node_kind is Call and resolve(node.func) in _IN_PLACE:
                    in_place = True
                fields = fields_of.get(node_kind)
                if fields is None:
                    if not isinstance(node, AST):
                        continue
                    fields = fields_of[node_kind] = syntax.child_fields(node_kind)
                for field in fields:
                    value = getattr(node, field, None)
                    if value is not None:
                        push(value)
        return in_place

    def _raise_in_place(self, body):
        """The located error for the first call to an in-place operation (``syntax.nodes``'
        order)."""
        context = self.context
        for node in syntax.nodes(gast.Module(body=body, type_ignores=[])):
            if type(node) is gast.Call and context.resolve(node.func) in _IN_PLACE:
                raise UnsupportedSyntaxError(
                    "reverse mode through srcad's in-place operations (rt.add_at, and the list "
                    "operations of forward-mode code)",
                    context.parsed.location(position(node) or node),
                    "Differentiate it in forward mode, or generate the gradient code to "
                    "differentiate with optimize= without 'accumulate_in_place'.")
        raise AssertionError("an in-place call was found, then not found")

    def generate_adjoints(self, statements):
        """The adjoint statements of every active assignment, last first, as the sweep goes."""
        for statement in reversed(statements):
            if isinstance(statement, (gast.For, gast.While)):
                self.generate_adjoints(statement.body)
            elif isinstance(statement, gast.If):
                self.generate_adjoints(statement.body)
                self.generate_adjoints(statement.orelse)
            elif self.is_active(statement):
                self.adjoints[id(statement)] = _adjoint_of(statement, self.context,
                                                           self.check_only, self.reads,
                                                           self.shapes, self.derivative_names,
                                                           self.parts_read)

    def parts_read(self, name):
        """The indices ``k`` of the parts of tuple ``name`` the body reads (by ``t = name[k]``),
        if it reads it only that way; else None (made on first need: _parts_read)."""
        if self._parts_read is None:
            self._parts_read = _parts_read(self.body, self.context.activity.is_active)
        return self._parts_read.get(name)

    def is_active(self, statement) -> bool:
        """An assignment to an active variable (statements the sweeps add never are)."""
        active = self.active.get(id(statement))
        if active is None:
            active = _is_active_assignment(statement, self.context)
        return active

    def prepare(self, statements, in_loop):
        """Plan blocks innermost first: what an inner loop recomputes, outer ones must keep."""
        for statement in statements:
            if isinstance(statement, (gast.For, gast.While)):
                self.prepare(statement.body, True)
                plan = self.plan(id(statement), statement.body, recompute=True)
                for recomputed in plan.recomputed:
                    self.needed |= syntax.load_names(recomputed.value)
                # its reverse starts from the end values of what it carries: an enclosing
                # loop must restore those for each of its own iterations
                self.needed |= {carried for _, carried in plan.end_values}
            elif isinstance(statement, gast.If):
                for index, part in enumerate((statement.body, statement.orelse)):
                    self.prepare(part, in_loop)
                    if in_loop:
                        self.plan((id(statement), index), part, recompute=False)

    def plan(self, key, statements, recompute: bool) -> "_BlockPlan":
        """The plan of a block, computed once, before the primal sweep changes the block.

        A block with nothing to differentiate records nothing: its reverse is empty,
        and what later code reads of its results the enclosing block records.
        """
        # (assignments are statements: the walk need not look into expressions)
        if key not in self.plans and not any(
                self.active.get(id(node))
                for node in syntax.statements(gast.Module(body=list(statements),
                                                          type_ignores=[]))):
            self.plans[key] = _BlockPlan([], [], [])
        if key not in self.plans:
            self.plans[key] = _BlockPlan.make(statements, self.needed, self.context,
                                              recompute and self.context.recompute,
                                              self.trip_counters)
        return self.plans[key]

    def keep_overwritten(self, loop, plan) -> list:
        """Copies of what a loop outside loops overwrites and its reverse does not restore.

        Such a loop carries its variables in the names they had before it
        (normalize/rename_versions.py), so the loop overwrites values that statements
        before it read. Its reverse restores the start values it records; any other
        carried value the adjoint sweep reads (say the loop has nothing to
        differentiate) is copied here and put back after the loop's reverse.
        """
        carried = {s.targets[0].id for s in loop.body if is_carry(s)}
        out = []
        for name in sorted((carried & self.needed) - set(plan.taped)):
            kept = self.context.namer.fresh(name + "_before")
            self.kept.setdefault(id(loop), []).append((name, kept))
            out.append(syntax.assign(kept, syntax.name(name)))
        return out

    def push(self, plan):
        self.uses_tape = True
        return gast.Expr(value=syntax.call(syntax.attribute(self.tape, "append"),
                                           _pack(plan.taped)))

    def pop(self, plan):
        restore = gast.Assign(targets=[_pack(plan.taped, store=True)],
                              value=syntax.call(syntax.attribute(self.tape, "pop")),
                              type_comment=None)
        return mark_restore(restore)

    # ---- primal sweep
    def forward(self, statements, in_loop=False) -> list:
        """The primal sweep of ``statements``: copies of them (the normalized tree stays as it
        is: the kept front, pipeline._front), loops and branches with their tape pushes."""
        out = []
        for statement in statements:
            if isinstance(statement, (gast.For, gast.While)):
                plan = self.plan(id(statement), statement.body, recompute=True)
                if not in_loop:
                    out.extend(self.keep_overwritten(statement, plan))
                body = self.forward([s for s in statement.body if not is_carry(s)], True)
                if plan.taped:
                    body.append(self.push(plan))
                if isinstance(statement, gast.While):
                    counter = self.trip_counters[id(statement)]
                    out.append(syntax.assign(counter, syntax.constant(0)))
                    body.append(syntax.assign(counter, gast.BinOp(
                        left=syntax.name(counter), op=gast.Add(), right=syntax.constant(1))))
                body += [syntax.deepcopy(s) for s in statement.body if is_carry(s)]
                statement = _with_blocks(statement, body, syntax.deepcopy(statement.orelse))
            elif isinstance(statement, gast.If):
                parts = []
                for index, part in enumerate((statement.body, statement.orelse)):
                    code = self.forward(part, in_loop)
                    if in_loop:
                        plan = self.plan((id(statement), index), part, recompute=False)
                        if plan.taped:
                            code = [c for c in code if not isinstance(c, gast.Pass)]
                            code.append(self.push(plan))
                    parts.append(code)
                statement = _with_blocks(statement, parts[0] or [gast.Pass()], parts[1])
            else:
                statement = syntax.deepcopy(statement)
            out.append(statement)
        return out

    # ---- adjoint sweep
    def adjoint(self, statements, in_loop=False) -> list:
        out = []
        last_origin = None
        for statement in reversed(statements):
            if isinstance(statement, (gast.For, gast.While)):
                out.extend(self.adjoint_loop(statement))
                out.extend(syntax.assign(name, syntax.name(kept))
                           for name, kept in self.kept.get(id(statement), ()))
                last_origin = None
                continue
            if isinstance(statement, gast.If):
                out.extend(self.adjoint_branch(statement, in_loop))
                last_origin = None
                continue
            if not self.is_active(statement):
                continue
            statement_origin = origin(statement)
            origin_key = _position(statement_origin)
            if origin_key != last_origin:
                last_origin = origin_key
                out.append(comment("grad of: " + self.context.parsed.source_text(statement_origin)))
            out.extend(self.adjoints.pop(id(statement)))
        return out

    def adjoint_branch(self, branch, in_loop) -> list:
        parts = []
        pops = False
        for index, part in enumerate((branch.body, branch.orelse)):
            code = []
            plan = self.plan((id(branch), index), part, recompute=False) if in_loop else None
            if plan is not None and plan.taped:
                code.append(self.pop(plan))
                pops = True
            parts.append(code + self.adjoint(part, in_loop))
        if not pops and not any(_has_adjoint_code(p) for p in parts):
            return []  # (a branch that recorded values must pop them, to keep the tape in step)
        header = comment("grad of: " + self.context.parsed.source_text(origin(branch) or branch))
        return [header, gast.If(test=syntax.deepcopy(branch.test), body=parts[0] or [gast.Pass()],
                                orelse=parts[1])]

    def adjoint_loop(self, loop) -> list:
        plan = self.plan(id(loop), loop.body, recompute=True)
        body = []
        for version, carried in plan.end_values:
            body.append(syntax.assign(version, syntax.name(carried)))
        if plan.taped:
            body.append(self.pop(plan))
        body.extend(syntax.deepcopy(s) for s in plan.recomputed)
        adjoint_body = self.adjoint(loop.body, True)
        if not _has_adjoint_code(adjoint_body):
            return []
        body.extend(adjoint_body)
        if isinstance(loop, gast.For):
            target = syntax.deepcopy(loop.target)
            iterator = syntax.call(syntax.name("reversed"), syntax.deepcopy(loop.iter))
        else:
            target = syntax.name(self.context.namer.fresh("iteration"), store=True)
            iterator = syntax.call(syntax.name("range"),
                                   syntax.name(self.trip_counters[id(loop)]))
        header = comment("grad of: " + self.context.parsed.source_text(origin(loop) or loop))
        return [header, gast.For(target=target, iter=iterator, body=body, orelse=[],
                                 type_comment=None)]


def _with_blocks(compound, body: list, orelse: list):
    """A copy of the loop or branch ``compound`` with ``body`` and ``orelse`` (its other
    fields copied, its location and annotations shared, as syntax.deepcopy does)."""
    attributes = compound.__dict__.copy()
    for field in compound._fields:
        if field not in ("body", "orelse"):
            attributes[field] = syntax.deepcopy(attributes.get(field))
    attributes["body"], attributes["orelse"] = body, orelse
    return new_node(type(compound), attributes)


def _has_adjoint_code(statements) -> bool:
    return any(not isinstance(s, gast.Expr) and not is_restore(s) for s in statements)


@dataclass
class _BlockPlan:
    """What the reverse sweep reads of one block's values inside a loop, and from where."""

    taped: list  # pushed at the end of the block, popped at the start of its reverse
    end_values: list  # (version, carried): a loop iteration's last value of a carried variable
    recomputed: list  # cheap statements re-run at the start of the reverse iteration

    # Measured costs (nanoseconds, CPython 3.11): recomputing a scalar operation in the
    # reverse loop, recording one more value in the iteration's tuple, and recording a
    # tuple rather than a single value.
    RECOMPUTE_COST, RECORD_COST, TUPLE_COST = 30, 15, 60

    def cost(self) -> int:
        return (self.RECOMPUTE_COST * len(self.recomputed) + self.RECORD_COST * len(self.taped)
                + (self.TUPLE_COST if len(self.taped) > 1 else 0))

    @classmethod
    def make(cls, statements, needed: set, context, recompute: bool,
             trip_counters: dict) -> "_BlockPlan":
        """The cheaper of recomputing cheap intermediates and recording them all."""
        recorded = cls.plan(statements, needed, context, False, trip_counters)
        if not recompute:
            return recorded
        recomputing = cls.plan(statements, needed, context, True, trip_counters)
        return recomputing if recomputing.cost() <= recorded.cost() else recorded

    @classmethod
    def plan(cls, statements, needed: set, context, recompute: bool,
             trip_counters: dict) -> "_BlockPlan":
        body = [s for s in statements if not is_carry(s)]
        carries = [s for s in statements if is_carry(s)]
        last_version = {s.value.id: s.targets[0].id for s in carries}
        carried = set(last_version.values())
        defined_by, by_compound = {}, set()
        for statement in body:
            if isinstance(statement, gast.Assign):
                for n in syntax.names(statement):
                    if isinstance(n.ctx, gast.Store):
                        defined_by[n.id] = statement
            else:
                by_compound |= _defined_after(statement, trip_counters)
        wanted = sorted((defined_by.keys() | carried | by_compound) & needed)
        taped, end_values, recomputed = set(), set(), set()
        seen = set()
        while wanted:
            name = wanted.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in carried:
                taped.add(name)  # the value at the start of the iteration
            elif name in last_version:
                end_values.add((name, last_version[name]))
                # the end of iteration t is the start of iteration t + 1: only restoring
                # the start of every iteration keeps the variable right for the next one
                wanted.append(last_version[name])
            elif name in by_compound or not recompute or not _cheap(defined_by[name], context):
                taped.add(name)
            else:
                recomputed.add(id(defined_by[name]))
                wanted.extend(n for n in syntax.load_names(defined_by[name].value)
                              if n in defined_by or n in carried or n in by_compound)
        return cls(sorted(taped), sorted(end_values),
                   [s for s in body if id(s) in recomputed])


def _defined_after(statement, trip_counters) -> set:
    """Names a compound statement surely leaves defined (not its branch- or loop-local ones)."""
    if isinstance(statement, gast.If):
        return (_stored_at_level(statement.body, trip_counters)
                & _stored_at_level(statement.orelse, trip_counters))
    if isinstance(statement, (gast.For, gast.While)):
        names = {s.targets[0].id for s in statement.body if is_carry(s)}
        if id(statement) in trip_counters:
            names.add(trip_counters[id(statement)])
        return names
    return set()


def _stored_at_level(statements, trip_counters) -> set:
    names = set()
    for statement in statements:
        if isinstance(statement, gast.Assign):
            names |= syntax.stored_names(statement)
        else:
            names |= _defined_after(statement, trip_counters)
    return names


def _cheap(statement, context) -> bool:
    """Recompute rather than record: views, and arithmetic on scalars."""
    value = statement.value
    if isinstance(value, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript)):
        return True
    targets = [n.id for t in statement.targets for n in syntax.walk(t) if isinstance(n, gast.Name)]
    kinds = [context.kinds.get(t) for t in targets]
    return all(isinstance(k, shapes.Scalar) for k in kinds) and isinstance(
        value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Call))


def _pack(names, store=False):
    if len(names) == 1:
        return syntax.name(names[0], store)
    return gast.Tuple(elts=[syntax.name(n, store) for n in names],
                      ctx=gast.Store() if store else gast.Load())


def _position(node):
    return (getattr(node, "filename", None), getattr(node, "lineno", None),
            getattr(node, "col_offset", None))


def _adjoint_of(statement, context: TransformContext, check_only: bool = False,
                reads: dict | None = None, shapes: dict | None = None,
                derivative_names: dict | None = None, parts_read=None) -> list:
    """The adjoint statements of one active ``target = operation`` statement (with
    ``check_only``, none: only what making them would raise is raised). ``reads`` is
    filled with what the template's statements read, ``shapes`` with their shapes
    (templates.instantiate); ``derivative_names``: a _DerivativeNames of this sweep;
    ``parts_read(name)``: the parts of a tuple the function reads (_Sweeps.parts_read): the
    others' adjoints are zeros, and the template's statements made from them alone go."""
    namer = context.namer
    if derivative_names is None:
        derivative_names = _DerivativeNames(namer, context.activity)
    target = statement.targets[0]
    if not isinstance(target, gast.Name):
        raise UnsupportedSyntaxError(
            "srcad cannot differentiate through tuple unpacking yet",
            context.parsed.location(statement), "Assign each value to its own name.")
    name = target.id
    use = context.template_uses.get(statement)
    if use is not None and _still_registered(use):
        # bound by an earlier transform of this tree (its errors raised then): only the
        # derivative names are this transform's (asked in the order binding asks them)
        if check_only:
            return []
        template, bindings = use.template, use.bindings
        derivatives = {parameter: derivative_names[value.id] if type(value) is gast.Name
                       else None for parameter, value in bindings.items()}
        kept = True
    else:
        template, bindings, derivatives, use = _bound(statement, name, context, check_only,
                                                      derivative_names)
        if template is None:
            return bindings  # (the adjoint statements, made without a template)
        kept = False
    argument_names = use.argument_names
    result_param = result_parameter(template)
    if check_only:
        derivatives[result_param] = _CHECKED
        check_instantiable(template, bindings, derivatives, context.aliases)
        # (kept once instantiating it raises nothing: a later check of the tree takes it over)
        context.template_uses[statement] = use
        return []
    out = []
    if name in argument_names:
        # x = f(x): read x's adjoint before the template accumulates into it again
        adjoint = namer.fresh(name + "_bar_out")
        out.append(syntax.assign(adjoint, syntax.name(namer.adjoint(name))))
        out.append(_reset(namer.adjoint(name)))
    else:
        adjoint = derivative_names[name] or namer.adjoint(name)
    derivatives[result_param] = adjoint
    present = None
    parts, of_outputs = part_parameters(template)
    if parts_read is not None and result_param in parts:
        read = _parts_present(use.operation, bindings, parts_read(name), of_outputs)
        if read is not None:
            present = {result_param: read}
    out.extend(instantiate(template, bindings, derivatives, namer, context.aliases,
                           reads=reads, shapes=shapes, present=present))
    out.append(_reset(adjoint))
    if not kept:
        context.template_uses[statement] = use
    return out


def _bound(statement, name, context, check_only, derivative_names):
    """(template, bindings, derivatives, its _TemplateUse) of the adjoint template of the
    active ``name = operation`` statement; or (None, the adjoint statements, None, None) for
    the operations whose adjoints are made without one."""
    namer = context.namer
    operation = operation_of(statement.value, context.resolve)
    primitive = operation.primitive
    argument_names = _argument_names(operation)
    is_active = context.activity.is_active
    for argument_name in argument_names:
        if is_active(argument_name):
            break
    else:
        argument_name = None
    if argument_name is None or not carries_gradient(operation):
        # e.g. y = np.zeros(n) before a loop fills y: nothing flows back through it
        return None, [] if check_only else [_reset(namer.adjoint(name))], None, None

    def locate():  # (asked for by an error only)
        return context.parsed.location(position(statement) or statement)

    of_elements = primitive in _OF_ELEMENTS or (
        primitive is TUPLE and not isinstance(operation.node, gast.Dict))
    if check_only and (primitive is IDENTITY or of_elements):
        return None, [], None, None  # (their adjoints are made here, from nothing that can fail)
    if primitive is IDENTITY:
        source = operation.args[0] if operation.args else None
        out = []
        if isinstance(source, gast.Name) and context.activity.is_active(source.id) \
                and source.id != name:
            out.append(gast.AugAssign(target=syntax.name(namer.adjoint(source.id), True),
                                      op=gast.Add(), value=syntax.name(namer.adjoint(name))))
        out.append(_reset(namer.adjoint(name)))
        return None, out, None, None
    if of_elements:
        # an array, list or tuple of values: element k's adjoint is the k-th of the whole's
        # (a list's adjoint is an array stacking its elements' adjoints)
        out = []
        for index, item in enumerate(operation.args):
            if isinstance(item, gast.Name) and context.activity.is_active(item.id):
                part = gast.Subscript(value=syntax.name(namer.adjoint(name)),
                                      slice=syntax.constant(index), ctx=gast.Load())
                out.append(gast.AugAssign(target=syntax.name(namer.adjoint(item.id), True),
                                          op=gast.Add(), value=part))
        out.append(_reset(namer.adjoint(name)))
        return None, out, None, None
    if primitive is TUPLE:
        # a dict {key: value}: each value's adjoint is the whole's (an Entries) at its key
        if not all(isinstance(k, gast.Constant) for k in operation.node.keys):
            raise UnsupportedSyntaxError(
                "srcad cannot differentiate through a dict whose keys are not constants",
                locate(), "Write the keys as constants: {'w': w, 'b': b}.")
        out = []
        for key, item in zip(operation.node.keys, operation.args):
            if isinstance(item, gast.Name) and context.activity.is_active(item.id):
                part = gast.Subscript(value=syntax.name(namer.adjoint(name)),
                                      slice=syntax.deepcopy(key), ctx=gast.Load())
                out.append(gast.AugAssign(target=syntax.name(namer.adjoint(item.id), True),
                                          op=gast.Add(), value=part))
        out.append(_reset(namer.adjoint(name)))
        return None, out, None, None
    reason = not_inlined(operation.node) if operation.node is not None else None
    if isinstance(reason, Recursive) and template_of(primitive, "adjoint") is None:
        return None, _adjoint_of_recursive_call(name, operation, context), None, None
    template = template_for(operation, "adjoint", locate, reason)

    if check_only:
        def adjoint_name(value):
            # (a check only asks whether there is one: any name says so)
            if type(value) is gast.Name or isinstance(value, gast.Name):
                return _CHECKED if is_active(value.id) else None
            return None
    else:
        def adjoint_name(value):
            if type(value) is gast.Name or isinstance(value, gast.Name):
                return derivative_names[value.id]
            return None

    bindings, derivatives = bind_template(template, operation, name, locate, adjoint_name,
                                          context.resolve)
    return template, bindings, derivatives, _TemplateUse.of(operation, argument_names, template,
                                                            bindings)


def _still_registered(use) -> bool:
    """The template ``use`` bound is still its primitive's adjoint, and the primitive still
    differentiable (a template registered since, or a ``nondifferentiable``, counts)."""
    entry = registry.lookup(use.operation.primitive)
    return entry is not None and entry.adjoint is use.template and entry.differentiable


def _parts_present(operation, bindings, read, of_outputs):
    """The parts of a call's result whose adjoints can be nonzero, or None (all): those the
    function reads (``read``: positions in the tuple the call returns, _parts_read; None: all
    it returns). For a template reading ``rt.output_part(d[y], k, layout)`` (``of_outputs``),
    parts of the full result: the call returns those of its layout (registry's
    ``returned_parts``, output_layout's convention, from its constant arguments); without
    that rule, None."""
    if not of_outputs:
        return read
    rule = registry.fact(operation.primitive, "returned_parts")
    if rule is None:
        return None
    layout = rule(**{name: value.value for name, value in bindings.items()
                     if type(value) is gast.Constant})
    if layout is None:  # the whole tuple: positions are parts
        return read
    if type(layout) is int:  # that part alone, not in a tuple (a subscript indexes into it)
        return frozenset((layout,))
    if read is None:
        return frozenset(layout)
    return frozenset(layout[position] for position in read if position < len(layout))


def _parts_read(body, is_active) -> dict:
    """name -> the indices ``k`` of every ``t = name[k]`` (an int ``k`` >= 0) in ``body`` with
    ``t`` active (``u, s, vh = svd(a)`` makes all three; only those a derivative flows back
    through count), for the names it reads only that way: the parts of a tuple output whose
    adjoints can be nonzero."""
    parts, by_part = {}, set()  # (by_part: ids of the Names those subscripts read)
    for statement in (inner for top in body for inner in syntax.statements(top)):
        value = getattr(statement, "value", None)
        if type(statement) is gast.Assign and type(value) is gast.Subscript and type(
                value.value) is gast.Name and type(value.slice) is gast.Constant and type(
                value.slice.value) is int and value.slice.value >= 0:
            by_part.add(id(value.value))
            found = parts.setdefault(value.value.id, set())
            target = statement.targets[0]
            if len(statement.targets) != 1 or type(target) is not gast.Name or is_active(
                    target.id):
                found.add(value.slice.value)
    whole = {name.id for statement in body for name in syntax.names(statement)
             if type(name.ctx) is gast.Load and id(name) not in by_part}
    return {name: frozenset(found) for name, found in parts.items() if name not in whole}


@dataclass
class _Survey:
    """What _Sweeps._survey found in a body (kept in ``context.template_uses``; read only)."""

    body: list
    stored: set
    active: dict
    tested: set
    loops: list


class _TemplateUse(tuple):
    """How an operation binds its adjoint template: what a later transform of the same tree
    takes over (the errors binding raises were raised then). A tuple (made by
    ``_TemplateUse.of``, without a Python ``__init__``: one per active statement)."""

    __slots__ = ()
    operation = property(operator.itemgetter(0))
    argument_names = property(operator.itemgetter(1))
    template = property(operator.itemgetter(2))
    bindings = property(operator.itemgetter(3))

    @classmethod
    def of(cls, operation, argument_names, template, bindings) -> "_TemplateUse":
        return tuple.__new__(cls, (operation, argument_names, template, bindings))


def _argument_names(operation) -> set:
    """``operation.argument_names()``, without a walk for the usual operands: names and
    constants."""
    if operation.keywords:
        return operation.argument_names()
    found = set()
    for argument in operation.args:
        kind = type(argument)
        if kind is gast.Name:
            found.add(argument.id)
        elif kind is not gast.Constant:
            return operation.argument_names()
    return found


class _DerivativeNames(dict):
    """identifier -> the name of its adjoint if it is active, else None: ``namer.adjoint``
    asked once per identifier, when first needed (so names are made in the same order)."""

    def __init__(self, namer, activity):
        super().__init__()
        self.namer, self.activity = namer, activity

    def __missing__(self, identifier):
        derivative = (self.namer.adjoint(identifier) if self.activity.is_active(identifier)
                      else None)
        self[identifier] = derivative
        return derivative


_CHECKED = "checked_bar"  # a check's stand-in for an adjoint's name
_OF_ELEMENTS = (runtime.array_of, runtime.owned_tuple)  # an array, a tuple of its arguments


def _adjoint_of_recursive_call(name, operation, context) -> list:
    """``y = f(a, b)`` with f recursive: ``f_grads = vjp_of(f)(a, b, y_bar)``, then accumulate."""
    namer = context.namer
    function = operation.primitive
    signature = inspect.signature(function, follow_wrapped=False)
    bound = signature.bind(*operation.args, **operation.keywords)
    bound.apply_defaults()
    args = [syntax.deepcopy(value) if isinstance(value, gast.AST)
            else value_node(value, context.aliases) for value in bound.arguments.values()]
    grads = namer.fresh("%s_grads" % function.__name__)
    vjp = syntax.call(syntax.name(context.aliases.name_for(vjp_of)),
                      syntax.name(context.aliases.name_for(function)))
    out = [syntax.assign(grads, gast.Call(func=vjp, args=args + [
        syntax.name(namer.adjoint(name))], keywords=[]))]
    for index, value in enumerate(args):
        if isinstance(value, gast.Name) and context.activity.is_active(value.id):
            part = gast.Subscript(value=syntax.name(grads), slice=syntax.constant(index),
                                  ctx=gast.Load())
            out.append(gast.AugAssign(target=syntax.name(namer.adjoint(value.id), True),
                                      op=gast.Add(), value=part))
    out.append(_reset(namer.adjoint(name)))
    return out


def _reset(adjoint_name: str) -> gast.Delete:
    """``del x_bar``: from here on (going backwards) x's adjoint is zero again."""
    target = new_node(gast.Name, {"id": adjoint_name, "ctx": new_node(gast.Del, {}),
                                  "annotation": None, "type_comment": None})
    return new_node(gast.Delete, {"targets": [target]})
