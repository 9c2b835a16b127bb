"""scipy.linalg: solve, inv, det (as np.linalg's, srcad/templates/numpy_linalg.py),
solve_triangular, expm, cholesky, cho_factor and cho_solve, eigh, svd, qr, solve_sylvester and
solve_banded. Registered only when SciPy imports: srcad does not need it.

The factorizations' derivatives are np.linalg's (numpy_linalg.py: the same formulas, the same
points without a derivative), written for SciPy's defaults: cholesky's upper factor, eigh's
lower triangle; svd and qr in their reduced forms only (full_matrices=False, mode='economic'
or 'r': the extra columns of the full ones are not unique). A call returning part of a
factorization (eigh's eigvals_only=True, svd's compute_uv=False, qr's mode='r') recomputes
the whole one in its derivatives (rt.output_layout, rt.output_part)."""

import sys

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import (Template, adjoint, constraint, d, facts, set_template, shape_rule,
                            tangent)
from srcad.templates import numpy_linalg

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
    return shapes.NUMPY_SCALAR if _one_matrix(a) else shapes.UNKNOWN


def _cho_factor_shape(a, lower=shapes.Known(False), *rest, **kwargs):
    """cho_factor: the pair (c of a's shape, lower)."""
    return shapes.IndexTuple((_one_matrix(a), shapes.Scalar("bool"))) if _one_matrix(
        a) else shapes.UNKNOWN


def _scipy_eigh_shape(a, b=shapes.Known(None), *rest, eigvals_only=shapes.Known(False),
                      **kwargs):
    if not _one_matrix(a) or b != shapes.Known(None) or not isinstance(
            eigvals_only, shapes.Known):
        return shapes.UNKNOWN
    return numpy_linalg.factors_shape(a, ("n",) if eigvals_only.value else ("n", "mn"))


def _scipy_svd_shape(a, full_matrices=shapes.Known(True), compute_uv=shapes.Known(True),
                     *rest, **kwargs):
    if not _one_matrix(a) or not (isinstance(full_matrices, shapes.Known) and isinstance(
            compute_uv, shapes.Known)):
        return shapes.UNKNOWN
    if not compute_uv.value:
        return numpy_linalg.factors_shape(a, ("k",))
    return numpy_linalg.factors_shape(
        a, ("mm", "k", "nn") if full_matrices.value else ("mk", "k", "kn"))


def _scipy_qr_shape(a, overwrite_a=shapes.Known(False), lwork=shapes.Known(None),
                    mode=shapes.Known("full"), pivoting=shapes.Known(False), *rest, **kwargs):
    results = {"full": ("mm", "mn"), "economic": ("mk", "kn")}
    if not _one_matrix(a) or pivoting != shapes.Known(False) or not isinstance(
            mode, shapes.Known):
        return shapes.UNKNOWN
    if mode.value == "r":  # a tuple of one: (r,)
        return shapes.IndexTuple((numpy_linalg.factors_shape(a, ("mn",)),))
    if mode.value not in results:
        return shapes.UNKNOWN
    return numpy_linalg.factors_shape(a, results[mode.value])


def _sylvester_shape(a, b, q, *rest, **kwargs):
    """solve_sylvester: x has q's shape."""
    q = shapes.plain(q)
    return q if isinstance(q, shapes.Array) and q.ndim == 2 else shapes.UNKNOWN


def _banded_shape(l_and_u, ab, b, *rest, **kwargs):
    """solve_banded: x has b's shape (a vector or columns)."""
    b = shapes.plain(b)
    return b if isinstance(b, shapes.Array) and b.ndim in (1, 2) else shapes.UNKNOWN


def _cho_solve_shape(c_and_lower, b, *rest, **kwargs):
    """cho_solve: x has b's shape (a vector or columns)."""
    return _banded_shape(None, None, b)


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


def _paste(primitive, kind, parameters, lines):
    """Register a template written as text: one formula shared by two primitives."""
    name = primitive.__name__
    source = "def %s(%s):\n%s" % (name, parameters, "".join("    %s\n" % s for s in lines))
    scope = {}
    exec(compile(source, "<%s template of scipy.linalg.%s>" % (kind, name), "exec"),
         globals(), scope)
    line = sys._getframe(1).f_lineno  # where the formula is registered: its documentation
    set_template(primitive, Template(scope[name], kind, source=source,
                                     origin="%s:%d" % (__file__, line)))


# cholesky's formulas (numpy_linalg.py's), shared by scipy.linalg.cholesky and cho_factor
_CHOLESKY_ADJOINT = [
    "projected = np.matmul(rt.matrix_transpose(l), l_bar)",
    "halved = np.tril(projected) - 0.5 * projected * np.eye(np.shape(l)[-1])",
    "right = rt.matrix_transpose(linalg.solve_triangular(rt.matrix_transpose(l), "
    "rt.matrix_transpose(halved)))",
    "d[a] += rt.to_triangle(linalg.solve_triangular(rt.matrix_transpose(l), right), "
    "rt.uplo(lower))"]
_CHOLESKY_TANGENT = [
    "left = rt.matrix_transpose(linalg.solve_triangular(l, rt.from_triangle(d[a], "
    "rt.uplo(lower)), lower=True))",
    "middle = linalg.solve_triangular(l, left, lower=True)",
    "l_dot = rt.lower_factor(np.matmul(l, np.tril(middle) - 0.5 * middle * np.eye("
    "np.shape(l)[-1])), lower)"]
_CHOLESKY_PARAMETERS = "y, a, lower=False, overwrite_a=False, check_finite=True"


def _no_overwrite(name, *flags):
    """A call that overwrites its input loses the values its derivative reads."""
    def check(arguments, carries, resolve):
        for flag in flags:
            value = arguments.get(flag)
            if value is not None and not (isinstance(value, gast.Constant) and not value.value):
                return ("srcad cannot differentiate scipy.linalg.%s with %s=True" % (name, flag),
                        "Leave %s out." % flag)
        return None
    return check


def _constant_keywords(name, allowed, hint):
    """Each keyword in ``allowed`` left out or a constant among its allowed values."""
    def check(arguments, carries, resolve):
        for keyword, values in allowed.items():
            value = arguments.get(keyword)
            if value is None:
                continue
            if not (isinstance(value, gast.Constant) and value.value in values):
                return ("srcad differentiates scipy.linalg.%s with %s only" % (name, ", ".join(
                    "%s in %r" % (k, v) for k, v in allowed.items())), hint)
        return None
    return check


if linalg is not None:
    # cholesky, a = l lᵀ read from one triangle (numpy_linalg.py's formulas; lower=False, the
    # default: the upper factor lᵀ, from the upper triangle): ā = l⁻ᵀ Φ(lᵀ l̄) l⁻¹ by two
    # triangular solves
    _paste(linalg.cholesky, "adjoint", _CHOLESKY_PARAMETERS,
           ["l = rt.lower_factor(y, lower)", "l_bar = rt.lower_factor(d[y], lower)"]
           + _CHOLESKY_ADJOINT)
    _paste(linalg.cholesky, "tangent", _CHOLESKY_PARAMETERS,
           ["l = rt.lower_factor(y, lower)"] + _CHOLESKY_TANGENT + ["d[y] = l_dot"])
    # cho_factor returns (c, lower): c holds the factor in that triangle (cholesky's
    # derivative); in the other, SciPy before 1.18 leaves a's entries (copied: their
    # derivative is the identity), SciPy 1.18 zeros (none). Which one is asked of SciPy once.
    _copies = linalg.cho_factor(np.array([[4.0, 2.0], [2.0, 3.0]]))[0][1, 0] == 2.0
    _paste(linalg.cho_factor, "adjoint", _CHOLESKY_PARAMETERS,
           ["l = rt.lower_factor(rt.triangle(y[0], lower), lower)",
            "l_bar = rt.lower_factor(rt.triangle(d[y][0], lower), lower)"]
           + (["d[a] += rt.other_triangle(d[y][0], lower)"] if _copies else [])
           + _CHOLESKY_ADJOINT)
    _paste(linalg.cho_factor, "tangent", _CHOLESKY_PARAMETERS,
           ["l = rt.lower_factor(rt.triangle(y[0], lower), lower)"] + _CHOLESKY_TANGENT
           + ["d[y] = (l_dot + rt.other_triangle(d[a], lower), 0.0)" if _copies
              else "d[y] = (l_dot, 0.0)"])

    # cho_solve, x = (l lᵀ)⁻¹ b with l the factor in c's triangle (lower_factor of it):
    # b̄ = cho_solve(x̄), ā = -b̄ xᵀ, l̄ = tril((ā + āᵀ) l) in the factor's triangle; c's
    # other triangle is not read
    @adjoint(linalg.cho_solve)
    def cho_solve(x, c_and_lower, b, overwrite_b=False, check_finite=True):
        b_columns = linalg.cho_solve(c_and_lower, rt.solve_columns(d[x], x, c_and_lower[0]))
        d[b] += np.reshape(b_columns, np.shape(b))
        spread = np.matmul(b_columns, rt.matrix_transpose(rt.solve_columns(x, x,
                                                                            c_and_lower[0])))
        l_bar = -np.tril(np.matmul(spread + rt.matrix_transpose(spread), rt.lower_factor(
            rt.triangle(c_and_lower[0], c_and_lower[1]), c_and_lower[1])))
        d[c_and_lower] += rt.output_part_adjoint(rt.lower_factor(l_bar, c_and_lower[1]),
                                                 c_and_lower, 0)

    @tangent(linalg.cho_solve)
    def cho_solve(x, c_and_lower, b, overwrite_b=False, check_finite=True):  # noqa: F811
        factor = rt.lower_factor(rt.triangle(c_and_lower[0], c_and_lower[1]), c_and_lower[1])
        factor_dot = rt.lower_factor(rt.triangle(d[c_and_lower][0], c_and_lower[1]),
                                     c_and_lower[1])
        x_columns = rt.solve_columns(x, x, c_and_lower[0])
        moved = (np.matmul(factor_dot, np.matmul(rt.matrix_transpose(factor), x_columns))
                 + np.matmul(factor, np.matmul(rt.matrix_transpose(factor_dot), x_columns)))
        d[x] = np.reshape(linalg.cho_solve(c_and_lower, rt.solve_columns(
            d[b], x, c_and_lower[0]) - moved), np.shape(x))

    # eigh, a = v diag(w) vᵀ from one triangle (numpy_linalg.py's formulas and caveats:
    # eigenvalues distinct). With eigvals_only=True the derivative recomputes v.
    @adjoint(linalg.eigh)
    def eigh(y, a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
             overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
             subset_by_value=None, driver=None):
        layout = rt.output_layout(eigvals_only, 0)
        factors = linalg.eigh(a, lower=lower)
        # one accumulation per part (numpy_linalg.py's eigh): the eigenvectors' term is zero,
        # not nan, when the call returns no eigenvectors or the function reads none
        d[a] += rt.to_triangle(np.matmul(
            factors[1] * np.expand_dims(rt.output_part(d[y], 0, layout, factors[0]), -2),
            rt.matrix_transpose(factors[1])), rt.uplo(lower))
        identity = np.eye(np.shape(factors[0])[-1])
        gaps = 1.0 / (np.expand_dims(factors[0], -2) - np.expand_dims(factors[0], -1)
                      + identity) - identity
        rotated = gaps * np.matmul(rt.matrix_transpose(factors[1]),
                                   rt.output_part(d[y], 1, layout, factors[1]))
        d[a] += rt.if_output(layout, 1, rt.to_triangle(np.matmul(factors[1], np.matmul(
            rotated, rt.matrix_transpose(factors[1]))), rt.uplo(lower)))

    @tangent(linalg.eigh)
    def eigh(y, a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,  # noqa: F811
             overwrite_b=False, type=1, check_finite=True, subset_by_index=None,  # noqa: A002
             subset_by_value=None, driver=None):
        factors = linalg.eigh(a, lower=lower)
        identity = np.eye(np.shape(factors[0])[-1])
        gaps = 1.0 / (np.expand_dims(factors[0], -2) - np.expand_dims(factors[0], -1)
                      + identity) - identity
        rotated = np.matmul(rt.matrix_transpose(factors[1]), np.matmul(
            rt.from_triangle(d[a], rt.uplo(lower)), factors[1]))
        d[y] = rt.outputs((np.sum(rotated * identity, axis=-1),
                           np.matmul(factors[1], gaps * rotated)),
                          rt.output_layout(eigvals_only, 0))

    constraint(_constant_keywords(
        "eigh", {"b": (None,), "type": (1,), "eigvals_only": (False, True),
                 "subset_by_index": (None,), "subset_by_value": (None,)},
        "Call scipy.linalg.eigh(a) (or with lower= and eigvals_only=): a standard problem, "
        "every eigenvalue."), linalg.eigh)
    constraint(_no_overwrite("eigh", "overwrite_a", "overwrite_b"), linalg.eigh)
    constraint(_no_overwrite("cholesky", "overwrite_a"), linalg.cholesky)
    constraint(_no_overwrite("cho_factor", "overwrite_a"), linalg.cho_factor)
    constraint(_no_overwrite("cho_solve", "overwrite_b"), linalg.cho_solve)

    # svd (full_matrices=False, or compute_uv=False), a = u diag(s) vh: numpy_linalg.py's
    # formulas and caveats (singular values distinct and nonzero); compute_uv=False
    # recomputes u and vh in the derivative
    @adjoint(linalg.svd)
    def svd(y, a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
            lapack_driver="gesdd"):
        layout = rt.output_layout(not compute_uv, 1)
        factors = linalg.svd(a, full_matrices=False)
        identity = np.eye(np.shape(factors[1])[-1])
        squares = factors[1] * factors[1]
        gaps = 1.0 / (np.expand_dims(squares, -2) - np.expand_dims(squares, -1)
                      + identity) - identity
        # one accumulation per part (numpy_linalg.py's svd): u's and vh's terms are zero, not
        # nan, when the call returns only s or the function reads only s
        u_bar = rt.output_part(d[y], 0, layout, factors[0])
        left = np.matmul(rt.matrix_transpose(factors[0]), u_bar)
        d[a] += rt.if_output(layout, 0, np.matmul(factors[0], np.matmul(
            gaps * (left - rt.matrix_transpose(left)) * np.expand_dims(factors[1], -2),
            factors[2])) + np.matmul((u_bar - np.matmul(factors[0], left))
                                     / np.expand_dims(factors[1], -2), factors[2]))
        d[a] += np.matmul(factors[0] * np.expand_dims(
            rt.output_part(d[y], 1, layout, factors[1]), -2), factors[2])
        vh_bar = rt.output_part(d[y], 2, layout, factors[2])
        right = np.matmul(factors[2], rt.matrix_transpose(vh_bar))
        d[a] += rt.if_output(layout, 2, np.matmul(factors[0], np.matmul(
            np.expand_dims(factors[1], -1) * (gaps * (right - rt.matrix_transpose(right))),
            factors[2])) + np.matmul(factors[0] / np.expand_dims(factors[1], -2),
                                     vh_bar - np.matmul(rt.matrix_transpose(right),
                                                        factors[2])))

    @tangent(linalg.svd)
    def svd(y, a, full_matrices=True, compute_uv=True, overwrite_a=False,  # noqa: F811
            check_finite=True, lapack_driver="gesdd"):
        factors = linalg.svd(a, full_matrices=False)
        identity = np.eye(np.shape(factors[1])[-1])
        squares = factors[1] * factors[1]
        gaps = 1.0 / (np.expand_dims(squares, -2) - np.expand_dims(squares, -1)
                      + identity) - identity
        moved_v = np.matmul(d[a], rt.matrix_transpose(factors[2]))
        moved_u = np.matmul(rt.matrix_transpose(d[a]), factors[0])
        rotated = np.matmul(rt.matrix_transpose(factors[0]), moved_v)
        scaled_right = rotated * np.expand_dims(factors[1], -2)
        scaled_left = np.expand_dims(factors[1], -1) * rotated
        u_dot = (np.matmul(factors[0], gaps * (scaled_right + rt.matrix_transpose(scaled_right)))
                 + (moved_v - np.matmul(factors[0], rotated)) / np.expand_dims(factors[1], -2))
        v_dot = (np.matmul(rt.matrix_transpose(factors[2]),
                           gaps * (scaled_left + rt.matrix_transpose(scaled_left)))
                 + (moved_u - np.matmul(rt.matrix_transpose(factors[2]),
                                        rt.matrix_transpose(rotated)))
                 / np.expand_dims(factors[1], -2))
        d[y] = rt.outputs((u_dot, np.sum(rotated * identity, axis=-1),
                           rt.matrix_transpose(v_dot)), rt.output_layout(not compute_uv, 1))

    def _reduced_svd(arguments, carries, resolve):
        """u and vh of full_matrices=True have extra columns that are not unique."""
        compute_uv = arguments.get("compute_uv")
        full = arguments.get("full_matrices")
        if compute_uv is not None and not isinstance(compute_uv, gast.Constant):
            return ("srcad differentiates scipy.linalg.svd with a constant compute_uv only",
                    "Write compute_uv=True or compute_uv=False.")
        if compute_uv is not None and not compute_uv.value:
            return None
        if full is None or not (isinstance(full, gast.Constant) and full.value is False):
            return ("srcad differentiates scipy.linalg.svd with full_matrices=False (or "
                    "compute_uv=False) only: the extra columns of full u and vh are not unique",
                    "Call scipy.linalg.svd(a, full_matrices=False) (the same factors for a "
                    "square matrix).")
        return None

    constraint(_reduced_svd, linalg.svd)
    # the parts of the full result a call returns (as the templates' rt.output_layout says)
    facts(linalg.svd, returned_parts=lambda compute_uv=True, **constants: (
        None if compute_uv else 1))
    facts(linalg.eigh, returned_parts=lambda eigvals_only=False, **constants: (
        0 if eigvals_only else None))
    constraint(_no_overwrite("svd", "overwrite_a"), linalg.svd)

    # qr in mode 'economic' (or 'r': r alone, with a tall matrix's zero rows below k),
    # numpy_linalg.py's formulas and caveats (a's leading k columns of full rank)
    @adjoint(linalg.qr)
    def qr(y, a, overwrite_a=False, lwork=None, mode="full", pivoting=False,
           check_finite=True):
        layout = rt.output_layout(mode == "r", (1,))
        factors = linalg.qr(a, mode="economic")
        k = min(np.shape(a)[-2], np.shape(a)[-1])
        r_bar = rt.output_part(d[y], 1, layout, factors[1])[..., :k, :]
        u = factors[1][..., :k]
        tall_bar = rt.output_part(d[y], 0, layout, factors[0]) + np.matmul(
            a[..., k:], rt.matrix_transpose(r_bar[..., k:]))
        middle = np.matmul(u, rt.matrix_transpose(r_bar[..., :k])) - np.matmul(
            rt.matrix_transpose(tall_bar), factors[0])
        x_bar = linalg.solve_triangular(u, rt.matrix_transpose(
            tall_bar + np.matmul(factors[0], rt.from_triangle(middle, "L"))))
        d[a] += np.concatenate([rt.matrix_transpose(x_bar),
                                np.matmul(factors[0], r_bar[..., k:])], -1)

    @tangent(linalg.qr)
    def qr(y, a, overwrite_a=False, lwork=None, mode="full", pivoting=False,  # noqa: F811
           check_finite=True):
        layout = rt.output_layout(mode == "r", (1,))
        factors = linalg.qr(a, mode="economic")
        k = min(np.shape(a)[-2], np.shape(a)[-1])
        u = factors[1][..., :k]
        solved = rt.matrix_transpose(linalg.solve_triangular(rt.matrix_transpose(u),
                                                             rt.matrix_transpose(d[a][..., :k]),
                                                             lower=True))
        c = np.matmul(rt.matrix_transpose(factors[0]), solved)
        kept = c - np.tril(c, -1) + rt.matrix_transpose(np.tril(c, -1))
        q_dot = solved - np.matmul(factors[0], kept)
        w_dot = np.matmul(rt.matrix_transpose(factors[0]),
                          d[a][..., k:] - np.matmul(q_dot, factors[1][..., k:]))
        d[y] = rt.outputs((q_dot, rt.rows_like(np.concatenate([np.matmul(kept, u), w_dot], -1),
                                               rt.output_part(y, 1, layout))), layout)

    constraint(_constant_keywords(
        "qr", {"mode": ("economic", "r"), "pivoting": (False,)},
        "Call scipy.linalg.qr(a, mode='economic') (the same factors for a square matrix; "
        "mode='full' gives a tall matrix's q extra columns that are not unique)."), linalg.qr)
    constraint(_no_overwrite("qr", "overwrite_a"), linalg.qr)

    # solve_sylvester, a x + x b = q: q̄ solves aᵀ q̄ + q̄ bᵀ = x̄, ā = -q̄ xᵀ, b̄ = -xᵀ q̄
    @adjoint(linalg.solve_sylvester)
    def solve_sylvester(x, a, b, q):
        q_bar = linalg.solve_sylvester(rt.matrix_transpose(a), rt.matrix_transpose(b), d[x])
        d[q] += q_bar
        d[a] -= np.matmul(q_bar, rt.matrix_transpose(x))
        d[b] -= np.matmul(rt.matrix_transpose(x), q_bar)

    @tangent(linalg.solve_sylvester)
    def solve_sylvester(x, a, b, q):  # noqa: F811
        d[x] = linalg.solve_sylvester(a, b, d[q] - np.matmul(d[a], x) - np.matmul(x, d[b]))

    # solve_banded, x = a⁻¹ b with a in band form ab (l below, u above the diagonal):
    # b̄ = a⁻ᵀ x̄ (a band solve with aᵀ's band form, u below and l above), āb = -b̄ xᵀ on the
    # band (ab's unused corners get none). rt.banded_dense and rt.band_of form n×n matrices.
    @adjoint(linalg.solve_banded)
    def solve_banded(x, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,
                     check_finite=True):
        b_columns = linalg.solve_banded(
            (l_and_u[1], l_and_u[0]),
            rt.band_of(rt.matrix_transpose(rt.banded_dense(ab, l_and_u)),
                       (l_and_u[1], l_and_u[0])), rt.solve_columns(d[x], x, ab))
        d[b] += np.reshape(b_columns, np.shape(b))
        d[ab] -= rt.band_of(np.matmul(b_columns, rt.matrix_transpose(
            rt.solve_columns(x, x, ab))), l_and_u)

    @tangent(linalg.solve_banded)
    def solve_banded(x, l_and_u, ab, b, overwrite_ab=False, overwrite_b=False,  # noqa: F811
                     check_finite=True):
        d[x] = np.reshape(linalg.solve_banded(
            l_and_u, ab, rt.solve_columns(d[b], x, ab) - np.matmul(
                rt.banded_dense(d[ab], l_and_u), rt.solve_columns(x, x, ab))), np.shape(x))

    constraint(_no_overwrite("solve_banded", "overwrite_ab", "overwrite_b"), linalg.solve_banded)

    # shape rules: for one matrix (SciPy's stacks depend on its version: not assumed)
    shape_rule(_one_matrix_like, linalg.inv, linalg.expm)
    shape_rule(_one_matrix_determinant, linalg.det)
    shape_rule(_one_matrix_solution, linalg.solve, linalg.solve_triangular)
    shape_rule(_one_matrix_like, linalg.cholesky)
    shape_rule(_cho_factor_shape, linalg.cho_factor)
    shape_rule(_scipy_eigh_shape, linalg.eigh)
    shape_rule(_scipy_svd_shape, linalg.svd)
    shape_rule(_scipy_qr_shape, linalg.qr)
    shape_rule(_sylvester_shape, linalg.solve_sylvester)
    shape_rule(_banded_shape, linalg.solve_banded)
    shape_rule(_cho_solve_shape, linalg.cho_solve)
