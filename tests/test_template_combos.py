"""Every template, runtime helpers included, to second order on broadcast combinations.

What autograd's ``combo_check`` does for its primitives, for srcad's templates:
for every case of tests/template_combos.py, every combination of operand shapes
it lists (scalar, vector, row, column, full... where the primitive accepts
them) and every non-empty subset of its differentiable operands, along both
code paths of tests/gradcheck.py (code specialized on the argument kinds, and
the generic code):

``test_reverse``
    srcad's gradient of ``S = sum(sin(f(*args)) * c)`` (c a fixed random
    cotangent) against central finite differences, with each gradient's type
    and shape. The sine makes S nonlinear in f's output, so the adjoint that
    reaches each template depends on the inputs.
``test_forward``
    srcad's jvp of f itself: the output tangent has the output's shape, and
    ``<J t, cos(f)·c> == <t, ∇S>`` (the dot-product test against reverse mode).
``test_second_order``
    forward mode over srcad's generated gradient code: ``srcad.hvp`` for one
    operand, the jvp of the gradient code for several (the mixed second
    derivatives), against central finite differences of srcad's gradient.

Forward-only helpers (in place: reverse mode refuses them on purpose) are
checked by their jvp against finite differences, and to second order by the
jvp of their generated jvp code.

``test_every_template_has_a_case`` fails when a primitive with a template has
no case here, so a new template cannot go unchecked.
"""

from __future__ import annotations

import ast
import atexit
import functools
import inspect
import math
import operator
import os
import shutil
import tempfile
import textwrap
import zlib

import gast
import numpy as np
import pytest

import srcad
from srcad import pipeline, registry, trees
from srcad.analysis import shapes
from srcad.analysis.operations import operation_of
from srcad.namespace import Aliases
from srcad.naming import Namer
from srcad.parse import parse_function
from srcad.request import ForwardRequest, ReverseRequest
from srcad.resolve import Resolver
from tests.gradcheck import (
    PATHS,
    assert_close,
    assert_gradient_like,
    check_gradient,
    numerical_gradient,
    perturbed,
    random_like,
    reverse_gradient,
)
from tests.template_combos import CASES, shape_text

EPS = 1e-6
SECOND_ORDER_RTOL = 1e-5
SECOND_ORDER_ATOL = 1e-6


# ------------------------------------------------------------------ inputs


def _rng(*parts):
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


def combo_text(combo):
    return ",".join(shape_text(s) for s in combo)


@functools.lru_cache(maxsize=None)
def inputs(case_index, combo_index):
    """(args, cotangent) for one case and shape combination, reproducibly drawn."""
    case = CASES[case_index]
    combo = case.combos[combo_index]
    rng = _rng(case.name, combo_text(combo))
    for _ in range(2000):
        args = [domain(shape, rng) for domain, shape in zip(case.domains, combo)]
        if case.accept is None or case.accept(args):
            break
    else:
        raise RuntimeError("no acceptable inputs for %s[%s]" % (case.name, combo_text(combo)))
    output = case.f(*args)
    cotangent = random_like(output, rng)
    return args, cotangent


def tangents_for(case, combo, subset, args):
    rng = _rng(case.name, combo_text(combo), subset)
    return [tree_map(lambda leaf: random_like(leaf, rng), args[p]) for p in subset]


# ------------------------------------------- arguments that are containers
# A record argument (a namedtuple, a dataclass) is checked leaf by leaf; any other
# argument is its own only leaf.


def flat(value):
    return [leaf for _, leaf in trees.leaves(value)]


def tree_map(function, *values):
    return trees.unflatten(values[0], [function(*leaves) for leaves in zip(*map(flat, values))])


def tree_inner(a, b):
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(flat(a), flat(b)))


def tree_perturbed(value, direction, step):
    return tree_map(lambda leaf, d: perturbed(leaf, d, step), value, direction)


def is_container(value):
    return trees.is_container(value)


def check_container_gradient(S, args, subset, path):
    """check_gradient for arguments that may be records: leaf by leaf, with their types."""
    gradients = gradient(S, args, subset, path)
    numerics = []  # one list of leaves per position
    for p, computed in zip(subset, gradients):
        numerics.append([])
        assert type(computed) is type(args[p]), (
            "gradient for argument %d is a %s, the argument a %s"
            % (p, type(computed).__name__, type(args[p]).__name__))
        for (leaf_path, leaf), got in zip(trees.leaves(args[p]), flat(computed)):
            def at_leaf(value, leaf_path=leaf_path):
                moved = list(args)
                moved[p] = trees.replaced(args[p], leaf_path, value)
                return S(*moved)
            numeric = numerical_gradient(at_leaf, [leaf], 0)
            assert_gradient_like(got, leaf, "gradient for argument %d at %r" % (p, leaf_path))
            assert_close(got, numeric, what="gradient for argument %d at %r" % (p, leaf_path))
            numerics[-1].append(numeric)
    return numerics


# ------------------------------------------------- the scalar function S


_directory = None
_scalarized: dict = {}


def scalarized(f, wrap):
    """A copy of f with a last parameter c, returning ``sum(sin(f(*args)) * c)``.

    With ``wrap="math"`` (Python float outputs) it returns ``math.sin(f(*args)) * c``.
    The copy is written to a real file (srcad reads its source) and sees f's globals.
    """
    key = (f, wrap)
    if key in _scalarized:
        return _scalarized[key]
    global _directory
    if _directory is None:
        _directory = tempfile.mkdtemp(prefix="srcad-combos-")
        atexit.register(shutil.rmtree, _directory, True)
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    definition = tree.body[0]
    definition.name = f.__name__ + "_scalarized"
    definition.args.args.append(ast.arg(arg="cotangent_"))
    returned = definition.body[-1]
    assert isinstance(returned, ast.Return)
    module = "math_combos_" if wrap == "math" else "numpy_combos_"
    sine = ast.Call(func=ast.Attribute(value=ast.Name(id=module, ctx=ast.Load()), attr="sin",
                                       ctx=ast.Load()), args=[returned.value], keywords=[])
    value = ast.BinOp(left=sine, op=ast.Mult(), right=ast.Name(id="cotangent_", ctx=ast.Load()))
    if wrap != "math":
        value = ast.Call(func=ast.Attribute(value=ast.Name(id=module, ctx=ast.Load()),
                                            attr="sum", ctx=ast.Load()),
                         args=[value], keywords=[])
    returned.value = value
    source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    path = os.path.join(_directory, "%d_%s.py" % (len(_scalarized), definition.name))
    with open(path, "w") as file:
        file.write(source)
    namespace = dict(f.__globals__)
    namespace.update(numpy_combos_=np, math_combos_=math)
    exec(compile(source, path, "exec"), namespace)
    _scalarized[key] = namespace[definition.name]
    return _scalarized[key]


def cosine_cotangent(case, output, cotangent):
    """The cotangent S passes back to f's output: cos(f(*args)) * c."""
    if case.wrap == "math":
        return math.cos(output) * cotangent
    return np.cos(output) * cotangent


# ------------------------------------------------------------- srcad calls

def _wrt(subset):
    return subset[0] if len(subset) == 1 else tuple(subset)


def _names(f, subset):
    params = list(inspect.signature(f).parameters)
    return [params[p] for p in subset]


@functools.lru_cache(maxsize=None)
def _generic_forward(f, names):
    return pipeline.generate_forward(f, ForwardRequest(wrt=list(names)), None).function


@functools.lru_cache(maxsize=None)
def _generic_reverse(f, names, single):
    return pipeline.generate_reverse(f, ReverseRequest(wrt=list(names), single=single), None)


@functools.lru_cache(maxsize=None)
def _generic_forward_over_reverse(f, names, single):
    gradient = _generic_reverse(f, names, single).function
    return pipeline.generate_forward(gradient, ForwardRequest(wrt=list(names)), None).function


def forward(f, args, subset, tangents, path):
    """(f(*args), J t) by srcad's forward mode along ``path``."""
    if path == "specialized":
        given = [None] * len(args)
        for p, t in zip(subset, tangents):
            given[p] = t
        return srcad.jvp(f, args, given)
    return _generic_forward(f, tuple(_names(f, subset)))(*args, *tangents)


def gradient(S, args, subset, path):
    """srcad's gradient of S as a list (one entry per position of ``subset``)."""
    result = reverse_gradient(S, args, _wrt(subset), path)
    return [result] if len(subset) == 1 else list(result)


def forward_over_reverse(S, args, subset, tangents, path):
    """H v by forward mode over srcad's generated gradient code, as a list."""
    if path == "specialized":
        if len(subset) == 1:
            return [srcad.hvp(S, wrt=subset[0])(*args, tangents[0])]
        generated = srcad.grad(S, wrt=tuple(subset)).generated_for(*args)
        return list(forward(generated.function, args, subset, tangents, "specialized")[1])
    names = tuple(_names(S, subset))
    single = len(subset) == 1
    result = _generic_forward_over_reverse(S, names, single)(*args, *tangents)[1]
    return [result] if single else list(result)


# ------------------------------------------------------------ parametrize

def _items(forward_only=None):
    items = []
    for case_index, case in enumerate(CASES):
        if forward_only is not None and case.forward_only != forward_only:
            continue
        for combo_index, combo in enumerate(case.combos):
            for subset in case.subsets():
                label = "%s[%s]-wrt%s" % (case.name, combo_text(combo),
                                          "".join(map(str, subset)))
                items.append(pytest.param(case_index, combo_index, subset, id=label))
    return items


REVERSIBLE = _items(forward_only=False)
ALL = _items()

# Second order along the specialized path generates code for every combination (the
# suite's largest cost): the suite takes, for each case, a set of combinations in which
# every operand takes each of its shapes at least once, and the single operands and all of
# them together. ``SRCAD_COMBOS=full`` runs every combination and subset (a script run:
# ``SRCAD_COMBOS=full python -m pytest tests/test_template_combos.py``).
FULL = os.environ.get("SRCAD_COMBOS") == "full"


def covering(combos) -> list:
    """Indices of combinations in which each position takes each of its shapes (greedy)."""
    def pairs(combo):
        return {(position, repr(shape)) for position, shape in enumerate(combo)}

    needed = set().union(*map(pairs, combos))
    chosen = []
    while needed:
        best = max((i for i in range(len(combos)) if i not in chosen),
                   key=lambda i: (len(needed & pairs(combos[i])), -i))
        chosen.append(best)
        needed -= pairs(combos[best])
    return sorted(chosen)


@functools.lru_cache(maxsize=None)
def _covering_of(case_index):
    return covering(CASES[case_index].combos)


def _second_order_items():
    items = []
    for item in ALL:
        case_index, combo_index, subset = item.values
        case = CASES[case_index]
        sampled = FULL or (combo_index in _covering_of(case_index) and (
            len(subset) == 1 or tuple(subset) == case.subsets()[-1]))
        for path in PATHS:
            if path == "generic" or sampled:
                items.append(pytest.param(case_index, combo_index, subset, path,
                                          id="%s-%s" % (item.id, path)))
    return items


SECOND_ORDER = _second_order_items()


def _vacuous(case, subset, values):
    """True if, with every operand differentiated, no derivative that should be is nonzero.

    (One operand alone may rightly get zeros: the smaller operand of a maximum.)
    """
    if tuple(subset) != case.differentiable:
        return False
    checked = [leaf for p, v in zip(subset, values) if p not in case.zero_derivative
               for leaf in (v if isinstance(v, list) else [v])]
    return bool(checked) and max(float(np.max(np.abs(v))) for v in checked) < 1e-6


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case_index, combo_index, subset", REVERSIBLE)
def test_reverse(case_index, combo_index, subset, path):
    case = CASES[case_index]
    args, cotangent = inputs(case_index, combo_index)
    S = scalarized(case.f, case.wrap)
    full = list(args) + [cotangent]
    if any(is_container(a) for a in args):
        numerics = check_container_gradient(S, full, subset, path)
    else:
        numerics = check_gradient(S, full, _wrt(subset), path)
    assert not _vacuous(case, subset, numerics), "vacuous case: every gradient is zero"


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case_index, combo_index, subset", ALL)
def test_forward(case_index, combo_index, subset, path):
    case = CASES[case_index]
    args, cotangent = inputs(case_index, combo_index)
    combo = case.combos[combo_index]
    tangents = tangents_for(case, combo, subset, args)
    expected = case.f(*args)
    output, output_tangent = forward(case.f, args, subset, tangents, path)
    np.testing.assert_allclose(output, expected, rtol=1e-12, atol=0)
    assert np.shape(output_tangent) == np.shape(expected), (
        "output tangent has shape %s, the output %s"
        % (np.shape(output_tangent), np.shape(expected)))
    if type(expected) is float:
        assert type(output_tangent) is float, type(output_tangent)
    if case.forward_only:
        assert_close(output_tangent, directional_difference(case.f, args, subset, tangents),
                     what="J t")
        return
    S = scalarized(case.f, case.wrap)
    gradients = gradient(S, list(args) + [cotangent], subset, path)
    lhs = float(np.sum(np.asarray(output_tangent) * cosine_cotangent(case, expected, cotangent)))
    terms = [tree_inner(t, g) for t, g in zip(tangents, gradients)]
    rhs = sum(terms)
    scale = sum(abs(tree_inner(tree_map(np.abs, t), tree_map(np.abs, g)))
                for t, g in zip(tangents, gradients))
    assert abs(lhs - rhs) <= 1e-9 * max(scale, abs(lhs)) + 1e-12, (
        "dot-product test failed: <J t, c> = %r by forward mode, <t, J^T c> = %r by reverse"
        % (lhs, rhs))


@pytest.mark.parametrize("case_index, combo_index, subset, path", SECOND_ORDER)
def test_second_order(case_index, combo_index, subset, path):
    case = CASES[case_index]
    args, cotangent = inputs(case_index, combo_index)
    if case.second_order:
        pytest.skip(case.second_order)
    tangents = tangents_for(case, case.combos[combo_index], subset, args)
    if case.forward_only:
        _check_forward_over_forward(case, args, subset, tangents, path)
        return
    S = scalarized(case.f, case.wrap)
    full = list(args) + [cotangent]
    products = forward_over_reverse(S, full, subset, tangents, path)

    def moved(sign):
        moved_args = list(full)
        for p, t in zip(subset, tangents):
            moved_args[p] = tree_perturbed(full[p], t, sign * EPS)
        return gradient(S, moved_args, subset, path)

    numerics = [tree_map(lambda hi, lo: (hi - lo) / (2 * EPS), hi, lo)
                for hi, lo in zip(moved(1.0), moved(-1.0))]
    for p, product, numeric in zip(subset, products, numerics):
        what = "second derivative (H v) for argument %d" % p
        assert type(product) is type(numeric), (type(product), type(numeric))
        for got, leaf, expected in zip(flat(product), flat(args[p]), flat(numeric)):
            assert_gradient_like(got, leaf, what)
            assert_close(got, expected, SECOND_ORDER_RTOL, SECOND_ORDER_ATOL, what)


def directional_difference(f, args, subset, tangents):
    """``J t`` by a central difference of ``f`` along the tangents."""
    def at(sign):
        moved = list(args)
        for p, t in zip(subset, tangents):
            moved[p] = tree_perturbed(args[p], t, sign * EPS)
        return np.asarray(f(*moved), dtype=float)

    return (at(1.0) - at(-1.0)) / (2 * EPS)


def _check_forward_over_forward(case, args, subset, tangents, path):
    """d/ds (J(x + s t) t): forward mode over the generated jvp code, against differences."""
    names = _names(case.f, subset)
    request = ForwardRequest(wrt=names)
    kinds = (None if path == "generic"
             else tuple(shapes.of_value(v) for v in list(args) + tangents))
    jvp_code = pipeline.generate_forward(case.f, request, kinds).function
    full = list(args) + tangents
    _, (_, second) = forward(jvp_code, full, subset, tangents, path)

    def tangent_at(sign):
        moved = list(args)
        for p, t in zip(subset, tangents):
            moved[p] = perturbed(args[p], t, sign * EPS)
        return np.asarray(jvp_code(*moved, *tangents)[1], dtype=float)

    numeric = (tangent_at(1.0) - tangent_at(-1.0)) / (2 * EPS)
    assert_close(second, numeric, SECOND_ORDER_RTOL, SECOND_ORDER_ATOL, "second derivative")


# ---------------------------------------------------------------- coverage


def _primitives_used(function):
    parsed = parse_function(function)
    namer = Namer(parsed.identifiers)
    aliases = Aliases(parsed, namer)
    tree = pipeline.normalize(parsed, namer, aliases)
    resolve = Resolver(parsed, aliases, namer)
    # by registry entry: a bound method (scipy.stats.norm.logpdf) is a new object each time
    return {id(registry.lookup(operation_of(node.value, resolve).primitive))
            for node in gast.walk(tree) if isinstance(node, gast.Assign)}


def _srcad_templates():
    """Registry entries with a template from srcad.templates (tests register their own too)."""
    registry.load_templates()
    entries = []
    for entry in registry.registered():
        templates = [t for t in (entry.adjoint, entry.tangent) if t is not None]
        if any(inspect.getmodule(t.function).__name__.startswith("srcad.templates.")
               for t in templates):
            entries.append(entry)
    return entries


def test_every_template_has_a_case():
    used = set()
    for function in {case.f for case in CASES}:
        used |= _primitives_used(function)
    missing = sorted(entry.name for entry in _srcad_templates() if id(entry) not in used)
    assert not missing, "no case in tests/template_combos.py uses: %s" % ", ".join(missing)


def test_cases_cover_broadcasting_and_second_order():
    """The enumeration is what it claims: many combinations, every subset, both paths."""
    assert len(REVERSIBLE) > 1000
    binary = [c for c in CASES if c.name == "mul"][0]
    assert len(binary.combos) >= 25 and binary.subsets() == [(0,), (1,), (0, 1)]
    assert len(SECOND_ORDER) > 1.5 * len(ALL)  # the generic path: every item
    shapes_of_first = {repr(binary.combos[i][0]) for i in covering(binary.combos)}
    assert shapes_of_first == {repr(combo[0]) for combo in binary.combos}


# ------------------------------------------ what is declared non-differentiable
# Each declaration was audited (issue 9: nothing differentiable is declared
# non-differentiable): the reason its result carries no derivative. A new
# declaration fails this test until it is added here with its reason.

_BOOLEAN = "a bool or a bool array"
_STEPS = "piecewise constant: its derivative is 0 wherever it exists"
_INTEGERS = "integers (indices, counts, combinatorics)"
_PROPERTY = "a property of its argument (shape, type, size...), not a function of its values"
_CONSTANT = "values that do not depend on the arguments' values"
_HELPER = "srcad's helper computing from shapes and constants only"
AUDITED_NONDIFFERENTIABLE = {
    **dict.fromkeys(["_operator.eq", "_operator.ne", "_operator.lt", "_operator.le",
                     "_operator.gt", "_operator.ge", "_operator.not_", "_operator.contains",
                     "_operator.is_", "_operator.is_not", "bool", "numpy.equal",
                     "numpy.not_equal", "numpy.greater", "numpy.greater_equal", "numpy.less",
                     "numpy.less_equal", "numpy.logical_and", "numpy.logical_or",
                     "numpy.logical_not", "numpy.logical_xor", "numpy.isfinite", "numpy.isinf",
                     "numpy.isnan", "math.isfinite", "math.isinf", "math.isnan", "isinstance"],
                    _BOOLEAN),
    **dict.fromkeys(["_operator.floordiv", "numpy.floor_divide", "numpy.floor", "numpy.ceil",
                     "numpy.trunc", "numpy.rint", "numpy.round", "numpy.sign", "math.floor",
                     "math.ceil", "math.trunc", "round", "int"], _STEPS),
    **dict.fromkeys(["_operator.and_", "_operator.or_", "_operator.xor", "_operator.invert",
                     "_operator.lshift", "_operator.rshift", "math.comb", "math.factorial",
                     "math.gcd", "math.perm", "numpy.argmax", "numpy.argmin", "numpy.argsort",
                     "ndarray.argmax", "ndarray.argmin", "ndarray.argsort", "range", "slice"],
                    _INTEGERS),
    **dict.fromkeys(["len", "type", "numpy.shape", "numpy.ndim", "numpy.size", "ndarray.shape",
                     "ndarray.ndim", "ndarray.size", "ndarray.dtype"], _PROPERTY),
    **dict.fromkeys(["numpy.zeros", "numpy.ones", "numpy.empty", "numpy.eye", "numpy.identity",
                     "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like"], _CONSTANT),
    "srcad.registry.stop_gradient": "blocks the gradient by definition",
    "scipy.special.gammasgn": _STEPS,
    "srcad.analysis.operations.FORMATTED": "text (an f-string), not a number",
    "srcad.runtime.keys_of": "a dict's keys: its structure, static as in JAX's pytrees",
    "srcad.runtime.check_discrete": "a check (returns None) that a method's result is not a "
                                    "float",
    "srcad.runtime.check_mapping": "a check (returns None) that dict(x) copies a dict",
    "srcad.runtime.unit_seed": "the 1 the reverse sweep starts from (ones of the output's "
                               "shape): " + _CONSTANT,
    **dict.fromkeys(["srcad.runtime.written_in_place", "srcad.runtime.writes_through",
                     "srcad.runtime.views_into", "srcad.runtime.same_object",
                     "srcad.runtime.views_whole", "srcad.runtime.may_share"],
                    "a bool: whether a write through an alias reaches another name "
                    "(normalize/propagate_writes.py)"),
    **dict.fromkeys(["srcad.runtime.zeros_like", "srcad.runtime.method_axes",
                     "srcad.runtime.inverse_transpose_axes", "srcad.runtime.reduced_size",
                     "srcad.runtime.linspace_weights", "srcad.runtime.arange_weights"], _HELPER),
    **dict.fromkeys(["numpy.searchsorted", "ndarray.searchsorted", "srcad.runtime.order_of"],
                    _INTEGERS),
    "srcad.runtime.rollaxis_destination": _HELPER,
    **dict.fromkeys(["numpy.argpartition", "ndarray.argpartition", "numpy.nonzero",
                     "ndarray.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.digitize",
                     "numpy.unravel_index", "numpy.ravel_multi_index", "numpy.indices",
                     "numpy.tril_indices", "numpy.triu_indices", "numpy.diag_indices",
                     "numpy.lexsort", "numpy.count_nonzero"], _INTEGERS),
    "numpy.isin": _BOOLEAN,
    "srcad.runtime.choice_masks": _BOOLEAN,
    "srcad.runtime.clipped_to_max": _BOOLEAN,
    "srcad.runtime.item_index": _HELPER,
    **dict.fromkeys(["srcad.runtime.tensordot_adjoint_axes", "srcad.runtime.inner_axes",
                     "srcad.runtime.kron_plan", "srcad.runtime.einsum_specs"], _HELPER),
    **dict.fromkeys(["srcad.runtime.uplo", "srcad.runtime.output_layout"], _HELPER),
    "srcad.runtime.convolution_padding": _HELPER,
    "srcad.runtime.polynomial_exponents": _HELPER,
    "srcad.runtime.cov_shape": _HELPER,
    "srcad.runtime.cov_divisor": _HELPER,
    "srcad.runtime.logspace_log_base": "a constant's logarithm (np.logspace's base, held "
                                       "constant)",
    "srcad.runtime.linspace_fractions": _HELPER,
    "srcad.runtime.simplex_point": ("dirichlet's x completed to the simplex: x carries no "
                                    "derivative (dirichlet.logpdf refuses one), alpha only "
                                    "says how many components"),
}


def test_every_nondifferentiable_declaration_is_audited():
    registry.load_templates()
    declared = {entry.name for entry in registry.registered() if not entry.differentiable
                and not (inspect.isfunction(entry.obj)  # a test's or a user's own function
                         and not entry.obj.__module__.startswith("srcad"))}
    unaudited = sorted(declared - set(AUDITED_NONDIFFERENTIABLE))
    assert not unaudited, "declared non-differentiable without an audited reason: %s" % (
        ", ".join(unaudited))
    for name in ("numpy.linspace", "numpy.arange", "numpy.full_like", "math.copysign"):
        assert name not in declared  # differentiable in some arguments: templates instead


# ------------------------------------------ facts: "linear in x" means a zero x gives zero
# optimize/simplify_zeros.py drops a call whose linear argument is zero; a function linear
# in several arguments only jointly (f(a, b) = a + b) declared linear in each would lose
# terms there. Each case that is one call of such a primitive is evaluated with zeros in
# each linear position.


def _single_call(function):
    """(primitive, [parameter index or None per positional argument]) when ``function``
    only returns one call of a registered primitive, else None."""
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    body = definition.body
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    value = body[0].value
    if isinstance(value, ast.BinOp) and type(value.op) in _OPERATORS:
        callee, operands = _OPERATORS[type(value.op)], [value.left, value.right]
    elif isinstance(value, ast.Call):
        try:
            callee = eval(compile(ast.Expression(value.func), "<callee>", "eval"),  # noqa: S307
                          function.__globals__)
        except Exception:
            return None
        operands = value.args
    else:
        return None
    params = [a.arg for a in definition.args.args]
    positions = [params.index(a.id) if isinstance(a, ast.Name) and a.id in params else None
                 for a in operands]
    return callee, positions


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.MatMult: operator.matmul}


def _linear_fact_items():
    registry.load_templates()
    items = []
    for case_index, case in enumerate(CASES):
        if case.forward_only:
            continue
        found = _single_call(case.f)
        if found is None:
            continue
        entry = registry.lookup(found[0])
        if entry is None or not entry.linear_in:
            continue
        for position in entry.linear_in:
            if position < len(found[1]) and found[1][position] is not None:
                items.append(pytest.param(case_index, found[1][position],
                                          id="%s-arg%d" % (case.name, position)))
    return items


def _zero_like(value):
    if is_container(value):
        return tree_map(_zero_like, value)
    if isinstance(value, list):
        return [_zero_like(v) for v in value]
    return type(value)(0.0) if isinstance(value, float) else np.zeros_like(value)


@pytest.mark.parametrize("case_index, parameter", _linear_fact_items())
def test_a_zero_in_a_linear_argument_gives_zero(case_index, parameter):
    case = CASES[case_index]
    args, _ = inputs(case_index, 0)
    args = list(args)
    args[parameter] = _zero_like(args[parameter])
    result = case.f(*args)
    leaves = flat(result) if is_container(result) else (
        result if isinstance(result, (list, tuple)) else [result])
    for leaf in leaves:
        assert np.all(np.asarray(leaf) == 0), (
            "%s is declared linear in argument %d, but a zero there gives %r"
            % (case.name, parameter, leaf))


def test_linear_facts_are_checked():
    assert len(_linear_fact_items()) > 40
