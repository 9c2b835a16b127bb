"""Specialized gradients of classic layers are plain NumPy, and right.

When every argument's kind is known, shape rules precise enough for the method forms users
write (``x.reshape(x.shape[0], -1)``, ``.dot``, ``x[np.arange(n), y]``, ``x[:, None]``)
let optimize/specialize_runtime_calls.py replace every runtime helper that decides from
shapes seen at run time (``DISPATCHING``) by the NumPy it reduces to. Helpers that do the
work themselves (``rt.unindex``, ``rt.extremum_adjoint``, ``rt.without``) and the
ownership guard ``rt.owned_tuple`` stay.
"""

import re
import zlib

import numpy as np
import pytest

import srcad
from srcad.analysis import shapes
from srcad.analysis.shapes import Array, Dimension, IndexTuple, Known, Scalar
from tests import classic_layers
from tests.gradcheck import PATHS, check_gradient

DISPATCHING = ("unbroadcast", "expand_reduced", "reduced_size", "dot_adjoint_left",
               "dot_adjoint_right", "matmul_adjoint_left", "matmul_adjoint_right",
               "match_type", "zeros_like", "check_scalar_output", "unit_seed")

# what stays, and why: a size the kinds of the arguments cannot tell
LEFT_GENERIC = {
    # x[np.arange(n), y] has one dimension of unknown size (an index array may be a mask)
    "svm_loss": ["unbroadcast"],
    # height // 2 may be 1: pooled * dout may broadcast pooled
    "max_pool": ["unbroadcast"],
    # a[:, :hidden] has a computed size: i * g may broadcast
    "lstm_step": ["unbroadcast"] * 11,
}
LAYERS = sorted(classic_layers.arguments(np.random.default_rng(0)))


def _case(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return classic_layers.arguments(rng)[name]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", LAYERS)
def test_gradient_matches_finite_differences(name, path):
    layer, args, wrt = _case(name)
    check_gradient(layer, args, wrt=wrt, path=path)


@pytest.mark.parametrize("name", LAYERS)
def test_specialized_code_has_no_dispatching_helper(name):
    layer, args, wrt = _case(name)
    source = srcad.grad(layer, wrt=wrt).source_for(*args)
    left = re.findall(r"\brt\.(%s)\(" % "|".join(DISPATCHING), source)
    assert left == LEFT_GENERIC.get(name, []), source


def test_affine_layer_reads_like_a_hand_written_backward():
    layer, args, wrt = _case("affine")
    source = srcad.grad(layer, wrt=wrt).source_for(*args)
    assert "np.dot(out_bar, w.T)" in source and "out_bar.sum(axis=0)" in source
    # the forward pass is not run: the loss's adjoint needs only dout's shape
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert not any(".dot(w)" in line for line in code), source


# ---- the shape rules behind it


def test_reshape_with_an_array_size_and_minus_one():
    x = Array((False, False, False))
    size = shapes.getitem(shapes.shape_of(x), Known(0))
    assert size == Dimension(one=False) and shapes.plain(size) == Scalar("int")
    assert shapes.method_reshape(x, size, Known(-1)) == Array((False, None))
    assert shapes.method_reshape(x, Known(-1)) == Array((False,))
    assert shapes.method_reshape(x, Known((1, -1))) == Array((True, False))
    assert shapes.method_reshape(x, Known((2, -1))) == Array((False, None))  # (2, 1)?
    assert shapes.method_reshape(Array((True, True)), Known(-1)) == Array((True,))
    assert shapes.reshape(x, shapes.shape_of(Array((True, False)))) == Array((True, False))
    assert shapes.method_reshape(x, Scalar("int"), Known(3)) == Array((None, False))
    assert shapes.method_reshape(x, Known("a")) == shapes.UNKNOWN


def test_index_arrays_give_a_dimension_of_unknown_size():
    x = Array((False, False))
    rows, labels = Array((None,)), Array((False,))
    assert shapes.getitem(x, IndexTuple((rows, labels))) == Array((None,))
    assert shapes.getitem(x, labels) == Array((None, False))
    assert shapes.getitem(x, IndexTuple((Known(slice(None)), labels))) == Array((False, None))
    # not adjacent: the indexed dimension goes first, as NumPy puts it
    y = Array((False, True, False))
    assert shapes.getitem(y, IndexTuple((labels, Known(slice(None)), labels))) == Array(
        (None, True))
    assert shapes.getitem(x, Array((False, False))) == shapes.UNKNOWN  # a mask of rank 2?
    assert shapes.getitem(Array((None,)), Known((slice(None), None))) == Array((None, True))


# ---- soundness of what the rules and specializers assume


def sum_of_broadcast_product(x, w):
    return np.sum(x * w)


def sum_through_reassigned_parameter(x, w):
    w = w * 2.0
    return np.sum(x * w)


def mean_over_axes(x):
    return np.mean(np.sin(x), axis=(0, 2))[1] + np.sum(np.cos(x), axis=-1, keepdims=True)[0, 1, 0]


@pytest.mark.parametrize("shapes_", [((3, 4), (1, 4)), ((3, 4), (4,)), ((1, 4), (3, 4)),
                                     ((3, 1), (3, 4)), ((3, 4), (3, 4))])
@pytest.mark.parametrize("function", [sum_of_broadcast_product, sum_through_reassigned_parameter])
def test_adjoint_of_a_sum_broadcasts_to_the_right_shape(function, shapes_):
    rng = np.random.default_rng(zlib.crc32(repr(shapes_).encode()))
    args = [rng.normal(size=s) for s in shapes_]
    for path in PATHS:
        check_gradient(function, args, wrt=(0, 1), path=path)


def test_reductions_over_constant_axes_specialize():
    x = np.random.default_rng(1).normal(size=(2, 3, 4))
    source = srcad.grad(mean_over_axes).source_for(x)
    assert "rt.expand_reduced" not in source and "rt.reduced_size" not in source, source
    for path in PATHS:
        check_gradient(mean_over_axes, [x], path=path)


def test_softmax_loss_spreads_no_broadcast_its_readers_broadcast_anyway():
    # optimize/keep_broadcasts_implicit.py: the sums' adjoints are read as they are
    layer, args, wrt = _case("softmax_loss")
    source = srcad.grad(layer, wrt=wrt).source_for(*args)
    assert "broadcast_to" not in source, source


def test_svm_loss_adjoint_of_a_new_axis_is_a_reshape():
    # rt.unindex(g, correct, (slice(None, None), np.newaxis)) specialized
    layer, args, wrt = _case("svm_loss")
    source = srcad.grad(layer, wrt=wrt).source_for(*args)
    assert "correct_item_bar.reshape(correct.shape)" in source, source
