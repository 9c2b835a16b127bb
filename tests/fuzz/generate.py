"""Random, valid, deterministic Python/NumPy programs for differential testing of srcad.

``generate(seed)`` returns a :class:`Program`: the text of a module defining ``f`` (and
perhaps helpers), the arguments to call it with, and which of them to differentiate. The
same seed gives the same text and the same arguments (``random.Random`` and NumPy's
``default_rng`` are seeded with the integer itself, never with Python's salted ``hash``).

What the programs contain, all within what srcad's README says is supported: float scalars
and arrays of shapes (2,), (3,), (2, 3), (3, 2); lists, tuples and dicts (constant string
keys) as locals and as parameters; data-dependent ``if``/``elif``/``else`` and conditional
expressions; ``for`` over ``range``, arrays, lists, ``enumerate``, ``zip``, ``reversed``;
``while``; ``break``/``continue``/early ``return``/loop ``else``; nested loops; module-level
helpers (defaults, keyword calls, tuple results, recursion), nested defs and lambdas
assigned to names (closures), f itself now and then a module-level lambda calling the def;
element and slice updates (``y[i] = v``, ``y[i] += v``,
nested ``y[i][j] = v`` into matrices and lists of arrays),
``append``/``pop``; ``.T``/``reshape`` of expressions; negative constants and powers;
comprehensions: generator expressions and list comprehensions given to ``sum``, ``max``,
``min``, ``tuple``, ``list`` and ``np.array``, with two clauses, ``if`` conditions and
unpacking targets (``a, b in zip(...)``, ``k, (a, b) in enumerate(zip(...))``,
``a, b in zip(*[...])``, ``first, *rest in rows``), list and dict comprehensions assigned to
names; loops ``for a, b in zip(*[u, v])`` and ``for first, *rest in rows``;
calls resolved by value (a NumPy function as an argument of
f, functions passed to a helper, a default callable, a method and ``__call__`` of a small
class's global object and a list of them, ``functools.partial``, ``sum(map(f, v))`` and
``sum(list(map(f, v)))``, a starred literal); a ``functools.partial`` of a helper made in
f; dicts copied with an entry changed (``{**d, "w": v}``); string methods of dict keys;
NumPy/SciPy/math primitives with arguments inside their domains (tests/fuzz/library.py:
expressions, and statements unpacking eigh, slogdet and splits).

Programs are numerically tame so finite differences mean something: values pass through
bounded functions (tanh, sin, cos, exp of a sine...), denominators are kept away from 0,
logs and square roots see positive values. Programs never write into an array another name
may share (that would mutate the caller's arguments, or depend on aliasing, which README
lists as unsupported): in-place updates only touch arrays the program made itself and never
stored elsewhere.
"""

from __future__ import annotations

import ast
import collections
import random
from dataclasses import dataclass, field

import numpy as np

try:
    from tests.fuzz.library import SCIPY_IMPORTS, LibraryForms
except ModuleNotFoundError:  # run as a script: python tests/fuzz/generate.py SEED
    from library import SCIPY_IMPORTS, LibraryForms

SHAPES = ((), (2,), (3,), (2, 3), (3, 2))
SCALAR = ()


# ------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Arr:
    """A float scalar (shape ``()``) or a float array of this shape."""

    shape: tuple


@dataclass(frozen=True)
class Int:
    """A Python int in ``range(bound)``."""

    bound: int


@dataclass
class ListT:
    """A list of ``elem``; at least ``min_len`` long here. ``local``: the program made it."""

    elem: Arr
    min_len: int
    local: bool
    owned: bool = False  # every element is an array the program made: writable in place


@dataclass(frozen=True)
class TupleT:
    elems: tuple


@dataclass(frozen=True)
class DictT:
    """A dict with constant string keys, or (``attribute``) a namedtuple read as ``p.key``."""

    items: tuple  # ((key, Arr), ...)
    local: bool
    attribute: bool = False

    def read(self, name: str, key: str) -> str:
        return "%s.%s" % (name, key) if self.attribute else '%s["%s"]' % (name, key)


@dataclass(frozen=True)
class Fn:
    """An argument of f that is a NumPy elementwise function (np.tanh...): a call through it
    is resolved by value (srcad/normalize/calls_by_value.py)."""


# Module-level code the by-value calls use: a small class with a method and a __call__, a
# function taking a function, one with a default callable, a global object and a partial.
BY_VALUE = '''class Scaler:
    def __init__(self, scale, activation):
        self.scale = scale
        self.activation = activation

    def apply(self, u):
        return self.activation(u) * self.scale

    def __call__(self, u):
        return self.apply(u) + 0.5 * u


def apply_fn(fn, u):
    return fn(u)


def scaled(c):
    return lambda u: c * np.tanh(u)


def activate(u, nonlinearity=np.tanh):
    return nonlinearity(u) + 0.3 * u


def chain(u, stages):
    for stage in stages:
        u = stage(u)
    return u


scaler = Scaler(0.7, np.sin)
softer = functools.partial(activate, nonlinearity=np.arctan)
scalers = [Scaler(0.6, np.tanh), Scaler(0.9, np.tanh)]
'''


@dataclass(frozen=True)
class FuncT:
    """A callable the program defined: parameter names and types, defaults, result type."""

    params: tuple  # ((name, type), ...)
    defaults: tuple  # ((name, source text), ...) for trailing parameters
    result: object
    recursive: bool = False


# ------------------------------------------------------------------------ program


@dataclass
class Program:
    seed: int
    source: str
    function_name: str
    arguments: list  # the values f is called with (fresh copies: see make_arguments)
    argument_source: str  # Python text that rebuilds ``arguments``
    wrt: object  # int or tuple of ints, as given to srcad
    parameter_kinds: list = field(default_factory=list)
    # it has a matrix with a double eigenvalue (library.REPEATED_SPECTRUM): nan second
    # derivatives there are a limitation README states, not a wrong result
    repeated_spectra: bool = False

    def make_arguments(self):
        """A fresh deep copy of the arguments (checks mutate nothing, but trust no one)."""
        namespace = {"np": np, "Layer": Layer}
        exec(self.argument_source, namespace)
        return namespace["arguments"]

    @property
    def wrt_positions(self):
        return [self.wrt] if isinstance(self.wrt, int) else list(self.wrt)


# ------------------------------------------------------------------------ context


@dataclass
class Context:
    scope: dict  # name -> type
    owned: set  # arrays this program made and never shared: may be updated in place
    readonly: set  # names of an enclosing function: read, never assigned
    in_loop: bool
    depth: int
    result: object  # the type a `return` here must give, or None where return is not allowed
    written: set = field(default_factory=set)  # arrays written in place in this block
    nested: bool = False  # in the body of a nested def or lambda

    def child(self, **changes):
        scope = {name: (ListT(t.elem, t.min_len, t.local, t.owned) if isinstance(t, ListT)
                        else t)
                 for name, t in self.scope.items()}
        fields = dict(scope=scope, owned=set(self.owned), readonly=set(self.readonly),
                      in_loop=self.in_loop, depth=self.depth + 1, result=self.result,
                      nested=self.nested)
        fields.update(changes)
        return Context(**fields)

    def merge_from(self, inner: Context):
        """After a block: lists may be shorter, arrays stored elsewhere are no longer owned."""
        for name, t in self.scope.items():
            if isinstance(t, ListT) and isinstance(inner.scope.get(name), ListT):
                t.min_len = min(t.min_len, inner.scope[name].min_len)
                t.owned = t.owned and inner.scope[name].owned
        self.owned &= inner.owned
        self.written |= inner.written


# NumPy functions and methods whose result may share its first argument's memory
VIEW_FUNCTIONS = {"reshape", "ravel", "transpose", "squeeze", "expand_dims", "flip", "fliplr",
                  "flipud", "rot90", "swapaxes", "moveaxis", "rollaxis", "diagonal",
                  "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "split",
                  "array_split", "hsplit", "vsplit", "asarray", "real", "imag", "diag"}
VIEW_METHODS = {"reshape", "ravel", "transpose", "squeeze", "swapaxes", "diagonal", "view"}
# views NumPy makes read-only: never written into (the name below is no variable: a value
# that may share it is never owned); np.diag of a matrix is its np.diagonal
READ_ONLY_VIEWS = {"diagonal", "broadcast_to", "diag"}
READ_ONLY = "<read-only view>"


def alias_sources(text: str) -> set:
    """Names whose memory the value of expression ``text`` may share.

    Arithmetic and NumPy functions make new arrays; names, subscripts (views), ``.T`` and
    ``.reshape`` may share; calls of the program's own functions may return an argument.
    """
    def walk(node):
        if isinstance(node, ast.Name):
            return {node.id}
        if isinstance(node, ast.Subscript):
            return walk(node.value)
        if isinstance(node, ast.Attribute):
            return walk(node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            return set().union(*(walk(e) for e in node.elts)) if node.elts else set()
        if isinstance(node, ast.IfExp):
            return walk(node.body) | walk(node.orelse)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id == "np":
                if func.attr in VIEW_FUNCTIONS and node.args:  # may return a view
                    read_only = {READ_ONLY} if func.attr in READ_ONLY_VIEWS else set()
                    return walk(node.args[0]) | read_only
                return set()
            if isinstance(func, ast.Attribute) and func.attr in VIEW_METHODS:
                read_only = {READ_ONLY} if func.attr in READ_ONLY_VIEWS else set()
                return walk(func.value) | read_only
            if isinstance(func, ast.Name) and func.id == "sum":
                return set()
            names = set()
            for arg in list(node.args) + [k.value for k in node.keywords]:
                names |= walk(arg)
            return names
        return set()

    return walk(ast.parse(text, mode="eval").body)


# the namedtuple of namedtuple parameters: defined in the program's text (so a saved script
# runs alone) and here, one class for every copy of the arguments the checks make
LAYER = 'import collections\n\nLayer = collections.namedtuple("Layer", ["w", "b"])\n'
Layer = collections.namedtuple("Layer", ["w", "b"])


def _enclosed(text: str) -> bool:
    """Whether ``text`` is one parenthesized group, like ``(a + b)`` but not ``(a) + (b)``."""
    if not text.startswith("("):
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index == len(text) - 1
    return False


def _const(value: float) -> str:
    text = repr(round(value, 2))
    return "(%s)" % text if text.startswith("-") else text


# ---------------------------------------------------------------------- generator


class Generator(LibraryForms):
    """Builds one program from one seed; see the module docstring for what it contains."""

    MAX_DEPTH = 2

    SIZES = {  # f's statements, nesting depth, module-level helpers
        "small": ((1, 4), 2, (0, 0, 0, 1)),
        "medium": ((2, 6), 2, (0, 0, 1, 1, 2)),
        "large": ((4, 8), 3, (0, 1, 1, 2)),
    }

    # what ``exclude`` may name: for exploring past a known, unfixed failure only; the
    # pytest batch and the reported long runs exclude nothing
    # "library" leaves out the NumPy/SciPy primitives of tests/fuzz/library.py: the programs
    # are then exactly the ones the generator made before it had them
    EXCLUDABLE = ("container-arguments", "by-value", "library")

    def __init__(self, seed: int, size: str = "medium", exclude=()):
        self.seed = seed
        self.exclude = frozenset(exclude)
        assert self.exclude <= set(self.EXCLUDABLE), exclude
        self.statements, self.MAX_DEPTH, self.helper_counts = self.SIZES[size]
        self.rng = random.Random(seed)
        self.counters: dict = {}
        self.helper_sources: list = []
        self.helpers: dict = {}  # name -> FuncT of module-level helpers
        self.uses_by_value = False  # a call resolved by value: BY_VALUE goes in the module

    # -------------------------------------------------------------- basics

    @staticmethod
    def array_type(shape):
        return Arr(shape)

    def fresh(self, stem: str) -> str:
        number = self.counters.get(stem, 0) + 1
        self.counters[stem] = number
        return "%s%d" % (stem, number)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options, weights=None):
        return self.rng.choices(options, weights=weights)[0]

    def constant(self, low=-1.5, high=1.5) -> str:
        return _const(self.rng.uniform(low, high))

    def positive_constant(self) -> str:
        return repr(round(self.rng.uniform(1.3, 2.5), 2))

    def array_constant(self, shape) -> str:
        values = np.round(np.array([self.rng.uniform(-1.0, 1.0)
                                    for _ in range(int(np.prod(shape)))]), 2).reshape(shape)
        if self.chance(0.3):
            return "(np.ones(%s) * %s)" % (self.shape_text(shape), self.constant())
        return "np.array(%s)" % (values.tolist(),)

    @staticmethod
    def shape_text(shape) -> str:
        return str(shape[0]) if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))

    # -------------------------------------------------------------- leaves

    def readable(self, ctx: Context, shape) -> list:
        """Expressions of this shape that read a name: variables and container elements."""
        out = []
        for name, t in ctx.scope.items():
            if isinstance(t, Arr) and t.shape == shape:
                out += [name] * 3
            elif isinstance(t, ListT) and isinstance(t.elem, TupleT):
                if t.min_len >= 1:
                    index = self.rng.choice([0, t.min_len - 1, -1])
                    out += ["%s[%d][%d]" % (name, index, k)
                            for k, e in enumerate(t.elem.elems) if e.shape == shape]
            elif isinstance(t, ListT) and t.elem.shape == shape and t.min_len >= 1:
                index = self.rng.choice([0, t.min_len - 1, -1])
                out.append("%s[%d]" % (name, index))
            elif isinstance(t, TupleT):
                for k, e in enumerate(t.elems):
                    if e.shape == shape:
                        out.append("%s[%d]" % (name, k))
            elif isinstance(t, DictT):
                for key, e in t.items:
                    if e.shape == shape:
                        out.append(t.read(name, key))
        return out

    def int_names(self, ctx: Context) -> list:
        return [name for name, t in ctx.scope.items() if isinstance(t, Int)]

    def index_text(self, ctx: Context, size: int) -> str:
        """An int index valid for a dimension of ``size``: a constant or an int variable."""
        names = self.int_names(ctx)
        if names and self.chance(0.5):
            name = self.rng.choice(names)
            bound = ctx.scope[name].bound
            return name if bound <= size else "%s %% %d" % (name, size)
        return str(self.rng.randrange(-size, size))

    def leaf(self, ctx: Context, shape) -> str:
        names = self.readable(ctx, shape)
        if names and self.chance(0.9):
            return self.rng.choice(names)
        if self.chance(0.75):
            view = self.view_of_variable(ctx, shape)
            if view is not None:
                return view
        if shape == SCALAR:
            return self.constant()
        return self.array_constant(shape)

    def view_of_variable(self, ctx: Context, shape):
        """A cheap expression of ``shape`` reading a variable of another shape, if any."""
        forms = {
            SCALAR: {(3,): ["%s[{3}]", "np.sum(%s)"], (2,): ["%s[{2}]", "np.sum(%s)"],
                     (2, 3): ["%s[{2}, {3}]", "np.sum(%s)"], (3, 2): ["np.mean(%s)"]},
            (2,): {(3,): ["%s[1:]", "%s[:2]"], (2, 3): ["%s[:, {3}]"], (3, 2): ["%s[{3}]"]},
            (3,): {(2, 3): ["%s[{2}]"], (3, 2): ["%s[:, {2}]"], SCALAR: ["%s * np.ones(3)"],
                   (2,): ["np.dot(%s, np.ones((2, 3)))"]},
            (2, 3): {(3, 2): ["%s.T"], (3,): ["%s * np.ones((2, 3))"]},
            (3, 2): {(2, 3): ["%s.T", "%s.reshape(3, 2)"]},
        }[shape]
        options = [(source, form) for other, templates in forms.items()
                   for source in self.readable(ctx, other) for form in templates]
        if not options:
            return None
        source, form = self.rng.choice(options)
        text = form % self.wrap(source)
        for size in (2, 3):
            while "{%d}" % size in text:
                text = text.replace("{%d}" % size, self.index_text(ctx, size), 1)
        return text

    # -------------------------------------------------------------- expressions

    def expr(self, ctx: Context, shape, depth: int = 2) -> str:
        if depth <= 0 or self.chance(0.35):
            if self.chance(0.25):
                return self.converted(ctx, shape, 0)
            return self.leaf(ctx, shape)
        kind = self.pick(["unary", "binary", "convert", "power", "special", "kinked", "math",
                          "library"],
                         [3, 4, 2, 1, 2, 1, 1 if shape == SCALAR else 0,
                          0 if "library" in self.exclude else 5])
        if kind == "unary":
            return self.squash(self.expr(ctx, shape, depth - 1))
        if kind == "binary":
            return self.binary(ctx, shape, depth)
        if kind == "convert":
            return self.converted(ctx, shape, depth - 1)
        if kind == "power":
            return self.power(ctx, shape, depth)
        if kind == "kinked":
            return self.kinked(ctx, shape, depth)
        if kind == "math":
            return self.pick(["math.sin(%s)", "math.exp(0.5 * math.tanh(%s))", "math.atan(%s)",
                              "math.sqrt(1.0 + %s ** 2)"]) % self.wrap(
                self.expr(ctx, SCALAR, depth - 1))
        if kind == "library":
            return self.library(ctx, shape, depth)
        return self.special(ctx, shape, depth)

    def kinked(self, ctx: Context, shape, depth: int) -> str:
        """Functions with a kink (abs, max, min, maximum, minimum): the checker traces which
        side of it each evaluation is on, so a kink inside a finite difference is seen."""
        inner = self.wrap(self.expr(ctx, shape, depth - 1))
        forms = ["np.abs(%s)" % inner, "np.maximum(%s, %s)" % (inner, self.constant(-0.5, 0.5)),
                 "np.minimum(%s, %s)" % (inner, self.wrap(self.expr(ctx, shape, depth - 1)))]
        if shape == SCALAR:
            other = self.pick([(3,), (2, 3), (2,)])
            array = self.wrap(self.expr(ctx, other, depth - 1))
            forms += ["np.max(%s)" % array, "np.min(%s)" % array,
                      "max(%s, %s)" % (inner, self.wrap(self.expr(ctx, SCALAR, depth - 1))),
                      "np.linalg.norm(%s)" % self.wrap(self.expr(ctx, (3,), depth - 1))]
        elif shape == (3,):
            forms.append("np.max(%s, axis=0)" % self.wrap(self.expr(ctx, (2, 3), depth - 1)))
        elif shape == (2,):
            forms.append("np.min(%s, axis=1)" % self.wrap(self.expr(ctx, (2, 3), depth - 1)))
        return self.rng.choice(forms)

    def squash(self, inner: str) -> str:
        """A bounded function of ``inner`` (a new array)."""
        form = self.pick([
            "np.sin(%s)", "np.cos(%s)", "np.tanh(%s)", "np.exp(0.5 * np.sin(%s))",
            "np.log(1.5 + np.cos(%s))", "np.sqrt(1.0 + %s ** 2)", "(2.0 + np.sin(%s)) ** -1",
            "np.tanh(%s) ** 2", "1.0 / (1.5 + np.tanh(%s))", "np.sin(%s) * 0.5",
            "np.square(np.tanh(%s))", "np.arctan(%s)", "np.cbrt(1.5 + np.sin(%s))",
            "np.reciprocal(2.0 + np.cos(%s))", "np.hypot(np.sin(%s), 0.5)",
        ], [3, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        return form % self.wrap(inner)

    @staticmethod
    def wrap(text: str) -> str:
        """``text`` as an operand: parenthesized unless it is already atomic."""
        node = ast.parse(text, mode="eval").body
        atomic = isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute))
        if isinstance(node, ast.Constant) and not text.startswith("-"):
            atomic = True
        return text if atomic or _enclosed(text) else "(%s)" % text

    def binary(self, ctx: Context, shape, depth: int) -> str:
        left = self.expr(ctx, shape, depth - 1)
        other = shape if shape == SCALAR or self.chance(0.6) else SCALAR
        if shape == (2, 3) and other == SCALAR and self.chance(0.4):
            other = (3,)  # broadcasting a row
        right = self.expr(ctx, other, depth - 1)
        if self.chance(0.5):
            left, right = right, left
        op = self.pick(["+", "-", "*", "/"], [3, 2, 3, 1])
        if op == "/":
            denominator = self.pick(["(1.5 + np.cos(%s))", "(1.0 + %s ** 2)",
                                     "(2.0 + np.tanh(%s))"]) % self.wrap(right)
            return "%s / %s" % (self.wrap(left), denominator)
        return "%s %s %s" % (self.wrap(left), op, self.wrap(right))

    def power(self, ctx: Context, shape, depth: int) -> str:
        base = self.expr(ctx, shape, depth - 1)
        form = self.pick(["pow2", "pow3", "neg", "half", "signed"], [3, 1, 2, 1, 2])
        if form == "pow2":
            return "%s ** 2" % self.wrap(base)
        if form == "pow3":
            return "np.tanh(%s) ** 3" % self.wrap(base)
        if form == "neg":
            return "(%s + np.sin(%s)) ** -1" % (self.positive_constant(), self.wrap(base))
        if form == "half":
            return "(%s + np.cos(%s)) ** 0.5" % (self.positive_constant(), self.wrap(base))
        ints = self.int_names(ctx)
        exponent = self.rng.choice(ints) if ints and self.chance(0.7) else str(
            self.rng.randint(1, 4))
        signed = "(%s) ** %s" % (self.pick(["-0.9", "-0.8", "-1.1", "0.7", "-0.5"]), exponent)
        return "%s * %s" % (signed, self.wrap(base))

    def converted(self, ctx: Context, shape, depth: int) -> str:
        """An expression of another shape brought to ``shape``."""
        e = lambda s: self.wrap(self.expr(ctx, s, depth))  # noqa: E731
        if shape == SCALAR:
            options = [
                lambda: "np.sum(%s)" % e(self.pick([(2,), (3,), (2, 3), (3, 2)])),
                lambda: "np.mean(%s)" % e(self.pick([(3,), (2, 3)])),
                lambda: "np.dot(%s, %s)" % (e((3,)), e((3,))),
                lambda: "%s[%s]" % (self.wrap(self.leaf(ctx, (3,))), self.index_text(ctx, 3)),
                lambda: "%s[%s, %s]" % (self.wrap(self.leaf(ctx, (2, 3))),
                                        self.index_text(ctx, 2), self.index_text(ctx, 3)),
                lambda: "%s[%s]" % (e((2,)), self.index_text(ctx, 2)),
            ]
        elif shape == (2,):
            options = [
                lambda: "%s[1:]" % e((3,)),
                lambda: "%s[:2]" % e((3,)),
                lambda: "%s[:, %s]" % (e((2, 3)), self.index_text(ctx, 3)),
                lambda: "np.dot(%s, %s)" % (e((2, 3)), e((3,))),
                lambda: "np.sum(%s, axis=1)" % e((2, 3)),
                lambda: "%s @ %s" % (e((2, 3)), e((3,))),
                lambda: "np.mean(%s, axis=0)" % e((3, 2)),
                lambda: "%s[%s, 1:]" % (self.wrap(self.leaf(ctx, (2, 3))),
                                        self.index_text(ctx, 2)),
            ]
        elif shape == (3,):
            options = [
                lambda: "%s[%s]" % (self.wrap(self.leaf(ctx, (2, 3))), self.index_text(ctx, 2)),
                lambda: "np.sum(%s, axis=0)" % e((2, 3)),
                lambda: "np.dot(%s, %s)" % (e((2,)), e((2, 3))),
                lambda: "%s.reshape(6)[1:4]" % e((2, 3)),
                lambda: "%s[:, %s]" % (e((3, 2)), self.index_text(ctx, 2)),
                lambda: "np.array([%s, %s, %s])" % (e(SCALAR), e(SCALAR), e(SCALAR)),
                lambda: "%s @ %s" % (e((2,)), e((2, 3))),
                lambda: "np.ravel(%s)[2:5]" % e((2, 3)),
            ]
        elif shape == (2, 3):
            options = [
                lambda: "%s.T" % e((3, 2)),
                lambda: "%s.reshape(2, 3)" % e((3, 2)),
                lambda: "%s.reshape(2, 1) * %s" % (e((2,)), e((3,))),
                lambda: "%s.reshape(1, 3) + %s.reshape(2, 1)" % (e((3,)), e((2,))),
                lambda: "%s.reshape(2, 3)" % e((3, 2)),
                lambda: "np.outer(%s, %s)" % (e((2,)), e((3,))),
                lambda: "np.transpose(%s)" % e((3, 2)),
            ]
        else:  # (3, 2)
            options = [
                lambda: "%s.T" % e((2, 3)),
                lambda: "%s.reshape(3, 2)" % e((2, 3)),
                lambda: "%s.T" % self.wrap(self.leaf(ctx, (2, 3))),
                lambda: "np.reshape(%s, (3, 2))" % e((2, 3)),
            ]
        return self.rng.choice(options)()

    def condition(self, ctx: Context, depth: int = 1) -> str:
        """A scalar, data-dependent test."""
        def comparison():
            for _ in range(4):  # a test that reads no variable decides nothing
                left = self.expr(ctx, SCALAR, depth)
                if self.reads_variable(ctx, left):
                    break
            form = self.pick(["const", "expr", "chain"], [3, 2, 1])
            op = self.pick([">", "<", ">=", "<="])
            if form == "const":
                return "%s %s %s" % (self.wrap(left), op, self.constant(-0.5, 0.5))
            if form == "expr":
                return "%s %s %s" % (self.wrap(left), op,
                                     self.wrap(self.expr(ctx, SCALAR, depth)))
            low = self.rng.uniform(-1.0, 0.0)
            return "%s < %s < %s" % (_const(low), self.wrap(left), _const(low + 1.2))
        kind = self.pick(["one", "and", "or", "not"], [6, 1, 1, 1])
        if kind == "one":
            return comparison()
        if kind == "not":
            return "not %s" % self.wrap(comparison())
        return "%s %s %s" % (self.wrap(comparison()), kind, self.wrap(comparison()))

    @staticmethod
    def reads_variable(ctx: Context, text: str) -> bool:
        names = {node.id for node in ast.walk(ast.parse(text, mode="eval"))
                 if isinstance(node, ast.Name)}
        return bool(names & {n for n, t in ctx.scope.items() if not isinstance(t, FuncT)})

    def special(self, ctx: Context, shape, depth: int) -> str:
        """Conditional expressions, calls of the program's functions, summed genexps."""
        callables = [name for name, t in list(ctx.scope.items()) + list(self.helpers.items())
                     if isinstance(t, FuncT) and t.result == Arr(shape)]
        options = ["ifexp"]
        if callables:
            options += ["call"] * 3
        if shape == SCALAR:
            options += ["genexp"] * 2
        if "by-value" not in self.exclude:
            options += ["by_value"]
        kind = self.rng.choice(options)
        if kind == "by_value":
            return self.by_value_call(ctx, shape, depth)
        if kind == "ifexp":
            return "%s if %s else %s" % (self.wrap(self.expr(ctx, shape, depth - 1)),
                                         self.condition(ctx, 0),
                                         self.wrap(self.expr(ctx, shape, depth - 1)))
        if kind == "call":
            name = self.rng.choice(callables)
            return self.call(ctx, name, self.helpers.get(name) or ctx.scope[name], depth)
        return self.genexp(ctx, depth)

    def by_value_call(self, ctx: Context, shape, depth: int) -> str:
        """A call srcad resolves by value: a function passed (a NumPy function, a user
        function, an object with __call__, a partial, f's own function argument), a default
        callable, a method of a global object, map, a starred literal."""
        self.uses_by_value = True
        inner = self.wrap(self.expr(ctx, shape, depth - 1))
        functions = ["np.sin", "np.tanh", "activate", "scaler", "softer", "scaler.apply"]
        functions += [name for name, t in ctx.scope.items() if isinstance(t, Fn)]
        function = self.rng.choice(functions)
        plain = function if function not in ("activate", "softer") else "np.cos"
        forms = [
            lambda: "apply_fn(%s, %s)" % (function, inner),
            lambda: "activate(%s)" % inner,
            # (activate passed into activate would inline it into itself: a recursion)
            lambda: "activate(%s, %s)" % (inner, plain),
            lambda: "activate(%s, nonlinearity=%s)" % (inner, plain),
            lambda: "scaler.apply(%s)" % inner,
            lambda: "scaler(%s)" % inner,
            lambda: "softer(%s)" % inner,
            lambda: "apply_fn(*(%s, %s))" % (function, inner),
            lambda: "chain(%s, scalers)" % inner,
            # a lambda passed, and one a builder returns, called where it is made
            lambda: "apply_fn(lambda u: np.sin(u) * %s, %s)" % (self.constant(0.3, 1.5), inner),
            lambda: "scaled(%s)(%s)" % (self.constant(0.3, 1.5), inner),
            lambda: "(lambda u, c=%s: np.tanh(u) * c)(%s)" % (self.constant(0.3, 1.5), inner),
        ]
        if function not in ("scaler", "softer", "activate", "scaler.apply"):
            forms.append(lambda: "%s(%s)" % (function, inner))
        if shape == SCALAR:
            vector = self.wrap(self.expr(ctx, (3,), depth - 1))
            forms.append(lambda: "sum(map(%s, %s))" % (function, vector))
            forms.append(lambda: "sum(list(map(%s, %s)))" % (function, vector))
            forms.append(lambda: "sum(map(lambda u: np.tanh(u) * 0.5, %s))" % vector)
        return self.rng.choice(forms)()

    def argument(self, ctx: Context, t, depth: int) -> str:
        if isinstance(t, Arr):
            return self.expr(ctx, t.shape, max(depth - 1, 0))
        if isinstance(t, Int):
            return str(self.rng.randrange(t.bound))
        # a container: pass a variable of that type, or build one
        matching = [name for name, u in ctx.scope.items() if self.same_container(u, t)]
        if matching and self.chance(0.7):
            return self.rng.choice(matching)
        return self.container_literal(ctx, t, max(depth - 1, 0))

    @staticmethod
    def same_container(u, t) -> bool:
        if isinstance(t, ListT):
            return isinstance(u, ListT) and u.elem == t.elem and u.min_len >= t.min_len
        if isinstance(t, TupleT):
            return isinstance(u, TupleT) and u.elems == t.elems
        if isinstance(t, DictT):
            return isinstance(u, DictT) and dict(u.items) == dict(t.items) \
                and u.attribute == t.attribute
        return False

    def container_literal(self, ctx: Context, t, depth: int) -> str:
        if isinstance(t, ListT):
            return "[%s]" % ", ".join(self.expr(ctx, t.elem.shape, depth)
                                      for _ in range(max(t.min_len, 2)))
        if isinstance(t, TupleT):
            return "(%s,)" % ", ".join(self.expr(ctx, e.shape, depth) for e in t.elems)
        return "{%s}" % ", ".join('"%s": %s' % (key, self.expr(ctx, e.shape, depth))
                                  for key, e in t.items)

    def call(self, ctx: Context, name: str, t: FuncT, depth: int) -> str:
        defaults = dict(t.defaults)
        positional, keywords = [], []
        by_keyword = False  # once one argument is skipped or named, the rest are named
        for pname, ptype in t.params:
            if pname in defaults and self.chance(0.5):
                by_keyword = True  # left to its default
                continue
            text = self.argument(ctx, ptype, depth)
            by_keyword = by_keyword or self.chance(0.25)
            if by_keyword:
                keywords.append("%s=%s" % (pname, text))
            else:
                positional.append(text)
        if keywords and self.chance(0.3):
            self.rng.shuffle(keywords)
        return "%s(%s)" % (name, ", ".join(positional + keywords))

    def genexp(self, ctx: Context, depth: int) -> str:
        variable = self.fresh("g")
        inner = ctx.child()
        source_kind = self.pick(["range", "array", "list"], [3, 2, 2])
        lists = [n for n, t in ctx.scope.items() if isinstance(t, ListT)
                 and isinstance(t.elem, Arr) and t.elem.shape in (SCALAR, (3,))]
        may_be_empty = False
        if source_kind == "list" and lists:
            name = self.rng.choice(lists)
            inner.scope[variable] = ctx.scope[name].elem
            iterable = name
            may_be_empty = ctx.scope[name].min_len == 0
        elif source_kind == "array":
            iterable = self.wrap(self.leaf(ctx, (3,)))
            inner.scope[variable] = Arr(SCALAR)
        else:
            bound = self.rng.randint(1, 3)
            iterable = "range(%d)" % bound
            inner.scope[variable] = Int(bound)
        clauses = "for %s in %s" % (variable, iterable)
        form = self.pick(["sum", "comprehension", "unpacking"], [4, 3, 2])
        if form == "unpacking":  # targets of any unpacking shape, in the comprehension
            clauses = self.unpacking_clause(ctx, inner, variable)
        elif form == "comprehension" and source_kind != "list" and self.chance(0.5):
            second = self.fresh("g")
            inner.scope[second] = Int(2)
            clauses += " for %s in range(2)" % second  # a second clause
        body = self.expr(inner, SCALAR, min(depth, 1) + (1 if self.chance(0.2) else 0))
        if variable not in body:
            body = "%s * %s" % (self.wrap(body), self.wrap(self.reduce_to_scalar(variable,
                                                                                 inner)))
        if form == "sum" or may_be_empty and form == "comprehension":
            return "sum(%s %s)" % (body, clauses)
        template = self.pick(["sum([%s %s])", "np.sum(np.array([%s %s]))", "sum(tuple(%s %s))",
                              "sum(list(%s %s))", "max(%s %s)", "min([%s %s])",
                              "np.sum(np.array([%s %s])[::-1])"], [3, 3, 2, 1, 1, 1, 1])
        if isinstance(inner.scope[variable], Int) and not template.startswith(("max", "min")) \
                and self.chance(0.4):
            clauses += " if %s != %d" % (variable, self.rng.randrange(3))  # per element
        return template % (body, clauses)

    def unpacking_clause(self, ctx: Context, inner: Context, variable: str) -> str:
        """``for`` clauses whose targets unpack: ``a, b in zip(...)``, ``k, (a, b) in
        enumerate(zip(...))``, ``a, b in zip(*[...])``, ``first, *rest in rows``; binds
        ``variable`` (a scalar) among the targets."""
        inner.scope[variable] = Arr(SCALAR)
        left, right = self.leaf(ctx, (3,)), self.leaf(ctx, (3,))
        other = self.fresh("g")
        inner.scope[other] = Arr(SCALAR)
        kind = self.pick(["zip", "enumerate_zip", "zip_star", "starred"])
        if kind == "zip":
            return "for %s, %s in zip(%s, %s)" % (variable, other, left, right)
        if kind == "enumerate_zip":
            index = self.fresh("g")
            inner.scope[index] = Int(3)
            return "for %s, (%s, %s) in enumerate(zip(%s, %s))" % (index, variable, other,
                                                                   left, right)
        if kind == "zip_star":
            return "for %s, %s in zip(*[%s, %s])" % (variable, other, left, right)
        del inner.scope[other]
        rest = self.fresh("rest")
        inner.scope[rest] = ListT(Arr(SCALAR), 2, False)
        rows = self.leaf(ctx, (2, 3))
        if self.chance(0.5):
            return "for %s, *%s in %s" % (variable, rest, rows)
        return "for *%s, %s in %s" % (rest, variable, rows)

    def reduce_to_scalar(self, name: str, ctx: Context) -> str:
        t = ctx.scope[name]
        if isinstance(t, Int):
            return "(-0.9) ** %s" % name
        if t.shape == SCALAR:
            return "np.sin(%s)" % name
        return "np.sum(np.tanh(%s))" % name

    # -------------------------------------------------------------- statements

    def block(self, ctx: Context, count: int) -> list:
        lines = []
        for _ in range(count):
            lines += self.statement(ctx)
        return lines or ["pass"]

    def statement(self, ctx: Context) -> list:
        kinds = ["assign", "update", "update", "if", "for", "while", "inplace", "list",
                 "tuple", "dict", "callable", "return", "jump", "unpack"]
        weights = [5, 4, 2, 3, 3, 1, 2, 3, 1, 1, 2, 1, 2, 0 if "library" in self.exclude else 1]
        nested = ctx.depth < self.MAX_DEPTH
        for k, kind in enumerate(kinds):
            if kind in ("if", "for", "while") and not nested:
                weights[k] = 0
            if kind == "return" and ctx.result is None:
                weights[k] = 0
            if kind == "jump" and not ctx.in_loop:
                weights[k] = 0
            if kind == "callable" and ctx.nested:
                weights[k] = 0  # no defs in defs
        kind = self.pick(kinds, weights)
        return getattr(self, "stmt_" + kind)(ctx)

    def assignable(self, ctx: Context, shape=None) -> list:
        return [name for name, t in ctx.scope.items()
                if isinstance(t, Arr) and (shape is None or t.shape == shape)
                and name not in ctx.readonly]

    def store(self, ctx: Context, name: str, t, text: str):
        """Record ``name = text``: what it may alias is no longer ownable."""
        shared = alias_sources(text)
        ctx.owned -= shared
        ctx.scope[name] = t
        if isinstance(t, Arr) and t.shape != SCALAR and not shared:
            ctx.owned.add(name)
        else:
            ctx.owned.discard(name)

    def stmt_assign(self, ctx: Context) -> list:
        shape = self.pick(SHAPES, [4, 1, 3, 2, 1])
        name = self.fresh("s" if shape == SCALAR else "v")
        text = self.expr(ctx, shape, self.rng.randint(1, 2))
        if self.chance(0.7):
            text = self.squash(text)
        self.store(ctx, name, Arr(shape), text)
        return ["%s = %s" % (name, text)]

    def stmt_update(self, ctx: Context) -> list:
        names = self.assignable(ctx)
        if not names:
            return self.stmt_assign(ctx)
        name = self.rng.choice(names)
        shape = ctx.scope[name].shape
        step = self.squash(self.expr(ctx, shape, self.rng.randint(0, 2)))
        form = self.pick(["add", "mix", "squash", "aug", "augmul"], [3, 3, 2, 2, 1])
        if form in ("aug", "augmul") and shape != SCALAR and name not in ctx.owned:
            form = "add"  # `y += v` would write into an array another name may share
        if form == "add":
            text = "%s + %s * %s" % (name, self.constant(0.2, 0.8), self.wrap(step))
        elif form == "mix":
            text = "%s * %s + %s" % (self.constant(0.3, 0.9), name, self.wrap(step))
        elif form == "squash":
            text = self.squash("%s + %s" % (name, self.wrap(step)))
        elif form == "aug":
            self.store_keep(ctx, name, step)
            return ["%s %s= %s" % (name, self.pick(["+", "-"]), step)]
        else:
            self.store_keep(ctx, name, step)
            return ["%s *= %s" % (name, self.pick(["0.9", "(-0.8)", "np.cos(%s)" % self.wrap(
                self.expr(ctx, SCALAR, 1))]))]
        self.store(ctx, name, Arr(shape), text)
        return ["%s = %s" % (name, text)]

    def store_keep(self, ctx: Context, name: str, text: str):
        """Record ``name op= text``: an in-place write for an array."""
        ctx.owned -= alias_sources(text) - {name}
        if ctx.scope[name].shape != SCALAR:
            ctx.written.add(name)

    def stmt_if(self, ctx: Context) -> list:
        lines = ["if %s:" % self.condition(ctx)]
        branches = 1 + (self.chance(0.5)) + (self.chance(0.25))
        for index in range(branches):
            inner = ctx.child()
            body = self.block(inner, self.rng.randint(1, 2))
            ctx.merge_from(inner)
            if index > 0:
                lines.append("else:" if index == branches - 1 else "elif %s:"
                             % self.condition(ctx))
            lines += ["    " + line for line in body]
        return lines

    def loop_header(self, ctx: Context, inner: Context) -> str:
        kinds = ["range", "array", "rows", "list", "enumerate", "zip", "reversed"]
        lists = [n for n, t in ctx.scope.items() if isinstance(t, ListT)]
        kinds += ["enumerate_zip", "zip_star", "starred"]
        kind = self.pick(kinds, [5, 2, 1, 2 if lists else 0, 1, 1, 1 if lists else 0, 1, 1, 1])
        if kind == "zip_star":
            first, second = self.fresh("a"), self.fresh("b")
            left, right = self.leaf(ctx, (3,)), self.leaf(ctx, (3,))
            inner.scope[first] = Arr(SCALAR)
            inner.scope[second] = Arr(SCALAR)
            inner.owned -= alias_sources(left) | alias_sources(right)
            rows = self.pick(["[%s, %s]", "(%s, %s)"]) % (left, right)
            if self.chance(0.3):  # each item a tuple: (left[i], right[i])
                del inner.scope[first], inner.scope[second]
                column = self.fresh("col")
                inner.scope[column] = TupleT((Arr(SCALAR), Arr(SCALAR)))
                return "for %s in zip(*%s):" % (column, rows)
            return "for %s, %s in zip(*%s):" % (first, second, rows)
        if kind == "starred":  # the rows of a (2, 3) array, unpacked with a starred name
            first, rest = self.fresh("e"), self.fresh("rest")
            source = self.leaf(ctx, (2, 3))
            inner.scope[first] = Arr(SCALAR)
            inner.scope[rest] = ListT(Arr(SCALAR), 2, False)
            inner.readonly.add(rest)
            inner.owned -= alias_sources(source)
            if self.chance(0.5):
                return "for %s, *%s in %s:" % (first, rest, source)
            return "for *%s, %s in %s:" % (rest, first, source)
        if kind == "enumerate_zip":
            index, first, second = self.fresh("k"), self.fresh("a"), self.fresh("b")
            left, right = self.leaf(ctx, (3,)), self.leaf(ctx, (3,))
            inner.scope[index] = Int(3)
            inner.scope[first] = Arr(SCALAR)
            inner.scope[second] = Arr(SCALAR)
            inner.owned -= alias_sources(left) | alias_sources(right)
            return "for %s, (%s, %s) in enumerate(zip(%s, %s)):" % (index, first, second,
                                                                    left, right)
        if kind == "range":
            ints = [n for n, t in ctx.scope.items() if isinstance(t, Int) and n.startswith("n")]
            variable = self.fresh("i")
            if ints and self.chance(0.4):
                bound_name = self.rng.choice(ints)
                inner.scope[variable] = Int(ctx.scope[bound_name].bound)
                return "for %s in range(%s):" % (variable, bound_name)
            stop = self.rng.randint(1, 4)
            if self.chance(0.2):
                start = self.rng.randint(0, stop - 1)
                inner.scope[variable] = Int(stop)
                return "for %s in range(%d, %d):" % (variable, start, stop)
            inner.scope[variable] = Int(stop)
            return "for %s in range(%d):" % (variable, stop)
        if kind == "array":
            variable = self.fresh("e")
            source = self.leaf(ctx, (3,))
            inner.scope[variable] = Arr(SCALAR)
            inner.owned -= alias_sources(source)
            return "for %s in %s:" % (variable, source)
        if kind == "rows":
            variable = self.fresh("row")
            source = self.leaf(ctx, (2, 3))
            inner.scope[variable] = Arr((3,))
            inner.owned -= alias_sources(source)
            return "for %s in %s:" % (variable, source)
        if kind in ("list", "reversed"):
            name = self.rng.choice(lists)
            variable = self.fresh("item")
            inner.scope[variable] = ctx.scope[name].elem
            inner.owned -= {name}
            # the body must not change the list it iterates over
            inner.readonly.add(name)
            inner.scope[name] = ListT(ctx.scope[name].elem, 0, False)
            source = name if kind == "list" else "reversed(%s)" % name
            elem = ctx.scope[name].elem
            if isinstance(elem, TupleT) and self.chance(0.6):  # `for w, b in layers:`
                del inner.scope[variable]
                targets = [self.fresh("s" if e.shape == SCALAR else "v") for e in elem.elems]
                for target, e in zip(targets, elem.elems):
                    inner.scope[target] = e
                return "for %s in %s:" % (", ".join(targets), source)
            return "for %s in %s:" % (variable, source)
        if kind == "enumerate":
            index, variable = self.fresh("k"), self.fresh("e")
            source = self.leaf(ctx, (3,))
            inner.scope[index] = Int(3)
            inner.scope[variable] = Arr(SCALAR)
            inner.owned -= alias_sources(source)
            return "for %s, %s in enumerate(%s):" % (index, variable, source)
        first, second = self.fresh("a"), self.fresh("b")
        left, right = self.leaf(ctx, (3,)), self.leaf(ctx, (3,))
        inner.scope[first] = Arr(SCALAR)
        inner.scope[second] = Arr(SCALAR)
        inner.owned -= alias_sources(left) | alias_sources(right)
        return "for %s, %s in zip(%s, %s):" % (first, second, left, right)

    def loop_body(self, ctx: Context, inner: Context) -> list:
        # across iterations a list is only as long as this iteration made it
        for name, t in inner.scope.items():
            if isinstance(t, ListT):
                t.min_len = 0
        # An array shared late in one iteration (`v = y`) must not be written early in the
        # next (`y[0] = 1.0` would change v too): retry bodies that would do so.
        for _ in range(8):
            attempt = inner.child(depth=inner.depth)
            body = self.block(attempt, self.rng.randint(1, 3))
            if not (inner.owned - attempt.owned) & attempt.written:
                break
        else:
            attempt = inner.child(depth=inner.depth)
            body = self.stmt_assign(attempt)
        ctx.merge_from(attempt)
        return body

    def loop_else(self, ctx: Context, body: list) -> list:
        if not any(line.strip() == "break" for line in body) or not self.chance(0.5):
            return []
        inner = ctx.child()
        lines = self.block(inner, self.rng.randint(1, 2))
        ctx.merge_from(inner)
        return ["else:"] + ["    " + line for line in lines]

    def stmt_for(self, ctx: Context) -> list:
        inner = ctx.child(in_loop=True)
        dicts = [n for n, t in ctx.scope.items() if isinstance(t, DictT) and not t.attribute]
        if dicts and self.chance(0.15):
            header, prelude = self.dict_loop_header(ctx, inner, self.rng.choice(dicts))
        else:
            header, prelude = self.loop_header(ctx, inner), []
        body = prelude + self.loop_body(ctx, inner)
        return [header] + ["    " + line for line in body] + self.loop_else(ctx, body)

    def dict_loop_header(self, ctx: Context, inner: Context, name: str):
        """``for key, value in d.items()`` (or ``.values()``, or the keys): the values may
        have different shapes, so the body first reduces the value to a scalar."""
        value, scalar = self.fresh("val"), self.fresh("s")
        form = self.pick(["items", "values", "keys"])
        key = self.fresh("key")
        if form == "items":
            header = "for %s, %s in %s.items():" % (key, value, name)
        elif form == "values":
            header = "for %s in %s.values():" % (value, name)
        else:
            header = "for %s in %s:" % (key, name)
            value = "%s[%s]" % (name, key)
        inner.readonly.add(name)  # the body must not change the dict it iterates over
        inner.owned -= {name}
        inner.scope[scalar] = Arr(SCALAR)
        weight = ""
        if form != "values" and self.chance(0.4):  # a string method of the key
            weight = self.pick([" * float(%s.startswith(\"s\"))" % key,
                                " * (0.5 + len(%s.upper()))" % key,
                                " * (1.0 + %s.count(\"a\"))" % key])
        return header, ["%s = np.sum(np.tanh(%s))%s" % (scalar, value, weight)]

    def stmt_while(self, ctx: Context) -> list:
        counter = self.fresh("k")
        limit = self.rng.randint(1, 4)
        test = "%s < %d" % (counter, limit)
        if self.chance(0.5):
            test += " and %s" % self.wrap(self.condition(ctx, 1))
        inner = ctx.child(in_loop=True)
        inner.scope[counter] = Int(limit + 1)
        inner.readonly.add(counter)
        body = ["%s = %s + 1" % (counter, counter)] + self.loop_body(ctx, inner)
        lines = ["%s = 0" % counter, "while %s:" % test] + ["    " + line for line in body]
        return lines + self.loop_else(ctx, body)

    def stmt_jump(self, ctx: Context) -> list:
        jump = self.pick(["break", "continue"])
        if self.chance(0.8):
            return ["if %s:" % self.condition(ctx), "    " + jump]
        return [jump]

    def stmt_return(self, ctx: Context) -> list:
        lines = ["if %s:" % self.condition(ctx)]
        return lines + ["    return %s" % self.result_expr(ctx, ctx.result)]

    def result_expr(self, ctx: Context, result) -> str:
        if isinstance(result, TupleT):
            return ", ".join(self.expr(ctx, e.shape, 2) for e in result.elems)
        return self.expr(ctx, result.shape, 2)

    def inplace_target(self, ctx: Context):
        names = [n for n in ctx.owned if n in ctx.scope and n not in ctx.readonly
                 and isinstance(ctx.scope[n], Arr) and ctx.scope[n].shape != SCALAR]
        return self.rng.choice(sorted(names)) if names else None

    def stmt_inplace(self, ctx: Context) -> list:
        name = self.inplace_target(ctx)
        if name is None:
            shape = self.pick([(3,), (2, 3), (2,)])
            name = self.fresh("y")
            start = self.pick(["np.zeros(%s)" % self.shape_text(shape),
                               self.squash(self.expr(ctx, shape, 1)),
                               "%s.copy()" % self.wrap(self.leaf(ctx, shape))])
            self.store(ctx, name, Arr(shape), start)
            return ["%s = %s" % (name, start)] + self.inplace_write(ctx, name, shape)
        return self.inplace_write(ctx, name, ctx.scope[name].shape)

    def inplace_write(self, ctx: Context, name: str, shape) -> list:
        if len(shape) == 1:
            size = shape[0]
            target_kind = self.pick(["element", "slice", "mask", "indices"], [3, 1, 1, 1])
            if target_kind == "element":
                target, value_shape = "%s[%s]" % (name, self.index_text(ctx, size)), SCALAR
            elif target_kind == "mask":  # data-dependent: the checker traces the mask
                target = "%s[%s %s %s]" % (name, name, self.pick([">", "<"]),
                                           self.constant(-0.5, 0.5))
                value_shape = SCALAR
            elif target_kind == "indices":
                indices = self.rng.sample(range(size), 2)
                target, value_shape = "%s[np.array(%s)]" % (name, indices), (2,)
            else:
                target, value_shape = self.pick(
                    [("%s[1:]" % name, (size - 1,)), ("%s[:2]" % name, (2,))]
                    if size == 3 else [("%s[:]" % name, (2,))])
                if value_shape not in SHAPES:
                    value_shape = SCALAR
        else:
            target_kind = self.pick(["element", "nested", "row", "column"], [2, 1, 2, 1])
            if target_kind in ("element", "nested"):
                target = ("%s[%s, %s]" if target_kind == "element" else "%s[%s][%s]") % (
                    name, self.index_text(ctx, shape[0]), self.index_text(ctx, shape[1]))
                value_shape = SCALAR
            elif target_kind == "row":
                target, value_shape = "%s[%s]" % (name, self.index_text(ctx, shape[0])), \
                    (shape[1],)
            else:
                target, value_shape = "%s[:, %s]" % (name, self.index_text(ctx, shape[1])), \
                    (shape[0],)
        value = self.expr(ctx, value_shape if self.chance(0.8) else SCALAR, 2)
        ctx.owned -= alias_sources(value) - {name}
        ctx.written.add(name)
        op = self.pick(["=", "+=", "-=", "*="], [3, 3, 1, 1])
        if op == "*=":
            value = self.squash(value)
        return ["%s %s %s" % (target, op, value)]

    def stmt_list(self, ctx: Context) -> list:
        locals_ = [n for n, t in ctx.scope.items() if isinstance(t, ListT) and t.local
                   and n not in ctx.readonly]
        action = self.pick(["new", "append", "pop", "setitem"],
                           [2 if ctx.depth <= 1 else 0, 4, 3, 1])
        if not locals_ or action == "new":
            if ctx.in_loop:
                return self.stmt_assign(ctx)  # a list made in a loop body is not read after it
            name = self.fresh("lst")
            elem = Arr(self.pick([SCALAR, (3,), (2,)]))
            if self.chance(0.3):  # a list comprehension
                variable, count = self.fresh("c"), self.rng.randint(1, 3)
                inner = ctx.child()
                inner.scope[variable] = Int(count)
                item = self.expr(inner, elem.shape, 2)
                if variable not in item:
                    item = "%s * %s" % (self.wrap(item), self.reduce_to_scalar(variable, inner))
                ctx.owned -= alias_sources(item)
                ctx.scope[name] = ListT(elem, count, True)
                return ["%s = [%s for %s in range(%d)]" % (name, item, variable, count)]
            if self.chance(0.5):
                ctx.scope[name] = ListT(elem, 0, True, elem.shape != SCALAR)
                return ["%s = []" % name]
            items = [self.expr(ctx, elem.shape, 1) for _ in range(self.rng.randint(1, 3))]
            for item in items:
                ctx.owned -= alias_sources(item)
            owned = elem.shape != SCALAR and not any(alias_sources(item) for item in items)
            ctx.scope[name] = ListT(elem, len(items), True, owned)
            return ["%s = [%s]" % (name, ", ".join(items))]
        name = self.rng.choice(locals_)
        t = ctx.scope[name]
        if action == "pop" and t.min_len >= 1:
            targets = self.assignable(ctx, t.elem.shape)
            target = self.rng.choice(targets) if targets and self.chance(0.5) else \
                self.fresh("popped")
            t.min_len -= 1
            ctx.scope[target] = t.elem
            ctx.owned.discard(target)  # its array may be shared with where it came from
            return ["%s = %s.pop()" % (target, name)]
        if action == "setitem" and t.min_len >= 1 and t.owned and self.chance(0.5):
            # a write into an element: every name holding that array sees it
            value = self.expr(ctx, SCALAR, 2)
            ctx.owned -= alias_sources(value)
            return ["%s[%d][%s] %s %s" % (name, self.rng.randrange(t.min_len),
                                          self.index_text(ctx, t.elem.shape[0]),
                                          self.pick(["=", "+=", "-="]), value)]
        if action == "setitem" and t.min_len >= 1:
            value = self.expr(ctx, t.elem.shape, 2)
            ctx.owned -= alias_sources(value)
            op = self.pick(["=", "+="]) if t.elem.shape == SCALAR else "="
            return ["%s[%d] %s %s" % (name, self.rng.randrange(t.min_len), op, value)]
        value = self.expr(ctx, t.elem.shape, 2)
        ctx.owned -= alias_sources(value)
        t.owned = t.owned and not alias_sources(value)
        t.min_len += 1
        return ["%s.append(%s)" % (name, value)]

    def stmt_tuple(self, ctx: Context) -> list:
        helpers = [n for n, t in self.helpers.items() if isinstance(t.result, TupleT)]
        if helpers and self.chance(0.5):
            name = self.rng.choice(helpers)
            t = self.helpers[name]
            text = self.call(ctx, name, t, 2)
            elems = t.result.elems
        else:
            elems = tuple(Arr(self.pick(SHAPES, [3, 1, 2, 1, 1]))
                          for _ in range(self.rng.randint(2, 3)))
            text = "(%s)" % ", ".join(self.expr(ctx, e.shape, 1) for e in elems)
        ctx.owned -= alias_sources(text)
        if self.chance(0.5):
            targets = [self.fresh("s" if e.shape == SCALAR else "v") for e in elems]
            for target, e in zip(targets, elems):
                ctx.scope[target] = e
            return ["%s = %s" % (", ".join(targets), text)]
        name = self.fresh("t")
        ctx.scope[name] = TupleT(elems)
        lines = ["%s = %s" % (name, text)]
        if self.chance(0.5):
            targets = [self.fresh("s" if e.shape == SCALAR else "v") for e in elems]
            for target, e in zip(targets, elems):
                ctx.scope[target] = e
            lines.append("%s = %s" % (", ".join(targets), name))
        return lines

    def stmt_dict(self, ctx: Context) -> list:
        locals_ = [n for n, t in ctx.scope.items() if isinstance(t, DictT) and t.local
                   and n not in ctx.readonly]
        dicts = [n for n, t in ctx.scope.items() if isinstance(t, DictT) and not t.attribute]
        if dicts and not ctx.in_loop and self.chance(0.15):
            # a copy with one entry changed or added, by unpacking ({**d, "w": v})
            source = self.rng.choice(dicts)
            key = self.rng.choice(["u", "w", "scale", "bias"])
            shape = self.pick(SHAPES, [3, 1, 2, 1, 1])
            value = self.expr(ctx, shape, 1)
            ctx.owned -= alias_sources(value)
            items = dict(ctx.scope[source].items)
            items[key] = Arr(shape)
            name = self.fresh("d")
            # the copy holds the source's arrays: never written in place (not owned)
            ctx.scope[name] = DictT(tuple(items.items()), False)
            return ['%s = {**%s, "%s": %s}' % (name, source, key, value)]
        if locals_ and self.chance(0.6):
            name = self.rng.choice(locals_)
            key, e = self.rng.choice(ctx.scope[name].items)
            value = self.expr(ctx, e.shape, 2)
            ctx.owned -= alias_sources(value)
            # `d[k] += v` would write into the stored array (shared): scalars only
            op = self.pick(["=", "+="]) if e.shape == SCALAR else "="
            return ['%s["%s"] %s %s' % (name, key, op, value)]
        if ctx.in_loop:
            return self.stmt_assign(ctx)
        name = self.fresh("d")
        keys = self.rng.sample(["u", "w", "scale", "bias"], self.rng.randint(1, 3))
        if self.chance(0.3):  # a dict comprehension over constant keys
            key, variable, inner = self.fresh("key"), self.fresh("c"), ctx.child()
            shape = self.pick(SHAPES, [3, 1, 2, 1, 1])
            source = self.leaf(ctx, (3,))
            inner.scope[variable] = Arr(SCALAR)
            value = self.expr(inner, shape, 2)
            if variable not in value:
                value = "%s * %s" % (self.wrap(value), self.reduce_to_scalar(variable, inner))
            ctx.owned -= alias_sources(value) | alias_sources(source)
            ctx.scope[name] = DictT(tuple((k, Arr(shape)) for k in keys), True)
            return ["%s = {%s: %s for %s, %s in zip(%r, %s)}" % (
                name, key, value, key, variable, tuple(keys), source)]
        items = tuple((key, Arr(self.pick(SHAPES, [3, 1, 2, 1, 1]))) for key in keys)
        values = [self.expr(ctx, e.shape, 1) for _, e in items]
        for value in values:
            ctx.owned -= alias_sources(value)
        ctx.scope[name] = DictT(items, True)
        return ["%s = {%s}" % (name, ", ".join('"%s": %s' % (key, value)
                                               for (key, _), value in zip(items, values)))]

    def stmt_callable(self, ctx: Context) -> list:
        """A lambda or a nested def (a closure over f's variables), or a functools.partial
        of a module-level helper binding its last parameter, assigned to a name."""
        bindable = [n for n, t in self.helpers.items() if isinstance(t.result, Arr)
                    and not t.recursive and len(t.params) >= 2
                    and isinstance(t.params[-1][1], Arr)]
        if bindable and self.chance(0.2):
            helper = self.rng.choice(bindable)
            t = self.helpers[helper]
            bound, bound_type = t.params[-1]
            value = self.expr(ctx, bound_type.shape, 1)
            ctx.owned -= alias_sources(value)
            name = self.fresh("part")
            self.uses_by_value = True  # (imports functools)
            ctx.scope[name] = FuncT(t.params[:-1], tuple(d for d in t.defaults
                                                         if d[0] != bound), t.result)
            return ["%s = functools.partial(%s, %s=%s)" % (name, helper, bound, value)]
        shape = self.pick(SHAPES, [4, 1, 2, 1, 1])
        params = [("u", Arr(shape))]
        if self.chance(0.5):
            params.append(("c", Arr(SCALAR)))
        inner = ctx.child(readonly=set(ctx.scope), result=Arr(shape), in_loop=False,
                          owned=set(), nested=True)
        for pname, ptype in params:
            inner.scope[pname] = ptype
        inner.readonly -= {p for p, _ in params}
        if self.chance(0.4):
            name = self.fresh("lam")
            body = self.expr(inner, shape, 2)
            if "u" not in body:
                body = "%s * %s" % (self.wrap(body), self.wrap(self.squash("u")))
            ctx.scope[name] = FuncT(tuple(params), (), Arr(shape))
            return ["%s = lambda %s: %s" % (name, ", ".join(p for p, _ in params), body)]
        name = self.fresh("inner")
        defaults = ()
        signature = [p for p, _ in params]
        if len(params) == 2 and self.chance(0.6):
            # a default naming a variable is evaluated when the def runs, not at the call
            scalars = [n for n, t in ctx.scope.items() if t == Arr(SCALAR)]
            default = self.rng.choice(scalars) if scalars and self.chance(0.5) else \
                self.constant(0.3, 1.2)
            defaults = (("c", default),)
            signature[-1] = "c=%s" % default
        inner.depth = 1
        body = self.block(inner, self.rng.randint(0, 2))
        if body == ["pass"]:
            body = []
        body.append("return %s" % self.result_expr(inner, Arr(shape)))
        ctx.scope[name] = FuncT(tuple(params), defaults, Arr(shape))
        return ["def %s(%s):" % (name, ", ".join(signature))] + ["    " + line
                                                                 for line in body]

    # -------------------------------------------------------------- helpers

    def helper(self) -> None:
        """A module-level function f may call: defaults, maybe a loop, maybe a tuple result."""
        name = self.fresh("helper")
        if self.chance(0.12):
            return self.recursive_helper(name)
        params = []
        for index in range(self.rng.randint(1, 3)):
            kind = self.pick(["scalar", "array", "list", "dict"], [4, 3, 1, 1])
            pname = "arg%d" % index
            if kind == "scalar":
                params.append((pname, Arr(SCALAR)))
            elif kind == "array":
                params.append((pname, Arr(self.pick([(3,), (2, 3), (2,)]))))
            elif kind == "list":
                params.append((pname, ListT(Arr(self.pick([SCALAR, (3,)])), 2, False)))
            else:
                params.append((pname, DictT((("w", Arr((3,))), ("b", Arr(SCALAR))), False)))
        # trailing scalar parameters may get defaults
        defaults = []
        for pname, ptype in reversed(params):
            if ptype == Arr(SCALAR) and self.chance(0.5):
                defaults.append((pname, self.constant(0.3, 1.5)))
            else:
                break
        defaults = tuple(reversed(defaults))
        if self.chance(0.25):
            result = TupleT((Arr(SCALAR), Arr(self.pick([SCALAR, (3,)]))))
        else:
            result = Arr(self.pick([SCALAR, (3,), (2, 3)], [3, 2, 1]))
        ctx = Context(scope=dict(params), owned=set(), readonly=set(), in_loop=False,
                      depth=1, result=result)
        body = self.block(ctx, self.rng.randint(0, 2))
        if body == ["pass"]:
            body = []
        body.append("return %s" % self.result_expr(ctx, result))
        default_of = dict(defaults)
        signature = ", ".join(p if p not in default_of else "%s=%s" % (p, default_of[p])
                              for p, _ in params)
        self.helper_sources.append("\n".join(["def %s(%s):" % (name, signature)]
                                             + ["    " + line for line in body]))
        self.helpers[name] = FuncT(tuple(params), defaults, result)

    def recursive_helper(self, name: str) -> None:
        shape = self.pick([SCALAR, (3,)])
        step = self.squash("%s * u + 0.1" % self.constant(0.5, 1.2))
        self.helper_sources.append("\n".join([
            "def %s(u, depth):" % name,
            "    if depth <= 0:",
            "        return u",
            "    return %s(%s, depth - 1)" % (name, step),
        ]))
        self.helpers[name] = FuncT((("u", Arr(shape)), ("depth", Int(3))), (), Arr(shape),
                                   recursive=True)

    # -------------------------------------------------------------- the program

    def parameters(self):
        """f's parameters: names, types, values (as Python source) and which are differentiable."""
        menu = ["scalar", "vector", "matrix", "short", "list_vectors", "list_scalars", "tuple",
                "dict", "dict_matrix", "int", "list_tuples", "namedtuple", "function"]
        weights = [5, 5, 3, 1, 2, 1, 2, 2, 1, 2, 1, 1, 1]
        if "container-arguments" in self.exclude:
            weights = [w if kind in ("scalar", "vector", "matrix", "short", "int",
                                     "function") else 0 for kind, w in zip(menu, weights)]
        if "by-value" in self.exclude:
            weights[-1] = 0
        count = self.rng.randint(1, 4)
        chosen = [self.pick(menu, weights) for _ in range(count)]
        if all(kind in ("int", "function") for kind in chosen):
            chosen.append("scalar")
        params = []
        value_rng = np.random.default_rng(self.seed)

        def array(shape):
            return value_rng.uniform(-1.5, 1.5, size=shape).round(6)

        def array_text(values):
            return "np.array(%r)" % (values.tolist(),)

        for index, kind in enumerate(chosen):
            if kind == "scalar":
                value = float(array(()))
                params.append(("x%d" % index, Arr(SCALAR), repr(value), True))
            elif kind in ("vector", "matrix", "short"):
                shape = {"vector": (3,), "matrix": (2, 3), "short": (2,)}[kind]
                params.append(("x%d" % index, Arr(shape), array_text(array(shape)), True))
            elif kind == "list_vectors":
                length = self.rng.randint(2, 3)
                text = "[%s]" % ", ".join(array_text(array((3,))) for _ in range(length))
                params.append(("xs%d" % index, ListT(Arr((3,)), length, False), text, True))
            elif kind == "list_scalars":
                length = self.rng.randint(2, 4)
                text = "[%s]" % ", ".join(repr(float(array(()))) for _ in range(length))
                params.append(("xs%d" % index, ListT(Arr(SCALAR), length, False), text, True))
            elif kind == "namedtuple":
                text = "Layer(%s, %r)" % (array_text(array((2, 3))), float(array(())))
                params.append(("par%d" % index, DictT((("w", Arr((2, 3))), ("b", Arr(SCALAR))),
                                                      False, attribute=True), text, True))
            elif kind == "list_tuples":
                length = self.rng.randint(2, 3)
                text = "[%s]" % ", ".join("(%s, %r)" % (array_text(array((3,))),
                                                         float(array(())))
                                          for _ in range(length))
                params.append(("xs%d" % index, ListT(TupleT((Arr((3,)), Arr(SCALAR))), length,
                                                     False), text, True))
            elif kind == "tuple":
                text = "(%s, %r)" % (array_text(array((3,))), float(array(())))
                params.append(("tup%d" % index, TupleT((Arr((3,)), Arr(SCALAR))), text, True))
            elif kind == "dict":
                text = '{"w": %s, "b": %r}' % (array_text(array((3,))), float(array(())))
                params.append(("par%d" % index, DictT((("w", Arr((3,))), ("b", Arr(SCALAR))),
                                                    False), text, True))
            elif kind == "dict_matrix":
                text = '{"m": %s, "v": %s}' % (array_text(array((2, 3))),
                                               array_text(array((3,))))
                params.append(("par%d" % index, DictT((("m", Arr((2, 3))), ("v", Arr((3,)))),
                                                    False), text, True))
            elif kind == "function":
                function = self.pick(["np.tanh", "np.sin", "np.arctan"])
                params.append(("fn%d" % index, Fn(), function, False))
            else:
                bound = self.rng.randint(2, 4)
                params.append(("n%d" % index, Int(bound + 1), repr(bound), False))
        return params

    def program(self) -> Program:
        for _ in range(self.rng.choice(self.helper_counts)):
            self.helper()
        params = self.parameters()
        ctx = Context(scope={name: t for name, t, _, _ in params}, owned=set(),
                      readonly=set(), in_loop=False, depth=0, result=Arr(SCALAR))
        body = self.block(ctx, self.rng.randint(*self.statements))
        body.append("return %s" % self.final_result(ctx))
        names = ", ".join(name for name, _, _, _ in params)
        # now and then f is a module-level lambda calling the def (srcad reads the lambda
        # from its line, inlines the def)
        as_lambda = self.chance(0.1)
        lines = ["def %s(%s):" % ("f_def" if as_lambda else "f", names)]
        lines += ["    " + line for line in body]
        if as_lambda:
            lines += ["", "", "f = lambda %s: f_def(%s)  # noqa: E731" % (names, names)]
        uses_layer = any("Layer(" in text for _, _, text, _ in params)
        source = "import math\n\nimport numpy as np\n" + (
            SCIPY_IMPORTS if self.uses_scipy else "") + "\n\n" + (
            LAYER + "\n\n" if uses_layer else "") + (
            "import functools\n\n\n" + BY_VALUE + "\n\n" if self.uses_by_value else "") + "".join(
            text + "\n\n\n" for text in self.helper_sources) + "\n".join(lines) + "\n"
        differentiable = [index for index, (_, _, _, d) in enumerate(params) if d]
        chosen = sorted(self.rng.sample(differentiable,
                                        self.rng.randint(1, len(differentiable))))
        wrt = chosen[0] if len(chosen) == 1 and self.chance(0.5) else tuple(chosen)
        argument_source = "arguments = [%s]\n" % ", ".join(text for _, _, text, _ in params)
        program = Program(seed=self.seed, source=source, function_name="f", arguments=[],
                          argument_source=argument_source, wrt=wrt,
                          parameter_kinds=[type(t).__name__ for _, t, _, _ in params],
                          repeated_spectra=self.repeated_spectra)
        program.arguments = program.make_arguments()
        return program

    def final_result(self, ctx: Context) -> str:
        """A scalar reading several of f's values, so most of the program reaches the output."""
        terms = []
        recent = [name for name, t in ctx.scope.items()
                  if not isinstance(t, (Int, FuncT, Fn))]
        for name in recent[-4:] + self.rng.sample(recent, min(2, len(recent))):
            t = ctx.scope[name]
            if isinstance(t, Arr):
                terms.append("np.sum(np.tanh(%s))" % name if t.shape else "np.sin(%s)" % name)
            elif isinstance(t, ListT) and isinstance(t.elem, TupleT):
                terms.append("sum(np.sum(np.tanh(e[0])) + np.sin(e[1]) for e in %s)" % name)
            elif isinstance(t, ListT):
                terms.append("sum(np.sum(np.tanh(e)) for e in %s)" % name)
            elif isinstance(t, TupleT):
                terms.append("np.sum(np.sin(%s[0]))" % name)
            elif isinstance(t, DictT):
                terms.append("np.sum(np.cos(%s))" % t.read(name, t.items[0][0]))
        terms = list(dict.fromkeys(terms))
        coefficients = [self.constant(0.3, 1.5) for _ in terms]
        return " + ".join("%s * %s" % (c, term) for c, term in zip(coefficients, terms)) \
            or "0.0"


def generate(seed: int, size: str = "medium", exclude=()) -> Program:
    """The program for ``seed`` (deterministic); ``size`` is "small", "medium" or "large"."""
    return Generator(seed, size, exclude).program()


if __name__ == "__main__":
    import sys

    for argument in sys.argv[1:] or ["0"]:
        program = generate(int(argument))
        print(program.source)
        print(program.argument_source)
        print("wrt =", program.wrt)
