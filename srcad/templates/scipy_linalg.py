"""scipy.linalg: solve, inv, det (as np.linalg's, srcad/templates/numpy_linalg.py),
solve_triangular and expm. Registered only when SciPy imports: srcad does not need it.

Not yet: scipy.linalg.cholesky, eigh, svd, qr (their defaults differ from NumPy's: an upper
factor, full matrices) and cho_solve."""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, shape_rule, tangent

try:
    from scipy import linalg
except ImportError:  # SciPy is optional: without it, nothing here is registered
    linalg = None


def _general_matrix(name):
    """A matrix assumed symmetric (or transposed) is read in part: refused."""
    def check(arguments, carries, resolve):
        for parameter, allowed in (("assume_a", (None, "gen", "general")),
                                   ("transposed", (False,))):
            value = arguments.get(parameter)
            if value is not None and not (isinstance(value, gast.Constant)
                                          and value.value in allowed):
                why = ("srcad differentiates scipy.linalg.%s of a general matrix only "
                       "(assume_a=None, transposed=False)" % name)
                return why, "Call it without assume_a and transposed, or use np.linalg.%s." % name
        return None
    return check


def _plain_triangular(arguments, carries, resolve):
    for name, wanted in (("trans", 0), ("unit_diagonal", False)):
        value = arguments[name]
        if not (isinstance(value, gast.Constant) and value.value == wanted):
            why = ("srcad differentiates scipy.linalg.solve_triangular with trans=0 and "
                   "unit_diagonal=False (constants) only")
            return why, "Transpose the matrix yourself (np.swapaxes(a, -1, -2)) and pass trans=0."
    return None


def _one_matrix(a):
    a = shapes.plain(a)
    return a if isinstance(a, shapes.Array) and a.ndim == 2 else None


def _one_matrix_like(a, *rest, **kwargs):
    """inv, expm of one matrix: its shape."""
    return _one_matrix(a) or shapes.UNKNOWN


def _one_matrix_determinant(a, *rest, **kwargs):
    return shapes.ANY_SCALAR if _one_matrix(a) else shapes.UNKNOWN


def _one_matrix_solution(a, b, *rest, **kwargs):
    """solve, solve_triangular with one matrix: x has b's shape (a vector or columns)."""
    b = shapes.plain(b)
    if _one_matrix(a) and isinstance(b, shapes.Array) and b.ndim in (1, 2):
        return b
    return shapes.UNKNOWN


if linalg is not None:
    @adjoint(linalg.solve)
    def solve(x, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
              assume_a=None, transposed=False):
        b_columns = np.linalg.solve(rt.matrix_transpose(a), rt.solve_columns(d[x], x, a))
        d[b] += rt.unbroadcast(np.reshape(b_columns, np.shape(x)), b)
        d[a] -= rt.unbroadcast(
            np.matmul(b_columns, rt.matrix_transpose(rt.solve_columns(x, x, a))), a)

    @tangent(linalg.solve)
    def solve(x, a, b, lower=False, overwrite_a=False, overwrite_b=False,  # noqa: F811
              check_finite=True, assume_a=None, transposed=False):
        d[x] = np.reshape(np.linalg.solve(a, rt.solve_columns(d[b], x, a) - np.matmul(
            d[a], rt.solve_columns(x, x, a))), np.shape(x))

    @adjoint(linalg.inv)
    def inv(y, a, overwrite_a=False, check_finite=True, assume_a=None, lower=False):
        d[a] -= np.matmul(rt.matrix_transpose(y), np.matmul(d[y], rt.matrix_transpose(y)))

    @tangent(linalg.inv)
    def inv(y, a, overwrite_a=False, check_finite=True, assume_a=None,  # noqa: F811
            lower=False):
        d[y] = -np.matmul(y, np.matmul(d[a], y))

    @adjoint(linalg.det)
    def det(y, a, overwrite_a=False, check_finite=True):
        d[a] += np.linalg.solve(rt.matrix_transpose(a), np.expand_dims(d[y] * y, (-2, -1))
                                * np.eye(np.shape(a)[-1]))

    @tangent(linalg.det)
    def det(y, a, overwrite_a=False, check_finite=True):  # noqa: F811
        d[y] = y * np.trace(np.linalg.solve(a, d[a]), 0, -2, -1)

    # x = t⁻¹ b, t the lower or upper triangle of a: b̄ = t⁻ᵀ x̄ (a triangular solve with
    # trans=1, handled by np.linalg.solve here: it is the derivative's own template), ā =
    # -b̄ xᵀ in that triangle
    @adjoint(linalg.solve_triangular)
    def solve_triangular(x, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                         check_finite=True):
        b_columns = np.linalg.solve(rt.matrix_transpose(rt.triangle(a, lower)),
                                    rt.solve_columns(d[x], x, a))
        d[b] += rt.unbroadcast(np.reshape(b_columns, np.shape(x)), b)
        d[a] -= rt.triangle(np.matmul(b_columns, rt.matrix_transpose(
            rt.solve_columns(x, x, a))), lower)

    @tangent(linalg.solve_triangular)
    def solve_triangular(x, a, b, trans=0, lower=False, unit_diagonal=False,  # noqa: F811
                         overwrite_b=False, check_finite=True):
        d[x] = np.reshape(linalg.solve_triangular(a, rt.solve_columns(d[b], x, a) - np.matmul(
            rt.triangle(d[a], lower), rt.solve_columns(x, x, a)), lower=lower), np.shape(x))

    # expm's derivative in the direction e is the upper right block of expm([[a, e], [0, a]])
    # (Higham, Functions of Matrices, 3.2), its adjoint the same at aᵀ applied to g: as
    # accurate as expm of the doubled matrix (when e is far larger than a, the scaling
    # expm picks for the block matrix costs relative accuracy in the derivative)
    @adjoint(linalg.expm)
    def expm(y, A):
        d[A] += rt.upper_right_block(linalg.expm(rt.block_upper(rt.matrix_transpose(A), d[y])))

    @tangent(linalg.expm)
    def expm(y, A):  # noqa: F811
        d[y] = rt.upper_right_block(linalg.expm(rt.block_upper(A, d[A])))

    constraint(_general_matrix("solve"), linalg.solve)
    constraint(_general_matrix("inv"), linalg.inv)
    constraint(_plain_triangular, linalg.solve_triangular)

    # shape rules: for one matrix (SciPy's stacks depend on its version: not assumed)
    shape_rule(_one_matrix_like, linalg.inv, linalg.expm)
    shape_rule(_one_matrix_determinant, linalg.det)
    shape_rule(_one_matrix_solution, linalg.solve, linalg.solve_triangular)

