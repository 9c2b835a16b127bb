"""The template registry: which primitives srcad knows, and how to differentiate each.

A *template* is a small Python function whose body is pasted into generated
code with names substituted (docs/templates.md)::

    @adjoint(np.sin)
    def sin(y, x):
        d[x] += d[y] * np.cos(x)

The first parameter is the primitive's result, the others its arguments;
``d[x]`` is x's adjoint (reverse mode) or tangent (forward mode). Template
bodies are never executed; they are parsed once, on first use.

Besides templates a primitive may carry a *shape rule* (used to specialize
generated code for the argument types of a call, see analysis/shapes.py) and
may be declared non-differentiable (its result never carries a gradient).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import textwrap
from dataclasses import dataclass, field

import gast

from .errors import Location, TemplateError


class _DerivativeNotation:
    """``d`` in templates: ``d[x]`` names x's derivative. Only meaningful inside templates."""

    def __getitem__(self, item):
        raise TypeError("d[...] is template notation; template bodies are not meant to run")

    def __repr__(self):
        return "d"


d = _DerivativeNotation()


@dataclass
class Template:
    """One parsed template: parameters, defaults, and body statements (gast).

    ``source`` is the template's text when it was written by a rule helper
    (srcad/vocabulary.py) rather than in a file; ``origin`` then says where.
    """

    function: object
    kind: str  # "adjoint" or "tangent"
    source: str | None = field(default=None, repr=False)
    origin: str | None = None
    _body: list | None = field(default=None, repr=False)
    # the body compiled to statement builders, made at first use (transform/templates.py)
    compiled: object = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.function.__name__

    @functools.cached_property
    def signature(self) -> inspect.Signature:  # read for every use of the template
        return inspect.signature(self.function)

    @functools.cached_property
    def positional_layout(self) -> tuple | None:
        """(positional parameter names, how many have no default, the ``*rest`` name or
        None) when every parameter is positional, else None (transform/templates.py then
        binds a call with inspect)."""
        names, required, rest = [], 0, None
        for name, parameter in self.signature.parameters.items():
            if rest is not None:
                return None
            if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
                rest = name
            elif parameter.kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                        inspect.Parameter.POSITIONAL_OR_KEYWORD):
                return None
            else:
                names.append(name)
                if parameter.default is inspect.Parameter.empty:
                    required = len(names)
        return names, required, rest

    @functools.cached_property
    def parameter_table(self) -> tuple:
        """(name, is ``*args``, is ``**kwargs``, default) per parameter, read from the
        signature once (inspect's Parameter properties cost more than a binding:
        transform/templates.py binds a template for every use)."""
        return tuple((name, parameter.kind is inspect.Parameter.VAR_POSITIONAL,
                      parameter.kind is inspect.Parameter.VAR_KEYWORD, parameter.default)
                     for name, parameter in self.signature.parameters.items())

    @functools.cached_property
    def plain_parameters(self) -> tuple | None:
        """The parameters' names when each is positional and has no default, else None."""
        if all(not var_positional and not var_keyword and default is inspect.Parameter.empty
               and self.signature.parameters[name].kind in (
                   inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
               for name, var_positional, var_keyword, default in self.parameter_table):
            return tuple(name for name, _, _, _ in self.parameter_table)
        return None

    @property
    def namespace(self) -> dict:
        return self.function.__globals__

    @property
    def body(self) -> list:
        if self._body is None:
            self._body = _parse_template_body(self)
        return self._body

    @property
    def where(self) -> str:
        if self.origin is not None:
            return self.origin
        code = self.function.__code__
        return "%s:%d" % (code.co_filename, code.co_firstlineno)


@dataclass
class Primitive:
    """Everything srcad knows about one function it differentiates (or must not).

    * ``adjoint``, ``tangent``: templates (reverse and forward mode);
    * ``shape_rule``: the abstract value of a call's result from its arguments'
      (analysis/shapes.py);
    * ``specializer(pass_, args, kinds)``: an expression a call reduces to when its
      arguments' kinds are known, or None (optimize/specialize_runtime_calls.py);
    * ``linear_in``: argument positions in each of which the function is linear, so
      a zero there makes the result zero (optimize/simplify_zeros.py);
    * ``allocating``: its result is a fresh array nothing else refers to
      (optimize/accumulate_in_place.py may then write into it);
    * ``pure``: no effect but its result, so an unused call may be dropped
      (optimize/remove_dead_code.py);
    * ``differentiable``: False when its result never carries a derivative;
    * ``constraints``: static checks of a call (see ``constraint``);
    * ``returned_parts(**constants)``: for a factorization returning some parts of its
      full result as its keywords say (scipy.linalg.eigh's eigvals_only), the indices of
      the parts a call returns, from its constant arguments; None: every part (the adjoint
      template's statements made from the others' zero adjoints alone are dropped:
      transform/templates.py, absent_dropped).
    """

    obj: object
    adjoint: Template | None = None
    tangent: Template | None = None
    shape_rule: object = None
    specializer: object = None
    linear_in: tuple = ()
    allocating: bool = False
    pure: bool = True
    differentiable: bool = True
    constraints: list = field(default_factory=list)
    returned_parts: object = None

    @property
    def name(self) -> str:
        return describe(self.obj)


_REGISTRY: dict = {}
_templates_loaded = False


def _key(obj):
    try:
        hash(obj)
        return obj
    except TypeError:
        return ("id", id(obj))


def _entry(obj) -> Primitive:
    key = _key(obj)
    entry = _REGISTRY.get(key)
    if entry is None:
        entry = _REGISTRY[key] = Primitive(obj)
    return entry


def lookup(obj) -> Primitive | None:
    """The registered primitive for ``obj``, or None. Loads the built-in templates first.

    (Asked for every call by the analyses and passes: the key ``_key`` gives, without its
    call for the hashable objects nearly every callee is.)"""
    if not _templates_loaded:
        load_templates()
    try:
        return _REGISTRY.get(obj)
    except TypeError:  # unhashable (keyed by its id), or a comparison that raised
        pass
    try:
        return _REGISTRY.get(_key(obj))
    except TypeError:
        return None


def registered(*, load: bool = True) -> list[Primitive]:
    """Every registered primitive (built-in templates loaded first, unless ``load=False``:
    then those registered so far)."""
    if load:
        load_templates()
    return list(_REGISTRY.values())


def adjoint(*primitives):
    """Register the decorated function as the adjoint template of each primitive."""
    return _template_decorator("adjoint", primitives)


def tangent(*primitives):
    """Register the decorated function as the tangent template of each primitive."""
    return _template_decorator("tangent", primitives)


def set_template(primitive, template: Template) -> None:
    """Make ``template`` the adjoint or tangent (its kind) of ``primitive``."""
    setattr(_entry(primitive), template.kind, template)


def _template_decorator(kind, primitives):
    if not primitives:
        raise TemplateError("@%s(...) needs the primitive(s) the template is for" % kind)

    def register(function):
        template = Template(function, kind)
        for primitive in primitives:
            setattr(_entry(primitive), kind, template)
        return function

    return register


def nondifferentiable(*functions):
    """Declare functions whose results carry no gradient (argmax, shapes, comparisons, ...).

    Usable as ``nondifferentiable(f, g)`` or as a decorator ``@nondifferentiable``.
    """
    for function in functions:
        _entry(function).differentiable = False
    return functions[0] if len(functions) == 1 else None


def stop_gradient(x):
    """Return ``x`` unchanged; no gradient flows through it."""
    return x


def constraint(check, *primitives):
    """Attach a static check to each primitive, run when srcad differentiates a call to it.

    ``check(arguments, carries, resolve)`` receives the call's arguments by the
    template's parameter names (gast expressions; omitted ones are the template's
    defaults, as constants), ``carries(expression)``, which tells whether an argument
    may carry a derivative, and ``resolve(expression)``, the object a static
    reference means (or analysis.operations.UNRESOLVED); it returns None, or
    ``(why, what to do)`` when srcad cannot
    differentiate the call: srcad then raises UnsupportedOperationError at the call,
    instead of pasting a template that would give a wrong derivative.
    """
    for primitive in primitives:
        _entry(primitive).constraints.append(check)


def shape_rule(rule, *primitives):
    """Attach a shape rule (see analysis/shapes.py) to each primitive."""
    for primitive in primitives:
        _entry(primitive).shape_rule = rule


def specializer(rule, *primitives):
    """Attach a specializer (see optimize/specialize_runtime_calls.py) to each primitive."""
    for primitive in primitives:
        _entry(primitive).specializer = rule


def facts(*primitives, linear_in=None, allocating=None, pure=None, returned_parts=None):
    """Record what the optimizer (and the transform) may assume about each primitive (see
    ``Primitive``)."""
    for primitive in primitives:
        entry = _entry(primitive)
        if returned_parts is not None:
            entry.returned_parts = returned_parts
        if linear_in is not None:
            entry.linear_in = tuple(linear_in)
        if allocating is not None:
            entry.allocating = allocating
        if pure is not None:
            entry.pure = pure


def fact(obj, name, default=None):
    """One fact of ``obj``'s record (``linear_in``, ``allocating``...), or ``default``."""
    entry = lookup(obj)
    return default if entry is None else getattr(entry, name)


def load_templates() -> None:
    """Import every module of the srcad.templates package once (they register themselves)."""
    global _templates_loaded
    if _templates_loaded:
        return
    _templates_loaded = True
    package = importlib.import_module("srcad.templates")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        importlib.import_module("srcad.templates." + info.name)


def describe(obj) -> str:
    """A readable dotted name for a function object (``numpy.sin``, ``math.exp``)."""
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        return repr(obj)
    owner = _public_owner(obj)
    if owner is not None:  # scipy.stats.norm.logpdf, scipy.special.gammaln
        return "%s.%s" % (owner, getattr(obj, "__name__", name))
    if isinstance(obj, type(abs)) and not module:
        return name
    if module in ("builtins", ""):
        return name
    if module.startswith("numpy"):
        module = _public_numpy_module(obj, module, name)
    elif "._" in module:  # scipy.special._logsumexp.logsumexp -> scipy.special.logsumexp
        module = _public_module(obj, module, name)
    return "%s.%s" % (module, name)


def _public_owner(obj):
    """Where a library's ufunc or bound method is found under a public name: the module of
    a SciPy ufunc (which has none of its own), ``module.object`` for a method of a
    module-level object (``scipy.stats.norm``). None for anything else."""
    import sys
    import types

    import numpy

    if isinstance(obj, numpy.ufunc):
        if getattr(numpy, obj.__name__, None) is obj:
            return None
        special = sys.modules.get("scipy.special")
        return "scipy.special" if getattr(special, obj.__name__, None) is obj else None
    if not isinstance(obj, types.MethodType) or isinstance(obj.__self__, type):
        return None
    parts = (type(obj.__self__).__module__ or "").split(".")
    for end in range(1, len(parts)):
        if parts[end - 1].startswith("_"):
            break
        namespace = sys.modules.get(".".join(parts[:end]))
        for attribute, value in vars(namespace).items() if namespace is not None else ():
            if value is obj.__self__ and not attribute.startswith("_"):
                return "%s.%s" % (".".join(parts[:end]), attribute)
    return None


def _public_numpy_module(obj, module, name):
    """The shortest public numpy module path under which ``obj`` is found."""
    import numpy

    parts = [p for p in module.split(".") if not p.startswith("_")]
    candidates = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for candidate in candidates:
        namespace = numpy
        for part in candidate.split(".")[1:]:
            namespace = getattr(namespace, part, None)
        if namespace is not None and getattr(namespace, name.split(".")[-1], None) is obj:
            return candidate
    return "numpy"


def _public_module(obj, module, name):
    """The shortest public path of an imported package under which ``obj`` is found."""
    import sys

    parts = module.split(".")
    for end in range(1, len(parts)):
        if parts[end - 1].startswith("_"):
            break
        namespace = sys.modules.get(".".join(parts[:end]))
        if namespace is not None and getattr(namespace, name, None) is obj:
            return ".".join(parts[:end])
    return module


def _parse_template_body(template):
    function, kind = template.function, template.kind
    if template.source is not None:
        lines, first_line = template.source.splitlines(keepends=True), 1
    else:
        lines, first_line = inspect.getsourcelines(function.__code__)
    tree = gast.parse(textwrap.dedent("".join(lines))).body[0]
    indent = len(lines[0]) - len(lines[0].lstrip())
    body = [s for s in tree.body if not _is_docstring(s)]
    for statement in body:
        line = lines[statement.lineno - 1] if statement.lineno <= len(lines) else ""
        where = Location(function.__code__.co_filename, first_line + statement.lineno - 1,
                         statement.col_offset + indent, line)
        _check_template_statement(statement, function, kind, where)
    return body


def _is_docstring(statement):
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant)


def is_derivative_ref(node) -> bool:
    """True for the template notation ``d[name]``."""
    return (
        isinstance(node, gast.Subscript)
        and isinstance(node.value, gast.Name)
        and node.value.id == "d"
        and isinstance(node.slice, gast.Name)
    )


def _check_template_statement(statement, function, kind, location):
    if isinstance(statement, gast.AugAssign):
        if kind == "adjoint" and is_derivative_ref(statement.target) and isinstance(
            statement.op, (gast.Add, gast.Sub)
        ):
            return
    elif isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, gast.Name) and target.id != "d":
            return
        if kind == "tangent" and is_derivative_ref(target):
            return
    allowed = "d[x] += ..., d[x] -= ..." if kind == "adjoint" else "d[y] = ..."
    raise TemplateError(
        "%s template %s has a statement srcad cannot paste" % (kind, function.__name__),
        location,
        hint="Template bodies are made of `%s` and `temporary = ...` statements." % allowed,
    )
