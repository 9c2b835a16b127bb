"""Shape manipulation: reshape, transpose and .T, ravel, squeeze, expand_dims, copies,
concatenate, stack and split; flips, rolls and axis moves, tiles, repeats, gathers (take,
take_along_axis), pads, the joins (hstack, vstack, dstack, column_stack, append) and other
splits, sort and partition, select, meshgrid and gradient. Each is linear in its array
(``linear``, srcad/vocabulary.py), or permutes it (sort, partition): its tangent is the same
operation on the tangent."""

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.registry import adjoint, constraint, d, nondifferentiable, shape_rule, tangent
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


# ---- their shape rules: exact, or UNKNOWN where the kinds do not tell the result's rank


def _size_is_one(ones):
    """Whether an array of pattern ``ones`` has one element: True if every size is 1, False
    if one is not (a size other than 1, 0 included, makes the product other than 1)."""
    if all(one is True for one in ones):
        return True
    return False if False in ones else None


def _ravel_shape(x, *rest, **kwargs):
    """np.ravel and the .ravel/.flatten methods: one dimension of x's size (a scalar: 1)."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        return shapes.Array((True,))
    if not isinstance(x, shapes.Array):
        return shapes.UNKNOWN
    return shapes.Array((_size_is_one(x.ones),))


def _squeeze_shape(x, axis=shapes.Known(None), *rest, **kwargs):
    """np.squeeze and the .squeeze method: x without its axes of size 1 (or those of ``axis``,
    which NumPy checks have size 1). Without ``axis`` the rank depends on which sizes are 1:
    unknown where one is. A scalar gives a 0-d array."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        return shapes.Array(())
    if not isinstance(x, shapes.Array) or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    if axis.value is None:
        if None in x.ones:
            return shapes.UNKNOWN
        return shapes.Array(tuple(one for one in x.ones if not one))
    axes = axis.value if isinstance(axis.value, tuple) else (axis.value,)
    if not all(type(a) is int and -x.ndim <= a < x.ndim for a in axes):
        return shapes.UNKNOWN
    dropped = {a % x.ndim for a in axes}
    return shapes.Array(tuple(one for i, one in enumerate(x.ones) if i not in dropped))


def _method_squeeze_shape(x, *axis, **kwargs):
    return _squeeze_shape(x, *axis, **kwargs)


def _expand_dims_shape(x, axis=shapes.UNKNOWN, *rest, **kwargs):
    """np.expand_dims: size-1 axes inserted at ``axis`` (constants) among x's."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        x = shapes.Array(())
    if not isinstance(x, shapes.Array) or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    axes = axis.value if isinstance(axis.value, tuple) else (axis.value,)
    ndim = x.ndim + len(axes)
    if not all(type(a) is int and -ndim <= a < ndim for a in axes):
        return shapes.UNKNOWN
    inserted = {a % ndim for a in axes}
    if len(inserted) != len(axes):
        return shapes.UNKNOWN  # a repeated axis: NumPy refuses
    kept = iter(x.ones)
    return shapes.Array(tuple(True if i in inserted else next(kept) for i in range(ndim)))


def _broadcast_to_shape(x, shape=shapes.UNKNOWN, *rest, **kwargs):
    """np.broadcast_to: an array of ``shape`` (x itself matters only to NumPy's check)."""
    return shapes.made_of_shape(shape)


shape_rule(_ravel_shape, np.ravel, np.ndarray.ravel, np.ndarray.flatten)
shape_rule(_squeeze_shape, np.squeeze)
shape_rule(_method_squeeze_shape, np.ndarray.squeeze)
shape_rule(_expand_dims_shape, np.expand_dims)
shape_rule(_broadcast_to_shape, np.broadcast_to)


def _pieces(pieces, one_rank=True):
    """The patterns of a literal list of arrays (of one rank: NumPy joins no others along an
    axis), or None."""
    if not isinstance(pieces, shapes.IndexTuple) or not pieces.parts:
        return None
    patterns = [shapes.plain(piece) for piece in pieces.parts]
    if not all(isinstance(p, shapes.Array) for p in patterns) or (
            one_rank and len({p.ndim for p in patterns}) != 1):
        return None
    return patterns


def _same_size(flags):
    """The pattern of an axis every piece has of the same size (NumPy checks it)."""
    return True if True in flags else False if False in flags else None


def _summed_size(flags):
    """The pattern of an axis the pieces are joined along: one piece keeps its own; sizes all
    1, or all other than 1 (0 or at least 2), add up to more than 1; a mix may make 1."""
    if len(flags) == 1:
        return flags[0]
    return False if len(set(flags)) == 1 and None not in flags else None


def _concatenate_shape(pieces, axis=shapes.Known(0), *rest, **kwargs):
    """np.concatenate([a, b, ...], axis): joined along ``axis`` (flattened when it is
    None)."""
    patterns = _pieces(pieces, one_rank=axis != shapes.Known(None))
    if patterns is None or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    if axis.value is None:
        return shapes.Array((_summed_size([_size_is_one(p.ones) for p in patterns]),))
    ndim = patterns[0].ndim
    if type(axis.value) is not int or not -ndim <= axis.value < ndim:
        return shapes.UNKNOWN
    joined = axis.value % ndim
    return shapes.Array(tuple(
        (_summed_size if i == joined else _same_size)([p.ones[i] for p in patterns])
        for i in range(ndim)))


def _stack_shape(pieces, axis=shapes.Known(0), *rest, **kwargs):
    """np.stack([a, b, ...], axis): a new axis of one entry per piece, at ``axis``."""
    patterns = _pieces(pieces)
    if patterns is None or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    ndim = patterns[0].ndim + 1
    if type(axis.value) is not int or not -ndim <= axis.value < ndim:
        return shapes.UNKNOWN
    ones = [_same_size([p.ones[i] for p in patterns]) for i in range(ndim - 1)]
    ones.insert(axis.value % ndim, len(patterns) == 1)
    return shapes.Array(tuple(ones))


shape_rule(_concatenate_shape, np.concatenate)
shape_rule(_stack_shape, np.stack)


def _array_shape(x, *rest, ndmin=shapes.Known(0), **kwargs):
    """np.array / np.asarray: an array's pattern; a scalar's 0-d array; a list or tuple of
    scalars, or of arrays of one rank (NumPy makes them one array of equal-shaped items),
    stacked along a new first axis."""
    if ndmin != shapes.Known(0):
        return shapes.UNKNOWN
    if isinstance(x, shapes.IndexTuple):
        return shapes.stacked(x.parts)
    if isinstance(x, shapes.Known) and isinstance(x.value, tuple):
        return shapes.stacked([shapes.Known(item) for item in x.value])
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        return shapes.Array(())
    return x if isinstance(x, shapes.Array) else shapes.UNKNOWN


# the tangent of a list of values is a list: make it an array
linear(np.array, np.asarray, parameters="y, x", transpose="g", tangent="np.asarray(d[x])",
       shape=_array_shape)


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


def _index_trick_shape(trick, pieces, **kwargs):
    """np.r_[a, b]: each piece at least 1-d, joined along the first axis; np.c_[a, b]: each
    at least 2-d (a vector as a column), joined along the last. Slices and strings in the
    pieces (ranges, directives): nothing claimed."""
    if not isinstance(pieces, shapes.IndexTuple) or not isinstance(trick, shapes.Known):
        return shapes.UNKNOWN
    columns = trick.value is np.c_
    if not columns and trick.value is not np.r_:
        return shapes.UNKNOWN
    promoted = []
    for piece in pieces.parts:
        piece = shapes.plain(piece)
        if isinstance(piece, shapes.Scalar):
            piece = shapes.Array((True, True) if columns else (True,))
        elif not isinstance(piece, shapes.Array) or not piece.ndim:
            return shapes.UNKNOWN
        elif columns and piece.ndim == 1:
            piece = shapes.Array(piece.ones + (True,))
        promoted.append(piece)
    return _concatenate_shape(shapes.IndexTuple(tuple(promoted)),
                              shapes.Known(-1 if columns else 0))


# np.r_[a, b] and np.c_[a, b] (normalize/to_anf.py writes them rt.concatenated(np.r_, [a, b]))
multilinear(rt.concatenated, parameters="y, trick, pieces", shape=_index_trick_shape,
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


def _split_shape(default_axis):
    """np.split and the like: as many pieces as the sections (an int) or the indices (a
    constant list) make, each x's pattern but along the split axis, whose size the kinds do
    not tell (but for one piece: x itself)."""

    def rule(x, indices_or_sections, axis=shapes.Known(default_axis), **kwargs):
        x = shapes.plain(x)
        if not isinstance(x, shapes.Array) or not x.ndim or not isinstance(axis, shapes.Known):
            return shapes.UNKNOWN
        split_axis = axis.value
        if split_axis is None:  # np.hsplit: the columns, but a vector's only axis
            split_axis = 0 if x.ndim == 1 else 1
        if type(split_axis) is not int or not -x.ndim <= split_axis < x.ndim:
            return shapes.UNKNOWN
        sections = _probed(indices_or_sections)
        if type(sections) is int and sections > 0:
            count = sections
        elif isinstance(sections, (list, tuple)) and all(type(i) is int for i in sections):
            count = len(sections) + 1
        else:
            return shapes.UNKNOWN
        if count == 1:
            return shapes.IndexTuple((x,))
        ones = list(x.ones)
        ones[split_axis % x.ndim] = None
        return shapes.IndexTuple((shapes.Array(tuple(ones)),) * count)

    return rule


# the result is a list: its adjoint is a list of one adjoint per part (rt.Parts, or one
# stacked array when the parts have equal shapes), joined back along the axis; parts of
# unequal shapes included
linear(np.split, parameters="y, x, indices_or_sections, axis=0",
       transpose="np.concatenate(g, axis=axis)",
       tangent="np.split(d[x], indices_or_sections, axis=axis)", shape=_split_shape(0))


# ---- more shape functions: flips, rolls, axis moves, tiles, repeats, gathers, pads, joins.
# Each is linear in its array: the adjoint applies the transposed map (srcad.runtime's
# ``un*`` helpers scatter back what a gather copied, adding up copies), the tangent the
# same function to the tangent.


def _probed(value):
    """A concrete stand-in for an abstract constant argument (None: no stand-in)."""
    if isinstance(value, shapes.Known):
        return value.value
    if isinstance(value, shapes.IndexTuple) and all(
            isinstance(p, shapes.Known) for p in value.parts):
        return [p.value for p in value.parts]
    return None


# stand-in sizes: two sets of distinct primes. A result's axis of the same size with both
# sets does not depend on the stand-ins; one of the size of an input axis with both sets is
# that axis (a sum or product of sizes matching another size in both is no coincidence to
# fear)
_SIZES = ((5, 7, 11, 13, 17, 19), (23, 29, 31, 37, 41, 43))
_MOST_PROBED = 10 ** 6  # elements of a stand-in: beyond this, nothing is inferred


class _NoStandIn(Exception):
    pass


def _stand_in(arg, position, sizes, patterns, dtype=float):
    """A concrete array or scalar like ``arg`` (an abstract array, scalar, or a list of them,
    sizes numbered ``position``), recording in ``patterns`` the size-1 pattern of each size."""
    if isinstance(arg, shapes.IndexTuple):
        return [_stand_in(part, position, sizes, patterns, dtype) for part in arg.parts]
    arg = shapes.plain(arg)
    if isinstance(arg, shapes.Scalar):
        return 0.5 if arg.kind == "float" else np.float64(0.5)
    if not isinstance(arg, shapes.Array):
        raise _NoStandIn
    shape = []
    for axis, one in enumerate(arg.ones):
        if one is True:
            shape.append(1)
            continue
        size = sizes[(position * 4 + axis) % len(sizes)]
        patterns[size] = one if patterns.get(size, one) == one else None
        shape.append(size)
    if int(np.prod(shape)) > _MOST_PROBED:
        raise _NoStandIn
    return np.zeros(shape, dtype=dtype)


def _probe(function, arrays=(0,), indices=(), indices_like_arrays=False, free=()):
    """A shape rule that calls ``function`` on stand-ins of its arguments, twice: the arrays
    in positions ``arrays`` (a list of arrays too) with a distinct size per axis (1 where
    the axis has size 1; the same for all of them, as arrays joined or broadcast together),
    the integer arrays in positions ``indices`` (zeros) with sizes of their own (or the
    arrays', ``indices_like_arrays``), the other arguments as the constants they are. A
    result's axis of one size both times has that size; of an input axis's size both times,
    that axis's pattern; otherwise it is unknown. Arguments in positions ``free`` do not
    change the result's shape: 0 stands in for them when they are not constants."""

    def called(args, kwargs, sizes):
        patterns = {}
        standins = []
        for position, arg in enumerate(args):
            if position in arrays:
                standins.append(_stand_in(arg, 0, sizes, patterns))
            elif position in indices:
                standins.append(_stand_in(arg, 0 if indices_like_arrays else position, sizes,
                                          patterns, int))
            elif position in free and _probed(arg) is None:
                standins.append(0)
            else:
                standins.append(_constant(arg))
        keywords = {name: _constant(arg) for name, arg in kwargs.items()}
        try:
            return function(*standins, **keywords), patterns
        except Exception:  # a call NumPy refuses: it fails at run time, not here
            raise _NoStandIn from None

    def rule(*args, **kwargs):
        try:
            (first, patterns), (second, second_patterns) = (
                called(args, kwargs, sizes) for sizes in _SIZES)
        except _NoStandIn:
            return shapes.UNKNOWN
        if type(first) is float:
            return shapes.FLOAT
        if isinstance(first, np.generic):
            return shapes.NUMPY_SCALAR  # a NumPy function's scalar: never a Python float
        if not isinstance(first, np.ndarray) or np.ndim(second) != first.ndim:
            return shapes.UNKNOWN
        ones = []
        for size, other in zip(first.shape, np.shape(second)):
            if size == other:
                ones.append(size == 1)
            elif size in patterns and other in second_patterns and _SIZES[0].index(
                    size) == _SIZES[1].index(other):
                ones.append(patterns[size])
            else:
                ones.append(None)
        return shapes.Array(tuple(ones))

    return rule


def _constant(arg):
    """The value of a constant argument, for a stand-in call."""
    value = _probed(arg)
    if value is None and arg != shapes.Known(None):
        raise _NoStandIn
    return value


def _tile_shape(x, reps, **kwargs):
    """np.tile: an axis tiled once keeps its pattern, more than once it is not of size 1."""
    x, reps = shapes.plain(x), _probed(reps)
    if isinstance(x, shapes.Scalar):
        x = shapes.Array(())
    if not isinstance(x, shapes.Array) or reps is None:
        return shapes.UNKNOWN
    reps = tuple(np.atleast_1d(reps).tolist())
    if not all(isinstance(r, int) for r in reps):
        return shapes.UNKNOWN
    rank = max(x.ndim, len(reps))
    ones = (True,) * (rank - x.ndim) + x.ones
    reps = (1,) * (rank - len(reps)) + reps
    return shapes.Array(tuple(one if r == 1 else False for one, r in zip(ones, reps)))


# flips and rolls move elements within the array: the transpose moves them back
linear(np.flip, parameters="y, m, axis=None", transpose="np.flip(g, axis)",
       shape=_probe(np.flip))
linear(np.fliplr, parameters="y, m", transpose="np.fliplr(g)", shape=_probe(np.fliplr))
linear(np.flipud, parameters="y, m", transpose="np.flipud(g)", shape=_probe(np.flipud))
linear(np.roll, parameters="y, a, shift, axis=None",
       transpose="np.roll(g, np.negative(shift), axis)", shape=_probe(np.roll, free=(1,)))
_FIRST_TWO_AXES = (0, 1)  # np.rot90's default axes
# rotated back: by k the other way round (a constant k keeps the shape rule precise)
linear(np.rot90, parameters="y, m, k=1, axes=_FIRST_TWO_AXES",
       transpose="np.rot90(g, k, (axes[1], axes[0]))",
       shape=_probe(np.rot90))


# axis moves: the transpose moves the axes back
linear(np.swapaxes, np.ndarray.swapaxes, parameters="y, a, axis1, axis2",
       transpose="np.swapaxes(g, axis1, axis2)", tangent="np.swapaxes(d[a], axis1, axis2)",
       shape=_probe(np.swapaxes))
linear(np.moveaxis, parameters="y, a, source, destination",
       transpose="np.moveaxis(g, destination, source)", shape=_probe(np.moveaxis))
linear(np.rollaxis, parameters="y, a, axis, start=0",
       transpose="np.moveaxis(g, rt.rollaxis_destination(axis, start, np.ndim(a)), axis)",
       shape=_probe(np.rollaxis))
for _atleast in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    # one array (several arrays give a list: refused as a call the template does not accept)
    linear(_atleast, parameters="y, x", transpose="np.reshape(g, np.shape(x))",
           shape=_probe(_atleast))


# copies: the transpose adds the copies up
linear(np.tile, parameters="y, A, reps", transpose="rt.untiled(g, A, reps)",
       shape=_tile_shape)
def _along_axis_unknown(x, axis):
    """x's pattern with the size along ``axis`` unknown (flattened when axis is None): what
    a gather of a count the kinds do not tell leaves (a mask, repeats per element)."""
    x = shapes.plain(x)
    if isinstance(x, shapes.Scalar):
        x = shapes.Array(())
    if not isinstance(x, shapes.Array) or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    if axis.value is None:
        return shapes.Array((None,))
    if type(axis.value) is not int or not -x.ndim <= axis.value < x.ndim:
        return shapes.UNKNOWN
    ones = list(x.ones)
    ones[axis.value % x.ndim] = None
    return shapes.Array(tuple(ones))


_repeat_probed = _probe(np.repeat)


def _repeat_shape(a, repeats, axis=shapes.Known(None), **kwargs):
    """np.repeat: probed (a constant count); with counts per element, the axis's size is
    unknown."""
    probed = _repeat_probed(a, repeats, axis, **kwargs)
    return probed if probed is not shapes.UNKNOWN else _along_axis_unknown(a, axis)


linear(np.repeat, np.ndarray.repeat, parameters="y, a, repeats, axis=None",
       transpose="rt.unrepeated(g, a, repeats, axis)",
       tangent="np.repeat(d[a], repeats, axis)", shape=_repeat_shape)
linear(np.take, np.ndarray.take, parameters='y, a, indices, axis=None, out=None, mode="raise"',
       transpose="rt.untaken(g, a, indices, axis, mode)",
       tangent="np.take(d[a], indices, axis, mode=mode)", shape=_probe(np.take, indices=(1,)))
linear(np.take_along_axis, parameters="y, arr, indices, axis=-1",
       transpose="rt.untaken_along_axis(g, arr, indices, axis)",
       tangent="np.take_along_axis(d[arr], indices, axis)")
shape_rule(_probe(np.take_along_axis, indices=(1,), indices_like_arrays=True),
           np.take_along_axis)


# np.pad copies elements of its array (the center; with mode edge, reflect, symmetric or
# wrap also its edges or reflections) and writes constants: the adjoint adds each element of
# d[y] to the element it copies (rt.unpadded). The constants carry no derivative.
@adjoint(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0, reflect_type="even"):
    d[array] += rt.unpadded(d[y], array, pad_width, mode)


@tangent(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0,  # noqa: F811
        reflect_type="even"):
    d[y] = rt.padded(d[array], pad_width, mode)


def _pad_by_copies(arguments, carries, resolve):
    """np.pad differentiated where it copies elements (reflect_type "odd" does not)."""
    if carries(arguments["constant_values"]):
        return ("srcad differentiates np.pad in its array, not in constant_values",
                "Pad with zeros and add the constant border yourself, or stop the gradient "
                "of constant_values with srcad.stop_gradient.")
    mode = arguments["mode"]
    if isinstance(mode, gast.Constant) and mode.value not in rt.PADDED_BY_COPIES:
        return ("srcad differentiates np.pad with mode %s, not %r" % (
            ", ".join(rt.PADDED_BY_COPIES), mode.value),
            "Build the padding from slices of the array and np.concatenate.")
    reflect_type = arguments["reflect_type"]
    if not (isinstance(reflect_type, gast.Constant) and reflect_type.value == "even"):
        return ("srcad differentiates np.pad with reflect_type 'even' (the default) only",
                "Leave reflect_type out.")
    return None


constraint(_pad_by_copies, np.pad)


def pad_shape(array, pad_width, *rest, **kwargs):
    """np.pad: an axis padded by 2 or more is not of size 1; by 0, it keeps its pattern."""
    array, widths = shapes.plain(array), _probed(pad_width)
    if not isinstance(array, shapes.Array) or widths is None:
        return shapes.UNKNOWN
    try:
        widths = np.broadcast_to(np.asarray(widths, dtype=int), (array.ndim, 2)).sum(axis=1)
    except (TypeError, ValueError):
        return shapes.UNKNOWN
    return shapes.Array(tuple(
        one if width == 0 else False if width >= 2 or one is True else None
        for one, width in zip(array.ones, widths.tolist())))


shape_rule(pad_shape, np.pad)


def _joined_shape(joiner):
    """The shape rule of np.hstack and the like: each piece's pattern as the joiner promotes
    it, the pieces' patterns along the other axes, and along the joined axis not of size 1
    when the pieces' sizes there add up to more than 1 whatever they are (several pieces
    all of size 1, or all not of size 1: sizes 0 or at least 2)."""
    promoted = _probe(joiner)

    def rule(pieces, **kwargs):
        array = shapes.plain(pieces)
        if isinstance(array, shapes.Array) and array.ndim:
            return _rows_joined(array)
        if not isinstance(pieces, shapes.IndexTuple) or not pieces.parts:
            return shapes.UNKNOWN
        patterns = [promoted(shapes.IndexTuple((piece,))) for piece in pieces.parts]
        if not all(isinstance(p, shapes.Array) for p in patterns) or len(
                {p.ndim for p in patterns}) != 1:
            return shapes.UNKNOWN
        ndim = patterns[0].ndim
        axis = {np.vstack: 0, np.dstack: 2, np.column_stack: 1}.get(
            joiner, 0 if joiner is not np.hstack or ndim == 1 else 1)
        ones = []
        for position in range(ndim):
            flags = {p.ones[position] for p in patterns}
            if position == axis:
                several = len(patterns) > 1 and len(flags) == 1 and None not in flags
                ones.append(False if several else flags.pop() if len(patterns) == 1 else None)
            else:
                known = flags - {None}
                ones.append(known.pop() if len(known) == 1 else None)
        return shapes.Array(tuple(ones))

    def _rows_joined(array):
        """The pieces are the rows of one array: as many as its first axis holds, alike."""
        pattern = promoted(shapes.IndexTuple((shapes.Array(array.ones[1:]),)))
        if not isinstance(pattern, shapes.Array):
            return shapes.UNKNOWN
        axis = {np.vstack: 0, np.dstack: 2, np.column_stack: 1}.get(
            joiner, 0 if joiner is not np.hstack or pattern.ndim == 1 else 1)
        ones, count, size = list(pattern.ones), array.ones[0], pattern.ones[axis]
        # count x size is 1 only for one row of size 1 there (0 or >= 2 otherwise)
        ones[axis] = size if count is True else (
            False if count is False or size is False else None)
        return shapes.Array(tuple(ones))

    return rule


# hstack, vstack, dstack, column_stack join pieces that each enter promoted
# (at least 1-d, 2-d or 3-d, a vector as a column): the adjoint cuts d[y] into one part per
# piece with the piece's own shape (rt.unjoined, a list's adjoint rt.Parts)
# (np.row_stack, an alias of vstack that NumPy 2 deprecates and 2.5 removes, has none: the
# list of primitives must not depend on the NumPy version)
for _joiner in (np.hstack, np.vstack, np.dstack, np.column_stack):
    linear(_joiner, parameters='y, tup, dtype=None, casting="same_kind"',
           transpose="rt.unjoined(g, np.%s, tup)" % _joiner.__name__,
           tangent="np.%s(d[tup])" % _joiner.__name__, shape=_joined_shape(_joiner))


# np.append(arr, values, axis) is np.concatenate of both (flattened when axis is None):
# linear in the pair, so its tangent appends the tangents
@adjoint(np.append)
def append(y, arr, values, axis=None):
    d[arr] += rt.split_along(d[y], [arr, values], axis)[0]
    d[values] += rt.split_along(d[y], [arr, values], axis)[1]


@tangent(np.append)
def append(y, arr, values, axis=None):  # noqa: F811
    d[y] = np.append(d[arr], d[values], axis)


# the other splits, as np.split: the adjoint joins the parts' adjoints back
linear(np.array_split, parameters="y, ary, indices_or_sections, axis=0",
       transpose="np.concatenate(g, axis=axis)", shape=_split_shape(0))
linear(np.hsplit, parameters="y, ary, indices_or_sections", transpose="np.hstack(g)",
       shape=_split_shape(None))
linear(np.vsplit, parameters="y, ary, indices_or_sections", transpose="np.vstack(g)",
       shape=_split_shape(0))
linear(np.dsplit, parameters="y, ary, indices_or_sections", transpose="np.dstack(g)",
       shape=_split_shape(2))


# np.sort and np.partition permute their array along the axis: the adjoint puts d[y] back
# through the permutation (rt.order_of finds it from the result). Ties (where the
# permutation is not unique and the sorted values are not differentiable) take one of them.
@adjoint(np.sort)
def sort(y, a, axis=-1, kind=None, order=None):
    d[a] += rt.untaken_along_axis(d[y], a, rt.order_of(y, a, axis), axis)


@tangent(np.sort)
def sort(y, a, axis=-1, kind=None, order=None):  # noqa: F811
    d[y] = np.take_along_axis(d[a], rt.order_of(y, a, axis), axis)


@adjoint(np.partition)
def partition(y, a, kth, axis=-1, kind="introselect", order=None):
    d[a] += rt.untaken_along_axis(d[y], a, rt.order_of(y, a, axis), axis)


@tangent(np.partition)
def partition(y, a, kth, axis=-1, kind="introselect", order=None):  # noqa: F811
    d[y] = np.take_along_axis(d[a], rt.order_of(y, a, axis), axis)


shape_rule(_probe(np.append, arrays=(0, 1)), np.append)
shape_rule(_probe(np.sort), np.sort)
shape_rule(_probe(np.partition), np.partition)
nondifferentiable(np.searchsorted, np.ndarray.searchsorted)  # indices


def _searchsorted_shape(a, v, *rest, **kwargs):
    """np.searchsorted: an index per value of v."""
    v = shapes.plain(v)
    return shapes.NUMPY_SCALAR if isinstance(v, shapes.Scalar) else v


shape_rule(_searchsorted_shape, np.searchsorted)


# np.select takes each element from the first choice whose condition holds, or the default:
# linear in the choices and the default together; the conditions carry no derivative
@adjoint(np.select)
def select(y, condlist, choicelist, default=0):
    d[choicelist] += rt.select_adjoint(d[y], condlist, choicelist)
    d[default] += rt.unbroadcast(rt.unselected(d[y], condlist), default)


@tangent(np.select)
def select(y, condlist, choicelist, default=0):  # noqa: F811
    d[y] = np.select(condlist, d[choicelist], d[default])


def _select_shape(condlist, choicelist, default=shapes.Known(0), **kwargs):
    """np.select: the broadcast of every condition, choice and the default (an array)."""
    parts = [default]
    for items in (condlist, choicelist):
        if not isinstance(items, shapes.IndexTuple):
            return shapes.UNKNOWN
        parts.extend(items.parts)
    result = shapes.elementwise(*parts)
    return shapes.Array(()) if isinstance(result, shapes.Scalar) else result


shape_rule(_select_shape, np.select)


# np.gradient: central differences inside, one-sided ones at the edges, along each axis;
# linear in f for constant, scalar spacings (a tuple of arrays when several axes: a Parts)
@adjoint(np.gradient)
def gradient(y, f, *varargs, axis=None, edge_order=1):
    d[f] += rt.gradient_adjoint(d[y], f, varargs, axis, edge_order)


@tangent(np.gradient)
def gradient(y, f, *varargs, axis=None, edge_order=1):  # noqa: F811
    d[y] = rt.gradient_of(d[f], varargs, axis, edge_order)


def gradient_shape(f, *varargs, axis=shapes.Known(None), edge_order=None, **kwargs):
    """np.gradient: f's shape, one array per axis differentiated (a tuple of them when
    ``axis`` is None or a tuple and f has several axes)."""
    f = shapes.plain(f)
    if not isinstance(f, shapes.Array) or not f.ndim or not isinstance(axis, shapes.Known):
        return shapes.UNKNOWN
    if type(axis.value) is int:
        return f
    count = f.ndim if axis.value is None else len(axis.value) if isinstance(
        axis.value, tuple) else None
    if count is None:
        return shapes.UNKNOWN
    return f if count == 1 else shapes.IndexTuple((f,) * count)


shape_rule(gradient_shape, np.gradient)


def _constant_spacing(arguments, carries, resolve):
    if carries(arguments["varargs"]):
        return ("srcad differentiates np.gradient in f, not in its spacing",
                "Divide np.gradient(f) by the spacing instead.")
    return None


constraint(_constant_spacing, np.gradient)


# np.meshgrid of up to four arrays: each grid repeats one of them along the other axes (the
# first two swapped with indexing "xy"); each array's adjoint sums its grid's adjoint back
@adjoint(np.meshgrid)
def meshgrid(y, x1, x2=None, x3=None, x4=None, copy=True, sparse=False, indexing="xy"):
    d[x1] += rt.meshgrid_adjoint(d[y], x1, 0, indexing)
    d[x2] += rt.meshgrid_adjoint(d[y], x2, 1, indexing)
    d[x3] += rt.meshgrid_adjoint(d[y], x3, 2, indexing)
    d[x4] += rt.meshgrid_adjoint(d[y], x4, 3, indexing)


@tangent(np.meshgrid)
def meshgrid(y, x1, x2=None, x3=None, x4=None, copy=True, sparse=False,  # noqa: F811
             indexing="xy"):
    d[y] = rt.meshgrid_tangent((d[x1], d[x2], d[x3], d[x4]), (x1, x2, x3, x4), sparse,
                               indexing)


def meshgrid_shape(*arrays, copy=None, sparse=shapes.Known(False),
                    indexing=shapes.Known("xy")):
    """np.meshgrid: one grid per array (each flattened): of every array's length, the first
    two swapped with indexing "xy"; with sparse=True, 1 but along the grid's own axis."""
    kinds = [shapes.plain(x) for x in arrays]
    if not kinds or not isinstance(sparse, shapes.Known) or indexing not in (
            shapes.Known("xy"), shapes.Known("ij")):
        return shapes.UNKNOWN
    lengths = []
    for x in kinds:
        if isinstance(x, shapes.Scalar):
            lengths.append(True)
        elif isinstance(x, shapes.Array):
            lengths.append(_size_is_one(x.ones))
        else:
            return shapes.UNKNOWN
    order = list(range(len(lengths)))
    if indexing.value == "xy" and len(order) > 1:
        order[0], order[1] = order[1], order[0]
    full = tuple(lengths[i] for i in order)
    grids = []
    for position in range(len(lengths)):
        if sparse.value:
            grids.append(shapes.Array(tuple(
                lengths[i] if i == position else True for i in order)))
        else:
            grids.append(shapes.Array(full))
    return shapes.IndexTuple(tuple(grids))


shape_rule(meshgrid_shape, np.meshgrid)


# np.delete and np.insert move the elements they keep: the adjoint finds where each came
# from by applying the same call to the elements' flat indices
linear(np.delete, parameters="y, arr, obj, axis=None",
       transpose="rt.undeleted(g, arr, obj, axis)", shape=_probe(np.delete))


@adjoint(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[arr] += rt.insert_adjoint(d[y], arr, obj, values, axis, 0)
    d[values] += rt.insert_adjoint(d[y], arr, obj, values, axis, 1)


@tangent(np.insert)
def insert(y, arr, obj, values, axis=None):  # noqa: F811
    d[y] = np.insert(d[arr], obj, d[values], axis)


shape_rule(_probe(np.insert, arrays=(0, 2)), np.insert)


# gathers by a mask: the elements where the condition holds
multilinear(np.compress, parameters="y, condition, a, axis=None, out=None",
            transposes={"a": "rt.untaken(g, a, np.flatnonzero(condition), axis)"},
            tangent="np.compress(condition, d[a], axis)")
linear(np.ndarray.compress, parameters="y, a, condition, axis=None, out=None",  # a.compress
       transpose="rt.untaken(g, a, np.flatnonzero(condition), axis)",
       tangent="np.compress(condition, d[a], axis)")
multilinear(np.extract, parameters="y, condition, arr",
            transposes={"arr": "rt.untaken(g, arr, np.flatnonzero(condition), None)"},
            tangent="np.extract(condition, d[arr])")
shape_rule(lambda condition, a, axis=shapes.Known(None), *rest, **kwargs: _along_axis_unknown(
    a, axis), np.compress)
shape_rule(lambda a, condition, axis=shapes.Known(None), *rest, **kwargs: _along_axis_unknown(
    a, axis), np.ndarray.compress)
shape_rule(lambda condition, arr, **kwargs: _along_axis_unknown(arr, shapes.Known(None)),
           np.extract)


# functions of an array's values that give indices, or counts
nondifferentiable(np.argpartition, np.ndarray.argpartition, np.nonzero, np.ndarray.nonzero,
                  np.argwhere, np.flatnonzero, np.digitize, np.unravel_index,
                  np.ravel_multi_index, np.indices, np.tril_indices, np.triu_indices,
                  np.diag_indices, np.lexsort, np.count_nonzero, np.isin)


# np.choose(a, choices): each element from the choice a names there (a, integers, carries no
# derivative): np.select with the conditions a == 0, a == 1, ...
@adjoint(np.choose)
def choose(y, a, choices, out=None, mode="raise"):
    d[choices] += rt.select_adjoint(d[y], rt.choice_masks(a, len(choices)), choices)


@tangent(np.choose)
def choose(y, a, choices, out=None, mode="raise"):  # noqa: F811
    d[y] = np.choose(a, d[choices], mode=mode)


def _choose_in_range(arguments, carries, resolve):
    mode = arguments["mode"]
    if not (isinstance(mode, gast.Constant) and mode.value == "raise"):
        return ("srcad differentiates np.choose with mode 'raise' (the default) only",
                "Clip or wrap the indices yourself (np.clip, %), then choose.")
    return None


constraint(_choose_in_range, np.choose)
def _choose_shape(a, choices, *rest, **kwargs):
    """np.choose: the indices and every choice broadcast together."""
    if not isinstance(choices, shapes.IndexTuple) or not choices.parts:
        return shapes.UNKNOWN
    result = shapes.elementwise(a, *choices.parts)
    return shapes.Array(()) if isinstance(result, shapes.Scalar) else result


shape_rule(_choose_shape, np.choose)
nondifferentiable(rt.choice_masks)


# x.item(*args): one element as a Python number (x.item() of a one-element array, x.item(i) by
# flat index, x.item(i, j) or x.item((i, j)) by position)
linear(np.ndarray.item, parameters="y, x, *args",
       transpose="rt.unindex(g, x, rt.item_index(x, args))",
       tangent="np.asarray(d[x]).item(*args)", shape=shapes.python_float)
nondifferentiable(rt.item_index)
