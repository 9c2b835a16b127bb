"""Inline calls to the user's own Python functions, nested functions and lambdas.

Used by to_anf (to_anf.py) while it normalizes a call, where Python makes the
call: ``inline_call`` normalizes the arguments, then the callee's statements,
in the caller. After inlining, a call such as
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

import functools
import inspect

import gast

from .. import derived, recursion, registry, syntax
from ..errors import MissingTemplateError, SrcadError, UnsupportedSyntaxError
from ..fence import fence
from ..parse import ParsedFunction, is_library_code, read, wrapper_error
from . import calls_by_value
from .lower_exits import lower_exits

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


def is_static_reference(node, local_names) -> bool:
    """``np.pi``, ``math.sqrt``: an attribute chain rooted in a free (non-local) name."""
    while type(node) is _ATTRIBUTE:  # (asked of most nodes to_anf meets: no recursion)
        node = node.value
    return type(node) is _NAME and node.id not in local_names


_ATTRIBUTE, _NAME = gast.Attribute, gast.Name


def capture_local_function(normalizer, name, definition):
    """Remember a nested def, or a lambda assigned to ``name``: inlined where it is called
    (``normalizer`` is to_anf's, at the definition).

    Calls through the name are resolved here, once, so the name must mean this function
    wherever it is read: a name bound more than once (a def in each branch, a lambda and
    then a value) is refused at the definition."""
    if normalizer.store_counts.get(name, 0) > 1:
        raise UnsupportedSyntaxError(
            "a nested function or lambda whose name `%s` is bound more than once (in "
            "branches, a loop, or again later)" % name,
            normalizer.parsed.location(normalizer.source.origin(definition)),
            "Give each function its own name, and choose between their results: "
            "`y = f(x) if c else g(x)`.")
    definition = _with_defaults_evaluated(normalizer, definition)
    normalizer.local_functions[name] = (definition, normalizer.source)


def partial_as_lambda(normalizer, call):
    """``functools.partial(f, a, k=v)`` made inside the function, as the lambda it behaves
    like (``lambda b, *, k=v: f(a, b, k=k)``), its arguments evaluated here; None when
    ``call`` is no such partial (f not a user function srcad inlines)."""
    if not call.args or any(
            isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    func = call.args[0]
    if not is_static_reference(func, normalizer.locals):
        return None
    target = normalizer.resolve(func)
    if not is_inlinable(target):  # (a library function's defaults are not ours to pass)
        return None
    try:
        signature = inspect.signature(functools.partial(
            target, *[None] * (len(call.args) - 1), **{k.arg: None for k in call.keywords}))
        defaults = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return None
    bound = [_evaluated_once(normalizer, a, "bound") for a in call.args[1:]]
    keywords = {k.arg: k.value for k in call.keywords}
    arguments = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[])
    passed, passed_keywords = [], []
    for name, parameter in signature.parameters.items():
        node = gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)
        if name in keywords:
            default = keywords[name]
        elif parameter.default is not inspect.Parameter.empty:
            default = _static_value(normalizer, defaults[name].default)
        else:
            default = None
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            arguments.vararg = node
            passed.append(gast.Starred(value=syntax.name(name), ctx=gast.Load()))
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            arguments.kwarg = node
            passed_keywords.append(gast.keyword(arg=None, value=syntax.name(name)))
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            arguments.kwonlyargs.append(node)
            arguments.kw_defaults.append(default)
            passed_keywords.append(gast.keyword(arg=name, value=syntax.name(name)))
        else:
            (arguments.posonlyargs if parameter.kind is inspect.Parameter.POSITIONAL_ONLY
             else arguments.args).append(node)
            if default is not None:
                arguments.defaults.append(default)
            passed.append(syntax.name(name))
    body = gast.Call(func=syntax.deepcopy(func), args=bound + passed, keywords=passed_keywords)
    return syntax.copy_location(gast.Lambda(args=arguments, body=syntax.copy_location(
        body, call)), call)


def _evaluated_once(normalizer, expression, hint):
    """``expression`` computed here, into a name no later statement rebinds (a constant or
    a static reference stays as it is)."""
    value = normalizer.atom(expression, hint=hint)
    if isinstance(value, gast.Name) and value.id in normalizer.locals:
        copy = normalizer.fresh(hint)
        normalizer.assign(copy, value, expression)
        value = syntax.name(copy)
    return value


def _static_value(normalizer, value):
    """A default value of a function, as an expression: a constant, else srcad's alias."""
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return syntax.constant(value)
    return syntax.name(normalizer.aliases.name_for(value, preferred="default"))


def _with_defaults_evaluated(normalizer, definition):
    """A nested def's (or lambda's) defaults are evaluated where it is defined: each one
    that is not a constant or a static reference is computed here, into a name of its
    own that calls made later read (whatever the variables it read hold by then)."""
    definition = syntax.deepcopy(definition)
    definition.args.defaults = [_evaluated_once(normalizer, default, "default")
                                for default in definition.args.defaults]
    definition.args.kw_defaults = [
        None if default is None else _evaluated_once(normalizer, default, "default")
        for default in definition.args.kw_defaults]
    return definition


def inline_call(normalizer, call):
    """Inline a call to a user function, nested def or lambda; None if it is not one.

    ``normalizer`` is to_anf's, at the point of the call: it normalizes the
    arguments there, then the callee's statements (its locals renamed to fresh
    names of the caller), and returns the name holding the call's value.
    Raises CannotInline for a call that must stay a call (a recursive one).
    """
    func = call.func
    if isinstance(func, gast.Name) and func.id in normalizer.local_functions:
        definition, source = normalizer.local_functions[func.id]
        tree, mapping, signature = prepare_local(definition, normalizer.namer)
        function, key, leading = None, definition, []
    else:
        if not is_static_reference(func, normalizer.locals):
            return None
        function, leading = made_callee(
            normalizer.resolve(func),
            lambda: normalizer.parsed.location(normalizer.source.origin(call)))
        if not is_inlinable(function):
            return None
        key = function
        if key in normalizer.inlining or len(normalizer.inlining) >= MAX_DEPTH:
            raise CannotInline(Recursive(function))
        try:
            source, tree, mapping = prepare_callee(function, normalizer.namer, normalizer.aliases,
                                                   normalizer.fenced)
        except UnsupportedSyntaxError as error:
            raise CannotInline(error) from None
        signature = normalizer.signatures.get(function)
        if signature is None:
            signature = normalizer.signatures[function] = inspect.signature(
                function, follow_wrapped=False)
        if function not in normalizer.inlined:
            normalizer.inlined.append(function)
    if key in normalizer.inlining:
        raise recursion_error(normalizer.source, call, function)
    def error(message, hint="Call it with the arguments it declares."):
        location = normalizer.parsed.location(normalizer.source.origin(call))
        return UnsupportedSyntaxError(message, location, hint)

    args = [value_node(value, normalizer.aliases) for value in leading]
    args += spread_arguments(normalizer, call, signature, len(args), error)
    if any(k.arg is None for k in call.keywords):
        raise error("srcad cannot tell which keywords `**%s` passes to this function"
                    % syntax_text(call.keywords), "Pass a dict written in the call "
                    "(`f(**{\"a\": 1.0})`), or the keywords one by one.")
    keywords = {k.arg: normalizer.atom(k.value) for k in call.keywords}

    pairs = bind_arguments(signature, mapping, args, keywords, normalizer.aliases, error)
    body = lower_exits(tree, normalizer.namer, normalizer.resolve, normalizer.aliases).body
    saved = (normalizer.source, normalizer.current)
    assigned = calls_by_value.note_assignments(normalizer, body)
    new_locals = {renamed for _, renamed in mapping.items()} | assigned
    new_locals -= set(normalizer.aliases.bindings)
    normalizer.locals |= new_locals
    normalizer.inlining.append(key)
    calls_by_value.check_nested_function_passed(normalizer, call, body, pairs)
    try:
        for param, value in pairs:
            value = normalizer.operation(value)
            if not calls_by_value.bind_parameter_value(normalizer, param, value, assigned):
                normalizer.assign(param, value, call)
        normalizer.source = source
        for statement in body[:-1]:
            normalizer.current = statement
            normalizer.statement(statement)
        returned = body[-1]
        normalizer.current = returned
        result = normalizer.fresh(getattr(function, "__name__", "result") or "result")
        normalizer.locals.add(result)
        if isinstance(returned, gast.Return):
            value = returned.value if returned.value is not None else syntax.constant(None)
            normalizer.assign(result, normalizer.operation(value), returned)
        else:  # no return statement: the call's value is None
            normalizer.statement(returned)
            normalizer.assign(result, syntax.constant(None), returned)
    finally:
        normalizer.inlining.pop()
        normalizer.source, normalizer.current = saved
    return syntax.name(result)


def spread_arguments(normalizer, call, signature, given, error) -> list:
    """The call's positional arguments as atoms, a starred one ``f(x, *rest)`` unpacked into
    as many names as the parameters it must fill (``given`` arguments come before the
    call's): known when it is the last positional argument and those parameters have no
    default (then Python would fail on any other length too)."""
    starred = [i for i, a in enumerate(call.args) if isinstance(a, gast.Starred)]
    if not starred:
        return [normalizer.atom(a) for a in call.args]
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = {k.arg for k in call.keywords}
    before = given + len(call.args) - 1
    filled = [p for p in positional[before:] if p.name not in named]
    if (starred != [len(call.args) - 1] or any(
            p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
            or any(p.default is not p.empty for p in filled)):
        raise error("srcad cannot tell how many arguments `*%s` passes to this function"
                    % syntax_text([call.args[starred[0]]]),
                    "Pass a starred argument last, to a function whose parameters it fills "
                    "have no defaults; or pass the arguments one by one.")
    args = [normalizer.atom(a) for a in call.args[:-1]]
    sequence = normalizer.atom(call.args[-1].value, hint="arguments")
    names = [normalizer.fresh(p.name) for p in filled]
    target = gast.Tuple(elts=[gast.Name(id=n, ctx=gast.Store(), annotation=None,
                                        type_comment=None) for n in names], ctx=gast.Store())
    normalizer.emit(gast.Assign(targets=[target], value=sequence, type_comment=None), call)
    return args + [syntax.name(n) for n in names]


def syntax_text(items) -> str:
    node = items[0]
    value = getattr(node, "value", node)
    return value.id if isinstance(value, gast.Name) else "..."


def is_inlinable(obj) -> bool:
    """A plain Python function of the user's that has no gradient template of its own.

    Only the user's own code is inlined: never library code (the standard library,
    site-packages: parse.is_library_code), which needs a template like a C function.
    """
    if not inspect.isfunction(obj):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module.split(".")[0] in ("numpy", "srcad", "math"):
        return False
    return registry.lookup(obj) is None and not is_library_code(obj)


def made_callee(function, locate):
    """What a call to ``function`` inlines: ``(function, leading arguments)``.

    A function srcad made (a gradient called inside the differentiated
    function) stands for its generic generated code, srcad/derived.py; a
    bound derivative also passes its ``self`` first. Any other function is
    itself. A function srcad made but cannot differentiate is CannotInline
    (located at ``locate()``, the call's Location: found only for an error).
    """
    made = derived.lookup(function)
    if made is None:
        if _decorated_in_c(function):
            error = wrapper_error(function)
            raise CannotInline(type(error)(error.message, locate(), error.hint))
        return function, []
    leading = []
    if made.bound:
        leading = [made.first]
        made = derived.lookup(made.function)
    if made.code_for is None:
        raise CannotInline(made.error(locate(), MissingTemplateError))
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


def prepare_callee(function, namer, aliases, fenced=None):
    """Parse, check and rename a module-level callee: (parsed, tree, renaming).

    ``fenced``, if given, holds the callees already checked in this normalization, each
    with what its renaming reads (a helper called many times is read and checked once).
    """
    known = fenced.get(function) if fenced is not None else None
    if known is None:
        callee = read(function)
        fence(callee, inlined=True)
        # the names read and stored, and those nested defs bind (a def never called too),
        # each once, in the order they are first met
        identifiers = list(dict.fromkeys([node.id for node in syntax.names(callee.tree)] + [
            node.name for node in syntax.statements(callee.tree)
            if isinstance(node, gast.FunctionDef) and node is not callee.tree]))
        known = (callee, identifiers)
        if fenced is not None:
            fenced[function] = known
    callee, identifiers = known
    mapping = {}
    for identifier in identifiers:
        if identifier in callee.local_names:
            mapping[identifier] = namer.fresh(identifier)
        else:
            obj = callee.resolve_name(identifier, _UNDEFINED)
            if obj is not _UNDEFINED:
                mapping[identifier] = aliases.name_for(obj, preferred=identifier)
    return callee, _renamed_function(callee.tree, mapping), mapping


def prepare_local(definition, namer):
    """Rename a nested def's or lambda's own locals (its free names stay the enclosing ones).

    Returns the renamed function tree, the renaming, and the signature it declares.
    """
    tree = syntax.deepcopy(definition)
    if isinstance(tree, gast.Lambda):
        body = [gast.copy_location(gast.Return(value=tree.body), tree.body)]
        tree = gast.copy_location(syntax.function_def("lambda", tree.args, body), tree)
    signature = _declared_signature(tree.args)
    own = set(signature.parameters) | syntax.stored_names(
        gast.Module(body=tree.body, type_ignores=[]))
    mapping = {name: namer.fresh(name) for name in sorted(own)}
    _rename_tree(tree, mapping)
    return tree, mapping, signature


def _declared_signature(arguments) -> inspect.Signature:
    """The signature a nested def's or lambda's parameters declare: a default is a
    constant's value, or the node of the name to_anf evaluated it into."""
    def default_of(node):
        if node is None:
            return inspect.Parameter.empty
        return node.value if isinstance(node, gast.Constant) else node

    kind = inspect.Parameter
    positional = ([(a, kind.POSITIONAL_ONLY) for a in arguments.posonlyargs]
                  + [(a, kind.POSITIONAL_OR_KEYWORD) for a in arguments.args])
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    parameters = [kind(a.id, k, default=default_of(d)) for (a, k), d in zip(positional, defaults)]
    if arguments.vararg is not None:
        parameters.append(kind(arguments.vararg.id, kind.VAR_POSITIONAL))
    parameters += [kind(a.id, kind.KEYWORD_ONLY, default=default_of(d))
                   for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)]
    if arguments.kwarg is not None:
        parameters.append(kind(arguments.kwarg.id, kind.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _renamed_function(tree, mapping):
    """A copy of the function ``tree`` renamed as _rename_tree renames it, in one walk."""
    copy = type(tree).__new__(type(tree))
    copy.__dict__ = tree.__dict__.copy()
    for field in tree._fields:
        if field != "body":
            setattr(copy, field, syntax.deepcopy(getattr(tree, field, None)))
    for arg in syntax.parameters(copy.args):
        arg.id = mapping.get(arg.id, arg.id)
    copy.body = [_renamed_copy(statement, mapping) for statement in tree.body]
    return copy


def _renamed_copy(node, mapping):
    """``syntax.deepcopy(node)`` with the names in it renamed as _rename_scoped renames
    them (a nested function's own names left as they are), in one walk."""
    kind = type(node)
    if kind is list:
        return [_renamed_copy(item, mapping) for item in node]
    if kind is gast.Name:
        copy = syntax.deepcopy(node)
        copy.id = mapping.get(node.id, node.id)
        return copy
    if kind is gast.FunctionDef or kind is gast.Lambda:
        return _rename_scoped(syntax.deepcopy(node), mapping)
    if not isinstance(node, gast.AST):
        return node
    attributes = node.__dict__.copy()  # location, annotations: shared, as deepcopy does
    for field in kind._fields:
        value = attributes.get(field)
        if value is None:
            attributes[field] = None  # (a field never set is None in the copy)
        elif type(value) is list or isinstance(value, gast.AST):
            attributes[field] = _renamed_copy(value, mapping)
    copy = kind.__new__(kind)
    copy.__dict__ = attributes
    return copy


def _rename_tree(tree, mapping):
    arguments = tree.args
    for arg in syntax.parameters(arguments):
        arg.id = mapping.get(arg.id, arg.id)
    for statement in tree.body:
        _rename_scoped(statement, mapping)


def _rename_scoped(node, mapping):
    """Rename in place, but not a nested function's own names (its parameters and locals
    belong to its scope: a keyword call ``g(c=0.9)`` must still find ``c``)."""
    if isinstance(node, (gast.FunctionDef, gast.Lambda)):
        if isinstance(node, gast.FunctionDef):  # its name is the enclosing scope's
            node.name = mapping.get(node.name, node.name)
        body = node.body if isinstance(node.body, list) else [node.body]
        own = {a.id for a in syntax.parameters(node.args)} | syntax.stored_names(
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
    # (a walk without recursion: the names inside, down to any nested function)
    AST = gast.AST
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is list:
            stack.extend(item for item in current if isinstance(item, AST))
        elif kind is gast.Name:
            current.id = mapping.get(current.id, current.id)
        elif kind is gast.FunctionDef or kind is gast.Lambda:
            _rename_scoped(current, mapping)
        else:
            for field in kind._fields:
                value = getattr(current, field, None)
                if isinstance(value, (AST, list)):
                    stack.append(value)
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
    name = getattr(value, "__name__", None)  # a function's own name reads best
    return syntax.name(aliases.name_for(value, preferred=name if isinstance(
        name, str) and name.isidentifier() else "default"))


class _Undefined:
    pass


_UNDEFINED = _Undefined()


def recursion_error(parsed: ParsedFunction, node, function) -> SrcadError:
    return UnsupportedSyntaxError(
        "a recursive call to a nested function: srcad inlines nested functions and cannot "
        "inline one into itself", parsed.location(parsed.origin(node)),
        "Make the recursive function a module-level function.")
