"""Resolve calls by value: what ``f(x)``, ``self.helper(x)`` or ``model.predict(w)`` calls.

Used by to_anf (to_anf.py) before it normalizes a call. A call's callee is
resolved by value when it is

* a parameter of the differentiated function that is never assigned in it, or a
  parameter of an inlined callee bound to such a value (or to a static one), whose
  value the derivative is generated for: a callable (``apply(f, x)``,
  ``nonlinearity=np.tanh``), or an object of the user's class (``self``, ``model``).
  The value's kind (srcad/by_value.py: ``Callee`` is the object itself, ``Instance``
  the object's class and the callables and objects its attributes hold) is part of the
  specialization key, so other values get code of their own;
* a local name assigned once, from such a value (``act = self.activation``), or from an
  item of a list of such values of one kind (``for layer in self.layers: layer(x)``);
* a static object that is not a plain function: a bound method (``model.predict``
  with ``model`` a global), a ``functools.partial``, an object with a ``__call__``.

The call is rewritten into a call of a plain function or of a NumPy function through
one of srcad's aliases, which the rest of the pipeline resolves statically:
``self.helper(x)`` becomes ``helper(self, x)`` (then inlined), ``f(x)`` with ``f``
bound to ``np.tanh`` becomes ``tanh(x)``, ``partial(g, a=2.0)(x)`` becomes
``g(x, a=2.0)``. In code for arguments of any kind (``.source``, ``optimize`` off
without a call) such a call is left as it is and marked as depending on the values
(errors.ValueDependentCallError, raised only if a derivative flows through it).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections import Counter
from keyword import iskeyword

import gast
import numpy as np

from .. import registry, runtime, syntax
from ..analysis.operations import UNRESOLVED
from ..by_value import ByValue, Callee, Elements, Instance, by_value_kind, sequence_kind
from ..errors import UnsupportedSyntaxError, ValueDependentCallError
from ..naming import identifier

UNKNOWN_VALUE = object()  # code for any kind: a value known only when the derivative runs
_MISSING = object()


def parameter_values(parsed, assigned, values) -> dict:
    """``{parameter: kind}`` for the differentiated function's parameters never assigned in
    its body (``assigned``: the names it assigns, note_assignments): their ByValue kind from
    ``values`` (``{}``-like: none known), or UNKNOWN_VALUE for every such parameter when
    ``values`` is None (code for arguments of any kind)."""
    kept = [param for param in parsed.params if param not in assigned]
    if values is None:
        return {param: UNKNOWN_VALUE for param in kept}
    return {param: values[param] for param in kept if param in values}


def value_of(normalizer, node):
    """What ``node`` (a callee expression) means by value: a ByValue kind, UNKNOWN_VALUE,
    ``("method", function, first)`` for a method of a known object (``first`` the node
    passed as ``self``), or None (nothing known: a local value, an array's method)."""
    if isinstance(node, gast.Name):
        if node.id in normalizer.by_value:
            return normalizer.by_value[node.id]
        if node.id in normalizer.locals:
            return None
        found = normalizer.resolve(node)
        return None if found is UNRESOLVED else _kind_of_object(found)
    if isinstance(node, gast.Subscript):  # an item of a list of objects of one kind
        base = value_of(normalizer, node.value)
        if base is UNKNOWN_VALUE:
            return UNKNOWN_VALUE
        return base.item if isinstance(base, Elements) else None
    if (isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords
            and normalizer.resolve(node.func) is runtime.iterated):  # for item in items
        return value_of(normalizer, node.args[0])
    if not isinstance(node, gast.Attribute):
        return None
    if _is_static_name(normalizer, node):  # np.sin, model.predict with model a global
        found = normalizer.resolve(node)
        return None if found is UNRESOLVED else _kind_of_object(found)
    base = value_of(normalizer, node.value)
    if base is UNKNOWN_VALUE:
        # an array's method (x.sum()) is found by name; anything else needs the value
        return None if hasattr(np.ndarray, node.attr) else UNKNOWN_VALUE
    if isinstance(base, Callee):
        found = getattr(base.obj, node.attr, _MISSING)
        return None if found is _MISSING else _kind_of_object(found)
    if not isinstance(base, Instance):
        return None
    held = base.attribute(node.attr)
    if held is not None:
        return held
    found = inspect.getattr_static(base.cls, node.attr, _MISSING)
    if isinstance(found, staticmethod):
        return Callee(found.__func__)
    if isinstance(found, classmethod):
        return ("method", found.__func__, _alias(normalizer, base.cls, base.cls.__name__))
    if inspect.isfunction(found):
        return ("method", found, syntax.deepcopy(node.value))
    return None


def _root_of(node):
    """The name a callee expression reads through (``self`` in ``self.layers[0].apply``,
    ``items`` in ``rt.iterated(items)[i]``), or the expression it starts from."""
    while True:
        if isinstance(node, (gast.Attribute, gast.Subscript)):
            node = node.value
        elif isinstance(node, gast.Call) and len(node.args) == 1:
            node = node.args[0]
        else:
            return node


def _kind_of_object(obj):
    return by_value_kind(obj, None) or sequence_kind(obj)


def _alias(normalizer, obj, preferred):
    preferred = identifier(preferred)
    if iskeyword(preferred):  # a lambda's name, "<lambda>"
        preferred += "_"
    return syntax.name(normalizer.aliases.name_for(obj, preferred=preferred))


def resolved_call(normalizer, call):
    """``call`` rewritten to call what its callee means by value (see the module doc), or
    None when it calls a static plain function, a NumPy function, an array's method, or
    what nothing tells. In code for any kind, a call depending on a value gives the
    ValueDependentCallError to raise if a derivative flows through it."""
    func = call.func
    if isinstance(func, gast.Name) and func.id in normalizer.local_functions:
        return None
    if calls_library_primitive(normalizer, call):
        return None  # np.tanh, math.exp: what reading it by value below concludes, sooner
    meaning = value_of(normalizer, func)
    if meaning is None:
        return None
    root = _root_of(func)
    if isinstance(root, gast.Name) and root.id in normalizer.by_value:
        normalizer.note_value_asked(root.id)  # the code depends on that value
    if meaning is UNKNOWN_VALUE:
        return _marked(normalizer, call)
    leading, keywords = [], []
    if isinstance(meaning, tuple):  # a method of a known object
        _, function, first = meaning
        leading = [first]
        target = function
    elif isinstance(meaning, Instance):  # a callable object: its class's __call__
        method = inspect.getattr_static(meaning.cls, "__call__", _MISSING)
        if not inspect.isfunction(method):
            return None
        leading, target = [syntax.deepcopy(func)], method
    else:
        target = meaning.obj
        if _is_static_name(normalizer, func) and registry.lookup(target) is not None:
            return None  # a primitive with templates of its own (scipy.stats.norm.logpdf)
        if isinstance(target, types.MethodType) and inspect.isfunction(target.__func__):
            leading = [_alias(normalizer, target.__self__, _name_of(func, "self"))]
            target = target.__func__
        elif isinstance(target, functools.partial):
            leading = [_value_node(normalizer, value) for value in target.args]
            keywords = [gast.keyword(arg=name, value=_value_node(normalizer, value))
                        for name, value in target.keywords.items()
                        if not any(k.arg == name for k in call.keywords)]
            target = target.func
        elif _is_static_name(normalizer, func):
            return None  # a static function srcad knows by name (np.tanh, a user function)
    name = getattr(target, "__name__", None) or "function"
    if getattr(np, name, None) is target:  # np.tanh reads better than an alias of its own
        callee = syntax.attribute(normalizer.aliases.name_for(np), name)
    else:
        callee = _alias(normalizer, target, name)
    callee = syntax.copy_location(callee, func)
    return syntax.copy_location(gast.Call(func=callee, args=leading + list(call.args),
                                          keywords=keywords + list(call.keywords)), call)


def calls_library_primitive(normalizer, call) -> bool:
    """Whether ``call``'s callee is a static name (``np.tanh``, ``math.exp``, not a local,
    not a parameter read by value) of a function of NumPy or of Python's builtins with
    templates: a call resolved_call leaves as it is."""
    func = call.func
    return _is_static_name(normalizer, func) and _is_library_primitive(normalizer.resolve(func))


def _is_library_primitive(obj) -> bool:
    """A function of NumPy or of Python's builtins with templates (most calls normalized):
    its ByValue kind is a Callee of itself (by_value_kind: not an instance of a user's
    class, callable, not a class), for which resolved_call leaves the call as it is."""
    return (obj is not UNRESOLVED and not isinstance(obj, type) and callable(obj)
            and type(obj).__module__.partition(".")[0] in ("numpy", "builtins")
            and registry.lookup(obj) is not None)


def _is_static_name(normalizer, func) -> bool:
    root = func
    while isinstance(root, gast.Attribute):
        root = root.value
    return (isinstance(root, gast.Name) and root.id not in normalizer.locals
            and root.id not in normalizer.by_value)


def _name_of(node, default) -> str:
    return node.value.id if isinstance(node, gast.Attribute) and isinstance(
        node.value, gast.Name) else default


def _value_node(normalizer, value):
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return syntax.constant(value)
    return _alias(normalizer, value, "bound")


def _marked(normalizer, call):
    """The error a derivative through ``call``, left as it is, raises: it needs the values."""
    location = normalizer.parsed.location(normalizer.source.origin(call))
    return ValueDependentCallError(
        "cannot differentiate the call to %s here: what it calls is known from the value of "
        "an argument (a function passed, an object whose class defines the method), and this "
        "code is for arguments of any kind" % emit_text(call.func), location,
        "srcad generates code for the values each call brings: read it with "
        "derivative.source_for(*args) or srcad.source(f, example_args=...).")


def emit_text(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return "%s.%s()" % (emit_text(node.value).rstrip("()"), node.attr)
    return "a function"


def check_nested_function_passed(normalizer, call, body, pairs):
    """A nested def (or lambda) passed to a function srcad inlines is inlined where that
    function calls it, and has no value otherwise: refuse, at the call, a callee that reads
    it another way (``if f is None``, passes it on), and any call it is passed to that is
    not inlined (its code would read a name nothing binds)."""
    if not normalizer.local_functions:
        return  # (no nested def or lambda: nothing to check)
    local = {param for param, value in pairs if isinstance(value, gast.Name)
             and value.id in normalizer.local_functions}
    if body is not None and local:
        called = {id(node.func) for node in syntax.walk(gast.Module(body=body, type_ignores=[]))
                  if isinstance(node, gast.Call)}
        for node in syntax.walk(gast.Module(body=body, type_ignores=[])):
            if (type(node) is gast.Name and node.id in local and type(node.ctx) is gast.Load
                    and id(node) not in called):
                raise _nested_function_error(normalizer, call)
    if body is None and any(isinstance(a, gast.Name) and a.id in normalizer.local_functions
                            for a in list(call.args) + [k.value for k in call.keywords]):
        raise _nested_function_error(normalizer, call)


def _nested_function_error(normalizer, call):
    return UnsupportedSyntaxError(
        "srcad inlines a nested function (or lambda) passed as an argument where the function "
        "it is passed to calls it, and cannot pass it on as a value here",
        normalizer.parsed.location(normalizer.source.origin(call)),
        "Define the function at module level (then it is a value like any other), or call "
        "it directly.")


def bind_parameter_value(normalizer, parameter, value, assigned):
    """An inlined callee's ``parameter`` (never in ``assigned``) bound to ``value``: what
    is known of ``value`` by value is known of the parameter (``self`` in a method called
    on a known object, a function passed on), and a nested def passed is callable by it.
    Returns True when the parameter names a nested def: it has no value to assign."""
    if parameter in assigned or not isinstance(value, (gast.Name, gast.Attribute)):
        return False
    if isinstance(value, gast.Name) and value.id in normalizer.local_functions:
        normalizer.local_functions[parameter] = normalizer.local_functions[value.id]
        return True
    meaning = value_of(normalizer, value)
    if meaning is UNKNOWN_VALUE or isinstance(meaning, ByValue) or (
            isinstance(meaning, tuple) and isinstance(meaning[2], gast.Name)
            and meaning[2].id not in normalizer.local_values):  # apply(self.helper, x)
        normalizer.by_value[parameter] = meaning
    return False


def spread_literals(call):
    """``f(*(a, b), **{"k": v})`` as ``f(a, b, k=v)``: a tuple, list or dict written in the
    call (fence lets only constant string keys through)."""
    if not any(isinstance(a, gast.Starred) and isinstance(a.value, (gast.Tuple, gast.List))
               for a in call.args) and not any(
            k.arg is None and isinstance(k.value, gast.Dict) for k in call.keywords):
        return call
    args = []
    for argument in call.args:
        if isinstance(argument, gast.Starred) and isinstance(argument.value,
                                                             (gast.Tuple, gast.List)):
            args.extend(argument.value.elts)
        else:
            args.append(argument)
    keywords = []
    for keyword in call.keywords:
        if keyword.arg is None and isinstance(keyword.value, gast.Dict):
            keywords.extend(gast.keyword(arg=key.value, value=value)
                            for key, value in zip(keyword.value.keys, keyword.value.values))
        else:
            keywords.append(keyword)
    return syntax.copy_location(gast.Call(func=call.func, args=args, keywords=keywords), call)


def map_as_loop(call, resolve, namer, aliases):
    """``map(f, xs)`` anywhere but summed, as (statements building the list of results, the
    list's name): ``mapped = []``, ``for item in xs: mapped.append(f(item))`` (``zip`` for
    several sequences), which the caller normalizes where Python makes the map. None if
    ``call`` is no such map, or ``f`` is no name or attribute (evaluated once, by Python)."""
    if (not isinstance(call, gast.Call) or call.keywords or len(call.args) < 2
            or any(isinstance(a, gast.Starred) for a in call.args)
            or not isinstance(call.args[0], (gast.Name, gast.Attribute))
            or resolve(call.func) is not map):
        return None
    function, sequences = call.args[0], call.args[1:]
    names = [namer.fresh("item") for _ in sequences]
    if len(sequences) == 1:
        target, iterator = syntax.name(names[0], True), syntax.deepcopy(sequences[0])
    else:
        target = gast.Tuple(elts=[syntax.name(n, True) for n in names], ctx=gast.Store())
        iterator = gast.Call(func=syntax.name(aliases.name_for(zip)),
                             args=[syntax.deepcopy(s) for s in sequences], keywords=[])
    result = namer.fresh("mapped")
    element = gast.Call(func=syntax.deepcopy(function), args=[syntax.name(n) for n in names],
                        keywords=[])
    append = gast.Expr(value=gast.Call(func=syntax.attribute(result, "append"),
                                       args=[element], keywords=[]))
    statements = [syntax.assign(result, gast.List(elts=[], ctx=gast.Load())),
                  gast.For(target=target, iter=iterator, body=[append], orelse=[],
                           type_comment=None)]
    for statement in statements:
        for node in syntax.walk(statement):
            syntax.copy_location(node, call)
    return statements, result


def map_as_generator(call, resolve, namer, aliases):
    """``map(f, xs)`` as ``(f(item) for item in xs)`` (``zip`` for several sequences), which
    the comprehension lowering turns into a loop; None if ``call`` is no such map."""
    if (not isinstance(call, gast.Call) or call.keywords or len(call.args) < 2
            or any(isinstance(a, gast.Starred) for a in call.args)
            or resolve(call.func) is not map):
        return None
    # (copies: the generator's nodes are located at the call, below)
    function, sequences = syntax.deepcopy(call.args[0]), syntax.deepcopy(call.args[1:])
    names = [namer.fresh("item") for _ in sequences]
    loads = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)
             for n in names]
    stores = [gast.Name(id=n, ctx=gast.Store(), annotation=None, type_comment=None)
              for n in names]
    if len(sequences) == 1:
        target, iterator = stores[0], sequences[0]
    else:
        target = gast.Tuple(elts=stores, ctx=gast.Store())
        iterator = gast.Call(func=syntax.name(aliases.name_for(zip)), args=list(sequences),
                             keywords=[])
    element = gast.Call(func=function, args=loads, keywords=[])
    generator = gast.GeneratorExp(elt=element, generators=[gast.comprehension(
        target=target, iter=iterator, ifs=[], is_async=0)])
    for node in gast.walk(generator):
        syntax.copy_location(node, call)
    return generator


_CHILD_FIELDS: dict = {}  # node type -> syntax.child_fields of it


def note_assignments(normalizer, statements) -> set:
    """Record, for the statements about to be normalized (a function's body, an inlined
    callee's), how many times each name is assigned, and which names hold a container
    written in the code whose length or keys are known wherever it is spread
    (``f(*args)``, ``f(**options)``): a tuple assigned once, or a list or dict assigned
    once and read only by indexing, ``len`` or spreading (nothing can change it).

    Returns the names the statements assign (``syntax.stored_names`` of them), found in
    the same walk."""
    counts = Counter()
    stored = set()
    literals = {}
    loads = []  # the Name nodes read
    spread_or_indexed = set()
    Name, Store, Load, Del = gast.Name, gast.Store, gast.Load, gast.Del
    Starred, keyword, Subscript = gast.Starred, gast.keyword, gast.Subscript
    AST, fields_of = gast.AST, _CHILD_FIELDS
    stack = list(statements)
    pop, push = stack.pop, stack.append
    while stack:  # (depth first: what is recorded does not depend on the order)
        node = pop()
        kind = type(node)
        if kind is Name:
            context = type(node.ctx)
            if context is Load:
                loads.append(node)
            elif context is Store:
                counts[node.id] += 1
                stored.add(node.id)
            elif context is Del:
                stored.add(node.id)
            annotation = getattr(node, "annotation", None)  # (a nested def's parameter)
            if isinstance(annotation, AST):
                push(annotation)
            continue
        if kind is gast.FunctionDef:  # a nested def binds its name too
            counts[node.name] += 1
        elif kind is gast.Assign and len(node.targets) == 1 and type(
                node.targets[0]) is Name:
            value = node.value
            if type(value) in (gast.Tuple, gast.List) and not any(
                    isinstance(e, Starred) for e in value.elts):
                literals[node.targets[0].id] = (type(value), len(value.elts))
            elif type(value) is gast.Dict and all(
                    isinstance(k, gast.Constant) and isinstance(k.value, str)
                    for k in value.keys):
                literals[node.targets[0].id] = (gast.Dict, [k.value for k in value.keys])
        elif kind in (Starred, keyword, Subscript) and type(
                getattr(node, "value", None)) is Name and (
                kind is Starred or (kind is keyword and node.arg is None)
                or (kind is Subscript and type(node.ctx) is Load)):
            spread_or_indexed.add(id(node.value))
        elif kind is gast.Call and type(node.func) is Name and node.func.id == "len":
            spread_or_indexed.update(id(a) for a in node.args)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = syntax.child_fields(kind)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    other_reads = {node.id for node in loads if id(node) not in spread_or_indexed}
    normalizer.store_counts.update(counts)
    for name, shape in literals.items():
        if counts[name] == 1 and (shape[0] is gast.Tuple or name not in other_reads):
            normalizer.fixed_containers[name] = shape
    return stored


def spread_known(normalizer, call):
    """``f(*args)`` and ``f(**options)`` with ``args``/``options`` a container whose length
    or keys are known (note_assignments): ``f(args[0], args[1])``, ``f(k=options["k"])``."""
    known = normalizer.fixed_containers
    if not any(isinstance(a, gast.Starred) and isinstance(a.value, gast.Name)
               and a.value.id in known and known[a.value.id][0] is not gast.Dict
               for a in call.args) and not any(
            k.arg is None and isinstance(k.value, gast.Name) and k.value.id in known
            and known[k.value.id][0] is gast.Dict for k in call.keywords):
        return call
    args = []
    for argument in call.args:
        shape = known.get(argument.value.id) if isinstance(argument, gast.Starred) \
            and isinstance(argument.value, gast.Name) else None
        if shape is not None and shape[0] is not gast.Dict:
            args.extend(syntax.copy_location(gast.Subscript(
                value=syntax.name(argument.value.id), slice=syntax.constant(index),
                ctx=gast.Load()), argument) for index in range(shape[1]))
        else:
            args.append(argument)
    keywords = []
    for keyword in call.keywords:
        shape = known.get(keyword.value.id) if keyword.arg is None and isinstance(
            keyword.value, gast.Name) else None
        if shape is not None and shape[0] is gast.Dict:
            keywords.extend(gast.keyword(arg=key, value=syntax.copy_location(gast.Subscript(
                value=syntax.name(keyword.value.id), slice=syntax.constant(key),
                ctx=gast.Load()), keyword.value)) for key in shape[1])
        else:
            keywords.append(keyword)
    return syntax.copy_location(gast.Call(func=call.func, args=args, keywords=keywords), call)


def bind_local_value(normalizer, name, value):
    """``name = value`` with ``name`` assigned nowhere else: what ``value`` (a name or an
    attribute: ``self.activation``) means by value, ``name`` means (it keeps that value
    wherever it is read, loops included)."""
    if normalizer.store_counts.get(name) != 1:
        return
    bind_temporary(normalizer, name, value)


def bind_temporary(normalizer, name, value):
    """``name = value`` with ``name`` a temporary to_anf made (assigned there only): as
    bind_local_value (``apply(self.helper, x)`` passes ``self_helper = self.helper``)."""
    if not isinstance(value, (gast.Name, gast.Attribute, gast.Subscript, gast.Call)) \
            or name in normalizer.local_functions:
        return
    meaning = value_of(normalizer, value)
    if isinstance(meaning, tuple) and not (
            isinstance(meaning[2], gast.Name) and meaning[2].id not in normalizer.local_values):
        # a method bound to an object another iteration may rebind (``f = layer.forward``
        # in a loop over layers): a later read could mean an earlier object
        return
    if meaning is UNKNOWN_VALUE or isinstance(meaning, (ByValue, tuple)):
        normalizer.by_value[name] = meaning
        normalizer.local_values.add(name)
