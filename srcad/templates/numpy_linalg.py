"""Products: np.dot (and the .dot method), np.outer, np.trace (`@` is in operators.py); and
np.linalg: solve, inv, det, slogdet, cholesky, eigh."""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, facts, shape_rule, tangent
from srcad.vocabulary import linear, multilinear

multilinear(np.dot, np.ndarray.dot, parameters="z, x, y", call="np.dot",
            transposes={"x": "rt.dot_adjoint_left(g, x, y)", "y": "rt.dot_adjoint_right(g, x, y)"})
multilinear(np.outer, parameters="z, x, y",
            transposes={"x": "np.reshape(np.dot(g, np.ravel(y)), np.shape(x))",
                        "y": "np.reshape(np.dot(np.ravel(x), g), np.shape(y))"})
shape_rule(shapes.dot, np.dot, np.ndarray.dot)
# products: zero when either factor is zero, and a fresh array
facts(np.dot, np.outer, np.tensordot, allocating=True)
facts(np.tensordot, linear_in=(0, 1))
facts(np.inner, linear_in=(0, 1))


# ---- np.linalg: matrices and stacks of matrices (the last two axes), real input.
# Adjoints solve with the matrix rather than form its inverse (inv's own result aside);
# rt.matrix_transpose transposes each matrix of a stack.

linear(np.tril, parameters="y, m, k=0", transpose="rt.unbroadcast(np.tril(g, k), m)",
       tangent="np.tril(d[m], k)")
linear(np.triu, parameters="y, m, k=0", transpose="rt.unbroadcast(np.triu(g, k), m)",
       tangent="np.triu(d[m], k)")
linear(np.diagonal, np.ndarray.diagonal, parameters="y, a, offset=0, axis1=0, axis2=1",
       transpose="rt.diagonal_adjoint(g, a, offset, axis1, axis2)",
       tangent="np.diagonal(d[a], offset, axis1, axis2)")
# a vector's diagonal matrix, or a matrix's diagonal
linear(np.diag, parameters="y, v, k=0", transpose="rt.diag_adjoint(g, v, k)",
       tangent="np.diag(d[v], k)")
linear(np.trace, np.ndarray.trace,
       parameters="y, a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
       transpose="rt.diagonal_adjoint(np.expand_dims(g, -1), a, offset, axis1, axis2)",
       tangent="np.trace(d[a], offset, axis1, axis2)")


@adjoint(np.linalg.solve)
def solve(x, a, b):
    # b̄ = a⁻ᵀ x̄ and ā = -b̄ xᵀ, a vector right-hand side taken as one column
    b_columns = np.linalg.solve(rt.matrix_transpose(a), rt.solve_columns(d[x], x, a))
    d[b] += rt.unbroadcast(np.reshape(b_columns, np.shape(x)), b)
    d[a] -= rt.unbroadcast(
        np.matmul(b_columns, rt.matrix_transpose(rt.solve_columns(x, x, a))), a)


@tangent(np.linalg.solve)
def solve(x, a, b):  # noqa: F811
    d[x] = np.reshape(np.linalg.solve(a, rt.solve_columns(d[b], x, a)
                                      - np.matmul(d[a], rt.solve_columns(x, x, a))), np.shape(x))


@adjoint(np.linalg.inv)
def inv(y, a):
    d[a] -= np.matmul(rt.matrix_transpose(y), np.matmul(d[y], rt.matrix_transpose(y)))


@tangent(np.linalg.inv)
def inv(y, a):  # noqa: F811
    d[y] = -np.matmul(y, np.matmul(d[a], y))


# det and slogdet: the derivative of log|det a| is a⁻ᵀ, taken by a solve with ā's identity;
# a singular matrix has none (NumPy raises LinAlgError in the adjoint)
@adjoint(np.linalg.det)
def det(y, a):
    d[a] += np.linalg.solve(rt.matrix_transpose(a), np.expand_dims(d[y] * y, (-2, -1))
                            * np.eye(np.shape(a)[-1]))


@tangent(np.linalg.det)
def det(y, a):  # noqa: F811
    d[y] = y * np.trace(np.linalg.solve(a, d[a]), 0, -2, -1)


# the sign is piecewise constant: no derivative
@adjoint(np.linalg.slogdet)
def slogdet(y, a):
    d[a] += np.linalg.solve(rt.matrix_transpose(a), np.expand_dims(d[y][1], (-2, -1))
                            * np.eye(np.shape(a)[-1]))


@tangent(np.linalg.slogdet)
def slogdet(y, a):  # noqa: F811
    d[y] = (np.zeros_like(y[0]), np.trace(np.linalg.solve(a, d[a]), 0, -2, -1))


# cholesky and eigh read one triangle of a (the lower one for cholesky): the derivative
# is that of rt.from_triangle(a), the symmetric matrix they see, so it is the true one
# for any a, symmetric or not (the other triangle gets none).
#
# cholesky, a = l lᵀ: dl = l Φ(l⁻¹ da l⁻ᵀ), Φ the lower triangle with its diagonal halved;
# ā = l⁻ᵀ Φ(lᵀ l̄) l⁻¹ by two solves with lᵀ (no inverse formed).
@adjoint(np.linalg.cholesky)
def cholesky(l, a):
    projected = np.matmul(rt.matrix_transpose(l), d[l])
    halved = np.tril(projected) - 0.5 * projected * np.eye(np.shape(l)[-1])
    right = rt.matrix_transpose(np.linalg.solve(rt.matrix_transpose(l),
                                                rt.matrix_transpose(halved)))
    d[a] += rt.to_triangle(np.linalg.solve(rt.matrix_transpose(l), right), "L")


@tangent(np.linalg.cholesky)
def cholesky(l, a):  # noqa: F811
    left = rt.matrix_transpose(np.linalg.solve(l, rt.from_triangle(d[a], "L")))
    middle = np.linalg.solve(l, left)
    d[l] = np.matmul(l, np.tril(middle) - 0.5 * middle * np.eye(np.shape(l)[-1]))


# eigh, a = v diag(w) vᵀ: dw = diag(vᵀ da v), dv = v (F ∘ vᵀ da v) with F[i, j] = 1 / (w[j] -
# w[i]) off the diagonal. Eigenvalues must be distinct: at a repeated eigenvalue the
# eigenvectors are not differentiable (F divides by zero: srcad returns inf or nan there),
# and near one the derivative of v is as large as 1 / the gap. The eigenvalues' derivative
# alone is right at repeated ones too: when the function reads no eigenvector, v̄'s
# statements are dropped (transform/templates.py, absent_dropped).
@adjoint(np.linalg.eigh)
def eigh(y, a, UPLO="L"):
    # one accumulation per part of d[y] (as svd's): the eigenvalues' alone need no gaps
    d[a] += rt.to_triangle(np.matmul(y[1] * np.expand_dims(d[y][0], -2),
                                     rt.matrix_transpose(y[1])), UPLO)
    identity = np.eye(np.shape(y[0])[-1])
    gaps = 1.0 / (np.expand_dims(y[0], -2) - np.expand_dims(y[0], -1) + identity) - identity
    rotated = gaps * np.matmul(rt.matrix_transpose(y[1]), d[y][1])
    d[a] += rt.to_triangle(np.matmul(y[1], np.matmul(rotated, rt.matrix_transpose(y[1]))), UPLO)


@tangent(np.linalg.eigh)
def eigh(y, a, UPLO="L"):  # noqa: F811
    identity = np.eye(np.shape(y[0])[-1])
    gaps = 1.0 / (np.expand_dims(y[0], -2) - np.expand_dims(y[0], -1) + identity) - identity
    rotated = np.matmul(rt.matrix_transpose(y[1]), np.matmul(rt.from_triangle(d[a], UPLO), y[1]))
    d[y] = (np.sum(rotated * identity, axis=-1), np.matmul(y[1], gaps * rotated))


# ---- products: each linear in each operand; an adjoint is a product of g and the others

@adjoint(np.tensordot)
def tensordot(z, a, b, axes=2):
    to_a = rt.tensordot_adjoint_axes(a, b, axes, 0)
    to_b = rt.tensordot_adjoint_axes(a, b, axes, 1)
    d[a] += np.transpose(np.tensordot(d[z], b, to_a[0]), to_a[1])
    d[b] += np.transpose(np.tensordot(a, d[z], to_b[0]), to_b[1])


@tangent(np.tensordot)
def tensordot(z, a, b, axes=2):  # noqa: F811
    d[z] = np.tensordot(d[a], b, axes) + np.tensordot(a, d[b], axes)


# np.inner is np.tensordot over the last axes (a product with a scalar)
@adjoint(np.inner)
def inner(z, a, b):
    to_a = rt.tensordot_adjoint_axes(a, b, rt.inner_axes(a, b), 0)
    to_b = rt.tensordot_adjoint_axes(a, b, rt.inner_axes(a, b), 1)
    d[a] += np.transpose(np.tensordot(d[z], b, to_a[0]), to_a[1])
    d[b] += np.transpose(np.tensordot(a, d[z], to_b[0]), to_b[1])


@tangent(np.inner)
def inner(z, a, b):  # noqa: F811
    d[z] = np.inner(d[a], b) + np.inner(a, d[b])


multilinear(np.vdot, parameters="z, a, b",
            transposes={"a": "g * np.reshape(b, np.shape(a))",
                        "b": "g * np.reshape(a, np.shape(b))"})


# np.kron: g's axes interleaved (a's, b's, a's...), contracted with the other operand
@adjoint(np.kron)
def kron(z, a, b):
    plan = rt.kron_plan(a, b)
    blocks = np.reshape(d[z], plan[0])
    d[a] += np.reshape(np.tensordot(blocks, np.reshape(b, plan[2]), (plan[4], plan[5])),
                       np.shape(a))
    d[b] += np.reshape(np.tensordot(blocks, np.reshape(a, plan[1]), (plan[3], plan[5])),
                       np.shape(b))


@tangent(np.kron)
def kron(z, a, b):  # noqa: F811
    d[z] = np.kron(d[a], b) + np.kron(a, d[b])


# 3-vectors: <g, a × b> = <a, b × g> = <b, g × a> (NumPy deprecates 2-vectors)
multilinear(np.cross, parameters="c, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
            transposes={"a": "rt.unbroadcast(np.cross(rt.three_vectors(b, axisb, axis), g, "
                             "axisb, axisc, axisa, axis), a)",
                        "b": "rt.unbroadcast(np.cross(g, rt.three_vectors(a, axisa, axis), "
                             "axisc, axisa, axisb, axis), b)"},
            tangent="np.cross(d[a], b, axisa, axisb, axisc, axis) "
                    "+ np.cross(a, d[b], axisa, axisb, axisc, axis)")


# svd (full_matrices=False), a = u diag(s) vh, k = min(m, n) singular values: with
# F[i, j] = 1 / (s[j]² - s[i]²) off the diagonal, du = u (F ∘ (P + Pᵀ)) + (1 - u uᵀ) da v / s
# and dv = v (F ∘ (Q + Qᵀ)) + (1 - v vᵀ) daᵀ u / s, P = (uᵀ da v) diag(s), Q = diag(s) (uᵀ da v).
# Singular values must be distinct and nonzero for u and vh (srcad returns inf or nan
# otherwise, and derivatives as large as 1 / the gap near there); s's alone are right
# everywhere: when the function reads neither u nor vh, their statements are dropped
# (transform/templates.py, absent_dropped).
@adjoint(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    identity = np.eye(np.shape(y[1])[-1])
    squares = y[1] * y[1]
    gaps = 1.0 / (np.expand_dims(squares, -2) - np.expand_dims(squares, -1) + identity) - identity
    # one accumulation per part of d[y]: those of parts the function never reads go
    # (templates.absent_dropped), so that the singular values' alone need no gaps
    left = np.matmul(rt.matrix_transpose(y[0]), d[y][0])
    d[a] += (np.matmul(y[0], np.matmul(gaps * (left - rt.matrix_transpose(left))
                                       * np.expand_dims(y[1], -2), y[2]))
             + np.matmul((d[y][0] - np.matmul(y[0], left)) / np.expand_dims(y[1], -2), y[2]))
    d[a] += np.matmul(y[0] * np.expand_dims(d[y][1], -2), y[2])
    right = np.matmul(y[2], rt.matrix_transpose(d[y][2]))
    d[a] += (np.matmul(y[0], np.matmul(np.expand_dims(y[1], -1)
                                       * (gaps * (right - rt.matrix_transpose(right))), y[2]))
             + np.matmul(y[0] / np.expand_dims(y[1], -2),
                         d[y][2] - np.matmul(rt.matrix_transpose(right), y[2])))


@tangent(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):  # noqa: F811
    identity = np.eye(np.shape(y[1])[-1])
    squares = y[1] * y[1]
    gaps = 1.0 / (np.expand_dims(squares, -2) - np.expand_dims(squares, -1) + identity) - identity
    moved_v = np.matmul(d[a], rt.matrix_transpose(y[2]))
    moved_u = np.matmul(rt.matrix_transpose(d[a]), y[0])
    rotated = np.matmul(rt.matrix_transpose(y[0]), moved_v)
    scaled_right = rotated * np.expand_dims(y[1], -2)
    scaled_left = np.expand_dims(y[1], -1) * rotated
    u_dot = (np.matmul(y[0], gaps * (scaled_right + rt.matrix_transpose(scaled_right)))
             + (moved_v - np.matmul(y[0], rotated)) / np.expand_dims(y[1], -2))
    v_dot = (np.matmul(rt.matrix_transpose(y[2]),
                       gaps * (scaled_left + rt.matrix_transpose(scaled_left)))
             + (moved_u - np.matmul(rt.matrix_transpose(y[2]), rt.matrix_transpose(rotated)))
             / np.expand_dims(y[1], -2))
    d[y] = (u_dot, np.sum(rotated * identity, axis=-1), rt.matrix_transpose(v_dot))


def _reduced_svd(arguments, carries, resolve):
    """full_matrices=True gives u or vh extra columns that are not unique: no derivative."""
    for name, wanted in (("full_matrices", False), ("compute_uv", True), ("hermitian", False)):
        value = arguments[name]
        if not (isinstance(value, gast.Constant) and value.value == wanted):
            why = ("srcad differentiates np.linalg.svd with full_matrices=False, "
                   "compute_uv=True and hermitian=False (constants) only")
            what_to_do = ("Call np.linalg.svd(a, full_matrices=False) (the same factors for a "
                          "square matrix); for the singular values alone, take its [1].")
            return why, what_to_do
    return None


constraint(_reduced_svd, np.linalg.svd)


# qr (mode "reduced"), a = q r: with k = min(m, n), a = [x | z] and r = [u | w] split after k
# columns, x = q u is the QR of a tall or square matrix and z = q w. For x: c = qᵀ dx u⁻¹,
# ω = its strictly lower part minus that part's transpose, du = (c - ω) u and
# dq = dx u⁻¹ - q (c - ω); then dw = qᵀ (dz - dq w). The adjoint (Liao et al. 2019):
# q̄' = q̄ + z w̄ᵀ, x̄ = (q̄' + q sym(u ūᵀ - q̄'ᵀ q)) u⁻ᵀ (sym: from its lower triangle), z̄ = q w̄.
# Products with u⁻¹ are solves. a's leading k columns must be of full rank.
@adjoint(np.linalg.qr)
def qr(y, a, mode="reduced"):
    k = min(np.shape(a)[-2], np.shape(a)[-1])
    u = y[1][..., :k]
    tall_bar = d[y][0] + np.matmul(a[..., k:], rt.matrix_transpose(d[y][1][..., k:]))
    middle = np.matmul(u, rt.matrix_transpose(d[y][1][..., :k])) - np.matmul(
        rt.matrix_transpose(tall_bar), y[0])
    x_bar = np.linalg.solve(u, rt.matrix_transpose(
        tall_bar + np.matmul(y[0], rt.from_triangle(middle, "L"))))
    d[a] += np.concatenate([rt.matrix_transpose(x_bar), np.matmul(y[0], d[y][1][..., k:])], -1)


@tangent(np.linalg.qr)
def qr(y, a, mode="reduced"):  # noqa: F811
    k = min(np.shape(a)[-2], np.shape(a)[-1])
    u = y[1][..., :k]
    solved = rt.matrix_transpose(np.linalg.solve(rt.matrix_transpose(u), rt.matrix_transpose(
        d[a][..., :k])))
    c = np.matmul(rt.matrix_transpose(y[0]), solved)
    kept = c - np.tril(c, -1) + rt.matrix_transpose(np.tril(c, -1))
    q_dot = solved - np.matmul(y[0], kept)
    w_dot = np.matmul(rt.matrix_transpose(y[0]), d[a][..., k:] - np.matmul(q_dot, y[1][..., k:]))
    d[y] = (q_dot, np.concatenate([np.matmul(kept, u), w_dot], -1))


def _reduced_qr(arguments, carries, resolve):
    mode = arguments["mode"]
    if isinstance(mode, gast.Constant) and mode.value == "reduced":
        return None
    return ("srcad differentiates np.linalg.qr in mode 'reduced' only (the default)",
            "Call np.linalg.qr(a) (for r alone, take its [1]).")


constraint(_reduced_qr, np.linalg.qr)


# pinv, p = a⁺ (Golub and Pereyra): dp = -p da p + p pᵀ daᵀ (1 - a p) + (1 - p a) daᵀ pᵀ p.
# Only where the rank does not change under perturbation (a of full rank, rcond below
# its smallest singular value over the largest): at a rank drop a⁺ jumps.
@adjoint(np.linalg.pinv)
def pinv(p, a, rcond=None, hermitian=False, rtol=None):
    p_t = rt.matrix_transpose(p)
    g_t = rt.matrix_transpose(d[p])
    d[a] += (np.matmul(g_t - np.matmul(a, np.matmul(p, g_t)), np.matmul(p, p_t))
             + np.matmul(np.matmul(p_t, p), g_t - np.matmul(np.matmul(g_t, p), a))
             - np.matmul(p_t, np.matmul(d[p], p_t)))


@tangent(np.linalg.pinv)
def pinv(p, a, rcond=None, hermitian=False, rtol=None):  # noqa: F811
    a_dot_t = rt.matrix_transpose(d[a])
    d[p] = (np.matmul(np.matmul(p, rt.matrix_transpose(p)),
                      a_dot_t - np.matmul(a_dot_t, np.matmul(a, p)))
            + np.matmul(a_dot_t - np.matmul(p, np.matmul(a, a_dot_t)),
                        np.matmul(rt.matrix_transpose(p), p))
            - np.matmul(p, np.matmul(d[a], p)))


# matrix_power and functions like it: the derivative of f at a in the direction e is the
# upper right block of f([[a, e], [0, a]]); its adjoint, f's at aᵀ applied to g (f a power
# series with real coefficients, or a negative power)
@adjoint(np.linalg.matrix_power)
def matrix_power(y, a, n):
    d[a] += rt.upper_right_block(np.linalg.matrix_power(
        rt.block_upper(rt.matrix_transpose(a), d[y]), n))


@tangent(np.linalg.matrix_power)
def matrix_power(y, a, n):  # noqa: F811
    d[y] = rt.upper_right_block(np.linalg.matrix_power(rt.block_upper(a, d[a]), n))


# np.einsum of one to three operands (subscripts first; not the interleaved form; more are
# chained, two at a time, by normalize/to_anf.einsum_in_steps): the
# adjoint of each operand contracts g with the others into its subscripts (rt.contract:
# repeated letters as in "ii->i" put g on a diagonal, letters summed away spread it)
@adjoint(np.einsum)
def einsum(y, subscripts, a, b=None, c=None, *, out=None, dtype=None, order="K",
           casting="safe", optimize=False):
    specs = rt.einsum_specs(subscripts, a, b, c)
    inputs = specs[0]
    d[a] += rt.contract((specs[1], inputs[1], inputs[2], None), inputs[0], np.shape(a), d[y],
                        b, c)
    d[b] += rt.contract((specs[1], inputs[0], inputs[2], None), inputs[1], np.shape(b), d[y],
                        a, c)
    d[c] += rt.contract((specs[1], inputs[0], inputs[1], None), inputs[2], np.shape(c), d[y],
                        a, b)


@tangent(np.einsum)
def einsum(y, subscripts, a, b=None, c=None, *, out=None, dtype=None,  # noqa: F811
           order="K", casting="safe", optimize=False):
    specs = rt.einsum_specs(subscripts, a, b, c)
    d[y] = (rt.contract(specs[0], specs[1], np.shape(y), d[a], b, c)
            + rt.contract(specs[0], specs[1], np.shape(y), a, d[b], c)
            + rt.contract(specs[0], specs[1], np.shape(y), a, b, d[c]))


# lstsq, x = a⁺ b: x's derivative is pinv's applied to b plus a⁺ db; the residuals (when
# NumPy returns them: rank N < M) r = b - a x have d(rᵀr) = 2 rᵀ (db - da x) (aᵀ r = 0); the
# singular values, as svd's. The rank has none. Only where the rank does not change.
@adjoint(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    p = np.linalg.pinv(a)
    x = rt.solve_columns(y[0], y[0], a)
    x_bar = rt.solve_columns(d[y][0], y[0], a)
    residual = rt.solve_columns(b, y[0], a) - np.matmul(a, x)
    # one accumulation per part of d[y] (as svd's): the solution's alone needs no svd
    d[b] += np.reshape(np.matmul(np.transpose(p), x_bar), np.shape(b))
    d[a] += (np.matmul(np.matmul(residual, np.transpose(x_bar)), np.matmul(p, np.transpose(p)))
             + np.matmul(np.matmul(np.transpose(p), x),
                         np.transpose(x_bar) - np.matmul(np.matmul(np.transpose(x_bar), p), a))
             - np.matmul(np.matmul(np.transpose(p), x_bar), np.transpose(x)))
    weighted = 2.0 * residual * rt.residual_weights(d[y][1], x)
    d[b] += np.reshape(weighted, np.shape(b))
    d[a] -= np.matmul(weighted, np.transpose(x))
    factors = np.linalg.svd(a, full_matrices=False)
    d[a] += np.matmul(factors[0] * d[y][3], factors[2])


@tangent(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):  # noqa: F811
    p = np.linalg.pinv(a)
    x = rt.solve_columns(y[0], y[0], a)
    b_dot = rt.solve_columns(d[b], y[0], a)
    residual = rt.solve_columns(b, y[0], a) - np.matmul(a, x)
    moved = b_dot - np.matmul(d[a], x)
    a_dot_t = np.transpose(d[a])
    x_dot = (np.matmul(p, moved) + np.matmul(np.matmul(p, np.transpose(p)),
                                             np.matmul(a_dot_t, residual))
             + np.matmul(np.eye(np.shape(a)[1]) - np.matmul(p, a),
                         np.matmul(a_dot_t, np.matmul(np.transpose(p), x))))
    factors = np.linalg.svd(a, full_matrices=False)
    d[y] = (np.reshape(x_dot, np.shape(y[0])),
            rt.residuals_like(2.0 * np.sum(residual * moved, axis=0, keepdims=True), y[1]),
            0.0, np.sum(np.matmul(np.transpose(factors[0]), d[a]) * factors[2], axis=-1))


# ---- shape rules of the products and of np.linalg: exact, or UNKNOWN


def _size_is_one(ones):
    """Whether an array of pattern ``ones`` has one element (None: either)."""
    if all(one is True for one in ones):
        return True
    return False if False in ones else None


def _arrays(*values):
    """The values' kinds, scalars as 0-d arrays, or None when one is neither."""
    kinds = [shapes.plain(v) for v in values]
    kinds = [shapes.Array(()) if isinstance(k, shapes.Scalar) else k for k in kinds]
    return kinds if all(isinstance(k, shapes.Array) for k in kinds) else None


def _outer_shape(x, y, *rest, **kwargs):
    """np.outer: (x.size, y.size), both raveled."""
    kinds = _arrays(x, y)
    if kinds is None:
        return shapes.UNKNOWN
    return shapes.Array(tuple(_size_is_one(k.ones) for k in kinds))


def _inner_shape(a, b, *rest, **kwargs):
    """np.inner: a.shape[:-1] + b.shape[:-1]; a product when one is a scalar (a NumPy scalar
    of two scalars or two vectors)."""
    kinds = _arrays(a, b)
    if kinds is None:
        return shapes.UNKNOWN
    scalars = [isinstance(shapes.plain(v), shapes.Scalar) for v in (a, b)]
    a, b = kinds
    if a.ndim == 0 or b.ndim == 0:
        if (a.ndim == 0 and not scalars[0]) or (b.ndim == 0 and not scalars[1]):
            return shapes.UNKNOWN  # a 0-d array: NumPy's result type is not worth a rule
        return shapes.elementwise(a if a.ndim else shapes.ANY_SCALAR,
                                  b if b.ndim else shapes.ANY_SCALAR)
    ones = a.ones[:-1] + b.ones[:-1]
    return shapes.Array(ones) if ones else shapes.NUMPY_SCALAR


def _kron_shape(a, b, *rest, **kwargs):
    """np.kron: the rank of the larger operand (the other's shape padded with 1 in front),
    each size the product of the two: 1 when both are."""
    kinds = _arrays(a, b)
    if kinds is None:
        return shapes.UNKNOWN
    a, b = kinds
    ndim = max(a.ndim, b.ndim)
    if ndim == 0:
        return shapes.UNKNOWN  # two scalars: a NumPy scalar or a 0-d array, by type
    a_ones = (True,) * (ndim - a.ndim) + a.ones
    b_ones = (True,) * (ndim - b.ndim) + b.ones
    return shapes.Array(tuple(_size_is_one((x, y)) for x, y in zip(a_ones, b_ones)))


def _vdot_shape(a, b, *rest, **kwargs):
    """np.vdot: the sum of the products of the flattened operands, a NumPy scalar."""
    return shapes.NUMPY_SCALAR if _arrays(a, b) is not None else shapes.UNKNOWN


def _trace_shape(a, offset=shapes.Known(0), axis1=shapes.Known(0), axis2=shapes.Known(1),
                 *rest, **kwargs):
    """np.trace and .trace: a without the two axes summed over (a NumPy scalar for a
    matrix)."""
    ones = _without_axes(a, axis1, axis2)
    if ones is None:
        return shapes.UNKNOWN
    return shapes.Array(ones) if ones else shapes.NUMPY_SCALAR


def _without_axes(a, axis1, axis2):
    """The ones of array ``a`` without the two distinct constant axes; None if not known."""
    a = shapes.plain(a)
    if not isinstance(a, shapes.Array) or not all(
            isinstance(k, shapes.Known) and type(k.value) is int for k in (axis1, axis2)):
        return None
    if not all(-a.ndim <= k.value < a.ndim for k in (axis1, axis2)):
        return None
    taken = {axis1.value % a.ndim, axis2.value % a.ndim}
    if len(taken) != 2:
        return None
    return tuple(one for i, one in enumerate(a.ones) if i not in taken)


def _matrices(a, *rest, **kwargs):
    """A function of a matrix (stack) with a result of its shape: inv, cholesky, tril..."""
    a = shapes.plain(a)
    return a if isinstance(a, shapes.Array) and a.ndim >= 2 else shapes.UNKNOWN


def _triangle_shape(m, *rest, **kwargs):
    """np.tril, np.triu: m's shape; a vector is taken as a row, repeated (a square)."""
    m = shapes.plain(m)
    if isinstance(m, shapes.Array) and m.ndim == 1:
        return shapes.Array(m.ones * 2)
    return _matrices(m)


def _det_shape(a, *rest, **kwargs):
    """np.linalg.det: one number per matrix of the stack."""
    a = _matrices(a)
    if not isinstance(a, shapes.Array):
        return shapes.UNKNOWN
    return shapes.Array(a.ones[:-2]) if a.ndim > 2 else shapes.NUMPY_SCALAR


def _pinv_shape(a, *rest, **kwargs):
    """np.linalg.pinv: each matrix's shape transposed."""
    a = _matrices(a)
    if not isinstance(a, shapes.Array):
        return shapes.UNKNOWN
    return shapes.Array(a.ones[:-2] + (a.ones[-1], a.ones[-2]))


_NUMPY_2 = int(np.__version__.split(".")[0]) >= 2


def solve_shape(a, b, *rest, **kwargs):
    """np.linalg.solve: b is a vector (a stack of them) when it has rank 1 (NumPy 2), or one
    less than a (NumPy 1); a stack of matrices otherwise. The stacks broadcast."""
    a, b = shapes.plain(a), shapes.plain(b)
    if not (isinstance(a, shapes.Array) and isinstance(b, shapes.Array)) or a.ndim < 2:
        return shapes.UNKNOWN
    if b.ndim == 1:
        return shapes.Array(a.ones[:-2] + b.ones)
    if not _NUMPY_2 and b.ndim == a.ndim - 1:
        batch = shapes.elementwise(shapes.Array(a.ones[:-2]), shapes.Array(b.ones[:-1]))
        return shapes.Array(batch.ones + b.ones[-1:])
    batch = shapes.elementwise(shapes.Array(a.ones[:-2]), shapes.Array(b.ones[:-2]))
    return shapes.Array(batch.ones + b.ones[-2:])


def _diagonal_length(first, second, offset):
    """Whether a diagonal of sizes ``first`` x ``second`` (1 or not, or None) at a constant
    ``offset`` (else None) has length 1: max(0, min(first, second - offset)) for offset >= 0,
    min(first + offset, second) below. The main diagonal of two sizes other than 1 (0 or at
    least 2) has neither length 1; of two 1s, 1; an offset one of two 1s, 0."""
    if not (isinstance(offset, shapes.Known) and type(offset.value) is int):
        return None
    if first is True and second is True:
        return offset.value == 0
    if offset.value == 0 and first is False and second is False:
        return False
    return None


def _diagonal_shape(a, offset=shapes.Known(0), axis1=shapes.Known(0), axis2=shapes.Known(1),
                    *rest, **kwargs):
    """np.diagonal and .diagonal: a without the two axes, then the diagonal's axis (its
    length, the shorter size less the offset, may be 1)."""
    ones = _without_axes(a, axis1, axis2)
    if ones is None:
        return shapes.UNKNOWN
    a = shapes.plain(a)
    length = _diagonal_length(a.ones[axis1.value], a.ones[axis2.value], offset)
    return shapes.Array(ones + (length,))


def _diag_shape(v, k=shapes.Known(0), *rest, **kwargs):
    """np.diag: a vector's square matrix (larger by |k|: of size 1 for a size 1 and k 0, not 1
    for a size 1 and any other k, or for any size and |k| of 2 or more), or a matrix's
    diagonal."""
    v = shapes.plain(v)
    if not isinstance(v, shapes.Array) or not isinstance(k, shapes.Known) or type(
            k.value) is not int:
        return shapes.UNKNOWN
    if v.ndim == 1:
        one = v.ones[0] if k.value == 0 else False if (
            v.ones[0] is True or abs(k.value) >= 2) else None
        return shapes.Array((one, one))
    if v.ndim == 2:
        return shapes.Array((_diagonal_length(v.ones[0], v.ones[1], k),))
    return shapes.UNKNOWN


def _tensordot_shape(a, b, axes=shapes.Known(2), *rest, **kwargs):
    """np.tensordot: a's axes not summed, then b's; ``axes`` an int (a's last, b's first)
    or a pair of constant axis lists."""
    a, b = shapes.plain(a), shapes.plain(b)
    if not (isinstance(a, shapes.Array) and isinstance(b, shapes.Array)):
        return shapes.UNKNOWN
    if isinstance(axes, shapes.Known) and type(axes.value) is int:
        n = axes.value
        if not 0 <= n <= min(a.ndim, b.ndim):
            return shapes.UNKNOWN
        summed_a, summed_b = set(range(a.ndim - n, a.ndim)), set(range(n))
    else:
        pair = axes.parts if isinstance(axes, shapes.IndexTuple) else (
            tuple(shapes.Known(v) for v in axes.value) if isinstance(axes, shapes.Known)
            and isinstance(axes.value, tuple) else None)
        if pair is None or len(pair) != 2:
            return shapes.UNKNOWN
        lists = []
        for part, ndim in zip(pair, (a.ndim, b.ndim)):
            if isinstance(part, shapes.Known) and type(part.value) is int:
                values = (part.value,)
            elif isinstance(part, shapes.Known) and isinstance(part.value, tuple):
                values = part.value
            elif isinstance(part, shapes.IndexTuple) and all(
                    isinstance(p, shapes.Known) for p in part.parts):
                values = tuple(p.value for p in part.parts)
            else:
                return shapes.UNKNOWN
            if not all(type(v) is int and -ndim <= v < ndim for v in values):
                return shapes.UNKNOWN
            lists.append({v % ndim for v in values})
        summed_a, summed_b = lists
    ones = tuple(one for i, one in enumerate(a.ones) if i not in summed_a) + tuple(
        one for i, one in enumerate(b.ones) if i not in summed_b)
    return shapes.Array(ones)  # every axis summed: a 0-d array (tensordot is no ufunc)


shape_rule(_diagonal_shape, np.diagonal, np.ndarray.diagonal)
shape_rule(_diag_shape, np.diag)
shape_rule(_tensordot_shape, np.tensordot)
shape_rule(_outer_shape, np.outer)
shape_rule(_inner_shape, np.inner)
shape_rule(_kron_shape, np.kron)
shape_rule(_vdot_shape, np.vdot)
shape_rule(_trace_shape, np.trace, np.ndarray.trace)
shape_rule(_triangle_shape, np.tril, np.triu)
shape_rule(_matrices, np.linalg.inv, np.linalg.cholesky, np.linalg.matrix_power)
shape_rule(_det_shape, np.linalg.det)
shape_rule(_pinv_shape, np.linalg.pinv)
shape_rule(solve_shape, np.linalg.solve)


# ---- factorizations: a tuple of results (shapes.IndexTuple), each by its axes' patterns.
# A matrix's sizes m, n: min(m, n) (the count of singular values) is 1 when one of them is
# and the other is not 0; other than 1 when both are


def _smaller_size(m, n):
    if m is False and n is False:
        return False
    if m is True and n is True:
        return True
    return None


def factors_shape(a, results):
    """The results of a factorization of ``a`` (a matrix, a stack of them), each spelled with
    'm', 'n' (a's last two sizes), 'k' (the smaller) after a's stack axes; a result of no
    letters is a number per matrix. One result: its pattern, not a tuple."""
    a = shapes.plain(a)
    if not isinstance(a, shapes.Array) or a.ndim < 2:
        return shapes.UNKNOWN
    stack, (m, n) = a.ones[:-2], a.ones[-2:]
    sizes = {"m": m, "n": n, "k": _smaller_size(m, n)}
    parts = []
    for letters in results:
        ones = stack + tuple(sizes[letter] for letter in letters)
        parts.append(shapes.Array(ones) if ones else shapes.NUMPY_SCALAR)
    return parts[0] if len(parts) == 1 else shapes.IndexTuple(tuple(parts))


def _eigh_shape(a, UPLO=shapes.Known("L"), **kwargs):
    return factors_shape(a, ("n", "mn"))


def _eigvalsh_shape(a, UPLO=shapes.Known("L"), **kwargs):
    return factors_shape(a, ("n",))


def _svd_shape(a, full_matrices=shapes.Known(True), compute_uv=shapes.Known(True),
               hermitian=shapes.Known(False), **kwargs):
    if not (isinstance(full_matrices, shapes.Known) and isinstance(compute_uv, shapes.Known)):
        return shapes.UNKNOWN
    if not compute_uv.value:
        return factors_shape(a, ("k",))
    return factors_shape(a, ("mm", "k", "nn") if full_matrices.value else ("mk", "k", "kn"))


def _qr_shape(a, mode=shapes.Known("reduced"), **kwargs):
    results = {"reduced": ("mk", "kn"), "complete": ("mm", "mn"), "r": ("kn",)}
    if not isinstance(mode, shapes.Known) or mode.value not in results:
        return shapes.UNKNOWN
    return factors_shape(a, results[mode.value])


def _slogdet_shape(a, **kwargs):
    return factors_shape(a, ("", ""))


def _einsum_shape(subscripts, *operands, **kwargs):
    """np.einsum: the output's letters, each of the pattern its axes in the operands
    broadcast to (NumPy broadcasts a size of 1 under any letter); no letters: a number."""
    kinds = [shapes.plain(x) for x in operands]
    if not isinstance(subscripts, shapes.Known) or not isinstance(subscripts.value, str) or (
            not kinds or not all(isinstance(x, shapes.Array) for x in kinds)):
        return shapes.UNKNOWN
    try:
        specs, output = rt.einsum_specs(subscripts.value,
                                        *(np.empty((0,) * x.ndim) for x in kinds))
    except Exception:  # subscripts NumPy refuses: it fails at run time, not here
        return shapes.UNKNOWN
    specs = [spec for spec in specs if spec is not None]
    if len(specs) != len(kinds):
        return shapes.UNKNOWN
    flags = {}
    for spec, x in zip(specs, kinds):
        if len(spec) != x.ndim:
            return shapes.UNKNOWN
        for letter, one in zip(spec, x.ones):
            flags.setdefault(letter, []).append(one)
    if any(letter not in flags for letter in output):
        return shapes.UNKNOWN
    if not output:
        return shapes.NUMPY_SCALAR
    return shapes.Array(tuple(
        shapes.elementwise(*(shapes.Array((one,)) for one in flags[letter])).ones[0]
        for letter in output))


def _contract_shape(specs, target, shape, *operands, **kwargs):
    """rt.contract: an array of ``shape`` (an operand's, for its adjoint)."""
    return shapes.made_of_shape(shape)


def _lstsq_shape(a, b, rcond=None, **kwargs):
    """np.linalg.lstsq: (x: a's columns by b's, the residuals (none, or one per column of
    b: a size not told), the rank, the singular values)."""
    a, b = shapes.plain(a), shapes.plain(b)
    if not (isinstance(a, shapes.Array) and isinstance(b, shapes.Array)) or a.ndim != 2 or (
            b.ndim not in (1, 2)):
        return shapes.UNKNOWN
    x = shapes.Array(a.ones[1:] + b.ones[1:])
    values = factors_shape(a, ("k",))
    return shapes.IndexTuple((x, shapes.Array((None,)), shapes.NUMPY_SCALAR, values))


shape_rule(_lstsq_shape, np.linalg.lstsq)
shape_rule(_eigh_shape, np.linalg.eigh)
shape_rule(_eigvalsh_shape, np.linalg.eigvalsh)
shape_rule(_svd_shape, np.linalg.svd)
shape_rule(_qr_shape, np.linalg.qr)
shape_rule(_slogdet_shape, np.linalg.slogdet)
shape_rule(_einsum_shape, np.einsum)
shape_rule(_contract_shape, rt.contract)
