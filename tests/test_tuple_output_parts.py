"""Parts of a tuple output the function never reads have zero adjoints, and the adjoint
templates' statements made from those parts alone are dropped (transform/templates.py,
absent_dropped; transform/reverse.py, _parts_read): a term like ``gaps * (Uᵀ ū)``, with ū
zero and ``gaps`` infinite at repeated singular values, gave nan where the derivative of
what the function reads is finite (the nuclear norm at an orthogonal matrix, the
eigenvalues of a matrix with a repeated one, the hvp of np.linalg.lstsq's solution at a
matrix with repeated singular values: fuzz seed 3448062407). SciPy's factorizations
called for one part alone (eigvals_only=True, compute_uv=False) get that part's terms
only (rt.if_output)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg

import srcad
from srcad import registry
from srcad.transform import templates
from tests.gradcheck import PATHS, check_gradient

TWICE_IDENTITY = 2.0 * np.eye(3)
ROTATION = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # orthogonal


def nuclear_norm(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[1])


def nuclear_norm_unpacked(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(s)


def scipy_nuclear_norm(a):
    return np.sum(scipy.linalg.svd(a, compute_uv=False))


def scipy_nuclear_norm_unpacked(a):
    u, s, vh = scipy.linalg.svd(a, full_matrices=False)
    return np.sum(s)


def eigenvalue_squares(a):
    return np.sum(np.linalg.eigh(a)[0] ** 2)


def scipy_eigenvalue_squares(a):
    return np.sum(scipy.linalg.eigh(a, eigvals_only=True) ** 2)


def scipy_eigenvalue_squares_unpacked(a):
    w, v = scipy.linalg.eigh(a)
    return np.sum(w ** 2)


@pytest.mark.parametrize("function", [nuclear_norm, nuclear_norm_unpacked, scipy_nuclear_norm,
                                      scipy_nuclear_norm_unpacked])
@pytest.mark.parametrize("a", [TWICE_IDENTITY, ROTATION], ids=["2I", "rotation"])
def test_nuclear_norm_at_repeated_singular_values(function, a):
    # the gradient of the sum of the singular values is u vh (a's polar factor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no division by zero on the way)
        gradient = srcad.grad(function)(a)
    assert np.allclose(gradient, a / np.linalg.norm(a[:, 0]))


@pytest.mark.parametrize("function", [eigenvalue_squares, scipy_eigenvalue_squares,
                                      scipy_eigenvalue_squares_unpacked])
def test_eigenvalues_at_a_repeated_one(function):
    # sum of the squared eigenvalues: the squared Frobenius norm of the lower triangle's
    # symmetric matrix, whose gradient (in the lower triangle eigh reads) is 2 a there, 4 a
    # off the diagonal
    a = TWICE_IDENTITY + np.diag([0.0, 0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradient = srcad.grad(function)(a)
    assert np.allclose(gradient, 2.0 * a)


def lstsq_solution(a):
    b = np.ones((3, 2))
    return np.sum(np.tanh(np.linalg.lstsq(a, b, rcond=None)[0]))


def test_hvp_of_lstsq_at_repeated_singular_values():
    a = 2.5 * np.eye(3) + 0.04 * np.ones((3, 3))  # singular values 2.62, 2.5, 2.5
    v = np.arange(9.0).reshape(3, 3) / 9.0
    gradient = srcad.grad(lstsq_solution)
    eps = 1e-5
    expected = (gradient(a + eps * v) - gradient(a - eps * v)) / (2 * eps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hvp = srcad.hvp(lstsq_solution)(a, v)
    assert np.allclose(hvp, expected, rtol=1e-5, atol=1e-7)


def test_the_singular_values_alone_need_only_u_and_vh():
    source = srcad.grad(nuclear_norm).source_for(ROTATION)
    assert "gaps" not in source and "svd[0] * np.expand_dims(" in source


# ---- at generic points, the parts read alone: the dropped statements added zero


RNG = np.random.default_rng(7)
TALL = RNG.normal(size=(4, 3))
SYMMETRIC = RNG.normal(size=(3, 3))
WEIGHTS = [RNG.normal(size=(4, 3)), RNG.normal(size=3), RNG.normal(size=(3, 3))]


# (squares: a singular vector's or eigenvector's sign is NumPy's choice, which finite
# differences must not see flip)
def _svd_part(index, svd):
    def function(a):
        return np.sum(np.sin((svd(a, full_matrices=False)[index] * WEIGHTS[index]) ** 2))
    return function


def _eigh_part(index, eigh):
    def function(a):
        return np.sum(np.sin((eigh(a)[index] * WEIGHTS[1 + index]) ** 2))
    return function


def _lstsq_part(index):
    def function(a, b):
        result = np.linalg.lstsq(a, b, rcond=None)
        return np.sum(np.sin(result[index])) if index != 3 else np.sum(result[3] ** 2)
    return function


PART_CASES = ([(_svd_part(i, svd), (TALL,)) for i in range(3)
               for svd in (np.linalg.svd, scipy.linalg.svd)]
              + [(_eigh_part(i, eigh), (SYMMETRIC,)) for i in range(2)
                 for eigh in (np.linalg.eigh, scipy.linalg.eigh)]
              + [(_lstsq_part(i), (TALL, RNG.normal(size=(4, 2)))) for i in (0, 1, 3)])


@pytest.mark.parametrize("case", range(len(PART_CASES)))
@pytest.mark.parametrize("path", PATHS)
def test_one_part_read_against_finite_differences(case, path):
    function, args = PART_CASES[case]
    check_gradient(function, list(args), wrt=0, path=path)


def test_dropped_statements_are_those_of_the_parts_not_read():
    template = registry.lookup(np.linalg.lstsq).adjoint
    compiled = templates._compiled(template)
    dropped = templates.absent_dropped(compiled, {"y": frozenset({0})})
    # the residuals' and the singular values' terms go; the solution's, and what they
    # compute from the primal values alone (the svd itself: dead code after), stay
    kept = [position for position in range(len(template.body)) if position not in dropped]
    text = [templates.gast.dump(template.body[position]) for position in sorted(dropped)]
    assert all("'weighted'" in t or "Constant(value=3" in t for t in text), text
    assert len(dropped) == 4 and len(kept) == len(template.body) - 4
    assert templates.absent_dropped(compiled, {"y": frozenset({0, 1, 2, 3})}) == frozenset()
