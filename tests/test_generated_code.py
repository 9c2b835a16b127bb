"""What generated code promises besides its values (DESIGN.md, "Generated code").

Readable, specialized and lean: code specialized for known argument kinds
decides shapes when it is generated (no run-time shape helpers), calls NumPy
directly for products of known ranks, sums literal lists as additions, builds
array literals element by element, splits tuples (and their copies) into one
variable per element, accumulates adjoints in place inside loops,
keeps a helper's literal default as a literal, names temporaries after their
operation, and has no empty branch in its adjoint sweep. The gradients it
returns belong to the caller (writeable, never one array twice).

Also the optimization passes' own promises, on small trees (as in
tests/test_golden.py): lower_exits guards only what an exit can skip,
remove_dead_code drops an overwritten assignment and a dead pure call.
"""

import ast
import builtins
import textwrap

import gast
import numpy as np
import pytest
import scipy.special

import srcad
from srcad import emit, runtime
from srcad.analysis.operations import UNRESOLVED
from srcad.optimize.remove_dead_code import remove_dead_code
from tests import construct_functions as cf
from tests._fd import assert_close, numeric_grad
from tests.test_control_flow import CASES as FLOW_CASES
from tests.test_golden import exits  # lower_exits on a function written as text

# helpers generated code needs only when argument kinds are unknown at generation time
SHAPE_HELPERS = ("rt.unbroadcast", "rt.match_type", "rt.match_tangent", "rt.check_scalar_output")


def nested_array_literal(x, y):
    a = np.array([[x * y, y], [np.sin(x), 1.0]])
    return np.sum(a ** 2)


def flat_array_literal(x, y):
    a = np.array([x * y, y, np.sin(x)])
    return np.sum(a ** 2)


def summed_list(x, y):
    return sum([x * y, y, np.sin(x)])


def copied_tuple(x, y):
    t = (x, y)
    u = t
    a, b = u
    return a * np.sin(b)


def matrix_vector(W, x):
    return np.sum(np.tanh(np.dot(W, x)))


def vector_matrix(x, W):
    return np.sum(np.tanh(np.dot(x, W)))


def indexed_in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[n - 1 - i]
    return s


def reshaped_in_loop(x, n):
    s = 0.0
    for i in range(n):
        r = np.reshape(x, (2, 2))
        s = s + np.sum(r * r) * (i + 1.0)
    return s


def negated_call(x):
    return np.sum(-np.sin(x) * x)


def power(v, exponent=3.0):
    return v ** exponent


def cube_plus_square(x):
    return power(x) + power(x, 2.0)


def code(function, **options):
    """The generated source without its comments (which quote the user's lines)."""
    return ast.unparse(ast.parse(srcad.source(function, **options)))


X4 = np.array([0.3, -0.7, 1.1, 0.4])
W32 = np.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.6]])

SPECIALIZED = [
    (nested_array_literal, (0.7, 1.3), (0, 1)),
    (flat_array_literal, (0.7, 1.3), (0, 1)),
    (summed_list, (0.7, 1.3), (0, 1)),
    (cf.summed_list_with_start, (2.0, 0.5), (0, 1)),
    (copied_tuple, (0.7, 1.3), (0, 1)),  # split into one variable per element, copy too
    (matrix_vector, (W32, X4[:2]), (0, 1)),
    (vector_matrix, (X4[:3], W32), (0, 1)),
]


@pytest.mark.parametrize("function, args, wrt", SPECIALIZED,
                         ids=[f.__name__ for f, _, _ in SPECIALIZED])
def test_specialized_code_decides_shapes_when_generated(function, args, wrt):
    source = code(function, wrt=wrt, example_args=args)
    for helper in SHAPE_HELPERS + ("rt.dot_adjoint", "rt.expand_reduced(1.0, items",
                                   "rt.unindex"):
        assert helper not in source, "%s in\n%s" % (helper, source)
    gradients = srcad.grad(function, wrt=wrt)(*args)
    for position, gradient in zip(wrt, gradients):
        assert_close(gradient, numeric_grad(function, args, position))


@pytest.mark.parametrize("function", [summed_list, cf.summed_list_with_start])
def test_sum_of_a_literal_list_is_a_chain_of_additions(function):
    for mode in ("reverse", "forward"):
        source = code(function, wrt=(0, 1), mode=mode, example_args=(0.7, 1.3))
        assert "sum(" not in source, source


def test_array_literals_are_built_element_by_element():
    source = code(nested_array_literal, wrt=(0, 1), example_args=(0.7, 1.3))
    assert "rt.array_of(row, rt.array_of(" in source, source
    assert "np.array(" not in source


def test_adjoints_accumulate_in_place_inside_loops():
    """accumulate_in_place: x[i] in a loop adds into x_bar where it stands (rt.add_at), and
    the adjoint of a reshape is added in place: no x-sized array per iteration."""
    source = code(indexed_in_loop, example_args=(X4, 4))
    assert "rt.add_at(x_bar, i, " in source, source
    assert "x_bar = x_bar +" not in source and "rt.unindex" not in source
    source = code(reshaped_in_loop, example_args=(X4, 3))
    assert "x_bar += np.reshape(r_bar" in source, source
    for function, args in ((indexed_in_loop, (X4, 4)), (reshaped_in_loop, (X4, 3))):
        assert_close(srcad.grad(function)(*args), numeric_grad(function, args, 0))


def test_temporaries_are_named_after_their_operation():
    source = code(negated_call, example_args=(X4,))
    assert "neg = -np.sin(x)" in source, source
    assert "neg_bar = " in source


def test_literal_default_of_an_inlined_helper_stays_a_literal():
    source = code(cube_plus_square, example_args=(0.7,))
    assert "3.0" in source and "default" not in source, source
    assert srcad.grad(cube_plus_square)(0.7) == pytest.approx(3 * 0.49 + 2 * 0.7)


CORPUS = FLOW_CASES + [
    (cf.all_three_positive, (1.0, 2.0, -3.0), (0, 1, 2)),
    (cf.any_of_three, (1.0, 2.0, 3.0), (0, 1, 2)),
    (cf.inner_loop_in_branch_reads_outer_value, (0.7, 3), (0,)),
]


def empty_branches_in_adjoint_sweep(source) -> list:
    """Line numbers of ``if`` statements after the first ``# grad of`` with nothing inside."""
    lines = source.splitlines()
    start = next((number for number, line in enumerate(lines, 1) if "# grad of:" in line), None)
    if start is None:
        return []
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.If) and node.lineno > start
            and all(isinstance(s, ast.Pass) for s in node.body + node.orelse)]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c[0].__name__)
def test_adjoint_sweep_has_no_empty_branch(case):
    """A branch with nothing to differentiate (and nothing recorded) has no reverse."""
    function, args, wrt = case
    for example_args in (args, None):
        source = srcad.source(function, wrt=wrt, example_args=example_args)
        assert not empty_branches_in_adjoint_sweep(source), source


def test_returned_gradients_belong_to_the_caller():
    """Gradients of a mix of array and float arguments are writeable arrays the caller can
    change in place, even where the adjoint is a broadcast of a scalar."""
    x, s = np.array([0.5, -1.0, 2.0]), 2.0
    for gradient_of_x in (srcad.grad(cf.scaled_sum, wrt=(0, 1))(x, s)[0],
                          srcad.grad(cf.scaled_sum)(x, s),
                          srcad.vjp(cf.scaled_sum, x, s)[1](1.0)[0]):
        assert gradient_of_x.flags.writeable
        gradient_of_x += 1.0  # the caller's to change
        assert_close(gradient_of_x, np.full(3, s + 1.0))
    assert_close(srcad.grad(cf.scaled_sum)(x, s), np.full(3, s))  # later calls unaffected


# ---- the passes' own promises, on small trees


def function_tree(source):
    return gast.parse(textwrap.dedent(source)).body[0]


def text(source):
    return textwrap.dedent(source).lstrip("\n")


_MODULES = {"np": np, "rt": runtime, "special": scipy.special}


def resolve_modules(node):
    if isinstance(node, gast.Name):
        return _MODULES.get(node.id, getattr(builtins, node.id, UNRESOLVED))
    if isinstance(node, gast.Attribute):
        base = resolve_modules(node.value)
        return UNRESOLVED if base is UNRESOLVED else getattr(base, node.attr, UNRESOLVED)
    return UNRESOLVED


def test_lower_exits_guards_only_what_a_continue_can_skip():
    assert exits("""
        def f(x, n):
            s = x
            for i in range(n):
                if i == 2:
                    continue
                if s > 5.0:
                    s = s * 0.5
                s = s * x
            return s
        """) == text("""
        def f(x, n):
            s = x
            for i in range(n):
                skip = False
                if i == 2:
                    skip = True
                if not skip:
                    if s > 5.0:
                        s = s * 0.5
                    s = s * x
            return s
        """)


def test_remove_dead_code_drops_overwritten_assignments_and_dead_pure_calls():
    """An assignment overwritten before any read is dead; so are unused calls of pure
    builtins and of a ufunc from outside NumPy (scipy.special.erf)."""
    tree = function_tree("""
        def f(x, y):
            a = np.sin(x)
            a = x * 2.0
            unused = special.erf(x)
            size = len(y)
            largest = max(x, a)
            b = special.erf(a)
            return b
        """)
    assert emit.to_source(remove_dead_code(tree, resolve_modules)) == text("""
        def f(x, y):
            a = x * 2.0
            b = special.erf(a)
            return b
        """)

