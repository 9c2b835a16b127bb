"""The module: each target's derivative, the code linking its names, header and runtime."""

from __future__ import annotations

import os

from .. import emit
from ..errors import InvalidArgumentError
from ..files import write_atomically
from . import link
from .header import header
from .standalone import standalone_runtime
from .target import Target, error, generate


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
    mask = os.umask(0)
    os.umask(mask)
    write_atomically(path, text, permissions=0o644 & ~mask)


def module_source(targets, *, standalone: bool = False, command: str | None = None,
                  notes=()) -> str:
    """The text of a module holding the derivative of every target."""
    for target in targets:
        generate(target)
    seen_names = {}
    for target in targets:
        if target.name in seen_names:
            raise InvalidArgumentError(
                "two derivatives would both be named %s (of %s and %s): give them names "
                "(--name, or name=[...])" % (target.name, seen_names[target.name],
                                             target.function.__qualname__))
        seen_names[target.name] = target.function.__qualname__
    bindings: dict = {}  # module-level name -> link.Binding
    defined = set(seen_names)
    bodies, definitions = [], []
    for target in targets:
        tree = emit.parse_source(target.generated.source)
        definition = tree.body[0]
        link.rename_names(tree, _link_names(target, bindings, defined, standalone))
        definitions.append(definition)
        extra = link.set_defaults(definition, target)
        if extra is None:
            extra = _copy_defaults(target, bindings, defined)
        bodies.append(emit.to_source(tree).rstrip("\n") + "\n" + ("\n" + extra if extra else ""))
    runtime_names = [b.name for b in bindings.values() if b.kind == "runtime"]
    runtime_text = standalone_runtime(definitions, runtime_names) if runtime_names else ""
    imports = [b.text for b in bindings.values() if b.kind == "import"]
    imports.sort(key=lambda text: (not text.startswith("import "), text.split()[1]))
    literals = [b.text for b in bindings.values() if b.kind == "literal"]
    parts = [header(targets, standalone, command, notes, bindings, definitions)]
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


def _link_names(target, bindings, defined, standalone) -> dict:
    """Bind every free name of ``target``'s code (adding to ``bindings``); returns the
    renames that keep two meanings of one name apart."""
    renames = {}
    for name in link.free_names(target.generated.source):
        if name == target.name:
            continue
        found = link.meaning(name, target)
        if found is None:  # a builtin
            if name in defined or name in bindings:
                raise error(target, name, "the module defines %s for another derivative "
                            "(it would hide the builtin)" % name,
                            hint="Write the derivatives into separate modules.")
            continue
        binding = link.bind(name, *found, target, standalone)
        existing = bindings.get(name)
        if name in defined or (existing is not None and existing.key != binding.key):
            renames[name] = link.fresh(name, set(bindings) | defined)
            binding = link.bind(renames[name], *found, target, standalone)
        bindings.setdefault(binding.name, binding)
    return renames


def _copy_defaults(target, bindings, defined) -> str:
    """Import the original function (its defaults are not literals) and copy them."""
    function = target.function
    original = link.fresh("_%s_original" % function.__name__, set(bindings) | defined)
    located = link.locate(function, function.__name__, "global", target)
    if located is None:
        raise error(target, function.__name__, "its defaults are not literals and the "
                    "function cannot be imported to copy them")
    bindings[original] = link.Binding(
        original, "import", "from %s import %s as %s" % (located[0], located[1], original),
        ("object",) + located)
    return "%s.__defaults__ = %s.__defaults__\n" % (target.name, original)
