"""Stage 1, parse: a function object becomes a gast tree plus what is needed to read it.

After this stage we hold the function's ``FunctionDef`` (decorators removed),
its file name and line offsets (so every node maps back to file:line:col), and
a resolver that looks free names up in the function's *own* closure, globals
and builtins -- never in a merged namespace.
"""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import linecache
import os
import textwrap
import weakref
from dataclasses import dataclass, field

import gast

from . import syntax
from .annotations import Origin
from .errors import Location, SourceUnavailableError, UnsupportedSyntaxError

_MISSING = object()


@dataclass
class ParsedFunction:
    function: object
    tree: gast.FunctionDef
    source: str
    filename: str
    line_offset: int  # add to a node's lineno to get the file's line number
    col_offset: int  # add to a node's col_offset to get the file's column
    local_names: frozenset = field(default_factory=frozenset)
    identifiers: frozenset = field(default_factory=frozenset)
    raw_source: str = ""  # the source lines as in the file (not dedented), from line_offset + 1

    @property
    def name(self) -> str:
        return self.tree.name

    @property
    def params(self) -> list[str]:
        return [a.id for a in self.tree.args.args]

    def origin(self, node) -> "Origin":
        """The absolute place of one of this function's nodes."""
        end = getattr(node, "end_lineno", None)
        return Origin(self.filename, getattr(node, "lineno", 1) + self.line_offset,
                      getattr(node, "col_offset", 0) + self.col_offset,
                      None if end is None else end + self.line_offset)

    def location(self, node) -> Location | None:
        if isinstance(node, Origin):
            return Location(node.filename, node.lineno, node.col_offset,
                            linecache.getline(node.filename, node.lineno))
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        file_line = lineno + self.line_offset
        text = linecache.getline(self.filename, file_line)
        if not text:
            lines = self.source.splitlines()
            text = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        return Location(self.filename, file_line, node.col_offset + self.col_offset, text)

    def source_text(self, node) -> str:
        """The source line ``node`` comes from, for comments in generated code ("grad of: ...")."""
        location = self.location(node) if node is not None else None
        if location is None or not location.line:
            return "?"
        text = location.line.strip()
        end = getattr(node, "end_lineno", None)
        if end is not None and end != node.lineno:
            text += " ..."
        if location.filename != self.filename:  # inlined from another file
            text += "  (%s:%d)" % (os.path.basename(location.filename), location.lineno)
        return text

    def resolve_name(self, name: str, default=None):
        """The object a free name refers to in the function's closure/globals/builtins."""
        if name in self.local_names:
            return default
        return _lookup_free_name(self.function, name, default)


_MISSING_SENTINEL = object()


def _fail(default):
    if default is _MISSING:
        raise LookupError
    return default


def _lookup_free_name(function, name, default):
    code = function.__code__
    if name in code.co_freevars and function.__closure__:
        cell = function.__closure__[code.co_freevars.index(name)]
        try:
            return cell.cell_contents
        except ValueError:  # an empty cell: the enclosing variable is not bound yet
            return _fail(default)
    namespace = function.__globals__
    if name in namespace:
        return namespace[name]
    builtin_namespace = namespace.get("__builtins__", builtins)
    if not isinstance(builtin_namespace, dict):
        builtin_namespace = vars(builtin_namespace)
    if name in builtin_namespace:
        return builtin_namespace[name]
    return _fail(default)


def unwrap_function(function):
    """The plain Python function behind a bound method; any other object itself.

    ``__wrapped__`` is never followed: a decorated function is the wrapper the
    decorator returned, and that wrapper (not the function it wraps) is what a
    call runs and what srcad differentiates. The function ``srcad.grad``
    returns keeps ``__wrapped__`` for its users, and srcad differentiates its
    generated code (srcad/derived.py), never the function it wraps.
    """
    if inspect.ismethod(function):
        function = function.__func__
    return function


def signature_of(function) -> inspect.Signature:
    """``function``'s own parameters (inspect.signature would follow ``__wrapped__``)."""
    return inspect.signature(function, follow_wrapped=False)


_read: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> (code, parsed)


def read(function) -> ParsedFunction:
    """``function`` parsed once (while its code object stays the same), shared by every
    request for it: the pipeline, ``grad``'s check, error locations and the cache key.

    A ParsedFunction is read-only: passes work on copies of its tree.
    """
    function = unwrap_function(function)
    try:
        cached = _read.get(function)
    except TypeError:  # cannot be weakly referenced: nothing to share it with
        return parse_function(function)
    if cached is not None and cached[0] is getattr(function, "__code__", None):
        return dataclasses.replace(cached[1], function=function)
    parsed = parse_function(function)
    # the entry must not hold the function: a value referring to its weak key keeps it alive
    _read[function] = (function.__code__, dataclasses.replace(parsed, function=None))
    return parsed


def parse_function(function) -> ParsedFunction:
    """Read ``function``'s source and parse it with gast."""
    function = unwrap_function(function)
    what = getattr(function, "__qualname__", repr(function))
    if not inspect.isfunction(function) and inspect.isfunction(
            getattr(function, "__wrapped__", None)):
        raise wrapper_error(function)
    if not inspect.isfunction(function):
        raise SourceUnavailableError(
            "cannot read the source of %s: it is not a Python function (a builtin or C "
            "function has no Python source to transform)" % what,
            hint="Differentiate a function written in Python, or register a gradient template "
            "for this one with @srcad.adjoint.",
        )
    if function.__name__ == "<lambda>":
        raise UnsupportedSyntaxError(
            "cannot differentiate a lambda directly: its source is not a complete statement",
            hint="Write it as a `def` function and pass that to srcad.",
        )
    try:
        # through the code object: inspect.getsourcelines(function) follows __wrapped__
        lines, first_line = inspect.getsourcelines(function.__code__)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            "cannot read the source of %s (%s)" % (what, exc),
            hint="srcad reads the function's source with inspect; functions typed at an "
            "interactive prompt or built with exec have none. Put the function in a file.",
        ) from None
    raw = "".join(lines)
    source = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    filename = inspect.getsourcefile(function.__code__) or function.__code__.co_filename
    module = gast.parse(source)
    defs = [n for n in module.body if isinstance(n, gast.FunctionDef)]
    if not defs:
        if any(isinstance(n, gast.AsyncFunctionDef) for n in module.body):
            node = module.body[0]
            loc = Location(filename, node.lineno + first_line - 1, node.col_offset + indent,
                           linecache.getline(filename, node.lineno + first_line - 1))
            raise UnsupportedSyntaxError("async functions cannot be differentiated", loc,
                                         "Differentiate a plain (synchronous) function.")
        raise SourceUnavailableError("could not find the definition of %s in its source" % what)
    tree = defs[0]
    tree.decorator_list = []
    local_names = _local_names(tree)
    return ParsedFunction(
        function=function,
        tree=tree,
        source=source,
        filename=filename,
        line_offset=first_line - 1,
        col_offset=indent,
        local_names=frozenset(local_names),
        identifiers=frozenset(all_identifiers(tree)),
        raw_source=raw,
    )


def wrapper_error(wrapper) -> SourceUnavailableError:
    """A decorator made ``wrapper`` without Python source (functools.lru_cache, ...)."""
    wrapped = wrapper.__wrapped__
    code = wrapped.__code__
    line = linecache.getline(code.co_filename, code.co_firstlineno)
    location = Location(code.co_filename, code.co_firstlineno,
                        len(line) - len(line.lstrip()), line)
    return SourceUnavailableError(
        "cannot differentiate %s: a decorator replaced it with a %s, which is not a Python "
        "function, so srcad cannot read what it does with %s"
        % (wrapped.__qualname__, type(wrapper).__name__, wrapped.__name__), location,
        "srcad differentiates decorators written in Python by reading them. If this one does "
        "not change what %s computes, differentiate the undecorated function (%s.__wrapped__)."
        % (wrapped.__name__, wrapped.__name__))


def _local_names(tree: gast.FunctionDef) -> set[str]:
    names = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if extra is not None:
            names.add(extra.id)
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.add(node.id)
    return names


def all_identifiers(tree) -> set[str]:
    """Every identifier appearing in ``tree``: names, parameters and attribute names."""
    names = set()
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name):
            names.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            names.add(node.name)
    return names
