"""Shape rules of functions returning a list or tuple (np.split, np.linalg.eigh, np.meshgrid
...), of np.array/np.linspace/np.einsum, and ``x[..., i]``: every claim a rule makes holds
for NumPy's actual results.

A claim is an abstract value (srcad/analysis/shapes.py): ``Array(ones)`` says the rank and,
per axis, size 1 (True), not 1 (False) or unknown (None); ``IndexTuple(parts)`` says the
count of items and each item's claim. A wrong claim lets specialized code skip a sum an
adjoint needs: a silently wrong derivative. So each rule is run on the kinds of concrete
arguments of many shapes (sizes 0, 1, 2, 3: the edge cases included) and its claim compared
with what NumPy returns for them.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest

from srcad import registry
from srcad import runtime as rt
from srcad.analysis import shapes

registry.load_templates()

try:
    from scipy import linalg as scipy_linalg
except ImportError:  # pragma: no cover - SciPy is optional
    scipy_linalg = None


def _holds(claim, value) -> bool:
    """Whether ``value`` is one of the values the abstract ``claim`` stands for."""
    if claim is shapes.UNKNOWN or claim is None:
        return True
    if isinstance(claim, shapes.IndexTuple):
        return isinstance(value, (list, tuple)) and len(value) == len(claim.parts) and all(
            _holds(part, item) for part, item in zip(claim.parts, value))
    if isinstance(claim, shapes.Scalar):
        return np.ndim(value) == 0 and not isinstance(value, (list, tuple))
    if isinstance(claim, shapes.Array):
        if not isinstance(value, np.ndarray) and not isinstance(value, np.generic):
            return False
        return np.ndim(value) == claim.ndim and all(
            one is None or one == (size == 1) for one, size in zip(claim.ones, np.shape(value)))
    raise AssertionError("unexpected claim %r" % (claim,))


def _claims(function, *args, **kwargs):
    """The claim of ``function``'s shape rule for the kinds of ``args`` (constants given as
    shapes.Known in ``args`` stay constants)."""
    rule = registry.lookup(function).shape_rule
    kinds = [a if isinstance(a, shapes.Abstract) else shapes.of_value(a) for a in args]
    keywords = {k: shapes.Known(v) for k, v in kwargs.items()}
    return rule(*kinds, **keywords)


def _value(a):
    if isinstance(a, shapes.IndexTuple):  # a constant list
        return [_value(part) for part in a.parts]
    return a.value if isinstance(a, shapes.Known) else a


def _check(function, *args, **kwargs):
    claim = _claims(function, *args, **kwargs)
    try:
        value = function(*(_value(a) for a in args), **kwargs)
    except (ValueError, IndexError, np.linalg.LinAlgError):
        return claim  # a call NumPy refuses: the claim does not matter
    assert _holds(claim, value), "%s%r: claimed %r, got shapes %r" % (
        function.__name__, tuple(np.shape(_value(a)) for a in args), claim,
        [np.shape(v) for v in value] if isinstance(value, (list, tuple)) else np.shape(value))
    return claim


SIZES = (0, 1, 2, 3)


def _arrays(ndim, sizes=SIZES):
    for shape in itertools.product(sizes, repeat=ndim):
        yield np.ones(shape)


def test_split_family_claims_hold():
    claimed = 0
    for ndim in (1, 2, 3):
        for x in _arrays(ndim):
            for function, axes in ((np.split, (0, -1)), (np.array_split, (0, -1)),
                                   (np.hsplit, (None,)), (np.vsplit, (None,)),
                                   (np.dsplit, (None,))):
                for sections in (1, 2, 3, [1], [1, 2], []):
                    for axis in axes:
                        extra = {} if axis is None else {"axis": axis}
                        known = shapes.Known(sections) if type(sections) is int else (
                            shapes.IndexTuple(tuple(shapes.Known(i) for i in sections)))
                        claim = _check(function, x, known, **extra)
                        claimed += isinstance(claim, shapes.IndexTuple)
    assert claimed > 200  # the rules do claim, not only UNKNOWN


def test_array_and_asarray_claims_hold():
    for items in ([1.0], [1.0, 2.0], [np.ones(2), np.ones(2)], [np.ones((1, 3))],
                  [np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3))]):
        parts = shapes.IndexTuple(tuple(shapes.of_value(i) for i in items))
        for function in (np.array, np.asarray):
            claim = registry.lookup(function).shape_rule(parts)
            assert isinstance(claim, shapes.Array)
            assert _holds(claim, function(items))
    for x in (2.0, np.float64(3.0), np.ones(3), np.ones((1, 2))):
        assert isinstance(_check(np.array, x), shapes.Array)


def test_linspace_claims_hold():
    for start, stop in ((0.0, 1.0), (np.ones(3), 2.0), (np.ones((2, 1)), np.ones(3)),
                        (np.ones(1), np.ones((1, 1)))):
        for num in (0, 1, 2, 5):
            for axis in (0, -1):
                for endpoint in (True, False):
                    claim = _check(np.linspace, start, stop, shapes.Known(num),
                                   endpoint=endpoint, axis=axis)
                    assert isinstance(claim, shapes.Array)


def test_meshgrid_claims_hold():
    vectors = [np.ones(n) for n in SIZES] + [2.0, np.ones((2, 2))]
    for count in (1, 2, 3):
        for arrays in itertools.product(vectors, repeat=count):
            for indexing in ("xy", "ij"):
                for sparse in (False, True):
                    claim = _check(np.meshgrid, *arrays, indexing=indexing, sparse=sparse)
                    assert isinstance(claim, shapes.IndexTuple)


def test_gradient_claims_hold():
    for ndim in (1, 2, 3):
        for x in _arrays(ndim, (2, 3)):
            for axis in (None, 0, -1, (0,), tuple(range(ndim))):
                _check(np.gradient, x, axis=axis)


@pytest.mark.parametrize("subscripts, ranks", [
    ("ij,jk->ik", (2, 2)), ("ij,jk", (2, 2)), ("ii->i", (2,)), ("iij->ji", (3,)),
    ("ij->j", (2,)), ("...ij,...jk->...ik", (3, 2)), ("ij,ij->ij", (2, 2)), ("i,i", (1, 1)),
    ("ij,jk,k->i", (2, 2, 1)), ("...i,i->...i", (2, 1)), ("ij->", (2,)),
])
def test_einsum_claims_hold(subscripts, ranks):
    for shapes_ in itertools.product(*(itertools.product((1, 2, 3), repeat=r) for r in ranks)):
        _check(np.einsum, shapes.Known(subscripts), *(np.ones(s) for s in shapes_))


def _matrices():
    for m, n in itertools.product((1, 2, 3), repeat=2):
        for stack in ((), (1,), (2,)):
            yield np.eye(m, n) + np.ones(stack + (m, n)) * 0.1


def test_factorization_claims_hold():
    for a in _matrices():
        square = a.shape[-1] == a.shape[-2]
        for full in (True, False):
            _check(np.linalg.svd, a, full_matrices=full)
        _check(np.linalg.svd, a, compute_uv=False)
        for mode in ("reduced", "complete", "r"):
            _check(np.linalg.qr, a, mode=mode)
        if square:
            symmetric = a + np.swapaxes(a, -1, -2)
            assert isinstance(_check(np.linalg.eigh, symmetric), shapes.IndexTuple)
            _check(np.linalg.eigvalsh, symmetric)
            _check(np.linalg.slogdet, symmetric)


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")
def test_scipy_factorization_claims_hold():
    for a in _matrices():
        if a.ndim != 2:
            continue
        for full in (True, False):
            _check(scipy_linalg.svd, a, full_matrices=full)
        _check(scipy_linalg.svd, a, compute_uv=False)
        for mode in ("full", "economic", "r"):
            _check(scipy_linalg.qr, a, mode=mode)
        if a.shape[0] == a.shape[1]:
            spd = a @ a.T + np.eye(a.shape[0])
            _check(scipy_linalg.eigh, spd)
            _check(scipy_linalg.eigh, spd, eigvals_only=True)
            _check(scipy_linalg.cholesky, spd)
            factor = _check(scipy_linalg.cho_factor, spd)
            assert isinstance(factor, shapes.IndexTuple)
            for b in (np.ones(a.shape[0]), np.ones((a.shape[0], 1)), np.ones((a.shape[0], 2))):
                claim = registry.lookup(scipy_linalg.cho_solve).shape_rule(
                    factor, shapes.of_value(b))
                assert _holds(claim, scipy_linalg.cho_solve(scipy_linalg.cho_factor(spd), b))


def test_ellipsis_index_claims_hold():
    indexes = [(Ellipsis, 0), (Ellipsis, slice(None, 1), slice(None)), (0, Ellipsis),
               (None, Ellipsis, None), (Ellipsis,), (Ellipsis, 1, None)]
    for ndim in (1, 2, 3):
        for x in _arrays(ndim, (1, 2, 3)):
            for index in indexes:
                _check(operator.getitem, x, shapes.Known(index))


def test_an_item_of_a_tuple_is_its_claim():
    pair = shapes.IndexTuple((shapes.Array((False,)), shapes.FLOAT))
    assert shapes.getitem(pair, shapes.Known(0)) == shapes.Array((False,))
    assert shapes.getitem(pair, shapes.Known(-1)) == shapes.FLOAT
    assert shapes.getitem(pair, shapes.Known(2)) is shapes.UNKNOWN
    assert shapes.getitem(pair, shapes.Scalar("int")) is shapes.UNKNOWN


def test_lists_concatenate_but_adjoints_of_one_list_add_item_by_item():
    items = shapes.IndexTuple((shapes.Array((False,)), shapes.Array((True,))))
    # a user's lists: [a, b] + [c, d] has four items; nothing is claimed
    assert shapes.add(items, items) is shapes.UNKNOWN
    # two adjoints of one list (rt.Parts): added part by part
    parts = registry.lookup(rt.split_along).shape_rule(shapes.Array((False,)), items)
    assert parts.adds_items
    assert shapes.add(parts, parts) == parts
    assert isinstance(rt.split_along(np.ones(4), [np.ones(3), np.ones(1)]) + rt.split_along(
        np.ones(4), [np.ones(3), np.ones(1)]), rt.Parts)
    # parts of a list and an array's pattern do not join
    assert shapes.join(parts, items) is shapes.UNKNOWN


def test_parts_claims_hold():
    pieces = [np.ones((2, 3)), np.ones((1, 3)), np.ones((3, 3))]
    kinds = shapes.IndexTuple(tuple(shapes.of_value(p) for p in pieces))
    g = np.ones((6, 3))
    for helper, args in ((rt.split_along, (g, pieces, 0)), (rt.unjoined, (g, np.vstack, pieces)),
                         (rt.pieces_of, (g, np.r_, pieces))):
        claim = registry.lookup(helper).shape_rule(
            *(kinds if a is pieces else shapes.of_value(a) if isinstance(a, np.ndarray)
              else shapes.UNKNOWN for a in args))
        assert _holds(claim, helper(*args))
    stacked = [np.ones(3), np.ones(3)]
    claim = registry.lookup(rt.unstacked).shape_rule(
        shapes.of_value(np.ones((2, 3))),
        shapes.IndexTuple(tuple(shapes.of_value(p) for p in stacked)))
    assert _holds(claim, rt.unstacked(np.ones((2, 3)), stacked))
    claim = registry.lookup(rt.unindex).shape_rule(
        shapes.of_value(np.ones(3)), kinds, shapes.Known(1))
    assert _holds(claim, rt.unindex(np.ones((1, 3)), pieces, 1))


def test_gathers_of_counts_not_told_claim_only_the_rank():
    for ndim in (1, 2):
        for x in _arrays(ndim, (1, 2, 3)):
            for axis in (None, 0, -1):
                keywords = {} if axis is None else {"axis": axis}
                for repeats in (0, 1, 2, [1] * x.shape[0 if axis is None else axis]):
                    known = shapes.Known(repeats) if type(repeats) is int else (
                        shapes.IndexTuple(tuple(shapes.Known(r) for r in repeats)))
                    if axis is None and type(repeats) is list:
                        continue
                    _check(np.repeat, x, known, **keywords)
                mask = np.arange(x.shape[0 if axis is None else axis]) % 2 == 0
                if axis is None:
                    mask = np.arange(x.size) % 2 == 0
                _check(np.compress, mask, x, **keywords)
            _check(np.extract, x > 0, x)
            _check(np.searchsorted, np.arange(3.0), x)
    for items in ([[0, 1], [1, 0]], [[[1.0]], [[2.0]]]):
        claim = registry.lookup(np.array).shape_rule(shapes.IndexTuple(tuple(
            shapes.IndexTuple(tuple(shapes.Known(v) for v in row)) if isinstance(row[0], int)
            else shapes.IndexTuple(tuple(shapes.IndexTuple((shapes.Known(v[0]),)) for v in row))
            for row in items)))
        assert isinstance(claim, shapes.Array) and _holds(claim, np.array(items))


def test_lstsq_claims_hold():
    for m, n in ((3, 2), (2, 3), (3, 3), (1, 2), (2, 1)):
        a = np.eye(m, n) + 0.1
        for b in (np.ones(m), np.ones((m, 1)), np.ones((m, 2))):
            claim = _check(np.linalg.lstsq, a, b)
            assert isinstance(claim, shapes.IndexTuple)


def test_choose_claims_hold():
    for a in (np.array([0, 1, 0]), np.array([[0], [1]]), np.array([1])):
        for choices in ([np.ones(3), 2.0], [np.ones((2, 1)), np.ones((1, 3))], [np.ones(1), 1.0]):
            claim = registry.lookup(np.choose).shape_rule(
                shapes.of_value(a), shapes.IndexTuple(tuple(shapes.of_value(c) for c in choices)))
            assert _holds(claim, np.choose(a, choices))
    g = np.ones((2, 3))
    choices = [np.ones(3), np.ones((2, 1)), 1.5]
    masks = [np.eye(2, 3, dtype=bool), ~np.eye(2, 3, dtype=bool), np.zeros((2, 3), bool)]
    claim = registry.lookup(rt.select_adjoint).shape_rule(
        shapes.of_value(g), shapes.UNKNOWN,
        shapes.IndexTuple(tuple(shapes.of_value(c) for c in choices)))
    assert claim.adds_items and _holds(claim, rt.select_adjoint(g, masks, choices))


def test_linear_algebra_helper_claims_hold():
    def check(helper, *args):
        claim = registry.lookup(helper).shape_rule(*(
            shapes.of_value(a) if isinstance(a, (np.ndarray, float)) else shapes.Known(a)
            for a in args))
        assert claim is not shapes.UNKNOWN and _holds(claim, helper(*args)), helper

    for shape in ((1, 1), (2, 2), (3, 3), (2, 1, 1), (1, 3, 3)):
        a = np.ones(shape)
        check(rt.block_upper, a, a)
        check(rt.block_upper, a, np.ones(shape[-2:]))
        check(rt.block_diagonal_sum, rt.block_upper(a, a))
        check(rt.upper_right_block, rt.block_upper(a, a))
        for lower in (True, False):
            check(rt.lower_factor, a, lower)
            check(rt.other_triangle, a, lower)
    for n in (1, 2, 3):
        ab = np.ones((3, n))
        check(rt.banded_dense, ab, (1, 1))
        check(rt.band_of, np.ones((n, n)), (1, 1))
        check(rt.band_of, np.ones((n, n)), (0, 0))
        like = np.ones((2, n))
        check(rt.residual_weights, np.ones(n), like)
        check(rt.residual_weights, np.ones(0), like)
        check(rt.residuals_like, np.ones((1, n)), np.ones(n))
        check(rt.added_at, np.ones((n, 2)), 0, np.ones(2))
    check(rt.gradient_of, np.ones((3, 4)), (), None, 1)
    check(rt.gradient_of, np.ones((3, 4)), (), 1, 1)


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")
def test_multivariate_normal_claims_hold():
    import scipy.stats as st

    logpdf = st.multivariate_normal.logpdf
    for k in (1, 2, 3):
        mean = np.zeros(k)
        for shape in ((k,), (1, k), (2, k), (2, 1, k), (1, 2, k), (3,), (4, 1), ()):
            for m in (mean, 0.0) if k == 1 else (mean,):
                for cov in (np.eye(k), np.ones(k), 2.0):
                    _check(logpdf, np.ones(shape), m, cov)


def test_covariance_helper_claims_hold():
    for cov in (2.0, np.ones(1), np.ones(3), np.eye(3), np.eye(1)):
        size = np.shape(cov)[-1] if np.ndim(cov) else 3
        for known in (True, False):
            claim = registry.lookup(rt.full_covariance).shape_rule(
                shapes.of_value(cov), shapes.Known(size) if known else shapes.Scalar("int"))
            assert _holds(claim, rt.full_covariance(cov, size))
        g = np.ones((size, size))
        claim = registry.lookup(rt.covariance_part).shape_rule(
            shapes.of_value(g), shapes.of_value(cov))
        assert _holds(claim, rt.covariance_part(g, cov))


def test_a_list_operand_is_the_array_numpy_makes_of_it_but_for_python_operators():
    numbers = shapes.IndexTuple((shapes.Known(20), shapes.Known(90)))
    rows = shapes.IndexTuple((shapes.of_value(np.ones(3)), shapes.of_value(np.ones(3))))
    for operand, value, others in (
            (numbers, [20, 90], (100.0, np.ones((3, 1)), np.ones((1, 1)))),
            (rows, [np.ones(3), np.ones(3)], (100.0, np.ones(3), np.ones((1, 1))))):
        for other in others:
            claim = shapes.elementwise(operand, shapes.of_value(other))
            assert claim is not shapes.UNKNOWN and _holds(claim, np.true_divide(value, other))
    # [a] * 3 repeats the list and [a] + [b] concatenates: nothing claimed; with an array
    # among the operands NumPy makes an array of the list
    assert shapes.operator_elementwise(rows, shapes.Known(3)) is shapes.UNKNOWN
    assert shapes.comparison(rows, rows) is shapes.UNKNOWN
    assert shapes.add(rows, rows) is shapes.UNKNOWN
    claim = shapes.operator_elementwise(rows, shapes.of_value(np.ones((2, 3))))
    assert _holds(claim, [np.ones(3), np.ones(3)] * np.ones((2, 3)))


def test_meshgrid_helper_claims_hold():
    x, y = np.ones(3), np.ones((2, 1))
    for tangents in ((x, y), (x, 0.0), (0.0, y)):
        for indexing in ("xy", "ij"):
            for sparse in (False, True):
                args = (tangents + (0.0, 0.0), (x, y, None, None), sparse, indexing)
                claim = registry.lookup(rt.meshgrid_tangent).shape_rule(
                    shapes.IndexTuple(tuple(shapes.Known(t) if isinstance(t, float) else
                                            shapes.of_value(t) for t in args[0])),
                    shapes.IndexTuple(tuple(shapes.Known(None) if a is None else
                                            shapes.of_value(a) for a in args[1])),
                    shapes.Known(sparse), shapes.Known(indexing))
                assert isinstance(claim, shapes.IndexTuple)
                assert _holds(claim, rt.meshgrid_tangent(*args))
    grids = np.meshgrid(np.ones(3), 2.0)
    claim = registry.lookup(rt.meshgrid_adjoint).shape_rule(
        shapes.UNKNOWN, shapes.FLOAT, shapes.Known(1), shapes.Known("xy"))
    assert _holds(claim, rt.meshgrid_adjoint(grids, 2.0, 1, "xy"))


def test_index_trick_claims_hold():
    items = [2.0, np.ones(1), np.ones(3), np.ones((2, 3)), np.ones((1, 3)), np.ones((3, 1))]
    claimed = 0
    for trick in (np.r_, np.c_):
        for count in (1, 2, 3):
            for pieces in itertools.product(items, repeat=count):
                try:
                    value = rt.concatenated(trick, list(pieces))
                except ValueError:
                    continue
                claim = registry.lookup(rt.concatenated).shape_rule(
                    shapes.Known(trick), shapes.IndexTuple(tuple(
                        shapes.of_value(p) for p in pieces)))
                assert _holds(claim, value), (trick, [np.shape(p) for p in pieces], claim)
                claimed += isinstance(claim, shapes.Array)
    assert claimed > 50


def test_factorization_output_claims_hold():
    u, s, vh = np.ones((3, 2)), np.ones(2), np.ones((2, 2))
    whole = (u, s, vh)
    kinds = shapes.IndexTuple(tuple(shapes.of_value(p) for p in whole))
    for condition in (True, False):
        for layout in (1, (1,), (0, 2)):
            args = (shapes.Known(condition), shapes.Known(layout))
            claim = registry.lookup(rt.output_layout).shape_rule(*args)
            chosen = rt.output_layout(condition, layout)
            assert claim == shapes.Known(chosen)
            value = rt.outputs(whole, chosen)
            assert _holds(registry.lookup(rt.outputs).shape_rule(kinds, claim), value)
            returned = registry.lookup(rt.outputs).shape_rule(kinds, claim)
            for index in range(3):
                for like in (None, whole[index]):
                    part_claim = registry.lookup(rt.output_part).shape_rule(
                        returned, shapes.Known(index), claim,
                        shapes.Known(None) if like is None else shapes.of_value(like))
                    assert part_claim is not shapes.UNKNOWN
                    assert _holds(part_claim, rt.output_part(value, index, chosen, like))
