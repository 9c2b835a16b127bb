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
be inlined: a call that recurses stays a call, and its adjoint calls the
function's generated vector-Jacobian product (srcad/recursion.py).
"""

from __future__ import annotations

import inspect

import gast

from .. import derived, recursion, registry, syntax
from ..errors import MissingTemplateError, SrcadError, UnsupportedSyntaxError
from ..fence import fence
from ..parse import ParsedFunction, read, wrapper_error

MAX_DEPTH = 32


class CannotInline(Exception):
    """A callee srcad cannot inline; carries why (a located error, or a Recursive)."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


class Recursive:
    """Why a call was not inlined: it recurses. Its adjoint calls recursion.vjp_of."""

    def __init__(self, function):
        self.function = function



def is_inlinable(obj) -> bool:
    """A plain Python function of the user's that has no gradient template of its own."""
    if not inspect.isfunction(obj):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module.split(".")[0] in ("numpy", "srcad", "math"):
        return False
    return registry.lookup(obj) is None


def made_callee(function, location):
    """What a call to ``function`` inlines: ``(function, leading arguments)``.

    A function srcad made (a gradient called inside the differentiated
    function) stands for its generic generated code, srcad/derived.py; a
    bound derivative also passes its ``self`` first. Any other function is
    itself. A function srcad made but cannot differentiate is CannotInline.
    """
    made = derived.lookup(function)
    if made is None:
        if _decorated_in_c(function):
            error = wrapper_error(function)
            raise CannotInline(type(error)(error.message, location, error.hint))
        return function, []
    leading = []
    if made.bound:
        leading = [made.first]
        made = derived.lookup(made.function)
    if made.code_for is None:
        raise CannotInline(made.error(location, MissingTemplateError))
    return made.code_for(None), leading


def _decorated_in_c(obj) -> bool:
    """A user's function wrapped by a decorator that is not Python (functools.lru_cache)."""
    if inspect.isfunction(obj) or not inspect.isfunction(getattr(obj, "__wrapped__", None)):
        return False
    module = getattr(obj.__wrapped__, "__module__", "") or ""
    return module.split(".")[0] not in ("numpy", "srcad", "math") and registry.lookup(obj) is None


def generated_callee(callee, resolve):
    """The function ``recursion.vjp_of(f)`` or ``jvp_of(f)`` returns, for a static ``f``; else None.

    Gradient code calls a recursive function's derivative as ``vjp_of(f)(a, b, y_bar)``.
    Differentiating that code again (hvp, grad of grad) needs the callee: the
    generated function, whose source srcad reads like any other.
    """
    if not (isinstance(callee, gast.Call) and len(callee.args) == 1 and not callee.keywords):
        return None
    maker = resolve(callee.func)
    if maker is not recursion.vjp_of and maker is not recursion.jvp_of:
        return None
    function = resolve(callee.args[0])
    return maker(function) if inspect.isfunction(function) else None


def prepare_callee(function, namer, aliases):
    """Parse, check and rename a module-level callee: (parsed, tree, renaming)."""
    callee = read(function)
    fence(callee, inlined=True)
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
    return callee, tree, mapping


def prepare_local(definition, namer):
    """Rename a nested def's or lambda's own locals (its free names stay the enclosing ones).

    Returns the renamed function tree, the renaming, and the signature it declares.
    """
    tree = syntax.deepcopy(definition)
    if isinstance(tree, gast.Lambda):
        body = [gast.copy_location(gast.Return(value=tree.body), tree.body)]
        tree = gast.copy_location(syntax.function_def("lambda", tree.args, body), tree)
    params = [a.id for a in tree.args.args]
    # a constant's value; any other default is the name anf.py evaluated it into
    defaults = [d.value if isinstance(d, gast.Constant) else d for d in tree.args.defaults]
    signature = inspect.Signature([
        inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=defaults[i - (len(params) - len(defaults))]
                          if i >= len(params) - len(defaults) else inspect.Parameter.empty)
        for i, p in enumerate(params)])
    own = set(params) | syntax.stored_names(gast.Module(body=tree.body, type_ignores=[]))
    mapping = {name: namer.fresh(name) for name in sorted(own)}
    _rename_tree(tree, mapping)
    return tree, mapping, signature


def _rename_tree(tree, mapping):
    arguments = tree.args
    for arg in _parameters(arguments):
        arg.id = mapping.get(arg.id, arg.id)
    for statement in tree.body:
        _rename_scoped(statement, mapping)


def _parameters(arguments) -> list:
    return arguments.args + arguments.posonlyargs + arguments.kwonlyargs + [
        a for a in (arguments.vararg, arguments.kwarg) if a is not None]


def _rename_scoped(node, mapping):
    """Rename in place, but not a nested function's own names (its parameters and locals
    belong to its scope: a keyword call ``g(c=0.9)`` must still find ``c``)."""
    if isinstance(node, (gast.FunctionDef, gast.Lambda)):
        body = node.body if isinstance(node.body, list) else [node.body]
        own = {a.id for a in _parameters(node.args)} | syntax.stored_names(
            gast.Module(body=body if isinstance(node, gast.FunctionDef) else [], type_ignores=[]))
        inner = {k: v for k, v in mapping.items() if k not in own}
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            _rename_scoped(default, mapping)  # defaults are evaluated in the enclosing scope
        for statement in body:
            _rename_scoped(statement, inner)
        return node
    if isinstance(node, gast.Name):
        node.id = mapping.get(node.id, node.id)
        return node
    for child in gast.iter_child_nodes(node):
        _rename_scoped(child, mapping)
    return node


def bind_arguments(signature, mapping, args, keywords, aliases, location_error):
    """(renamed parameter, value node) pairs for a call: keywords, defaults, *args, **kwargs."""
    try:
        bound = signature.bind(*args, **keywords)
    except TypeError as exc:
        raise location_error("this call does not match the function's parameters (%s)" % exc)
    pairs = []
    for name, parameter in signature.parameters.items():
        renamed = mapping.get(name, name)
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            items = bound.arguments.get(name, ())
            pairs.append((renamed, gast.Tuple(elts=list(items), ctx=gast.Load())))
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            items = bound.arguments.get(name, {})
            pairs.append((renamed, gast.Dict(keys=[syntax.constant(k) for k in items],
                                             values=list(items.values()))))
        elif name in bound.arguments:
            pairs.append((renamed, bound.arguments[name]))
        else:
            pairs.append((renamed, value_node(parameter.default, aliases)))
    return pairs


def value_node(value, aliases):
    if isinstance(value, gast.AST):  # a nested def's default, evaluated where it was defined
        return syntax.deepcopy(value)
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return syntax.constant(value)
    return syntax.name(aliases.name_for(value, preferred="default"))


class _Undefined:
    pass


_UNDEFINED = _Undefined()


def recursion_error(parsed: ParsedFunction, node, function) -> SrcadError:
    return UnsupportedSyntaxError(
        "a recursive call to a nested function: srcad inlines nested functions and cannot "
        "inline one into itself", parsed.location(parsed.origin(node)),
        "Make the recursive function a module-level function.")
