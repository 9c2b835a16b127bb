"""Shape manipulation: reshape, transpose and .T, ravel, squeeze, expand_dims, copies,
concatenate, stack and split. Each is linear in its array (``linear``, srcad/vocabulary.py):
its tangent is the same operation on the tangent."""

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import shape_rule
from srcad.vocabulary import linear, multilinear


linear(np.reshape, parameters='y, x, shape, order="C"',
       transpose="np.reshape(g, np.shape(x), order=order)",
       tangent="np.reshape(d[x], shape, order=order)")
linear(np.ndarray.reshape, parameters="y, x, *shape", transpose="np.reshape(g, np.shape(x))",
       tangent="np.reshape(d[x], np.shape(y))")
linear(np.ravel, np.ndarray.ravel, np.ndarray.flatten, parameters="y, x",
       transpose="np.reshape(g, np.shape(x))", tangent="np.ravel(d[x])")
linear(np.transpose, parameters="y, x, axes=None",
       transpose="np.transpose(g, rt.inverse_transpose_axes(axes, np.ndim(x)))",
       tangent="np.transpose(d[x], axes)")
linear(np.ndarray.transpose, parameters="y, x, *axes",
       transpose="np.transpose(g, rt.inverse_transpose_axes(rt.method_axes(axes), np.ndim(x)))",
       tangent="np.transpose(d[x], rt.method_axes(axes))")
linear(np.ndarray.T, parameters="y, x", transpose="np.transpose(g)",
       tangent="np.transpose(d[x])")
linear(np.squeeze, np.ndarray.squeeze, np.expand_dims, parameters="y, x, axis=None",
       transpose="np.reshape(g, np.shape(x))", tangent="np.reshape(d[x], np.shape(y))")
linear(np.ndarray.copy, np.copy, parameters="y, x", transpose="g", tangent="d[x]")


# the tangent of a list of values is a list: make it an array
linear(np.array, np.asarray, parameters="y, x", transpose="g", tangent="np.asarray(d[x])")


shape_rule(shapes.reshape, np.reshape)
shape_rule(shapes.method_reshape, np.ndarray.reshape)
shape_rule(shapes.transpose, np.transpose, np.ndarray.T)
shape_rule(shapes.method_transpose, np.ndarray.transpose)
shape_rule(shapes.same_as_first, np.ndarray.copy)


def _copy_shape(x, *rest, **kwargs):  # np.copy(2.0) is a 0-d array, not a float
    x = shapes.plain(x)
    return shapes.Array(()) if isinstance(x, shapes.Scalar) else x


shape_rule(_copy_shape, np.copy)


linear(np.ndarray.astype, parameters='y, x, dtype, order="K", casting="unsafe", subok=True, '
       'copy=True', transpose="g", tangent="d[x]")


shape_rule(shapes.same_as_first, np.ndarray.astype)


# np.r_[a, b] and np.c_[a, b] (normalize/anf.py writes them rt.concatenated(np.r_, [a, b]))
multilinear(rt.concatenated, parameters="y, trick, pieces",
            transposes={"pieces": "rt.pieces_of(g, trick, pieces)"})


# a list's adjoint is a list of its elements' adjoints (rt.Parts): one part per piece
linear(np.concatenate, parameters='y, arrays, axis=0, out=None, dtype=None, casting="same_kind"',
       transpose="rt.split_along(g, arrays, axis)",
       tangent="np.concatenate(d[arrays], axis=axis)")
linear(np.stack, parameters='y, arrays, axis=0, out=None, dtype=None, casting="same_kind"',
       transpose="rt.unstacked(g, arrays, axis)", tangent="np.stack(d[arrays], axis=axis)")


# generated adjoints broadcast with it (the adjoint of rt.unbroadcast): third derivatives
linear(np.broadcast_to, parameters="y, x, shape, subok=False",
       transpose="rt.unbroadcast(g, x)", tangent="np.broadcast_to(d[x], shape)")


# the result is a list: its adjoint is a list of one adjoint per part (rt.Parts, or one
# stacked array when the parts have equal shapes), joined back along the axis; parts of
# unequal shapes included. No shape rule: shape inference does not follow a list's parts.
linear(np.split, parameters="y, x, indices_or_sections, axis=0",
       transpose="np.concatenate(g, axis=axis)",
       tangent="np.split(d[x], indices_or_sections, axis=axis)")
