"""Minimal programs that once gave wrong derivatives or crashed, each checked against the math.

Every test names the pass that was at fault; the program is the smallest one found
that showed the defect (most come from the reproducers of issue 9 and the fuzzer).
Values are checked against central finite differences or closed forms, in every
mode the defect touched.
"""

import numpy as np
import pytest

import srcad
from tests._fd import assert_close, numeric_grad


def hvp_by_differences(function, args, position, direction, eps=1e-5):
    """Finite differences of srcad's gradient in ``direction`` (the second-order reference)."""
    gradient = srcad.grad(function, wrt=position)
    shifted = []
    for sign in (1.0, -1.0):
        moved = list(args)
        moved[position] = args[position] + sign * eps * direction
        shifted.append(np.asarray(gradient(*moved), dtype=float))
    return (shifted[0] - shifted[1]) / (2 * eps)


def check_all_modes(function, args, position, direction=None, second_order=True):
    """Value, gradient vs differences, jvp vs gradient, and hvp vs differences of the gradient."""
    value, gradient = srcad.value_and_grad(function, wrt=position)(*args)
    assert_close(value, function(*args))
    assert_close(gradient, numeric_grad(function, args, position))
    x = args[position]
    if direction is None:
        direction = np.linspace(0.5, 1.5, np.size(x)).reshape(np.shape(x))
        if np.ndim(x) == 0:
            direction = 1.0
    tangents = [None] * len(args)
    tangents[position] = direction
    output, output_tangent = srcad.jvp(function, args, tangents)
    assert_close(output, function(*args))
    assert_close(output_tangent, np.sum(np.asarray(gradient) * direction))
    if second_order:
        product = srcad.hvp(function, wrt=position)(*args, direction)
        assert_close(product, hvp_by_differences(function, args, position, direction),
                     rtol=1e-4, atol=1e-6)


# ---- emit: a negative constant printed without parentheses -----------------------------


def negative_base_power(x, n):
    return np.sum((-0.9) ** n * x)


def negative_base_power_of_constant(a):
    return (-0.9) ** 2 * a


def test_negative_constant_base_keeps_its_parentheses():
    """emit.py: ``(-0.9) ** n`` was printed ``-0.9 ** n`` (= -(0.9 ** n))."""
    x = np.array([1.0, 2.0])
    assert_close(srcad.grad(negative_base_power)(x, 2), np.full(2, 0.81))
    assert_close(srcad.grad(negative_base_power)(x, 3), np.full(2, -0.729))
    for optimize in (True, False):
        value, gradient = srcad.value_and_grad(negative_base_power_of_constant,
                                               optimize=optimize)(1.0)
        assert_close(value, 0.81)
        assert_close(gradient, 0.81)


# ---- normalize/anf: an attribute of a temporary taken for a static reference -----------


def transpose_of_expression(A):
    return np.sum((A * 2.0).T * np.arange(6.0).reshape(3, 2))


def test_attribute_of_an_expression_is_differentiated():
    """anf.py: temporaries were not local names, so ``mul.T`` passed for ``np.pi``."""
    A = np.array([[0.5, -1.0, 0.3], [0.2, 0.7, -0.4]])
    check_all_modes(transpose_of_expression, (A,), 0)


# ---- transform/reverse: the returned value read after the adjoint sweep ----------------


def rebound_in_loop(c, y):
    for i in range(2):
        c = c * y[i]
    return c


def rebound_in_loop_with_aux(c, y):
    for i in range(3):
        c = c * y[i]
    return c, c + 1.0


def test_value_and_aux_are_read_before_the_adjoint_sweep_restores_loop_variables():
    """reverse.py: value_and_grad returned ``c`` after the tape had restored its start value."""
    y = np.array([0.6, -1.1, 0.7])
    value, (c_bar, y_bar) = srcad.value_and_grad(rebound_in_loop, wrt=(0, 1))(0.5, y)
    assert_close(value, rebound_in_loop(0.5, y))
    assert_close(c_bar, numeric_grad(rebound_in_loop, (0.5, y), 0))
    assert_close(y_bar, numeric_grad(rebound_in_loop, (0.5, y), 1))
    (value, aux), c_bar = srcad.value_and_grad(rebound_in_loop_with_aux, has_aux=True)(0.5, y)
    assert_close(value, 0.5 * 0.6 * -1.1 * 0.7)
    assert_close(aux, value + 1.0)
    c_bar, aux = srcad.grad(rebound_in_loop_with_aux, has_aux=True)(0.5, y)
    assert_close(aux, 0.5 * 0.6 * -1.1 * 0.7 + 1.0)
    assert_close(c_bar, 0.6 * -1.1 * 0.7)


# ---- normalize/lower_exits: a loop header read again after the body rebound its names --


def iterate_rebound_sequence(x):
    s = 0.0
    for e in x:
        x = x * 2.0
        s = s + e * e
    return s + np.sum(x)


def iterate_rebound_enumerate(x):
    s = 0.0
    for i, e in enumerate(x):
        x = x * 1.5
        s = s + e * i
    return s


def range_bound_rebound(a, n):
    s = 0.0
    for i in range(n):
        n = n - 1
        s = s * a + 1.0
    return s


def range_bound_grows(a, n):
    s = 0.0
    for i in range(1, n, 1):
        n = n + 1
        s = s + a * i
    return s


@pytest.mark.parametrize("function", [iterate_rebound_sequence, iterate_rebound_enumerate])
def test_loop_over_a_sequence_the_body_rebinds(function):
    """lower_exits.py: ``for e in x`` read the new ``x`` after the body rebound it."""
    check_all_modes(function, (np.array([1.0, 2.0, 3.0]),), 0)


@pytest.mark.parametrize("function", [range_bound_rebound, range_bound_grows])
def test_range_bound_the_body_rebinds(function):
    """lower_exits.py: the reverse loop evaluated ``range(n)`` with the final ``n``."""
    check_all_modes(function, (1.5, 4), 0)


# ---- transform/reverse: an inner loop's reverse starts from its end values --------------
# The reverse of an inner loop begins with the carried variables' values at the end of
# that inner loop; for every outer iteration but the last, the enclosing loop must
# restore them (they were not marked as needed, so the reverse read stale values).


def inner_loop_in_outer(b, a):
    for i in range(2):
        a = a * a
        for j in range(2):
            a = a / b
    return a


def inner_loop_through_max(x):
    b = 0.0
    for i in range(2):
        for j in range(1):
            b = np.max(x * (i + 1.0))
        b = b + 1.0
    return b


def while_counter_in_for(x):
    s = 0.0
    for j in range(2):
        p = x
        k = 0
        while k < 2:
            k += 1
            p = np.array([p[k] * 1.5, p[0], p[1]])
        s = s + np.sum(p * np.array([1.0, 2.0, 3.0]))
    return s


def three_nested_loops(a, b):
    for i in range(2):
        a = a * b
        for j in range(2):
            a = np.sin(a) + b
            for k in range(2):
                a = a * a + 0.1
    return a


def test_inner_loop_reverse_restores_end_values():
    """reverse.py: a**4 / b**6: d/db was right only for the last outer iteration."""
    gradients = srcad.grad(inner_loop_in_outer, wrt=(0, 1))(0.8, 0.7)
    assert_close(gradients, (-6 * 0.7 ** 4 / 0.8 ** 7, 4 * 0.7 ** 3 / 0.8 ** 6))
    check_all_modes(inner_loop_in_outer, (0.8, 0.7), 0)
    check_all_modes(inner_loop_in_outer, (0.8, 0.7), 1)


def test_inner_loop_reverse_through_max_has_no_nan():
    x = np.array([-0.57, -0.55, -1.05])
    assert_close(srcad.grad(inner_loop_through_max)(x), np.array([0.0, 2.0, 0.0]))
    check_all_modes(inner_loop_through_max, (x,), 0, second_order=False)


def test_while_counter_inside_for_is_restored():
    x = np.array([-0.435, 1.147, 0.643])
    check_all_modes(while_counter_in_for, (x,), 0)


def test_three_nested_loops():
    check_all_modes(three_nested_loops, (0.3, 0.4), 0)
    check_all_modes(three_nested_loops, (0.3, 0.4), 1)


# ---- normalize/rename_versions: loop targets of nested loops ----------------------------


def nested_loops_power(a):
    for i in range(2):
        for j in range(2):
            a = a * a
    return a


def test_hvp_of_nested_loops():
    """rename_versions.py: the inner loop's target was carried by the reverse outer loop
    of the gradient code (KeyError when forward mode normalized that code)."""
    assert_close(srcad.hvp(nested_loops_power)(0.9, 1.0), 240 * 0.9 ** 14)
    check_all_modes(nested_loops_power, (0.9,), 0)


# ---- normalize/rename_versions: names only some paths bind ------------------------------
# Python lets a function read a name only on the paths that assign it; the derivative
# code copied such names at every branch join (and read them for a zero adjoint's shape)
# on every path. They now start as placeholders (None) that are never used.


def branch_in_loop_not_taken(x, b):
    for i in range(2):
        if x[i] > 5.0:
            b = b * x[i]
    return b


def return_in_if_assign_in_else(x):
    if x[0] > 0.0:
        return x @ x
    else:
        y = x * 2.0
    return np.sum(y * y)


def loop_temporary_read_on_some_paths(x, n):
    s = 0.0
    k = 0
    while k < n:
        if x[k] > 0:
            t = x[k] * 2.0
        else:
            t = x[k] * x[k]
        s = s + t * x[0]
        k += 1
    for i in range(n):
        u = np.sin(x[i])
        for j in range(n):
            s = s + u * u
    return s + np.sum(x)


def test_hvp_when_a_branch_in_a_loop_is_never_taken():
    x = np.array([0.5, -0.2])
    assert srcad.hvp(branch_in_loop_not_taken, wrt=1)(x, 0.3, 1.0) == 0.0
    check_all_modes(branch_in_loop_not_taken, (x, 0.3), 1)
    check_all_modes(branch_in_loop_not_taken, (np.array([6.0, 0.5]), 0.3), 1)


@pytest.mark.parametrize("x", [np.array([0.5, -0.2]), np.array([-0.5, 0.2])])
def test_return_in_if_and_assignment_in_else(x):
    check_all_modes(return_in_if_assign_in_else, (x,), 0)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_loop_temporaries_and_zero_trip_loops(n):
    check_all_modes(loop_temporary_read_on_some_paths, (np.array([0.3, -0.4]), n), 0)


# ---- normalize/lower_exits: break/continue in a nested loop's `else` --------------------


def continue_in_inner_for_else(x, a):
    for e in x:
        for i in range(2):
            a = a * e
        else:
            if e > 0.0:
                continue
        a = a + e
    return a


def break_in_inner_while_else(x, a):
    for e in x:
        k = 0
        while k < 2:
            a = a * e + 0.1
            k += 1
        else:
            if e < 0.0:
                break
        a = a * 1.5
    return a


@pytest.mark.parametrize("function", [continue_in_inner_for_else, break_in_inner_while_else])
def test_exit_in_the_else_of_an_inner_loop_belongs_to_the_outer_loop(function):
    """lower_exits.py looked for the outer loop's continue/break only outside inner loops."""
    x = np.array([0.5, -0.2, 0.7])
    assert type(srcad.grad(function, wrt=1)(x, 1.5)) is float
    check_all_modes(function, (x, 1.5), 0)
    check_all_modes(function, (x, 1.5), 1)


def float_carried_through_numpy_scalars(x, a):
    for e in x:
        a = a * e
    return a


def test_gradient_of_a_float_stays_a_float_when_the_name_holds_numpy_scalars():
    """specialize_runtime_calls.py: match_type was dropped for a name whose kind was
    "some scalar" (a float parameter rebound to NumPy scalars), leaking np.float64."""
    x = np.array([0.5, -0.2])
    gradient = srcad.grad(float_carried_through_numpy_scalars, wrt=1)(x, 1.5)
    assert type(gradient) is float
    output, tangent = srcad.jvp(float_carried_through_numpy_scalars, (x, 1.5), (None, 1.0))
    assert_close(tangent, -0.1)


# ---- normalize: summed comprehensions anywhere, lowered where Python evaluates them ------
# lower_comprehensions ran as a pass of its own before A-normal form: it hoisted every
# sum in front of its statement, so a sum in a loop header was missed (an internal
# AssertionError), a `while` test's sum was rejected, and a nested sum reading the outer
# variable was hoisted out of the outer loop (NameError). to_anf now lowers each sum
# where it evaluates it.


def summed_genexp_in_loop_iterable(x, a):
    s = 0.0
    for e in (a, sum(k * a for k in x)):
        s = s + e * e
    return s


def nested_summed_genexps(x):
    return sum(sum(x[i] * x[j] for j in range(i + 1)) for i in range(3))


def summed_genexp_in_while_test(x, a):
    while sum(e * a for e in x) < 5.0:
        a = a * 1.5
    return a * a


def summed_genexp_short_circuit(x, n):
    # the sum divides by n: it must only run when n > 0, as in Python
    if n > 0 and sum(x[i] for i in range(n)) / n > 0.1:
        return np.sum(x * x)
    return np.sum(x) if n == 0 or sum(x[i] * x[i] for i in range(n)) < 1.0 else 0.0


def summed_comprehension_with_two_clauses(x):
    square = lambda t: t * t  # noqa: E731
    return sum(square(x[i] - x[j]) for i in range(3) for j in range(i) if i != j)


def test_summed_generator_in_a_loop_iterable():
    check_all_modes(summed_genexp_in_loop_iterable, (np.array([0.5, -0.2, 0.9]), 0.3), 0)
    check_all_modes(summed_genexp_in_loop_iterable, (np.array([0.5, -0.2, 0.9]), 0.3), 1)


def test_nested_summed_generators():
    x = np.array([0.5, -0.2, 0.4])
    check_all_modes(nested_summed_genexps, (x,), 0)


def test_summed_generator_in_a_while_test_is_evaluated_each_iteration():
    x = np.array([0.5, 0.2])
    assert_close(summed_genexp_in_while_test(x, 1.0), 1.5 ** 10)
    check_all_modes(summed_genexp_in_while_test, (x, 1.0), 1)


@pytest.mark.parametrize("n", [0, 2, 3])
def test_summed_generator_under_and_or_runs_only_when_python_runs_it(n):
    check_all_modes(summed_genexp_short_circuit, (np.array([0.5, -0.2, 0.4]), n), 0)


def test_summed_comprehension_with_two_clauses_and_a_lambda():
    check_all_modes(summed_comprehension_with_two_clauses, (np.array([0.5, -0.2, 0.4]),), 0)


# ---- normalize/inline: a callee's renaming reached into its nested functions ------------


def helper_with_nested_keyword_default(p):
    def g(t, c=0.5):
        c += t
        return t * c
    return g(p, c=0.9)


def helper_shadowing_its_nested_parameter(p):
    c = p * 3.0

    def g(t, c=0.5):
        return t * c
    return g(p, c=c) + g(c)


def calls_the_helpers_twice(x):
    return (helper_with_nested_keyword_default(x) + helper_with_nested_keyword_default(x * 2.0)
            + helper_shadowing_its_nested_parameter(x)
            + helper_shadowing_its_nested_parameter(x - 1.0))


def test_nested_function_keeps_its_parameter_names_when_its_parent_is_inlined_twice():
    """inline.py renamed the nested def's parameter ``c`` with its parent's locals, so the
    second inlining's keyword call ``g(p, c=0.9)`` no longer matched (a false rejection)."""
    assert_close(srcad.grad(calls_the_helpers_twice)(0.3), numeric_grad(
        calls_the_helpers_twice, (0.3,), 0))
    check_all_modes(calls_the_helpers_twice, (0.3,), 0)


# ---- transform/reverse: a loop outside loops overwrites values read before it ----------
# rename_versions lets such a loop carry its variables in the names they had before it.
# The loop's reverse restores the start values it records, but a loop with nothing to
# differentiate has no reverse: the adjoint of `a = s * a` read the loop's final `s`.


def inactive_loop_overwrites_a_value_read_before_it(a, x):
    s = 0.0
    a = s * a + a * 0.5
    if a > -0.2:
        k = 0
        while k < 2:
            k += 1
            s = s * 0.9 + 0.1
        for i in range(2):
            x = x * 0.5
    return s * a + np.sum(x)


def test_loop_without_derivative_does_not_change_values_read_before_it():
    check_all_modes(inactive_loop_overwrites_a_value_read_before_it, (0.37, 1.5), 0)
    assert_close(srcad.grad(inactive_loop_overwrites_a_value_read_before_it)(0.37, 1.5),
                 0.5 * 0.19)


# ---- templates: range in generated code is not differentiable --------------------------


def summed_generator_in_a_loop(x, y):
    for i in range(2):
        y = 0.5 * y + np.tanh(sum(e for e in x))
    return np.sin(y)


def test_hvp_through_a_summed_generator_in_a_loop():
    """The gradient code tapes len(x) with floats; forward mode over it asked range(...)
    for a tangent (a false rejection): range and slice are non-differentiable."""
    check_all_modes(summed_generator_in_a_loop, (np.array([0.1, 0.2, 0.3]), 0.3), 0)
    check_all_modes(summed_generator_in_a_loop, (np.array([0.1, 0.2, 0.3]), 0.3), 1)


# ---- normalize/lower_exits: iteration helpers nested in each other -----------------------


def enumerate_of_zip(u, v):
    s = 0.0
    for k, (a, b) in enumerate(zip(u, v)):
        s = s + k * a * b + a
    return s


def zip_of_enumerate_and_reversed(u, v):
    s = 0.0
    for (k, a), b in zip(enumerate(u, 1), reversed(v)):
        s = s + k * a * np.sin(b)
    for pair in zip(u, v):
        s = s + pair[0] * pair[1]
    for i, a in enumerate(reversed(u)):
        s = s * 0.9 + i * a
    return s


@pytest.mark.parametrize("function", [enumerate_of_zip, zip_of_enumerate_and_reversed])
def test_nested_iteration_helpers(function):
    """lower_exits.py indexed ``enumerate(zip(u, v))`` as a sequence: len() of a zip."""
    u, v = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0, 4.0])
    for position in (0, 1):
        check_all_modes(function, (u, v), position)


# ---- normalize: a nested function's default is evaluated where the def runs -------------


def nested_default_reads_a_variable(x):
    s = 0.5 * x

    def inner(u, c=s):
        return u * c
    scale = lambda t, k=s * s: t * k  # noqa: E731
    s = s * 10.0
    return inner(x) + s * x + scale(x) + inner(x, c=s)


def test_nested_function_default_naming_a_variable():
    """A default that is not a constant was rejected; it is the value at the def."""
    check_all_modes(nested_default_reads_a_variable, (0.7,), 0)


# ---- transform/forward: a zero tangent of an in-place update reads its result ----------


def append_a_constant_then_varied_values(x):
    lst = []
    lst.append(0.5)
    for i in range(2):
        lst.append(x[i] * x[i])
    return sum(lst) + lst[0] * x[0]


def test_jvp_of_an_append_with_nothing_varied():
    """forward.py put every in-place update's tangent before the update; a zero tangent is
    ``rt.zeros_like(result)``, which read the result before it was assigned."""
    check_all_modes(append_a_constant_then_varied_values, (np.array([0.3, 0.4]),), 0)


# ---- normalize/propagate_writes: `+=` on a float never writes into another name ---------


def augmented_float_shared_on_one_path(x):
    k = 0
    result = 0.0
    while k < 3:
        k = k + 1
        if x > 5.0:
            result = x
            break
        x = 0.5 * x + np.square(np.tanh((x * np.ones(3))[2]))
        x += np.cos(x)
    return x + result


def test_augmented_assignment_of_a_float_that_may_share_with_another_name():
    """The aliasing pass could not tell whether ``x += v`` changes ``result`` (``result =
    x`` on another path) and raised AliasedWriteError when the write ran. A float's ``+=``
    makes a new float: the check now runs only if the write is in place (found by the
    fuzzer, seed 1202)."""
    check_all_modes(augmented_float_shared_on_one_path, (-0.01,), 0)
    check_all_modes(augmented_float_shared_on_one_path, (np.float64(0.3),), 0)


# ---- runtime.zeros_like: the tangent of a taped range (hvp of a reversed loop) ----------


def reversed_loop_over_a_list_in_a_loop(x, items):
    for k in range(2):
        for item in reversed(items):
            x = np.sqrt(1.0 + x ** 2) + 0.1 * item[1]
    return np.sum(x)


def test_hvp_of_a_reversed_loop_nested_in_a_loop():
    """The gradient code tapes the inner loop's steps, ``range(len(items))[::-1]``, with
    the values; forward mode over it gave the range the zero tangent ``0.0`` and then
    indexed it (TypeError; found by the fuzzer, seed 1202, program 1745)."""
    items = [(np.array([0.5, 0.9]), 1.0), (np.array([0.8, 1.4]), 2.0)]
    check_all_modes(reversed_loop_over_a_list_in_a_loop, (np.array([0.99, -1.09]), items), 0)


# ---- normalize/propagate_writes: a write cannot change a name holding a float -----------


def write_after_a_float_taken_from_the_array_on_a_returning_path(x0, x2):
    x2 = 0.39 * x2 + np.cbrt(1.5 + np.sin(np.ones(3)))
    s1 = np.sqrt(1.0 + x0 ** 2)
    for i1 in range(1):
        if x0 >= np.sum(x2[:2]):
            return x2[:2][i1]
        if np.arctan(s1) > x0:
            x2[i1] += x2[1:][-1] + (np.tanh(np.sum(x2)) ** 2)
        elif np.linalg.norm(x2) > 0.0:
            s1 = s1 + 0.46 * np.square(np.tanh(s1))
        else:
            x2[i1] = x0
    return 0.45 * np.sum(np.tanh(x2)) + 0.31 * np.sin(s1)


def test_write_that_cannot_be_followed_passes_when_the_other_name_holds_a_float():
    """``result = x[:2][i]`` (a float) on a returning path, then ``x[i] += ...``: the
    aliasing pass could not tell, after the earlier write's copy, whether the write
    changes ``result`` and raised AliasedWriteError. A write changes arrays, lists and
    dicts only: the check now raises only if the other name holds one (fuzz seed 1203,
    program 756)."""
    args = (-0.974357, np.array([-0.050005, 1.19853, -1.36785]))
    check_all_modes(write_after_a_float_taken_from_the_array_on_a_returning_path, args, 0)
    check_all_modes(write_after_a_float_taken_from_the_array_on_a_returning_path, args, 1)


# ---- normalize/split_tuples: a split copy of a container that stays whole ---------------


def second_of_pair(pair):
    return pair[1][0]


def list_copied_into_a_helper_and_iterated(x):
    parts = [x, np.sin(x)]
    head = second_of_pair(parts)
    return sum(np.sum(p ** 2) for p in parts) + head


def test_copy_of_a_list_that_stays_whole_is_not_split():
    """The inlined helper copies the list (``pair = parts``) and indexes it with
    constants, so the copy was split; the list itself is iterated, so it stays whole, and
    splitting the copy looked up the list's parts (KeyError). A copy of a container that
    is not split is now not split either (fuzz seed 1203, program 2814)."""
    check_all_modes(list_copied_into_a_helper_and_iterated, (np.array([0.1, -0.7, 1.3]),), 0)


# ---- templates: second derivatives of np.linalg.norm where the norm is zero -------------


def zero_weighted_norm_plus_square(x):
    return 0.0 * np.linalg.norm(x) + np.sum(x ** 2)


def norm_of_a_zero_product(m):
    y = np.zeros(2)
    y[0] *= np.sin(np.linalg.norm(y @ m))
    return np.sum(np.tanh(y)) + np.sum(m ** 2)


@pytest.mark.parametrize("function, x", [
    (zero_weighted_norm_plus_square, np.zeros(3)),
    (norm_of_a_zero_product, np.arange(6.0).reshape(2, 3) * 0.1)])
def test_hvp_through_a_zero_norm(function, x):
    """The gradient code of ``np.linalg.norm`` divides by the norm with zeros read as 1
    (a zero norm means a zero x); its tangent and adjoint divided by the plain norm, so
    the hvp was nan where the first derivative was right. Both now use ``rt.nonzero``
    (fuzz seed 1204, program 1494)."""
    direction = np.linspace(0.5, 1.5, x.size).reshape(x.shape)
    assert_close(srcad.hvp(function)(x, direction), 2.0 * direction)
    assert_close(srcad.grad(function)(x), 2.0 * x)


# ---- runtime.cannot_follow_write: a write into an array cannot change a list of floats ---


def floats_from_an_array_written_in_a_loop(par, x):
    v = np.sqrt(1.0 + (par["w"] * np.ones((2, 3))) ** 2)
    floats = []
    if np.dot(np.array([np.mean((x[1:].reshape(2, 1) * (np.array([0.82, 0.93]) @ v))),
                        par["b"], par["b"]]), np.ravel(v)[2:5]) <= -0.16:
        for i in range(1, 2):
            v[:, i] = v[-2, 1:]
            floats.append(np.log(1.5 + np.cos(par["b"])) + v[-2, -1])
    return np.sum(np.tanh(v)) + 0.44 * np.sum(np.tanh(x)) + sum(np.tanh(e) for e in floats)


def test_write_into_an_array_passes_when_the_other_name_holds_a_list_of_floats():
    """``floats`` may share with ``v`` for the aliasing pass, and after the loop's first
    write memory cannot tell, so the write raised AliasedWriteError if ``floats`` held any
    list. A write into an array changes arrays only: the check now gets the written
    object and raises only if the other name holds an array (fuzz seed 1204, program
    1905)."""
    par = {"w": np.array([-1.009799, -1.310589, -0.336226]), "b": -1.329068}
    check_all_modes(floats_from_an_array_written_in_a_loop,
                    (par, np.array([-0.25206, -0.047668, 1.279171])), 1)


# ---- templates: np.ones(shape) has a shape rule (a row of x * np.ones(...) written) ------


def row_of_a_broadcast_product_written_in_a_loop(n, x, c):
    v = (x * np.ones((2, 3)))[n % 2]
    for i in range(n):
        v[1] *= np.cos(c)
    x = 0.5 * x + v
    return np.sum(np.tanh(x)) + np.sum(v)


def test_write_into_a_row_of_a_product_with_np_ones():
    """np.ones had no shape rule, so in the specialized code ``x * np.ones(...)`` (and,
    through ``x = 0.5 * x + v``, ``x`` itself) had an unknown kind: the aliasing pass took
    x for a possible list whose elements the row ``v`` might be, and the write raised
    AliasedWriteError. np.zeros/ones/empty(shape) and the *_like functions now have shape
    rules (fuzz seed 1204, program 2580)."""
    check_all_modes(row_of_a_broadcast_product_written_in_a_loop,
                    (3, np.array([0.1, -0.4, 0.3]), 0.4), 2)
    check_all_modes(row_of_a_broadcast_product_written_in_a_loop,
                    (3, np.array([0.1, -0.4, 0.3]), 0.4), 1)


# ---- templates: the exponent's term of a ** b where nothing flows (negative base) -------


def early_return_from_a_loop_with_an_alternating_sign(x):
    items = []
    for k, (a, b) in enumerate(zip(x * np.ones(3), x * np.ones(3))):
        v = np.sqrt(1.0 + ((-1.1) ** k * (x * np.ones(3))) ** 2)
        items.append(v[:2])
        if v[k] + x > 0.22:
            return b
    return 1.14 * np.sin(x) + 0.77 * sum(np.sum(np.tanh(e)) for e in items)


def test_hvp_of_a_negative_base_to_an_integer_loop_index():
    """``(-1.1) ** k``: the exponent's term of the power's derivatives is ``g * z *
    log(base)``, nan for a negative base. In hvp, ``k`` comes back from the tape with a
    zero tangent the generated code cannot see is constant, and 0 * nan made the hvp nan.
    The term is now ``rt.times_log_of_base``, 0 where nothing flows (fuzz seed 1204,
    program 4923)."""
    check_all_modes(early_return_from_a_loop_with_an_alternating_sign, (-0.565482,), 0)
    check_all_modes(early_return_from_a_loop_with_an_alternating_sign, (0.1,), 0)


# ---- normalize/propagate_writes: a list element written in place, seen by another name --


def element_written_through_another_name_in_a_loop(x):
    rows = [x * 1.0, x * 2.0]
    keep = rows[1]
    for i in range(2):
        element = rows[i]
        element[i] = element[i] * 3.0 + x[i]
    return np.sum(keep * x) + np.sum(rows[0] ** 2)


def element_rebound_before_the_write(x):
    rows = [x * 1.0, x * 2.0]
    keep = rows[1]
    rows[1] = x * 5.0
    element = rows[1]
    element[0] = 9.0
    return np.sum(keep * x) + np.sum(rows[1] * x)


def test_a_list_element_written_in_place_changes_every_name_holding_it():
    """``keep = rows[1]`` and ``element = rows[i]`` are one object when i == 1: a write into
    element changes keep. propagate_writes carried the write up to ``rows`` and remade the
    parts of rows that see a write into rows; for a list that is no part (rebinding a slot
    leaves the old element as it was), so keep kept its old value: a wrong value and
    gradient, silently. Parts of a base written through one of its elements are now remade
    when they are that very element object (rt.writes_through), as views of an array are.
    (Found while adding nested element writes, issue 11.)"""
    x = np.array([0.3, -0.4, 1.2, 0.7])
    check_all_modes(element_written_through_another_name_in_a_loop, (x,), 0)
    check_all_modes(element_rebound_before_the_write, (x,), 0)


# ---- normalize/inline: a nested function defined in each branch under one name ----------


def lambda_chosen_by_a_branch(x, c):
    if c > 0:
        f = lambda t: t * 2.0  # noqa: E731
    else:
        f = lambda t: t * 3.0  # noqa: E731
    return np.sum(f(x))


def def_chosen_by_a_branch(x, c):
    if c > 0:
        def f(t):
            return t * 2.0
    else:
        def f(t):
            return t * 3.0
    return np.sum(f(x))


@pytest.mark.parametrize("function", [lambda_chosen_by_a_branch, def_chosen_by_a_branch])
def test_a_nested_function_bound_in_two_branches_is_refused(function):
    """Calls through a nested def's (or lambda's) name are resolved once, at the definition
    to_anf saw last: with one in each branch, both branches called the second, and the
    gradient was 3 where it is 2, silently. A name bound more than once is now refused at
    the definition (inline.capture_local_function); a nested def's name is a local of its
    function (parse._names_of), renamed per inlining like the others. (Found while
    adding builders that return closures, issue 11.)"""
    from srcad import errors

    with pytest.raises(errors.UnsupportedSyntaxError) as caught:
        srcad.grad(function)(np.array([0.3, -0.4]), 1.0)
    assert "bound more than once" in str(caught.value)
    assert "f" in caught.value.location.line


def defines_an_unused_closure(a):
    def unused(u):
        return u * 2.0
    return a + 1.0


def calls_it_through_another_helper(b):
    b = b + np.tanh(defines_an_unused_closure(b))
    return b


def inlines_the_definition_twice(x):
    return calls_it_through_another_helper(x) * calls_it_through_another_helper(x * x)


def test_a_nested_def_never_called_is_renamed_per_inlining():
    """A helper inlined twice whose nested def is never called was refused as 'bound more
    than once': inline.prepare_callee renamed the names read and stored, and a def's name
    is neither unless it is called. (Found by the fuzzer, seed 777.)"""
    gradient = srcad.grad(inlines_the_definition_twice)(0.5)
    assert_close(gradient, numeric_grad(inlines_the_definition_twice, [0.5], 0))


def constant_list_squared_times(x):
    return np.sum(np.square([1, 2]) * x)


def times_a_list(x):
    return np.sum(x * [1.0, 2.0])


def test_a_list_given_to_a_ufunc_is_an_array_for_the_shape_rules():
    """np.square([1, 2]) is an array of shape (2,), but the shape rules took the list for a
    scalar (analysis/shapes._broadcast counted whatever was not an Array as a scalar), so
    with an x of shape (1,) or () the specialized gradient dropped the sum over the list's axis and returned
    [1, 4] where the gradient is 5, silently. Anything not an Array or a Scalar now makes
    the broadcast unknown."""
    for function in (constant_list_squared_times, times_a_list):
        for x in (np.array([1.5]), np.array([1.0, 0.5])):
            check_all_modes(function, [x], 0)


def squares_a_list_display(x):
    return np.sum(np.square([x[0], x[1]]) + np.sqrt((x[2], 2.0)) * np.maximum([x[0], 1.0], 0.5))


def test_a_list_display_given_to_a_ufunc_is_differentiated_as_an_array():
    """np.square([a, b]): the square's derivative 2.0 * x repeated the list (or raised a
    TypeError): a list or tuple display given to a ufunc is now made an array where it is
    written (normalize/to_anf.ufunc_displays_as_arrays), as NumPy itself does."""
    check_all_modes(squares_a_list_display, [np.array([0.3, 0.7, 0.2, 0.9])], 0)


def clip_with_crossed_bounds(x, low, high):
    return np.sum(np.clip(x, low, high) * np.array([1.0, 2.0, 3.0]))


def clip_method_with_crossed_bounds(x, low, high):
    return np.sum(np.sin(x.clip(low, high)) * np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("function", [clip_with_crossed_bounds, clip_method_with_crossed_bounds])
def test_clip_with_its_low_bound_above_its_high_one(function):
    """np.clip(x, 0.7, 0.3) is 0.3 everywhere (minimum(maximum(x, low), high)); the
    templates assumed low <= high and gave low the derivative where x < low and high only
    where x > high: 3.0 and 5.0 where they are 0 and 6, silently. The low bound now gets it
    only where the result is low, the high one where x is above it or the bounds cross."""
    args = [np.array([0.1, 0.5, 0.9]), 0.7, 0.3]
    for position in range(3):
        check_all_modes(function, args, position)
    args = [np.array([0.1, 0.5, 0.9]), 0.3, 0.7]  # ordered bounds: unchanged
    for position in range(3):
        check_all_modes(function, args, position)


def real_part_of_a_complex_product(x):
    return np.sum(np.real(x * (1 + 2j)))


def squares(x):
    return np.sum(x ** 2)


def test_complex_values_are_refused_not_differentiated_wrongly():
    """np.real(x * (1 + 2j)) has gradient 1 in a real x; srcad returned 1 + 2j (its
    templates are derivatives of real functions, without the conjugates complex values
    need). Complex literals and complex arguments are now refused, located."""
    from srcad import errors

    with pytest.raises(errors.UnsupportedSyntaxError) as caught:
        srcad.grad(real_part_of_a_complex_product)(np.array([1.0, 2.0]))
    assert "complex number" in str(caught.value) and "2j" in caught.value.location.line
    for argument in (np.array([1.0 + 1.0j]), 1j, np.complex128(1.0)):
        with pytest.raises(errors.NondifferentiableArgumentError, match="complex"):
            srcad.grad(squares)(argument)


def sine_of_split_parts(x):
    return np.sum(np.sin(np.split(x, 2)))


def square_of_a_list_made_before(x):
    parts = np.split(x, 2)
    return np.sum(np.exp(parts) * np.cos(parts) + np.square(parts))


def square_of_a_comprehension(x):
    return np.sum(np.square([t * 2.0 for t in x])) + np.sum(np.log1p([x[0], x[1] * x[2]]))


@pytest.mark.parametrize("function", [sine_of_split_parts, square_of_a_list_made_before,
                                      square_of_a_comprehension])
def test_a_list_given_to_a_ufunc_in_every_mode(function):
    """A ufunc given a list (np.split's parts, a comprehension's list, a name bound to a
    list): its derivatives did arithmetic on the list (``-parts_dot * np.sin(parts)``:
    TypeError in jvp and hvp; ``2.0 * items``: TypeError in grad). The ufunc's argument is
    now np.asarray of the list (normalize/to_anf.ufunc_displays_as_arrays)."""
    check_all_modes(function, [np.array([0.3, 0.7, 0.2, 0.9])], 0)


def largest_of_three(x, y):
    return max(x * y, y, 0.1) + min(x, y * y, 2.0, x * 0.5 + 1.0) * x


def test_max_and_min_of_more_than_two_values():
    """max(a, b, c) raised an internal TemplateError (the template of max takes two values);
    it is now max(max(a, b), c), the first largest as Python keeps."""
    check_all_modes(largest_of_three, [0.7, 1.3], 0, direction=1.0)
    check_all_modes(largest_of_three, [0.7, 1.3], 1, direction=1.0)
