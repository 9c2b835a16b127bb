"""Shape manipulation: reshape, transpose and .T, ravel, squeeze, expand_dims."""

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, d, facts, shape_rule, tangent


@adjoint(np.reshape)
def reshape(y, x, shape, order="C"):
    d[x] += np.reshape(d[y], np.shape(x), order=order)


@tangent(np.reshape)
def reshape(y, x, shape, order="C"):  # noqa: F811
    d[y] = np.reshape(d[x], shape, order=order)


@adjoint(np.ndarray.reshape)
def reshape_method(y, x, *shape):
    d[x] += np.reshape(d[y], np.shape(x))


@tangent(np.ndarray.reshape)
def reshape_method(y, x, *shape):  # noqa: F811
    d[y] = np.reshape(d[x], np.shape(y))


@adjoint(np.ravel, np.ndarray.ravel, np.ndarray.flatten)
def ravel(y, x):
    d[x] += np.reshape(d[y], np.shape(x))


@tangent(np.ravel, np.ndarray.ravel, np.ndarray.flatten)
def ravel(y, x):  # noqa: F811
    d[y] = np.ravel(d[x])


@adjoint(np.transpose)
def transpose(y, x, axes=None):
    d[x] += np.transpose(d[y], rt.inverse_transpose_axes(axes, np.ndim(x)))


@tangent(np.transpose)
def transpose(y, x, axes=None):  # noqa: F811
    d[y] = np.transpose(d[x], axes)


@adjoint(np.ndarray.transpose)
def transpose_method(y, x, *axes):
    d[x] += np.transpose(d[y], rt.inverse_transpose_axes(rt.method_axes(axes), np.ndim(x)))


@tangent(np.ndarray.transpose)
def transpose_method(y, x, *axes):  # noqa: F811
    d[y] = np.transpose(d[x], rt.method_axes(axes))


@adjoint(np.ndarray.T)
def T(y, x):  # noqa: N802
    d[x] += np.transpose(d[y])


@tangent(np.ndarray.T)
def T(y, x):  # noqa: N802, F811
    d[y] = np.transpose(d[x])


@adjoint(np.squeeze, np.ndarray.squeeze, np.expand_dims)
def squeeze(y, x, axis=None):
    d[x] += np.reshape(d[y], np.shape(x))


@tangent(np.squeeze, np.ndarray.squeeze, np.expand_dims)
def squeeze(y, x, axis=None):  # noqa: F811
    d[y] = np.reshape(d[x], np.shape(y))


@adjoint(np.ndarray.copy, np.copy)
def copy(y, x):
    d[x] += d[y]


@tangent(np.ndarray.copy, np.copy)
def copy(y, x):  # noqa: F811
    d[y] = d[x]


@adjoint(np.array, np.asarray)
def as_array(y, x):
    d[x] += d[y]


@tangent(np.array, np.asarray)
def as_array(y, x):  # noqa: F811
    d[y] = np.asarray(d[x])  # the tangent of a list of values is a list: make it an array


shape_rule(shapes.reshape, np.reshape)
facts(np.expand_dims, linear_in=(0,))
shape_rule(shapes.method_reshape, np.ndarray.reshape)
shape_rule(shapes.transpose, np.transpose, np.ndarray.T)
shape_rule(shapes.method_transpose, np.ndarray.transpose)
shape_rule(shapes.same_as_first, np.ndarray.copy)


def _copy_shape(x, *rest, **kwargs):  # np.copy(2.0) is a 0-d array, not a float
    x = shapes.plain(x)
    return shapes.Array(()) if isinstance(x, shapes.Scalar) else x


shape_rule(_copy_shape, np.copy)


@adjoint(np.ndarray.astype)
def astype(y, x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    d[x] += d[y]


@tangent(np.ndarray.astype)
def astype(y, x, dtype, order="K", casting="unsafe", subok=True, copy=True):  # noqa: F811
    d[y] = d[x]


shape_rule(shapes.same_as_first, np.ndarray.astype)


# np.r_[a, b] and np.c_[a, b] (normalize/anf.py writes them rt.concatenated(np.r_, [a, b]))
@adjoint(rt.concatenated)
def concatenated(y, trick, pieces):
    d[pieces] += rt.pieces_of(d[y], trick, pieces)


@tangent(rt.concatenated)
def concatenated(y, trick, pieces):  # noqa: F811
    d[y] = rt.concatenated(trick, d[pieces])


# a list's adjoint is a list of its elements' adjoints (rt.Parts): one part per piece
@adjoint(np.concatenate)
def concatenate(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] += rt.split_along(d[y], arrays, axis)


@tangent(np.concatenate)
def concatenate(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):  # noqa: F811
    d[y] = np.concatenate(d[arrays], axis=axis)


@adjoint(np.stack)
def stack(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    d[arrays] += rt.unstacked(d[y], arrays, axis)


@tangent(np.stack)
def stack(y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):  # noqa: F811
    d[y] = np.stack(d[arrays], axis=axis)


# generated adjoints broadcast with it (the adjoint of rt.unbroadcast): third derivatives
@adjoint(np.broadcast_to)
def broadcast_to(y, x, shape, subok=False):
    d[x] += rt.unbroadcast(d[y], x)


@tangent(np.broadcast_to)
def broadcast_to(y, x, shape, subok=False):  # noqa: F811
    d[y] = np.broadcast_to(d[x], shape)


# the result is a list: its adjoint is a list of one adjoint per part (rt.Parts), parts of
# unequal lengths included; joining them back is the adjoint, splitting the tangent the tangent
@adjoint(np.split)
def split(y, x, indices_or_sections, axis=0):
    d[x] += np.concatenate(d[y], axis=axis)


@tangent(np.split)
def split(y, x, indices_or_sections, axis=0):  # noqa: F811
    d[y] = np.split(d[x], indices_or_sections, axis=axis)

# no shape rule: the result is a list, whose parts' shapes shape inference does not follow
