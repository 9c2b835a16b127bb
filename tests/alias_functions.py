"""Writes through aliases and views, differentiated in tests/test_aliasing.py.

Each function writes into an object that another name shares. Those marked
"reproduced" must give what Python computes (values and derivatives); those
marked "rejected" must raise AliasedWriteError at the line marked ``# write``
when the names do share memory. Append new functions at the end: the tests
find the marked lines by reading this file.
"""

import numpy as np

SHARED = np.array([1.0, 2.0, 3.0])


# ---- reproduced: a name certainly holding the written object is rebound


def copy_then_write(y):
    z = y
    z[0] = 5.0
    return np.sum(y * y)


def chained_targets(y):
    a = b = y
    a[0] = a[1] * 2.0
    return np.sum(b * y)


def set_first(v, a):
    v[0] = a


def helper_writes_parameter(y, x):
    set_first(y, x[0] * 2.0)
    return np.sum(y * y) + x[1]


def scale_first(v):
    v[0] = v[0] * 3.0
    return v


def helper_returns_parameter(y):
    w = scale_first(y)
    return np.sum(w) + np.sum(y * y)


def list_alias_append(y):
    xs = [y[0]]
    ys = xs
    xs.append(y[1] * 2.0)
    t = 0.0
    for v in ys:
        t = t + v * v
    return t


def dict_alias(y):
    d = {"a": y}
    e = d
    d["a"] = y * 3.0
    return np.sum(e["a"])


def tuple_element(y, x):
    t = (y, x)
    y[0] = 3.0
    return np.sum(t[0] * x)


def list_element(y, x):
    pair = [y, x]
    w = pair[0]
    w[0] = 2.0
    return np.sum(pair[0] * y)


def write_in_branch(y):
    z = y
    if y[0] > 0.0:
        z[0] = 1.0
    return np.sum(y * y)


def write_in_loop(y):
    for i in range(y.shape[0]):
        z = y
        z[i] = z[i] * 2.0
    return np.sum(y * y)


def augmented_through_alias(y):
    z = y
    z += 1.0
    return np.sum(y * y * z)


def bump(v):
    v += 1.0


def helper_augments_parameter(y):
    h = y * 2.0
    bump(h)
    return np.sum(h * y)


def scalar_alias_augmented(x):
    s = x[0]
    t = s
    s += 1.0  # a NumPy scalar: a new one, t keeps the old value
    return s * t


def accumulate_from_element(x):
    acc = x[0]
    for i in range(1, x.shape[0]):
        acc += x[i] * x[i]
    return acc + np.sum(x)


def float_parameters_augmented(a, b):
    c = a
    c += b
    return c * a


# ---- reproduced: a view or element written back into what it is part of


def slice_view(y):
    z = y[1:]
    z[0] = 3.0
    return np.sum(y * y)


def column_view(Y):
    z = Y[:, 0]
    z[1] = z[1] * 2.0
    return np.sum(Y * Y)


def row_view(Y):
    r = Y[0]
    r[1] = r[1] * 3.0
    return np.sum(Y * Y)


def loop_over_rows_write(X):
    for row in X:
        row[0] = row[1] * row[2]
    return np.sum(X * X)


def loop_over_rows_augmented(X, b):
    for row in X:
        row += b * row
    return np.sum(X * X)


def accumulate_into_row(X):
    acc = X[0]
    for i in range(1, X.shape[0]):
        acc += X[i]  # X 2-D: acc is a view of X[0], written in place
    return np.sum(X * X)


def view_of_view(Y):
    r = Y[1]
    c = r[1:]
    c[0] = c[0] * 5.0
    return np.sum(Y * Y) + np.sum(r)


def tail(v):
    return v[1:]


def helper_returns_view(y):
    t = tail(y)
    t[0] = 3.0 * t[0]
    return np.sum(y * y)


def element_of_list_parameter(params, x):
    W = params[0]
    W[0] = W[1] * x[0]
    return np.sum(params[0] * x) + np.sum(params[1] * params[1])


def sgd_step(params, x):
    g = np.sum(x * x)
    for p in params:
        p -= 0.1 * g * p
    return np.sum(params[0] * params[1])


def base_written_view_read(Y):
    r = Y[0]
    Y[0, 1] = 7.0 * Y[1, 1]
    return np.sum(r * r)


def augmented_base_view_read(y):
    head = y[:2]
    y *= 2.0
    return np.sum(head) * np.sum(y)


def views_see_writes_through_views(X):
    for i in range(1, X.shape[0]):
        row = X[i]
        previous = X[i - 1]
        row[0] = previous[0] * 2.0
        row[1] = previous[1] * row[0]
    return np.sum(X * X)


def view_of_written_view(Y):
    r = Y[1]
    c = r[1:]
    Y[1, 2] = Y[0, 0] * 3.0
    return np.sum(c) * np.sum(r * r)


def fancy_index_copy(y):
    z = y[[0, 2]]  # a copy: writing into it leaves y alone
    z[0] = 7.0 * z[1]
    return np.sum(y * y) + np.sum(z)


# ---- reproduced: whole-array views (.T, transpose, reshape...) written back


def transpose_view(Y):
    Z = Y.T
    Z[0, 1] = 5.0
    return np.sum(Y * Y)


def reshape_view(y):
    Z = y.reshape(2, -1)
    Z[0, 1] = 5.0
    return np.sum(y * y)


def ravel_view(Y):
    z = np.ravel(Y)
    z[0] = 5.0
    return np.sum(Y * Y)


def asarray_alias(y):
    z = np.asarray(y)
    z[0] = 1.0
    return np.sum(y * y)


def expand_dims_view(y):
    z = np.expand_dims(y, 0)
    z[0, 1] = 2.0
    return np.sum(y * y)


def squeeze_view(Y):
    z = np.squeeze(Y[:1])
    z[0] = 2.0
    return np.sum(Y * Y)


def transpose_function_view(Y):
    Z = np.transpose(Y)
    Z[0, 1] = 3.0
    return np.sum(Y * Y)


# ---- reproduced: no write-back needed


def view_base_dead(y):
    z = y[1:]
    z[0] = 3.0
    return np.sum(z * z)


def copy_first(y):
    z = y.copy()
    z[0] = 3.0
    return np.sum(y * z)


def disjoint_rows(Y):
    a = Y[0]
    b = Y[1]
    a[0] = 5.0
    return np.sum(b * b) + np.sum(a * a)


def interleaved(y):
    even = y[::2]
    odd = y[1::2]
    even[0] = 9.0
    return np.sum(odd * odd) + np.sum(even * even)


def two_parameters(a, b):
    a[0] = 0.0  # write
    return np.sum(a * b)


# ---- rejected: sharing srcad cannot follow


def branch_alias(y):
    z = y if y[0] > 0.0 else y.copy()
    z[0] = 1.0  # write
    return np.sum(y * y)


def swap_buffers(y):
    a = y * 1.0
    b = a
    for i in range(3):
        b[0] = b[0] + 1.0  # write
        b = a * 2.0
    return np.sum(a * b)


def global_alias(x):
    z = SHARED
    z[0] = 1.0  # write
    return np.sum(SHARED * x)


def swapaxes_view(Y):
    z = np.swapaxes(Y, 0, 1)
    z[1, 0] = 2.0  # write
    return np.sum(Y * Y)


def view_method(y):
    z = y.view()
    z[0] = 2.0  # write
    return np.sum(y * y)


def real_view(y):
    z = np.real(y)
    z[0] = 2.0  # write
    return np.sum(y * y)


def atleast_alias(y):
    z = np.atleast_1d(y)
    z[0] = 2.0  # write
    return np.sum(y * y)


def list_holds_array(y, x):
    items = [y, x]
    total = 0.0
    y[0] = 2.0  # write
    for v in items:
        total = total + np.sum(v * v)
    return total


# ---- realistic code: in-place updates that must be neither rejected nor checked


def euler_particles(position0, velocity0):
    position = position0.copy()
    velocity = velocity0.copy()
    for step in range(5):
        acceleration = -position * np.sum(velocity * velocity)
        velocity += 0.1 * acceleration
        position += 0.1 * velocity
    return np.sum(position * position)


def gauss_seidel(b):
    u = np.zeros_like(b)
    for sweep in range(3):
        for i in range(1, b.shape[0] - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1] + b[i])
    return np.sum(u * u)


def cumulative_sum(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return np.sum(out * out)


def softmax_in_place(x):
    e = np.exp(x - np.max(x))
    e /= np.sum(e)
    return np.sum(e * x)


def layer_norm(x, w):
    h = x - np.mean(x)
    h /= np.sqrt(np.mean(h * h) + 1e-5)
    return np.sum(h * w)


def build_rows(x):
    M = np.zeros((3, x.shape[0]))
    for i in range(3):
        row = M[i]
        row[:] = x * (i + 1.0)
    return np.sum(M * M)


def heat_stencil(u0):
    u = u0.copy()
    for t in range(4):
        interior = u[1:-1]
        interior += 0.1 * (u[:-2] - 2.0 * interior + u[2:])
    return np.sum(u * u)


def normalize_rows(X, w):
    for row in X:
        row /= np.sum(row)
    return np.sum(np.dot(X, w))


def axpy(a, x, y):
    y += a * x


def accumulate_with_helper(x, z):
    total = np.zeros_like(x)
    for k in range(3):
        axpy(0.5 * k, x * z, total)
    return np.sum(total * total)


def clip_copy(x):
    y = x.copy()
    y[y > 1.2] = 1.2
    return np.sum(y * x)


def scale_columns(X, w):
    Y = X * 1.0
    for j in range(X.shape[1]):
        column = Y[:, j]
        column *= w[j]
    return np.sum(Y * Y)


# ---- rejected: NumPy refuses these writes (read-only views)


def write_into_diagonal(Y):
    d = np.diagonal(Y)  # no template: its result carries no gradient here
    d[0] = 2.0  # write
    return np.sum(Y * Y)


def write_into_broadcast(y):
    b = np.broadcast_to(y, (2, 6))
    b[0, 0] = 2.0  # write
    return np.sum(b)


# ---- reproduced: lists passed in


def append_through_alias_of_parameter(xs, y):
    ys = xs
    ys.append(y[0] * 2.0)
    total = 0.0
    for v in xs:
        total = total + v * v
    return total + len(ys)


def write_element_of_parameter_list(params, x):
    for p in params:
        p[0] = p[1] * x[0]  # writes into the arrays the list holds
    return np.sum(params[0] * params[1])
