"""Linking: module-level code giving each free name of the generated code its meaning.

What the generated code reads besides its parameters -- srcad's aliases
(``np``, ``rt``, the modules, functions and constants of inlined callees) and
names of the user's module -- becomes one ``Binding`` each:

* a module:            ``import numpy as np``
* a function or class: ``from its.module import name`` (from the user's own
  module for the user's helpers and globals)
* a Python constant:   ``SCALE = 3.0`` (serialize.py writes it)
* srcad's runtime:     ``import srcad.runtime as rt``, or, standalone, the
  helpers copied into the module (standalone.py)

Anything else is a CodegenError that says which name and why. Two derivatives
in one module that give one name two meanings get the second renamed, on the
syntax tree (``rename_names``); ``set_defaults`` gives a gradient its
function's defaults, on the tree too.
"""

from __future__ import annotations

import ast
import builtins
import symtable
import types
from dataclasses import dataclass

import gast

from .. import recursion, runtime, serialize, syntax
from ..parse import signature_of
from .target import Target, error, import_name


@dataclass
class Binding:
    """Module-level code giving one name its value: an import, a literal, or runtime."""

    name: str
    kind: str  # "import", "literal", "runtime"
    text: str  # the statement(s)
    key: object  # what it binds, to tell apart two different meanings of one name


def free_names(source: str) -> list:
    """The names a generated ``def`` reads from outside itself, in order of first use."""
    table = symtable.symtable(source, "<generated>", "exec")
    found = set()

    def visit(scope):
        for symbol in scope.get_symbols():
            if (symbol.is_global() or symbol.is_free()) and symbol.is_referenced() \
                    and scope.get_type() != "module":
                found.add(symbol.get_name())
        for child in scope.get_children():
            visit(child)

    visit(table)
    first_use = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id in found:
            place = (node.lineno, node.col_offset)
            first_use[node.id] = min(place, first_use.get(node.id, place))
    return sorted(found, key=lambda name: first_use.get(name, (0, 0)))


def meaning(name: str, target: Target) -> tuple | None:
    """(object, where it comes from) for a free name of the generated code; None: a builtin."""
    function = target.function
    if name in target.generated.aliases:
        return target.generated.aliases[name], "alias"
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    if name in cells:
        try:
            return cells[name].cell_contents, "closure"
        except ValueError:
            raise error(target, name, "the closure variable is not bound yet") from None
    if name in function.__globals__:
        return function.__globals__[name], "global"
    if hasattr(builtins, name):
        return None
    raise error(target, name, "it is not defined in %s's module" % function.__qualname__)


def bind(name, obj, origin, target, standalone) -> Binding:
    """The binding giving the module-level ``name`` the value ``obj``."""
    if obj is runtime:
        if standalone:
            return Binding(name, "runtime", "", ("runtime",))
        return Binding(name, "import", _import_module_text("srcad.runtime", name),
                       ("module", "srcad.runtime"))
    if isinstance(obj, types.ModuleType):
        module = import_name(obj.__name__, target)
        _check_standalone(name, module, obj, target, standalone)
        return Binding(name, "import", _import_module_text(module, name), ("module", module))
    if serialize.is_literal(obj):
        text = serialize.literal_text(obj)
        return Binding(name, "literal", "%s = %s" % (name, text), ("literal", type(obj), text))
    located = locate(obj, name, origin, target)
    if located is None:
        raise error(target, name, "it is %s (a %s): only modules, importable functions and "
                    "classes, names of your module, and Python numbers, strings, booleans and "
                    "None can be written into a module" % (_short_repr(obj), type(obj).__name__),
                    hint="Make it a module-level name of the function's module, or pass it "
                    "to the function as an argument.")
    module, qualname = located
    _check_standalone(name, module, obj, target, standalone)
    first, _, rest = qualname.partition(".")
    if not rest:
        text = ("from %s import %s" % (module, first) if first == name
                else "from %s import %s as %s" % (module, first, name))
    else:  # a method or a nested class: import the outer object, then take the attribute
        text = "from %s import %s as %s\n%s = %s.%s" % (module, first, name, name, name, rest)
    return Binding(name, "import", text, ("object", module, qualname))


def locate(obj, name, origin, target) -> tuple | None:
    """(module to import by, qualified name) importing ``obj``, or None."""
    candidates = []
    if origin == "global":
        candidates.append((getattr(target.function, "__module__", None), name))
    # a global of the user's module, or of a callee's module, bound to this very object
    for namespace_owner in [target.function] + list(target.generated.callees):
        namespace = getattr(namespace_owner, "__globals__", {})
        for global_name, value in namespace.items():
            if value is obj and not global_name.startswith("__"):
                candidates.append((namespace.get("__name__"), global_name))
                break
    located = serialize.locate(obj, candidates)
    if located is None:
        return None
    return import_name(located[0], target), located[1]


def _import_module_text(module: str, name: str) -> str:
    if module == name:
        return "import %s" % module
    package, _, last = module.rpartition(".")
    if package and last == name:
        return "from %s import %s" % (package, last)
    return "import %s as %s" % (module, name)


def _check_standalone(name, module, obj, target, standalone):
    if not standalone or module.split(".")[0] != "srcad":
        return
    if obj is recursion.vjp_of:
        raise error(target, name, "the derivative calls vjp_of(...), which generates the "
                    "derivative of a recursive function at run time and so needs srcad",
                    hint="A standalone module cannot hold it: drop --standalone (the module "
                    "then imports srcad), or rewrite the recursion as a loop.")
    raise error(target, name, "it is %s from %s, which a standalone module cannot hold"
                % (_short_repr(obj), module), hint="Drop --standalone.")


def _short_repr(obj) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."


def fresh(name: str, taken) -> str:
    """``name_2``, ``name_3``... the first not in ``taken``."""
    counter = 2
    while "%s_%d" % (name, counter) in taken:
        counter += 1
    return "%s_%d" % (name, counter)


# ---- changes made on the tree of the generated code


def rename_names(tree, mapping: dict):
    """Rename the variables ``mapping`` names, everywhere in ``tree`` (a gast tree).

    Attributes, keyword arguments, strings and comments are other nodes than
    ``Name``, so they keep their text. Returns ``tree``, changed in place.
    """
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            node.names = [mapping.get(n, n) for n in node.names]
    return tree


def set_defaults(definition, target: Target) -> str | None:
    """Give the generated gradient ``definition`` (a gast FunctionDef) ``target``'s defaults.

    Literal defaults are written into its parameters; otherwise the module imports
    the function and copies its ``__defaults__``: then the statement doing it is
    returned (``""``: nothing to do), and the caller adds the import.
    """
    function = target.function
    defaults = function.__defaults__
    if target.mode != "reverse" or not defaults:
        return ""
    params = list(signature_of(function).parameters)
    plain = (not definition.args.defaults and not definition.args.kwonlyargs
             and definition.args.vararg is None and definition.args.kwarg is None
             and [a.id for a in definition.args.args] == params)
    if plain and all(serialize.is_literal(d) for d in defaults):
        definition.args.defaults = [gast.parse(serialize.literal_text(d)).body[0].value
                                    for d in defaults]
        return ""
    return None
