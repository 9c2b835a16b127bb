"""Forward mode: each primal statement followed by its tangent, from templates.

Input: the normalized function and its activity. Output: a function taking
the original parameters followed by the tangents of the ``wrt`` ones
(``x_dot``), returning ``(output, output_tangent)``::

    def jvp_f(x, W, x_dot):
        dot = np.dot(x, W)
        dot_dot = np.dot(x_dot, W) + np.dot(x, rt.zeros_like(W))
        h = np.tanh(dot)
        h_dot = dot_dot * (1.0 - h * h)
        ...
        return result, rt.match_tangent(result_dot, result)

Tangents are computed in the same order as the values they belong to, so
loops and branches need no tape: the tangent statements simply sit inside
the same loop or branch. A tangent template that reads the tangent of an
argument without one (a constant, an inactive variable) reads an explicit
zero (``rt.zeros_like(W)``), which specialization and constant folding
remove where the shapes allow.
"""

from __future__ import annotations

import inspect

import gast

from .. import runtime, syntax
from ..analysis.activity import carries_gradient
from ..analysis.in_place import updates_in_place
from ..analysis.operations import IDENTITY, TUPLE, operation_of
from ..annotations import comment, is_placeholder, not_inlined, origin, position
from ..errors import UnsupportedSyntaxError
from ..normalize.inline import Recursive, value_node
from ..recursion import jvp_of
from ..request import Request
from .context import TransformContext
from .templates import bind_template, instantiate, result_parameter, template_for


def forward(tree: gast.FunctionDef, context: TransformContext, request: Request,
            name: str) -> gast.FunctionDef:
    body = [syntax.deepcopy(s) for s in tree.body]
    returned = body.pop()
    rt = context.aliases.name_for(runtime)
    tangents = _Tangents(context, rt, updates_in_place(body, context.parsed.params,
                                                           context.resolve))
    namer = context.namer
    # a parameter without a tangent that later takes a varied value starts from zero
    statements = [syntax.assign(namer.tangent(p), tangents.zeros(syntax.name(p)))
                  for p in context.parsed.params
                  if p not in request.wrt and context.activity.is_active(p)]
    statements += tangents.block(body)
    output = returned.value
    if isinstance(output, (gast.Tuple, gast.List)):  # several outputs: a tuple of tangents
        tangent = gast.Tuple(elts=[tangents.tangent_of(e) for e in output.elts], ctx=gast.Load())
    else:
        tangent = tangents.tangent_of(output)
    output_tangent = syntax.call(syntax.attribute(rt, "match_tangent"), tangent,
                                 syntax.deepcopy(output))
    if request.tangent_only:
        statements.append(gast.Return(value=output_tangent))
    else:
        statements.append(gast.Return(value=gast.Tuple(elts=[syntax.deepcopy(output),
                                                             output_tangent], ctx=gast.Load())))
    params = context.parsed.params + [namer.tangent(p) for p in request.wrt]
    return syntax.function_def(name, syntax.arguments(params), statements)


_IN_PLACE_HELPERS = (runtime.add_at, runtime.append_in_place, runtime.pop_in_place)


class _Tangents:
    def __init__(self, context: TransformContext, rt: str, in_place: set):
        self.context = context
        self.rt = rt
        self.in_place = in_place  # ids of the update calls run in place (analysis/in_place.py)

    def varied(self, name: str) -> bool:
        """``name`` needs a tangent: a varied value the outputs depend on (a value only
        printed, logged or compared has none)."""
        return self.context.activity.is_active(name)

    def zeros(self, value):
        return syntax.call(syntax.attribute(self.rt, "zeros_like"), syntax.deepcopy(value))

    def tangent_of(self, value):
        """The tangent of an atom: its tangent variable, or an explicit zero."""
        if isinstance(value, gast.Name) and self.varied(value.id):
            return syntax.name(self.context.namer.tangent(value.id))
        return self.zeros(value)

    def block(self, statements) -> list:
        out = []
        last_origin = None
        for statement in statements:
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                statement.body = self.block(statement.body) or [gast.Pass()]
                statement.orelse = self.block(statement.orelse)
                out.append(statement)
                last_origin = None
                continue
            key = origin(statement)
            if key != last_origin and key is not None:  # a user line: its values and tangents
                last_origin = key
                out.append(comment(self.context.parsed.source_text(key)))
            out.append(statement)
            if not isinstance(statement, gast.Assign):
                continue
            targets = [n.id for t in statement.targets for n in syntax.walk(t)
                       if isinstance(n, gast.Name)]
            if not any(self.varied(t) for t in targets):
                continue
            # srcad's in-place helpers called as such (forward code differentiated again)
            # change their first argument too
            operation = operation_of(statement.value, self.context.resolve)
            runs_in_place = id(statement.value) in self.in_place or \
                operation.primitive in _IN_PLACE_HELPERS
            tangent = self.tangent(statement)
            if runs_in_place and self.carries_tangent(operation):
                # the tangent reads the list before it changes (a zero tangent reads the result)
                out[-1:-1] = tangent
            else:
                out.extend(tangent)
        return out

    def carries_tangent(self, operation) -> bool:
        """False when the result's tangent is zero: nothing varied flows into it."""
        return carries_gradient(operation) and any(
            self.varied(n) for n in operation.argument_names())

    def recursive_call(self, operation, result) -> list:
        """``y = f(a, b)`` with f recursive: ``y_dot = jvp_of(f)(a, b, a_dot, b_dot)[1]``."""
        function = operation.primitive
        signature = inspect.signature(function, follow_wrapped=False)
        bound = signature.bind(*operation.args, **operation.keywords)
        bound.apply_defaults()
        args = [value if isinstance(value, gast.AST) else value_node(value, self.context.aliases)
                for value in bound.arguments.values()]
        aliases = self.context.aliases
        jvp = syntax.call(syntax.name(aliases.name_for(jvp_of)),
                          syntax.name(aliases.name_for(function)))
        pair = gast.Call(func=jvp, args=[syntax.deepcopy(a) for a in args]
                         + [self.tangent_of(a) for a in args], keywords=[])
        return [syntax.assign(result, gast.Subscript(value=pair, slice=syntax.constant(1),
                                                     ctx=gast.Load()))]

    _IN_PLACE = {runtime.appended: "append_in_place", runtime.all_but_last: "pop_in_place",
                 runtime.added_at: "add_at"}

    def list_in_place(self, statement, operation, result) -> list:
        """Appends, pops and indexed accumulations the source made in place stay in place.

        (Reverse mode keeps every version of a list or array; forward mode does
        not need the old one where the source updated in place, so
        ``items.append(v)`` can stay what it was: no copy. analysis/in_place.py
        decides where that is safe.)
        """
        helper = self._IN_PLACE[operation.primitive]
        args = [syntax.deepcopy(a) for a in operation.args]
        statement.value = syntax.call(syntax.attribute(self.rt, helper), *args)
        tangent_args = [self.tangent_of(operation.args[0])]
        if operation.primitive is runtime.added_at:
            tangent_args += [syntax.deepcopy(operation.args[1]),
                             self.tangent_of(operation.args[2])]
        elif operation.primitive is runtime.appended:
            tangent_args.append(self.tangent_of(operation.args[1]))
        return [syntax.assign(result, syntax.call(syntax.attribute(self.rt, helper),
                                                  *tangent_args))]

    def tangent(self, statement) -> list:
        context = self.context
        namer = context.namer

        def locate():
            return context.parsed.location(position(statement) or statement)

        target = statement.targets[0]
        if not isinstance(target, gast.Name):
            raise UnsupportedSyntaxError("srcad cannot differentiate through tuple unpacking "
                                         "that it cannot split", locate(),
                                         "Assign each value to its own name.")
        name = target.id
        result = namer.tangent(name)
        if is_placeholder(statement):  # never read: neither is its tangent
            return [syntax.assign(result, syntax.constant(None))]
        operation = operation_of(statement.value, context.resolve)
        if not self.carries_tangent(operation):
            return [syntax.assign(result, self.zeros(syntax.name(name)))]
        primitive = operation.primitive
        if primitive is IDENTITY:
            return [syntax.assign(result, self.tangent_of(operation.args[0]))]
        if primitive in (runtime.array_of, runtime.owned_tuple) or (
                primitive is TUPLE and not isinstance(operation.node, gast.Dict)):
            parts = [self.tangent_of(a) for a in operation.args]
            if primitive is runtime.array_of:
                value = syntax.call(syntax.attribute(self.rt, "array_of"), *parts)
            elif primitive is runtime.owned_tuple:
                value = gast.Tuple(elts=parts, ctx=gast.Load())
            else:
                value = type(operation.node)(elts=parts, ctx=gast.Load())
            return [syntax.assign(result, value)]
        if primitive is TUPLE:  # a dict: its values' tangents under the same keys
            if not all(isinstance(k, gast.Constant) for k in operation.node.keys):
                raise UnsupportedSyntaxError(
                    "srcad cannot differentiate through a dict whose keys are not constants",
                    locate(), "Write the keys as constants: {'w': w, 'b': b}.")
            return [syntax.assign(result, gast.Dict(
                keys=[syntax.deepcopy(k) for k in operation.node.keys],
                values=[self.tangent_of(a) for a in operation.args]))]
        if id(statement.value) in self.in_place:
            return self.list_in_place(statement, operation, result)
        reason = not_inlined(operation.node) if operation.node is not None else None
        if isinstance(reason, Recursive):
            return self.recursive_call(operation, result)
        template = template_for(operation, "tangent", locate, reason)

        def tangent_name(value):
            if isinstance(value, gast.Name) and self.varied(value.id):
                return namer.tangent(value.id)
            return None

        bindings, derivatives = bind_template(template, operation, name, locate, tangent_name,
                                              context.resolve)
        result_param = result_parameter(template)
        derivatives[result_param] = result

        def missing(parameter):
            return self.zeros(bindings[parameter])

        return instantiate(template, bindings, derivatives, namer, context.aliases, missing)
