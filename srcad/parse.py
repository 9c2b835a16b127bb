"""Stage 1, parse: a function object becomes a gast tree plus what is needed to read it.

After this stage we hold the function's ``FunctionDef`` (decorators removed),
its file name and line offsets (so every node maps back to file:line:col), and
a resolver that looks free names up in the function's *own* closure, globals
and builtins -- never in a merged namespace.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import linecache
import os
import textwrap
from dataclasses import dataclass, field

import gast

from . import syntax
from .cache import memory
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
        # (read from the node's dict: a node type declares no lineno or col_offset of its
        # own, and None for end_lineno, the defaults below)
        found = node.__dict__
        end = found.get("end_lineno")
        return _origin(self.filename, found.get("lineno", 1) + self.line_offset,
                       found.get("col_offset", 0) + self.col_offset,
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


def _origin(filename, lineno, col_offset, end_lineno) -> Origin:
    """``Origin(filename, lineno, col_offset, end_lineno)``, made without the frozen
    dataclass's ``__init__`` (one per normalized statement; its fields set as __init__
    would set them: an Origin has no __post_init__ and no __slots__)."""
    origin = object.__new__(Origin)
    origin.__dict__.update(filename=filename, lineno=lineno, col_offset=col_offset,
                           end_lineno=end_lineno)
    return origin


if hasattr(Origin, "__post_init__") or hasattr(Origin, "__slots__") or [
        f.name for f in dataclasses.fields(Origin)] != [
        "filename", "lineno", "col_offset", "end_lineno"]:
    _origin = Origin  # (Origin changed: its own constructor)


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


_library_folders: tuple | None = None


def is_library_code(function) -> bool:
    """Whether ``function`` is defined in installed library code: the standard library or a
    ``site-packages``/``dist-packages`` folder (NumPy, SciPy, ...), not the user's own files.

    srcad inlines only the user's own code: library code is written for speed and
    generality (context managers, ``try``, dispatch on types) that srcad does not
    differentiate, and the user cannot edit it to help. A call to such a function needs a
    gradient template, and the error says so at the user's call.
    """
    code = getattr(function, "__code__", None)
    return is_library_file(getattr(code, "co_filename", None))


_library_files: dict = {}  # filename -> is_library_file's answer (a path resolved once)


def is_library_file(filename) -> bool:
    """Whether ``filename`` is in the standard library or a site-/dist-packages folder."""
    if not filename or filename.startswith("<"):
        return False
    known = _library_files.get(filename)
    if known is None:
        if len(_library_files) >= 4096:
            _library_files.clear()
        known = _library_files[filename] = _is_library_path(filename)
    return known


def _is_library_path(filename) -> bool:
    global _library_folders
    if _library_folders is None:
        import site
        import sysconfig

        paths = sysconfig.get_paths()
        folders = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")
                   if key in paths}
        folders.update(getattr(site, "getsitepackages", list)())
        _library_folders = tuple(sorted({os.path.realpath(folder) + os.sep
                                         for folder in folders}))
    path = os.path.realpath(filename)
    parts = path.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts or path.startswith(
        _library_folders)


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


def read(function) -> ParsedFunction:
    """``function`` parsed once (while its code object stays the same), shared by every
    request for it: the pipeline, ``grad``'s check, error locations and the cache key. Kept
    with what srcad made for the function (cache/memory.py): ``srcad.cache.clear()`` forgets
    it too, so a function's first ``grad`` after it costs what the very first did.

    A ParsedFunction is read-only: passes work on copies of its tree.
    """
    function = unwrap_function(function)
    if not isinstance(getattr(function, "__dict__", None), dict):
        return parse_function(function)  # nowhere to keep it
    cached = memory.lookup(function, "parsed", counted=False)
    if cached is not None:
        return _for_function(cached, function)
    parsed = parse_function(function)
    # the entry does not hold the function (its own __dict__ holds the entry)
    memory.store(function, "parsed", _for_function(parsed, None))
    return parsed


def _for_function(parsed: ParsedFunction, function) -> ParsedFunction:
    """``dataclasses.replace(parsed, function=function)``, without its cost (a read per
    inlined call): the same fields, shared."""
    twin = ParsedFunction.__new__(ParsedFunction)
    twin.__dict__.update(parsed.__dict__)
    twin.function = function
    return twin


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
        return _parse_lambda(function, what)
    try:
        # through the code object when the function has __wrapped__ (inspect would follow
        # it); otherwise the function itself: for a code object inspect looks for its module
        # through every module loaded (milliseconds a call)
        file_lines, start = inspect.findsource(
            function.__code__ if hasattr(function, "__wrapped__") else function)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            "cannot read the source of %s (%s)" % (what, exc),
            hint="srcad reads the function's source with inspect; functions typed at an "
            "interactive prompt or built with exec have none. Put the function in a file.",
        ) from None
    first_line = start + 1
    filename = inspect.getsourcefile(function.__code__) or function.__code__.co_filename
    lines = _definition_lines(file_lines, start)
    module = _parsed(lines) if lines is not None else None
    if module is None:  # cut short inside a string or bracket, or comments: as inspect does
        lines = inspect.getblock(file_lines[start:])
        module = gast.parse(textwrap.dedent("".join(lines)))
    raw = "".join(lines)
    source = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
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
    local_names, identifiers = _names_of(tree)
    return ParsedFunction(
        function=function,
        tree=tree,
        source=source,
        filename=filename,
        line_offset=first_line - 1,
        col_offset=indent,
        local_names=frozenset(local_names),
        identifiers=frozenset(identifiers),
        raw_source=raw,
    )


def _definition_lines(lines, start) -> list | None:
    """The lines of the definition that starts at ``lines[start]`` (its ``def`` or first
    decorator), as ``inspect.getblock`` finds them, by indentation instead of tokenizing them
    (a tenth of the time): up to the last code line before the first one after the ``def``
    line that is not indented deeper than it. None when comments follow that last line
    indented deeper than the ``def``: inspect keeps those indented as deep as the body (which
    its tokens tell). (Only a line of a string or of a bracket can be indented less and still
    belong to the function: the text is then cut short inside it, which ``_parsed`` refuses.)
    """
    first = lines[start]
    depth = len(first) - len(first.lstrip())
    after_def = trailing_comment = False
    last = start
    for number in range(start, len(lines)):
        line = lines[number]
        code = line.lstrip()
        if not code:
            continue
        indent = len(line) - len(code)
        if code[0] == "#":  # (comments do not end a block: Python skips them)
            trailing_comment = trailing_comment or indent > depth
            continue
        if after_def and indent <= depth:
            break
        if indent == depth and (code.startswith("def ") or code.startswith("async ")):
            after_def = True
        last, trailing_comment = number, False
    return None if trailing_comment else lines[start:last + 1]


def _parsed(lines):
    """The module of one definition that ``lines`` hold (dedented), or None when they hold
    no whole definition (cut short by ``_definition_lines``) or more than one statement."""
    try:
        module = gast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    return module if len(module.body) == 1 else None


LAMBDA_NAME = "lambda_"  # a lambda's FunctionDef: its generated code is grad_lambda


def _parse_lambda(function, what) -> ParsedFunction:
    """A lambda's source is an expression inside a statement: find its node in its file's
    tree (on the line its code starts) and read it as ``def lambda_(params): return body``.
    Nodes keep their places in the file, so offsets are 0."""
    code = function.__code__
    filename = inspect.getsourcefile(code) or code.co_filename
    text = "".join(linecache.getlines(filename, function.__globals__))
    if not text:
        raise SourceUnavailableError(
            "cannot read the source of %s: no file holds it" % what,
            hint="srcad reads a lambda's source from its file; lambdas typed at an interactive "
            "prompt or built with exec have none. Put the function in a file.")
    module = _module_tree(filename, text)
    candidates = [node for node in gast.walk(module) if isinstance(node, gast.Lambda)
                  and node.lineno == code.co_firstlineno and [a.id for a in syntax.parameters(node.args)] ==
                  list(code.co_varnames[:_parameter_count(code)])]
    candidates = _lambdas_holding(code, candidates)
    distinct = {gast.dump(node) for node in candidates}
    line = linecache.getline(filename, code.co_firstlineno)
    location = Location(filename, code.co_firstlineno,
                        candidates[0].col_offset if candidates else 0, line)
    if not candidates:
        raise SourceUnavailableError("could not find %s in its source" % what, location)
    if len(distinct) > 1:
        raise SourceUnavailableError(
            "cannot tell which of the %d lambdas on this line srcad was given" % len(distinct),
            location, "Give it a name with `def`, or put each lambda on its own line.")
    node = candidates[0]
    body = gast.Return(value=syntax.deepcopy(node.body))
    gast.copy_location(body, node.body)
    tree = gast.copy_location(
        syntax.function_def(LAMBDA_NAME, syntax.deepcopy(node.args), [body]), node)
    local_names, identifiers = _names_of(tree)
    return ParsedFunction(
        function=function, tree=tree, source=text, filename=filename, line_offset=0,
        col_offset=0, local_names=frozenset(local_names), identifiers=frozenset(identifiers),
        raw_source=ast.get_source_segment(text, _located(node)) or gast.dump(node))


def _parameter_count(code) -> int:
    flags = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS
    return (code.co_argcount + code.co_kwonlyargcount
            + sum(1 for flag in flags if code.co_flags & flag))


def _lambdas_holding(code, candidates) -> list:
    """Of ``candidates``, the innermost lambdas whose text holds every place ``code``'s
    instructions come from (Python 3.11+ records them; before, those whose global, free
    and attribute names are ``code``'s)."""
    if len(candidates) < 2:
        return candidates
    positions = getattr(code, "co_positions", None)
    if positions is None:
        names = _names_of_code(code)
        return [node for node in candidates if _names_of_lambda(node) == names]
    places = {(line, column, end_line, end_column)
              for line, end_line, column, end_column in positions()
              if None not in (line, column, end_line, end_column)
              and (line, column) != (end_line, end_column)}

    def holds(node):
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        return all(start <= (line, column) and (end_line, end_column) <= end
                   for line, column, end_line, end_column in places)

    holding = [node for node in candidates if holds(node)]
    innermost = [node for node in holding if not any(
        other is not node and _holds_node(node, other) for other in holding)]
    return innermost


def _names_of_code(code) -> set:
    """The global, free and attribute names ``code`` and the code nested in it look up."""
    names = set(code.co_names) | set(code.co_freevars)
    for constant in code.co_consts:
        if inspect.iscode(constant):
            names |= _names_of_code(constant) - set(code.co_varnames) - set(code.co_cellvars)
    return names


def _names_of_lambda(node) -> set:
    """The names a lambda's code looks up that are not its own parameters (nor those of
    the lambdas inside it), and the attributes it reads."""
    own = set()
    for inner in gast.walk(node):
        if isinstance(inner, gast.Lambda):
            own.update(a.id for a in syntax.parameters(inner.args))
    return {inner.id for inner in gast.walk(node.body)
            if isinstance(inner, gast.Name) and inner.id not in own} | {
        inner.attr for inner in gast.walk(node.body) if isinstance(inner, gast.Attribute)}


def _holds_node(outer, inner) -> bool:
    """``inner``'s text lies inside ``outer``'s."""
    return ((outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset)
            and (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno,
                                                             outer.end_col_offset))


def _located(node):
    """An ast node carrying ``node``'s place, for ast.get_source_segment."""
    located = ast.expr()
    for attribute in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(located, attribute, getattr(node, attribute))
    return located


_modules: dict = {}  # filename -> (its text, its gast tree): the files lambdas came from


def _module_tree(filename, text):
    kept = _modules.get(filename)
    if kept is not None and kept[0] == text:
        return kept[1]
    try:
        tree = gast.parse(text)
    except SyntaxError:  # the file changed since it ran
        raise SourceUnavailableError(
            "cannot read the lambda's source: %s no longer parses" % filename,
            hint="Reload the module that defines it.") from None
    if len(_modules) >= 8:
        _modules.pop(next(iter(_modules)))
    _modules[filename] = (text, tree)
    return tree


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


def _names_of(tree: gast.FunctionDef) -> tuple[set[str], set[str]]:
    """(the names ``tree`` binds locally, every identifier in it: ``all_identifiers``), in
    one walk."""
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if extra is not None:
            local.add(extra.id)
    identifiers = set()
    Name, FunctionDef, Store, Del = gast.Name, gast.FunctionDef, gast.Store, gast.Del
    for node in syntax.walk(tree):
        kind = type(node)
        if kind is Name:
            identifiers.add(node.id)
            if type(node.ctx) is Store or type(node.ctx) is Del:
                local.add(node.id)
        elif kind is FunctionDef:
            identifiers.add(node.name)
            if node is not tree:
                local.add(node.name)  # a nested def binds a local name too
    return local, identifiers


def all_identifiers(tree) -> set[str]:
    """Every identifier appearing in ``tree``: names, parameters and attribute names."""
    names = set()
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name):
            names.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            names.add(node.name)
    return names
