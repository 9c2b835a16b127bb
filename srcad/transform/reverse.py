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

import copy
import inspect
import operator
from dataclasses import dataclass, field

import gast

from .. import registry, syntax
from ..analysis import shapes
from ..annotations import comment, is_carry, mark_restore, origin
from ..analysis.activity import Activity
from ..analysis.operations import IDENTITY, TUPLE, UNRESOLVED, operation_of
from ..errors import MissingTemplateError, TemplateError, UnsupportedSyntaxError
from ..naming import Namer
from ..namespace import Aliases
from ..parse import ParsedFunction
from .. import runtime
from ..optimize.specialize_runtime_calls import specialize_runtime_calls
from .templates import instantiate


@dataclass
class ReverseRequest:
    wrt: list  # parameter names, in the order the gradients are returned
    single: bool = True  # return one gradient, not a tuple of them
    seed: object = 1.0  # a constant, or the name of a cotangent parameter (vjp)
    check_scalar_output: bool = True
    return_value: bool = False  # value_and_grad
    has_aux: bool = False
    extra_params: list = field(default_factory=list)  # e.g. the cotangent parameter


@dataclass
class ReverseContext:
    parsed: ParsedFunction
    namer: Namer
    aliases: Aliases
    activity: Activity
    resolve: object
    kinds: dict = field(default_factory=dict)  # abstract values, when specializing


def reverse(tree: gast.FunctionDef, context: ReverseContext, request: ReverseRequest,
            name: str) -> gast.FunctionDef:
    body = [syntax.deepcopy(s) for s in tree.body]
    returned = body.pop()
    assert isinstance(returned, gast.Return)
    if request.has_aux:
        output, aux = returned.value.elts
    else:
        output, aux = returned.value, None
    rt = context.aliases.name_for(runtime)
    sweeps = _Sweeps(context, _primal_names_read_by_adjoints(body, context))

    statements = sweeps.forward(body)
    if sweeps.uses_tape:
        statements.insert(0, syntax.assign(TAPE, gast.List(elts=[], ctx=gast.Load())))
    if request.check_scalar_output:
        where = context.parsed.location(origin(returned) or returned)
        statements.append(gast.Expr(value=syntax.call(
            syntax.attribute(rt, "check_scalar_output"), syntax.deepcopy(output),
            syntax.constant("%s:%d:%d" % (where.filename, where.lineno, where.col)))))

    if isinstance(output, gast.Name) and context.activity.is_active(output.id):
        seed = (syntax.name(request.seed) if isinstance(request.seed, str)
                else syntax.constant(request.seed))
        statements.append(gast.AugAssign(target=syntax.name(context.namer.adjoint(output.id), True),
                                         op=gast.Add(), value=seed))
    statements.extend(sweeps.adjoint(body))

    results = []
    for param in request.wrt:
        results.append(syntax.call(syntax.attribute(rt, "match_type"),
                                   syntax.name(context.namer.adjoint(param)), syntax.name(param)))
    gradients = results[0] if request.single else gast.Tuple(elts=results, ctx=gast.Load())
    if request.has_aux:
        gradients = gast.Tuple(elts=[gradients, syntax.deepcopy(aux)], ctx=gast.Load())
    if request.return_value:
        value = syntax.deepcopy(returned.value)
        gradients = gast.Tuple(elts=[value, gradients], ctx=gast.Load())
    statements.append(gast.Return(value=gradients))
    args = syntax.arguments(context.parsed.params + list(request.extra_params))
    return syntax.function_def(name, args, statements)


TAPE = "_tape"


def _is_active_assignment(statement, context) -> bool:
    return isinstance(statement, gast.Assign) and any(
        context.activity.is_active(n.id) for t in statement.targets for n in gast.walk(t)
        if isinstance(n, gast.Name))


def _primal_names_read_by_adjoints(body, context) -> set:
    """Primal variables some adjoint template reads (what the reverse sweep needs)."""
    scratch = copy.copy(context)
    scratch.namer = copy.deepcopy(context.namer)
    produced = []
    for node in body:
        for statement in gast.walk(node):
            if _is_active_assignment(statement, context):
                produced.extend(_adjoint_of(statement, scratch))
    if context.kinds:
        # reads that specialization removes (the shape argument of rt.unbroadcast...)
        # are not needed: do not record them
        env = dict(context.kinds)
        for name in list(env):
            env[scratch.namer.adjoint(name)] = env[name]
        aliases = context.aliases

        def resolve(node):
            if isinstance(node, gast.Name) and node.id in aliases.bindings:
                return aliases.bindings[node.id]
            if isinstance(node, gast.Attribute):
                base = resolve(node.value)
                return UNRESOLVED if base is UNRESOLVED else getattr(base, node.attr, UNRESOLVED)
            return context.resolve(node)

        module = gast.Module(body=produced, type_ignores=[])
        specialize_runtime_calls(module, env, resolve, aliases)
        produced = module.body
    return {n for statement in produced for n in syntax.load_names(statement)
            if scratch.namer.primal_of(n) is None}


class _Sweeps:
    """The primal sweep (with tape pushes) and the adjoint sweep of a statement list.

    Straight-line code needs no tape: every variable is assigned once (after
    normalization) and stays readable. A loop iteration's start values (the
    carried variables) and its costly intermediates are pushed on the tape
    at the end of each iteration; the reverse loop pops them, recomputes the
    cheap intermediates, and runs the body's adjoint.
    """

    def __init__(self, context: ReverseContext, needed: set):
        self.context = context
        self.needed = needed
        self.uses_tape = False
        self.plans = {}

    # ---- primal sweep
    def forward(self, statements) -> list:
        out = []
        for statement in statements:
            if isinstance(statement, gast.For):
                plan = self.plan(statement)
                body = [s for s in statement.body if not is_carry(s)]
                carries = [s for s in statement.body if is_carry(s)]
                if plan.taped:
                    self.uses_tape = True
                    body.append(gast.Expr(value=syntax.call(
                        syntax.attribute(TAPE, "append"), _pack(plan.taped))))
                statement.body = body + carries
            out.append(statement)
        return out

    # ---- adjoint sweep
    def adjoint(self, statements) -> list:
        out = []
        last_origin = None
        for statement in reversed(statements):
            if isinstance(statement, gast.For):
                out.extend(self.adjoint_loop(statement))
                last_origin = None
                continue
            if not _is_active_assignment(statement, self.context):
                continue
            statement_origin = origin(statement)
            origin_key = _position(statement_origin)
            if origin_key != last_origin:
                last_origin = origin_key
                out.append(comment("grad of: " + _source_text(self.context.parsed,
                                                              statement_origin)))
            out.extend(_adjoint_of(statement, self.context))
        return out

    def plan(self, loop) -> "_LoopPlan":
        if id(loop) not in self.plans:
            self.plans[id(loop)] = _LoopPlan.make(loop, self.needed, self.context)
        return self.plans[id(loop)]

    def adjoint_loop(self, loop) -> list:
        plan = self.plan(loop)
        body = []
        for version, carried in plan.end_values:
            body.append(syntax.assign(version, syntax.name(carried)))
        if plan.taped:
            restore = gast.Assign(targets=[_pack(plan.taped, store=True)],
                                  value=syntax.call(syntax.attribute(TAPE, "pop")),
                                  type_comment=None)
            body.append(mark_restore(restore))
        body.extend(syntax.deepcopy(s) for s in plan.recomputed)
        body.extend(self.adjoint(loop.body))
        if not body:
            return []
        reversed_range = syntax.call(syntax.name("reversed"), syntax.deepcopy(loop.iter))
        header = comment("grad of: " + _source_text(self.context.parsed, origin(loop) or loop))
        return [header, gast.For(target=syntax.deepcopy(loop.target), iter=reversed_range,
                                 body=body, orelse=[], type_comment=None)]


@dataclass
class _LoopPlan:
    """What the reverse sweep of one loop reads, and where each value comes from."""

    taped: list  # pushed at the end of each iteration, popped at the start of its reverse
    end_values: list  # (version, carried): the iteration's last value of a carried variable
    recomputed: list  # cheap body statements re-run in the reverse iteration

    @classmethod
    def make(cls, loop, needed: set, context) -> "_LoopPlan":
        body = [s for s in loop.body if not is_carry(s)]
        carries = [s for s in loop.body if is_carry(s)]
        last_version = {s.value.id: s.targets[0].id for s in carries}
        carried = set(last_version.values())
        defined_by = {}
        for statement in body:
            for n in gast.walk(statement):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    defined_by[n.id] = statement
        wanted = [n for n in sorted(needed) if n in defined_by or n in carried]
        taped, end_values, recomputed = [], [], set()
        seen = set()
        while wanted:
            name = wanted.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in carried:
                taped.append(name)  # the value at the start of the iteration
            elif name in last_version:
                end_values.append((name, last_version[name]))
            elif _cheap(defined_by[name], context):
                recomputed.add(id(defined_by[name]))
                wanted.extend(n for n in syntax.load_names(defined_by[name].value)
                              if n in defined_by or n in carried)
            else:
                taped.append(name)
        return cls(sorted(taped), sorted(end_values),
                   [s for s in body if id(s) in recomputed])


def _cheap(statement, context) -> bool:
    """Recompute rather than record: views, and arithmetic on scalars."""
    value = statement.value
    if isinstance(value, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript)):
        return True
    targets = [n.id for t in statement.targets for n in gast.walk(t) if isinstance(n, gast.Name)]
    kinds = [context.kinds.get(t) for t in targets]
    return all(isinstance(k, shapes.Scalar) for k in kinds) and isinstance(
        value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Call))


def _pack(names, store=False):
    if len(names) == 1:
        return syntax.name(names[0], store)
    return gast.Tuple(elts=[syntax.name(n, store) for n in names],
                      ctx=gast.Store() if store else gast.Load())


def _position(node):
    return (getattr(node, "lineno", None), getattr(node, "col_offset", None))


def _source_text(parsed, node) -> str:
    location = parsed.location(node) if node is not None else None
    if location is None or not location.line:
        return "?"
    text = location.line.strip()
    end = getattr(node, "end_lineno", None)
    if end is not None and end != node.lineno:
        text += " ..."
    return text


def _adjoint_of(statement, context: ReverseContext) -> list:
    """The adjoint statements of one active ``target = operation`` statement."""
    namer = context.namer
    target = statement.targets[0]
    if not isinstance(target, gast.Name):
        raise UnsupportedSyntaxError(
            "srcad cannot differentiate through tuple unpacking yet",
            context.parsed.location(statement), "Assign each value to its own name.")
    name = target.id
    operation = operation_of(statement.value, context.resolve)
    primitive = operation.primitive
    location = context.parsed.location(operation.node if operation.node is not None else statement)
    if primitive is IDENTITY:
        source = operation.args[0] if operation.args else None
        out = []
        if isinstance(source, gast.Name) and context.activity.is_active(source.id) \
                and source.id != name:
            out.append(gast.AugAssign(target=syntax.name(namer.adjoint(source.id), True),
                                      op=gast.Add(), value=syntax.name(namer.adjoint(name))))
        out.append(_reset(namer.adjoint(name)))
        return out
    if primitive is TUPLE:
        raise UnsupportedSyntaxError("srcad cannot differentiate through tuples and lists yet",
                                     location, "Keep differentiated values in plain variables.")
    if primitive is UNRESOLVED:
        raise MissingTemplateError(
            "cannot differentiate the call to %s: srcad could not tell which function it "
            "calls" % operation.description, location,
            "Call functions through a module or a global name (e.g. np.tanh).")
    entry = registry.lookup(primitive)
    template = entry.adjoint if entry is not None else None
    if template is None:
        what = registry.describe(primitive) if primitive is not None else operation.description
        if inspect.isfunction(primitive):
            hint = ("Calls to Python functions are not differentiated yet; register an adjoint "
                    "template for it with @srcad.adjoint(%s)." % what)
        else:
            hint = ("Register one with @srcad.adjoint(%s): a function (result, *args) whose body "
                    "accumulates d[arg] += ...; or mark it @srcad.nondifferentiable." % what)
        raise MissingTemplateError("no gradient template for %s" % what, location, hint)

    args = list(operation.args)
    if primitive is operator.getitem:
        args[1] = _index_expression(args[1])
    try:
        bound = template.signature.bind(syntax.name(name), *args, **operation.keywords)
    except TypeError as exc:
        raise TemplateError(
            "the gradient template of %s does not accept this call (%s)"
            % (registry.describe(primitive), exc), location,
            "Template %s is defined at %s." % (template.name, template.where)) from None
    bindings = {}
    derivatives = {}
    parameters = template.signature.parameters
    for param_name, param in parameters.items():
        if param_name in bound.arguments:
            value = bound.arguments[param_name]
        elif param.default is not inspect.Parameter.empty:
            value = syntax.constant(param.default)
        else:
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            value = gast.Tuple(elts=list(value), ctx=gast.Load())
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            raise TemplateError("templates cannot take **kwargs (%s)" % template.where)
        bindings[param_name] = value
        if isinstance(value, gast.Name) and context.activity.is_active(value.id):
            derivatives[param_name] = namer.adjoint(value.id)
        else:
            derivatives[param_name] = None
    result_param = next(iter(parameters))
    out = []
    if name in operation.argument_names():
        # x = f(x): read x's adjoint before the template accumulates into it again
        incoming = namer.fresh(name + "_bar_out")
        out.append(syntax.assign(incoming, syntax.name(namer.adjoint(name))))
        out.append(_reset(namer.adjoint(name)))
        derivatives[result_param] = incoming
        out.extend(instantiate(template, bindings, derivatives, namer, context.aliases))
        out.append(_reset(incoming))
        return out
    derivatives[result_param] = namer.adjoint(name)
    out.extend(instantiate(template, bindings, derivatives, namer, context.aliases))
    out.append(_reset(namer.adjoint(name)))
    return out


def _reset(adjoint_name: str) -> gast.Delete:
    """``del x_bar``: from here on (going backwards) x's adjoint is zero again."""
    return gast.Delete(targets=[gast.Name(id=adjoint_name, ctx=gast.Del(), annotation=None,
                                          type_comment=None)])


def _index_expression(index):
    """An index as an ordinary expression: ``1:n`` becomes ``slice(1, n)``."""
    if isinstance(index, gast.Slice):
        parts = [syntax.constant(None) if p is None else syntax.deepcopy(p)
                 for p in (index.lower, index.upper, index.step)]
        while len(parts) > 1 and isinstance(parts[-1], gast.Constant) and parts[-1].value is None:
            parts.pop()
        return syntax.call(syntax.name("slice"), *parts)
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_expression(e) for e in index.elts], ctx=gast.Load())
    return syntax.deepcopy(index)
