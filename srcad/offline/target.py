"""One derivative to write: the function, its options, and its generated code.

``generate`` checks that the function can be written as a module (a plain
Python function, not a bound method nor a function srcad made) and generates
its derivative the way ``srcad.source`` does (api.generate). ``import_name``
is the name a module is imported by: a script run as ``__main__`` is imported
by the name of its file.
"""

from __future__ import annotations

import inspect
import keyword
import os
import re
import sys
from dataclasses import dataclass, field

from .. import api, derived
from ..errors import CodegenError, InvalidArgumentError
from ..naming import identifier
from ..request import parse_wrt


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
        return import_name(getattr(self.function, "__module__", None) or "?", self)


def generate(target: Target) -> None:
    """Generate ``target``'s derivative (``target.generated``), or say why it cannot be."""
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
    target.wrt_names = list(parse_wrt(function, target.wrt).names)
    prefix = "grad_" if target.mode == "reverse" else "jvp_"
    target.name = target.name or identifier(prefix + function.__name__)
    if not target.name.isidentifier() or keyword.iskeyword(target.name):
        raise InvalidArgumentError("%r is not a valid function name" % (target.name,))
    if target.mode == "forward" and target.has_aux:
        raise InvalidArgumentError("has_aux is for reverse mode")
    target.generated = api.generate(function, target.wrt, target.mode,
                                    example_args=target.example_args, has_aux=target.has_aux,
                                    optimize=target.optimize, name=target.name)


def error(target: Target, name: str, why: str, hint: str = "") -> CodegenError:
    """The error for a name the generated code reads but the module cannot give it."""
    return CodegenError("cannot write the derivative of %s as a module: the generated code "
                        "reads `%s`, but %s" % (target.function.__qualname__, name, why),
                        hint=hint)


def import_name(module: str, target: Target) -> str:
    """The name to import ``module`` by; a script run as __main__ by the one of its file."""
    if module != "__main__":
        return module
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path:
        raise error(target, module, "it is defined at the interactive prompt (__main__ has no "
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
