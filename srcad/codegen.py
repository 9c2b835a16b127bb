"""Offline codegen: write derivatives as an importable Python module.

``srcad.codegen(f, "grads.py", wrt=...)`` (and ``srcad codegen FILE.py:FUNC``)
writes a module holding ``grad_f`` (reverse mode: the parameters of ``f``,
returning what ``srcad.grad(f, wrt=...)`` returns) or ``jvp_f`` (forward
mode: the parameters, then the tangents of ``wrt``; returns
``(output, output_tangent)``), with a header saying what it was generated
from, when, by which srcad and with which options.

The generated function's text is the one srcad compiles in memory. What it
reads besides its parameters -- srcad's aliases (``np``, ``rt``, the modules,
functions and constants of inlined callees) and names of the user's module
(e.g. a helper that was not inlined) -- becomes module-level code:

* a module:            ``import numpy as np``
* a function or class: ``from its.module import name`` (from the user's own
  module for the user's helpers and globals)
* a Python constant:   ``SCALE = 3.0``

Anything else is an error that says which name and why. Code is generated
for arguments of any type (the generic code), unless ``example_args`` are
given, in which case it is specialized for arguments like those.

With ``standalone=True`` the module needs only NumPy: the runtime helpers
the code calls as ``rt.<name>`` are copied from srcad/runtime.py into it
(inside a function, so their names do not mix with the module's), with
srcad.errors replaced by a small local exception class. Code that calls
``vjp_of`` (the derivative of a recursive function, generated at run time)
cannot be standalone.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import io
import os
import re
import symtable
import sys
import time
import tokenize
import types
from dataclasses import dataclass, field

from . import derived, pipeline, runtime, serialize
from .analysis import shapes
from .errors import InvalidArgumentError, SrcadError
from .files import write_atomically
from .parse import signature_of
from .transform.forward import ForwardRequest
from .transform.reverse import ReverseRequest


class CodegenError(SrcadError):
    """The derivative cannot be written as a module (a name it needs cannot be imported)."""


@dataclass
class Target:
    """One derivative to write: the function and how to differentiate it."""

    function: object
    wrt: object = 0
    mode: str = "reverse"
    name: str | None = None
    example_args: tuple | None = None
    has_aux: bool = False
    optimize: object = True
    # filled in while generating
    generated: object = field(default=None, repr=False)
    wrt_names: list = field(default_factory=list, repr=False)

    def module_label(self) -> str:
        """The name the function's module is imported by."""
        return _module_name(getattr(self.function, "__module__", None) or "?", self)


def codegen(function, path=None, wrt=0, mode: str = "reverse", name=None,
            standalone: bool = False, example_args=None, *, has_aux: bool = False,
            optimize=True) -> str:
    """Write the derivative of ``function`` as an importable Python module.

    ``function`` may also be a list of functions, all written into one
    module with the same options; ``name`` is then a list of names (or None)
    and ``wrt`` may be a list with one entry per function (a tuple still
    means several parameters of each).
    ``path`` is the file to write (None: only return the text). The
    derivative is named ``grad_<function>`` (reverse mode) or
    ``jvp_<function>`` (forward mode) unless ``name`` says otherwise.
    ``standalone=True`` writes srcad's runtime helpers into the module, so it
    runs where srcad is not installed. Returns the module's source.
    """
    functions = list(function) if isinstance(function, (list, tuple)) else [function]
    if not functions:
        raise InvalidArgumentError("codegen needs at least one function")
    names = name if isinstance(name, (list, tuple)) else [name] * len(functions)
    if len(names) != len(functions):
        raise InvalidArgumentError("codegen got %d names for %d functions"
                                   % (len(names), len(functions)))
    if len(functions) > 1 and isinstance(name, str):
        raise InvalidArgumentError("one name for several functions: pass a list of names")
    if len(functions) > 1 and isinstance(wrt, list):  # one wrt per function
        if len(wrt) != len(functions):
            raise InvalidArgumentError("codegen got %d wrt for %d functions (a list gives one "
                                       "per function; a tuple names several parameters)"
                                       % (len(wrt), len(functions)))
        wrts = wrt
    else:
        wrts = [wrt] * len(functions)
    targets = [Target(f, w, mode, n, example_args, has_aux, optimize)
               for f, w, n in zip(functions, wrts, names)]
    text = module_source(targets, standalone=standalone)
    if path is not None:
        write_module(os.fspath(path), text)
    return text


def write_module(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (readers never see half a module)."""
    write_atomically(path, text, permissions=0o644 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---- generating each derivative


def _generate(target: Target) -> None:
    from .api import _wrt_names

    function = target.function
    if inspect.ismethod(function):
        raise InvalidArgumentError(
            "codegen writes functions, not bound methods: pass %s.%s (its first parameter is "
            "then `self`)" % (type(function.__self__).__name__, function.__name__))
    made = derived.lookup(function)
    if made is not None:
        raise InvalidArgumentError(
            "codegen writes the derivative of a function written in Python, not of %s"
            % made.description,
            hint="Write the function's own derivative with srcad.codegen(f, ...); "
            "derivatives of derivatives are generated in memory by nesting srcad.grad.")
    if not inspect.isfunction(function):
        raise InvalidArgumentError("codegen needs a Python function, not %r" % (function,))
    if target.mode not in ("reverse", "forward"):
        raise InvalidArgumentError("mode must be 'reverse' or 'forward', not %r"
                                   % (target.mode,))
    names, single = _wrt_names(function, target.wrt)
    target.wrt_names = names
    prefix = "grad_" if target.mode == "reverse" else "jvp_"
    target.name = target.name or prefix + function.__name__
    if not target.name.isidentifier() or target.name in _KEYWORDS:
        raise InvalidArgumentError("%r is not a valid function name" % (target.name,))
    kinds = None
    if target.example_args is not None:
        kinds = tuple(shapes.of_value(a) for a in target.example_args)
    enabled = pipeline.optimizations(target.optimize)
    if target.mode == "reverse":
        request = ReverseRequest(wrt=names, single=single, has_aux=target.has_aux)
        target.generated = pipeline.generate_reverse(function, request, kinds,
                                                     name=target.name, enabled=enabled)
    else:
        if target.has_aux:
            raise InvalidArgumentError("has_aux is for reverse mode")
        if kinds is not None:  # tangents have their primals' kinds
            params = list(signature_of(function).parameters)
            kinds = kinds + tuple(kinds[params.index(n)] for n in names)
        target.generated = pipeline.generate_forward(function, ForwardRequest(wrt=names),
                                                     kinds, name=target.name,
                                                     enabled=enabled)


_KEYWORDS = frozenset(__import__("keyword").kwlist)


def free_names(source: str) -> list:
    """The names a generated ``def`` reads from outside itself, in order of first use."""
    table = symtable.symtable(source, "<generated>", "exec")
    found = []

    def visit(scope):
        for symbol in scope.get_symbols():
            if (symbol.is_global() or symbol.is_free()) and symbol.is_referenced():
                if scope.get_type() != "module" and symbol.get_name() not in found:
                    found.append(symbol.get_name())
        for child in scope.get_children():
            visit(child)

    visit(table)
    order = {n: i for i, n in enumerate(_name_tokens(source))}
    return sorted(found, key=lambda n: order.get(n, len(order)))


def _name_tokens(source):
    seen = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string not in seen:
            seen.append(token.string)
    return seen


# ---- what each free name means, and the module-level code that binds it


@dataclass
class Binding:
    """Module-level code giving one name its value: an import, a literal, or runtime."""

    name: str
    kind: str  # "import", "literal", "runtime"
    text: str  # the statement(s)
    key: object  # what it binds, to tell apart two different meanings of one name


def _binding_for(name: str, target: Target, standalone: bool) -> Binding | None:
    """How the module gives the generated code's free ``name`` its meaning (None: a builtin)."""
    function = target.function
    generated = target.generated
    if name in generated.aliases:
        obj, origin = generated.aliases[name], "alias"
    else:
        cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
        if name in cells:
            try:
                obj, origin = cells[name].cell_contents, "closure"
            except ValueError:
                raise _error(target, name, "the closure variable is not bound yet") from None
        elif name in function.__globals__:
            obj, origin = function.__globals__[name], "global"
        elif hasattr(builtins, name):
            return None
        else:
            raise _error(target, name, "it is not defined in %s's module"
                         % function.__qualname__)
    return _bind(name, obj, origin, target, standalone)


def _bind(name, obj, origin, target, standalone) -> Binding:
    if obj is runtime:
        if standalone:
            return Binding(name, "runtime", "", ("runtime",))
        return Binding(name, "import", _import_module_text("srcad.runtime", name),
                       ("module", "srcad.runtime"))
    if isinstance(obj, types.ModuleType):
        module = _module_name(obj.__name__, target)
        _check_standalone(name, module, obj, target, standalone)
        return Binding(name, "import", _import_module_text(module, name), ("module", module))
    if serialize.is_literal(obj):
        text = serialize.literal_text(obj)
        return Binding(name, "literal", "%s = %s" % (name, text), ("literal", type(obj), text))
    located = _locate(obj, name, origin, target)
    if located is None:
        what = type(obj).__name__
        raise _error(target, name, "it is %s (a %s): only modules, importable functions and "
                     "classes, names of your module, and Python numbers, strings, booleans and "
                     "None can be written into a module" % (_short_repr(obj), what),
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
    from . import recursion

    if obj is recursion.vjp_of:
        raise _error(target, name, "the derivative calls vjp_of(...), which generates the "
                     "derivative of a recursive function at run time and so needs srcad",
                     hint="A standalone module cannot hold it: drop --standalone (the module "
                     "then imports srcad), or rewrite the recursion as a loop.")
    raise _error(target, name, "it is %s from %s, which a standalone module cannot hold"
                 % (_short_repr(obj), module), hint="Drop --standalone.")


def _locate(obj, name, origin, target):
    """(module, qualified name) importing ``obj``, or None."""
    candidates = []
    module = serialize.module_of(obj)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname \
            and callable(obj):
        parts = module.split(".")
        for i in range(1, len(parts)):  # numpy.linalg._linalg.norm -> numpy.linalg.norm
            if parts[i - 1].startswith("_"):
                break
            candidates.append((".".join(parts[:i]), qualname))
        candidates.append((module, qualname))
    user_module = getattr(target.function, "__module__", None)
    if origin == "global":
        candidates.append((user_module, name))
    # a global of the user's module, or of a callee's module, bound to this very object
    for namespace_owner in [target.function] + list(target.generated.callees):
        namespace = getattr(namespace_owner, "__globals__", {})
        for global_name, value in namespace.items():
            if value is obj and not global_name.startswith("__"):
                candidates.append((namespace.get("__name__"), global_name))
                break
    for module, qualname in candidates:
        if not module:
            continue
        try:
            found = _resolve(module, qualname)
        except Exception:
            continue
        if found is obj:
            return _module_name(module, target), qualname
    return None


def _resolve(module, qualname):
    obj = sys.modules.get(module)
    if obj is None:
        if module == "__main__":
            raise LookupError(module)
        import importlib

        obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _module_name(module: str, target: Target) -> str:
    """The name to import ``module`` by; a script run as __main__ by the one of its file."""
    if module != "__main__":
        return module
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path:
        raise _error(target, module, "it is defined at the interactive prompt (__main__ has no "
                     "file)", hint="Put the function in a file.")
    return module_name_for_path(path)[0]


def module_name_for_path(path: str) -> tuple:
    """(dotted module name, sys.path folder) for a .py file: packages up the tree count."""
    path = os.path.abspath(path)
    folder, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    if not parts:
        raise InvalidArgumentError("cannot derive a module name from %s" % path)
    for part in parts:
        if not part.isidentifier():
            raise InvalidArgumentError(
                "cannot import %s: %r is not a valid module name" % (path, part),
                hint="Rename the file (or folder) to a Python identifier, e.g. "
                "%s.py." % re.sub(r"\W", "_", part))
    return ".".join(parts), folder


def _short_repr(obj) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."


def _error(target: Target, name: str, why: str, hint: str = "") -> CodegenError:
    return CodegenError("cannot write the derivative of %s as a module: the generated code "
                        "reads `%s`, but %s" % (target.function.__qualname__, name, why),
                        hint=hint)


# ---- renaming (two derivatives in one module giving one name two meanings)


def rename_names(source: str, mapping: dict) -> str:
    """Rename variables (NAME tokens that are not attributes or keyword arguments)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    lines = source.splitlines(keepends=True)
    edits = []
    for i, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in mapping:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if before == "." or (after == "=" and before in ("(", ",")):
            continue
        edits.append((token.start, token.end, mapping[token.string]))
    for (row, col), (_, end), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end:]
    return "".join(lines)


# ---- defaults: the derivative keeps the original's


def _with_defaults(source: str, target: Target) -> tuple:
    """(source, extra statement) giving ``grad_f`` the defaults of ``f``."""
    function = target.function
    defaults = function.__defaults__
    if target.mode != "reverse" or not defaults:
        return source, ""
    first, newline, rest = source.partition("\n")
    params = list(signature_of(function).parameters)
    expected = "def %s(%s):" % (target.name, ", ".join(params))
    if first == expected and all(serialize.is_literal(d) for d in defaults):
        start = len(params) - len(defaults)
        shown = [p if i < start else "%s=%s" % (p, serialize.literal_text(defaults[i -
                 start])) for i, p in enumerate(params)]
        return "def %s(%s):" % (target.name, ", ".join(shown)) + newline + rest, ""
    return source, None  # the caller imports the original and copies its __defaults__


# ---- the module


def module_source(targets, *, standalone: bool = False, command: str | None = None,
                  notes=()) -> str:
    """The text of a module holding the derivative of every target."""
    for target in targets:
        _generate(target)
    seen_names = {}
    for target in targets:
        if target.name in seen_names:
            raise InvalidArgumentError(
                "two derivatives would both be named %s (of %s and %s): give them names "
                "(--name, or name=[...])" % (target.name, seen_names[target.name],
                                             target.function.__qualname__))
        seen_names[target.name] = target.function.__qualname__
    bindings: dict = {}  # module-level name -> Binding
    bodies, sources = [], []
    defined = set(seen_names)
    for target in targets:
        source = target.generated.source
        renames = {}
        for name in free_names(source):
            if name == target.name:
                continue
            binding = _binding_for(name, target, standalone)
            if binding is None:  # a builtin
                if name in defined or name in bindings:
                    raise _error(target, name, "the module defines %s for another derivative "
                                 "(it would hide the builtin)" % name,
                                 hint="Write the derivatives into separate modules.")
                continue
            existing = bindings.get(name)
            if name in defined or (existing is not None and existing.key != binding.key):
                new = _fresh(name, bindings, defined)
                renames[name] = new
                binding = _bind(new, *_meaning(name, target), target, standalone)
            bindings.setdefault(binding.name, binding)
        if renames:
            source = rename_names(source, renames)
        sources.append(source)
        source, extra = _with_defaults(source, target)
        if extra is None:
            original = _fresh("_%s_original" % target.function.__name__, bindings, defined)
            located = _locate(target.function, target.function.__name__, "global", target)
            if located is None:
                raise _error(target, target.function.__name__, "its defaults are not literals "
                             "and the function cannot be imported to copy them")
            bindings[original] = Binding(
                original, "import", "from %s import %s as %s" % (located[0], located[1],
                                                                  original),
                ("object",) + located)
            extra = "%s.__defaults__ = %s.__defaults__\n" % (target.name, original)
        bodies.append(source.rstrip("\n") + "\n" + ("\n" + extra if extra else ""))
    runtime_text = ""
    runtime_names = [b.name for b in bindings.values() if b.kind == "runtime"]
    if runtime_names:
        runtime_text = standalone_runtime(sources, runtime_names)
    header = _header(targets, standalone, command, notes, bindings)
    imports = [b.text for b in bindings.values() if b.kind == "import"]
    imports.sort(key=lambda text: (not text.startswith("import "), text.split()[1]))
    literals = [b.text for b in bindings.values() if b.kind == "literal"]
    parts = [header]
    if imports:
        parts.append("\n".join(imports) + "\n")
    if literals:
        parts.append("\n".join(literals) + "\n")
    parts.extend("\n" + body for body in bodies)
    if runtime_text:
        parts.append("\n" + runtime_text)
    parts.append("\n__all__ = [%s]\n" % ", ".join(repr(t.name) for t in targets))
    text = "\n".join(parts)
    compile(text, "<srcad codegen>", "exec")  # a module that does not parse is a bug here
    return text


def _meaning(name, target):
    generated = target.generated
    if name in generated.aliases:
        return generated.aliases[name], "alias"
    function = target.function
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    if name in cells:
        return cells[name].cell_contents, "closure"
    return function.__globals__[name], "global"


def _fresh(name, bindings, defined):
    counter = 2
    while "%s_%d" % (name, counter) in bindings or "%s_%d" % (name, counter) in defined:
        counter += 1
    return "%s_%d" % (name, counter)


def _header(targets, standalone, command, notes, bindings) -> str:
    from . import __version__

    lines = ["Derivatives generated by srcad %s. Do not edit: regenerate instead." % __version__,
             ""]
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    lines.append("Generated %s by:\n    %s" % (when, command) if command
                 else "Generated %s." % when)
    lines.append("")
    for target in targets:
        function = target.function
        code = function.__code__
        where = _display_path(code.co_filename)
        params = list(signature_of(function).parameters)
        wrt = ", ".join(target.wrt_names)
        if target.mode == "reverse":
            single = not isinstance(target.wrt, (tuple, list))
            wrt_text = repr(target.wrt_names[0]) if single else repr(tuple(target.wrt_names))
            what = ("%s(%s): srcad.grad(%s, wrt=%s)%s"
                    % (target.name, ", ".join(params), function.__name__, wrt_text,
                       ", has_aux=True" if target.has_aux else ""))
        else:
            tangents = [_tangent_names(target)] if target.wrt_names else []
            what = ("%s(%s): forward mode, returns (%s(...), its tangent along %s)"
                    % (target.name, ", ".join(params + tangents), function.__name__, wrt))
        lines.append("%s" % what)
        lines.append("    of %s, %s:%d (module %s)"
                     % (function.__qualname__, where, code.co_firstlineno,
                        target.module_label()))
    lines.append("")
    options = ["mode=%s" % ", ".join(sorted({t.mode for t in targets}))]
    if any(t.example_args is not None for t in targets):
        options.append("specialized for the argument kinds of example_args")
    else:
        options.append("generic code (any argument types)")
    if any(t.optimize is not True for t in targets):
        options.append("optimize=%r" % ([t.optimize for t in targets][0],))
    options.append("standalone (needs only NumPy)" if standalone
                   else "imports srcad.runtime")
    lines.append("Options: %s." % "; ".join(options))
    lines.append("This file is a snapshot: it does not follow later changes to the functions "
                 "it was generated from.")
    user_imports = sorted({b.key[1] for b in bindings.values()
                           if b.key[0] in ("object", "module")
                           and b.key[1] in _user_modules(targets)})
    if user_imports:
        lines.append("It imports names from %s, which must be importable where it runs."
                     % ", ".join(user_imports))
    for note in notes:
        lines.append(note)
    body = "\n".join(lines).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return '"""%s\n"""\n' % body.rstrip()


def _tangent_names(target):
    first = target.generated.source.partition("\n")[0]
    try:
        node = ast.parse(first + "\n    pass\n").body[0]
        params = [a.arg for a in node.args.args]
        count = len(signature_of(target.function).parameters)
        return ", ".join(params[count:])
    except SyntaxError:
        return "tangents"


def _user_modules(targets):
    names = set()
    for target in targets:
        names.add(target.module_label())
        for callee in target.generated.callees:
            names.add(_module_name(callee.__module__, target))
    return names


def _display_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


# ---- standalone: srcad's runtime helpers copied into the module


_ERRORS_SHIM = '''\
class SrcadError(Exception):
    """Stands in for srcad.SrcadError: srcad is not needed to run this module."""

    def __init__(self, message, location=None, hint=""):
        self.message, self.location, self.hint = message, location, hint
        parts = [message if location is None else "%s: error: %s" % (location, message)]
        if location is not None and location.line.strip():
            parts.append("    " + location.line.strip())
        if hint:
            parts.append(hint)
        super().__init__("\\n".join(parts))
'''

_LOCATION_SHIM = '''\
class Location:
    """A place in a source file (stands in for srcad.errors.Location)."""

    def __init__(self, filename, lineno, col, line=""):
        self.filename, self.lineno, self.col, self.line = filename, lineno, col, line

    def __str__(self):
        return "%s:%d:%d" % (self.filename, self.lineno, self.col)
'''


def runtime_uses(sources, runtime_names) -> list:
    """The helpers the generated sources call as ``<runtime alias>.<helper>``."""
    used = []
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in runtime_names and node.attr not in used:
                used.append(node.attr)
    return used


def standalone_runtime(sources, runtime_names) -> str:
    """Module text defining each runtime alias as a namespace of the helpers the code uses."""
    path = inspect.getsourcefile(runtime)
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    definitions = {}  # top-level name -> (statement, kind)
    order = {}
    for index, statement in enumerate(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            names = [statement.name]
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [
                statement.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
                continue
            names = [(a.asname or a.name).split(".")[0] for a in statement.names]
        else:
            continue
        for name in names:
            definitions[name] = statement
            order[name] = index
    used = runtime_uses(sources, runtime_names)
    for helper in used:
        statement = definitions.get(helper)
        if not isinstance(statement, ast.FunctionDef):
            raise CodegenError("the generated code calls rt.%s, which srcad/runtime.py does not "
                               "define as a function: cannot write it standalone" % helper)
    wanted, queue = set(), list(used)
    while queue:
        name = queue.pop()
        if name in wanted or name not in definitions:
            continue
        wanted.add(name)
        for node in ast.walk(definitions[name]):
            if isinstance(node, ast.Name) and node.id in definitions:
                queue.append(node.id)
    statements = sorted({id(definitions[n]): definitions[n] for n in wanted}.values(),
                        key=lambda s: tree.body.index(s))
    imports, shims, functions = [], [], []
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            module = getattr(statement, "module", None) or ""
            internal = isinstance(statement, ast.ImportFrom) and (
                statement.level > 0 or module.split(".")[0] == "srcad")
            if not internal:
                for alias in statement.names:
                    bound = (alias.asname or alias.name).split(".")[0]
                    if bound in wanted:
                        imports.append("import %s%s" % (alias.name, " as %s" % alias.asname
                                                       if alias.asname else "")
                                       if isinstance(statement, ast.Import) else
                                       "from %s import %s%s" % (module, alias.name,
                                                                " as %s" % alias.asname
                                                                if alias.asname else ""))
                continue
            if module.split(".")[-1] != "errors":
                raise CodegenError("srcad/runtime.py imports from %s, which a standalone "
                                   "module cannot replace" % (module or "."))
            for alias in statement.names:
                bound = alias.asname or alias.name
                if bound not in wanted:
                    continue
                if alias.name == "Location":
                    shims.append(_LOCATION_SHIM)
                elif alias.name == "SrcadError":
                    pass  # always written below when any shim is
                elif alias.name.endswith("Error"):
                    shims.append("class %s(SrcadError):\n    pass\n" % bound)
                else:
                    raise CodegenError("srcad/runtime.py uses %s from srcad.errors, which a "
                                       "standalone module cannot replace" % alias.name)
            continue
        start = min([statement.lineno] + [d.lineno for d in getattr(statement,
                                                                    "decorator_list", [])])
        functions.append("".join(lines[start - 1:statement.end_lineno]))
    if shims:
        shims.insert(0, _ERRORS_SHIM)
    body = []
    body.append('"""The srcad runtime helpers this module calls as `%s.<name>`.\n\n'
                'Copied from srcad/runtime.py (srcad %s)%s, so this module\nruns where srcad '
                'is not installed.\n"""'
                % (runtime_names[0], _version(), ", with srcad.errors replaced by a local "
                   "exception class" if shims else ""))
    body.append("from types import SimpleNamespace\n")
    if imports:
        body.append("\n".join(sorted(set(imports), key=lambda t: (t.startswith("from"), t)))
                    + "\n")
    for chunk in shims + functions:
        body.append(chunk.rstrip("\n") + "\n")
    exported = "".join("    %s=%s,\n" % (name, name) for name in sorted(used))
    body.append("return SimpleNamespace(\n%s)" % exported)
    inner = "\n".join(body)
    indented = "".join("    " + line if line.strip() else line
                       for line in inner.splitlines(keepends=True))
    text = "def _srcad_runtime():\n" + indented + "\n\n\n"
    text += "".join("%s = _srcad_runtime()\n" % name for name in runtime_names)
    return text


def _version():
    from . import __version__

    return __version__
