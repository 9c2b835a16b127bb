"""Comprehensions, generator expressions and loop targets of any unpacking shape.

Each function (tests/comprehension_functions.py) is checked in every mode:
the reverse gradient against central finite differences along both code paths
(specialized and generic), forward mode against reverse mode by the dot-product
test, hvp against finite differences of the gradient, and the code generated
with ``optimize=False`` agreeing with the optimized code.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedSyntaxError
from tests import comprehension_functions as cf
from tests import gradcheck

X = np.array([0.3, -0.7, 1.1])
Y = np.array([0.5, 0.2, -0.4])
M = np.outer(X, Y) + 1.0

CASES = [
    (cf.array_of_user_calls, (X,), 0),
    (cf.filtered, (X,), 0),
    (cf.two_clauses_and_a_condition, (X, Y), (0, 1)),
    (cf.comprehension_in_a_comprehension, (X, Y), (0, 1)),
    (cf.inner_iterable_reads_outer_variable, (X,), 0),
    (cf.variable_does_not_leak, (X,), 0),
    (cf.comprehension_returned_by_a_helper, (X,), 0),
    (cf.comprehension_passed_to_a_helper, (X,), 0),
    (cf.concatenated_and_stacked, (X,), 0),
    (cf.comprehension_in_a_while_test, (X, 0.7), (0, 1)),
    (cf.comprehension_in_a_conditional_expression, (X, 2), 0),
    (cf.comprehension_in_a_conditional_expression, (X, 0), 0),
    (cf.enumerated_comprehension, (X,), 0),
    (cf.rows_of_a_matrix, (M,), 0),
    (cf.tuple_of_generator, (X,), 0),
    (cf.list_of_generator, (X,), 0),
    (cf.max_and_min_of_generators, (X,), 0),
    (cf.max_and_min_of_a_list, (X,), 0),
    (cf.generator_passed_to_a_helper, (X,), 0),
    (cf.generators_zipped_in_a_loop, (X, Y), (0, 1)),
    (cf.loop_over_a_generator, (X, 0.9), (0, 1)),
    (cf.tuple_of_a_list_argument, (X,), 0),
    (cf.dict_comprehension, (X,), 0),
    (cf.dict_comprehension_with_computed_keys, (X,), 0),
    (cf.dict_of_zip, (X,), 0),
    (cf.dict_of_generated_pairs, (X,), 0),
    (cf.layers, (X,), 0),
    (cf.enumerate_zip_nested_target, (X, Y), (0, 1)),
    (cf.zip_of_starred_pairs, (X, Y), (0, 1)),
    (cf.starred_target, (X,), 0),
    (cf.starred_target_in_the_middle, (X,), 0),
    (cf.starred_unpacking_of_a_row, (X,), 0),
    (cf.targets_inside_comprehensions, (X, Y), (0, 1)),
    (cf.zip_of_starred_pairs_in_a_comprehension, (X, Y), (0, 1)),
    (cf.columns_of_rows, (X, Y), (0, 1)),
    (cf.columns_of_no_rows, (X,), 0),
    (cf.enumerate_with_a_starred_target, (X,), 0),
    (cf.nested_target_with_a_starred_name, (X,), 0),
    (cf.loss_of_flattened_parameters, (np.outer(Y[:2], X) * 0.5, Y[1:], X), (0, 1)),
    (cf.mixture_negative_log_likelihood, (X, np.array([0.1, -0.4, 0.8, 1.3])), (0, 1)),
]


def case_id(case):
    function, args, _ = case
    return "%s-%s" % (function.__name__, "-".join(
        str(a) for a in args if isinstance(a, int)) or "")


def positions(wrt):
    return list(wrt) if isinstance(wrt, tuple) else [wrt]


def rng_for(text):
    return np.random.default_rng(zlib.crc32(text.encode()))


def forward_jvp(optimize=True):
    """``J t`` by srcad's forward mode (the dot-product test's left side)."""
    def jvp(f, args, wrt_positions, tangents):
        all_tangents = [None] * len(args)
        for position, tangent in zip(wrt_positions, tangents):
            all_tangents[position] = tangent
        return srcad.jvp(f, tuple(args), tuple(all_tangents), optimize=optimize)[1]
    return jvp


def perturbed(value, direction, step):
    return value + step * direction if np.ndim(value) else float(value + step * direction)


@pytest.mark.parametrize("path", gradcheck.PATHS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient_matches_finite_differences(case, path):
    function, args, wrt = case
    numerics = gradcheck.check_gradient(function, args, wrt, path=path)
    assert any(np.any(np.asarray(n) != 0.0) for n in numerics)  # not vacuous


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_agrees_with_reverse_by_the_dot_product_test(case):
    function, args, wrt = case
    gradcheck.dot_product_test(function, args, wrt, jvp=forward_jvp(),
                               rng=rng_for(case_id(case)))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hvp_matches_finite_differences_of_the_gradient(case):
    function, args, wrt = case
    for position in positions(wrt):
        direction = gradcheck.random_like(args[position], rng_for("hvp" + case_id(case)))
        product = srcad.hvp(function, wrt=position)(*args, direction)
        gradient = srcad.grad(function, wrt=position)
        shifted = []
        for sign in (1.0, -1.0):
            moved = list(args)
            moved[position] = perturbed(args[position], direction, sign * 1e-5)
            shifted.append(np.asarray(gradient(*moved)))
        gradcheck.assert_close(product, (shifted[0] - shifted[1]) / 2e-5, rtol=1e-4,
                               atol=1e-6, what="hvp")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_code_without_optimizations_agrees(case):
    function, args, wrt = case
    for position in positions(wrt):
        gradcheck.assert_close(srcad.grad(function, wrt=position, optimize=False)(*args),
                               srcad.grad(function, wrt=position)(*args), rtol=1e-12)
        direction = gradcheck.random_like(args[position], rng_for("plain" + case_id(case)))
        tangents = [None] * len(args)
        tangents[position] = direction
        plain = srcad.jvp(function, args, tangents, optimize=False)
        optimized = srcad.jvp(function, args, tangents)
        gradcheck.assert_close(plain[1], optimized[1], rtol=1e-12)
        gradcheck.assert_close(srcad.hvp(function, wrt=position, optimize=False)(
            *args, direction), srcad.hvp(function, wrt=position)(*args, direction), rtol=1e-10)


def test_a_returned_comprehension_is_a_list_in_every_mode():
    out, tangent = srcad.jvp(cf.comprehension_returned, (X,), (Y,))
    assert type(out) is list and type(tangent) is list
    gradcheck.assert_close(tangent, 2 * X * Y)
    out, vjp_fn = srcad.vjp(cf.comprehension_returned, X)
    (cotangent,) = vjp_fn([1.0, 2.0, 3.0])
    gradcheck.assert_close(cotangent, 2 * X * np.array([1.0, 2.0, 3.0]))
    jacobian = srcad.jacobian(cf.comprehension_returned)(X)
    gradcheck.assert_close(np.asarray(jacobian), np.diag(2 * X))


def test_the_generated_loop_reads_like_the_comprehension():
    source = srcad.source(cf.variable_does_not_leak, example_args=(X,))
    assert "for index in range(length):" in source
    assert "items = rt.appended(items, mul)" in source
    # the comprehension's own v was renamed: the user's v = 2.0 is read after it
    assert "v_2 = x[index]" in source


def test_max_of_an_empty_iterable_raises_as_in_python():
    with pytest.raises(ValueError, match="max\\(\\) iterable argument is empty"):
        srcad.grad(cf.max_and_min_of_generators)(np.zeros(0))


def test_zip_of_starred_sequences_needs_one_per_name():
    with pytest.raises(ValueError):
        zip_of_three(X)  # Python: too many values to unpack
    with pytest.raises(ValueError, match="needs 2 sequences"):
        srcad.grad(zip_of_three)(X)


def zip_of_three(x):
    triples = [x, x, x]
    s = 0.0
    for a, b in zip(*triples):
        s = s + a * b
    return s


# ---- what is rejected, where


def generator_in_a_name(x):
    squares = (v * v for v in x)
    return sum(squares)


def generator_to_numpy(x):
    return np.sum(np.array(v * v for v in x))


def generator_read_by_a_loop_that_changes_it(x, w):
    s = 0.0
    for v in (w * t for t in x):
        w = w + v
        s = s + w
    return s


def zip_of_a_sequence_and_starred_ones(x, y):
    s = 0.0
    for a, b in zip(x, *[y]):
        s = s + a * b
    return s


def set_comprehension(x):
    return sum({v for v in x})


@pytest.mark.parametrize("function, args, text, construct", [
    (generator_in_a_name, (X,), "(v * v for v in x)", "not consumed where it is made"),
    (generator_to_numpy, (X,), "(v * v for v in x)", "passed to numpy.array"),
    (generator_read_by_a_loop_that_changes_it, (X, 0.5), "(w * t for t in x)", "changes `w`"),
    (zip_of_a_sequence_and_starred_ones, (X, Y), "zip(x, *[y])",
     "zip(*sequences) with other arguments"),
    (set_comprehension, (X,), "{v for v in x}", "a set comprehension"),
])
def test_unsupported_uses_are_located_errors(function, args, text, construct):
    with pytest.raises(UnsupportedSyntaxError) as raised:
        srcad.grad(function)(*args)
    lines = str(raised.value).splitlines()
    assert construct in lines[0] and "test_comprehensions.py" in lines[0], lines
    # the caret points at the construct
    assert lines[1][lines[2].index("^"):].startswith(text), lines


def generator_read_by_a_loop_that_rebinds_it(x, w):
    s = 0.0
    for w in (w * t for t in x):  # noqa: PLR1704 - the element reads the w the loop binds
        s = s + w
    return s


def test_a_loop_target_rebinding_what_its_generator_reads_is_rejected():
    with pytest.raises(UnsupportedSyntaxError, match="changes `w`"):
        srcad.grad(generator_read_by_a_loop_that_rebinds_it)(X, 0.5)


def sum_of_zipped_generators(x, y):
    return sum(a * b for a, b in zip((v * v for v in x), y))


def test_a_generator_zipped_in_a_comprehension_is_consumed_there():
    gradcheck.check_gradient(sum_of_zipped_generators, (X, Y), (0, 1))


# ---- writes through the views a comprehension's list holds: as for the loop it stands for


def write_after_a_comprehension_of_views(x):
    y = np.outer(x, x)
    rows = [y[i] for i in range(2)]  # views of y's rows
    y[0, 1] = 5.0  # changes rows[0] too
    return sum(np.sum(r * r) for r in rows)


def write_after_a_loop_of_views(x):
    y = np.outer(x, x)
    rows = []
    for i in range(2):
        rows.append(y[i])
    y[0, 1] = 5.0
    return sum(np.sum(r * r) for r in rows)


def write_into_an_element_of_a_comprehension(x):
    y = np.outer(x, x)
    rows = [y[i] for i in range(2)]
    r = rows[1]
    r[0] = 7.0  # changes y[1, 0]
    return np.sum(y * y)


def write_into_an_element_of_a_loop(x):
    y = np.outer(x, x)
    rows = []
    for i in range(2):
        rows.append(y[i])
    r = rows[1]
    r[0] = 7.0
    return np.sum(y * y)


def outcome(function, args):
    """The value and gradient, or the type of the SrcadError raised."""
    try:
        return srcad.value_and_grad(function)(*args)
    except srcad.SrcadError as error:
        return type(error)


@pytest.mark.parametrize("comprehension, loop", [
    (write_after_a_comprehension_of_views, write_after_a_loop_of_views),
    (write_into_an_element_of_a_comprehension, write_into_an_element_of_a_loop),
])
def test_writes_through_a_comprehensions_list_are_followed_as_through_the_loops(
        comprehension, loop):
    """The comprehension's list is filled by rt.appended directly (no write to follow while
    it is made), yet what it holds is followed afterwards as for the explicit loop: never a
    silent value computed without the write."""
    expected, got = outcome(loop, (X,)), outcome(comprehension, (X,))
    if isinstance(expected, type):
        assert got is expected
        return
    assert got[0] == pytest.approx(comprehension(X.copy()))
    gradcheck.assert_close(got[1], gradcheck.numerical_gradient(comprehension, (X,), 0))
    gradcheck.assert_close(got[1], expected[1])
