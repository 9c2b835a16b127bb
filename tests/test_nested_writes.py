"""Writes into nested elements (issue 11, item 7): ``xs[t][k] = 1`` writes into the
object ``xs[t]``, which every name holding it sees (normalize/to_anf names the element,
normalize/propagate_writes follows the write as through any alias). Values and every
mode are checked against NumPy's own run and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad import errors
from tests._fd import assert_close, numeric_grad
from tests.test_regressions import check_all_modes

X = np.array([0.3, -0.4, 1.2, 0.7])


def one_hot_inputs(x, inputs):
    # the classic character-level RNN's encoding: a dict of one-hot rows
    xs = {}
    for t in range(len(inputs)):
        xs[t] = np.zeros(4)
        xs[t][inputs[t]] = 1
    total = 0.0
    for t in range(len(inputs)):
        total = total + np.sum(np.tanh(xs[t] * x + 0.1 * t))
    return total


def softmax_minus_targets(x, targets):
    probabilities = [np.exp(x) / np.sum(np.exp(x)), np.exp(2.0 * x) / np.sum(np.exp(2.0 * x))]
    for i in range(2):
        probabilities[i][targets[i]] -= 1
    return np.sum(probabilities[0] * x) + np.sum(probabilities[1] ** 2)


def rows_of_a_matrix(x):
    M = np.outer(x, x)
    M[0][1] = x[0] * 2.0
    M[1][:] = np.sin(x)
    M[-1][-1] += x[2]
    M[2][[3, 0]] = x[:2] ** 2
    return np.sum(M ** 2)


def three_levels(x):
    T = np.zeros((2, 2, 4))
    T[1][0][2] = x[0] * x[1]
    T[0][1][:] = x ** 2
    return np.sum(T * np.arange(16.0).reshape(2, 2, 4))


def copies_are_not_written_back(x):
    M = np.outer(x, x)
    M[[0, 1]][0] = 5.0  # a fancy index makes a copy: M stays as it was
    M[M > 0.1][0] = 5.0  # so does a mask
    M[1:3][0] = x * 3.0  # a slice is a view: row 1 changes
    return np.sum(M ** 2)


def grid_accumulated_in_loops(x):
    grid = [np.zeros(4), np.zeros(4), np.zeros(4)]
    for i in range(3):
        for j in range(4):
            grid[i][j] += x[j] * (i + 1)
    return np.sum(grid[0] * grid[2]) + np.sum(np.sin(grid[1]))


def element_seen_by_another_name(x):
    rows = {"a": [x * 1.0, x * 2.0]}
    first = rows["a"][1]
    rows["a"][1][2] = x[0] ** 2  # first is that element: it sees the write
    return np.sum(first * x) + np.sum(rows["a"][0])


@pytest.mark.parametrize("function, args", [
    (one_hot_inputs, (X, [0, 2, 3])),
    (softmax_minus_targets, (X, [1, 2])),
    (rows_of_a_matrix, (X,)),
    (three_levels, (X,)),
    (copies_are_not_written_back, (X,)),
    (grid_accumulated_in_loops, (X,)),
    (element_seen_by_another_name, (X,)),
], ids=lambda value: getattr(value, "__name__", ""))
def test_nested_element_writes_follow_python(function, args):
    check_all_modes(function, list(args), 0)
    value, gradient = srcad.value_and_grad(function, optimize=False)(*args)
    assert_close(value, function(*args))
    assert_close(gradient, srcad.grad(function)(*args))


def writes_into_a_call_result(x):
    np.outer(x, x)[0][1] = 2.0
    return np.sum(x)


def test_a_write_into_something_unnamed_is_a_located_error():
    with pytest.raises(errors.UnsupportedSyntaxError) as caught:
        srcad.grad(writes_into_a_call_result)
    assert "np.outer(x, x)[0][1] = 2.0" in caught.value.location.line
    assert "Give the object a name first" in str(caught.value)


def diagonal_entries_in_a_loop(x):
    rows = [np.zeros(4) for _ in range(3)]
    for t in range(3):
        rows[t][t] = x[t]
        rows[t][t + 1] += x[t + 1] * 2.0
    return sum(np.sum(row * x) for row in rows)


def test_a_number_stored_into_an_element_keeps_no_memory_of_its_array():
    """propagate_writes: ``rows[t][t] = x[t]`` stored x[t] as if rows[t] then held part of x,
    so the next iteration's write into an element raised AliasedWriteError (cannot follow).
    Specialized for a vector x, x[t] is a number: nothing of x is kept. The generic code
    (optimize=False) refused too while the comprehension's list was taken to hold itself
    (rt.appended's result held its first argument, not just its elements); an array's
    element stores a copy of what is put there, so it now follows the write."""
    check_all_modes(diagonal_entries_in_a_loop, [X], 0)
    value, gradient = srcad.value_and_grad(diagonal_entries_in_a_loop, optimize=False)(X)
    assert_close(value, diagonal_entries_in_a_loop(X))
    assert_close(gradient, numeric_grad(diagonal_entries_in_a_loop, [X], 0))
