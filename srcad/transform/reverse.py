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

import inspect
import operator
from dataclasses import dataclass, field

import gast

from .. import registry, syntax
from ..annotations import comment, origin
from ..analysis.activity import Activity
from ..analysis.operations import IDENTITY, TUPLE, UNRESOLVED, operation_of
from ..errors import MissingTemplateError, TemplateError, UnsupportedSyntaxError
from ..naming import Namer
from ..namespace import Aliases
from ..parse import ParsedFunction
from .. import runtime
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

    statements = list(body)
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
    last_origin = None
    for statement in reversed(body):
        if not isinstance(statement, gast.Assign):
            continue
        targets = [n.id for t in statement.targets for n in gast.walk(t) if isinstance(n, gast.Name)]
        if not any(context.activity.is_active(t) for t in targets):
            continue
        statement_origin = origin(statement)
        origin_key = _position(statement_origin)
        if origin_key != last_origin:
            last_origin = origin_key
            statements.append(comment("grad of: " + _source_text(context.parsed, statement_origin)))
        statements.extend(_adjoint_of(statement, context))

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
