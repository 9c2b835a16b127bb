"""Pasting a template's body into generated code.

Given a template and a binding of its parameters to the atoms of one
statement, ``instantiate`` returns the template's statements with

* each parameter replaced by the expression it is bound to,
* ``d[p]`` replaced by the derivative variable of whatever ``p`` is bound to
  (statements that write ``d[p]`` are dropped when ``p`` has no derivative,
  e.g. a constant or an inactive variable),
* template temporaries renamed to fresh names,
* every other free name (``np``, ``math``, ``rt``...) replaced by the alias
  generated code uses for the object it means in the template's module.

Accumulations stay in the intermediate form ``x_bar += e`` (and ``-=``);
transform/lower_accumulations.py turns them into plain assignments.
"""

from __future__ import annotations

import builtins
import inspect
import operator

import gast

from .. import registry, syntax
from ..analysis.operations import UNRESOLVED
from ..errors import (
    MissingTemplateError,
    SrcadError,
    TemplateError,
    UnsupportedOperationError,
    UnsupportedSyntaxError,
    ValueDependentCallError,
)
from ..parse import is_library_code
from ..registry import Template, is_derivative_ref

_UNBOUND = object()


class _Compiled:
    """A template's body compiled once into builders: a use of the template calls them
    instead of copying the body and visiting the copy (the copy is made with the
    substitutions in place, node by node, in the same order).

    ``temporaries``: the names the body assigns, in order; ``statements``: one
    ``(written, build)`` pair per statement, ``written`` the parameter whose derivative
    the statement writes (or None), ``build(bindings, derivatives, temporaries,
    aliases, missing)`` the statement for one use; ``free``: per statement, the names
    it reads that are neither parameters nor temporaries (they name objects of the
    template's module); ``reads``: per statement, what its value reads, as (template
    names, parameters whose derivative it reads), or None for a statement whose targets
    are not names (then its targets may read names too) or whose value binds names;
    ``callees``: per statement, the names its calls' callees start with (``rt`` of
    ``rt.unbroadcast(...)``); ``sources``: per statement, what of the derivatives it reads
    (``_Sources``), for dropping the statements that read only structurally absent parts
    (``absent_dropped``); ``parts``: the parameters some statement reads parts of.
    """

    def __init__(self, template: Template):
        self.temporaries = []
        for statement in template.body:
            if (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                    and statement.targets[0].id not in self.temporaries):
                self.temporaries.append(statement.targets[0].id)
        self.statements, self.free, self.reads, self.callees = [], [], [], []
        parameters = template.signature.parameters
        for statement in template.body:
            target = (statement.target if isinstance(statement, gast.AugAssign)
                      else statement.targets[0])
            written = target.slice.id if is_derivative_ref(target) else None
            self.statements.append((written, _compile_statement(statement, template,
                                                                 self.temporaries)))
            self.free.append({n.id for n in syntax.names(statement)} - set(parameters)
                             - set(self.temporaries))
            self.reads.append(_reads_of(statement))
            self.callees.append(_callee_roots(statement))
        self.sources = [_Sources.of(statement, self.temporaries, template.namespace)
                        for statement in template.body]
        self.parts = frozenset(parameter for sources in self.sources
                               for parameter, _ in sources.parts)
        # parts read as rt.output_part(d[p], k, layout): k counts the parts of the call's
        # full result, not those it returns (registry's returned_parts maps them)
        self.parts_of_outputs = any(sources.of_outputs for sources in self.sources)
        # (written, build, free names) per statement, and the module the free names are
        # looked up in (its globals: the same dict for the template's life), for checks
        self.checked = tuple((written, build, tuple(free))
                             for (written, build), free in zip(self.statements, self.free))
        self.namespace = template.namespace


class _Sources:
    """What one template statement reads of the derivatives: ``parts``, the (parameter,
    index) of each ``d[p][index]`` (an int index), ``whole``, the parameters whose ``d[p]``
    it reads otherwise; and the template temporaries it reads (``temporaries``) and assigns
    (``assigned``, or None; ``unpacks``: it assigns names some other way, which is never
    dropped)."""

    __slots__ = ("parts", "whole", "temporaries", "assigned", "of_outputs", "unpacks")

    @classmethod
    def of(cls, statement, temporaries, namespace) -> "_Sources":
        sources = cls()
        sources.of_outputs = False
        parts, whole, read = set(), set(), set()
        target = statement.target if isinstance(statement, gast.AugAssign) else (
            statement.targets[0] if isinstance(statement, gast.Assign) else None)
        pending = [statement.value] if target is not None else [statement]
        if isinstance(statement, gast.AugAssign) and isinstance(target, gast.Name):
            read.add(target.id)  # (t += ... reads t)
        while pending:
            node = pending.pop()
            if type(node) is list:
                pending.extend(node)
            elif type(node) is gast.Subscript and is_derivative_ref(node.value) and type(
                    node.slice) is gast.Constant and type(node.slice.value) is int and (
                    node.slice.value >= 0):
                parts.add((node.value.slice.id, node.slice.value))
            elif is_derivative_ref(node):
                whole.add(node.slice.id)
            elif type(node) is gast.Call and _part_of_output(node, namespace):
                parts.add((node.args[0].slice.id, node.args[1].value))
                sources.of_outputs = True
                pending.extend(node.args[2:])
                pending.extend(keyword.value for keyword in node.keywords)
            elif type(node) is gast.Name:
                if node.id in temporaries:
                    read.add(node.id)
            elif isinstance(node, gast.AST):
                pending.extend(getattr(node, field, None) for field in node._fields)
        sources.parts, sources.whole = frozenset(parts), frozenset(whole)
        sources.temporaries = frozenset(read)
        sources.assigned = target.id if isinstance(target, gast.Name) else None
        sources.unpacks = target is not None and not isinstance(target, gast.Name) and not (
            is_derivative_ref(target))
        return sources


def _part_of_output(call, namespace) -> bool:
    """Whether ``call`` is ``rt.output_part(d[p], k, ...)`` (an int k >= 0): part k of d[p]."""
    func, args = call.func, call.args
    return (type(func) is gast.Attribute and func.attr == "output_part"
            and type(func.value) is gast.Name and len(args) >= 2
            and getattr(namespace.get(func.value.id), "__name__", None) == "srcad.runtime"
            and is_derivative_ref(args[0]) and type(args[1]) is gast.Constant
            and type(args[1].value) is int and args[1].value >= 0)


def part_parameters(template: Template) -> tuple:
    """(the parameters the template reads parts ``d[p][k]`` of the derivative of, whether it
    reads some as ``rt.output_part(d[p], k, layout)``: parts of the full result)."""
    compiled = _compiled(template)
    return compiled.parts, compiled.parts_of_outputs


def absent_dropped(compiled, present: dict) -> frozenset:
    """The positions of the statements of a template that compute only from structurally
    absent parts of derivatives: ``present`` maps a parameter to the indices of the parts
    of its derivative that can be nonzero (the others are zeros: parts of a tuple output
    the function never reads). Adjoints are linear in the derivatives they read, so such a
    statement adds zero (``d[x] += ...``) or makes a temporary that is zero; it is dropped
    unless a statement kept reads that temporary. Dropped, the zero terms cannot turn into
    nan where their other factor is infinite (``gaps`` of a repeated singular value)."""

    def absent(source) -> bool:
        parameter, index = source
        return parameter in present and index is not None and index not in present[parameter]

    made = []  # per statement: the derivative parts its value is made from
    sources_of = {}  # temporary -> what its last assignment was made from
    for sources in compiled.sources:
        found = set(sources.parts) | {(parameter, None) for parameter in sources.whole}
        for temporary in sources.temporaries:
            found |= sources_of.get(temporary, set())
        made.append(found)
        if sources.assigned is not None:
            sources_of[sources.assigned] = found
    dropped, needed = set(), set()  # (needed: temporaries a statement kept after reads)
    for position in range(len(made) - 1, -1, -1):
        sources = compiled.sources[position]
        if made[position] and all(absent(source) for source in made[position]) and (
                sources.assigned not in needed) and not sources.unpacks:
            dropped.add(position)
            continue
        if sources.assigned is not None:
            needed.discard(sources.assigned)
        needed |= sources.temporaries
    return frozenset(dropped)


def _callee_roots(statement) -> frozenset:
    roots = set()
    for node in syntax.walk(statement):
        if type(node) is gast.Call:
            root = node.func
            while type(root) is gast.Attribute:
                root = root.value
            roots.add(root.id if type(root) is gast.Name else None)
    return frozenset(roots)


def _reads_of(statement):
    """(the template names, the parameters ``d[p]`` of) what the value of ``statement``
    reads, when its targets are names or ``d[p]``, and every name in its value is read;
    else None."""
    targets = [statement.target] if isinstance(statement, gast.AugAssign) else (
        statement.targets if isinstance(statement, gast.Assign) else None)
    if targets is None or not all(type(t) is gast.Name or is_derivative_ref(t)
                                  for t in targets):
        return None
    names, derivatives = [], []
    pending = [statement.value]
    while pending:
        node = pending.pop()
        if type(node) is list:
            pending.extend(node)
        elif type(node) is gast.Name:
            if type(node.ctx) is not gast.Load:
                return None  # (a lambda's parameter, a comprehension's target)
            names.append(node.id)
        elif type(node) is gast.Subscript and is_derivative_ref(node):
            derivatives.append(node.slice.id)
        elif isinstance(node, gast.AST):
            pending.extend(getattr(node, field, None) for field in node._fields)
    return tuple(dict.fromkeys(names)), tuple(dict.fromkeys(derivatives))


def _compiled(template: Template) -> _Compiled:
    if template.compiled is None:
        template.compiled = _Compiled(template)
    return template.compiled


def _compile_statement(statement, template, temporaries=()):
    """``build(B, D, T, A, M)``: a copy of ``statement`` with the substitutions made
    (B bindings, D derivatives, T temporaries, A aliases, M missing), as Python code that
    constructs the nodes directly, one local variable per node, in the order a recursive
    copy makes them (children first, in field order). (Bindings are the template's
    parameters only, and ``temporaries`` the names its body assigns: what a name can become
    is known here, but for a parameter left unbound.)"""
    namespace = {"_name": _substituted_name, "_derivative": _derivative,
                 "_template": template, "_copy_of": _copy_of, "_named": syntax.name,
                 "_module_name": _module_name, "_unbound": _UNBOUND}
    parameters = template.signature.parameters
    lines = []

    def held(value) -> str:  # an object the code refers to
        key = "_%d" % len(namespace)
        namespace[key] = value
        return key

    def made(expression: str) -> str:  # a local variable holding what ``expression`` makes
        local = "n%d" % len(lines)
        lines.append("%s = %s" % (local, expression))
        return local

    def code(node) -> str:
        kind = type(node)
        if kind is list:
            return "[%s]" % "".join(code(item) + ", " for item in node)
        if not isinstance(node, gast.AST):
            return held(node)
        if kind is gast.Name and node.id in parameters:
            # its binding copied (_substituted_name's way for a parameter left unbound)
            local = made("B.get(%r, _unbound)" % node.id)
            lines.append("%s = _copy_of(%s) if %s is not _unbound else _name(B, T, A, "
                         "_template, %s)" % (local, local, local, held(node)))
            return local
        if kind is gast.Name and node.id in temporaries:
            return made("_named(T[%r], %r)" % (node.id, isinstance(node.ctx, gast.Store)))
        if kind is gast.Name:
            return made("_module_name(A, _template, %s)" % held(node))
        if kind is gast.Subscript and is_derivative_ref(node):
            # its derivative's name (_derivative's way when it has none)
            store = isinstance(node.ctx, gast.Store)
            local = made("D.get(%r)" % node.slice.id)
            lines.append("%s = _named(%s, %r) if %s is not None else _derivative(D, M, %r, %r)"
                         % (local, local, store, local, node.slice.id, store))
            return local
        if not node._fields and not node.__dict__:
            return held(node)  # a context or an operator: shared (syntax.LOAD)
        # the node's attributes as gast's constructor would set them (its fields, in order),
        # then the template node's location and annotations, shared (new_node's making)
        attributes = ["%r: %s" % (f, code(getattr(node, f, None))) for f in node._fields]
        attributes += ["%r: %s" % (key, held(getattr(node, key)))
                       for key in sorted(node.__dict__.keys() - set(node._fields))]
        local = made("%s(%s)" % (held(kind.__new__), held(kind)))
        lines.append("%s.__dict__ = {%s}" % (local, ", ".join(attributes)))
        return local

    result = code(statement)
    # (the code is made here from a parsed template's nodes, never from user text)
    exec("def build(B, D, T, A, M):\n%s\n    return %s"  # noqa: S102
         % ("".join("    %s\n" % line for line in lines), result), namespace)
    return namespace["build"]


def new_node(kind, attributes: dict):
    """A node of ``kind`` holding ``attributes``: what ``kind(**attributes)`` makes, in a
    third of the time gast's generic constructor takes (templates make most nodes of
    generated code)."""
    node = kind.__new__(kind)
    node.__dict__ = attributes
    return node


def _substituted_name(bindings, temporaries, aliases, template, node):
    """A template name for one use: a parameter's expression, a fresh temporary, or the
    alias of what the name means in the template's module."""
    identifier = node.id
    if identifier in bindings:
        return _copy_of(bindings[identifier])
    if identifier in temporaries:
        return syntax.name(temporaries[identifier], isinstance(node.ctx, gast.Store))
    obj = template.namespace.get(identifier, _UNBOUND)
    if obj is _UNBOUND:
        obj = getattr(builtins, identifier, _UNBOUND)
        if obj is not _UNBOUND:
            return syntax.deepcopy(node)  # builtins (float, abs...) are never shadowed
        raise NameError("template %s (%s) uses the unknown name %r"
                        % (template.name, template.where, identifier))
    return syntax.name(aliases.name_for(obj))


def _module_name(aliases, template, node):
    """``_substituted_name`` for a name that is neither a parameter nor a temporary of the
    template: the alias of what it means in the template's module (or a builtin)."""
    obj = template.namespace.get(node.id, _UNBOUND)
    if obj is _UNBOUND:
        return _substituted_name({}, {}, aliases, template, node)
    return syntax.name(aliases.name_for(obj))


def _copy_of(node):
    """``syntax.deepcopy(node)``, quicker for what parameters are mostly bound to: names."""
    if type(node) is not gast.Name or getattr(node, "annotation", None) is not None:
        return syntax.deepcopy(node)
    ctx = node.ctx
    attributes = node.__dict__.copy()  # its location and annotations, shared as deepcopy does
    attributes["ctx"] = syntax.deepcopy(ctx) if ctx.__dict__ else ctx  # (shared: syntax.LOAD)
    attributes["annotation"] = None
    attributes["type_comment"] = attributes.get("type_comment")
    return new_node(gast.Name, attributes)


def _derivative(derivatives, missing, parameter, store):
    """``d[parameter]`` for one use: its derivative variable, else ``missing``'s zero (when
    read), else no statement (_NoDerivative)."""
    derivative = derivatives.get(parameter)
    if derivative is None and missing is not None and not store:
        return missing(parameter)
    if derivative is None:
        raise _NoDerivative(parameter)
    return syntax.name(derivative, store=store)


class _NoDerivative(Exception):
    def __init__(self, parameter):
        self.parameter = parameter


def template_of(primitive, kind):
    entry = registry.lookup(primitive)
    return getattr(entry, kind) if entry is not None else None


def _starred(call) -> bool:
    """A call with a ``*args`` or ``**kwargs`` argument."""
    for argument in call.args:
        if isinstance(argument, gast.Starred):
            return True
    for keyword in call.keywords:
        if keyword.arg is None:
            return True
    return False


def template_for(operation, kind: str, locate, not_inlined_reason=None) -> Template:
    """The ``kind`` ("adjoint" or "tangent") template of an operation, or a located error
    (``locate()``: the operation's Location, asked for only then)."""
    primitive = operation.primitive
    if operation.node is not None and isinstance(operation.node, gast.Call) and _starred(
            operation.node):
        raise UnsupportedSyntaxError(
            "srcad cannot differentiate through a call with a starred argument (`*args`, "
            "`**kwargs`) to %s" % operation.description, locate(),
            "Pass the arguments one by one (a starred argument is fine where no derivative "
            "flows, e.g. rs.randn(*x.shape)).")
    if primitive is map:
        raise MissingTemplateError(
            "srcad differentiates map(f, ...) with f a name or an attribute (np.sin, "
            "self.helper)", locate(), "Name the function first: g = make_function(); "
            "map(g, xs).")
    if primitive is UNRESOLVED and isinstance(not_inlined_reason, ValueDependentCallError):
        raise not_inlined_reason  # resolved in the code generated for the values
    if primitive is UNRESOLVED:
        raise MissingTemplateError(
            "cannot differentiate the call to %s: srcad could not tell which function it "
            "calls" % operation.description, locate(),
            "Call functions through a module or a global name (e.g. np.tanh).")
    template = template_of(primitive, kind)
    if template is not None:
        return template
    if not_inlined_reason is not None and isinstance(not_inlined_reason, SrcadError):
        raise not_inlined_reason  # why srcad could not differentiate through it
    what = registry.describe(primitive) if primitive is not None else operation.description
    decorator = "@srcad.adjoint" if kind == "adjoint" else "@srcad.tangent"
    if inspect.isfunction(primitive) and is_library_code(primitive):
        hint = ("srcad inlines your own Python functions, not library code (the standard "
                "library, site-packages); register a template for it with %s(%s) "
                "(docs/templates.md), or compute it with NumPy functions srcad knows."
                % (decorator, what))
    elif inspect.isfunction(primitive):
        hint = ("srcad differentiates through Python functions by inlining them, which this "
                "one does not allow; register a template for it with %s(%s)." % (decorator, what))
    else:
        body = ("accumulates d[arg] += ... for each argument" if kind == "adjoint"
                else "sets d[result] = ... from the arguments' tangents d[arg]")
        hint = ("Register one with %s(%s): a function (result, *args) whose body %s "
                "(docs/templates.md); or mark it @srcad.nondifferentiable."
                % (decorator, what, body))
    raise MissingTemplateError("no %s template for %s" % (
        "gradient" if kind == "adjoint" else "tangent", what), locate(), hint)


def bind_template(template: Template, operation, result_name: str, locate, derivative_name,
                  resolve=None):
    """Bind a template's parameters to one operation: (bindings, derivatives).

    ``derivative_name(value_node)`` gives the derivative variable of an argument,
    or None when it has none; the result's entry is left for the caller.
    ``resolve`` (static references to objects) is passed on to the primitive's
    constraints (registry.constraint). ``locate()`` gives the operation's Location, for
    an error.
    """
    names = template.plain_parameters
    if (names is not None and not operation.keywords and len(operation.args) + 1 == len(names)
            and operation.primitive is not operator.getitem):
        # every parameter positional, without default, and an argument for each: the
        # binding below, without its general cases
        bindings = dict(zip(names, [syntax.name(result_name), *operation.args]))
        derivatives = {}
        for param_name, value in bindings.items():
            derivatives[param_name] = derivative = derivative_name(value)
            if type(value) is gast.Attribute:
                _check_atom(value, derivative, derivative_name, operation, param_name)
    else:
        bindings, derivatives = _bound_generally(template, operation, result_name, locate,
                                                 derivative_name)
    entry = registry.lookup(operation.primitive)
    constraints = entry.constraints if entry is not None else ()
    if constraints:
        def carries(expression):
            return any(derivative_name(n) is not None for n in syntax.walk(expression)
                       if isinstance(n, gast.Name))

        for check in constraints:
            problem = check(bindings, carries, resolve or (lambda node: UNRESOLVED))
            if problem is not None:
                why, hint = problem
                raise UnsupportedOperationError(why, locate(), hint)
    return bindings, derivatives


def _bound_generally(template, operation, result_name, locate, derivative_name):
    """bind_template's (bindings, derivatives), for any template and call."""
    args = list(operation.args)
    if operation.primitive is operator.getitem:
        args[1] = syntax.index_expression(args[1])
    arguments = None
    if not operation.keywords:
        arguments = _positional_arguments(template, [syntax.name(result_name)] + args)
    if arguments is None:
        try:
            arguments = template.signature.bind(syntax.name(result_name), *args,
                                                **operation.keywords).arguments
        except TypeError as exc:
            raise TemplateError(
                "the %s template of %s does not accept this call (%s)"
                % (template.kind, registry.describe(operation.primitive), exc), locate(),
                "Template %s is defined at %s." % (template.name, template.where)) from None
    bindings, derivatives = {}, {}
    for param_name, var_positional, var_keyword, default in template.parameter_table:
        if param_name in arguments:
            value = arguments[param_name]
        elif var_positional:
            value = ()  # x.transpose(): no axes given
        elif default is not _EMPTY:
            value = new_node(gast.Constant, {"value": default, "kind": None})
        else:
            continue
        if var_positional:
            value = new_node(gast.Tuple, {"elts": list(value), "ctx": new_node(gast.Load, {})})
        elif var_keyword:
            raise TemplateError("templates cannot take **kwargs (%s)" % template.where)
        bindings[param_name] = value
        derivatives[param_name] = derivative = derivative_name(value)
        if type(value) is gast.Attribute:
            _check_atom(value, derivative, derivative_name, operation, param_name)
    return bindings, derivatives


def _check_atom(value, derivative, derivative_name, operation, param_name) -> None:
    """An operand ``name.attr`` is a static reference (np.pi): normalize leaves no other, and
    one rooted in a differentiated value would silently lose its derivative."""
    root = value
    while isinstance(root, gast.Attribute):
        root = root.value
    if derivative is None and isinstance(root, gast.Name) and derivative_name(root) is not None:
        raise AssertionError("operand %s of %s is not an atom"
                             % (registry.describe(operation.primitive), param_name))


def result_parameter(template: Template) -> str:
    """The name of the template's first parameter: the operation's result."""
    return template.parameter_table[0][0]


_EMPTY = inspect.Parameter.empty


def _positional_arguments(template: Template, values: list) -> dict | None:
    """What ``template.signature.bind(*values).arguments`` holds, for a template whose
    parameters are all positional (then a tuple of the rest), without inspect's general
    binder; None when that needs inspect (other parameters, or a call it rejects)."""
    layout = template.positional_layout
    if layout is None:
        return None
    names, required, rest = layout
    if len(values) < required or (len(values) > len(names) and rest is None):
        return None  # inspect's error message, then
    arguments = dict(zip(names, values))
    if len(values) > len(names):
        arguments[rest] = tuple(values[len(names):])
    return arguments


def check_instantiable(template: Template, bindings: dict, derivatives: dict, aliases) -> None:
    """Raise what ``instantiate`` would raise for this use (a template srcad cannot parse, or
    one using a name its module does not define), without making the statements."""
    compiled = template.compiled or _compiled(template)
    namespace = compiled.namespace
    for written, build, free in compiled.checked:
        if written is not None and derivatives.get(written) is None:
            continue
        for identifier in free:  # (never a parameter: bindings do not hold it)
            if not (identifier in namespace or hasattr(builtins, identifier)):
                break
        else:
            continue  # every name it reads means something: building it cannot fail
        try:
            build(bindings, derivatives, {t: t for t in compiled.temporaries}, aliases, None)
        except _NoDerivative:
            continue


def instantiate(template: Template, bindings: dict, derivatives: dict, namer, aliases,
                missing=None, reads: dict | None = None, shapes: dict | None = None,
                present: dict | None = None) -> list:
    """The template's statements for one use.

    ``bindings`` maps parameter names to gast expressions; ``derivatives``
    maps parameter names to the name of their derivative variable, or None
    when the parameter has none. Reading the derivative of a parameter that
    has none drops the statement, or, if ``missing(parameter)`` is given (the
    tangents of forward mode), reads the zero expression it returns.

    ``reads`` (if given) is filled with statement -> the names its value reads
    (``syntax.load_names(statement.value)``), for statements whose targets are names,
    known from the template without walking the statement.

    ``shapes`` (if given) is filled with statement -> what ``shape_of`` reads to tell its
    shape (asked of few statements: kept as it is until then).

    ``present`` (if given) maps a parameter whose derivative is a tuple to the indices of
    its parts that can be nonzero: the statements made from the others alone are dropped
    (absent_dropped).
    """
    compiled = _compiled(template)
    dropped = absent_dropped(compiled, present) if present else ()
    temporaries = {temp: namer.fresh(temp) for temp in compiled.temporaries}
    out = []
    for index, ((written, build), read) in enumerate(zip(compiled.statements,
                                                          compiled.reads)):
        if written is not None and derivatives.get(written) is None:
            continue  # no derivative for this parameter: its contribution is not needed
        if index in dropped:
            continue  # made from parts of a derivative that are zeros: adds nothing
        try:
            statement = build(bindings, derivatives, temporaries, aliases, missing)
        except _NoDerivative:
            continue  # reads the derivative of something that has none: contributes zero
        out.append(statement)
        if reads is not None and read is not None:
            names = _names_read(read, template, bindings, derivatives, temporaries, aliases)
            if names is not None:
                reads[statement] = names
        if shapes is not None and read is not None:
            shapes[statement] = (compiled, index, bindings, derivatives, temporaries)
    return out


def shape_of(use) -> tuple | None:
    """The shape of a statement made from a template statement (``use``: instantiate's
    ``shapes`` entry): ``(template statement, slots)``. Two statements of one shape differ
    only in the names of their slots (``("n", name)`` a name, ``("t", name)`` a template
    temporary, ``("c", type, repr)`` a constant, in the order of the template statement's
    ``reads``): their values are the same expression of those names. None if a parameter
    it reads is bound to anything else, or a callee is a slot (what it calls could differ
    between statements of the shape)."""
    compiled, index, bindings, derivatives, temporaries = use
    callees = compiled.callees[index]
    if None in callees:
        return None
    names, derivative_parameters = compiled.reads[index]
    slots = []
    for identifier in names:
        if identifier in callees and (identifier in bindings or identifier in temporaries):
            return None
        if identifier in bindings:
            value = bindings[identifier]
            kind = type(value)
            if kind is gast.Name and type(value.ctx) is gast.Load and getattr(
                    value, "annotation", None) is None:
                slots.append(("n", value.id))
            elif kind is gast.Constant:
                slots.append(("c", type(value.value), repr(value.value)))
            else:
                return None
        elif identifier in temporaries:
            slots.append(("t", temporaries[identifier]))
        # (else a name of the template's module: the same in every statement of the shape)
    for parameter in derivative_parameters:
        derivative = derivatives.get(parameter)
        if derivative is None:
            return None
        slots.append(("n", derivative))
    return (compiled, index), tuple(slots)


def _names_read(read, template, bindings, derivatives, temporaries, aliases) -> set | None:
    """What a statement built from the template reads (``_Compiled.reads``), found as its
    builder finds what each name becomes (_substituted_name, _derivative); None when a
    derivative read is missing (a zero expression then stands for it)."""
    names, derivative_parameters = read
    found = set()
    for identifier in names:
        if identifier in bindings:
            value = bindings[identifier]
            if type(value) is gast.Name and getattr(value, "annotation", None) is None:
                if type(value.ctx) is gast.Load:
                    found.add(value.id)
            else:
                found |= syntax.load_names(value)
        elif identifier in temporaries:
            found.add(temporaries[identifier])
        else:
            obj = template.namespace.get(identifier, _UNBOUND)
            found.add(identifier if obj is _UNBOUND else aliases.name_for(obj))
    for parameter in derivative_parameters:
        derivative = derivatives.get(parameter)
        if derivative is None:
            return None
        found.add(derivative)
    return found
