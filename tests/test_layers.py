"""srcad's modules form layers that import only downward: no cycle, none hidden in a function.

``LAYERS`` below is the one place that says which module sits where, lowest first;
a module may import modules of its own layer or of a lower one. Every import
counts, function-level ones included (a function-level import is how a cycle
hides), so the graph checked is what Python could ever load.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "srcad"

# Lowest first. Patterns are module names; "srcad.normalize.*" covers the package's modules.
LAYERS = (
    # core: what every stage speaks (nodes, their annotations, names, errors) and the
    # helpers generated code calls at run time
    ("core", ["srcad.errors", "srcad.version", "srcad.files", "srcad.syntax",
              "srcad.annotations", "srcad.naming", "srcad.runtime", "srcad.trees",
              "srcad.serialize", "srcad.cache.memory"]),
    # what srcad knows about primitives, and how operations are read from a tree
    # (normalize, analysis and transform all read statements through operation_of);
    # recursion holds the hook through which generated code asks the driver for the
    # derivative of a recursive function
    ("registry", ["srcad.registry", "srcad.analysis.operations", "srcad.recursion"]),
    # a function object read: its tree, one resolver for its names, the request
    ("parse", ["srcad.parse", "srcad.resolve", "srcad.namespace", "srcad.derived",
               "srcad.request", "srcad.by_value"]),
    ("fence", ["srcad.fence"]),
    ("normalize", ["srcad.normalize", "srcad.normalize.*"]),
    ("analysis", ["srcad.analysis", "srcad.analysis.*"]),
    # each primitive's templates, shape rule, specializer and facts (they use the shape
    # rules of analysis/shapes.py); registry.load_templates imports them on first lookup
    ("primitives", ["srcad.vocabulary", "srcad.templates", "srcad.templates.*"]),
    ("transform", ["srcad.transform", "srcad.transform.*"]),
    ("optimize", ["srcad.optimize", "srcad.optimize.*"]),
    # emit compiles generated code from files of its own, which the one pruner sweeps
    ("emit", ["srcad.emit", "srcad.cache.generated_files", "srcad.cache.prune"]),
    # the debug mode's checks of what each pass promises (run by the driver after each)
    ("invariant checks", ["srcad.invariants"]),
    ("driver", ["srcad.pipeline"]),
    ("caches", ["srcad.cache", "srcad.cache.*"]),
    ("api", ["srcad.arguments", "srcad.api"]),
    ("api beyond grad", ["srcad.modes", "srcad.offline", "srcad.offline.*"]),
    ("command line and package", ["srcad.cli", "srcad.__main__", "srcad.docs_primitives",
                                  "srcad"]),
)

# Edges other helpers of issue 10 remove in their own branches; each names who and why.
# An entry here that no longer occurs fails the test, so the list only shrinks.
KNOWN_UPWARD: set = set()
KNOWN_PRIVATE: set = set()


def _modules() -> dict[str, pathlib.Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _layer_of(module: str) -> int:
    for index, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if module == pattern or (pattern.endswith(".*")
                                     and module.startswith(pattern[:-1])):
                return index
    raise AssertionError("module %s is in no layer: add it to LAYERS in %s"
                         % (module, __file__))


def _imports(module: str, path: pathlib.Path):
    """``(imported module, names imported from it, line)`` for every srcad import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "srcad" or alias.name.startswith("srcad."):
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            if prefix != "srcad" and not prefix.startswith("srcad."):
                continue
            for alias in node.names:
                submodule = prefix + "." + alias.name
                if submodule in MODULES:
                    yield submodule, [], node.lineno
                else:
                    yield prefix, [alias.name], node.lineno


def _graph() -> dict[str, set[str]]:
    return {module: {target for target, _, _ in _imports(module, path) if target != module}
            for module, path in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer_of(module)


def test_imports_go_downward():
    upward = []
    found_known = set()
    for module, path in MODULES.items():
        for target, _, line in _imports(module, path):
            if _layer_of(target) > _layer_of(module):
                if (module, target) in KNOWN_UPWARD:
                    found_known.add((module, target))
                    continue
                upward.append("%s:%d imports %s (layer %r above %r)" % (
                    path.relative_to(PACKAGE.parent), line, target,
                    LAYERS[_layer_of(target)][0], LAYERS[_layer_of(module)][0]))
    assert not upward, "imports going up a layer:\n" + "\n".join(upward)
    assert found_known == KNOWN_UPWARD, "fixed, remove from KNOWN_UPWARD: %s" % (
        KNOWN_UPWARD - found_known)


def test_no_import_cycle():
    graph = _graph()
    state = {}  # module -> "visiting" | "done"

    def visit(module, stack):
        state[module] = "visiting"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "visiting":
                cycle = stack[stack.index(target):] + [target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, stack + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_no_private_name_crosses_modules():
    """``from m import _name`` or ``m._name`` reaches into another module's internals."""
    crossing = set()
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        imported_as = {}  # local name -> srcad module
        for target, names, _ in _imports(module, path):
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    crossing.add((module, target, name))
            if not names:
                imported_as[target.rsplit(".", 1)[-1]] = target
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.asname and alias.asname != alias.name:
                        base = imported_as.pop(alias.name, None)
                        if base is not None:
                            imported_as[alias.asname] = base
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in imported_as
                    and re.fullmatch(r"_[A-Za-z0-9]\w*", node.attr)
                    and not node.attr.endswith("__")):
                crossing.add((module, imported_as[node.value.id], node.attr))
    unexpected = sorted(crossing - KNOWN_PRIVATE)
    assert not unexpected, "private names used by other modules:\n" + "\n".join(
        "%s uses %s.%s" % entry for entry in unexpected)
    assert crossing >= KNOWN_PRIVATE, "fixed, remove from KNOWN_PRIVATE: %s" % (
        KNOWN_PRIVATE - crossing)


def test_the_graph_is_read_completely():
    """The checks above see function-level imports too (they are how cycles hide)."""
    graph = _graph()
    assert "srcad.pipeline" in graph["srcad.api"]
    assert "srcad.registry" in graph["srcad.analysis.activity"]


def test_srcad_modules_are_imported_at_module_level():
    """A function-level import of a srcad module is how a cycle hides: there is none."""
    hidden = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top_level:
                relative = isinstance(node, ast.ImportFrom) and node.level
                names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                         else [alias.name for alias in node.names])
                if relative or any(n == "srcad" or n.startswith("srcad.") for n in names):
                    hidden.append("%s:%d" % (path.relative_to(PACKAGE.parent), node.lineno))
    assert not hidden, "function-level imports of srcad modules: " + ", ".join(hidden)
