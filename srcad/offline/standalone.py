"""Standalone modules: srcad's runtime helpers copied into the module.

With ``standalone=True`` the module needs only NumPy: the runtime helpers the
code calls as ``rt.<name>`` are copied from srcad/runtime.py into it, with
what they use in turn (inside a function, so their names do not mix with the
module's), and srcad.errors replaced by a small local exception class. The
helpers are cut out of runtime.py's text at the lines of their definitions
(found on its syntax tree), so they keep their comments and docstrings.
"""

from __future__ import annotations

import ast
import inspect

import gast

from .. import runtime, syntax
from ..version import __version__
from .target import CodegenError

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


def runtime_uses(trees, runtime_names) -> list:
    """The helpers the generated code (gast trees) calls as ``<runtime alias>.<helper>``."""
    used = []
    for tree in trees:
        for node in syntax.walk(tree):
            if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                    and node.value.id in runtime_names and node.attr not in used:
                used.append(node.attr)
    return used


def standalone_runtime(trees, runtime_names) -> str:
    """Module text defining each runtime alias as a namespace of the helpers the code
    (gast trees) uses."""
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
    used = runtime_uses(trees, runtime_names)
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
                % (runtime_names[0], __version__, ", with srcad.errors replaced by a local "
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
