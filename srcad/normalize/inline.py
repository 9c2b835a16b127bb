"""Inline calls to the user's own Python functions, nested functions and lambdas.

Used by to_anf while it normalizes a call. After inlining, a call such as
``k1x, k1y = rhs(x, y)`` has become the callee's own statements, in the
caller, with

* the callee's parameters assigned from the call's arguments (keywords and
  defaults resolved by the callee's signature),
* the callee's local names renamed to fresh names of the caller,
* the callee's free names (its globals, closure variables, imports) bound to
  the objects they mean in the callee's module, through srcad's aliases,
* the callee's single ``return`` (after lower_exits) assigned to a result.

A nested ``def`` or ``lambda`` is inlined the same way at each call, its free
names left as they are: after inlining they read the enclosing function's
variables at the point of the call, which is what a closure reads.

Inlining lets the generated code be specialized and optimized across calls,
with no call overhead (the measured choice for scalar helpers, e.g. an RK4
right-hand side), and keeps the generated source one readable function whose
comments say where each inlined line comes from. Recursive functions cannot
be inlined; they are reported as unsupported.
"""

from __future__ import annotations

import inspect

import gast

from .. import registry, syntax
from ..errors import SrcadError, UnsupportedSyntaxError
from ..parse import ParsedFunction, parse_function

MAX_DEPTH = 32


class CannotInline(Exception):
    """A callee srcad cannot inline (it uses unsupported syntax); carries the located error."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def is_inlinable(obj) -> bool:
    """A plain Python function of the user's that has no gradient template of its own."""
    if not inspect.isfunction(obj):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module.split(".")[0] in ("numpy", "srcad", "math"):
        return False
    return registry.lookup(obj) is None


class _Rename(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def prepare_callee(function, namer, aliases):
    """Parse, check and rename a module-level callee; returns (parsed, tree) or raises."""
    from ..fence import fence

    callee = parse_function(function)
    fence(callee)
    tree = syntax.deepcopy(callee.tree)
    mapping = {}
    for node in syntax.names(tree):
        if node.id in mapping:
            continue
        if node.id in callee.local_names:
            mapping[node.id] = namer.fresh(node.id)
        else:
            obj = callee.resolve_name(node.id, _UNDEFINED)
            if obj is not _UNDEFINED:
                mapping[node.id] = aliases.name_for(obj, preferred=node.id)
    _rename_tree(tree, mapping)
    return callee, tree


def prepare_local(definition, namer):
    """Rename a nested def's or lambda's own locals; its free names stay the enclosing ones."""
    tree = syntax.deepcopy(definition)
    if isinstance(tree, gast.Lambda):
        body = [gast.copy_location(gast.Return(value=tree.body), tree.body)]
        tree = gast.copy_location(syntax.function_def("lambda", tree.args, body), tree)
    own = {a.id for a in tree.args.args} | syntax.stored_names(gast.Module(body=tree.body,
                                                                           type_ignores=[]))
    _rename_tree(tree, {name: namer.fresh(name) for name in sorted(own)})
    return tree


def _rename_tree(tree, mapping):
    renamer = _Rename(mapping)
    for arg in tree.args.args:
        arg.id = mapping.get(arg.id, arg.id)
    for statement in tree.body:
        renamer.visit(statement)


def bind_arguments(tree, function, args, keywords, aliases, location_error):
    """(parameter name, value node) pairs for a call, defaults filled in."""
    params = [a.id for a in tree.args.args]
    if function is not None:
        signature = inspect.signature(function)
        original = list(signature.parameters)
    else:
        signature = None
        original = params
    by_original = dict(zip(original, params))
    try:
        if signature is not None:
            bound = signature.bind(*args, **keywords)
        else:
            bound = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                       for p in original]).bind(*args, **keywords)
    except TypeError as exc:
        raise location_error("this call does not match the function's parameters (%s)" % exc)
    pairs = []
    defaults = dict(zip(original[len(original) - len(tree.args.defaults):], tree.args.defaults))
    for name in original:
        if name in bound.arguments:
            pairs.append((by_original[name], bound.arguments[name]))
            continue
        if signature is not None:
            default = signature.parameters[name].default
            pairs.append((by_original[name], _value_node(default, aliases)))
        elif name in defaults:
            pairs.append((by_original[name], syntax.deepcopy(defaults[name])))
    return pairs


def _value_node(value, aliases):
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return syntax.constant(value)
    return syntax.name(aliases.name_for(value, preferred="default"))


class _Undefined:
    pass


_UNDEFINED = _Undefined()


def recursion_error(parsed: ParsedFunction, node, function) -> SrcadError:
    return UnsupportedSyntaxError(
        "a recursive call to %s: srcad inlines the functions it differentiates through, and "
        "cannot inline a function into itself" % function.__qualname__,
        parsed.location(node), "Write the recursion as a loop.")
